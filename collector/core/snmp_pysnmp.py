"""The pysnmp backend: SNMPv3 (and any version when asked for) through pysnmp 7 asyncio (v3arch)
at the command-generator level (no MIB resolution).

pysnmp engines come from an ``Engine`` shared by all sessions of a process: one pysnmp
SnmpEngine per event loop and per credential set (pysnmp's USM table is keyed by user name, so
two users of the same name with different keys must not share an engine). Exceptions raised
from pysnmp failures are re-raised without chaining, so no traceback carries a secret.
"""
from __future__ import annotations

import asyncio
import hashlib
import socket

from collector.core import snmp_codec as codec
from collector.core.snmp_types import (
    SnmpAuthError,
    SnmpConfigError,
    SnmpError,
    SnmpProtocolError,
    SnmpStats,
    SnmpTarget,
    SnmpTimeout,
    resolve,
    route_check,
    timeout_message,
)

# AUTH_PROTOCOLS / PRIV_PROTOCOLS names (snmp_types) -> pysnmp's constant names; a test checks
# that both tables name the same protocols.
PYSNMP_AUTH = {"": "USM_AUTH_NONE", "MD5": "USM_AUTH_HMAC96_MD5", "SHA": "USM_AUTH_HMAC96_SHA",
               "SHA224": "USM_AUTH_HMAC128_SHA224", "SHA256": "USM_AUTH_HMAC192_SHA256",
               "SHA384": "USM_AUTH_HMAC256_SHA384", "SHA512": "USM_AUTH_HMAC384_SHA512"}
PYSNMP_PRIV = {"": "USM_PRIV_NONE", "DES": "USM_PRIV_CBC56_DES", "AES": "USM_PRIV_CFB128_AES",
               "AES192": "USM_PRIV_CFB192_AES", "AES256": "USM_PRIV_CFB256_AES"}

class Engine:
    """Per-process SNMP engine state shared by many sessions.

    The fast v1/v2c backend needs no shared state (one small UDP endpoint per session);
    the pysnmp backend needs SnmpEngine objects, which are bound to an event loop and,
    for SNMPv3, hold a USM user table keyed by user name.  ``Engine`` hands out one
    pysnmp SnmpEngine per (event loop, credential set) and keeps them for reuse.
    ``Engine.default()`` is the process-wide instance used when a session gets none.
    """

    _default: Engine | None = None

    def __init__(self) -> None:
        # loop -> {credential key: pysnmp SnmpEngine}; the engines reference their loop,
        # so entries of closed loops are dropped explicitly (see _purge_closed_loops)
        self._by_loop: dict[asyncio.AbstractEventLoop, dict] = {}

    @classmethod
    def default(cls) -> Engine:
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


# pysnmp error indications that mean "SNMPv3 security problem"
_AUTH_ERRIND = {
    "UnknownUserName", "WrongDigest", "DecryptionError", "EncryptionError",
    "UnsupportedSecurityLevel", "UnknownSecurityName", "NotInTimeWindow", "UnknownEngineID",
    "AuthenticationError", "AuthenticationFailure", "NoAuthentication", "NoEncryption",
    "UnsupportedAuthProtocol", "UnsupportedPrivProtocol", "UnsupportedSecurityModel",
    "EngineIDMismatch",
}


class PysnmpBackend:
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
            from pysnmp.hlapi.v3arch.asyncio import CommunityData, Udp6TransportTarget, UdpTransportTarget, UsmUserData
            from pysnmp.hlapi.v3arch.asyncio import SnmpEngine as _PysnmpEngine
            from pysnmp.hlapi.v3arch.asyncio import auth as _auth
            from pysnmp.hlapi.v3arch.asyncio.cmdgen import LCD

            t = self.target
            eng = self._engine_arg
            if eng is None:
                eng = Engine.default()
            if isinstance(eng, Engine):
                eng = eng.pysnmp_engine(t)
            elif not isinstance(eng, _PysnmpEngine):
                raise SnmpConfigError("engine must be collector.core.snmp_pysnmp.Engine or a pysnmp SnmpEngine")
            family, addr = await resolve(t)
            # pysnmp's shared socket would only time out: ask the kernel for a route first.
            route_check(t, family, addr)
            cls = Udp6TransportTarget if family == socket.AF_INET6 else UdpTransportTarget
            try:
                transport = await cls.create((addr[0], t.port), timeout=t.timeout,
                                             retries=t.retries)
                if t.version == "3":
                    auth = UsmUserData(
                        t.v3_user,
                        authKey=t.auth_key or None, privKey=t.priv_key or None,
                        authProtocol=getattr(_auth, PYSNMP_AUTH[t.auth_proto]),
                        privProtocol=getattr(_auth, PYSNMP_PRIV[t.priv_proto]))
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
        from pyasn1.type.univ import Null
        from pysnmp.entity.rfc3413 import cmdgen
        from pysnmp.proto.rfc1902 import ObjectName

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
            raise SnmpTimeout(f"{timeout_message(t)}; pysnmp gave up")
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
            return SnmpTimeout(timeout_message(t))
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
    from pyasn1.type import univ
    from pysnmp.proto import rfc1902, rfc1905

    if isinstance(v, rfc1905.EndOfMibView):
        return codec.END_OF_MIB_VIEW
    if isinstance(v, rfc1905.NoSuchInstance):
        return codec.NO_SUCH_INSTANCE
    if isinstance(v, rfc1905.NoSuchObject):
        return codec.NO_SUCH_OBJECT
    if isinstance(v, rfc1902.IpAddress):
        return ".".join(str(b) for b in v.asOctets())
    if isinstance(v, rfc1902.Counter64):
        return codec.Counter64Value(int(v))
    if isinstance(v, univ.Integer):
        return int(v)
    if isinstance(v, univ.OctetString):
        return v.asOctets()
    if isinstance(v, univ.ObjectIdentifier):
        return ".".join(str(x) for x in v)
    if isinstance(v, univ.Null):
        return None
    raise TypeError(type(v).__name__)
