"""The bill numerics against a brute-force reference: every delta spread over its interval, summed
per sample interval before the percentile, nearest rank, the direction rules."""
from __future__ import annotations

import math

import numpy as np
import pytest

from numerics import billing


def one(t, span, vol_in, vol_out=None, has_in=None, has_out=None) -> billing.Stream:
    n = len(t)
    vol_out = vol_out if vol_out is not None else [0] * n
    return billing.stream(t, span, vol_in, vol_out, has_in if has_in is not None else [True] * n,
                          has_out if has_out is not None else [True] * n)


def test_a_15_s_delta_straddling_a_boundary_is_shared_by_time():
    # (290, 305]: 10 s before the 300 s boundary, 5 s after it
    s = one([290.0, 305.0], [15.0, 15.0], [0, 1500], has_in=[False, True])   # the first: no delta
    bins = billing.spread([s], billing.edges(0, 600, 300))
    assert bins.vol_in.tolist() == pytest.approx([1000.0, 500.0])
    assert bins.measured_in.tolist() == pytest.approx([10.0, 5.0])


def test_a_gap_delta_is_spread_over_the_whole_gap_not_one_interval():
    # polls at 0 and 1200 s: 20 minutes missed; 1,200,000 bytes over four 5-minute intervals
    s = one([0.0, 1200.0], [15.0, 1200.0], [0, 1_200_000])
    bins = billing.spread([s], billing.edges(0, 1200, 300))
    assert bins.vol_in.tolist() == pytest.approx([300_000.0] * 4)
    f = billing.figures(bins, billing.volume([s], 0, 1200))
    assert f.p95_in == pytest.approx(300_000 * 8 / 300)


def reference_bins(streams, e):
    """Brute force: every sample's share of every interval by overlap, in plain Python."""
    n = len(e) - 1
    vi, vo, mi, mo = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
    for s in streams:
        prev_end = None
        for k in range(len(s)):
            t, span = float(s.t[k]), float(s.span[k])
            start = t - span if span > 0 else t
            if prev_end is not None:
                start = max(start, prev_end)
            prev_end = t
            if t <= start:
                continue
            for i in range(n):
                overlap = max(0.0, min(t, e[i + 1]) - max(start, e[i]))
                if overlap:
                    share = overlap / (t - start)
                    vi[i] += int(s.vol_in[k]) * share
                    vo[i] += int(s.vol_out[k]) * share
                    mi[i] += overlap if s.has_in[k] else 0.0
                    mo[i] += overlap if s.has_out[k] else 0.0
    return vi, vo, mi, mo


def random_stream(rng, t0, t1, step, jitter=0.3, p_missing=0.01):
    t = [t0 + rng.uniform(0, step)]
    while t[-1] < t1:
        t.append(t[-1] + step * (1 + (rng.integers(2, 6) if rng.random() < p_missing else 0))
                 + rng.uniform(-jitter, jitter))
    t = np.array(t)
    span = np.diff(t, prepend=t[0] - step)
    vin = rng.integers(0, 10**7, len(t))
    vout = rng.integers(0, 10**6, len(t))
    has_in = rng.random(len(t)) > 0.02
    vin[~has_in] = 0
    return billing.stream(t, span, vin, vout, has_in, np.ones(len(t), bool))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spread_matches_the_brute_force_reference(seed):
    rng = np.random.default_rng(seed)
    streams = [random_stream(rng, 0, 7200, 15), random_stream(rng, 30, 7000, 60)]
    e = billing.edges(100, 7100, 300)
    bins = billing.spread(streams, e)
    vi, vo, mi, mo = reference_bins(streams, e)
    assert bins.vol_in == pytest.approx(vi, rel=1e-9, abs=1e-3)
    assert bins.vol_out == pytest.approx(vo, rel=1e-9, abs=1e-3)
    assert bins.measured_in == pytest.approx(mi, abs=1e-6)
    assert bins.measured_out == pytest.approx(mo, abs=1e-6)


def test_volume_is_exact_and_periods_add_up():
    rng = np.random.default_rng(7)
    streams = [random_stream(rng, 0, 86400, 15), random_stream(rng, 0, 86400, 30)]
    # a boundary between polls of neither stream, and the whole: parts add up to the whole
    a = billing.volume(streams, 1000, 40000)
    b = billing.volume(streams, 40000, 90000)
    whole = billing.volume(streams, 1000, 90000)
    assert abs(a[0] + b[0] - whole[0]) <= 1 and abs(a[1] + b[1] - whole[1]) <= 1
    # the brute force's share of each delta in the window, summed: the same volume to the byte
    vi, vo, _, _ = reference_bins(streams, np.array([1000.0, 90000.0]))
    assert abs(whole[0] - vi[0]) <= 1 and abs(whole[1] - vo[0]) <= 1
    inside = sum(int(s.vol_in[(s.starts() >= 1000)].sum()) for s in streams)
    assert inside <= whole[0] <= inside + 2 * 10**7      # at most one shared delta per stream


@pytest.mark.parametrize("n", [1, 2, 19, 20, 21, 100, 8640, 8641])
def test_nearest_rank_is_numpys_inverted_cdf(n):
    rng = np.random.default_rng(n)
    x = rng.lognormal(10, 1, n)
    assert billing.nearest_rank(x) == np.percentile(x, 95, method="inverted_cdf")


def test_thirty_days_of_five_minutes_bill_the_433rd_highest():
    x = np.arange(1, 8641, dtype=float)
    assert billing.nearest_rank(x) == 8640 - 432


def test_direction_rules_and_unmeasured_intervals():
    e = billing.edges(0, 1500, 300)
    # in: 1, 2, 3, 4, 5 units/s x 300; out: 5, 4, 3, 2, unmeasured
    bins = billing.Bins(e, np.array([1, 2, 3, 4, 5]) * 300.0, np.array([5, 4, 3, 2, 0]) * 300.0,
                        np.full(5, 300.0), np.array([300.0, 300, 300, 300, 0]))
    f = billing.figures(bins, (4500, 4200))
    assert f.measured_in == 5 and f.measured_out == 4 and f.measured == 5
    assert f.p95_in == 5 * 8 and f.p95_out == 5 * 8 and f.p95_sum == 6 * 8
    assert f.p95("max") == 40 and f.p95("sum") == 48 and f.p95("in") == 40
    assert f.p95_at_out == 0 and f.p95_at_in == 4
    assert f.volume("max") == 4500 and f.volume("sum") == 8700 and f.volume("out") == 4200


def test_no_measured_interval_has_no_percentile():
    e = billing.edges(0, 600, 300)
    bins = billing.spread([], e)
    f = billing.figures(bins, (0, 0))
    assert f.p95("max") is None and f.p95_sum is None and f.measured == 0 and f.intervals == 2


def test_edges_of_a_period_that_is_not_whole_intervals():
    e = billing.edges(0, 1000, 300)
    assert e.tolist() == [0, 300, 600, 900, 1000]
    with pytest.raises(ValueError):
        billing.edges(10, 10, 300)


def test_a_withheld_delta_leaves_its_time_unmeasured():
    # a reboot at the second sample: no drawn delta, its interval counts as no traffic
    s = one([300.0, 315.0, 330.0], [15.0, 15.0, 15.0], [4500, 0, 4500], has_in=[True, False, True])
    bins = billing.spread([s], billing.edges(300, 330, 30))
    assert bins.measured_in.tolist() == [15.0] and bins.vol_in.tolist() == [4500.0]
    assert math.isclose(billing.figures(bins, (4500, 0)).p95_in, 4500 * 8 / 30)
