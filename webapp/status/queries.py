"""What the status pages read, in a fixed number of queries per page (never one per row).

Everything is answered from what the collector already stored:
* current rates: the latest `traffic_sample` row of each switch (one LATERAL query for all of
  them), each series read at its position in the row's layout; rate = delta / interval;
* counter values ("cells in/out"): the raw readings of that same row (Counter64 values come
  back from two's complement);
* totals since the archive began: the rollup tiers up to their watermarks (1 d, then 1 h,
  15 min, 1 min for the stretch each finer tier adds), then the raw deltas after the last
  watermark, counted as collector/archive/rollup.py counts them (not NULL, not OVER_CAPACITY,
  interval > 0, in the bucket of the sample's time); when no rollup has run yet, all raw
  deltas are summed, within a time budget;
* host history: `status_host_check` bucketed with time_bucket in one query.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import OperationalError, connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from collector.archive.models import PollLog, Series
from collector.archive.rollup import drawn_sql
from collector.archive.tiers import TIERS
from collector.core import names
from collector.core.facts import capacity_per_s, stored_to_u64
from collector.inventory.models import CrossConnect, Host, Link, Port, Switch, VirtualChannel, VirtualPath
from collector.poller.models import HostState
from webapp.status import pathmodel as pm
from webapp.status import pathtrace as pt

# --------------------------------------------------------------------------- latest samples


@dataclass
class Latest:
    """The latest stored poll of one switch, indexed by series id."""
    switch_id: int
    time: datetime
    interval_ms: int | None
    uptime_cs: int | None
    values: dict[int, tuple[int | None, int | None, int]]     # series id -> (raw, delta, flags)

    def rate(self, series_id: int | None) -> tuple[float | None, int]:
        """(units per second, flags) of a series at this poll; None when withheld or absent."""
        if series_id is None or series_id not in self.values:
            return None, 0
        _, delta, flags = self.values[series_id]
        if delta is None or not self.interval_ms:
            return None, flags
        return delta / (self.interval_ms / 1000), flags

    def raw(self, series_id: int | None) -> int | None:
        if series_id is None or series_id not in self.values:
            return None
        return stored_to_u64(self.values[series_id][0])


_LATEST_SQL = """
SELECT sw.id, s.time, s.interval_ms, s.uptime_cs, s.raw, s.delta, s.flags, l.series_ids
FROM unnest(%s::int[]) AS sw(id)
CROSS JOIN LATERAL (
    SELECT t.time, t.interval_ms, t.uptime_cs, t.raw, t.delta, t.flags, t.layout_id
    FROM traffic_sample t
    WHERE t.switch_id = sw.id {bound}
    ORDER BY t.time DESC LIMIT 1
) s
JOIN traffic_layout l ON l.id = s.layout_id
"""


def latest_samples(switch_ids) -> dict[int, Latest]:
    """The latest sample row of each switch: one query (a second one only for switches that have
    not stored a poll in the last two days)."""
    ids = sorted(set(switch_ids))
    if not ids:
        return {}
    out: dict[int, Latest] = {}
    with connection.cursor() as cur:
        cur.execute(_LATEST_SQL.format(bound="AND t.time > now() - interval '2 days'"), [ids])
        rows = cur.fetchall()
        missing = set(ids) - {r[0] for r in rows}
        if missing:
            cur.execute(_LATEST_SQL.format(bound=""), [sorted(missing)])
            rows += cur.fetchall()
    for sid, time, interval_ms, uptime_cs, raw, delta, flags, series_ids in rows:
        out[sid] = Latest(sid, time, interval_ms, uptime_cs,
                          {s: (r, d, f) for s, r, d, f in zip(series_ids, raw, delta, flags)})
    return out


def archive_starts(switch_ids) -> dict[int, datetime]:
    """The time of the first stored poll of each switch (one query)."""
    ids = sorted(set(switch_ids))
    if not ids:
        return {}
    with connection.cursor() as cur:
        cur.execute("""
            SELECT sw.id, s.time FROM unnest(%s::int[]) AS sw(id)
            CROSS JOIN LATERAL (SELECT t.time FROM traffic_sample t WHERE t.switch_id = sw.id
                                ORDER BY t.time ASC LIMIT 1) s""", [ids])
        return dict(cur.fetchall())


# --------------------------------------------------------------------------- totals


TOTALS_BUDGET_MS = 300      # the raw tail is summed only if it takes less (the page must answer in a second)


@dataclass
class Totals:
    """Sums of deltas per series since the archive began, or why they are not available."""
    by_series: dict[int, int]
    available: bool = True
    through: dict[str, datetime] = field(default_factory=dict)     # rollup tier -> done_until used
    raw_from: datetime | None = None                               # raw polls summed from here on
    why: str = ""

    def get(self, sid, default=None):
        return self.by_series.get(sid, default)

    def __contains__(self, sid) -> bool:
        return sid in self.by_series

    def __getitem__(self, sid) -> int:
        return self.by_series[sid]


def totals(switch_ids, series_ids) -> Totals:
    """Sum of the deltas of each series since the archive began, in three queries: the rollup
    tiers up to their watermarks (coarsest first, each finer tier adding the stretch after the
    previous one), then the raw polls after the last watermark. The statement is bounded by
    TOTALS_BUDGET_MS: when the rollups are far behind (or have never run) and the raw tail is
    too long to sum in time, the totals are reported unavailable rather than slowing the page."""
    sids = sorted(set(series_ids))
    swids = sorted(set(switch_ids))
    if not sids or not swids:
        return Totals({})
    parts, params = [], []
    with connection.cursor() as cur:
        cur.execute("SELECT current_setting('statement_timeout'), "
                    "(SELECT coalesce(json_object_agg(tier, done_until), '{}'::json) FROM traffic_rollup_watermark)")
        old_timeout, marks_json = cur.fetchone()
        if isinstance(marks_json, str):
            marks_json = json.loads(marks_json)
        marks = {k: datetime.fromisoformat(v) for k, v in (marks_json or {}).items()}
        lower = None
        used = {}
        for tier in reversed(TIERS):
            upper = marks.get(tier.name)
            if upper is None or (lower is not None and upper <= lower):
                continue
            cond = "bucket < %s" + ("" if lower is None else " AND bucket >= %s")
            parts.append(f"SELECT series_id, sum(sum_delta)::numeric FROM {tier.table} "
                         f"WHERE series_id = ANY(%s) AND {cond} GROUP BY 1")
            params += [sids, upper] + ([] if lower is None else [lower])
            used[tier.name] = upper
            lower = upper
        tail = ("SELECT u.sid, sum(u.d)::numeric FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id "
                "CROSS JOIN LATERAL unnest(l.series_ids, s.delta, s.flags) AS u(sid, d, f) "
                f"WHERE s.switch_id = ANY(%s) AND u.sid = ANY(%s) AND {drawn_sql('u.d', 'u.f', 's.interval_ms')}")
        params_tail = [swids, sids]
        if lower is not None:
            tail += " AND s.time >= %s"
            params_tail.append(lower)
        parts.append(tail + " GROUP BY 1")
        out: dict[int, int] = defaultdict(int)
        nested = connection.in_atomic_block     # a savepoint: the local setting outlives it, restore it
        try:
            with transaction.atomic():
                cur.execute("SELECT set_config('statement_timeout', %s, true)", [str(TOTALS_BUDGET_MS)])
                cur.execute(" UNION ALL ".join(parts), params + params_tail)
                rows = cur.fetchall()
                if nested:
                    cur.execute("SELECT set_config('statement_timeout', %s, true)", [old_timeout])
        except OperationalError as exc:
            if "statement timeout" not in str(exc) and "canceling statement" not in str(exc):
                raise
            why = ("the rollups have not run yet" if not used else
                   f"the rollups are behind (done until {min(used.values()):%Y-%m-%d %H:%M} UTC)")
            return Totals({}, False, used, lower, f"{why}, and summing the raw polls since then takes too long")
        for sid, total in rows:
            out[sid] += int(total or 0)
    return Totals(dict(out), True, used, lower)


# --------------------------------------------------------------------------- series catalogue


@dataclass
class SeriesIndex:
    """Counter series of some switches, by the entity they count."""
    port: dict[tuple[int, str, str], int] = field(default_factory=dict)        # (port, metric, dir) -> sid
    vp: dict[tuple[int, str, str], int] = field(default_factory=dict)          # (vp id, metric, dir)
    vc: dict[tuple[int, str, str], int] = field(default_factory=dict)          # (vc id, metric, dir)
    vp_by_port: dict[tuple[int, str, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    switch_of: dict[int, int] = field(default_factory=dict)


def series_index(switch_ids) -> SeriesIndex:
    idx = SeriesIndex()
    rows = Series.objects.filter(switch_id__in=list(switch_ids), kind="counter", gone_at__isnull=True).values_list(
        "id", "switch_id", "port_id", "vp_id", "vc_id", "metric", "direction")
    for sid, swid, port_id, vp_id, vc_id, metric, direction in rows:
        idx.switch_of[sid] = swid
        if vc_id:
            idx.vc[(vc_id, metric, direction)] = sid
        elif vp_id:
            idx.vp[(vp_id, metric, direction)] = sid
            if port_id:
                idx.vp_by_port[(port_id, metric, direction)].append(sid)
        elif port_id:
            idx.port[(port_id, metric, direction)] = sid
    return idx


# --------------------------------------------------------------------------- network (path tracing)


@dataclass
class NetworkData:
    net: pt.Network
    latest: dict[int, Latest]
    switches: dict[int, pm.SwitchInfo]
    idx: SeriesIndex | None = None


LINK_COLUMNS = ("id", "a_port_id", "b_port_id", "b_host_id", "source", "note", "state", "confidence", "conflict",
                "evidence")
MAX_REACH_ROUNDS = 64      # switches a trace can cross, at most, from where it starts (a bound, not a limit seen)


def _traceable(switch_field: str):
    """Whether the switch of a link end has cross-connects or VC/VP endpoints (a trace goes in)."""
    def has(model):
        return Exists(model.objects.filter(switch_id=OuterRef(switch_field)))
    return has(CrossConnect) | has(VirtualChannel) | has(VirtualPath)


def _links_of(port_q: Q) -> list[tuple]:
    """The links that touch the ports of port_q, with the switch of each end and whether a trace
    enters it (one query)."""
    ports = Port.objects.filter(port_q).values("id")
    return list(Link.objects.filter(Q(a_port_id__in=ports) | Q(b_port_id__in=ports)).annotate(
        a_traceable=_traceable("a_port__switch_id"), b_traceable=_traceable("b_port__switch_id")).values_list(
        *LINK_COLUMNS, "a_port__switch_id", "b_port__switch_id", "a_traceable", "b_traceable"))


def reach(switch_ids) -> tuple[set[int], list[tuple]]:
    """The switches a path trace starting on these switches can enter, and the links of their
    ports: it goes from switch to switch only over links, and only into switches with
    cross-connects or VC/VP endpoints (anywhere else it stops, at a port the links load). One
    query per switch-to-switch step of the widest trace, never one per row; a network of IP
    switches without cross-connects is one step."""
    scope = set(switch_ids)
    frontier = set(scope)
    links: dict[int, tuple] = {}
    for _ in range(MAX_REACH_ROUNDS):
        if not frontier:
            break
        new_links = _links_of(Q(switch_id__in=sorted(frontier)))
        links.update((row[0], row[:-2]) for row in new_links)
        frontier = {sw for row in new_links for sw, enters in ((row[-4], row[-2]), (row[-3], row[-1]))
                    if sw is not None and enters} - scope
        scope |= frontier
    return scope, list(links.values())


def load_network(rates: bool = True, rate_switch_ids=None, topology_only: bool = False,
                 around=None, port_q: Q | None = None) -> NetworkData:
    """The inventory as a pathtrace.Network, with the latest cell rate of every VC and VP
    endpoint: 9 queries (4 for the topology alone: switches, ports, hosts and links, enough for
    what each port connects to).
    around (switch ids): only the part traces starting there can reach (`reach`), not the whole
    inventory; with topology_only, the ports of these switches and the far ends of their links.
    port_q (with topology_only): the ports it selects and the far ends of their links.
    Every switch and host is loaded (names, port labels naming hosts): a row each, no per-port work."""
    sw_info = [pm.SwitchInfo(*row) for row in Switch.objects.values_list("id", "name", "address", "sys_name")]
    switches = {s.id: s for s in sw_info}
    scope = None
    if around is not None or port_q is not None:
        if port_q is not None:
            scope, link_rows = None, _links_of(port_q)
            wanted = port_q
        elif topology_only:
            scope = set(around)
            link_rows = _links_of(Q(switch_id__in=sorted(scope)))
            wanted = Q(switch_id__in=sorted(scope))
        else:
            scope, link_rows = reach(around)
            wanted = Q(switch_id__in=sorted(scope))
        ends = {pid for row in link_rows for pid in row[1:3] if pid is not None}
        port_rows = Port.objects.present().filter(wanted | Q(id__in=sorted(ends)))
    else:
        link_rows = list(Link.objects.values_list(*LINK_COLUMNS))
        port_rows = Port.objects.present()
    ports = [pm.PortInfo(*row) for row in port_rows.values_list(
        "id", "switch_id", "name", "key", "label", "port_type", "oper_status", "admin_status",
        "neighbor_address", "neighbor_ifname", "description", "is_atm")]
    hosts = [pm.HostInfo(*row) for row in Host.objects.values_list("id", "name", "address")]
    links = [pm.LinkInfo(*row[:9], tuple(f"{e.get('side')}: {e.get('says')}" for e in (row[9] or [])))
             for row in link_rows]
    if topology_only:
        return NetworkData(pt.Network(sw_info, ports, hosts, links, []), {}, switches)
    in_scope = {} if scope is None else {"switch_id__in": sorted(scope)}
    xcs = [pm.XcInfo(*row) for row in CrossConnect.objects.filter(**in_scope).values_list(
        "id", "switch_id", "kind", "in_port_id", "in_vpi", "in_vci", "out_port_id", "out_vpi", "out_vci",
        "name", "status", "up_since", "gone_at")]
    vc_rows = list(VirtualChannel.objects.present().filter(**in_scope).values_list(
        "id", "port_id", "vpi", "vci", "status", "alloc_bw", "up_since", "service_category"))
    vp_rows = list(VirtualPath.objects.present().filter(**in_scope).values_list(
        "id", "port_id", "vpi", "status", "alloc_bw", "up_since"))
    channels = [pm.EndpointInfo(*row) for row in vc_rows]
    paths = [pm.EndpointInfo(i, p, vpi, None, st, bw, up) for i, p, vpi, st, bw, up in vp_rows]
    net = pt.Network(sw_info, ports, hosts, links, xcs, channels, paths, {})
    data = NetworkData(net, {}, switches, None)
    if rates:
        rated = rate_switch_ids if rate_switch_ids is not None else (scope if scope is not None else switches)
        add_rates(data, list(rated), vc_rows, vp_rows)
    return data


# The first three characters of a port's label, normalised (names.normalised, up to the Unicode
# spaces Python strips): indexed by migration inventory 0007, which must spell it the same.
LABEL_PREFIX_SQL = "left(lower(ltrim(label, E' \\t\\n\\r\\f\\x0b.')), 3)"


def host_ports_q(hosts) -> Q:
    """The ports that may attach these hosts (pm.HostInfo): linked to one, or with a label that
    may name one (pathtrace infers the attachment). A label names a host only when one of the
    two, normalised (collector/core/names.py), starts with the other, so the label starts with
    the name's first three characters (indexed) or its address; a superset, judged exactly by pathtrace."""
    hosts = list(hosts)
    return Q(links_a__b_host_id__in=[h.id for h in hosts]) | labelled_for_hosts_q(hosts)


def labelled_for_hosts_q(hosts) -> Q:
    """The ports whose label may name one of these hosts (host_ports_q without the links)."""
    starts = {names.normalised(h.name)[:3] for h in hosts} - {""}
    short = sorted(p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                   for p in starts if len(p) < 3)
    addresses = sorted({h.address for h in hosts if h.address})
    # one branch per index (an OR of the two in one scan was planned as a scan of every label:
    # 0.12 s with 1,000 hosts' addresses at 100,000 ports)
    sql = (f"SELECT id FROM inventory_port WHERE label <> '' AND {LABEL_PREFIX_SQL} = ANY(%s) "
           "UNION SELECT id FROM inventory_port WHERE label <> '' AND label = ANY(%s)"
           + (" UNION SELECT id FROM inventory_port WHERE label <> '' "
              "AND lower(ltrim(label, E' \\t\\n\\r\\f\\x0b.')) LIKE ANY(%s)" if short else ""))
    params: list = [sorted(p for p in starts if len(p) == 3), addresses] + ([short] if short else [])
    return Q(id__in=RawSQL(sql, params))


def load_for_hosts(hosts, rates: bool = True) -> NetworkData:
    """The part of the network that traces from or into these hosts (pm.HostInfo) can reach: the
    ports that may attach them (host_ports_q), then what traces from their switches reach."""
    hosts = list(hosts)
    if not hosts:
        return load_network(rates=rates, around=[])
    topo = load_network(topology_only=True, port_q=host_ports_q(hosts)).net
    attached = {p.switch_id for h in hosts if h.id in topo.hosts for p, _ in topo.attachments_of(topo.hosts[h.id])}
    return load_network(rates=rates, around=attached)


def add_rates(data: NetworkData, switch_ids, vc_rows=None, vp_rows=None) -> None:
    """The latest cell rate of every VC and VP endpoint of these switches, into data.net.rates (and
    their latest samples and series into data.latest, data.idx): 3 queries (5 without the rows)."""
    ids = sorted(set(switch_ids))
    if vc_rows is None:
        vc_rows = list(VirtualChannel.objects.present().filter(switch_id__in=ids).values_list(
            "id", "port_id", "vpi", "vci"))
    if vp_rows is None:
        vp_rows = list(VirtualPath.objects.present().filter(switch_id__in=ids).values_list("id", "port_id", "vpi"))
    latest = latest_samples(ids)
    idx = series_index(ids)
    rate_map = data.net.rates
    for ep_id, port_id, vpi, vci, *_ in vc_rows:
        for side in ("in", "out"):
            r = _rate(latest, idx, idx.vc.get((ep_id, "cells", side)), side)
            if r:
                rate_map[(side, port_id, vpi, vci)] = r
    for ep_id, port_id, vpi, *_ in vp_rows:
        for side in ("in", "out"):
            r = _rate(latest, idx, idx.vp.get((ep_id, "cells", side)), side)
            if r:
                rate_map[(side, port_id, vpi, None)] = r
    data.latest.update(latest)
    if data.idx is None:
        data.idx = idx
    else:
        for name in ("port", "vp", "vc", "switch_of"):
            getattr(data.idx, name).update(getattr(idx, name))


def _rate(latest: dict[int, Latest], idx: SeriesIndex, sid: int | None, side: str) -> pm.Rate | None:
    if sid is None:
        return None
    row = latest.get(idx.switch_of.get(sid))
    if row is None or sid not in row.values:
        return None
    value, flags = row.rate(sid)
    return pm.Rate(value, row.time, flags, row.raw(sid), side)


# --------------------------------------------------------------------------- host history


@dataclass
class HistoryBucket:
    start: datetime
    checks: int = 0
    ok: int = 0
    rtt_avg: float | None = None
    rtt_max: float | None = None

    @property
    def state(self) -> str:
        if not self.checks:
            return "none"
        if self.ok == self.checks:
            return "up"
        return "down" if self.ok == 0 else "mixed"


def host_history(host_ids, hours: int = 24, buckets: int = 48) -> tuple[dict[int, list[HistoryBucket]], datetime, int]:
    """Reachability and delay of hosts over the last `hours`, in `buckets` equal buckets (one query)."""
    now = timezone.now()
    width = max(60, int(hours * 3600 / buckets))
    # Align the buckets on multiples of the width since the epoch, so reloads keep them stable.
    end_epoch = (int(now.timestamp()) // width + 1) * width
    start = datetime.fromtimestamp(end_epoch - width * buckets, tz=now.tzinfo)
    out = {hid: [HistoryBucket(start + timedelta(seconds=width * i)) for i in range(buckets)] for hid in host_ids}
    if not host_ids:
        return out, start, width
    with connection.cursor() as cur:
        cur.execute("""
            SELECT host_id, floor((extract(epoch FROM time) - %s) / %s)::int AS b, count(*),
                   count(*) FILTER (WHERE reachable), avg(rtt_ms), max(rtt_ms)
            FROM status_host_check WHERE host_id = ANY(%s) AND time >= %s
            GROUP BY 1, 2""", [start.timestamp(), width, list(host_ids), start])
        for hid, b, n, ok, avg, mx in cur.fetchall():
            if 0 <= b < buckets and hid in out:
                out[hid][b] = HistoryBucket(out[hid][b].start, n, ok, avg, mx)
    return out, start, width


# --------------------------------------------------------------------------- values not used


@dataclass
class ValueNotes:
    """The latest poll (of the last day) that read values by a rule or could not use some."""
    time: datetime
    not_used: dict[str, int]
    read_by_rule: dict[str, int]
    examples: list[dict]          # port (name), counter, index, reason, value


def value_notes(switch: Switch, within: timedelta = timedelta(days=1)) -> ValueNotes | None:
    """Two queries: the poll log row (through its (switch, time) key), the ports it names."""
    row = PollLog.objects.filter(switch_id=switch.id, time__gte=timezone.now() - within,
                                 notes__isnull=False).order_by("-time").values_list("time", "notes").first()
    if row is None:
        return None
    at, notes = row
    keys = {str(ex[1]).split(".")[0] for ex in notes.get("examples", [])}
    names = dict(Port.objects.filter(switch=switch, key__in=keys).values_list("key", "name"))
    examples = [{"port": names.get(str(index).split(".")[0], ""), "counter": obj, "index": index, "reason": reason,
                 "value": value} for obj, index, reason, value in notes.get("examples", [])]
    return ValueNotes(at, notes.get("not_used") or {}, notes.get("read_by_rule") or {}, examples)


def window_inputs(port_ids: set[int], hosts: list[pm.HostInfo]) -> tuple[dict[int, float], dict[str, float | None]]:
    """Line rates (cells/s) of the ports a path crosses, and the hosts' latest check RTTs (ms)."""
    cells = {pid: float(capacity_per_s("cells", speed, cap) or 0)
             for pid, speed, cap in Port.objects.filter(id__in=port_ids).values_list("id", "speed_bps",
                                                                                      "capacity_cells")}
    rtts = dict(HostState.objects.filter(host_id__in=[h.id for h in hosts]).values_list("host__name", "rtt_ms"))
    return {k: v for k, v in cells.items() if v}, rtts
