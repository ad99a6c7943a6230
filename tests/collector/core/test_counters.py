"""Counter math: table-driven cases for every rule, plus hypothesis properties."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collector.core.counters import (
    COUNTER64_CEILING_PER_S,
    OVER_TOLERANCE,
    CounterSpec,
    Derived,
    Reading,
    derive,
    derive_row,
    epoch_change,
    wrap_delta,
)
from collector.core.facts import Flag, to_i64, to_u64

T0 = 1_700_000_000.0           # wall clock of the previous poll
UP0 = 1_000_000                # agent uptime then: 10,000 s
N = 300.0                      # nominal poll interval
OC3 = 353_207                  # OC-3c cells/s
C32 = CounterSpec(32, None)
C64 = CounterSpec(64, None)
C32_OC3 = CounterSpec(32, OC3)
C64_10G = CounterSpec(64, 1_250_000_000)   # 10 Gb/s in octets
M32, M64 = 2**32, 2**64
F = Flag


def r(dt: float, value: int | None, up: int | None = None, disc: int | None = None,
      *, up_dt: float | None = None) -> Reading:
    """Reading dt s after T0; uptime advances with the wall clock unless up/up_dt say otherwise."""
    if up is None:
        up = (UP0 + round((dt if up_dt is None else up_dt) * 100)) % M32
    return Reading(T0 + dt, up, value, disc)


P = r(0, 1_000)  # the usual previous reading

# name, prev, cur, spec, nominal, expected delta, expected flags
CASES = [
    ("normal_increase", P, r(300, 251_000), C32, N, 250_000, F.NONE),
    ("zero_change", P, r(300, 1_000), C32, N, 0, F.NONE),
    ("c32_wrap_exact", r(0, M32 - 10), r(300, 5), C32, N, 15, F.WRAP),
    ("c32_wrap_top_to_zero", r(0, M32 - 1), r(300, 0), C32, N, 1, F.WRAP),
    ("c32_wrap_largest_step", r(0, 1), r(300, 0), C32, N, M32 - 1, F.WRAP),
    ("c32_wrap_within_capacity", r(0, M32 - 1_000), r(300, 50_000_000), C32_OC3, N,
     50_001_000, F.WRAP),
    ("c32_backwards_beyond_capacity_is_reset", r(0, 3_000_000_000), r(300, 1_000), C32_OC3, N,
     None, F.RESET),
    ("c64_wrap_near_top_exact", r(0, M64 - 5), r(300, 10), C64, N, 15, F.WRAP),
    ("c64_wrap_near_top_with_capacity", r(0, M64 - 1_000_000), r(300, 5_000_000), C64_10G, N,
     6_000_000, F.WRAP),
    ("c64_exact_beyond_float", r(0, 2**62 + 1), r(300, 2**62 + 4), C64, N, 3, F.NONE),
    ("c64_exact_large_delta", r(0, 2**60 + 1), r(300, 2**60 + 12_345_678_902), C64, N,
     12_345_678_901, F.NONE),
    ("c64_backwards_is_reset", r(0, 10**12), r(300, 1_000), C64, N, None, F.RESET),
    ("c64_backwards_is_reset_with_capacity", r(0, 10**12), r(300, 1_000), C64_10G, N,
     None, F.RESET),
    ("reboot_uptime_back", r(0, 5_000_000), r(300, 100, up=20_000), C32, N, None, F.REBOOT),
    ("reboot_uptime_back_counter_forward", r(0, 1_000), r(300, 9_000, up=20_000), C32, N,
     None, F.REBOOT),
    ("reboot_uptime_back_c64", r(0, 10**15), r(300, 10, up=1_000), C64, N, None, F.REBOOT),
    ("reboot_during_gap", r(0, 1_000), r(3600, 2_000_000, up_dt=600), C32, N,
     None, F.REBOOT | F.GAP),
    ("sysuptime_ticks_wrap_not_reboot", r(0, 1_000, up=M32 - 10_000), r(300, 2_000, up=20_000),
     C32, N, 1_000, F.NONE),
    # tolerance at 300 s: max(5 s, 2 % of 300 s) = 6 s
    ("uptime_within_tolerance", P, r(300, 2_000, up_dt=294.5), C32, N, 1_000, F.NONE),
    ("uptime_short_beyond_tolerance_is_reboot", P, r(300, 2_000, up_dt=293.5), C32, N,
     None, F.REBOOT),
    ("uptime_2pct_tolerance_on_long_gap", P, r(10_000, 2_000, up_dt=9_850), C32, N,
     1_000, F.GAP),
    ("uptime_ahead_of_wall_clock_not_reboot", P, r(300, 2_000, up_dt=900), C32, N,
     1_000, F.NONE),
    ("uptime_unknown_falls_back_on_values", Reading(T0, None, 1_000),
     Reading(T0 + 300, None, 2_000), C32, N, 1_000, F.NONE),
    ("discontinuity_changed_is_reset", r(0, 1_000, disc=100), r(300, 5_000, disc=90_000), C32, N,
     None, F.RESET),
    ("discontinuity_unchanged", r(0, 1_000, disc=100), r(300, 5_000, disc=100), C32, N,
     4_000, F.NONE),
    ("discontinuity_one_side_unknown", r(0, 1_000, disc=100), r(300, 5_000), C32, N,
     4_000, F.NONE),
    ("reboot_takes_precedence_over_discontinuity", r(0, 1_000, disc=100),
     r(300, 5_000, up=20_000, disc=15_000), C32, N, None, F.REBOOT),
    ("over_capacity_delta_kept", P, r(300, 1_000 + 200_000_000), C32_OC3, N,
     200_000_000, F.OVER_CAPACITY),
    ("at_capacity_within_tolerance", P, r(300, 1_000 + int(OC3 * 300 * 1.01)), C32_OC3, N,
     int(OC3 * 300 * 1.01), F.NONE),
    ("ambiguous_multi_wrap", P, r(12_200, 5_000), C32_OC3, N, None, F.AMBIGUOUS | F.GAP),
    ("just_below_wrap_time_not_ambiguous", P, r(12_159, 5_000), C32_OC3, N, 4_000, F.GAP),
    ("c64_never_ambiguous_at_real_rates", P, r(10**7, 5_000), C64_10G, N, 4_000, F.GAP),
    ("missing_value", P, r(300, None), C32, N, None, F.MISSING),
    ("missing_value_without_prev", None, r(300, None), C32, N, None, F.MISSING),
    ("first_reading", None, r(300, 5_000), C32, N, None, F.FIRST),
    ("prev_unanswered_is_first", r(0, None), r(300, 5_000), C32, N, None, F.FIRST),
    ("gap_average", P, r(900, 91_000), C32, N, 90_000, F.GAP),
    ("exactly_1_5x_nominal_not_gap", P, r(450, 2_000), C32, N, 1_000, F.NONE),
    ("gap_with_wrap", r(0, M32 - 10), r(1_200, 10), C32, N, 20, F.WRAP | F.GAP),
    ("interval_zero_redelivered_poll", P, r(0, 1_000), C32, N, None, F.CLOCK),
    ("interval_negative_clock_back", P, r(-3_600, 5_000, up_dt=300), C32, N, None, F.CLOCK),
    ("older_poll_out_of_order_not_reboot", P, r(-300, 500), C32, N, None, F.CLOCK),
    ("clock_back_with_discontinuity", r(0, 1_000, disc=1), r(-60, 5_000, disc=2), C32, N,
     None, F.CLOCK | F.RESET),
]


@pytest.mark.parametrize("prev,cur,spec,nominal,delta,flags",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_derive_table(prev, cur, spec, nominal, delta, flags):
    got = derive(prev, cur, spec, nominal)
    assert (got.delta, got.flags) == (delta, flags)
    assert got.delta is None or type(got.delta) is int
    # the batch path agrees on every table case too
    disc = [prev.discontinuity_cs if prev else None], [cur.discontinuity_cs]
    row = derive_row(prev.at if prev else None, prev.uptime_cs if prev else None, cur.at,
                     cur.uptime_cs, [prev.value if prev else None], [cur.value], [spec],
                     nominal, *disc)
    assert row == ([delta], [int(flags)])


@pytest.mark.parametrize("u,i", [(0, 0), (1, 1), (2**63 - 1, 2**63 - 1), (2**63, -2**63),
                                 (2**64 - 1, -1)],
                         ids=["zero", "one", "i64_max", "i64_min", "u64_max"])
def test_u64_i64_boundaries(u, i):
    assert to_i64(u) == i
    assert to_u64(i) == u


@pytest.mark.parametrize("fn,v", [(to_i64, -1), (to_i64, 2**64),
                                  (to_u64, 2**63), (to_u64, -2**63 - 1)],
                         ids=["u64_negative", "u64_too_big", "i64_too_big", "i64_too_small"])
def test_u64_i64_out_of_range(fn, v):
    with pytest.raises(ValueError):
        fn(v)


@pytest.mark.parametrize("prev,cur,width,expected", [
    (2**32 - 1, 0, 32, 1), (5, 5, 64, 0), (2**64 - 5, 10, 64, 15), (10, 5, 32, 2**32 - 5),
], ids=["c32_top_to_zero", "c64_equal", "c64_near_top", "c32_back_five"])
def test_wrap_delta(prev, cur, width, expected):
    assert wrap_delta(prev, cur, width) == expected


@pytest.mark.parametrize("prev,cur,expected", [
    (P, r(300, 2_000), F.NONE), (P, r(300, 2_000, up=10), F.REBOOT),
    (r(0, 1, disc=5), r(300, 2, disc=6), F.RESET), (P, r(300, 0), F.NONE),
], ids=["none", "reboot", "reset", "values_are_not_evidence"])
def test_epoch_change(prev, cur, expected):
    assert epoch_change(prev, cur) == expected


def test_rate_and_flag_values():
    assert Derived(3_000, 300.0, F.NONE).rate == 10.0
    assert Derived(None, 300.0, F.RESET).rate is None
    assert Derived(None, None, F.FIRST).rate is None
    assert derive(P, r(900, 91_000), C32, N).rate == 100.0  # average over the gap
    # stored in the database: the bit values are part of the schema
    assert {name: f.value for name, f in F.__members__.items()} == {
        "NONE": 0, "WRAP": 1, "REBOOT": 2, "RESET": 4, "OVER_CAPACITY": 8, "MISSING": 16,
        "FIRST": 32, "GAP": 64, "AMBIGUOUS": 128, "CLOCK": 256, "WIDTH": 512}
    assert max(F) < 2**15


@pytest.mark.parametrize("prev,cur,spec", [
    (r(0, 2**32), r(300, 1), C32), (r(0, 1), r(300, -1), C64), (r(0, 1), r(300, 2**64), C64),
], ids=["c32_too_big", "c64_negative_bigint_not_converted", "c64_too_big"])
def test_out_of_range_values_raise(prev, cur, spec):
    with pytest.raises(ValueError):
        derive(prev, cur, spec, N)
    with pytest.raises(ValueError):
        derive_row(prev.at, prev.uptime_cs, cur.at, cur.uptime_cs, [prev.value], [cur.value],
                   [spec], N)


@pytest.mark.parametrize("width,cap", [(16, None), (32, 0), (64, -5)])
def test_spec_validation(width, cap):
    with pytest.raises(ValueError):
        CounterSpec(width, cap)


def test_row_length_mismatch():
    with pytest.raises(ValueError):
        derive_row(T0, UP0, T0 + 300, UP0 + 30_000, [1, 2], [3], [C32], N)


# ---------------------------------------------------------------- properties

@st.composite
def monotone_series(draw):
    """A true count growing by < 2**width per poll, polled well inside the wrap time."""
    width = draw(st.sampled_from([32, 64]))
    mod = 1 << width
    nominal = draw(st.sampled_from([30, 60, 300]))
    dts = draw(st.lists(st.integers(1, 4 * nominal), min_size=1, max_size=25))
    cap = draw(st.none() | st.integers(1, (mod - 1) // max(dts)))  # cap*dt < 2**width
    per_s = cap if cap is not None else (COUNTER64_CEILING_PER_S if width == 64 else None)
    incs = [draw(st.integers(0, mod - 1 if per_s is None else min(mod - 1, per_s * dt)))
            for dt in dts]
    start = draw(st.integers(0, mod - 1) | st.integers(mod - 2**45, mod - 1))
    up0 = draw(st.integers(0, M32 - 1) | st.integers(M32 - 200_000, M32 - 1))
    return CounterSpec(width, cap), nominal, start, up0, dts, incs


@settings(max_examples=300, deadline=None)
@given(monotone_series())
def test_sum_of_deltas_is_true_total(series):
    spec, nominal, start, up0, dts, incs = series
    t, true, prev = 0, start, Reading(T0, up0, start % spec.modulus, 7)
    total = 0
    for dt, inc in zip(dts, incs):
        t += dt
        true += inc
        cur = Reading(T0 + t, (up0 + t * 100) % M32, true % spec.modulus, 7)
        got = derive(prev, cur, spec, nominal)
        assert got.delta == inc, got
        assert not got.flags & ~(F.WRAP | F.GAP)
        total += got.delta
        prev = cur
    assert total == sum(incs) == true - start


def _values(width):
    mod = 1 << width
    return st.none() | st.integers(0, mod - 1) | st.sampled_from([0, 1, mod - 2, mod - 1])


@st.composite
def rows(draw):
    n = draw(st.integers(0, 12))
    specs = [CounterSpec(draw(st.sampled_from([32, 64])),
                         draw(st.none() | st.sampled_from([1, 1_000, OC3, 1_250_000_000])
                              | st.integers(1, 2**40))) for _ in range(n)]
    prev_vals = [draw(_values(s.width)) for s in specs]
    cur_vals = []
    for s, pv in zip(specs, prev_vals):  # mostly a plausible step from prev, sometimes anything
        if pv is not None and draw(st.booleans()):
            cur_vals.append((pv + draw(st.integers(0, 10**9))) % s.modulus)
        else:
            cur_vals.append(draw(_values(s.width)))
    discs = draw(st.none() | st.just("lists"))
    pd = cd = None
    if discs:
        pd = [draw(st.none() | st.integers(0, 2)) for _ in specs]
        cd = [draw(st.none() | st.integers(0, 2)) for _ in specs]
    prev_at = draw(st.sampled_from([None, T0, T0, T0]))
    dt = draw(st.sampled_from([300.0, 300.0, -300.0, 0.0, 0.5, 60.0, 450.0, 451.0, 12_200.0, 1e6])
              | st.floats(-1e4, 1e7, allow_nan=False))
    pu = draw(st.none() | st.integers(0, M32 - 1))
    if pu is None or draw(st.booleans()):
        cu = draw(st.none() | st.integers(0, M32 - 1))
    else:  # near-consistent uptime, to exercise tolerance and TimeTicks wrap
        cu = (pu + round(dt * 100) + draw(st.integers(-1_000, 1_000))) % M32
    nominal = draw(st.sampled_from([30.0, 300.0]))
    return prev_at, pu, T0 + dt, cu, prev_vals, cur_vals, specs, nominal, pd, cd


@settings(max_examples=500, deadline=None)
@given(rows())
def test_derive_row_agrees_with_derive(row):
    prev_at, pu, cur_at, cu, pvals, cvals, specs, nominal, pd, cd = row
    deltas, flags = derive_row(prev_at, pu, cur_at, cu, pvals, cvals, specs, nominal, pd, cd)
    assert len(deltas) == len(flags) == len(specs)
    for i, spec in enumerate(specs):
        prev = None if prev_at is None else Reading(prev_at, pu, pvals[i],
                                                    None if pd is None else pd[i])
        cur = Reading(cur_at, cu, cvals[i], None if cd is None else cd[i])
        got = derive(prev, cur, spec, nominal)
        assert (deltas[i], flags[i]) == (got.delta, int(got.flags))
        assert type(flags[i]) is int
        # never a spike: a delta is a non-negative exact int below 2**width, and within
        # capacity unless flagged; withheld whenever an epoch or interval says so
        if got.delta is not None:
            assert type(got.delta) is int and 0 <= got.delta < spec.modulus
            assert got.interval_s > 0
            cap = spec.capacity_per_s
            if cap is not None and not got.flags & F.OVER_CAPACITY:
                assert got.delta <= cap * got.interval_s * OVER_TOLERANCE
            assert not got.flags & (F.REBOOT | F.RESET | F.MISSING | F.FIRST | F.AMBIGUOUS
                                    | F.CLOCK)


@given(st.integers(0, 2**64 - 1))
def test_u64_round_trip(v):
    i = to_i64(v)
    assert -2**63 <= i < 2**63 and to_u64(i) == v
    assert i.to_bytes(8, "big", signed=True) == v.to_bytes(8, "big")  # same bits as bigint
