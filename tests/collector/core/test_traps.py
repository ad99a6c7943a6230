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
    """One datagram as snmptrap sends it (v2c/v3: the options, then the uptime and trap OID)."""
    return _sent(lambda host: [*args[:-2], host, *args[-2:]])


def capture_v1(community: str, *args: str) -> bytes:
    """One SNMPv1 Trap-PDU as snmptrap sends it: ENTERPRISE AGENT-ADDR GENERIC SPECIFIC UPTIME [varbinds]."""
    return _sent(lambda host: ["-v1", "-c", community, host, *args])


def _sent(argv) -> bytes:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.settimeout(10)
        env = {"PATH": "/usr/bin:/bin", "MIBS": "", "HOME": "/nonexistent", "SNMPCONFPATH": "/nonexistent"}
        subprocess.run(["snmptrap", *argv(f"127.0.0.1:{s.getsockname()[1]}")], check=True, env=env)
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


# snmptrap -v1 -c COMMUNITY HOST ENTERPRISE AGENT-ADDR GENERIC SPECIFIC UPTIME [varbinds], and what
# RFC 3584 section 3.1 says the translated notification is.
V1_CASES = {
    "linkDown (generic 2)": (["1.3.6.1.4.1.326", "127.0.0.5", "2", "0", "4242", *VB],
                             (1, 3, 6, 1, 6, 3, 1, 1, 5, 3), 4242),
    "coldStart (generic 0)": (["1.3.6.1.4.1.326", "10.1.2.3", "0", "0", "7"], (1, 3, 6, 1, 6, 3, 1, 1, 5, 1), 7),
    "FORE enterprise specific 1021": (["1.3.6.1.4.1.326.2.2", "127.0.0.5", "6", "1021", "99", *VB],
                                      (1, 3, 6, 1, 4, 1, 326, 2, 2, 0, 1021), 99),
}


@pytest.mark.parametrize("args, trap_oid, uptime", list(V1_CASES.values()), ids=list(V1_CASES))
def test_a_v1_trap_is_translated_as_rfc_3584_says(args, trap_oid, uptime):
    m = traps.decode(capture_v1("fore-c", *args))
    enterprise, agent = args[0], args[1]
    assert (m.version, m.pdu_type, m.community) == (0, traps.TRAP_V1, b"fore-c")
    assert m.trap_oid == trap_oid and m.uptime_cs == uptime
    names = [oid for oid, _ in m.varbinds]
    assert names[:2] == [traps.SYS_UPTIME, traps.SNMP_TRAP_OID]
    values = dict(m.varbinds)
    assert values[traps.SNMP_TRAP_ADDRESS] == agent and values[traps.SNMP_TRAP_ENTERPRISE] == enterprise
    if len(args) > 5:      # the trap's own variable bindings, in order, between the two
        assert names[2:4] == [(1, 3, 6, 1, 2, 1, 2, 2, 1, 1, 3), (1, 3, 6, 1, 2, 1, 2, 2, 1, 8, 3)]
        assert (values[names[2]], values[names[3]]) == (3, 2)


def test_a_v1_link_down_means_what_a_v2c_one_means():
    v1 = traps.decode(capture_v1("c", "1.3.6.1.4.1.326", "127.0.0.5", "2", "0", "1", *VB))
    note = notifications.find(v1.trap_oid)
    assert note is not None and (note.name, note.effect) == ("linkDown", "port_state")


FORE_ENTERPRISE = "06072b060104018246"       # OID 1.3.6.1.4.1.326


@pytest.mark.parametrize("data, reason", [
    # a Trap-PDU cut after its enterprise
    (bytes.fromhex("3011" "020100" "040163" "a409" + FORE_ENTERPRISE), "malformed message: truncated"),
    # generic-trap 9 (RFC 1157 has 0..6)
    (bytes.fromhex("3022" "020100" "040163" "a41a" + FORE_ENTERPRISE + "400401020304" "020109" "020100" "430101"
                   "3000"), "generic-trap 9"),
    # an agent-addr of 3 octets
    (bytes.fromhex("3021" "020100" "040163" "a419" + FORE_ENTERPRISE + "4003010203" "020102" "020100" "430101"
                   "3000"), "agent-addr"),
])
def test_bad_v1_traps_say_why(data, reason):
    with pytest.raises(TrapError, match=reason):
        traps.decode(data)
