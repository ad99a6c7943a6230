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

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import Exists, OuterRef, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from collector.archive.models import PollLog, Series
from collector.core import names
from collector.core.facts import capacity_per_s
from collector.inventory.models import CrossConnect, Host, Link, Port, Switch, VirtualChannel, VirtualPath
from collector.poller.models import HostState
from collector.reader.latest import Latest, latest_samples
from webapp.status import pathmodel as pm
from webapp.status import pathtrace as pt

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
    # row[:9] is every field before `evidence` (mypy cannot count a slice of a row of unknown length).
    links = [pm.LinkInfo(*row[:9], tuple(f"{e.get('side')}: {e.get('says')}" for e in (row[9] or [])))  # type: ignore[call-arg]
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
    switch_id = idx.switch_of.get(sid)
    row = latest.get(switch_id) if switch_id is not None else None
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
    if notes is None:                   # excluded by the query (notes__isnull=False)
        return None
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
