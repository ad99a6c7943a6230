"""The inventory at size for figure 13, generated in SQL in a minute or two.

What is generated (full run; --smoke in brackets):
- 2,050 IP switches (`pg-ip-NNNN`, if-mib) of 48 ports [4] and 50 ATM switches (`pg-atm-NN`,
  fore) of 32 ports [2]: 100,000 ports [256], each with a receive and a transmit octets (cells on
  ATM) series; every ATM switch has 1,000 VCs (31 or 32 per port) [100 in all: 50,000 VCs], each
  with two cell series, and 500 VC cross-connects pairing them (25,000 PVCs) [50];
- 2,050 links between IP switches [4]: 50 distribution switches in a ring, every other IP switch
  cabled to one of them (the map's graph);
- 1,000 hosts [20], each attached to a port by a confirmed link, with its reachability checked
  every 5 minutes for a day (288,000 checks) [a day];
- switch health (polled a few seconds ago) for all, one layout per switch and its latest raw
  polls (the last 5 minutes, every 15 s) [2 min], a day of raw polls for the measured switches;
- rollups: the 1-day tier for a year for the series of the first 100 IP switches and of all
  ATM switches' ports [the first 2 IP switches, 30 days], the 1 h and 15 min tiers for the last
  day and the 1 min tier for the last hour, with the watermarks a rollup running behind leaves;
- the plot switch of figure 3 (benchmarks/plotdata.py: a year of all tiers, raw for two days) for
  the plots of 48 series.
Rows are made by copying a template row Django created (INSERT ... SELECT over generate_series),
so every column the models require has the value Django gives it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeVar

from benchmarks import plotdata
from benchmarks.core import Context

T = TypeVar("T")

IP_PORTS, ATM_PORTS, VCS_PER_ATM = 48, 32, 1000


@dataclass
class PagesData:
    big_ip: str            # a measured IP switch (with a year of rollups and a day of raw polls)
    big_atm: str           # a measured ATM switch (1,000 VCs)
    atm_port: str          # a port of big_atm with its VCs
    host: str
    plot_ids: list[int]    # 48 receive-octets series of the plot switch
    sizes: dict


def made(row: T | None, what: str) -> T:
    """A row the statements above just made (None only if they went wrong)."""
    if row is None:
        raise RuntimeError(f"no {what}: the data set was not made as planned")
    return row


def clone(cur, model, template_id: int, overrides: dict[str, str], source: str, params: list,
          suffix: str = "") -> int:
    """Insert one copy of the template row per row of `source` (a FROM item aliased g), with
    some columns computed from g; returns the number of rows."""
    table = model._meta.db_table
    cols = [f.column for f in model._meta.concrete_fields if not f.primary_key or f.column in overrides]
    exprs = [overrides.get(c, f"t.{c}") for c in cols]
    cur.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {', '.join(exprs)} FROM {table} t, {source} "
                f"WHERE t.{model._meta.pk.column} = %s {suffix}", [*params, template_id])
    return cur.rowcount


def build(ctx: Context) -> PagesData:
    from django.db import connection
    from django.utils import timezone

    from collector.archive.models import Series
    from collector.inventory.models import CrossConnect, Host, Link, Port, Switch, VirtualChannel

    t0 = time.monotonic()
    n_ip, n_atm = ctx.size(4, 2050), ctx.size(2, 50)
    vcs_per_atm = ctx.size(50, VCS_PER_ATM)
    n_hosts = ctx.size(20, 1000)
    rolled_ip = ctx.size(2, 100)
    days = ctx.size(30, 365)
    recent_polls = ctx.size(8, 20)
    plot = plotdata.ensure(ctx)
    now = timezone.now()
    with connection.cursor() as cur:
        # ---- switches: a template of each kind, then copies named by number
        ip = Switch.objects.create(name="pg-ip-tmpl", address="127.0.0.1", community="bench", profile="if-mib",
                                   detected_profile="if-mib", switch_type="Catalyst 9300", software_version="17.9",
                                   poll_interval_s=60, enabled=True, discovered_at=now, uptime_cs=10 ** 9,
                                   uptime_at=now)
        atm = Switch.objects.create(name="pg-atm-tmpl", address="127.0.0.2", community="bench", profile="fore",
                                    detected_profile="fore", switch_type="ASX-200BX", poll_interval_s=60,
                                    enabled=True, discovered_at=now, uptime_cs=10 ** 9, uptime_at=now)
        clone(cur, Switch, ip.id, {"name": "'pg-ip-' || lpad(g.i::text, 4, '0')",
                                   "address": "'10.' || (g.i / 250) || '.' || (g.i %% 250) || '.1'"},
              "generate_series(1, %s) g(i)", [n_ip])
        clone(cur, Switch, atm.id, {"name": "'pg-atm-' || lpad(g.i::text, 2, '0')",
                                    "address": "'10.200.' || g.i || '.1'"}, "generate_series(1, %s) g(i)", [n_atm])
        Switch.objects.filter(id__in=[ip.id, atm.id]).delete()
        switches = dict(Switch.objects.filter(name__startswith="pg-").values_list("name", "id"))
        ip_ids = [switches[f"pg-ip-{i:04d}"] for i in range(1, n_ip + 1)]
        atm_ids = [switches[f"pg-atm-{i:02d}"] for i in range(1, n_atm + 1)]
        # ---- ports
        sw0 = Switch.objects.get(id=ip_ids[0])
        tp = Port.objects.create(switch=sw0, key="0", if_index=0, name="tmpl", port_type="ethernet",
                                 speed_bps=1_000_000_000, oper_status="up", admin_status="up", status_since=now,
                                 last_seen=now)
        clone(cur, Port, tp.id, {
            "switch_id": "s.id", "key": "g.n::text", "if_index": "g.n", "name": "'Gi1/0/' || g.n",
            "label": "'uplink ' || s.name || ' ' || g.n",
            "oper_status": "CASE WHEN g.n %% 7 = 0 THEN 'down' ELSE 'up' END"},
            "unnest(%s::int[]) s0(id) JOIN inventory_switch s USING (id), generate_series(1, %s) g(n)",
            [ip_ids, IP_PORTS])
        clone(cur, Port, tp.id, {
            "switch_id": "s.id", "key": "g.n::text", "if_index": "NULL",
            "name": "chr(65 + (g.n - 1) / 8) || (1 + (g.n - 1) %% 8)",
            "port_type": "'OC3'", "is_atm": "true", "speed_bps": "155520000", "capacity_cells": "353207",
            "label": "'atm ' || s.name || ' ' || g.n"},
            "unnest(%s::int[]) s0(id) JOIN inventory_switch s USING (id), generate_series(1, %s) g(n)",
            [atm_ids, ATM_PORTS])
        tp.delete()
        # ---- VCs (vpi 0, vci 32..) and cross-connects (port n's VC k to port n + 16's VC k)
        ta = made(Port.objects.filter(switch_id=atm_ids[0]).order_by("id").first(), "ATM port")
        tvc = VirtualChannel.objects.create(switch_id=atm_ids[0], port=ta, vpi=9, vci=9, status="up",
                                            service_category="UBR", up_since=now, last_seen=now)
        clone(cur, VirtualChannel, tvc.id, {
            "switch_id": "p.switch_id", "port_id": "p.id", "vpi": "0", "vci": "32 + g.k"},
            "(SELECT * FROM inventory_port WHERE is_atm) p, generate_series(0, %s) g(k)",
            [vcs_per_atm // ATM_PORTS])
        tvc.delete()
        txc = CrossConnect.objects.create(switch_id=atm_ids[0], kind="vc", in_port=ta, in_vpi=9, in_vci=9,
                                          out_port=ta, out_vpi=9, out_vci=9, status="up", up_since=now, last_seen=now)
        clone(cur, CrossConnect, txc.id, {
            "switch_id": "x.switch_id", "in_port_id": "x.a_port", "in_vpi": "x.vpi", "in_vci": "x.vci",
            "out_port_id": "x.b_port", "out_vpi": "x.vpi", "out_vci": "x.vci", "name": "'pvc-' || x.id"},
            "(SELECT va.id, va.switch_id, va.port_id AS a_port, vb.port_id AS b_port, va.vpi, va.vci "
            " FROM inventory_virtualchannel va JOIN inventory_port pa ON pa.id = va.port_id "
            " JOIN inventory_port pb ON pb.switch_id = pa.switch_id AND pb.key = (pa.key::int + 16)::text "
            " JOIN inventory_virtualchannel vb ON vb.port_id = pb.id AND vb.vpi = va.vpi AND vb.vci = va.vci "
            " WHERE pa.key::int <= 16) x", [])
        txc.delete()
        # ---- hosts, attached to a port each (ATM ports first, then IP ports of distinct switches)
        th = Host.objects.create(name="tmpl.host", address="127.0.0.3")
        clone(cur, Host, th.id, {"name": "'host-' || lpad(g.i::text, 4, '0') || '.example'",
                                 "address": "'192.168.' || (g.i / 250) || '.' || (g.i %% 250 + 1)",
                                 "description": "'server ' || g.i"}, "generate_series(1, %s) g(i)", [n_hosts])
        th.delete()
        tmpl_link = Link.objects.create(a_port_id=ta.id, b_host_id=made(Host.objects.order_by("id").first(), "host").id)
        clone(cur, Link, tmpl_link.id, {"a_port_id": "p.id", "b_host_id": "h.id", "b_port_id": "NULL"},
              "(SELECT id, row_number() OVER (ORDER BY id) AS n FROM inventory_host) h "
              "JOIN (SELECT id, row_number() OVER (ORDER BY is_atm DESC, key::int %% 48 = 3 DESC, id) AS n "
              "      FROM inventory_port) p ON p.n = h.n", [], "ON CONFLICT DO NOTHING")
        tmpl_link.delete()
        # links between switches, for the map: the first 50 IP switches are distribution switches in
        # a ring (port 47 to the next one's port 46), every other IP switch's port 48 is cabled to a
        # distribution switch's port 1..40 (the ATM switches carry the hosts and are not linked):
        # 2,050 links [4], a third inferred with a confidence
        dist = min(len(ip_ids), 50) if not ctx.smoke else 2
        tl = Link.objects.create(a_port_id=ta.id, b_port_id=made(Port.objects.filter(switch_id=atm_ids[0]).order_by(
            "id").last(), "ATM port").id, source="manual", state="confirmed")
        clone(cur, Link, tl.id, {
            "a_port_id": "pa.id", "b_port_id": "pb.id",
            "source": "CASE WHEN g.n %% 3 = 0 THEN 'inferred' ELSE 'manual' END",
            "state": "CASE WHEN g.n %% 3 = 0 THEN 'inferred' ELSE 'confirmed' END",
            "confidence": "CASE WHEN g.n %% 3 = 0 THEN 0.8 END"},
            "(SELECT i AS n, s.id AS a_sw, CASE WHEN i <= %s THEN '47' ELSE '48' END AS a_key, "
            "        d.id AS b_sw, CASE WHEN i <= %s THEN '46' ELSE (1 + (i - %s - 1) / %s)::text END AS b_key "
            "   FROM unnest(%s::int[]) WITH ORDINALITY s(id, i) "
            "   JOIN unnest(%s::int[]) WITH ORDINALITY d(id, j) "
            "     ON d.j = CASE WHEN s.i <= %s THEN s.i %% %s + 1 ELSE 1 + (s.i - %s - 1) %% %s END) g "
            "JOIN inventory_port pa ON pa.switch_id = g.a_sw AND pa.key = g.a_key "
            "JOIN inventory_port pb ON pb.switch_id = g.b_sw AND pb.key = g.b_key",
            [dist, dist, dist, dist, ip_ids, ip_ids[:dist], dist, dist, dist, dist])
        tl.delete()
        cur.execute("INSERT INTO status_hoststate (host_id, reachable, rtt_ms, method, checked_at, last_seen_at, "
                    "error) "
                    "SELECT id, id % 50 <> 0, 0.4 + (id % 9) * 0.1, 'icmp', now(), now(), '' FROM inventory_host")
        cur.execute("INSERT INTO status_host_check (host_id, time, reachable, rtt_ms, method, error) "
                    "SELECT h.id, t, h.id % 50 <> 0 OR extract(hour FROM t)::int % 3 = 0, 0.5, 'icmp', '' "
                    "FROM inventory_host h, generate_series(now() - interval '1 day', now(), interval '5 min') t")
        cur.execute("INSERT INTO status_switchhealth (switch_id, last_poll_at, last_success_at, last_status, "
                    "last_duration_ms, last_varbinds, last_error, consecutive_failures, polls_ok, polls_failed) "
                    "SELECT id, now() - interval '7 s', now() - interval '7 s', "
                    "CASE WHEN id % 97 = 0 THEN 'timeout' ELSE 'ok' END, 300, 100, '', "
                    "CASE WHEN id % 97 = 0 THEN 3 ELSE 0 END, 1000, 0 FROM inventory_switch WHERE name LIKE 'pg-%%'")
        # ---- series: octets (IP) or cells (ATM) per port, cells per VC
        s0 = Series.objects.create(switch_id=ip_ids[0], object_name="tmpl", index="0", kind="counter",
                                   direction="in", metric="octets", unit="octets", width=64,
                                   capacity_per_s=125_000_000)
        for direction, ip_obj, atm_obj in (("in", "ifHCInOctets", "portReceivedCells"),
                                           ("out", "ifHCOutOctets", "portTransmittedCells")):
            clone(cur, Series, s0.id, {
                "switch_id": "p.switch_id", "port_id": "p.id", "direction": f"'{direction}'",
                "object_name": f"CASE WHEN p.is_atm THEN '{atm_obj}' ELSE '{ip_obj}' END", "index": "p.key",
                "metric": "CASE WHEN p.is_atm THEN 'cells' ELSE 'octets' END",
                "unit": "CASE WHEN p.is_atm THEN 'cells' ELSE 'octets' END",
                "width": "CASE WHEN p.is_atm THEN 32 ELSE 64 END",
                "capacity_per_s": "CASE WHEN p.is_atm THEN 353207 ELSE 125000000 END"},
                "inventory_port p JOIN inventory_switch sw ON sw.id = p.switch_id AND sw.name LIKE 'pg-%%'", [])
            clone(cur, Series, s0.id, {
                "switch_id": "v.switch_id", "port_id": "v.port_id", "vc_id": "v.id", "direction": f"'{direction}'",
                "object_name": "'chanCells'", "index": f"p.key || '.0.' || v.vci || '.{direction}'",
                "metric": "'cells'", "unit": "'cells'", "width": "32", "capacity_per_s": "353207"},
                "inventory_virtualchannel v JOIN inventory_port p ON p.id = v.port_id", [])
        s0.delete()
        # ---- layouts and the latest raw polls of every switch
        cur.execute("INSERT INTO traffic_layout (switch_id, series_ids, digest, created_at) "
                    "SELECT switch_id, array_agg(id ORDER BY id), md5(switch_id::text), now() FROM traffic_series "
                    "WHERE switch_id = ANY(%s) GROUP BY switch_id", [ip_ids + atm_ids])
        big_ip, big_atm = ip_ids[0], atm_ids[0]
        raw_sql = """
INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags)
SELECT date_trunc('second', now()) - k * interval '15 s' - (l.switch_id %% 15) * interval '1 s',
       1000000000 - k * 1500, l.switch_id, l.id, 15000,
       (SELECT array_agg(1000000000000::bigint - k::bigint * 1000000 + e * 997)
          FROM generate_series(1, cardinality(l.series_ids)) e),
       (SELECT array_agg((e * 7919 %% 1000003)::bigint) FROM generate_series(1, cardinality(l.series_ids)) e),
       array_fill(0::smallint, ARRAY[cardinality(l.series_ids)])
FROM traffic_layout l, generate_series(0, %s) k WHERE l.switch_id = ANY(%s)"""
        cur.execute(raw_sql, [recent_polls - 1, [s for s in ip_ids + atm_ids if s not in (big_ip, big_atm)]])
        cur.execute(raw_sql, [ctx.size(240, 5760) - 1, [big_ip, big_atm]])
        for sw in (big_ip, big_atm):
            cur.execute("INSERT INTO traffic_poll_log (switch_id, time, status, duration_ms, varbinds, samples, error) "
                        "SELECT %s, now() - k * interval '15 s', 'ok', 250, 100, 1, '' FROM generate_series(0, 99) k",
                        [sw])
        # ---- rollups for a subset, with the tiers as plotdata left its watermarks
        cur.execute("SELECT tier, done_until FROM traffic_rollup_watermark")
        wm = dict(cur.fetchall())
        rolled = ip_ids[:rolled_ip] + atm_ids
        cur.execute("SELECT array_agg(id) FROM traffic_series WHERE switch_id = ANY(%s) AND vc_id IS NULL", [rolled])
        sids = cur.fetchone()[0]
        tier_rows = {}
        for tier, width, lo in (("1d", 86400, wm["1d"] - timedelta(days=days)), ("1h", 3600, wm["1d"]),
                                ("15m", 900, wm["1h"]), ("1m", 60, wm["15m"])):
            hi = wm[tier]
            if hi <= lo:
                continue
            cur.execute(f"""
INSERT INTO traffic_rollup_{tier} (bucket, series_id, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged)
SELECT b, s, (2e5 * (1 + s %% 11) * {width})::bigint, {width * 1000}, 3e5 * (1 + s %% 11), 1e5, {max(1, width // 15)}, 0
FROM unnest(%s::int[]) s, generate_series(%s::timestamptz, %s::timestamptz - interval '{width} s',
                                          interval '{width} s') b""", [sids, lo, hi])
            tier_rows[tier] = cur.rowcount
        for table in ("inventory_switch", "inventory_port", "inventory_virtualchannel", "inventory_crossconnect",
                      "inventory_host", "inventory_link", "traffic_series", "traffic_layout", "traffic_sample",
                      "status_host_check", "status_hoststate", "status_switchhealth", "traffic_rollup_1d",
                      "traffic_rollup_1h", "traffic_rollup_15m", "traffic_rollup_1m", "traffic_poll_log"):
            cur.execute(f"ANALYZE {table}")
        counts = {}
        for table in ("inventory_switch", "inventory_port", "inventory_virtualchannel", "inventory_crossconnect",
                      "inventory_host", "inventory_link", "traffic_series", "traffic_sample", "status_host_check"):
            cur.execute(f"SELECT count(*) FROM {table}")
            counts[table.split("_", 1)[1]] = cur.fetchone()[0]
    atm_name = f"pg-atm-{1:02d}"
    host = Host.objects.order_by("name").values_list("name", flat=True).first()
    sizes = {**counts, "tier_rows": tier_rows, "rolled_switches": len(rolled), "generated_s":
             round(time.monotonic() - t0, 1)}
    ctx.log(f"  pages data: {sizes}")
    return PagesData(f"pg-ip-{1:04d}", atm_name, "A1", host or "", plot.in_ids, sizes)
