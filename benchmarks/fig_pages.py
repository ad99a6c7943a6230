"""Figure 13: every status page and API list at size, server time and queries.

Data: benchmarks/pagesdata.py (100,000 ports on 2,100 switches, 51,200 VCs, 25,600 PVCs, 1,000
hosts, a year of rollups for a subset, the latest polls of every switch; --smoke: 256 ports).
Cellar: each page through Django's test client (the whole request: middleware, session and
login, view, template; no HTTP socket), as a logged-in admin; the median wall time of REPS calls
after one warm-up call, and the number of SQL statements of one call (counted in a separate call:
counting slows the cursor). The plots: /traffic/api/data as the plot page asks for it (figure,
no points, no p95) for the 48 receive-octets series of the plot switch over 30 days and a year.
Goal: < 300 ms of server time for every page; the status pages' query counts do not
grow with the inventory (tests/webapp/status/test_query_ceilings.py).
"""
from __future__ import annotations

import statistics
import time

from benchmarks import db, pagesdata
from benchmarks.core import Context, Measure

GOAL_MS = 300.0
REPS = 5


def pages(data: pagesdata.PagesData) -> list[tuple[str, str, str]]:
    """(key, what, URL) of every page measured."""
    s48 = ",".join(map(str, data.plot_ids))
    return [
        ("13a", "dashboard", "/"),
        ("13b", "switch list, first page", "/switches/"),
        ("13c", f"IP switch page ({pagesdata.IP_PORTS} ports, a year of rollups)", f"/switches/{data.big_ip}/"),
        ("13d", f"ATM switch page ({pagesdata.ATM_PORTS} ports, {pagesdata.VCS_PER_ATM:,} VCs)",
         f"/switches/{data.big_atm}/"),
        ("13e", "port page (ATM port with its VCs)", f"/switches/{data.big_atm}/ports/{data.atm_port}/"),
        ("13f", "PVC list, first page", "/pvcs/"),
        ("13g", "PVCs of one ATM switch", f"/switches/{data.big_atm}/pvcs/"),
        ("13h", "host list", "/hosts/"),
        ("13i", "host page", f"/hosts/{data.host}/"),
        ("13j", "search: one switch's name", "/search/?q=pg-ip-0003"),
        ("13j2", "search: a word in every IP port's label (first 100 shown)", "/search/?q=uplink"),
        ("13k", "API: series search (limit 200)", "/traffic/api/series?q=Gi1/0/1&limit=200"),
        ("13k2", "API: series search, a word in every IP port's label", "/traffic/api/series?q=uplink&limit=200"),
        ("13l", "API: inventory (switch list)", "/traffic/api/inventory"),
        ("13m", "API: one switch's tree", "/traffic/api/inventory/{big_atm_id}"),
        ("13n", "plot of 48 series, 30 days", f"/traffic/api/data?s={s48}&range=30d&figure=1&points=0&p95=0"),
        ("13o", "plot of 48 series, 1 year", f"/traffic/api/data?s={s48}&range=1y&figure=1&points=0&p95=0"),
        ("13p", "map: graph API (a network of more nodes than the map draws: around the best-connected switch)",
         "/map/api/graph"),
    ]


def _client():
    from django.contrib.auth import get_user_model
    from django.test import Client

    from webapp.access import roles

    user = get_user_model().objects.filter(username="bench-pages").first()
    if user is None:
        user = get_user_model().objects.create_user("bench-pages")
        roles.grant(user, "admin")
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    return client


def call(client, url: str) -> tuple[float, int, int]:
    t0 = time.perf_counter()
    resp = client.get(url)
    body = resp.content if not getattr(resp, "streaming", False) else b"".join(resp.streaming_content)
    return time.perf_counter() - t0, resp.status_code, len(body)


def count(client, url: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        client.get(url)
    return len(ctx.captured_queries)


def run(ctx: Context) -> list[Measure]:
    from collector.inventory.models import Switch

    db.empty_traffic(ctx)
    data = pagesdata.build(ctx)
    ctx.info["13 data"] = data.sizes
    client = _client()
    atm_id = Switch.objects.get(name=data.big_atm).id
    out = []
    for key, what, url in pages(data):
        url = url.replace("{big_atm_id}", str(atm_id))
        _, status, size = call(client, url)          # warm-up: templates, plans, caches
        queries = count(client, url)
        walls = []
        for _ in range(ctx.runs):
            walls.append(statistics.median(call(client, url)[0] * 1000 for _ in range(REPS)))
        ok = status == 200
        ctx.log(f"  {key} {what}: {statistics.median(walls):.0f} ms, {queries} queries, HTTP {status}, "
                f"{size / 1024:.0f} KiB")
        m = Measure(key, f"{what}: `{url if len(url) < 70 else url[:60] + '…'}`", "ms", walls,
                    ref_name=f"{queries} SQL statements, HTTP {status}, {size / 1024:,.0f} KiB",
                    goal=f"< {GOAL_MS:.0f} ms", met=ok and statistics.median(walls) < GOAL_MS,
                    higher_is_better=False)
        if not ok:
            m.notes.append(f"answered HTTP {status}")
        out.append(m)
    out.append(_fresh_map(ctx))
    return out


def _fresh_map(ctx: Context) -> Measure:
    """13q: the map's first visit after the network changed: the graph with its layout computed
    afresh (webapp/topology/drawing.py; the calls above find it in the cache)."""
    import time

    from webapp.topology import graph

    walls = []
    for _ in range(ctx.runs):
        t0 = time.perf_counter()
        built = graph.build(fresh_layout=True)
        nodes, total = len(built["nodes"]), built["view"]["nodes_total"]
        walls.append((time.perf_counter() - t0) * 1000)
    ctx.log(f"  13q map, layout computed afresh: {statistics.median(walls):.0f} ms, {nodes:,} of {total:,} nodes")
    return Measure("13q", f"map: graph with its layout computed afresh ({nodes:,} of {total:,} nodes drawn; the "
                   "first visit after the network changed)", "ms", walls, goal=f"< {GOAL_MS:.0f} ms",
                   met=statistics.median(walls) < GOAL_MS, higher_is_better=False)
