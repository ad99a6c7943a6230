"""collector/core/rows.py: RowPlan.build (positions precomputed per layout) gives exactly what
build_row (a lookup per series) gives, for any readings, widths, capacities, reset series and
previous rows (hypothesis)."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from collector.core.counters import CounterSpec
from collector.core.poll import PollResult
from collector.core.readings import CounterReading
from collector.core.rows import PreviousRow, RowPlan, SeriesSlot, build_row

U32, U64 = 1 << 32, 1 << 64


@st.composite
def cases(draw):
    n_ports = draw(st.integers(1, 6))
    objects = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=4, unique=True))
    widths = {o: draw(st.sampled_from([32, 64])) for o in objects}
    keys = [(o, str(p)) for o in objects for p in range(1, n_ports + 1)]
    disc_keys = [("disc", str(p)) for p in range(1, n_ports + 1)] if draw(st.booleans()) else []
    # the walk order of the readings is any permutation of the layout order (sorted keys)
    order = draw(st.permutations(keys))
    disc_order = draw(st.permutations(disc_keys))
    slots_keys = sorted(keys) + sorted(disc_keys)
    sid = {k: 100 + i for i, k in enumerate(slots_keys)}
    slots = []
    for k in slots_keys:
        if k in disc_keys:
            slots.append(SeriesSlot(sid[k], k, None, None))
            continue
        cap = draw(st.one_of(st.none(), st.integers(1, 10**6)))
        reset = ("disc", k[1]) if disc_keys and draw(st.booleans()) else None
        # a reset series outside this layout (known to the catalog, not answered this poll)
        outside = draw(st.booleans()) and reset is None
        if outside:
            slots.append(SeriesSlot(sid[k], k, CounterSpec(widths[k[0]], cap), ("gone", k[1]), 9000 + int(k[1])))
        else:
            slots.append(SeriesSlot(sid[k], k, CounterSpec(widths[k[0]], cap), reset, sid[reset] if reset else None))

    def value(width):
        return draw(st.one_of(st.integers(0, 20), st.integers(0, (1 << width) - 1), st.just((1 << width) - 1)))

    readings = {k: CounterReading(value(widths[k[0]]), widths[k[0]]) for k in order}
    disc = {k: draw(st.integers(0, 3)) for k in disc_order}
    at = draw(st.floats(1.7e9, 1.7e9 + 10**6, allow_nan=False))
    result = PollResult(7, at, draw(st.one_of(st.none(), st.integers(0, U32 - 1))), readings, disc)
    prev = None
    if draw(st.booleans()):
        pvals = {}
        for s in slots:
            width = s.spec.width if s.spec else 32
            pvals[s.series_id] = draw(st.one_of(st.none(), st.integers(0, 20), st.integers(0, U64 - 1),
                                                st.integers(0, (1 << width) - 1)))
        for s in slots:
            if s.reset_series_id and s.reset_series_id not in pvals:
                pvals[s.reset_series_id] = draw(st.one_of(st.none(), st.integers(0, 3)))
        prev_at = at - draw(st.sampled_from([15.0, 14.2, 40.0, 0.0, -3.0, 20000.0]))
        prev_up = draw(st.one_of(st.none(), st.integers(0, U32 - 1)))
        prev = (pvals, prev_at, prev_up, draw(st.booleans()))
    return slots, result, prev


@settings(max_examples=400, deadline=None)
@given(cases())
def test_rowplan_build_equals_build_row(case):
    slots, result, prev = case
    plan = RowPlan(3, slots, tuple(result.readings), tuple(result.discontinuity))
    assert plan.matches(result)
    by_dict = aligned = None
    if prev is not None:
        pvals, prev_at, prev_up, same_layout = prev
        by_dict = PreviousRow(prev_at, prev_up, dict(pvals))
        if same_layout:   # the row of the same layout, by position (what previous_row returns)
            ids = [s.series_id for s in slots]
            extra = {k: v for k, v in pvals.items() if k not in ids}
            aligned = PreviousRow(prev_at, prev_up, None, 3, ids, [pvals[i] for i in ids])
            if extra:     # the layout holds no series outside it: the by-id row must not either
                by_dict = PreviousRow(prev_at, prev_up, {i: pvals[i] for i in ids})
        else:
            aligned = PreviousRow(prev_at, prev_up, None, 99, list(pvals), list(pvals.values()))
    expected = build_row(result, 3, slots, by_dict, 15.0)
    got = plan.build(result, aligned, 15.0)
    assert got == expected


def test_rowplan_rejects_other_keys():
    slots = [SeriesSlot(1, ("a", "1"), CounterSpec(32, None), None)]
    plan = RowPlan(1, slots, (("a", "1"),), ())
    other = PollResult(1, 1.0, None, {("a", "2"): CounterReading(1, 32)}, {})
    assert not plan.matches(other)
