"""SNMP session for Cellar: GET and table-column walks behind a small async interface.

    target = SnmpTarget("10.0.0.1", community="...")
    async with SnmpSession(target) as s:
        scalars = await s.get(["1.3.6.1.2.1.1.3.0", "1.3.6.1.2.1.1.1.0"])
        columns = await s.walk(["1.3.6.1.2.1.2.2.1.10", "1.3.6.1.2.1.2.2.1.16"])
        # {"1.3.6.1.2.1.2.2.1.10": {(1,): 123, (2,): 456}, ...}

Two interchangeable backends sit behind SnmpSession:

* ``fast`` (SNMPv1/v2c, chosen automatically): our own strict BER codec
  (collector/snmp_codec.py) over one connected asyncio UDP endpoint per session, with
  request-id matching and retransmission.  Decoding is the hot path of polling; this path
  keeps OIDs in their encoded form and tests subtree membership with bytes.startswith.
* ``pysnmp`` (SNMPv3, or any version when asked for): pysnmp 7 asyncio (v3arch) at the
  command-generator level (no MIB resolution).  pysnmp engines come from an ``Engine``
  shared by all sessions of a process: one pysnmp SnmpEngine per event loop and per
  credential set (pysnmp's USM table is keyed by user name, so two users of the same
  name with different keys must not share an engine).

Both backends feed the same GET / walk logic, so their behaviour (chunking, error
handling, loop protection, value mapping) is identical and tested against each other.

Secrets (community, auth/priv keys) never appear in repr(), in exception messages or in
logs; exceptions raised from pysnmp failures are re-raised without chaining.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import random
import socket
from dataclasses import dataclass, field, asdict
from typing import Sequence

from collector import snmp_codec as codec
from collector.snmp_codec import VarBindException

__all__ = [
    "SnmpTarget", "SnmpSession", "SnmpStats", "Engine", "Value",
    "SnmpError", "SnmpTimeout", "SnmpAuthError", "SnmpProtocolError", "SnmpConfigError",
    "AUTH_PROTOCOLS", "PRIV_PROTOCOLS", "MAX_GET_VARBINDS", "MAX_WALK_COLUMNS",
    "DEFAULT_MAX_WALK_VARBINDS",
]

log = logging.getLogger(__name__)

Value = int | bytes | str | None

AUTH_PROTOCOLS = ("MD5", "SHA", "SHA224", "SHA256", "SHA384", "SHA512")
PRIV_PROTOCOLS = ("DES", "AES", "AES192", "AES256")

MAX_GET_VARBINDS = 40             # varbinds per GET PDU
MAX_WALK_COLUMNS = 40             # columns per GETNEXT/GETBULK PDU
MAX_REPETITIONS_CAP = 1000        # never ask for more repetitions than this
MAX_BULK_VARBINDS = 250           # columns x repetitions asked for in one GETBULK
DEFAULT_MAX_WALK_VARBINDS = 1_000_000

BACKENDS = ("auto", "fast", "pysnmp")
DEFAULT_BACKEND = os.environ.get("CELLAR_SNMP_BACKEND", "auto")


# ---------------------------------------------------------------------------------------
# Public types

@dataclass(frozen=True)
class SnmpTarget:
    host: str
    port: int = 161
    version: str = "2c"          # "1" | "2c" | "3"
    community: str = field(default="public", repr=False)
    v3_user: str = ""
    auth_proto: str = ""         # "" | "MD5" | "SHA" | "SHA224" | "SHA256" | "SHA384" | "SHA512"
    auth_key: str = field(default="", repr=False)
    priv_proto: str = ""         # "" | "DES" | "AES" | "AES192" | "AES256"
    priv_key: str = field(default="", repr=False)
    timeout: float = 2.0         # seconds per request attempt
    retries: int = 1
    max_repetitions: int = 25
    # secrets must never appear in repr/str/logs/exceptions

    @property
    def label(self) -> str:
        """host:port for messages (no secrets)."""
        h = f"[{self.host}]" if ":" in self.host else self.host
        return f"{h}:{self.port}"

    @property
    def security_level(self) -> str:
        if self.version != "3":
            return "community"
        if not self.auth_proto:
            return "noAuthNoPriv"
        return "authPriv" if self.priv_proto else "authNoPriv"


class SnmpError(Exception):
    """Base class of all SNMP failures; messages never contain secrets."""


class SnmpTimeout(SnmpError):
    """No (acceptable) response within timeout x (1 + retries)."""


class SnmpAuthError(SnmpError):
    """SNMPv3 security failure: unknown user, wrong digest, decryption error, ..."""


class SnmpProtocolError(SnmpError):
    """Malformed or hostile response, error-status from the agent, looping agent."""


class SnmpConfigError(SnmpError, ValueError):
    """Invalid target or arguments (bad OID, unknown protocol, ...)."""


@dataclass
class SnmpStats:
    """Cheap per-session counters for self-reporting."""
    requests: int = 0        # PDUs issued (first transmissions)
    retries: int = 0         # retransmissions (fast backend only; pysnmp retries internally)
    timeouts: int = 0        # requests that ran out of attempts
    responses: int = 0       # accepted responses
    varbinds: int = 0        # varbinds in accepted responses
    error_status: int = 0    # responses with a non-zero error-status (handled or not)
    bytes_sent: int = 0      # fast backend only
    bytes_received: int = 0  # fast backend only
    malformed: int = 0       # undecodable datagrams (fast backend)
    stray: int = 0           # datagrams matching no outstanding request (late duplicates)
    icmp_errors: int = 0     # ICMP errors reported on the socket (e.g. port unreachable)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    def add(self, other: "SnmpStats") -> None:
        for k, v in asdict(other).items():
            setattr(self, k, getattr(self, k) + v)


# ---------------------------------------------------------------------------------------
# Validation helpers

def _validate_target(t: SnmpTarget) -> None:
    if not isinstance(t.host, str) or not t.host:
        raise SnmpConfigError("target host is empty")
    if not isinstance(t.port, int) or not 0 < t.port < 65536:
        raise SnmpConfigError(f"bad port for {t.host}")
    if t.version not in ("1", "2c", "3"):
        raise SnmpConfigError(f"bad SNMP version {t.version!r} for {t.label}")
    if not (isinstance(t.timeout, (int, float)) and 0 < t.timeout <= 300):
        raise SnmpConfigError(f"bad timeout for {t.label}")
    if not isinstance(t.retries, int) or not 0 <= t.retries <= 20:
        raise SnmpConfigError(f"bad retries for {t.label}")
    if not isinstance(t.max_repetitions, int) or t.max_repetitions < 1:
        raise SnmpConfigError(f"bad max_repetitions for {t.label}")
    if t.version == "3":
        if not t.v3_user:
            raise SnmpConfigError(f"SNMPv3 target {t.label} has no user")
        if t.auth_proto and t.auth_proto not in AUTH_PROTOCOLS:
            raise SnmpConfigError(f"unknown auth protocol {t.auth_proto!r} for {t.label}")
        if t.priv_proto and t.priv_proto not in PRIV_PROTOCOLS:
            raise SnmpConfigError(f"unknown privacy protocol {t.priv_proto!r} for {t.label}")
        if t.priv_proto and not t.auth_proto:
            raise SnmpConfigError(f"privacy without authentication for {t.label}")
        if t.auth_proto and len(t.auth_key) < 8:
            raise SnmpConfigError(f"auth key for {t.label} is shorter than 8 characters")
        if t.priv_proto and len(t.priv_key) < 8:
            raise SnmpConfigError(f"priv key for {t.label} is shorter than 8 characters")
    elif not isinstance(t.community, str):
        raise SnmpConfigError(f"community for {t.label} must be a string")


def _raw(oid: str) -> bytes:
    try:
        return codec.oid_to_raw(oid)
    except codec.CodecError as e:
        raise SnmpConfigError(str(e)) from None


def _timeout_message(t: SnmpTarget) -> str:
    if t.version != "3":
        hint = " (wrong community?)"
    elif t.priv_proto:
        hint = " (agent down, or wrong privacy key?)"   # net-snmp drops undecryptable PDUs
    else:
        hint = ""
    return (f"no response from {t.label} (SNMPv{t.version}) after {t.retries + 1} "
            f"attempt(s) of {t.timeout:g}s{hint}")


def _status_error(label: str, op: str, status: int, culprit: str = "") -> SnmpError:
    """Exception for an error-status we cannot handle."""
    cls = SnmpAuthError if status == 16 else SnmpProtocolError   # authorizationError
    return cls(f"{label} answered {op} with {_status_name(status)}{culprit}")


def _pick_address(infos: list) -> tuple:
    """First IPv4 result of getaddrinfo, else the first result (e.g. IPv6 only)."""
    for info in infos:
        if info[0] == socket.AF_INET:
            return info
    return infos[0]


def _status_name(es: int) -> str:
    names = codec.ERROR_STATUS_NAMES
    return f"{names[es]}({es})" if 0 <= es < len(names) else f"error-status {es}"


# ---------------------------------------------------------------------------------------
# Engine: process-wide shared state (pysnmp engines)

class Engine:
    """Per-process SNMP engine state shared by many sessions.

    The fast v1/v2c backend needs no shared state (one small UDP endpoint per session);
    the pysnmp backend needs SnmpEngine objects, which are bound to an event loop and,
    for SNMPv3, hold a USM user table keyed by user name.  ``Engine`` hands out one
    pysnmp SnmpEngine per (event loop, credential set) and keeps them for reuse.
    ``Engine.default()`` is the process-wide instance used when a session gets none.
    """

    _default: "Engine | None" = None

    def __init__(self) -> None:
        # loop -> {credential key: pysnmp SnmpEngine}; the engines reference their loop,
        # so entries of closed loops are dropped explicitly (see _purge_closed_loops)
        self._by_loop: dict[asyncio.AbstractEventLoop, dict] = {}

    @classmethod
    def default(cls) -> "Engine":
        if cls._default is None:
            cls._default = cls()
        return cls._default

    @staticmethod
    def _cred_key(t: SnmpTarget) -> tuple:
        if t.version != "3":
            return ("community",)
        h = hashlib.sha256()
        for part in (t.auth_proto, t.auth_key, t.priv_proto, t.priv_key):
            h.update(part.encode("utf-8", "surrogatepass") + b"\0")
        return ("usm", t.v3_user, h.hexdigest())

    def pysnmp_engine(self, target: SnmpTarget):
        from pysnmp.hlapi.v3arch.asyncio import SnmpEngine as _PysnmpEngine

        loop = asyncio.get_running_loop()
        engines = self._by_loop.get(loop)
        if engines is None:
            self._purge_closed_loops()
            engines = self._by_loop[loop] = {}
        key = self._cred_key(target)
        eng = engines.get(key)
        if eng is None:
            eng = engines[key] = _PysnmpEngine()
        return eng

    def _purge_closed_loops(self) -> None:
        # asyncio.run() per task (e.g. a Celery task) leaves closed loops behind: forget
        # their engines; the garbage collector closes their sockets.  Keeping one loop per
        # worker process is cheaper (a new pysnmp engine costs ~0.1-0.5 s of CPU).
        for loop in [lp for lp in self._by_loop if lp.is_closed()]:
            del self._by_loop[loop]

    def close(self) -> None:
        """Close the pysnmp transports (call from the loop that used them, at shutdown)."""
        for loop, engines in list(self._by_loop.items()):
            for eng in engines.values():
                if eng.transport_dispatcher is not None and not loop.is_closed():
                    try:
                        eng.close_dispatcher()
                    except Exception:  # pragma: no cover - best effort at shutdown
                        pass
        self._by_loop = {}


# ---------------------------------------------------------------------------------------
# Backends: request(pdu_type, raw_names, max_repetitions) -> (status, index, varbinds)

class _UdpClientProtocol(asyncio.DatagramProtocol):
    def __init__(self, stats: SnmpStats, label: str):
        self.stats = stats
        self.label = label
        self.pending: dict[int, asyncio.Future] = {}
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr) -> None:
        st = self.stats
        st.bytes_received += len(data)
        if not self.pending:
            st.stray += 1
            return
        try:
            resp = codec.decode_response(data)
        except codec.CodecError as e:
            # Only the agent can reach this connected socket: it is sending garbage.
            st.malformed += 1
            for fut in self.pending.values():
                if not fut.done():
                    fut.set_exception(
                        SnmpProtocolError(f"malformed response from {self.label}: {e}"))
            return
        fut = self.pending.get(resp.request_id)
        if fut is None or fut.done():
            st.stray += 1
            return
        fut.set_result(resp)

    def error_received(self, exc: Exception) -> None:
        # ICMP port/host unreachable etc.; UDP is unreliable, so keep waiting/retrying.
        self.stats.icmp_errors += 1

    def connection_lost(self, exc) -> None:
        for fut in self.pending.values():
            if not fut.done():
                fut.set_exception(SnmpError(f"transport to {self.label} closed"))


def _expire(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_result(None)


class _FastBackend:
    name = "fast"

    def __init__(self, target: SnmpTarget, stats: SnmpStats):
        self.target = target
        self.stats = stats
        self._version = 0 if target.version == "1" else 1
        self._community = target.community.encode("utf-8", "surrogateescape")
        self._proto: _UdpClientProtocol | None = None
        self._transport: asyncio.DatagramTransport | None = None
        self._open_lock = asyncio.Lock()
        self._rid = random.randrange(1, 2**31 - 1)

    async def _open(self) -> None:
        async with self._open_lock:
            if self._transport is not None:
                return
            t = self.target
            loop = asyncio.get_running_loop()
            try:
                infos = await loop.getaddrinfo(t.host, t.port, type=socket.SOCK_DGRAM,
                                               proto=socket.IPPROTO_UDP)
            except (socket.gaierror, UnicodeError, OSError) as e:
                raise SnmpError(f"cannot resolve {t.label}: {e}") from None
            if not infos:
                raise SnmpError(f"cannot resolve {t.label}")
            family, _, _, _, addr = _pick_address(infos)
            try:
                transport, proto = await loop.create_datagram_endpoint(
                    lambda: _UdpClientProtocol(self.stats, t.label),
                    remote_addr=(addr[0], addr[1]),
                    family=family)
            except OSError as e:
                raise SnmpError(f"cannot open UDP socket to {t.label}: {e}") from None
            self._transport, self._proto = transport, proto

    async def request(self, pdu_type: int, names: list, max_repetitions: int = 0):
        if self._transport is None:
            await self._open()
        t = self.target
        st = self.stats
        proto, transport = self._proto, self._transport
        assert proto is not None and transport is not None
        self._rid = self._rid % (2**31 - 1) + 1
        rid = self._rid
        msg = codec.encode_request(self._version, self._community, pdu_type, rid, names,
                                   0, max_repetitions)
        loop = asyncio.get_running_loop()
        pending = proto.pending
        st.requests += 1
        resp = None
        try:
            for attempt in range(t.retries + 1):
                if attempt:
                    st.retries += 1
                # a fresh future per attempt; a late answer to an earlier attempt carries
                # the same request-id and is accepted as well
                fut = loop.create_future()
                pending[rid] = fut
                transport.sendto(msg)
                st.bytes_sent += len(msg)
                timer = loop.call_later(t.timeout, _expire, fut)
                try:
                    resp = await fut     # may raise SnmpProtocolError (malformed datagram)
                finally:
                    timer.cancel()
                if resp is not None:
                    break
            else:
                st.timeouts += 1
                raise SnmpTimeout(_timeout_message(t))
        finally:
            pending.pop(rid, None)
        if resp.version != self._version or resp.pdu_type != codec.RESPONSE:
            raise SnmpProtocolError(f"unexpected message version/PDU type from {t.label}")
        if resp.community != self._community:
            raise SnmpProtocolError(f"response from {t.label} carries a different community")
        st.responses += 1
        st.varbinds += len(resp.varbinds)
        return resp.error_status, resp.error_index, resp.varbinds

    async def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
            self._proto = None


# pysnmp error indications that mean "SNMPv3 security problem"
_AUTH_ERRIND = {
    "UnknownUserName", "WrongDigest", "DecryptionError", "EncryptionError",
    "UnsupportedSecurityLevel", "UnknownSecurityName", "NotInTimeWindow", "UnknownEngineID",
    "AuthenticationError", "AuthenticationFailure", "NoAuthentication", "NoEncryption",
    "UnsupportedAuthProtocol", "UnsupportedPrivProtocol", "UnsupportedSecurityModel",
    "EngineIDMismatch",
}


class _PysnmpBackend:
    name = "pysnmp"

    def __init__(self, target: SnmpTarget, stats: SnmpStats, engine):
        self.target = target
        self.stats = stats
        self._engine_arg = engine
        self._snmp_engine = None
        self._addr_name = None
        self._open_lock = asyncio.Lock()
        self._secrets = tuple(s for s in (target.community if target.version != "3" else "",
                                          target.auth_key, target.priv_key) if s)

    def _scrub(self, text: str) -> str:
        for s in self._secrets:
            text = text.replace(s, "***")
        return text

    async def _open(self) -> None:
        async with self._open_lock:
            if self._addr_name is not None:
                return
            from pysnmp.hlapi.v3arch.asyncio import (
                CommunityData, SnmpEngine as _PysnmpEngine, Udp6TransportTarget,
                UdpTransportTarget, UsmUserData)
            from pysnmp.hlapi.v3arch.asyncio import auth as _auth
            from pysnmp.hlapi.v3arch.asyncio.cmdgen import LCD

            t = self.target
            eng = self._engine_arg
            if eng is None:
                eng = Engine.default()
            if isinstance(eng, Engine):
                eng = eng.pysnmp_engine(t)
            elif not isinstance(eng, _PysnmpEngine):
                raise SnmpConfigError("engine must be collector.snmp.Engine or a pysnmp SnmpEngine")
            loop = asyncio.get_running_loop()
            try:
                infos = await loop.getaddrinfo(t.host, t.port, type=socket.SOCK_DGRAM,
                                               proto=socket.IPPROTO_UDP)
            except (socket.gaierror, UnicodeError, OSError) as e:
                raise SnmpError(f"cannot resolve {t.label}: {e}") from None
            if not infos:
                raise SnmpError(f"cannot resolve {t.label}")
            family, _, _, _, addr = _pick_address(infos)
            cls = Udp6TransportTarget if family == socket.AF_INET6 else UdpTransportTarget
            try:
                transport = await cls.create((addr[0], t.port), timeout=t.timeout,
                                             retries=t.retries)
                if t.version == "3":
                    auth_protos = {
                        "": _auth.USM_AUTH_NONE, "MD5": _auth.USM_AUTH_HMAC96_MD5,
                        "SHA": _auth.USM_AUTH_HMAC96_SHA,
                        "SHA224": _auth.USM_AUTH_HMAC128_SHA224,
                        "SHA256": _auth.USM_AUTH_HMAC192_SHA256,
                        "SHA384": _auth.USM_AUTH_HMAC256_SHA384,
                        "SHA512": _auth.USM_AUTH_HMAC384_SHA512,
                    }
                    priv_protos = {
                        "": _auth.USM_PRIV_NONE, "DES": _auth.USM_PRIV_CBC56_DES,
                        "AES": _auth.USM_PRIV_CFB128_AES, "AES192": _auth.USM_PRIV_CFB192_AES,
                        "AES256": _auth.USM_PRIV_CFB256_AES,
                    }
                    auth = UsmUserData(
                        t.v3_user,
                        authKey=t.auth_key or None, privKey=t.priv_key or None,
                        authProtocol=auth_protos[t.auth_proto],
                        privProtocol=priv_protos[t.priv_proto])
                else:
                    auth = CommunityData(t.community, mpModel=0 if t.version == "1" else 1)
                self._addr_name, _ = LCD.configure(eng, auth, transport, b"")
                failure = None
            except Exception as e:
                # raised below, outside this block: no __context__ that could carry secrets
                failure = SnmpConfigError(
                    f"cannot configure pysnmp for {t.label}: {type(e).__name__}: "
                    f"{self._scrub(str(e))}")
            if failure is not None:
                raise failure
            self._snmp_engine = eng

    async def request(self, pdu_type: int, names: list, max_repetitions: int = 0):
        if self._addr_name is None:
            await self._open()
        from pysnmp.entity.rfc3413 import cmdgen
        from pysnmp.proto.rfc1902 import ObjectName
        from pyasn1.type.univ import Null

        t = self.target
        st = self.stats
        loop = asyncio.get_running_loop()
        fut = loop.create_future()

        def callback(snmpEngine, handle, errorIndication, errorStatus, errorIndex,
                     varBinds, cbCtx):
            if not fut.done():
                fut.set_result((errorIndication, errorStatus, errorIndex, varBinds))

        vbs = [(ObjectName(codec.raw_to_oid(n)), Null("")) for n in names]
        eng, addr = self._snmp_engine, self._addr_name
        st.requests += 1
        try:
            if pdu_type == codec.GET:
                cmdgen.GetCommandGenerator().send_varbinds(eng, addr, None, b"", vbs, callback)
            elif pdu_type == codec.GETNEXT:
                cmdgen.NextCommandGeneratorSingleRun().send_varbinds(
                    eng, addr, None, b"", vbs, callback)
            else:
                cmdgen.BulkCommandGeneratorSingleRun().send_varbinds(
                    eng, addr, None, b"", 0, max_repetitions, vbs, callback)
            failure = None
        except Exception as e:
            failure = self._map_indication(e)
        if failure is not None:          # raised outside the except block (no __context__)
            raise failure
        # pysnmp enforces timeout/retries itself; this guard only protects against a
        # callback that never comes.
        guard = t.timeout * (t.retries + 1) * 2 + 5
        try:
            done, _ = await asyncio.wait((fut,), timeout=guard)
        finally:
            if not fut.done():
                fut.cancel()
        if not done:
            st.timeouts += 1
            raise SnmpTimeout(f"no response from {t.label} (SNMPv{t.version}; pysnmp gave up)")
        ei, es, ex, varbinds = fut.result()
        if ei:
            raise self._map_indication(ei)
        try:
            out = [(codec.oid_to_raw(tuple(name)), _pysnmp_value(value))
                   for name, value in varbinds]
            es = int(es or 0)
            ex = int(ex or 0)
            failure = None
        except Exception as e:
            failure = SnmpProtocolError(f"unusable response from {t.label}: {type(e).__name__}")
        if failure is not None:
            raise failure
        st.responses += 1
        st.varbinds += len(out)
        return es, ex, out

    def _map_indication(self, ei) -> SnmpError:
        t = self.target
        kind = type(ei).__name__
        text = self._scrub(str(ei))
        if kind == "RequestTimedOut":
            self.stats.timeouts += 1
            return SnmpTimeout(_timeout_message(t))
        if kind in _AUTH_ERRIND:
            return SnmpAuthError(
                f"SNMPv3 security error from {t.label} (user {t.v3_user!r}, "
                f"{t.security_level}): {kind}: {text}")
        if kind == "StatusInformation":
            inner = ei.get("errorIndication") if hasattr(ei, "get") else None
            if inner is not None:
                return self._map_indication(inner)
        return SnmpProtocolError(f"SNMP failure talking to {t.label}: {kind}: {text}")

    async def close(self) -> None:
        # The pysnmp engine and its socket are shared (Engine); nothing per session.
        self._addr_name = None


def _pysnmp_value(v):
    from pysnmp.proto import rfc1902, rfc1905
    from pyasn1.type import univ

    if isinstance(v, rfc1905.EndOfMibView):
        return codec.END_OF_MIB_VIEW
    if isinstance(v, rfc1905.NoSuchInstance):
        return codec.NO_SUCH_INSTANCE
    if isinstance(v, rfc1905.NoSuchObject):
        return codec.NO_SUCH_OBJECT
    if isinstance(v, rfc1902.IpAddress):
        return ".".join(str(b) for b in v.asOctets())
    if isinstance(v, univ.Integer):
        return int(v)
    if isinstance(v, univ.OctetString):
        return v.asOctets()
    if isinstance(v, univ.ObjectIdentifier):
        return ".".join(str(x) for x in v)
    if isinstance(v, univ.Null):
        return None
    raise TypeError(type(v).__name__)


# ---------------------------------------------------------------------------------------
# Session

class _Column:
    __slots__ = ("key", "prefix", "plen", "last", "last_index", "rows")

    def __init__(self, key: str, prefix: bytes):
        self.key = key
        self.prefix = prefix
        self.plen = len(prefix)
        self.last = prefix
        self.last_index: tuple = ()
        self.rows: dict = {}


class SnmpSession:
    """An SNMP conversation with one agent. Safe to share between tasks of one loop."""

    def __init__(self, target: SnmpTarget, engine=None, *, backend: str | None = None,
                 max_walk_varbinds: int = DEFAULT_MAX_WALK_VARBINDS):
        _validate_target(target)
        backend = backend or DEFAULT_BACKEND
        if backend not in BACKENDS:
            raise SnmpConfigError(f"unknown SNMP backend {backend!r}")
        if backend == "auto":
            backend = "pysnmp" if target.version == "3" else "fast"
        if backend == "fast" and target.version == "3":
            raise SnmpConfigError("the fast backend speaks SNMPv1/v2c only")
        self.target = target
        self.stats = SnmpStats()
        self.max_walk_varbinds = max_walk_varbinds
        if backend == "fast":
            self._backend = _FastBackend(target, self.stats)
        else:
            self._backend = _PysnmpBackend(target, self.stats, engine)

    @property
    def backend(self) -> str:
        return self._backend.name

    def __repr__(self) -> str:
        return f"<SnmpSession {self.target.label} v{self.target.version} {self.backend}>"

    async def __aenter__(self) -> "SnmpSession":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._backend.close()

    async def _request(self, pdu_type: int, names: list, max_repetitions: int = 0):
        status, index, varbinds = await self._backend.request(pdu_type, names, max_repetitions)
        if status:
            self.stats.error_status += 1
        return status, index, varbinds

    # -- GET -----------------------------------------------------------------------------
    async def get(self, oids: Sequence[str]) -> dict[str, Value]:
        """GET the given instances; missing ones (noSuchObject/Instance) map to None."""
        if isinstance(oids, str):
            raise SnmpConfigError("get() wants a sequence of OIDs, not a string")
        raws = {oid: _raw(oid) for oid in oids}
        unique = list(dict.fromkeys(raws.values()))
        values: dict[bytes, Value] = {}
        for i in range(0, len(unique), MAX_GET_VARBINDS):
            await self._get_chunk(unique[i:i + MAX_GET_VARBINDS], values)
        return {oid: values[raw] for oid, raw in raws.items()}

    async def _get_chunk(self, names: list, values: dict) -> None:
        pending = list(names)
        label = self.target.label
        while pending:
            status, index, varbinds = await self._request(codec.GET, pending)
            if status:
                if status == 2 and 1 <= index <= len(pending):
                    # SNMPv1 style "no such name": that instance is absent; ask the rest.
                    values[pending.pop(index - 1)] = None
                    continue
                if status == 1 and len(pending) > 1:       # tooBig: split
                    half = len(pending) // 2
                    await self._get_chunk(pending[:half], values)
                    await self._get_chunk(pending[half:], values)
                    return
                culprit = (f" at {codec.raw_to_str(pending[index - 1])}"
                           if 1 <= index <= len(pending) else "")
                raise _status_error(label, "GET", status, culprit)
            if len(varbinds) != len(pending):
                raise SnmpProtocolError(
                    f"{label} answered a GET of {len(pending)} OIDs with {len(varbinds)}")
            for req, (name, value) in zip(pending, varbinds):
                if name != req:
                    raise SnmpProtocolError(
                        f"{label} answered GET {codec.raw_to_str(req)} with "
                        f"{codec.raw_to_str(name)}")
                values[req] = None if isinstance(value, VarBindException) else value
            return

    # -- WALK ----------------------------------------------------------------------------
    async def walk(self, columns: Sequence[str], *, expected_rows: int | None = None
                   ) -> dict[str, dict[tuple[int, ...], Value]]:
        """Walk table columns (OID subtrees): {column: {index tuple: value}}.

        v2c/v3 use GETBULK with up to MAX_WALK_COLUMNS columns per request, each column
        advanced independently and dropped when it leaves its subtree; v1 uses GETNEXT.
        Repetitions per request: target.max_repetitions, lowered so that columns x
        repetitions <= MAX_BULK_VARBINDS.  ``expected_rows`` (e.g. the port count known
        from the last poll) sizes the first GETBULK so that a table of that many rows
        usually takes one request without overshooting into the following columns.
        Raises SnmpProtocolError on non-increasing OIDs or after max_walk_varbinds.
        """
        if isinstance(columns, str):
            raise SnmpConfigError("walk() wants a sequence of column OIDs, not a string")
        cols: dict[str, _Column] = {}
        for c in columns:
            if c not in cols:
                cols[c] = _Column(c, _raw(c))
        active = list(cols.values())
        label = self.target.label
        bulk = self.target.version != "1"
        reps = max(1, min(self.target.max_repetitions, MAX_REPETITIONS_CAP))
        first_reps = reps if expected_rows is None else max(1, expected_rows + 1)
        width = MAX_WALK_COLUMNS
        budget = self.max_walk_varbinds
        total = 0
        subids_get = codec._SUBIDS.get
        while active:
            batch = active[:width]
            n = len(batch)
            names = [c.last for c in batch]
            if bulk:
                asked = max(1, min(reps, first_reps, MAX_BULK_VARBINDS // n))
                first_reps = reps
                status, index, varbinds = await self._request(codec.GETBULK, names, asked)
            else:
                status, index, varbinds = await self._request(codec.GETNEXT, names)
            if status:
                if status == 2 and 1 <= index <= n:
                    # v1 end of MIB view (or agent refusing the column): column is done
                    active.remove(batch[index - 1])
                    continue
                if status == 1:                         # tooBig: ask for less
                    if bulk and asked > 1:
                        reps = asked // 2
                        continue
                    if width > 1 and n > 1:
                        width = max(1, n // 2)
                        continue
                raise _status_error(label, "GETBULK" if bulk else "GETNEXT", status)
            nvb = len(varbinds)
            if nvb == 0 or nvb > (n * asked if bulk else n) or (not bulk and nvb != n):
                raise SnmpProtocolError(
                    f"{label} answered a walk request for {n} columns with {nvb} varbinds")
            done = []
            for j, col in enumerate(batch):
                prefix = col.prefix
                plen = col.plen
                last_index = col.last_index
                rows = col.rows
                before = len(rows)
                last = None
                finished = False
                for name, value in (varbinds[j::n] if n > 1 else varbinds):
                    if value.__class__ is VarBindException or not name.startswith(prefix):
                        finished = True
                        break
                    suffix = name[plen:]
                    index_ = tuple(suffix) if suffix.isascii() else (subids_get(suffix) or codec.raw_subids(suffix))
                    if index_ <= last_index:
                        raise SnmpProtocolError(
                            f"{label} returned non-increasing OID "
                            f"{codec.raw_to_str(name)} while walking {col.key}")
                    rows[index_] = value
                    last_index = index_
                    last = name
                if last is not None:
                    total += len(rows) - before
                    col.last = last
                    col.last_index = last_index
                if finished:
                    done.append(col)
            if total > budget:
                raise SnmpProtocolError(
                    f"walk of {label} exceeded {budget} varbinds; giving up")
            for col in done:
                active.remove(col)
        return {key: col.rows for key, col in cols.items()}
