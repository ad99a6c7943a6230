"""Every reader of raw samples answers the same before and after a day is settled
(collector/archive/settle.py), and so does a backup restored into a new database.

The readers test_settle.py does not cover: the cumulative totals Prometheus scrapes (a total that
dropped would read as a counter reset), the status pages' totals, the rollup tiers and their
1-day carry (also after a recompute over the settled days: `rollup --recompute`), the cross-connect
continuity rates, the latest polls, the first poll, and the alerts' discontinuity reading. Each is
read, the days are settled, each is read again: equal (exact integers; rates to 1e-9 relative).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from psycopg import sql

from collector.alerts import readings
from collector.alerts.models import Rule
from collector.archive import continuity, rollup, settle, settled_read, tier_read
from collector.archive.backup import Target
from collector.archive.tiers import TIER_COLUMNS
from collector.reader import cumulative, latest, totals
from tests.collector.archive.test_settle import DAYS, _table_rows, archive  # noqa: F401  (archive: the fixture)
from tests.support import traffic_factory as tf

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def rolled(archive):  # noqa: F811
    """The archive of test_settle with a fresh poll (the exposition shows series polled within
    cumulative.FRESH) and every tier rolled up to now, as the beat leaves it."""
    sw, series = archive
    with connection.cursor() as cur:
        cur.execute("DELETE FROM traffic_rollup_watermark")
        cur.execute("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, "
                    "flags) SELECT now() - interval '2 minutes', uptime_cs, switch_id, layout_id, interval_ms, raw, "
                    "delta, flags FROM traffic_sample WHERE switch_id = %s ORDER BY time DESC LIMIT 1", [sw.id])
    assert rollup.run(budget_s=600, lag_s=0).caught_up
    return sw, series


def _tiers() -> dict:
    """Every tier's buckets as a reader gets them: rows and settled blocks (tier_read)."""
    out = {}
    with transaction.atomic(), connection.cursor() as cur:
        for tier in rollup.TIERS:
            source = tier_read.stage(cur, tier, None, None, None)
            cur.execute(f"SELECT {TIER_COLUMNS} FROM {source} t ORDER BY bucket, series_id")
            out[tier.table] = cur.fetchall()
        cur.execute("SELECT series_id, total FROM traffic_series_total ORDER BY series_id")
        out["traffic_series_total"] = cur.fetchall()
    return out


def _cumulative(sw, series) -> dict:
    scope = cumulative.scope(["settler"], limit=100)
    return {r.series.id: (r.total, r.at_ms) for r in cumulative.read(scope)}


def _totals(sw, series) -> tuple:
    got = totals.totals([sw.id], [s.id for s in series])
    return got.available, got.by_series


def _continuity(sw, series) -> dict:
    lo = tf.T0 + timedelta(hours=1)
    return continuity._rates([s.id for s in series], [sw.id], lo.timestamp(),
                             (lo + timedelta(days=2, hours=2)).timestamp())


def _latest(sw, series) -> tuple:
    ids = {s.id for s in series}
    return latest.latest_samples([sw.id]), latest.rates_now({sw.id}, ids), latest.archive_starts([sw.id])


def _discontinuities(sw, series) -> list:
    # an evaluation at a past time: a day's window over settled days (CELLAR_SETTLE_AFTER_HOURS < 24)
    rule = Rule(name="epochs", kind="discontinuity", scope="switch", switch=sw, window_minutes=1440)
    return [(o.value, o.detail, o.reading) for o in
            readings.discontinuities(rule, tf.T0 + timedelta(days=1, hours=13), limit=10)]


READERS: dict[str, Callable] = {
    "cumulative": _cumulative, "totals": _totals, "tiers": lambda sw, series: _tiers(),
    "continuity": _continuity, "latest": _latest, "discontinuities": _discontinuities,
}


def _same(a, b, where: str = "") -> None:
    """Equal, floats to 1e-9 relative (a rate is a quotient of exact sums)."""
    if isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-9), where
    elif isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, list | tuple) and isinstance(b, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def _read_all(sw, series) -> dict:
    return {name: reader(sw, series) for name, reader in READERS.items()}


@pytest.mark.parametrize("name", list(READERS))
def test_a_reader_answers_the_same_after_settling(rolled, name):
    sw, series = rolled
    reader = READERS[name]
    before = reader(sw, series)
    assert before, f"{name} read nothing: the comparison would prove nothing"
    report = settle.run(budget_s=600)
    assert report.switch_days == DAYS and report.caught_up       # all but the fresh poll
    assert len(_table_rows()) == 1
    _same(reader(sw, series), before, name)


def test_a_recompute_over_settled_days_changes_no_bucket_and_no_total(rolled):
    sw, series = rolled
    before = _read_all(sw, series)
    assert any(total for total, _ in before["cumulative"].values())
    settle.run(budget_s=600)
    # an operator's recompute, of every switch and of one: the rollup reads the settled days' blocks
    steps = rollup.recompute(tf.T0 - timedelta(hours=1), tf.T0 + timedelta(days=DAYS, hours=1))
    assert {s.tier for s in steps} == {"1m", "15m", "1h", "1d"}
    rollup.recompute(tf.T0 + timedelta(hours=20), tf.T0 + timedelta(days=1, hours=5), switch_id=sw.id)
    after = _read_all(sw, series)
    for name in READERS:
        _same(after[name], before[name], name)


def test_the_rollup_reads_settled_rows_as_it_read_sample_rows(rolled):
    """The staged statement (rows and settled rows) and the plain one give the same buckets for the
    same rows: half the range settled, half put back, recomputed, against the original."""
    sw, series = rolled
    before = _tiers()
    settle.run(budget_s=600)
    settle.reopen(sw.id, tf.T0 + timedelta(days=1))     # rows again; the days around it still blocks
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_settled_poll")
        assert cur.fetchone()[0] == DAYS - 1
    rollup.recompute(tf.T0, tf.T0 + timedelta(days=DAYS))
    _same(_tiers(), before, "tiers")


def test_a_backup_restored_into_a_new_database_holds_the_settled_days(rolled, tmp_path):
    sw, series = rolled
    rows = _table_rows()
    settle.run(budget_s=600)
    tiers = _tiers()
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_settled_poll")
        assert cur.fetchone()[0] == DAYS
        cur.execute("SELECT count(*) FROM traffic_settled_tier WHERE tier = '1m'")
        assert cur.fetchone()[0] >= DAYS                # the settled tiers go into the dump too
    call_command("backup", f"{tmp_path}/")
    (dump,) = tmp_path.glob("*.dump")
    copy = f"{connection.settings_dict['NAME']}_settled"
    target = Target.from_settings()
    try:
        call_command("restore", str(dump), into=copy)
        with target.connect(copy) as conn, conn.cursor() as cur:
            cur.execute("SELECT lo FROM traffic_settled_poll WHERE switch_id = %s ORDER BY lo", [sw.id])
            days = [r[0] for r in cur.fetchall()]
            back = [r for day in days for r in settle.read_blocks(cur, sw.id, day)]
            cur.execute("SELECT time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags "
                        "FROM traffic_sample ORDER BY switch_id, time")
            left = cur.fetchall()
            tiers_back = {}
            with conn.transaction():            # staged rows live until the transaction ends
                for tier in rollup.TIERS:
                    source = tier_read.stage(cur, tier, None, None, None)
                    cur.execute(f"SELECT {TIER_COLUMNS} FROM {source} t ORDER BY bucket, series_id")
                    tiers_back[tier.table] = cur.fetchall()
    finally:
        with target.connect("postgres") as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(copy)))
    again = [(settled_read.from_us(t), up, sw.id, lay, iv, raw, d, f) for t, lay, up, iv, raw, d, f in back]
    assert len(days) == DAYS and len(left) == 1
    assert again + left == rows          # every reading of every poll, as it was stored
    assert tiers_back == {k: v for k, v in tiers.items() if k != "traffic_series_total"}
