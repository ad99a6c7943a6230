"""Thirty synthetic days of an IP switch's polls, through the archive's own derivation and writer:
the known truth the bill tests compare against.

Three 1 Gb/s ports (a 32-bit agent on port 1, whose in counter wraps every ~2 minutes; 64-bit
counters on ports 2 and 3), polled every 15 s at 7.3 s past the quarter minute with ±0.25 s of
jitter, so polls straddle every 5-minute boundary. Rates (bytes/s) follow a daily swing with a
smooth ripple, constant within each second (the truth: per-second volumes, cumulated). Events:
the agent reboots (uptime and counters from 0), port 3 is down for two and a half days (its
counters stand still), and the switch does not answer for 20 minutes (no rows: the next poll's
deltas are GAP averages, port 1's AMBIGUOUS: 20 minutes may hold several wraps of a 32-bit
counter at line rate, so it is withheld). Every poll becomes a PollResult and goes through
ingest's series/layout resolution and collector/core's derivation (RowPlan.build: wraps,
reboots, gaps, flags) and the writer's batch COPY, as a poller's would.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from collector.archive import ingest, writer
from collector.core.poll import PollResult
from collector.core.readings import CounterReading
from collector.core.rows import PreviousRow
from collector.inventory.models import Port, Switch

STEP = 15.0
PHASE = 7.3
JITTER = 0.25
# port key -> (name, counter width, in bytes/s, out bytes/s) at the daily peak's base
PORTS = {"1": ("Gi0/1", 32, 40_000_000, 12_000_000), "2": ("Gi0/2", 64, 5_000_000, 30_000_000),
         "3": ("Gi0/3", 64, 8_000_000, 2_000_000)}
OBJECTS = {"in": "ifHCInOctets", "out": "ifHCOutOctets"}


@dataclass
class Archive:
    switch: Switch
    series: dict[tuple[str, str], int]        # (port key, direction) -> series id
    t0: float                                 # epoch second of index 0 of the truth arrays
    per_second: dict[tuple[str, str], np.ndarray]   # true bytes in each second
    polls: np.ndarray                         # poll times (epoch s) stored
    reboot: tuple[float, float]               # last poll before, first poll after the reboot
    outage: tuple[float, float]               # last poll before, first poll after the silence
    port_down: tuple[float, float]

    def ids(self) -> list[int]:
        return [self.series[k] for k in sorted(self.series)]


def _rates(rng, n: int, t0: float, base: float) -> np.ndarray:
    """Bytes in each second: a daily swing and a ripple linear between random knots every 10 min."""
    t = t0 + np.arange(n) + 0.5
    swing = 0.55 + 0.4 * np.sin(2 * np.pi * (t % 86400) / 86400 - np.pi / 2 - np.pi / 3)
    knots = rng.uniform(-1, 1, n // 600 + 2)
    ripple = np.interp(np.arange(n) / 600.0, np.arange(len(knots)), knots)
    return base * swing * (1 + 0.08 * ripple)


def build(name: str, start: datetime, end: datetime, seed: int = 15, time_zone: str = "") -> Archive:
    """Polls from an hour before `start` to an hour after `end`, written to the archive."""
    rng = np.random.default_rng(seed)
    sw = Switch.objects.create(name=name, address="127.0.0.1", community="public", profile="if-mib",
                               detected_profile="if-mib", poll_interval_s=int(STEP), time_zone=time_zone)
    for key, (pname, *_rest) in PORTS.items():
        Port.objects.create(switch=sw, key=key, if_index=int(key), name=pname, is_atm=False, port_type="ethernet",
                            speed_bps=1_000_000_000, oper_status="up")
    t0 = float(int(start.timestamp()) - 3600)
    t1 = end.timestamp() + 3600
    n = int(t1 - t0) + 2
    span = end.timestamp() - start.timestamp()
    port_down = (start.timestamp() + 19.5 * 86400, start.timestamp() + 22 * 86400)
    reboot_at = start.timestamp() + 11 * 86400 + 10 * 3600 + 3.0
    silence = (start.timestamp() + min(24, span / 86400 - 2) * 86400 + 14 * 3600 + 5 * 60, None)
    silence = (silence[0], silence[0] + 1200)
    per_second: dict[tuple[str, str], np.ndarray] = {}
    for key, (_, _, rin, rout) in PORTS.items():
        for direction, base in (("in", rin), ("out", rout)):
            v = _rates(rng, n, t0, base)
            if key == "3":
                a, b = int(port_down[0] - t0), int(port_down[1] - t0)
                v[a:b] = 0.0
            per_second[(key, direction)] = v
    cum = {k: np.concatenate(([0.0], np.cumsum(v))) for k, v in per_second.items()}
    polls = t0 + PHASE + STEP * np.arange(int((t1 - t0 - PHASE) // STEP) + 1) + rng.uniform(-JITTER, JITTER)
    polls = polls[(polls < silence[0]) | (polls >= silence[1])]
    boot0 = t0 - 30 * 86400
    start_offset = {k: (2**32 - 3_000_000_000 if PORTS[k[0]][1] == 32 else 10**12) for k in per_second}
    # Each counter's value at every poll (vectorized): the agent's count since its boot, wrapped.
    seconds = np.arange(n + 1, dtype=np.float64)
    rebooted = polls >= reboot_at
    values: dict[tuple[str, str], list[int]] = {}
    for k, c in cum.items():
        total = np.interp(polls - t0, seconds, c)
        since = total - np.interp(reboot_at - t0, seconds, c)
        width = PORTS[k[0]][1]
        raw = np.where(rebooted, np.floor(since), np.floor(total) + start_offset[k])
        values[k] = [int(v) % (1 << width) for v in raw.tolist()]
    uptimes = np.round((polls - np.where(rebooted, reboot_at, boot0)) * 100).astype(np.int64).tolist()
    results = []
    for i, at in enumerate(polls.tolist()):
        readings = {(OBJECTS[d], key): CounterReading(values[(key, d)][i], PORTS[key][1])
                    for key in PORTS for d in ("in", "out")}
        results.append(PollResult(sw.id, at, uptimes[i], readings, {}))
    plan = ingest.resolve_plan(sw, "if-mib", results[0])
    prev = None
    batch = []
    for r in results:
        row = plan.build(r, prev, STEP)
        prev = PreviousRow(row.at, row.uptime_cs, None, row.layout_id, plan.series_ids, row.raw)
        batch.append(row)
        if len(batch) >= 20_000:
            writer.write_samples(batch)
            batch = []
    writer.write_samples(batch)
    ingest.forget(sw.id)
    from collector.archive.models import Series

    series = {(s.index, s.direction): s.id for s in Series.objects.filter(switch=sw, kind="counter")}
    before = polls[polls < reboot_at][-1]
    after = polls[polls >= reboot_at][0]
    gap_before = polls[polls < silence[0]][-1]
    gap_after = polls[polls >= silence[1]][0]
    return Archive(sw, series, t0, per_second, polls, (float(before), float(after)),
                   (float(gap_before), float(gap_after)), port_down)


def truth_bins(a: Archive, start: datetime, end: datetime, width: int, keys: list[tuple[str, str]],
               ) -> np.ndarray:
    """Bytes per sample interval of [start, end) summed over `keys`, by the bill's stated rule
    applied to the TRUE per-second volumes: the interval withheld by the reboot counts nothing,
    port 1's silence is withheld (ambiguous), the other ports' silence is spread evenly (GAP)."""
    lo, hi = int(start.timestamp() - a.t0), int(end.timestamp() - a.t0)
    total = np.zeros(hi - lo)
    for key in keys:
        v = a.per_second[key].copy()
        r0, r1 = int(a.reboot[0] - a.t0), int(a.reboot[1] - a.t0)
        v[r0:r1] = 0.0
        g0, g1 = int(a.outage[0] - a.t0), int(a.outage[1] - a.t0)
        v[g0:g1] = 0.0 if key[0] == "1" else v[g0:g1].mean()
        total += v[lo:hi]
    return total.reshape(-1, width).sum(axis=1)


def truth_volume(a: Archive, start: datetime, end: datetime, keys: list[tuple[str, str]]) -> float:
    return float(truth_bins(a, start, end, 60, keys).sum())


def period_of_30_days(now: datetime, zone: str) -> tuple[datetime, datetime]:
    """The latest billing period (billing day 1, in `zone`) of exactly 30 days that ended a day ago."""
    from collector.billing import periods

    tz = periods.zone(zone)
    start, end = periods.containing(now - timedelta(days=1), 1, tz)
    while end > now - timedelta(days=1) or end - start != timedelta(days=30):
        start, end = periods.containing(start - timedelta(seconds=1), 1, tz)
    return start, end
