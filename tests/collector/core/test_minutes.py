"""collector/core/minutes.py: raw polls into buckets, against the contract written out element by
element (collector/archive/rollup.py, "What a bucket holds"), on hand-made and random polls."""
from __future__ import annotations

import math

import numpy as np
import pytest

from collector.core import minutes
from collector.core.facts import Flag

W, OVER, GAP, MISSING = int(Flag.WRAP), int(Flag.OVER_CAPACITY), int(Flag.GAP), int(Flag.MISSING)
MIN = 60_000_000      # a minute in microseconds


def reference(parts: list[minutes.Part], width_s: int) -> dict[tuple[int, int], tuple]:
    """Element by element: (bucket start s, series) -> (sum_delta, sum_interval_ms, max, min, samples, flagged)."""
    out: dict[tuple[int, int], list] = {}
    for p in parts:
        for i, t in enumerate(p.time_us.tolist()):
            iv = None if p.interval_null[i] else int(p.interval_ms[i])
            for j, sid in enumerate(p.series_ids.tolist()):
                if p.present is not None and not p.present[i, j]:
                    continue
                d = None if p.delta_null[i, j] else int(p.delta[i, j])
                fl = int(p.flags[i, j])
                e = out.setdefault((t // (width_s * 1_000_000) * width_s, sid), [0, 0, None, None, 0, 0])
                if d is not None and not fl & OVER and iv is not None and iv > 0:
                    rate = float(d) * 1000.0 / float(iv)
                    e[0] += d
                    e[1] += iv
                    e[2] = rate if e[2] is None else max(e[2], rate)
                    e[3] = rate if e[3] is None else min(e[3], rate)
                e[4] += 1
                e[5] += 1 if fl & ~W else 0
    return {k: tuple(v) for k, v in out.items()}


def as_dict(b: minutes.Buckets) -> dict[tuple[int, int], tuple]:
    out = {}
    for k in range(len(b["sid"])):
        mx, mn = float(b["mx"][k]), float(b["mn"][k])
        out[(int(b["t"][k]), int(b["sid"][k]))] = (int(b["d"][k]), int(b["ms"][k]), None if math.isnan(mx) else mx,
                                                   None if math.isnan(mn) else mn, int(b["n"][k]), int(b["f"][k]))
    return out


def part(times_s, intervals, ids, deltas, flags, present=None) -> minutes.Part:
    d = np.array([[0 if v is None else v for v in row] for row in deltas], np.int64)
    null = np.array([[v is None for v in row] for row in deltas], bool)
    return minutes.Part(np.array([round(t * 1_000_000) for t in times_s], np.int64),
                        np.array([0 if v is None else v for v in intervals], np.int64),
                        np.array([v is None for v in intervals]), np.array(ids, np.int64), d, null,
                        np.array(flags, np.int64), None if present is None else np.array(present, bool))


CASES = [
    ("four polls of a minute, two series",
     [part([60.2, 75.1, 90.3, 105.0], [15000, 14900, 15200, 14700], [7, 9],
           [[150, 3], [149, 0], [152, 7], [147, 2]], [[0, 0]] * 4)]),
    ("a minute boundary: a poll at 120.000 s belongs to the next bucket",
     [part([119.999, 120.0], [15000, 15000], [1], [[10], [20]], [[0], [0]])]),
    ("nothing drawn: a delta missing, over capacity, a zero and a null interval; counted, rates NULL",
     [part([60, 75, 90, 95], [15000, 15000, 0, None], [1, 2], [[None, 5], [10 ** 9, None], [4, 4], [6, 6]],
           [[MISSING, 0], [OVER, MISSING], [0, 0], [0, 0]])]),
    ("a wrap is drawn and not flagged, a gap is drawn and flagged",
     [part([60, 300], [15000, 240000], [3], [[2 ** 40], [4 * 2 ** 40]], [[W], [GAP]])]),
    ("a layout change inside a minute: a series absent from one poll",
     [part([60, 75], [15000, 15000], [1, 2], [[5, 6], [7, 8]], [[0, 0]] * 2),
      part([90], [15000], [1], [[9]], [[0]])]),
    ("a settled day beside rows, out of order, with absent elements",
     [part([90, 105], [15000, 15000], [4, 5], [[1, 1], [2, 2]], [[0, 0]] * 2),
      part([61, 76], [15000, 15000], [4, 5], [[3, 3], [4, 4]], [[0, 0]] * 2, present=[[True, False], [True, True]])]),
    ("negative deltas (a Counter64 above 2^63 in two's complement) are summed as stored",
     [part([60, 75], [15000, 15000], [1], [[-5], [-(2 ** 62)]], [[0], [0]])]),
]


@pytest.mark.parametrize("parts", [c for _, c in CASES], ids=[w for w, _ in CASES])
def test_buckets_are_the_contracts(parts):
    got = as_dict(minutes.aggregate(minutes.combine(parts), 60))
    assert got == reference(parts, 60)
    assert got                                   # every case has buckets


def test_random_polls_layouts_and_flags_give_the_contract_at_every_width():
    rng = np.random.default_rng(32)
    for trial in range(40):
        parts = []
        for _ in range(rng.integers(1, 4)):                       # layouts of one switch
            ids = np.sort(rng.choice(40, size=rng.integers(1, 12), replace=False)) + 100
            k = int(rng.integers(1, 30))
            times = np.sort(rng.uniform(0, 1800, k)) + 1.7e9
            deltas = [[None if rng.random() < 0.05 else int(rng.integers(-10, 2 ** 40)) for _ in ids] for _ in range(k)]
            flags = [[int(rng.choice([0, 0, 0, W, OVER, GAP, MISSING])) for _ in ids] for _ in range(k)]
            ivs = [None if rng.random() < 0.05 else int(rng.integers(-1, 30000)) for _ in range(k)]
            parts.append(part(times, ivs, ids, deltas, flags))
        for width in (60, 900):
            assert as_dict(minutes.aggregate(minutes.combine(parts), width)) == reference(parts, width), (trial, width)


def test_kept_series_only():
    p = part([60, 75], [15000, 15000], [1, 2, 3], [[1, 2, 3], [4, 5, 6]], [[0, 0, 0]] * 2)
    got = minutes.aggregate(minutes.combine([p]), 60, keep=np.array([True, False, True]))
    assert sorted(got["sid"].tolist()) == [1, 3]


def test_a_sum_out_of_the_bigint_range_is_refused():
    p = part([60, 75], [15000, 15000], [1], [[2 ** 62 + 2 ** 61], [2 ** 62 + 2 ** 61]], [[0], [0]])
    with pytest.raises(OverflowError, match="bigint"):
        minutes.aggregate(minutes.combine([p]), 60)


def test_large_deltas_that_fit_are_summed_exactly():
    p = part([60, 75, 80], [15000, 15000, 5000], [1], [[2 ** 61], [2 ** 61 + 3], [-(2 ** 61)]], [[0], [0], [0]])
    got = minutes.aggregate(minutes.combine([p]), 60)
    assert got["d"].tolist() == [2 ** 61 + 3]


def test_no_polls_no_buckets():
    assert all(len(v) == 0 for v in minutes.aggregate(minutes.combine([]), 60).values())
