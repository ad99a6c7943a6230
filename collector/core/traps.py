"""SNMP notifications as received: decode a datagram, check its credentials. Pure, no Django.

v1/v2c messages are decoded by the project's own strict BER codec (snmp_codec: the same one the
poller trusts with every agent's answers). v3 messages (USM, RFC 3414) are framed here with a
small strict TLV reader, authenticated with hashlib's HMAC (MD5/SHA-1: 12-octet MACs; SHA-2:
RFC 7860 lengths) and decrypted with `cryptography` (DES-CBC, AES-128-CFB, RFC 3826); their
scoped PDU is then decoded by the same codec. Why not pysnmp's notification receiver: it drops a
message with an unknown user or a wrong key inside the engine (a counter goes up), and Cellar must
store every refused trap with its reason; pysnmp also needs each agent's engine ID configured
beforehand, while the receiver here localizes the switch's keys with the engine ID the message
carries (as snmptrapd does for traps).

decode() -> Message (credentials not yet checked) or TrapError(reason); for v3,
usm_open(message, user) checks the MAC and decrypts, TrapError naming what failed.
"""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from functools import lru_cache

from collector.core import snmp_codec as codec
from collector.core.snmp_codec import CodecError, raw_to_oid

TRAP_V2 = 0xA7
INFORM = 0xA6
TRAP_V1 = 0xA4
SNMP_TRAP_OID = (1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0)
SYS_UPTIME = (1, 3, 6, 1, 2, 1, 1, 3, 0)
SNMP_TRAP_ADDRESS = (1, 3, 6, 1, 6, 3, 18, 1, 3, 0)
SNMP_TRAP_ENTERPRISE = (1, 3, 6, 1, 6, 3, 1, 1, 4, 3, 0)
SNMP_TRAPS = (1, 3, 6, 1, 6, 3, 1, 1, 5)         # coldStart.. egpNeighborLoss: SNMP_TRAPS + (generic + 1,)
ENTERPRISE_SPECIFIC = 6
# (hash, MAC length) per USM authentication protocol (collector/core/snmp_types.AUTH_PROTOCOLS).
AUTH = {"MD5": (hashlib.md5, 12), "SHA": (hashlib.sha1, 12), "SHA224": (hashlib.sha224, 16),
        "SHA256": (hashlib.sha256, 24), "SHA384": (hashlib.sha384, 32), "SHA512": (hashlib.sha512, 48)}
PRIV_SUPPORTED = ("DES", "AES")


class TrapError(ValueError):
    """A datagram that is not a usable notification; str() is the reason stored with it."""


@dataclass
class Message:
    version: int                     # 0 = v1, 1 = v2c, 3 = v3
    pdu_type: int = 0
    request_id: int = 0
    community: bytes = b""           # v1/v2c (never logged or stored)
    user: str = ""                   # v3
    engine_id: bytes = b""
    boots: int = 0
    time: int = 0
    flags: int = 0                   # v3 msgFlags: 1 auth, 2 priv, 4 reportable
    varbinds: list[tuple[tuple[int, ...], object]] = field(default_factory=list)
    # v3 internals for usm_open: the whole message, where the MAC sits, the salt, the scoped PDU
    whole: bytes = b""
    mac_at: tuple[int, int] = (0, 0)
    salt: bytes = b""
    scoped: bytes = b""

    @property
    def trap_oid(self) -> tuple[int, ...] | None:
        for oid, value in self.varbinds:
            if oid == SNMP_TRAP_OID and isinstance(value, str):
                return tuple(int(x) for x in value.split("."))
        return None

    @property
    def uptime_cs(self) -> int | None:
        for oid, value in self.varbinds:
            if oid == SYS_UPTIME and isinstance(value, int):
                return value
        return None

    @property
    def security_level(self) -> str:
        return {0: "noAuthNoPriv", 1: "authNoPriv", 3: "authPriv"}.get(self.flags & 3, "invalid")


def _tlv(data: bytes, pos: int, end: int, tag: int | None = None) -> tuple[int, int, int]:
    """(tag, content start, content end) of the element at pos; strict definite lengths."""
    if pos + 2 > end:
        raise TrapError("malformed message: truncated")
    t, ln = data[pos], data[pos + 1]
    pos += 2
    if ln & 0x80:
        n = ln & 0x7F
        if not 1 <= n <= 3 or pos + n > end:
            raise TrapError("malformed message: bad length")
        ln = int.from_bytes(data[pos:pos + n], "big")
        pos += n
    if pos + ln > end:
        raise TrapError("malformed message: element beyond its container")
    if tag is not None and t != tag:
        raise TrapError(f"malformed message: tag 0x{t:02x} where 0x{tag:02x} was expected")
    return t, pos, pos + ln


def _int(data: bytes, pos: int, end: int) -> tuple[int, int]:
    _, s, e = _tlv(data, pos, end, 0x02)
    if not 1 <= e - s <= 5:
        raise TrapError("malformed message: bad INTEGER")
    return int.from_bytes(data[s:e], "big", signed=True), e


def _octets(data: bytes, pos: int, end: int) -> tuple[bytes, int, int]:
    _, s, e = _tlv(data, pos, end, 0x04)
    return data[s:e], s, e


def _pdu(version: int, pdu: bytes) -> codec.Response:
    """Decode a PDU with the codec by framing it as a v2c message with an empty community."""
    body = bytes([0x02, 0x01, version, 0x04, 0x00]) + pdu
    try:
        return codec.decode_message(bytes([0x30]) + _length(len(body)) + body)
    except CodecError as exc:
        raise TrapError(f"malformed PDU: {exc}") from None


def _length(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def _varbinds(resp: codec.Response) -> list[tuple[tuple[int, ...], object]]:
    return [(raw_to_oid(name), value) for name, value in resp.varbinds]


def decode(data: bytes) -> Message:
    """The message's version, credentials and (v1/v2c, v3 without privacy) varbinds."""
    if not data or len(data) > codec.MAX_MESSAGE:
        raise TrapError("empty or oversized datagram")
    try:
        _, s, e = _tlv(data, 0, len(data), 0x30)
        if e != len(data):
            raise TrapError("malformed message: trailing octets")
        version, pos = _int(data, s, e)
    except IndexError:
        raise TrapError("malformed message") from None
    if version == 0 and _pdu_tag(data, pos, e) == TRAP_V1:
        try:
            return _decode_v1_trap(data, pos, e)
        except IndexError:
            raise TrapError("malformed v1 Trap-PDU") from None
    if version in (0, 1):
        try:
            resp = codec.decode_message(data)
        except CodecError as exc:
            raise TrapError(f"malformed message: {exc}") from None
        if resp.pdu_type not in (TRAP_V2, INFORM):
            raise TrapError(f"not a notification (PDU type 0x{resp.pdu_type:02x})")
        return Message(version, resp.pdu_type, resp.request_id, community=bytes(resp.community),
                       varbinds=_varbinds(resp))
    if version != 3:
        raise TrapError(f"unknown SNMP version {version}")
    try:
        return _decode_v3(data, pos, e)
    except IndexError:
        raise TrapError("malformed v3 message") from None


def _pdu_tag(data: bytes, pos: int, end: int) -> int | None:
    """The tag of the PDU after the community (v1/v2c), or None when the community is malformed."""
    try:
        _, _, p = _octets(data, pos, end)
    except TrapError:
        return None
    return data[p] if p < end else None


def _decode_v1_trap(data: bytes, pos: int, end: int) -> Message:
    """An SNMPv1 Trap-PDU, translated to the SNMPv2 notification it stands for (RFC 3584, 3.1):
    sysUpTime.0 = time-stamp, snmpTrapOID.0 = snmpTraps.(generic-trap + 1), or for an enterprise
    specific trap enterprise.0.specific-trap, then the trap's variable bindings, then
    snmpTrapAddress.0 = agent-addr and snmpTrapEnterprise.0 = enterprise. FORE ASX-era agents send v1."""
    community, _, p = _octets(data, pos, end)
    _, ps, pe = _tlv(data, p, end, TRAP_V1)
    if pe != end:
        raise TrapError("malformed message: trailing octets after the Trap-PDU")
    _, es, ee = _tlv(data, ps, pe, 0x06)
    try:
        enterprise = raw_to_oid(data[es:ee])
    except (CodecError, ValueError):
        raise TrapError("malformed v1 Trap-PDU: bad enterprise OID") from None
    _, a_s, a_e = _tlv(data, ee, pe, 0x40)
    if a_e - a_s != 4:
        raise TrapError("malformed v1 Trap-PDU: agent-addr is not 4 octets")
    agent = ".".join(str(b) for b in data[a_s:a_e])
    generic, p = _int(data, a_e, pe)
    specific, p = _int(data, p, pe)
    _, ts, te = _tlv(data, p, pe, 0x43)
    if not 1 <= te - ts <= 5:
        raise TrapError("malformed v1 Trap-PDU: bad time-stamp")
    stamp = int.from_bytes(data[ts:te], "big")
    _, _, ve = _tlv(data, te, pe, 0x30)
    if ve != pe:
        raise TrapError("malformed v1 Trap-PDU: trailing octets after the variable bindings")
    if not 0 <= generic <= ENTERPRISE_SPECIFIC:
        raise TrapError(f"malformed v1 Trap-PDU: generic-trap {generic} is not 0..6")
    # The variable bindings, decoded by the codec inside a v2 trap frame (request-id 0, no errors).
    body = bytes([0x02, 0x01, 0x00] * 3) + data[te:ve]
    resp = _pdu(1, bytes([TRAP_V2]) + _length(len(body)) + body)
    trap_oid = SNMP_TRAPS + (generic + 1,) if generic < ENTERPRISE_SPECIFIC else enterprise + (0, specific)
    varbinds: list[tuple[tuple[int, ...], object]] = [(SYS_UPTIME, stamp), (SNMP_TRAP_OID, _dotted(trap_oid))]
    varbinds += _varbinds(resp)
    present = {oid for oid, _ in varbinds}
    if SNMP_TRAP_ADDRESS not in present:
        varbinds.append((SNMP_TRAP_ADDRESS, agent))
    if SNMP_TRAP_ENTERPRISE not in present:
        varbinds.append((SNMP_TRAP_ENTERPRISE, _dotted(enterprise)))
    return Message(0, TRAP_V1, 0, community=bytes(community), varbinds=varbinds)


def _dotted(oid: tuple[int, ...]) -> str:
    return ".".join(map(str, oid))


def _decode_v3(data: bytes, pos: int, end: int) -> Message:
    _, gs, ge = _tlv(data, pos, end, 0x30)
    _msg_id, p = _int(data, gs, ge)
    _max_size, p = _int(data, p, ge)
    flags, _, p = _octets(data, p, ge)
    model, _ = _int(data, p, ge)
    if model != 3:
        raise TrapError(f"v3 security model {model}: only USM (3) is accepted")
    if len(flags) != 1:
        raise TrapError("malformed v3 message: msgFlags")
    sec, ss, se = _octets(data, ge, end)
    _, us, ue = _tlv(data, ss, se, 0x30)
    engine, _, p = _octets(data, us, ue)
    boots, p = _int(data, p, ue)
    etime, p = _int(data, p, ue)
    user, _, p = _octets(data, p, ue)
    _, ms, me = _octets(data, p, ue)
    salt, _, _ = _octets(data, me, ue)
    m = Message(3, user=user.decode("utf-8", "replace"), engine_id=engine, boots=boots, time=etime,
                flags=flags[0], whole=data, mac_at=(ms, me), salt=salt)
    if m.flags & 2 and not m.flags & 1:
        raise TrapError("v3 message with privacy but no authentication")
    if not m.flags & 2:
        _, _, pe = _tlv(data, se, end, 0x30)
        m.scoped = data[se:pe]
        _open_scoped(m, m.scoped)
    else:
        m.scoped, _, _ = _octets(data, se, end)
    return m


def _open_scoped(m: Message, scoped: bytes) -> None:
    """Fill pdu_type, request_id and varbinds from a plaintext ScopedPDU."""
    _, s, e = _tlv(scoped, 0, len(scoped), 0x30)
    _ctx_engine, _, p = _octets(scoped, s, e)
    _ctx_name, _, p = _octets(scoped, p, e)
    _, _, pe = _tlv(scoped, p, e)
    resp = _pdu(1, scoped[p:pe])
    m.pdu_type, m.request_id, m.varbinds = resp.pdu_type, resp.request_id, _varbinds(resp)
    if m.pdu_type not in (TRAP_V2, INFORM):
        raise TrapError(f"not a notification (PDU type 0x{m.pdu_type:02x})")


@lru_cache(maxsize=256)
def localized_key(proto: str, password: str, engine_id: bytes) -> bytes:
    """RFC 3414 A.2 password to key (1 MB of the repeated password hashed), localized to the
    engine: H(Ku + engineID + Ku). Cached: a trap flood costs one expansion per switch."""
    h, _ = AUTH[proto]
    pw = password.encode()
    if not pw:
        raise TrapError("empty USM password")
    reps = (1048576 // len(pw)) + 1
    ku = h((pw * reps)[:1048576]).digest()
    return h(ku + engine_id + ku).digest()


@dataclass(frozen=True)
class UsmUser:
    name: str
    auth_proto: str = ""
    auth_key: str = ""
    priv_proto: str = ""
    priv_key: str = ""


def usm_open(m: Message, user: UsmUser) -> None:
    """Check the message against the user's credentials (level, MAC) and decrypt it; fills the
    varbinds. TrapError naming what does not match (never the keys)."""
    if m.user != user.name:
        raise TrapError(f"unknown USM user {m.user!r}")
    want = 3 if user.priv_proto else (1 if user.auth_proto else 0)
    if m.flags & 3 != want:
        raise TrapError(f"security level {m.security_level} does not match the switch's "
                        f"({ {0: 'noAuthNoPriv', 1: 'authNoPriv', 3: 'authPriv'}[want] })")
    if user.auth_proto:
        if user.auth_proto not in AUTH:
            raise TrapError(f"authentication protocol {user.auth_proto} not supported")
        h, n = AUTH[user.auth_proto]
        a, b = m.mac_at
        mac = m.whole[a:b]
        if len(mac) != n:
            raise TrapError(f"wrong authentication parameters length ({len(mac)}, {user.auth_proto} uses {n})")
        key = localized_key(user.auth_proto, user.auth_key, m.engine_id)
        zeroed = m.whole[:a] + bytes(n) + m.whole[b:]
        if not hmac.compare_digest(hmac.new(key, zeroed, h).digest()[:n], mac):
            raise TrapError("wrong authentication key (the MAC does not match)")
    if user.priv_proto:
        m.scoped = _decrypt(m, user)
        try:
            _open_scoped(m, m.scoped)
        except TrapError as exc:
            raise TrapError(f"wrong privacy key (decrypted data is not a scoped PDU: {exc})") from None
    elif not m.varbinds:
        _open_scoped(m, m.scoped)


def _decrypt(m: Message, user: UsmUser) -> bytes:
    from cryptography.hazmat.primitives.ciphers import Cipher, modes

    if user.priv_proto not in PRIV_SUPPORTED:
        raise TrapError(f"privacy protocol {user.priv_proto} not supported by the trap receiver "
                        f"({', '.join(PRIV_SUPPORTED)} are)")
    if len(m.salt) != 8:
        raise TrapError("wrong privacy parameters length")
    key = localized_key(user.auth_proto, user.priv_key, m.engine_id)
    if user.priv_proto == "DES":
        from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES

        if len(m.scoped) % 8:
            raise TrapError("encrypted PDU is not a whole number of DES blocks")
        iv = bytes(x ^ y for x, y in zip(key[8:16], m.salt))
        dec = Cipher(TripleDES(key[:8] * 3), modes.CBC(iv)).decryptor()
    else:
        from cryptography.hazmat.decrepit.ciphers.modes import CFB
        from cryptography.hazmat.primitives.ciphers.algorithms import AES

        iv = m.boots.to_bytes(4, "big") + m.time.to_bytes(4, "big") + m.salt
        dec = Cipher(AES(key[:16]), CFB(iv)).decryptor()
    return dec.update(m.scoped) + dec.finalize()
