"""Minimal, strict, bounded BER codec for SNMPv1/v2c command-generator messages.

What a manager needs: encode GET / GETNEXT / GETBULK requests, decode RESPONSE messages; and
what a test agent or a probe needs: encode any value and any message (encode_value,
encode_message), used by simnet/ and tests/.  No I/O here (collector/core/snmp.py owns the
transport).

Object identifiers are handled in their *encoded* form ("raw": the content octets of the
BER OBJECT IDENTIFIER, without tag and length).  Sub-identifier encodings are
self-delimiting, so ``a`` is an arc-wise prefix of ``b`` exactly when ``raw(a)`` is a
byte prefix of ``raw(b)`` (for OIDs of two or more arcs); the walker uses that to test
subtree membership with ``bytes.startswith`` and re-sends the raw name of the last
varbind without re-encoding.  Index suffixes made only of sub-identifiers < 128 (the
usual case) decode with ``tuple(raw_suffix)``.

Decoding is strict: definite lengths only, lengths must fit their enclosing element
exactly, a small set of tags, type-specific size limits, OIDs of at most 128
sub-identifiers each < 2**32 and minimally encoded.  Anything else raises CodecError.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = [
    "CodecError", "VarBindException", "NO_SUCH_OBJECT", "NO_SUCH_INSTANCE", "END_OF_MIB_VIEW",
    "GET", "GETNEXT", "RESPONSE", "GETBULK", "Response", "oid_to_raw", "raw_to_oid",
    "raw_to_str", "raw_subids", "encode_request", "decode_response", "decode_message", "ERROR_STATUS_NAMES",
    "MAX_OID_ARCS", "SUBID_CACHE", "encode_value", "encode_message", "encode_varbind", "encode_varbind_list",
    "encode_message_around", "TAGS", "Counter64Value",
]

GET = 0xA0
GETNEXT = 0xA1
RESPONSE = 0xA2
GETBULK = 0xA5

MAX_OID_ARCS = 128          # RFC 2578 section 3.5
MAX_SUBID = 0xFFFFFFFF
MAX_MESSAGE = 65535         # largest UDP payload we ever accept

ERROR_STATUS_NAMES = (
    "noError", "tooBig", "noSuchName", "badValue", "readOnly", "genErr", "noAccess",
    "wrongType", "wrongLength", "wrongEncoding", "wrongValue", "noCreation",
    "inconsistentValue", "resourceUnavailable", "commitFailed", "undoFailed",
    "authorizationError", "notWritable", "inconsistentName",
)


class CodecError(ValueError):
    """The octets are not an acceptable SNMP message."""


class Counter64Value(int):
    """A value the agent sent as Counter64 (tag 0x46). Every other integer type decodes to a
    plain int; the type is what lets Cellar read a Counter64 as a 64-bit counter whatever
    column it came in (a 32-bit column answered with Counter64 values, as some firewalls do)."""

    __slots__ = ()




class VarBindException:
    """SNMPv2 exception values (noSuchObject, noSuchInstance, endOfMibView)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self):  # keep singletons singletons
        return (_exc_by_name, (self.name,))


NO_SUCH_OBJECT = VarBindException("noSuchObject")
NO_SUCH_INSTANCE = VarBindException("noSuchInstance")
END_OF_MIB_VIEW = VarBindException("endOfMibView")
_EXC = {0x80: NO_SUCH_OBJECT, 0x81: NO_SUCH_INSTANCE, 0x82: END_OF_MIB_VIEW}


def _exc_by_name(name: str) -> VarBindException:
    for e in _EXC.values():
        if e.name == name:
            return e
    raise ValueError(name)


class Response(NamedTuple):
    version: int
    community: bytes
    pdu_type: int
    request_id: int
    error_status: int
    error_index: int
    varbinds: list  # list[tuple[bytes, value]] -- raw OID name, decoded value


# ---------------------------------------------------------------------------------------
# OIDs

def oid_to_raw(oid) -> bytes:
    """Encode a dotted string (leading dot allowed) or a tuple of ints to raw OID content."""
    if isinstance(oid, str):
        parts = (oid[1:] if oid.startswith(".") else oid).split(".")
        if not all(x.isascii() and x.isdigit() and len(x) <= 10 for x in parts):
            raise CodecError(f"not a dotted OID: {oid[:200]!r}")
        arcs = tuple(int(x) for x in parts)
    else:
        arcs = tuple(oid)
    if len(arcs) < 2 or len(arcs) > MAX_OID_ARCS:
        raise CodecError(f"OID must have 2..{MAX_OID_ARCS} arcs")
    first, second = arcs[0], arcs[1]
    if first not in (0, 1, 2) or second < 0 or (first < 2 and second >= 40):
        raise CodecError("invalid first arcs of OID")
    subids = [first * 40 + second, *arcs[2:]]
    out = bytearray()
    for i, v in enumerate(subids):
        if not isinstance(v, int) or v < 0 or (v > MAX_SUBID and i > 0) or v > MAX_SUBID + 80:
            raise CodecError("OID sub-identifier out of range")
        if v < 0x80:
            out.append(v)
        else:
            chunk = [v & 0x7F]
            v >>= 7
            while v:
                chunk.append(0x80 | (v & 0x7F))
                v >>= 7
            out.extend(reversed(chunk))
    return bytes(out)


# One sub-identifier: 1 octet < 0x80, or 2..4 octets, or 5 octets whose value < 2**32;
# never a leading 0x80 (non-minimal).  The first sub-identifier (40*X+Y) follows the same
# rule, which only rejects the absurd 2.(2**32-80 and above).
_OID_RE = re.compile(
    rb"(?:[\x00-\x7f]|[\x81-\xff][\x80-\xff]{0,2}[\x00-\x7f]|[\x81-\x8f][\x80-\xff]{3}[\x00-\x7f])+")
_HIGH_OCTETS = bytes(range(0x80, 0x100))


# Raw OIDs with octets >= 0x80 that passed _check_raw_oid: an agent answers the same names every
# poll (ifIndex >= 128 makes every name of a big ifTable take the slow path), so each is checked
# once per process. Only valid names enter; bounded.
_VALID_OIDS: set[bytes] = set()
_VALID_OIDS_MAX = 1 << 20


def _check_raw_oid(raw: bytes) -> None:
    """Validate raw OID content containing octets >= 0x80 (the slow path)."""
    if raw in _VALID_OIDS:
        return
    if _OID_RE.fullmatch(raw) is None:
        raise CodecError("bad OID encoding")
    if len(raw.translate(None, _HIGH_OCTETS)) > MAX_OID_ARCS:
        raise CodecError("OID too long")
    if len(_VALID_OIDS) < _VALID_OIDS_MAX:
        _VALID_OIDS.add(raw)


# raw index suffix -> its sub-identifiers, for suffixes with octets >= 0x80 (bounded like
# _VALID_OIDS). The walker reads it directly: a dict lookup per varbind instead of a call.
SUBID_CACHE: dict[bytes, tuple[int, ...]] = {}


def raw_subids(raw: bytes) -> tuple[int, ...]:
    """Decode already validated raw content into its sub-identifiers (no first-arc split)."""
    if raw.isascii():
        return tuple(raw)
    got = SUBID_CACHE.get(raw)
    if got is not None:
        return got
    out: list[int] = []
    append = out.append
    v = 0
    for b in raw:
        if b < 0x80:
            append(v | b)
            v = 0
        else:
            v = (v | (b & 0x7F)) << 7
    got = tuple(out)
    if len(SUBID_CACHE) < _VALID_OIDS_MAX:     # index suffixes of walked tables recur every poll
        SUBID_CACHE[raw] = got
    return got


def raw_to_oid(raw: bytes) -> tuple[int, ...]:
    subids = raw_subids(raw)
    f = subids[0]
    if f < 40:
        head = (0, f)
    elif f < 80:
        head = (1, f - 40)
    else:
        head = (2, f - 80)
    return head + subids[1:]


def raw_to_str(raw: bytes) -> str:
    return ".".join(map(str, raw_to_oid(raw)))


# ---------------------------------------------------------------------------------------
# Encoding

def _len(n: int) -> bytes:
    if n < 0x80:
        return bytes((n,))
    if n < 0x100:
        return bytes((0x81, n))
    if n < 0x10000:
        return bytes((0x82, n >> 8, n & 0xFF))
    raise CodecError("element too long")


def _tlv(tag: int, body: bytes) -> bytes:
    return bytes((tag,)) + _len(len(body)) + body


def _int(v: int) -> bytes:
    body = v.to_bytes((v.bit_length() + 8) // 8, "big", signed=True)
    return bytes((0x02, len(body))) + body


def encode_request(version: int, community: bytes, pdu_type: int, request_id: int,
                   names: list, non_repeaters: int = 0, max_repetitions: int = 0) -> bytes:
    """Encode a request message; ``names`` are raw OIDs, values are NULL."""
    vbs = b"".join(_tlv(0x30, b"\x06" + _len(len(n)) + n + b"\x05\x00") for n in names)
    if pdu_type == GETBULK:
        a, b = non_repeaters, max_repetitions
    else:
        a = b = 0
    pdu = _int(request_id) + _int(a) + _int(b) + _tlv(0x30, vbs)
    msg = _int(version) + _tlv(0x04, community) + _tlv(pdu_type, pdu)
    return _tlv(0x30, msg)


# SNMP value tags (RFC 1157, RFC 3416).
TAGS = {"Integer32": 0x02, "OctetString": 0x04, "Null": 0x05, "ObjectIdentifier": 0x06,
        "IpAddress": 0x40, "Counter32": 0x41, "Gauge32": 0x42, "TimeTicks": 0x43, "Opaque": 0x44,
        "NsapAddress": 0x45, "Counter64": 0x46, "UInteger32": 0x47, "noSuchObject": 0x80,
        "noSuchInstance": 0x81, "endOfMibView": 0x82}


def encode_value(tag: int, value: object) -> bytes:
    """BER TLV of an SNMP value: an int for the integer types, bytes for strings, a dotted
    string or tuple for an OID, "a.b.c.d" for an IpAddress, None for NULL and exceptions.
    Out-of-range values are encoded as given (a test agent may need to send them)."""
    if tag == 0x02:
        body = int(value).to_bytes((int(value).bit_length() + 8) // 8, "big", signed=True)  # type: ignore[call-overload]
    elif tag in (0x41, 0x42, 0x43, 0x46, 0x47):
        v = int(value)    # type: ignore[call-overload]
        body = v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big")
    elif tag in (0x04, 0x44, 0x45):
        body = bytes(value)     # type: ignore[call-overload]
    elif tag == 0x06:
        body = oid_to_raw(value)
    elif tag == 0x40:
        body = bytes(int(x) for x in str(value).split("."))
    elif tag in (0x05, 0x80, 0x81, 0x82):
        body = b""
    else:
        raise CodecError(f"cannot encode tag 0x{tag:02x}")
    return _tlv(tag, body)


def encode_message(version: int, community: bytes, pdu_type: int, request_id: int, error_status: int,
                   error_index: int, varbinds: list[tuple[bytes, bytes]]) -> bytes:
    """Any v1/v2c message; varbinds are (raw OID, encoded value TLV) pairs."""
    vbl = encode_varbind_list([encode_varbind(name, val) for name, val in varbinds])
    return encode_message_around(version, community, pdu_type, request_id, error_status, error_index, vbl)


def encode_varbind(name: bytes, value: bytes) -> bytes:
    """One VarBind: a raw OID and an encoded value TLV."""
    return _tlv(0x30, _tlv(0x06, name) + value)


def encode_varbind_list(varbinds: list[bytes]) -> bytes:
    """The VarBindList TLV of encoded VarBinds (encode_varbind)."""
    return _tlv(0x30, b"".join(varbinds))


def encode_message_around(version: int, community: bytes, pdu_type: int, request_id: int, error_status: int,
                          error_index: int, varbind_list: bytes) -> bytes:
    """A message around an already encoded VarBindList: an agent that answers many requests with
    the same varbinds (simnet/swarm.py) encodes them once."""
    pdu = _int(request_id) + _int(error_status) + _int(error_index) + varbind_list
    return _tlv(0x30, _int(version) + _tlv(0x04, community) + _tlv(pdu_type, pdu))


# ---------------------------------------------------------------------------------------
# Decoding

def _hdr(data: bytes, pos: int, limit: int) -> tuple[int, int]:
    """Read a length at ``pos``; return (content_start, content_end) within ``limit``."""
    if pos >= limit:
        raise CodecError("truncated length")
    n = data[pos]
    pos += 1
    if n & 0x80:
        k = n & 0x7F
        if k == 0:
            raise CodecError("indefinite length")
        if k > 3 or pos + k > limit:
            raise CodecError("bad long-form length")
        n = int.from_bytes(data[pos:pos + k], "big")
        pos += k
    end = pos + n
    if end > limit:
        raise CodecError("length beyond enclosing element")
    return pos, end


def _header_int(data: bytes, pos: int, limit: int) -> tuple[int, int]:
    if pos >= limit or data[pos] != 0x02:
        raise CodecError("INTEGER expected")
    s, e = _hdr(data, pos + 1, limit)
    if e == s or e - s > 5:
        raise CodecError("bad INTEGER length")
    return int.from_bytes(data[s:e], "big", signed=True), e


def decode_response(data: bytes) -> Response:
    """Decode an SNMPv1/v2c message carrying a PDU; strict, bounded; raises CodecError."""
    try:
        return _decode(data)
    except CodecError:
        raise
    except (IndexError, ValueError, TypeError, OverflowError) as e:
        raise CodecError(f"malformed message ({type(e).__name__})") from None


decode_message = decode_response   # any PDU type (used by test agents to read requests)


def _decode(data: bytes) -> Response:
    n = len(data)
    if n < 2 or n > MAX_MESSAGE:
        raise CodecError("bad message size")
    if data[0] != 0x30:
        raise CodecError("not a SEQUENCE")
    pos, end = _hdr(data, 1, n)
    if end != n:
        raise CodecError("trailing octets after message")
    version, pos = _header_int(data, pos, end)
    if data[pos] != 0x04:
        raise CodecError("community expected")
    s, pos = _hdr(data, pos + 1, end)
    community = data[s:pos]
    pdu_type = data[pos]
    if pdu_type not in (0xA0, 0xA1, 0xA2, 0xA3, 0xA5, 0xA6, 0xA7, 0xA8):
        raise CodecError("unknown PDU type")
    pos, pend = _hdr(data, pos + 1, end)
    if pend != end:
        raise CodecError("trailing octets after PDU")
    request_id, pos = _header_int(data, pos, pend)
    error_status, pos = _header_int(data, pos, pend)
    error_index, pos = _header_int(data, pos, pend)
    if pos >= pend or data[pos] != 0x30:
        raise CodecError("varbind list expected")
    pos, vend = _hdr(data, pos + 1, pend)
    if vend != pend:
        raise CodecError("trailing octets after varbind list")
    varbinds = _varbinds(data, pos, vend)
    if pdu_type == RESPONSE and (error_status < 0 or error_index < 0
                                 or error_index > len(varbinds)):
        raise CodecError("bad error-status/error-index")
    return Response(version, community, pdu_type, request_id, error_status, error_index,
                    varbinds)


def _varbinds(data: bytes, pos: int, end: int) -> list:
    out: list[tuple[bytes, int | bytes | str | VarBindException | None]] = []
    append = out.append
    exc = _EXC
    from_bytes = int.from_bytes
    valid = _VALID_OIDS
    value: int | bytes | str | VarBindException | None
    while pos < end:
        if data[pos] != 0x30:
            raise CodecError("varbind SEQUENCE expected")
        ln = data[pos + 1]
        if ln < 0x80:
            pos += 2
            vbend = pos + ln
        else:
            pos, vbend = _hdr(data, pos + 1, end)
        if vbend > end:
            raise CodecError("varbind beyond list")
        # name
        if data[pos] != 0x06:
            raise CodecError("varbind name must be an OID")
        ln = data[pos + 1]
        if ln < 0x80:
            pos += 2
            oend = pos + ln
        else:
            pos, oend = _hdr(data, pos + 1, vbend)
            ln = oend - pos
        if ln == 0 or oend + 2 > vbend:
            raise CodecError("bad varbind name")
        name = data[pos:oend]
        if name.isascii():
            if ln >= MAX_OID_ARCS:
                raise CodecError("OID too long")
        elif name not in valid:
            _check_raw_oid(name)
        pos = oend
        # value
        tag = data[pos]
        ln = data[pos + 1]
        if ln < 0x80:
            pos += 2
            vend = pos + ln
        else:
            pos, vend = _hdr(data, pos + 1, vbend)
            ln = vend - pos
        if vend != vbend:
            raise CodecError("varbind length mismatch")
        if tag == 0x41 or tag == 0x42 or tag == 0x43 or tag == 0x47:
            # Counter32, Gauge32/Unsigned32, TimeTicks, UInteger32: 0..2**32-1.
            # Accepts the common agent bug of 4 octets with the top bit set as unsigned,
            # and (like pyasn1) non-minimal encodings; the range is what is enforced.
            if ln == 0 or ln > 8:
                raise CodecError("bad unsigned32 encoding")
            value = from_bytes(data[pos:vend], "big")
            if value > 0xFFFFFFFF:
                raise CodecError("unsigned32 out of range")
        elif tag == 0x04:
            value = data[pos:vend]
        elif tag == 0x02:
            if ln == 0 or ln > 8:
                raise CodecError("bad Integer32 encoding")
            value = from_bytes(data[pos:vend], "big", signed=True)
            if not -0x80000000 <= value <= 0x7FFFFFFF:
                raise CodecError("Integer32 out of range")
        elif tag == 0x46:
            if ln == 0 or ln > 12:
                raise CodecError("bad Counter64 encoding")
            value = Counter64Value(from_bytes(data[pos:vend], "big"))   # 25 % cheaper than Counter64Value.from_bytes
            if value > 0xFFFFFFFFFFFFFFFF:
                raise CodecError("Counter64 out of range")
        elif tag in exc:
            if ln:
                raise CodecError("exception value with content")
            value = exc[tag]
        elif tag == 0x06:
            raw = data[pos:vend]
            if not raw:
                raise CodecError("empty OID value")
            if raw.isascii():
                if ln >= MAX_OID_ARCS:
                    raise CodecError("OID too long")
            else:
                _check_raw_oid(raw)
            value = raw_to_str(raw)
        elif tag == 0x40:
            if ln != 4:
                raise CodecError("bad IpAddress length")
            value = f"{data[pos]}.{data[pos + 1]}.{data[pos + 2]}.{data[pos + 3]}"
        elif tag == 0x05:
            if ln:
                raise CodecError("NULL with content")
            value = None
        elif tag == 0x44 or tag == 0x45:      # Opaque, NsapAddress: uninterpreted octets
            value = data[pos:vend]
        else:
            raise CodecError("unsupported value type")
        append((name, value))
        pos = vbend
    return out
