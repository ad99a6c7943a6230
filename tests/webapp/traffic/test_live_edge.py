"""A plot across the live edge: tier buckets up to the watermarks, then the finer tiers' buckets
and single raw samples, summed into the plot's buckets by collector/reader/queries.py (_summed).

The oracle is the raw samples themselves, bucketed here in SQL with the rollup's rules written
out (drawn: delta present, not OVER_CAPACITY, interval > 0; flagged: any flag but WRAP), so a
tail row lost, counted twice, put in the wrong bucket or summed with the wrong function fails.
Both ways of reading raw samples are checked (queries.FEW_SERIES: subscripted in place for a
few series, copied first for more).
"""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection

from collector.archive import rollup
from collector.archive.tiers import TIER, floor_time
from collector.core.facts import Flag
from collector.reader import queries
from tests.support import traffic_factory as f

pytestmark = pytest.mark.usefixtures("plain_static")
RATES = [100_000, 50_000, 1_000, 2_000, 3_000, 4_000]


@pytest.fixture
def edge(transactional_db):
    """30 h of 15 s polls with a daily shape up to a minute ago, six series, one off-grid row
    with a not-drawn, a flagged and a missing value in the raw tail; rolled up to 40 min ago,
    so a plot reads its tier, then 15 min and 1 min buckets and raw samples."""
    now = rollup.db_now()
    end = now.replace(second=0, microsecond=0) - timedelta(minutes=1)
    start = end - timedelta(hours=30)
    sw = f.switch("edge-1")
    p = f.port(sw, "A1")
    vcs = [f.series(p, "in", channel=f.vc(p, 0, 100 + i)) for i in range(4)]
    series = [f.series(p, "in"), f.series(p, "out"), *vcs]
    lay = f.layout(sw, series)
    f.generate(sw, lay, start, end, 15, RATES)
    odd = end - timedelta(minutes=3, seconds=7)
    f.insert(sw, lay, [(0, 15_000, [None, 700_000, 30_000, 20_000, 10_000, 5_000],
                        [int(Flag.FIRST), int(Flag.OVER_CAPACITY), int(Flag.GAP), int(Flag.WRAP), 0, 0])], t0=odd)
    rollup.run(budget_s=300, lag_s=40 * 60)
    done = rollup.watermarks()
    assert done["1m"] is not None and done["1m"] < end - timedelta(minutes=30) < odd   # odd: in the raw tail
    return series, start, end


def expected(sid: int, width: int, lo, hi) -> dict[int, tuple]:
    """bucket start (epoch s) -> (total, peak, low, samples, flagged) straight from raw samples."""
    drawn = "u.d IS NOT NULL AND (u.f & 8) = 0 AND s.interval_ms > 0"
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT extract(epoch FROM time_bucket(interval '{width} seconds', s.time))::bigint, "
            f"coalesce(sum(u.d) FILTER (WHERE {drawn}), 0), max(u.d::float8 * 1000 / s.interval_ms) FILTER "
            f"(WHERE {drawn}), min(u.d::float8 * 1000 / s.interval_ms) FILTER (WHERE {drawn}), count(*), "
            "count(*) FILTER (WHERE (u.f & ~1) <> 0) "
            "FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id, "
            "unnest(l.series_ids, s.delta, s.flags) AS u(sid, d, f) "
            "WHERE u.sid = %s AND s.time >= %s AND s.time < %s GROUP BY 1", [sid, lo, hi])
        return {int(b): tuple(rest) for b, *rest in cur.fetchall()}


@pytest.mark.parametrize("res", ["15m", "1h", "1d"])
@pytest.mark.parametrize("few", [True, False])
def test_a_plot_across_the_live_edge_equals_its_raw_samples(edge, client, monkeypatch, res, few):
    series, start, end = edge
    monkeypatch.setattr(queries, "FEW_SERIES", 99 if few else 0)
    width = TIER[res].seconds
    lo = floor_time(start + timedelta(hours=2), width)
    hi = floor_time(end, width) + timedelta(seconds=width)
    q = f"s={','.join(str(s.id) for s in series)}&start={lo:%Y-%m-%dT%H:%M:%SZ}&end={hi:%Y-%m-%dT%H:%M:%SZ}&res={res}"
    r = client.get(f"/traffic/api/data?{q}")
    assert r.status_code == 200, r.content[:500]
    body = r.json()
    assert body["resolution"] == res
    for s in body["series"]:
        pts = s["points"]
        got = {}
        for i, t in enumerate(pts["t"]):
            if pts["samples"][i]:
                b = int(floor_time(_parse(t), width).timestamp())
                got[b] = (pts["total"][i], pts["peak"][i], pts["low"][i], pts["samples"][i], pts["flagged"][i])
        want = expected(s["id"], width, lo, hi)
        assert set(got) == set(want)
        for b, (total, peak, low, n, flagged) in want.items():
            g = got[b]
            assert g[0] == total and g[3] == n and g[4] == flagged, (b, g, want[b])
            assert g[1] == (None if peak is None else pytest.approx(peak * s["factor"], rel=1e-12))
            assert g[2] == (None if low is None else pytest.approx(low * s["factor"], rel=1e-12))


def _parse(text: str):
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00"))
