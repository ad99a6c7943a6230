"""The settled-data codec round-trips every sample row exactly (collector/core/settled.py)."""
from __future__ import annotations

import random

import numpy as np
import pytest

from collector.core import settled
from collector.core.facts import FLAGS, Flag, to_i64

T0 = 1_767_225_600_000_000          # 2026-01-01 00:00 UTC in µs
S = 15_000_000                      # 15 s in µs
U32 = 1 << 32
LAYOUTS = {1: [10, 11, 12], 2: [10, 12, 13], 3: [20]}


def row(i: int, layout: int, raw, delta, flags, *, dt: int = 0, uptime: int | None = 1000,
        interval: int | None = 15000):
    return (T0 + i * S + dt, layout, uptime, interval, list(raw), list(delta), list(flags))


def wraps32():
    """A busy Counter32 wrapping twice: raw falls, delta stays exact, WRAP set."""
    out, v = [], U32 - 5000
    for i in range(6):
        nv = (v + 3000) % U32
        out.append(row(i, 3, [nv], [3000 if i else None], [int(Flag.WRAP) if nv < v else (Flag.FIRST if not i else 0)]))
        v = nv
    return out


def wraps64():
    """A Counter64 at the top of its range (stored as the int64 of the same bits) wrapping to 0."""
    vals = [(1 << 64) - 7, (1 << 64) - 2, 3, 1 << 63, (1 << 63) + 5, (1 << 63) - 1]
    out = []
    for i, v in enumerate(vals):
        d = None if i == 0 else (v - vals[i - 1]) % (1 << 64)
        d = None if d is None or d >= 1 << 63 else d
        flag = int(Flag.FIRST) if i == 0 else int(Flag.WRAP) if v < vals[i - 1] else 0
        out.append(row(i, 3, [to_i64(v)], [d], [flag]))
    return out


def every_flag():
    """A row per flag kind, each on a different series position, NULL deltas where no delta is made."""
    out = []
    for i, info in enumerate(FLAGS):
        no_delta = info.flag & (Flag.REBOOT | Flag.RESET | Flag.FIRST | Flag.AMBIGUOUS | Flag.CLOCK | Flag.WIDTH
                                | Flag.MISSING)
        raw = None if info.flag == Flag.MISSING else 1000 * i
        out.append(row(i, 1, [raw, 5 + i, 7], [None if no_delta else 99, 4, None], [info.bit, 0, info.bit | 1]))
    return out


def reboots_and_gaps():
    """A reboot (counter starts again low), a gap (interval 4x, GAP), a clock step (interval <= 0)."""
    return [row(0, 1, [100, 200, 300], [None, None, None], [32, 32, 32]),
            row(1, 1, [150, 260, 390], [50, 60, 90], [0, 0, 0]),
            row(2, 1, [3, 4, 5], [None, None, None], [2, 2, 2], uptime=12),
            row(6, 1, [43, 84, 125], [40, 80, 120], [64, 64, 64], interval=60000, uptime=6012),
            row(7, 1, [44, 85, 126], [None, None, None], [256, 256, 256], dt=-S + 1, interval=-14999)]


def layout_change():
    """Series 11 leaves, 13 comes, 10 and 12 stay: each keeps its own values by id."""
    return [row(0, 1, [1, 2, 3], [None, None, None], [32, 32, 32]),
            row(1, 1, [11, 12, 13], [10, 10, 10], [0, 0, 0]),
            row(2, 2, [21, 23, 9], [10, 10, None], [0, 0, 32]),
            row(3, 2, [31, 33, 19], [10, 10, 10], [0, 0, 0]),
            row(4, 1, [41, None, 43], [10, None, 10], [0, 16, 0])]


def nulls():
    """NULL uptime and interval (the first poll, an agent without sysUpTime), NULL raw mid-way."""
    return [row(0, 3, [None], [None], [16], uptime=None, interval=None),
            row(1, 3, [None], [None], [16], uptime=None),
            row(2, 3, [500], [None], [32]),
            row(3, 3, [None], [None], [16]),
            row(4, 3, [620], [120], [0])]


def irregular_ms():
    """Times to the microsecond, intervals that jitter by milliseconds."""
    rng = random.Random(3)
    out, t, v = [], T0, 10
    for i in range(50):
        t += 15_000_000 + rng.randint(-40_000, 40_000) + rng.randint(0, 999)
        inc = rng.randint(0, 10 ** 6)
        v += inc
        out.append((t, 3, 1000 + i, 15000 + rng.randint(-40, 40), [v], [inc if i else None], [0 if i else 32]))
    return out


def realistic(n: int = 5760):
    """A day of 15 s polls of traffic-like counters (noise, a daily cycle), some Counter32 wrapping."""
    rng = np.random.default_rng(5)
    rates = rng.uniform(0, 2e6, 3)
    vals = rng.integers(0, U32, 3)
    out = []
    for i in range(n):
        inc = (rates * 15 * rng.lognormal(-0.06, 0.35, 3)).astype(np.int64)
        new = (vals + inc) % U32
        flags = [int(Flag.WRAP) if nv < ov else 0 for nv, ov in zip(new, vals)]
        out.append(row(i, 1, new.tolist(), inc.tolist(), flags, dt=int(rng.integers(-50_000, 50_000))))
        vals = new
    return out


def steady(n: int = 5760):
    """A day of counters at steady rates (simnet.swarm's: base + rate x t), the poll clock jittering by
    ms, one Counter32 wrapping, one idle, a missed poll and a reboot in the middle."""
    rng = np.random.default_rng(9)
    rates = np.array([1.25e8, 4.7e4, 0.0])          # units/s
    base = np.array([2 ** 40, U32 - 10 ** 6, 7], np.int64)
    out, t_prev, prev = [], None, None
    for i in range(n):
        if i == 3000:                                # a missed poll
            continue
        t = T0 + i * S + int(rng.integers(-30_000, 30_000))
        since = 0 if i < 4000 else 4000 * S         # a reboot at poll 4000: counters from 0
        vals = (base * (i < 4000) + (rates * (t - T0 - since) / 1e6).astype(np.int64)) % np.array([1 << 64, U32, U32])
        vals = [to_i64(int(v)) if k == 0 else int(v) for k, v in enumerate(vals)]
        if prev is None or i == 4000:
            delta, flags = [None] * 3, [int(Flag.FIRST if prev is None else Flag.REBOOT)] * 3
        else:
            delta = [(int(v) - int(p)) % (1 << 64 if k == 0 else U32) for k, (v, p) in enumerate(zip(vals, prev))]
            flags = [int(Flag.WRAP) if v < p and k == 1 else 0 for k, (v, p) in enumerate(zip(vals, prev))]
        interval = None if t_prev is None else round((t - t_prev) / 1000)
        out.append((t, 1, 1000 + i, interval, vals, delta, flags))
        t_prev, prev = t, vals
    return out


CASES = {
    "empty": [],
    "single reading": [row(0, 3, [77], [None], [32])],
    "wraps at 2^32": wraps32(),
    "wraps at 2^64": wraps64(),
    "every flag kind": every_flag(),
    "reboots, gaps, clock step": reboots_and_gaps(),
    "layout change": layout_change(),
    "NULLs": nulls(),
    "irregular times at µs": irregular_ms(),
    "steady rates": steady(),
    "a day of traffic": realistic(),
}


def _roundtrip(rows, with_spine: bool):
    spine, cols = settled.split(rows, LAYOUTS)
    spine2 = settled.decode_spine(settled.encode_spine(spine))
    if with_spine:            # CC1 or CC2, whichever is smaller
        cols2 = {sid: settled.decode_column(settled.encode_column(c, spine), spine2) for sid, c in cols.items()}
    else:                     # CC1 only
        cols2 = {sid: settled.decode_column(settled.encode_column(c)) for sid, c in cols.items()}
    return settled.join(spine2, cols2, LAYOUTS)


@pytest.mark.parametrize("with_spine", [True, False], ids=["steady-rate columns allowed", "plain columns"])
@pytest.mark.parametrize("rows", list(CASES.values()), ids=list(CASES))
def test_rows_round_trip_exactly(rows, with_spine):
    assert _roundtrip(rows, with_spine) == [tuple(r) for r in rows]


def test_steady_rates_are_stored_as_residuals_from_the_poll_clock():
    spine, cols = settled.split(steady(), LAYOUTS)
    sizes = {}
    for sid, col in cols.items():
        block = settled.encode_column(col, spine)
        sizes[sid] = (len(block), len(settled.encode_column(col)), block[:3])
    busy, wrapping, idle = (sizes[k] for k in sorted(sizes))
    assert busy[2] == wrapping[2] == settled.MAGIC_COLUMN_RATE
    assert busy[0] < busy[1] / 3 and wrapping[0] < wrapping[1] / 2, sizes     # far smaller than the deltas
    assert idle[2] == settled.MAGIC_COLUMN                                   # nothing to predict: as it was
    with pytest.raises(settled.CodecError, match="with its spine"):
        settled.decode_column(settled.encode_column(cols[sorted(cols)[0]], spine))


def test_live_traffic_keeps_its_plain_deltas():
    spine, cols = settled.split(realistic(), LAYOUTS)
    for col in cols.values():
        assert settled.encode_column(col, spine)[:3] == settled.MAGIC_COLUMN


@pytest.mark.parametrize("rows", list(CASES.values()), ids=list(CASES))
def test_a_column_decodes_alone(rows):
    """A reader decodes one series' block without the others: its values where its layout had it."""
    spine, cols = settled.split(rows, LAYOUTS)
    for sid, col in cols.items():
        got = settled.decode_column(settled.encode_column(col))
        for name in ("present", "raw_null", "delta_null"):
            assert got.__dict__[name].tolist() == col.__dict__[name].tolist(), (sid, name)
        p = col.present
        for name in ("raw", "delta"):
            keep = p & ~col.__dict__[f"{name}_null"]
            assert got.__dict__[name][keep].tolist() == col.__dict__[name][keep].tolist(), (sid, name)
        assert got.flags[p].tolist() == col.flags[p].tolist()


def test_raw_values_cost_little_beyond_the_deltas():
    """Deltas of live traffic carry the information: a column (raw, delta, flags, masks) is at most
    3 % more than pcodec of its deltas alone, though its raws wrap and its flags vary."""
    import pcodec

    spine, cols = settled.split(realistic(), LAYOUTS)
    for sid, col in cols.items():
        alone = len(pcodec.standalone.simple_compress(col.delta, pcodec.ChunkConfig()))
        assert len(settled.encode_column(col)) <= alone * 1.03, sid


def test_a_regular_clock_costs_little():
    """The spine of a day of polls 15 s apart (ms jitter in the clock) is under 2 bytes a poll."""
    rows = [(T0 + i * S + (i % 7) * 1000, 1, 1000 + 1500 * i, 15000, [], [], []) for i in range(5760)]
    spine, _ = settled.split(rows, {1: []})
    assert len(settled.encode_spine(spine)) < 2 * 5760


BAD = {
    "not a block": (b"xyz", "not a spine block"),
    "truncated": (None, "truncated"),
    "left over": (b"!", "left over"),
}


@pytest.mark.parametrize(("mutate", "message"), list(BAD.values()), ids=list(BAD))
def test_bad_blocks_are_refused_with_a_reason(mutate, message):
    spine, _ = settled.split(wraps32(), LAYOUTS)
    good = settled.encode_spine(spine)
    data = good[:-3] if mutate is None else (mutate if mutate == b"xyz" else good + mutate)
    with pytest.raises(settled.CodecError, match=message):
        settled.decode_spine(data)


ROW_ERRORS = {
    "unknown layout": ([row(0, 9, [1], [None], [32])], "layout 9 is not known"),
    "times out of order": ([row(1, 3, [1], [None], [32]), row(0, 3, [2], [1], [0])], "increasing time"),
    "array of the wrong length": ([row(0, 3, [1, 2], [None], [32])], "layout 3"),
    "NULL flag": ([row(0, 3, [1], [None], [None])], "flag is NULL"),
}


@pytest.mark.parametrize(("rows", "message"), list(ROW_ERRORS.values()), ids=list(ROW_ERRORS))
def test_rows_that_cannot_be_blocks_are_refused(rows, message):
    with pytest.raises(settled.CodecError, match=message):
        settled.split(rows, LAYOUTS)
