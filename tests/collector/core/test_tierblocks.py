"""The settled-tier codec (collector/core/tierblocks.py, its rates by collector/core/ratepairs.py):
bucket rows -> blocks -> the same rows, the float rates bit for bit; bad blocks refused with a
reason. No services."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from collector.core import ratepairs as rp
from collector.core import tierblocks as tb
from collector.core.blockparts import CodecError

DAY = 86400


def _bits(v: float | None) -> bytes | None:
    return None if v is None else struct.pack("<d", v)


def _same(a: list, b: list) -> bool:
    """Rows equal with rates compared as their float64 bits (so -0.0, a NaN payload, would show)."""
    key = lambda rows: [(r[0], r[1], r[2], r[3], _bits(r[4]), _bits(r[5]), r[6], r[7]) for r in rows]  # noqa: E731
    return key(a) == key(b)


def _buckets(rng: np.random.Generator, width: int, n: int, sids: list[int], lo: int, poll_ms: int = 15000) -> list:
    """Bucket rows as the rollup makes them: each bucket's samples drawn with a jittered interval,
    max/min the rollup's own float rate of one sample; some buckets missing, some with nothing drawn."""
    rows = []
    per = max(width * 1000 // poll_ms, 1)
    for sid in sids:
        scale = 10 ** int(rng.integers(2, 9))
        for j in range(n):
            if rng.random() < 0.03:
                continue                                    # the switch was not polled
            iv = poll_ms + rng.integers(-30, 30, per)
            d = (rng.lognormal(0, 0.5, per) * scale).astype(np.int64)
            drawn = rng.random(per) > 0.02
            if sid % 7 == 0 and j % 50 == 0:
                drawn[:] = False                            # a reboot: nothing drawn, rates NULL
            rates = rp.rate_of(d[drawn], iv[drawn])
            rows.append((sid, lo + j * width, int(d[drawn].sum()), int(iv[drawn].sum()),
                         float(rates.max()) if len(rates) else None, float(rates.min()) if len(rates) else None,
                         per, int(rng.random() < 0.01)))
    return rows


def _round_trip(rows: list, lo: int, width: int) -> tuple[list, int]:
    spine, cols = tb.split(rows, lo, width)
    sb = tb.encode_spine(spine)
    blocks = {sid: tb.encode_column(c, spine) for sid, c in cols.items()}
    back_spine = tb.decode_spine(sb)
    back = tb.join(back_spine, {sid: tb.decode_column(b, back_spine) for sid, b in blocks.items()}, lo, width)
    return back, len(sb) + sum(len(b) for b in blocks.values())


@pytest.mark.parametrize("width,n", [(60, 1440), (900, 960), (3600, 960), (86400, 365)])
def test_a_tier_block_gives_back_every_row_exactly(width, n):
    rng = np.random.default_rng(width)
    lo = 20000 * DAY
    rows = _buckets(rng, width, n, [3, 7, 11, 12, 40], lo)
    back, _ = _round_trip(rows, lo, width)
    assert _same(sorted(rows), back)


@pytest.mark.parametrize("rates,kept", [(("max",), (4,)), (("min",), (5,)), ((), ())])
def test_a_reader_of_some_rates_gets_them_exactly_and_the_others_null(rates, kept):
    rng = np.random.default_rng(5)
    lo = 20000 * DAY
    rows = _buckets(rng, 60, 600, [3, 7, 12], lo)
    spine, cols = tb.split(rows, lo, 60)
    back_spine = tb.decode_spine(tb.encode_spine(spine))
    back = tb.join(back_spine, {sid: tb.decode_column(tb.encode_column(c, spine), back_spine, rates)
                                for sid, c in cols.items()}, lo, 60)
    want = [tuple(v if k not in (4, 5) or k in kept else None for k, v in enumerate(r)) for r in sorted(rows)]
    assert _same(want, back)


def test_a_rate_no_pair_gives_is_kept_as_its_bits():
    rows = [(1, 0, 10, 15000, 0.1 + 1e-17 * 3, 1 / 3, 1, 0), (1, 60, 10, 15000, 7.0, 7.0, 1, 0),
            (2, 0, 5, 0, None, None, 1, 1), (2, 60, 2 ** 62, 15000, float(2 ** 62) * 1000 / 15000, 0.0, 1, 0)]
    _, cols = tb.split(rows, 0, 60)
    _, _, unpaired = rp.to_pairs(cols[1].max_rate, np.full(2, 15000))
    assert unpaired.any()                  # 0.1 + 3e-17 is no delta * 1000 / interval near 15 s
    back, _ = _round_trip(rows, 0, 60)
    assert _same(sorted(rows), back)


def test_series_missing_buckets_and_differing_from_the_spine():
    rows = [(5, 60 * j, j, 15000 * (1 + (j == 3)), None if j == 4 else float(j), 0.0, 1 + (j == 3), j % 2)
            for j in range(10) if j != 6]
    rows += [(9, 60 * j, 2 * j, 15000, 2.0, 1.0, 1, 0) for j in range(4, 12)]
    back, _ = _round_trip(rows, 0, 60)
    assert _same(sorted(rows), back)


def _sums(rows: list) -> tuple:
    peaks, floors = [r[4] for r in rows if r[4] is not None], [r[5] for r in rows if r[5] is not None]
    return (sum(r[2] for r in rows), sum(r[3] for r in rows), max(peaks, default=None), min(floors, default=None),
            sum(r[6] for r in rows), sum(r[7] for r in rows))


TOTALS = [
    ("drawn", [(1, 60 * j, 3 * j, 15000, float(j), j / 2, 4, j % 3 == 0) for j in range(9)]),
    ("missing buckets, rates NULL", [(1, 60 * j, j, 15000, None, None, 1, 1) for j in (0, 4, 5)]),
    ("sums near a bigint", [(1, 0, 2 ** 62, 15000, 1.0, 1.0, 1, 0), (1, 60, 2 ** 62 - 1, 15000, 2.0, 0.5, 1, 0)]),
]


@pytest.mark.parametrize("name,rows", TOTALS, ids=[t[0] for t in TOTALS])
def test_a_column_totals_are_its_buckets_summed(name, rows):
    _, cols = tb.split(rows, 0, 60)
    assert tb.totals(cols[1]) == _sums(rows)


def test_a_column_whose_sum_leaves_a_bigint_has_no_totals():
    rows = [(1, 60 * j, 2 ** 62, 15000, 1.0, 1.0, 1, 0) for j in range(3)]
    _, cols = tb.split(rows, 0, 60)
    assert tb.totals(cols[1]) == (None,) * 6


def test_random_columns_totals():
    rng = np.random.default_rng(8)
    rows = _buckets(rng, 60, 1440, [3, 7, 14], 0)
    _, cols = tb.split(rows, 0, 60)
    for sid, col in cols.items():
        assert tb.totals(col) == _sums([r for r in rows if r[0] == sid])


BAD_ROWS = [
    ("misaligned", [(1, 30, 1, 15000, 1.0, 1.0, 1, 0)], "boundary"),
    ("before the block", [(1, -60, 1, 15000, 1.0, 1.0, 1, 0)], "boundary"),
    ("twice", [(1, 60, 1, 15000, 1.0, 1.0, 1, 0), (1, 60, 2, 15000, 1.0, 1.0, 1, 0)], "two rows"),
    ("none", [], "no bucket rows"),
]


@pytest.mark.parametrize("name,rows,message", BAD_ROWS, ids=[b[0] for b in BAD_ROWS])
def test_rows_that_are_no_block_are_refused(name, rows, message):
    with pytest.raises(CodecError, match=message):
        tb.split(rows, 0, 60)


def _blocks():
    rows = _buckets(np.random.default_rng(3), 60, 100, [1, 2], 0)
    spine, cols = tb.split(rows, 0, 60)
    return spine, tb.encode_spine(spine), tb.encode_column(cols[1], spine)


BAD_BLOCKS = [
    ("spine truncated", lambda s, sb, cb: tb.decode_spine(sb[:-3]), "truncated"),
    ("spine with a tail", lambda s, sb, cb: tb.decode_spine(sb + b"x"), "left over"),
    ("not a spine", lambda s, sb, cb: tb.decode_spine(cb), "not a tier spine"),
    ("not a column", lambda s, sb, cb: tb.decode_column(sb, s), "not a tier column"),
    ("column truncated", lambda s, sb, cb: tb.decode_column(cb[:-5], s), "truncated|decode"),
    ("another spine", lambda s, sb, cb: tb.decode_column(cb, tb.TierSpine(
        s.offsets[:5], s.interval_ms[:5], s.samples[:5], s.candidates[:5])), "its spine"),
]


@pytest.mark.parametrize("name,call,message", BAD_BLOCKS, ids=[b[0] for b in BAD_BLOCKS])
def test_bad_blocks_are_refused_with_a_reason(name, call, message):
    spine, sb, cb = _blocks()
    with pytest.raises(CodecError, match=message):
        call(spine, sb, cb)
