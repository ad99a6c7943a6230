"""The parts every Cellar block is made of: length-prefixed sections, integer columns (pcodec),
bit masks (zstd), and a reader that refuses truncated or overlong blocks. Pure (numpy, pcodec,
zstandard; no Django). Used by the settled raw samples (collector/core/settled.py) and the settled
rollup tiers (collector/core/tierblocks.py), so both formats fail the same way on bad bytes."""
from __future__ import annotations

import struct

import numpy as np
import pcodec
import zstandard

ZSTD_LEVEL = 9
MASK_NONE, MASK_ALL, MASK_BITS = 0, 1, 2
INTS_EMPTY, INTS_ZERO, INTS_PCO = 0, 1, 2


class CodecError(ValueError):
    """A block that cannot be decoded (truncated, another format, rows that do not agree)."""


# --- the pieces ----------------------------------------------------------------------------

_U32 = struct.Struct("<I")


class Reader:
    def __init__(self, data: bytes):
        self.data, self.at = memoryview(data), 0

    def _advance(self, n: int) -> int:
        """Past n bytes; where they start."""
        if self.at + n > len(self.data):
            raise CodecError(f"block truncated: {n} bytes wanted at {self.at} of {len(self.data)}")
        self.at += n
        return self.at - n

    def take(self, n: int) -> bytes:
        at = self._advance(n)
        return bytes(self.data[at:at + n])

    def u32(self) -> int:
        return int(_U32.unpack_from(self.data, self._advance(4))[0])

    def section(self) -> bytes:
        return self.take(self.u32())

    def skip(self) -> None:
        """Past one section, not copying it."""
        self._advance(self.u32())

    def done(self) -> None:
        if self.at != len(self.data):
            raise CodecError(f"{len(self.data) - self.at} bytes left over after the block")


def header(magic: bytes, n: int) -> bytes:
    """A block's start: its format tag and its row count."""
    return magic + struct.pack("<I", n)


def open_block(data: bytes, magic: bytes, what: str) -> tuple[Reader, int]:
    """A Reader past the block's header, and the row count it states; CodecError for another format."""
    r = Reader(data)
    if r.take(len(magic)) != magic:
        raise CodecError(f"not a {what} block")
    return r, r.u32()


def section_bytes(b: bytes) -> bytes:
    return struct.pack("<I", len(b)) + b


def ints(a: np.ndarray) -> bytes:
    """int64 values: nothing for none, one byte when all are 0, else pcodec."""
    a = np.ascontiguousarray(a, dtype=np.int64)
    if len(a) == 0:
        return bytes([INTS_EMPTY])
    if not a.any():
        return bytes([INTS_ZERO])
    return bytes([INTS_PCO]) + pcodec.standalone.simple_compress(a, pcodec.ChunkConfig())


def unints(b: bytes, n: int) -> np.ndarray:
    if not b:
        raise CodecError("an integer section is empty")
    kind = b[0]
    if kind == INTS_EMPTY:
        out = np.zeros(0, dtype=np.int64)
    elif kind == INTS_ZERO:
        out = np.zeros(n, dtype=np.int64)
    elif kind == INTS_PCO:
        try:
            out = np.asarray(pcodec.standalone.simple_decompress(b[1:]), dtype=np.int64)
        except Exception as exc:         # pcodec raises its own runtime errors on bad bytes
            raise CodecError(f"integer section does not decode: {exc}") from None
    else:
        raise CodecError(f"unknown integer section kind {kind}")
    if len(out) != n:
        raise CodecError(f"integer section holds {len(out)} values, the block {n}")
    return out


def mask(m: np.ndarray) -> bytes:
    m = np.asarray(m, dtype=bool)
    if not m.any():
        return bytes([MASK_NONE])
    if m.all():
        return bytes([MASK_ALL])
    return bytes([MASK_BITS]) + zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(np.packbits(m).tobytes())


def unmask(b: bytes, n: int) -> np.ndarray:
    if not b:
        raise CodecError("a mask section is empty")
    if b[0] == MASK_NONE:
        return np.zeros(n, dtype=bool)
    if b[0] == MASK_ALL:
        return np.ones(n, dtype=bool)
    if b[0] != MASK_BITS:
        raise CodecError(f"unknown mask kind {b[0]}")
    try:
        bits = zstandard.ZstdDecompressor().decompress(b[1:])
    except zstandard.ZstdError as exc:
        raise CodecError(f"mask does not decode: {exc}") from None
    if len(bits) != (n + 7) // 8:
        raise CodecError(f"mask of {len(bits)} bytes for {n} rows")
    return np.unpackbits(np.frombuffer(bits, dtype=np.uint8), count=n).astype(bool)
