"""What the archive and the inventory say about each object of a rule, as machine.Reading values.

Rates come from the archive in one statement per rule: windows up to RAW_MAX_MINUTES from raw
samples (every poll: the samples "every sample" means), longer ones from the 1-minute tier for
the minutes before its watermark (from the minute holding the window's start) plus raw samples
after it (the rollup suffices there: the same sums, and its min/max rates are the raw samples'
extremes). Only drawn samples count (the plots' definition, collector/archive/rollup.drawn_sql):
a gap, a reboot or an over-capacity reading is no rate. The value of a series in "% of capacity"
is its rate over Series.capacity_per_s (the plot's 100 %, collector/core/facts.capacity_per_s).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.db import connection, transaction

from collector.alerts import machine, scopes
from collector.alerts.models import Override, Rule, rate_unit
from collector.archive import settled_read, tier_read
from collector.archive.rollup import drawn_sql
from collector.archive.tiers import TIER, floor_time
from collector.core.facts import Flag, bits_per_unit, quantity
from collector.groups.resolve import MemberSeries
from collector.poller.models import SwitchHealth

# Rate windows read raw rows after now - RAW_MAX_MINUTES or the 1-minute watermark, both past settle.horizon.
RAW_MAX_MINUTES = 60
LATEST_LOOKBACK = timedelta(minutes=10)     # the latest sample older than this is no reading
DISCONTINUITY = int(Flag.REBOOT | Flag.RESET | Flag.WIDTH)


@dataclass
class Observed:
    target: scopes.Target
    reading: machine.Reading | None
    value: float | None = None
    threshold: float | None = None
    recovery: float | None = None
    detail: str = ""
    series_ids: list[int] = field(default_factory=list)
    unit: str = ""              # of value and threshold, for people: b/s, %, cells/s, s, failed checks, polls


def _raw_sql(window: bool) -> str:
    drawn = drawn_sql("u.d", "u.f", "s.interval_ms")
    rate = "u.d::float8 * 1000 / s.interval_ms"
    inw = f"{drawn} AND s.time > %(wlo)s"
    return f"""
SELECT u.sid, sum(u.d) FILTER (WHERE {inw})::float8, sum(s.interval_ms) FILTER (WHERE {inw})::float8,
       min({rate}) FILTER (WHERE {inw}), max({rate}) FILTER (WHERE {inw}),
       extract(epoch FROM min(s.time - s.interval_ms * interval '1 millisecond') FILTER (WHERE {inw})),
       max(s.interval_ms) FILTER (WHERE {drawn}) / 1000.0,
       (array_agg({rate} ORDER BY s.time DESC) FILTER (WHERE {drawn}))[1]
  FROM traffic_sample s
  JOIN traffic_layout l ON l.id = s.layout_id
 CROSS JOIN LATERAL unnest(l.series_ids, s.delta, s.flags) AS u(sid, d, f)
 WHERE s.switch_id = ANY(%(switches)s) AND s.time > %(lo)s AND s.time <= %(now)s AND u.sid = ANY(%(ids)s)
 GROUP BY u.sid"""


TIER_SQL = """
SELECT series_id, sum(sum_delta)::float8, sum(sum_interval_ms)::float8, min(min_rate), max(max_rate),
       extract(epoch FROM min(bucket))
  FROM {source} m
 WHERE series_id = ANY(%(ids)s) AND bucket >= date_trunc('minute', %(wlo)s::timestamptz) AND bucket < %(mark)s
   AND samples > flagged
 GROUP BY series_id"""


def _windows(members: list[MemberSeries], now: datetime, minutes: int) -> dict[int, tuple]:
    """series id -> (sum delta, sum ms, min rate, max rate, first start epoch, max interval s, latest rate)."""
    ids = [m.id for m in members]
    switches = sorted({m.switch_id for m in members})
    wlo = now - timedelta(minutes=minutes)
    mark = wlo
    tier: dict[int, tuple] = {}
    if minutes > RAW_MAX_MINUTES:
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute("SELECT done_until FROM traffic_rollup_watermark WHERE tier = '1m'")
            row = cur.fetchone()
            mark = max(wlo, min(row[0], now)) if row else wlo
            # a window reaches settled minutes when CELLAR_SETTLE_AFTER_HOURS is shorter than it
            source = tier_read.stage(cur, TIER["1m"], [(m.id, m.switch_id) for m in members],
                                     floor_time(wlo, 60), mark)          # from the minute TIER_SQL starts at
            cur.execute(TIER_SQL.format(source=source), {"ids": ids, "wlo": wlo, "mark": mark})
            tier = {r[0]: r[1:] for r in cur.fetchall()}
    params: dict[str, Any] = {"ids": ids, "switches": switches, "now": now, "wlo": mark,
              "lo": min(mark, now - LATEST_LOOKBACK)}
    with connection.cursor() as cur:
        cur.execute(_raw_sql(True), params)
        raw = {r[0]: list(r[1:]) for r in cur.fetchall()}
    for sid, t in tier.items():          # the tier's minutes before the watermark, then raw after it
        r = raw.setdefault(sid, [None] * 7)
        r[0] = (r[0] or 0) + (t[0] or 0)
        r[1] = (r[1] or 0) + (t[1] or 0)
        r[2] = min(x for x in (r[2], t[2]) if x is not None) if (r[2], t[2]) != (None, None) else None
        r[3] = max(x for x in (r[3], t[3]) if x is not None) if (r[3], t[3]) != (None, None) else None
        r[4] = t[4] if t[4] is not None else r[4]
    return {sid: tuple(v) for sid, v in raw.items()}


def _override_map(rule: Rule) -> dict[tuple[str, int], tuple[float, float | None]]:
    return {(o.object_kind, o.object_id): (o.threshold, o.recovery) for o in Override.objects.filter(rule=rule)}


def _label(m: MemberSeries) -> str:
    where = f"{m.switch} {m.port}".strip()
    if m.vci is not None:
        where += f" {m.vpi}/{m.vci}"
    elif m.vpi is not None:
        where += f" VP {m.vpi}"
    return f"{where} {m.direction} ({m.metric})".strip()


def rates(rule: Rule, now: datetime, limit: int) -> list[Observed]:
    members = scopes.series(rule, limit)
    if not members:
        return []
    windows = _windows(members, now, rule.window_minutes)
    overrides = _override_map(rule)
    above, every, pct, bps = rule.comparison == "above", rule.mode == "every", rule.unit == "pct", rule.unit == "bps"
    out = []
    for m in members:
        target = scopes.Target("series", m.id, _label(m), m.switch_id, m.port_id, m.vp_id, m.vc_id)
        threshold, recovery = rule.threshold, rule.recovery
        for key in (("series", m.id), ("vc", m.vc_id), ("vp", m.vp_id), ("port", m.port_id)):
            if key in overrides:
                threshold, recovery = overrides[key]
                break
        assert threshold is not None
        recovery = threshold if recovery is None else recovery
        obs = Observed(target, None, threshold=threshold, recovery=recovery, series_ids=[m.id],
                       unit=rate_unit(rule.unit, m.unit))
        out.append(obs)
        w = windows.get(m.id)
        scale = 1.0
        if pct:
            if not m.capacity_per_s:
                obs.detail = "capacity unknown: no % of capacity"
                continue
            scale = 100.0 / m.capacity_per_s
        elif bps:
            bits = bits_per_unit(m.unit)
            if bits is None:
                obs.detail = f"bits/s: the series counts {m.unit}, which have no size"
                continue
            scale = float(bits)
        if w is None or w[6] is None:
            obs.detail = "no usable sample in the last 10 minutes"
            continue
        sum_d, sum_ms, low, high, first, max_iv, latest = w
        latest *= scale
        if rule.window_minutes == 0:
            window = machine.Window(latest, latest, latest, latest, True)
        elif not sum_ms:
            window = machine.Window(latest, latest, latest, latest, False)
        else:
            # A window starts within one sample (or, read from the tier, one bucket) of its start.
            slack = max(float(max_iv or 0), 60.0 if rule.window_minutes > RAW_MAX_MINUTES else 1.0)
            complete = first is not None and first <= (now - timedelta(minutes=rule.window_minutes)).timestamp() + slack
            window = machine.Window(latest, sum_d * 1000 / sum_ms * scale, low * scale, high * scale, complete)
        obs.reading = machine.rate_reading(window, above=above, every=every, threshold=threshold, recovery=recovery)
        obs.value = window.average if rule.window_minutes else latest
        obs.detail = (f"{'average' if not every else 'samples'} over {rule.window_minutes} min: "
                      f"{quantity(window.average, obs.unit)}" + ("" if window.complete else " (window not yet full)")
                      if rule.window_minutes else f"latest {quantity(latest, obs.unit)}")
    return out


def statuses(rule: Rule, now: datetime, limit: int) -> list[Observed]:
    """Ports whose oper_status is not up while their admin status is not down; VPs and VCs whose status
    is not up. An empty status (never read) is no reading."""
    from collector.inventory.models import Port, VirtualChannel, VirtualPath

    targets = scopes.status_targets(rule, limit)
    by_kind: dict[str, list[int]] = {}
    for t in targets:
        by_kind.setdefault(t.kind, []).append(t.id)
    status: dict[tuple[str, int], tuple[str, str]] = {}
    for p in Port.objects.filter(pk__in=by_kind.get("port", [])).values("id", "oper_status", "admin_status"):
        status[("port", p["id"])] = (p["oper_status"], p["admin_status"])
    for kind, model in (("vp", VirtualPath), ("vc", VirtualChannel)):
        for o in model.objects.filter(pk__in=by_kind.get(kind, [])).values("id", "status"):
            status[(kind, o["id"])] = (o["status"], "")
    out = []
    for t in targets:
        oper, admin = status.get((t.kind, t.id), ("", ""))
        known = bool(oper) and admin.lower() != "down"
        down = oper.lower() != "up"
        out.append(Observed(t, machine.condition_reading(down if known else None),
                            detail=f"status {oper or 'unknown'}" + (f", admin {admin}" if admin else "")))
    return out


def not_polled(rule: Rule, now: datetime, limit: int) -> list[Observed]:
    """A switch whose last successful poll (or, never polled, its creation) is older than `count` of
    its poll intervals."""
    from collector.inventory.models import Switch

    targets = scopes.switch_targets(rule, limit)
    ids = [t.id for t in targets]
    health = {h.switch_id: h for h in SwitchHealth.objects.filter(switch_id__in=ids)}
    switches = {s["id"]: s for s in Switch.objects.filter(pk__in=ids).values("id", "poll_interval_s", "created_at")}
    out = []
    for t in targets:
        h, sw = health.get(t.id), switches[t.id]
        last = h.last_success_at if h else None
        limit_s = rule.count * sw["poll_interval_s"]
        # Never polled successfully: counted from the switch's creation (a new switch has its intervals too).
        age = (now - (last or sw["created_at"])).total_seconds()
        late = age > limit_s
        detail = (f"never polled successfully ({age:.0f} s since it was added)" if last is None
                  else f"last successful poll {age:.0f} s ago")
        if h and h.last_error:
            detail += f"; last error: {h.last_error[:120]}"
        out.append(Observed(t, machine.condition_reading(late), value=age, threshold=limit_s, detail=detail,
                            unit="s"))
    return out


def unreachable(rule: Rule, now: datetime, limit: int) -> list[Observed]:
    """A host whose last `count` checks all failed."""
    targets = scopes.host_targets(rule, limit)
    ids = [t.id for t in targets]
    with connection.cursor() as cur:
        cur.execute("""
SELECT host_id, count(*), count(*) FILTER (WHERE NOT reachable)
  FROM (SELECT host_id, reachable, row_number() OVER (PARTITION BY host_id ORDER BY time DESC) AS n
          FROM status_host_check WHERE host_id = ANY(%s) AND time > %s) c
 WHERE n <= %s GROUP BY host_id""", [ids, now - timedelta(days=1), rule.count])
        counts = {r[0]: (r[1], r[2]) for r in cur.fetchall()}
    out = []
    for t in targets:
        checks, failed = counts.get(t.id, (0, 0))
        holds = None if checks < rule.count and failed == checks else failed >= rule.count
        out.append(Observed(t, machine.condition_reading(holds), value=failed, threshold=rule.count,
                            detail=f"{failed} of the last {checks} checks failed", unit="failed checks"))
    return out


def discontinuities(rule: Rule, now: datetime, limit: int) -> list[Observed]:
    """A switch with a sample flagged REBOOT, RESET or WIDTH (a new counter epoch) in the window
    (at least the last poll: window 0 means the latest ten minutes)."""
    targets = scopes.switch_targets(rule, limit)
    lo = now - max(timedelta(minutes=rule.window_minutes), LATEST_LOOKBACK)
    with connection.cursor() as cur:
        cur.execute(f"""
SELECT s.switch_id, count(*) FILTER (WHERE EXISTS (SELECT 1 FROM unnest(s.flags) f WHERE f & {DISCONTINUITY} <> 0)),
       max(s.time)
  FROM traffic_sample s WHERE s.switch_id = ANY(%s) AND s.time > %s AND s.time <= %s GROUP BY s.switch_id""",
                    [[t.id for t in targets], lo, now])
        found = {r[0]: (r[1], r[2]) for r in cur.fetchall()}
        cur.execute("SELECT id, switch_id FROM traffic_series WHERE switch_id = ANY(%s)", [[t.id for t in targets]])
        owners = cur.fetchall()
    # A window of a day (rules.MAX_WINDOW_MINUTES) reaches settled days when CELLAR_SETTLE_AFTER_HOURS is shorter.
    for piece in settled_read.pieces_for(owners, lo, now):
        got = settled_read.read(piece.switch_id, piece.series_ids, lo, now)
        inside = got.time_us > settled_read.to_us(lo)
        if not inside.any():
            continue
        hit = np.zeros(len(got), bool)
        for c in got.columns.values():
            hit |= c.present & ((c.flags & DISCONTINUITY) != 0)
        n, last = found.get(piece.switch_id, (0, None))
        newest = settled_read.from_us(int(got.time_us[inside].max()))
        found[piece.switch_id] = (n + int((hit & inside).sum()), newest if last is None else max(last, newest))
    out = []
    for t in targets:
        n, last = found.get(t.id, (None, None))
        out.append(Observed(t, machine.condition_reading(None if n is None else n > 0), value=n, unit="polls",
                            detail="no sample in the window" if n is None else f"{n} polls with a new counter epoch "
                            "(reboot, reset or width change)"))
    return out


OBSERVERS = {"rate": rates, "status": statuses, "not_polled": not_polled, "unreachable": unreachable,
             "discontinuity": discontinuities}


def observe(rule: Rule, now: datetime, limit: int) -> list[Observed]:
    """Every object of the rule's scope with its reading (scopes.ScopeError when it cannot be read)."""
    return OBSERVERS[rule.kind](rule, now, limit)
