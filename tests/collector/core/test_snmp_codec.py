"""collector/core/snmp_codec.py: strict decoding of hostile encodings, OIDs both ways, and the
encoders simnet and the test agents use."""
from __future__ import annotations

import random

import pytest

from collector.core import snmp_codec as codec
from collector.core.snmp_codec import encode_message, encode_value
from tests.support.agents import FAKE_MIB, mutate

SYS_UPTIME = "1.3.6.1.2.1.1.3.0"


def test_codec_rejects_hostile_encodings():
    good = encode_message(1, b"public", 0xA2, 7, 0, 0,
                          [(codec.oid_to_raw(SYS_UPTIME), b"\x43\x01\x05")])
    assert codec.decode_response(good).varbinds == [(codec.oid_to_raw(SYS_UPTIME), 5)]
    vb = codec.oid_to_raw(SYS_UPTIME)

    def msg(value: bytes, name: bytes = vb) -> bytes:
        return encode_message(1, b"public", 0xA2, 7, 0, 0, [(name, value)])

    bad = [
        good + b"\x00",                                   # trailing octets
        good[:-1],                                        # truncated
        b"\x30\x80" + good[2:],                           # indefinite length
        b"\x30\x84\xff\xff\xff\xff" + good[2:],           # absurd length
        msg(b"\x46\x0a" + b"\x01" * 10),                  # Counter64 > 2**64-1
        msg(b"\x46\x09\x01" + b"\x00" * 8),               # Counter64 = 2**64
        msg(b"\x41\x05\x01\x00\x00\x00\x00"),             # Counter32 = 2**32
        msg(b"\x02\x05\x00\x80\x00\x00\x00"),             # Integer32 too long
        msg(b"\x40\x05\x01\x02\x03\x04\x05"),             # IpAddress of 5 octets
        msg(b"\x82\x01\x00"),                             # endOfMibView with content
        msg(b"\x24\x03\x04\x01\x41"),                     # constructed OCTET STRING
        msg(b"\x1f\x81\x01\x00"),                         # high-tag-number form
        msg(b"\x05\x00", name=b"\x2b\x80\x01"),           # non-minimal sub-identifier
        msg(b"\x05\x00", name=b"\x2b\x06\x81"),           # unterminated sub-identifier
        msg(b"\x05\x00", name=b"\x2b\x90\x80\x80\x80\x00"),  # sub-identifier >= 2**32
        msg(b"\x05\x00", name=b"\x2b" + b"\x01" * 128),   # 130 arcs
        msg(b"\x06\x00"),                                 # empty OID value
    ]
    for data in bad:
        with pytest.raises(codec.CodecError):
            codec.decode_response(data)
    # accepted leniently: a Counter32 sent as 4 octets with the top bit set (agent bug)
    assert codec.decode_response(msg(b"\x41\x04\xff\xff\xff\xff")).varbinds[0][1] == 2**32 - 1
    assert codec.decode_response(msg(b"\x46\x09\x00" + b"\xff" * 8)).varbinds[0][1] == 2**64 - 1


def test_codec_fuzz_decode_only_raises_codec_error():
    rng = random.Random(99)
    seeds = [encode_message(v, b"public", 0xA2, rng.randint(0, 2**31 - 1), 0, 0,
                            [(codec.oid_to_raw(o), encode_value(t, val))
                             for o, (t, val) in rng.sample(sorted(FAKE_MIB.items()), 8)])
             for v in (0, 1) for _ in range(10)]
    for data in seeds:
        codec.decode_response(data)
    accepted = 0
    for _ in range(20000):
        data = mutate(rng, rng.choice(seeds))
        try:
            r = codec.decode_response(data)
        except codec.CodecError:
            continue
        accepted += 1
        for name, value in r.varbinds:
            assert isinstance(name, bytes) and len(codec.raw_to_oid(name)) <= 128
            assert value is None or isinstance(value, (int, bytes, str, codec.VarBindException))
            if isinstance(value, int):
                assert -2**31 <= value < 2**64
    assert accepted > 100


def test_codec_oid_roundtrip():
    rng = random.Random(1)
    for _ in range(2000):
        first = rng.randint(0, 2)
        arcs = (first, rng.randint(0, 39 if first < 2 else 1000)) + tuple(
            rng.choice([rng.randint(0, 127), rng.randint(0, 2**32 - 1), rng.randint(128, 20000)])
            for _ in range(rng.randint(0, 20)))
        raw = codec.oid_to_raw(arcs)
        # the decoder accepts what the encoder makes (its strict check of every name)
        message = codec.encode_message(1, b"public", codec.RESPONSE, 1, 0, 0, [(raw, b"\x05\x00")])
        assert codec.decode_response(message).varbinds == [(raw, None)]
        assert codec.raw_to_oid(raw) == arcs
        assert codec.oid_to_raw(".".join(map(str, arcs))) == raw
