"""numerics/bursts.py against series whose bursts are known by construction (table-driven)."""
from __future__ import annotations

import numpy as np
import pytest

from numerics.bursts import BurstRule, find

STEP = 15.0


def series(rates, t0: float = 1_000_000.0, step: float = STEP):
    """Points of `step` seconds each; None = a gap (nothing measured)."""
    n = len(rates)
    start = t0 + step * np.arange(n)
    seconds = np.array([0.0 if r is None else step for r in rates])
    delta = np.array([0 if r is None else round(r * step) for r in rates], np.float64)
    return start, start + step, delta, seconds


RULE = BurstRule(k=4, capacity_pct=10, min_duration_s=60)
CAP = 1000.0     # capacity per second: 10 % = 100/s
BASE = [10.0] * 40


def with_(base, at: int, values):
    out = list(base)
    out[at:at + len(values)] = values
    return out


CASES = [
    # name, rates, expected (first index, last index) of each burst
    ("quiet series", BASE, []),
    ("single spike shorter than the minimum", with_(BASE, 10, [900.0]), []),
    ("three points = 45 s < 60 s", with_(BASE, 10, [500.0] * 3), []),
    ("four points = 60 s", with_(BASE, 10, [500.0] * 4), [(10, 13)]),
    ("two bursts split by one quiet sample stay two",
     with_(BASE, 10, [500.0] * 4 + [10.0] + [500.0] * 4), [(10, 13), (15, 18)]),
    ("a gap inside a burst does not split it",
     with_(BASE, 10, [500.0] * 2 + [None] + [500.0] * 2), [(10, 14)]),
    ("a gap is not a burst either", with_(BASE, 10, [None] * 6), []),
    ("above k x median but under 10 % of capacity", with_(BASE, 10, [90.0] * 8), []),
    ("burst at the very end", with_(BASE, 36, [700.0] * 4), [(36, 39)]),
]


@pytest.mark.parametrize("name,rates,expected", CASES, ids=[c[0] for c in CASES])
def test_bursts_found_where_built(name, rates, expected):
    start, end, delta, seconds = series(rates)
    report = find(start, end, delta, seconds, RULE, capacity_per_s=CAP)
    got = [(int(round((b.start - start[0]) / STEP)), int(round((b.end - start[0]) / STEP)) - 1)
           for b in report.bursts]
    assert got == expected


def test_burst_figures():
    rates = with_(BASE, 10, [400.0, 800.0, None, 600.0, 200.0])
    start, end, delta, seconds = series(rates)
    (b,) = find(start, end, delta, seconds, RULE, capacity_per_s=CAP).bursts
    assert b.start == start[10] and b.end == end[14]
    assert b.duration == 5 * STEP and b.gap_seconds == STEP
    assert b.volume == (400 + 800 + 600 + 200) * STEP
    assert b.peak == 800.0
    assert b.mean == pytest.approx(500.0)       # volume over the 60 measured seconds
    assert b.points == 4


def test_threshold_is_the_larger_of_median_and_capacity_rules():
    start, end, delta, seconds = series(BASE)
    assert find(start, end, delta, seconds, RULE, capacity_per_s=CAP).threshold == 100.0
    assert find(start, end, delta, seconds, RULE, capacity_per_s=None).threshold == 40.0
    assert find(start, end, delta, seconds, BurstRule(k=20), capacity_per_s=CAP).threshold == 200.0


def test_median_ignores_gaps_and_a_series_of_gaps_has_no_threshold():
    rates = [None] * 30 + [10.0] * 10
    start, end, delta, seconds = series(rates)
    assert find(start, end, delta, seconds, RULE).median == 10.0
    report = find(*series([None] * 5), RULE)
    assert report.bursts == [] and np.isnan(report.threshold)


def test_a_hole_in_time_is_a_gap_not_quiet():
    """Points missing altogether (no row) inside a burst: one burst, the hole counted as gap."""
    start, end, delta, seconds = series(with_(BASE, 10, [500.0] * 6))
    keep = np.ones(len(start), bool)
    keep[12:14] = False
    (b,) = find(start[keep], end[keep], delta[keep], seconds[keep], RULE, capacity_per_s=CAP).bursts
    assert b.duration == 6 * STEP and b.gap_seconds == 2 * STEP and b.points == 4


@pytest.mark.parametrize("kw", [dict(k=-1), dict(capacity_pct=101), dict(min_duration_s=-5),
                                dict(k=float("inf")), dict(floor=-1)])
def test_bad_rules_are_refused(kw):
    with pytest.raises(ValueError):
        BurstRule(**kw)


def test_arrays_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="one entry per point"):
        find([0.0, 1.0], [1.0], [1], [1.0], RULE)


# --- the default rule on a fast port whose usual traffic is a tiny fraction of its capacity ---------
# A 10 Gb/s Ethernet port counts octets: capacity 1.25e9 octets/s; 30 Mb/s = 3.75e6 octets/s.
TEN_G = 10e9 / 8
MBPS = 1e6 / 8
QUIET = [0.0] * 80                                  # 20 minutes of 15 s samples, nothing sent


def sampled(base, *stretches):
    """Per-second rates over 15 s samples: (first second, seconds, rate) stretches on `base`."""
    per_second = np.repeat(np.asarray(base, np.float64), STEP.__int__())
    for first, length, rate in stretches:
        per_second[first:first + length] += rate
    return list(per_second.reshape(-1, int(STEP)).mean(axis=1))


def chatter(n: int) -> list[float]:
    """Management frames: an LLDP frame of ~300 bytes every 30 s (every other sample), ARP now and then."""
    return [300 / STEP if i % 2 else (0.0 if i % 7 else 60 / STEP) for i in range(n)]


FAST = [
    # name, per-sample rates (octets/s), bursts expected (count)
    ("quiet port", QUIET, 0),
    ("management chatter only", chatter(80), 0),
    ("two bursts of 30 Mb/s, 60 s and 30 s", sampled(QUIET, (150, 60, 30 * MBPS), (600, 30, 30 * MBPS)), 2),
    ("the same over chatter", sampled(chatter(80), (150, 60, 30 * MBPS), (600, 30, 30 * MBPS)), 2),
    ("a 30 s burst across three samples", sampled(QUIET, (305, 30, 30 * MBPS)), 1),
    ("a 5 Mb/s transfer for 2 minutes", sampled(QUIET, (300, 120, 5 * MBPS)), 1),
    ("one sample's spike of 500 Mb/s", sampled(QUIET, (300, 15, 500 * MBPS)), 0),
    ("two single-sample spikes apart", sampled(QUIET, (300, 15, 900 * MBPS), (450, 15, 900 * MBPS)), 0),
    # A spike that straddles a poll is in two samples: the archive cannot tell it from 30 s of
    # traffic, and the rule (stated in samples and seconds) counts it.
    ("a 10 s spike across two samples", sampled(QUIET, (295, 10, 900 * MBPS)), 1),
    ("a busy port: 2 Gb/s rising to 9 Gb/s for 2 minutes", sampled([2e9 / 8] * 80, (300, 120, 7e9 / 8)), 1),
    ("a busy port's swings under 4 x its median", sampled([2e9 / 8] * 80, (300, 120, 4e9 / 8)), 0),
]


@pytest.mark.parametrize("name,rates,n", FAST, ids=[c[0] for c in FAST])
def test_the_default_rule_on_a_fast_port_in_15_second_samples(name, rates, n):
    start, end, delta, seconds = series(rates)
    report = find(start, end, delta, seconds, BurstRule(), capacity_per_s=TEN_G)
    assert len(report.bursts) == n, (report.threshold, report.bursts)


def minute_buckets(rates):
    """The 1-minute tier of 15 s samples: per bucket its volume, seconds, highest one-sample rate
    and sample count (collector/archive/rollup.py)."""
    a = np.asarray(rates, np.float64).reshape(-1, 4)
    t0 = 1_000_000.0 - 1_000_000.0 % 60
    start = t0 + 60 * np.arange(len(a))
    return start, start + 60, np.round(a * STEP).sum(axis=1), np.full(len(a), 60.0), a.max(axis=1), np.full(len(a), 4)


@pytest.mark.parametrize("name,rates,n", FAST, ids=[c[0] for c in FAST])
def test_the_default_rule_on_a_fast_port_in_1_minute_buckets(name, rates, n):
    start, end, delta, seconds, peak, samples = minute_buckets(rates)
    report = find(start, end, delta, seconds, BurstRule(), capacity_per_s=TEN_G, peak=peak, samples=samples)
    assert len(report.bursts) == n, (report.threshold, report.bursts)


@pytest.mark.parametrize("volume,seconds,peak,samples,threshold,above", [
    (60.0, 60.0, 1.0, 4, 0.5, 4),           # flat above: every sample
    (15.0, 60.0, 1.0, 4, 0.1, 1),           # one sample at the peak, three idle
    (30.0, 60.0, 1.0, 4, 0.1, 2),           # two
    (15.9, 60.0, 1.0, 4, 0.0, 1),           # a longer sample (jitter) still rounds to one
    (30.0, 30.0, 1.0, 1, 0.5, 1),           # a raw point: one sample
])
def test_samples_above_the_threshold_in_a_bucket(volume, seconds, peak, samples, threshold, above):
    from numerics.bursts import samples_above

    got = samples_above(np.array([volume]), np.array([seconds]), np.array([peak]), np.array([samples]), threshold)
    assert list(got) == [above]


def test_the_settings_default_is_the_rules_default(settings):
    from django.conf import settings as live

    from collector.bursts.scan import default_rule

    assert default_rule() == BurstRule()
    assert (live.CELLAR_BURST_K, live.CELLAR_BURST_CAPACITY_PCT, live.CELLAR_BURST_MIN_SECONDS,
            live.CELLAR_BURST_MIN_SAMPLES) == (BurstRule().k, BurstRule().capacity_pct, BurstRule().min_duration_s,
                                               BurstRule().min_samples)
