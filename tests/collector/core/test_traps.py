"""collector/core/traps.py and notifications.py: real datagrams from net-snmp's snmptrap decoded,
v3 USM checked (MD5/DES, SHA/AES, SHA-256 without privacy), and bad input refused with a reason."""
from __future__ import annotations

import socket
import subprocess

import pytest

from collector.core import notifications, traps
from collector.core.traps import TrapError, UsmUser

ENGINE = "0x8000000001020304"
VB = ["1.3.6.1.2.1.2.2.1.1.3", "i", "3", "1.3.6.1.2.1.2.2.1.8.3", "i", "2"]


def capture(*args: str) -> bytes:
    """One datagram as snmptrap sends it."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.settimeout(10)
        env = {"PATH": "/usr/bin:/bin", "MIBS": "", "HOME": "/nonexistent", "SNMPCONFPATH": "/nonexistent"}
        subprocess.run(["snmptrap", *args[:-2], f"127.0.0.1:{s.getsockname()[1]}", *args[-2:]], check=True, env=env)
        return s.recv(65535)


def test_v2c_link_down():
    m = traps.decode(capture("-v2c", "-c", "sw-community", "", "1.3.6.1.6.3.1.1.5.3"))
    assert (m.version, m.community, m.trap_oid) == (1, b"sw-community", (1, 3, 6, 1, 6, 3, 1, 1, 5, 3))
    assert m.uptime_cs is not None
    note = notifications.find(m.trap_oid)
    assert note is not None and (note.name, note.effect) == ("linkDown", "port_state")


@pytest.mark.parametrize("auth, priv, proto, pproto", [("MD5", "DES", "MD5", "DES"), ("SHA", "AES", "SHA", "AES"),
                                                       ("SHA-256", None, "SHA256", "")])
def test_v3_right_and_wrong_keys(auth, priv, proto, pproto):
    user = UsmUser("trapper", proto, "authpass1", pproto, "privpass1" if pproto else "")
    m = traps.decode(_v3_link_down(auth, priv))
    traps.usm_open(m, user)
    assert m.trap_oid == (1, 3, 6, 1, 6, 3, 1, 1, 5, 3) and notifications.if_index_of(m.varbinds) == 3
    assert notifications.port_state(notifications.find(m.trap_oid), m.varbinds) == ("down", "")
    with pytest.raises(TrapError, match="wrong authentication key"):
        traps.usm_open(traps.decode(_v3_link_down(auth, priv, akey="otherpass")), user)
    if priv:
        with pytest.raises(TrapError, match="wrong privacy key"):
            traps.usm_open(traps.decode(_v3_link_down(auth, priv, pkey="otherpass")), user)
    with pytest.raises(TrapError, match="unknown USM user 'trapper'"):
        traps.usm_open(traps.decode(_v3_link_down(auth, priv)), UsmUser("someone", proto, "authpass1"))


def _v3_link_down(auth: str, priv: str | None, akey: str = "authpass1", pkey: str = "privpass1") -> bytes:
    level = ["-l", "authPriv", "-a", auth, "-A", akey, "-x", priv, "-X", pkey] if priv else \
        ["-l", "authNoPriv", "-a", auth, "-A", akey]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.settimeout(10)
        env = {"PATH": "/usr/bin:/bin", "MIBS": "", "HOME": "/nonexistent", "SNMPCONFPATH": "/nonexistent"}
        subprocess.run(["snmptrap", "-v3", "-u", "trapper", *level, "-e", ENGINE, f"127.0.0.1:{s.getsockname()[1]}",
                        "", "1.3.6.1.6.3.1.1.5.3", *VB], check=True, env=env)
        return s.recv(65535)


def test_a_lower_security_level_than_the_switchs_is_refused():
    m = traps.decode(_v3_link_down("SHA", None))
    with pytest.raises(TrapError, match="security level authNoPriv does not match"):
        traps.usm_open(m, UsmUser("trapper", "SHA", "authpass1", "AES", "privpass1"))


@pytest.mark.parametrize("data, reason", [
    (b"", "empty"),
    (b"\x30\x03\x02\x01", "malformed"),
    (b"\x30\x03\x02\x01\x07", "unknown SNMP version 7"),
    (b"\x16\x03\x01\x00\x01\x00", "malformed message: tag 0x16"),
    (bytes(70000), "oversized"),
])
def test_bad_datagrams_say_why(data, reason):
    with pytest.raises(TrapError, match=reason):
        traps.decode(data)


def test_a_v1_trap_is_refused_by_name():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.settimeout(10)
        env = {"PATH": "/usr/bin:/bin", "MIBS": "", "HOME": "/nonexistent", "SNMPCONFPATH": "/nonexistent"}
        subprocess.run(["snmptrap", "-v1", "-c", "c", f"127.0.0.1:{s.getsockname()[1]}", "1.3.6.1.4.1.326",
                        "127.0.0.1", "2", "0", ""], check=True, env=env)
        data = s.recv(65535)
    with pytest.raises(TrapError, match="SNMPv1 Trap-PDU"):
        traps.decode(data)
