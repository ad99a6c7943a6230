"""collector/reader/queries.p95 over bucket averages: the percentile in numpy, bit for bit what
PostgreSQL's percentile_cont gives over the same rates, however the range is split between the
basis tier and the finer tiers of its tail."""
from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection

from collector.archive import rollup
from collector.reader import catalog, queries
from tests.support import traffic_factory as f

HOURS = 30
STEP_S = 15


@pytest.fixture
def archive():
    """Three series over 30 hours of jittered 15 s polls with lognormal deltas, a missed stretch and
    an idle series, rolled up into every tier."""
    f.reset_rollups()
    sw = f.switch("p95-sw", profile="if-mib")
    members = [f.series(f.port(sw, f"P{i}", is_atm=False), "in", metric="octets", unit="octets", width=64)
               for i in range(3)]
    lay = f.layout(sw, members)
    rng = random.Random(95)
    rows, at = [], 0.0
    while at < HOURS * 3600:
        step = STEP_S + rng.randint(-300, 300) / 1000
        at += step
        if 20_000 <= at < 21_000:           # missed polls: the next sample spans them
            continue
        deltas = [int(rng.lognormvariate(16, 1.2)), int(rng.lognormvariate(12, 0.3)), 0]
        rows.append((round(at, 3), None, deltas, [0, 0, 0]))
    rows = [(t, round((t - (rows[i - 1][0] if i else t - STEP_S)) * 1000), d, fl)
            for i, (t, _, d, fl) in enumerate(rows)]
    f.insert(sw, lay, rows)
    for _ in range(20):
        if rollup.run(budget_s=60).caught_up:
            break
    return catalog.load_series([m.id for m in members])


def _truth(series, lo, hi, width: str = "15 minutes") -> dict[int, float | None]:
    """percentile_cont over the averages of `width` buckets built from the 1-minute tier in SQL."""
    with connection.cursor() as cur:
        cur.execute("SELECT series_id, percentile_cont(0.95) WITHIN GROUP (ORDER BY sd::float8 * 1000 / si) FROM "
                    "(SELECT series_id, sum(sum_delta) AS sd, sum(sum_interval_ms) AS si FROM traffic_rollup_1m "
                    "WHERE series_id = ANY(%s) AND bucket >= %s AND bucket < %s "
                    "GROUP BY series_id, time_bucket(%s::interval, bucket)) b WHERE si > 0 GROUP BY series_id",
                    [[s.id for s in series], lo, hi, width])
        found = dict(cur.fetchall())
    return {s.id: found.get(s.id) for s in series}


SPLITS = [(1.0, "the basis tier alone"), (0.5, "half from the basis tier, half its 1-minute tail"),
          (0.0, "the 1-minute tail alone")]


@pytest.mark.django_db
@pytest.mark.parametrize("share", [s for s, _ in SPLITS], ids=[w for _, w in SPLITS])
def test_percentile_is_the_databases_bit_for_bit(archive, share):
    lo = f.T0
    hi = f.T0 + timedelta(hours=HOURS - 2)
    cut = lo + timedelta(minutes=15 * round((hi - lo).total_seconds() * share / 900))
    main = ("15m", lo, cut) if cut > lo else None
    tail = [("1m", cut, hi)] if cut < hi else []
    got = queries.p95(archive, "15m", main, tail)
    want = _truth(archive, lo, hi)
    assert want[archive[0].id] is not None and want[archive[1].id] is not None
    assert got == want                      # exact floats, not approx
    assert want[archive[2].id] == 0.0       # an idle series: zero rates, not None


@pytest.mark.django_db
@pytest.mark.parametrize("share", [1.0, 0.5], ids=["the hourly tier alone", "half hourly, half its 1-minute tail"])
def test_over_a_tier_that_stays_rows_the_database_takes_the_percentile(archive, share):
    lo = f.T0
    hi = f.T0 + timedelta(hours=HOURS - 2)
    cut = lo + timedelta(hours=round((HOURS - 2) * share))
    tail = [("1m", cut, hi)] if cut < hi else []
    got = queries.p95(archive, "1h", ("1h", lo, cut), tail)
    want = _truth(archive, lo, hi, "1 hour")
    assert want[archive[0].id] is not None and got == want


@pytest.mark.django_db
def test_nothing_read_gives_none(archive):
    empty = f.T0 - timedelta(days=3)
    assert queries.p95(archive, "15m", ("15m", empty, empty + timedelta(hours=1)), []) == \
        {s.id: None for s in archive}
    assert queries.p95(archive, "15m", None, []) == {s.id: None for s in archive}


@pytest.mark.django_db
def test_numerics_percentile_cont_is_the_databases_on_random_rates():
    """500 random sets of rates (2 to 300 each): the database's percentile_cont, bit for bit (numpy's
    'linear' differs in the last bit on some of these)."""
    import numpy as np

    from numerics.summary import percentile_cont

    rng = np.random.default_rng(7)
    sets = [np.sort(rng.lognormal(10, 2, rng.integers(2, 300))) for _ in range(500)]
    with connection.cursor() as cur:
        cur.execute("SELECT i, percentile_cont(0.95) WITHIN GROUP (ORDER BY x) FROM unnest(%s::int[], %s::float8[]) "
                    "AS u(i, x) GROUP BY i", [[i for i, s in enumerate(sets) for _ in s],
                                             [float(v) for s in sets for v in s]])
        want = dict(cur.fetchall())
    assert {i: percentile_cont(s, 0.95) for i, s in enumerate(sets)} == want
    assert any(float(np.percentile(s, 95)) != want[i] for i, s in enumerate(sets))
