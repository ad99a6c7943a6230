"""A sample row from a poll: the derivation of deltas and flags against the previous stored row.

Pure. `build_row` looks every series up by id; `RowPlan` is the same computation with the
layout's positions precomputed (the poller's hot path, docs/benchmarks.md): a poll whose keys
come in the order of the poll the plan was made from is derived by array positions.
tests/collector/core/test_rows.py checks with hypothesis that both give the same rows.
"""
from __future__ import annotations

from dataclasses import dataclass

from collector.core import counters
from collector.core.counters import CounterSpec
from collector.core.facts import Flag
from collector.core.poll import PollResult
from collector.core.readings import SeriesKey


@dataclass(slots=True)
class PreviousRow:
    """The last stored sample row of a switch.

    Either `values` (series id -> raw value) or `series_ids` + `raw` (the row's arrays in the
    order of its layout `layout_id`); value_map() gives the mapping in both cases. A RowPlan of
    the same layout reads `raw` by position instead of looking every series up.
    """
    at: float
    uptime_cs: int | None
    values: dict[int, int | None] | None = None   # series id -> raw value (unsigned), None when unanswered
    layout_id: int | None = None
    series_ids: list[int] | None = None
    raw: list[int | None] | None = None           # unsigned, aligned with series_ids

    def value_map(self) -> dict[int, int | None]:
        if self.values is None:
            self.values = dict(zip(self.series_ids or (), self.raw or ()))
        return self.values


@dataclass(slots=True)
class SampleRow:
    switch_id: int
    at: float
    uptime_cs: int | None
    layout_id: int
    interval_ms: int | None
    raw: list[int | None]            # unsigned values; the writer stores them as signed bigint
    delta: list[int | None]
    flags: list[int]


@dataclass(frozen=True, slots=True)
class SeriesSlot:
    """How one layout position is derived."""
    series_id: int
    key: SeriesKey
    spec: CounterSpec | None         # None for a discontinuity-time series (stored, not derived)
    reset_key: SeriesKey | None      # the discontinuity series that tells this counter's resets
    reset_series_id: int | None = None


def build_row(result: PollResult, layout_id: int, slots: list[SeriesSlot],
              prev: PreviousRow | None, nominal_interval_s: float) -> SampleRow:
    """Pure: derive deltas and flags for every slot of the layout from the previous row."""
    n = len(slots)
    raw: list[int | None] = [None] * n
    prev_values: list[int | None] = [None] * n
    specs: list[CounterSpec] = []
    cur_disc: list[int | None] = [None] * n
    prev_disc: list[int | None] = [None] * n
    counter_pos: list[int] = []
    prev_values_by_id = prev.value_map() if prev else {}
    for i, slot in enumerate(slots):
        if slot.spec is None:
            raw[i] = result.discontinuity.get(slot.key)
            continue
        reading = result.readings.get(slot.key)
        if reading is not None:
            raw[i] = reading.value
        counter_pos.append(i)
        specs.append(slot.spec)
        pv = prev_values_by_id.get(slot.series_id)
        if pv is not None and pv < slot.spec.modulus:
            prev_values[i] = pv
        if slot.reset_key is not None:
            cur_disc[i] = result.discontinuity.get(slot.reset_key)
            reset_id = slot.reset_series_id
            prev_disc[i] = prev_values_by_id.get(reset_id) if reset_id is not None else None
    deltas_c, flags_c = counters.derive_row(
        prev.at if prev else None, prev.uptime_cs if prev else None,
        result.at, result.uptime_cs,
        [prev_values[i] for i in counter_pos], [raw[i] for i in counter_pos], specs,
        nominal_interval_s,
        prev_disc=[prev_disc[i] for i in counter_pos], cur_disc=[cur_disc[i] for i in counter_pos])
    delta: list[int | None] = [None] * n
    flags = [0] * n
    for j, i in enumerate(counter_pos):
        delta[i] = deltas_c[j]
        flags[i] = flags_c[j]
    for i, slot in enumerate(slots):
        if slot.spec is None and raw[i] is None:
            flags[i] = int(Flag.MISSING)
    interval_ms = round((result.at - prev.at) * 1000) if prev else None
    return SampleRow(result.switch_id, result.at, result.uptime_cs, layout_id,
                     interval_ms, raw, delta, flags)


class RowPlan:
    """build_row for one layout, precomputed: a poll whose keys come in the same order as those
    of the poll the plan was made from is derived by array positions, without a dict lookup
    per series. Same results as build_row (tests/collector/core/test_rows.py checks it).

    `slots` must be the layout's slots in order; `reading_keys` / `disc_keys` the keys of the
    PollResult.readings / .discontinuity of the poll that defined the layout, in their order;
    every slot's key must be among them (resolve_slots makes slots from exactly those keys).
    """

    __slots__ = ("layout_id", "slots", "series_ids", "reading_keys", "disc_keys", "counter_pos", "reading_at",
                 "disc_pos", "disc_at", "specs", "moduli", "reset_cur", "reset_pos", "reset_ids", "has_reset",
                 "reset_outside", "n")

    def __init__(self, layout_id: int, slots: list[SeriesSlot], reading_keys: tuple, disc_keys: tuple):
        self.layout_id = layout_id
        self.slots = slots
        self.n = len(slots)
        self.series_ids = [s.series_id for s in slots]
        self.reading_keys = reading_keys
        self.disc_keys = disc_keys
        r_index = {k: i for i, k in enumerate(reading_keys)}
        d_index = {k: i for i, k in enumerate(disc_keys)}
        pos_of = {sid: i for i, sid in enumerate(self.series_ids)}
        self.counter_pos: list[int] = []     # layout positions of the counters
        self.reading_at: list[int] = []      # their index in the readings (walk) order
        self.disc_pos: list[int] = []        # layout positions of the discontinuity series
        self.disc_at: list[int] = []         # their index in the discontinuity order
        self.specs: list[CounterSpec] = []
        self.moduli: list[int] = []
        self.reset_cur: list[int | None] = []   # per counter: index of its reset key in the discontinuity order
        self.reset_ids: list[int | None] = []   # per counter: series id of its reset series (when it has a key)
        self.reset_pos: list[int | None] = []   # per counter: layout position of that series
        for i, slot in enumerate(slots):
            if slot.spec is None:
                self.disc_pos.append(i)
                self.disc_at.append(d_index[slot.key])
                continue
            self.counter_pos.append(i)
            self.reading_at.append(r_index[slot.key])
            self.specs.append(slot.spec)
            self.moduli.append(slot.spec.modulus)
            has_key = slot.reset_key is not None
            self.reset_cur.append(d_index.get(slot.reset_key) if has_key else None)
            sid = slot.reset_series_id if has_key else None
            self.reset_ids.append(sid)
            self.reset_pos.append(pos_of.get(sid) if sid is not None else None)
        self.has_reset = any(sid is not None for sid in self.reset_ids)
        self.reset_outside = any(sid is not None and pos is None for sid, pos in zip(self.reset_ids, self.reset_pos))

    def matches(self, result: PollResult) -> bool:
        """True when result's keys are those of the plan, in the same order."""
        return (len(result.readings) == len(self.reading_keys) and len(result.discontinuity) == len(self.disc_keys)
                and tuple(result.readings) == self.reading_keys and tuple(result.discontinuity) == self.disc_keys)

    def build(self, result: PollResult, prev: PreviousRow | None, nominal_interval_s: float) -> SampleRow:
        """build_row(result, layout_id, slots, prev, nominal_interval_s) for a result that matches()."""
        n = self.n
        readings = list(result.readings.values())
        cur_c: list[int | None] = [readings[k].value for k in self.reading_at]
        disc_vals = list(result.discontinuity.values())
        nc = len(cur_c)
        cur_disc: list[int | None] | None = None
        prev_disc: list[int | None] | None = None
        if prev is None:
            prev_c: list[int | None] = [None] * nc
            if self.has_reset:
                cur_disc = [None if k is None else disc_vals[k] for k in self.reset_cur]
                prev_disc = [None] * nc
        else:
            if prev.layout_id == self.layout_id and prev.raw is not None and len(prev.raw) == n:
                prev_row = prev.raw           # same layout: the same series at the same positions
            else:
                by_id = prev.value_map()
                prev_row = [by_id.get(sid) for sid in self.series_ids]
            prev_c = [pv if pv is not None and pv < mod else None
                      for pv, mod in zip([prev_row[i] for i in self.counter_pos], self.moduli)]
            if self.has_reset:
                cur_disc = [None if k is None else disc_vals[k] for k in self.reset_cur]
                prev_disc = [None if p is None else prev_row[p] for p in self.reset_pos]
                if self.reset_outside:       # a reset series this layout does not hold: by id
                    by_id = prev.value_map()
                    for j, (sid, p) in enumerate(zip(self.reset_ids, self.reset_pos)):
                        if sid is not None and p is None:
                            prev_disc[j] = by_id.get(sid)
        deltas_c, flags_c = counters.derive_row(
            prev.at if prev else None, prev.uptime_cs if prev else None, result.at, result.uptime_cs,
            prev_c, cur_c, self.specs, nominal_interval_s, prev_disc=prev_disc, cur_disc=cur_disc)
        raw: list[int | None]
        delta: list[int | None]
        flags: list[int]
        if not self.disc_pos and nc == n:      # counters only, in layout order
            raw, delta, flags = cur_c, deltas_c, flags_c
        else:
            raw = [None] * n
            delta = [None] * n
            flags = [0] * n
            for j, i in enumerate(self.counter_pos):
                raw[i] = cur_c[j]
                delta[i] = deltas_c[j]
                flags[i] = flags_c[j]
            missing = int(Flag.MISSING)
            for i, k in zip(self.disc_pos, self.disc_at):
                v = disc_vals[k]
                raw[i] = v
                if v is None:
                    flags[i] = missing
        interval_ms = round((result.at - prev.at) * 1000) if prev else None
        return SampleRow(result.switch_id, result.at, result.uptime_cs, self.layout_id,
                         interval_ms, raw, delta, flags)
