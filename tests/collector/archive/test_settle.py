"""Settling raw samples into blocks changes nothing a reader sees (collector/archive/settle.py).

Three days of a switch's polls (every flag kind, Counter32 and Counter64 wraps, a reboot, a gap, a
clock step, NULLs, a layout change) are read every way the archive is read (the raw CSV as the
page streams it, the plots' raw read, a bill's samples, a window's accounting, the first data),
settled, read again: byte for byte and value for value the same. A late poll reopens its day and
is stored as it would have been; retention drops settled days as it drops rows; a run cut short
(the budget, a kill: each switch-day is one transaction) is resumed by the next.
"""
from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection

from collector.archive import rollup, settle, settled_read
from collector.archive import samples as archive_samples
from collector.billing import samples as bill_samples
from collector.core.facts import FLAGS, Flag, to_i64
from collector.reader import catalog, queries
from tests.support import traffic_factory as tf

pytestmark = pytest.mark.django_db(transaction=True)

STEP = 60
DAYS = 3
U32, U64 = 1 << 32, 1 << 64


def _rows(sw, lay_a, lay_b, series_ids_a, width):
    """(time, uptime, switch, layout, interval, raw, delta, flags) rows of DAYS days, as the writer stores them."""
    rng = random.Random(7)
    raw = [U32 - 10 ** 7, 10 ** 9, U64 - 10 ** 9, 5]
    out = []
    t = tf.T0
    kinds = [f.flag for f in FLAGS]
    for i in range(DAYS * 86400 // STEP):
        t = tf.T0 + timedelta(seconds=i * STEP, microseconds=rng.randint(0, 999) * 1000)
        lay, ids = (lay_a, series_ids_a) if i < 2000 else (lay_b, series_ids_a[:3])
        m = len(ids)
        deltas: list[int | None] = []
        flags = []
        for j in range(m):
            inc = int(rng.lognormvariate(11, 0.4)) if j != 1 else 0
            new = (raw[j] + inc) % (U64 if width[j] == 64 else U32)
            f = int(Flag.WRAP) if new < raw[j] else 0
            raw[j] = new
            deltas.append(inc)
            flags.append(f)
        interval: int | None = STEP * 1000
        if i == 0:
            deltas, flags, interval = [None] * m, [int(Flag.FIRST)] * m, None
        elif i % 997 == 0:                       # every flag kind, one after another
            k = kinds[(i // 997) % len(kinds)]
            flags = [int(k)] * m
            if k & (Flag.REBOOT | Flag.RESET | Flag.FIRST | Flag.AMBIGUOUS | Flag.CLOCK | Flag.WIDTH | Flag.MISSING):
                deltas = [None] * m
        elif i == 1500:
            interval = 4 * STEP * 1000
            flags = [int(Flag.GAP)] * m
        stored = [to_i64(v) if width[j] == 64 else v for j, v in enumerate(raw[:m])]
        if i == 1700:
            stored[2], deltas[2], flags[2] = None, None, int(Flag.MISSING)
        out.append((t, i * STEP * 100, sw.id, lay.id, interval, stored, deltas, flags))
    return out


@pytest.fixture
def archive(db):
    tf.reset_rollups()
    sw = tf.switch("settler")
    p1, p2 = tf.port(sw, "A1"), tf.port(sw, "A2")
    s = [tf.series(p1, "in"), tf.series(p1, "out"), tf.series(p2, "in", width=64), tf.series(p2, "out")]
    lay_a, lay_b = tf.layout(sw, s), tf.layout(sw, s[:3])
    rows = _rows(sw, lay_a, lay_b, [x.id for x in s], [32, 32, 64, 32])
    with connection.cursor() as cur:
        cur.executemany("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, "
                        "flags) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", rows)
        cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until, updated_at) VALUES ('1m', now(), now())")
    return sw, s


def _table_rows():
    with connection.cursor() as cur:
        cur.execute("SELECT time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags FROM traffic_sample "
                    "ORDER BY switch_id, time")
        return cur.fetchall()


def _everything(client, sw, series):
    lo, hi = tf.T0, tf.T0 + timedelta(days=DAYS)
    ids = ",".join(str(s.id) for s in series)
    csv = b"".join(client.get(f"/traffic/export.csv?s={ids}&start={lo:%Y-%m-%dT%H:%M:%SZ}"
                              f"&end={hi:%Y-%m-%dT%H:%M:%SZ}&raw=1").streaming_content)
    infos = catalog.load_series([s.id for s in series])
    raw = queries.fetch_raw(infos, lo + timedelta(hours=5), hi - timedelta(hours=7))
    billed = [bill_samples.Billed(s.id, sw.id, s.direction, 53) for s in series]
    bill = bill_samples.read(billed, lo + timedelta(hours=1), lo + timedelta(days=2))
    window = archive_samples.window_samples([s.id for s in series], lo + timedelta(hours=30), lo + timedelta(hours=40))
    return {
        "csv": csv,
        "raw": {sid: (c.t.tolist(), c.delta.tolist(), c.flags.tolist(), c.stored) for sid, c in raw.items()},
        "bill": [(b.t.tolist(), b.span.tolist(), b.vol_in.tolist(), b.vol_out.tolist(), b.has_in.tolist())
                 for b in bill],
        "window": {sid: (w.t_end.tolist(), w.span.tolist(), w.delta.tolist(), w.usable.tolist())
                   for sid, w in window.items()},
        "first": queries.first_data(infos),
    }


def test_settled_days_read_as_their_rows_did(archive, client):
    sw, series = archive
    before_rows = _table_rows()
    before = _everything(client, sw, series)
    assert before["csv"].count(b"\n") > 4000 and b"WRAP" in before["csv"] and b"REBOOT" in before["csv"]

    report = settle.run(budget_s=600)
    assert report.switch_days == DAYS and report.caught_up
    left = _table_rows()
    assert len(left) == 1 and left[0] == before_rows[-1]     # the switch's newest row stays
    assert report.chunks_dropped == DAYS - 1           # emptied day chunks dropped; the newest row's stays
    with connection.cursor() as cur:
        cur.execute("SELECT count(*), sum(polls) FROM traffic_settled_poll")
        assert cur.fetchone() == (DAYS, len(before_rows) - 1)
    assert report.bytes / report.readings < 6          # lognormal noise: ~3 bytes of entropy a delta

    after = _everything(client, sw, series)
    for key in before:
        assert after[key] == before[key], key

    # every row comes back exactly: blocks decoded to rows again
    with connection.cursor() as cur:
        back = []
        for day in range(DAYS):
            back += settle.read_blocks(cur, sw.id, tf.T0 + timedelta(days=day))
    again = [(settled_read.from_us(t), up, sw.id, lay, iv, raw, d, f) for t, lay, up, iv, raw, d, f in back]
    assert again + left == before_rows


def test_a_late_poll_reopens_its_day(archive, client):
    sw, series = archive
    before_rows = _table_rows()
    settle.run(budget_s=600)
    late = tf.T0 + timedelta(days=1, hours=3, seconds=30)       # between two stored polls
    assert settle.reopen_for({sw.id: late}) == 2                  # its day and the day before
    rows = _table_rows()
    assert rows == [r for r in before_rows if tf.T0 <= r[0] < tf.T0 + timedelta(days=2)] + [before_rows[-1]]
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_rollup_invalidation")
        assert cur.fetchone()[0] == 0                             # rows put back are no late samples
        cur.execute("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, "
                    "flags) SELECT %s, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags "
                    "FROM traffic_sample WHERE switch_id = %s AND time < %s ORDER BY time DESC LIMIT 1",
                    [late, sw.id, late])
    assert rollup.process_late() == 1           # the rollup reads the late minute's rows first...
    settle.run(budget_s=600)                    # ...then its day settles again
    assert len(_table_rows()) == 1
    after = _everything(client, sw, series)
    assert after["csv"].count(b"\n") == _everything_count(before_rows) + 1


def _everything_count(rows):
    return len(rows) + 1           # a header and a line per poll (one switch: distinct times)


def test_runs_cut_short_resume_and_lose_nothing(archive, client):
    sw, series = archive
    before = _everything(client, sw, series)
    assert settle.run(budget_s=0.0).switch_days == 0        # out of budget at once: nothing half done
    done = []
    while (report := settle.run(budget_s=600, max_switch_days=1)).switch_days:
        done.append(report.switch_days)
        assert _everything(client, sw, series) == before     # between two batches, as polling goes on
        assert len(done) <= DAYS
    assert done == [1] * DAYS and report.caught_up
    assert _everything(client, sw, series) == before


def test_retention_drops_settled_days(archive, settings):
    sw, series = archive
    settle.run(budget_s=600)
    settings.CELLAR_RETENTION_RAW_DAYS = 1
    settings.CELLAR_RETENTION_1M_DAYS = 1
    with connection.cursor() as cur:
        cur.execute("UPDATE traffic_rollup_watermark SET done_until = now()")
        for tier in ("15m", "1h", "1d"):
            cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until, updated_at) VALUES (%s, now(), now()) "
                        "ON CONFLICT (tier) DO NOTHING", [tier])
    dropped = rollup.retention()
    assert dropped["traffic_settled_poll"] >= 1 and dropped["traffic_settled_series"] >= 1
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_settled_poll")
        assert cur.fetchone()[0] == 0
