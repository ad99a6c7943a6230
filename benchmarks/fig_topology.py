"""Figure 10: the network map and the VCC path page for 200 switches and 1,000 links, server time.

Data (--smoke: 6 switches, 30 links): every switch has 10 trunk ports, 10 host ports and 2 hosts;
switch i's trunk port j (j < 5) is cabled to switch (i + OFFSETS[j]) mod n's trunk port j + 5, so
5 x n links (1,000 for 200), inferred (four in five, with their evidence) or confirmed; 20 VC
cross-connects per switch (host port to trunk and back) and one PVC from a host of switch 0 over
five switches to a host of switch 5; a cells series in and out of every port and of every VC's
input endpoint, with two stored polls per switch; every node's map position stored (the layout of
a map someone arranged; the first visit's layout is timed once, in the notes).
Cellar: the whole request through Django's middleware (login, CSP, statement budget), view and
rendering: GET /map/api/graph (the map's data: every node, link and utilisation) and GET
/path/?src=&dst= (the path page: trace, window advice, per-hop accounting), wall.
References, on the same connection: for the map, a bare SELECT of the same link rows with their two
ports, and of the latest sample row of every switch; for the path page, a bare SELECT of every
cross-connect, port and link (what the tracer reads), wall.
Goal: under 300 ms of server time each.
"""
from __future__ import annotations

import statistics
import time
from datetime import timedelta

from benchmarks import db
from benchmarks.core import Context, Measure

GOAL_S = 0.3
OFFSETS = (1, 7, 23, 61, 97)
EVIDENCE = [{"kind": "lldp", "side": "sw-a", "says": "LLDP: neighbour sw-b (chassis 00:1b:2c:00:00:01) port xe-0/0/1",
             "weight": 0.8}, {"kind": "xc-continuity", "side": "sw-a", "says": "cross-connect continuity: 4 VC(s)",
                              "weight": 0.7}]


def build(ctx: Context) -> dict:
    from django.db import connection
    from django.utils import timezone

    from collector.archive.models import Layout, Series
    from collector.inventory.models import (
        CrossConnect,
        Host,
        Link,
        MapPosition,
        Port,
        Switch,
        VirtualChannel,
    )

    n = ctx.size(6, 200)
    offsets = OFFSETS if n > max(OFFSETS) else tuple(o % n or 1 for o in (1, 2, 3, 4, 5))
    t0 = time.monotonic()
    Switch.objects.bulk_create([Switch(name=f"map-{i:03d}", address=f"127.1.{i // 250}.{i % 250 + 1}",
                                       community="bench", profile="fore-asx", detected_profile="fore-asx",
                                       switch_type="ASX-200BX", poll_interval_s=15, enabled=False) for i in range(n)])
    switches = list(Switch.objects.filter(name__startswith="map-").order_by("name"))
    Port.objects.bulk_create([Port(switch=sw, key=str(k), name=f"{'AB'[k // 10]}{k % 10 + 1}",
                                   agent_name=f"{'AB'[k // 10]}{k % 10 + 1}", port_type="OC3", is_atm=True,
                                   oper_status="up", speed_bps=155_520_000, capacity_cells=353_207)
                              for sw in switches for k in range(20)], batch_size=5000)
    ports = {(p.switch_id, int(p.key)): p for p in Port.objects.filter(switch__in=switches)}
    hosts = Host.objects.bulk_create([Host(name=f"h{i:03d}-{j}", address=f"127.2.{i // 250}.{i % 250 + j}")
                                      for i in range(n) for j in range(2)])
    links = []
    for i, sw in enumerate(switches):
        for j, off in enumerate(offsets):
            far = switches[(i + off) % n]
            links.append(Link(a_port=ports[(sw.id, j)], b_port=ports[(far.id, j + 5)], source="inferred",
                              state="inferred" if (i + j) % 5 else "confirmed", confidence=0.96, evidence=EVIDENCE))
        for j in range(2):
            links.append(Link(a_port=ports[(sw.id, 10 + j)], b_host=hosts[2 * i + j]))
    Link.objects.bulk_create(links, batch_size=5000)
    xcs = []
    for sw in switches:
        for v in range(10):                       # host port 10 + v % 10 <-> trunk port v % 10, both ways
            hp, tp = ports[(sw.id, 10 + v)], ports[(sw.id, v % 10)]
            xcs.append(CrossConnect(switch=sw, kind="vc", in_port=hp, in_vpi=0, in_vci=100 + v, out_port=tp,
                                    out_vpi=0, out_vci=100 + v, status="up"))
            xcs.append(CrossConnect(switch=sw, kind="vc", in_port=tp, in_vpi=0, in_vci=300 + v, out_port=hp,
                                    out_vpi=0, out_vci=300 + v, status="up"))
    for i in range(min(6, n)):                     # the PVC h000-0 -> ... -> h005-0, over offset-1 trunks
        sw = switches[i]
        inp = ports[(sw.id, 10)] if i == 0 else ports[(sw.id, 5)]
        out = ports[(sw.id, 10)] if i == min(6, n) - 1 else ports[(sw.id, 0)]
        xcs.append(CrossConnect(switch=sw, kind="vc", in_port=inp, in_vpi=0, in_vci=500, out_port=out, out_vpi=0,
                                out_vci=500, status="up", name="bench pvc"))
    CrossConnect.objects.bulk_create(xcs, batch_size=5000)
    # Every cross-connect above is a VC's: each has its VCIs.
    VirtualChannel.objects.bulk_create([VirtualChannel(switch_id=x.switch_id, port_id=x.in_port_id, vpi=x.in_vpi,
                                                       vci=x.in_vci, status="up") for x in xcs if x.in_vci is not None],
                                       batch_size=5000, ignore_conflicts=True)
    vcs = {(v.port_id, v.vpi, v.vci): v for v in VirtualChannel.objects.filter(switch__in=switches)}
    series = []
    for p in ports.values():
        for d, obj in (("in", "portReceivedCells"), ("out", "portTransmittedCells")):
            series.append(Series(switch_id=p.switch_id, object_name=obj, index=p.key, kind="counter", port=p,
                                 direction=d, metric="cells", unit="cells", capacity_per_s=353_207))
    for (port_id, vpi, vci), v in vcs.items():
        series.append(Series(switch_id=v.switch_id, object_name="chanCells", index=f"{port_id}.{vpi}.{vci}",
                             kind="counter", port_id=port_id, vc=v, direction="in", metric="cells", unit="cells"))
    Series.objects.bulk_create(series, batch_size=5000)
    now = timezone.now()
    with connection.cursor() as cur:
        for sw in switches:
            ids = list(Series.objects.filter(switch=sw).order_by("id").values_list("id", flat=True))
            layout = Layout.objects.create(switch=sw, series_ids=ids, digest=f"bench-map-{sw.id}")
            for k, t in enumerate((now - timedelta(seconds=20), now - timedelta(seconds=5))):
                cur.execute("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, "
                            "delta, flags) VALUES (%s, 100000, %s, %s, 15000, %s, %s, %s)",
                            [t, sw.id, layout.id, [k * 1000 + i for i in range(len(ids))],
                             [15 * (1000 + 37 * (i % 97)) for i in range(len(ids))], [0] * len(ids)])
        cur.execute("ANALYZE")
    ctx.cache["map-first-visit"] = first_visit()
    MapPosition.objects.bulk_create(
        [MapPosition(node=f"switch:{sw.id}", x=40 + (i % 20) * 46, y=40 + (i // 20) * 60)
         for i, sw in enumerate(switches)]
        + [MapPosition(node=f"host:{h.id}", x=60 + (k % 40) * 23, y=30 + (k // 40) * 64) for k, h in enumerate(hosts)])
    ctx.log(f"  map data: {n} switches, {len(links) - 2 * n} links, {len(xcs)} cross-connects, {len(series):,} series "
            f"in {time.monotonic() - t0:.0f} s")
    ctx.info["10 data"] = {"switches": n, "links": len(links) - 2 * n, "cross_connects": len(xcs),
                           "series": len(series)}
    return {"n": n, "links": len(links) - 2 * n, "src": hosts[0].name, "dst": hosts[2 * (min(6, n) - 1)].name}


def client():
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    # The pages' {% static %} without a collected manifest: the request's work is otherwise the same.
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    user = get_user_model().objects.filter(username="bench-map").first() or \
        get_user_model().objects.create_superuser("bench-map", "bench@example.invalid", "x-bench-map-x")
    c = Client(HTTP_HOST="localhost")
    c.force_login(user)
    return c


def first_visit() -> tuple[float, float]:
    """build() with no stored position: the layout computed, then taken from the cache."""
    from webapp.topology import graph

    t0 = time.perf_counter()
    graph.build(fresh_layout=True)
    t1 = time.perf_counter()
    graph.build()
    return t1 - t0, time.perf_counter() - t1


def timed(c, url: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    r = c.get(url)
    wall = time.perf_counter() - t0
    if r.status_code != 200:
        raise RuntimeError(f"GET {url}: {r.status_code} {r.content[:300]!r}")
    return wall, len(r.content)


def ref_map() -> float:
    from django.db import connection

    t0 = time.perf_counter()
    with connection.cursor() as cur:
        cur.execute("SELECT l.id, l.state, l.source, l.confidence, l.conflict, l.evidence, pa.switch_id, pa.name, "
                    "pb.switch_id, pb.name FROM inventory_link l JOIN inventory_port pa ON pa.id = l.a_port_id "
                    "JOIN inventory_port pb ON pb.id = l.b_port_id")
        cur.fetchall()
        cur.execute("SELECT sw.id, s.time, s.interval_ms, s.raw, s.delta, s.flags FROM inventory_switch sw "
                    "CROSS JOIN LATERAL (SELECT * FROM traffic_sample t WHERE t.switch_id = sw.id "
                    "ORDER BY t.time DESC LIMIT 1) s")
        cur.fetchall()
    return time.perf_counter() - t0


def ref_path() -> float:
    from django.db import connection

    t0 = time.perf_counter()
    with connection.cursor() as cur:
        for table in ("inventory_crossconnect", "inventory_port", "inventory_link"):
            cur.execute(f"SELECT * FROM {table}")
            cur.fetchall()
    return time.perf_counter() - t0


def run(ctx: Context) -> list[Measure]:
    db.empty_traffic()
    data = build(ctx)
    c = client()
    urls = {"map": "/map/api/graph", "path": f"/path/?src={data['src']}&dst={data['dst']}"}
    for url in urls.values():
        timed(c, url)                                # warm: imports, prepared plans
    out = []
    for key, (name, ref, ref_name) in {"10a": ("map", ref_map, "bare SELECT of the links with their ports and of "
                                                                "the latest sample of every switch"),
                                       "10b": ("path", ref_path, "bare SELECT of every cross-connect, port and link")
                                       }.items():
        walls, refs, ratios = [], [], []
        size = 0
        for r in range(ctx.runs):
            wall, size = timed(c, urls[name])
            rwall = ref()
            walls.append(wall)
            refs.append(rwall)
            ratios.append(wall / rwall)
            ctx.log(f"  {key} run {r + 1}: {name} {wall * 1000:.0f} ms ({size:,} bytes), "
                    f"reference {rwall * 1000:.0f} ms")
        title = (f"Network map data (/map/api/graph): {data['n']} switches, {data['links']:,} links, utilisation now"
                 if name == "map" else
                 f"VCC path page (/path/): {data['n']} switches, {data['links']:,} links, a PVC over 6 switches")
        m = Measure(key, title, "s", walls, refs, ref_name, ratios, "Cellar / bare select", f"< {GOAL_S * 1000:.0f} ms",
                    met=statistics.median(walls) < GOAL_S, higher_is_better=False)
        if name == "map":
            first, cached = ctx.cache["map-first-visit"]
            m.notes.append(f"no stored position: first visit (layout computed) {first * 1000:.0f} ms, "
                           f"later visits (layout cached) {cached * 1000:.0f} ms")
        out.append(m)
    return out
