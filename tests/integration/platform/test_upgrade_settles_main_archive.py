"""An archive made by main before settled blocks existed is converted in place, and its CSVs (raw, 1
minute, 15 minutes) stay byte for byte what the old code exported.

The code of main before blocks (test_upgrade_from_main.BEFORE: git archive into a temporary
directory) migrates a new database and polls two if-mib switches through ITS ingest, with past poll
times (fractional seconds) over four days ending yesterday: a Counter64 that wraps, a Counter32
fallback column that wraps every few polls, an agent reboot (uptime and counters back to zero), a
gap of missed polls, one poll without a column (another layout); ITS rollup runs; then ITS web view
(/traffic/export.csv, the only CSV export that commit has: no export_csv command yet) writes the raw
CSV (raw=1) of each switch and of both together, and the same at 1 minute and at 15 minutes. Today's
code migrates that database forward, runs the rollup, and settles in bounded runs
(collector.archive.settle.run, one switch-day per run, as the beat's task calls it) until a run
finds nothing, today's ingest polling both switches between two runs (each poll stored, its deltas
from the row before): the days past CELLAR_SETTLE_AFTER_HOURS have left traffic_sample (not one row
there) for traffic_settled_poll / traffic_settled_series (every poll, every series); runs without a
batch limit then go on to the rollup tiers, whose 1-minute and 15-minute buckets past the horizon
leave their tables for blocks. Today's CSV of the same requests, before settling, after the raw days
and after the tiers, is byte-identical to the old code's: the old and new CSV formats are the same,
so the comparison is with the old code's bytes directly.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client

from collector.archive.backup import Target
from tests.integration.platform.test_upgrade_from_main import main_tree, old_code_env
from tests.integration.platform.test_upgrade_from_release import db_url, default_db

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

STEP = 120          # seconds between polls: four days are ~2,900 polls a switch
SWITCHES = 2

# Runs inside the old commit's tree with its settings: its migrations, models, ingest, rollup, view.
OLD_ARCHIVE = r'''
import json, random, sys
from datetime import timedelta
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import setup_test_environment
from collector.archive import ingest, rollup
from collector.archive.models import Series
from collector.core.poll import PollResult
from collector.core.readings import CounterReading
from collector.inventory.models import Switch
from webapp.access import roles

out_dir, step, switches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with connection.cursor() as cur:
    cur.execute("SELECT now()")
    now = cur.fetchone()[0]
today = now.replace(hour=0, minute=0, second=0, microsecond=0)
start, end = today - timedelta(days=5), today - timedelta(days=1)
polls = {}
for n in range(switches):
    rng = random.Random(n)
    sw = Switch.objects.create(name=f"settle-edge-{n}", address=f"127.0.0.{n + 1}", community="c0mm",
                               profile="if-mib", poll_interval_s=step)
    hc, c32, out, uptime = 2**64 - 3 * 10**9 * (n + 1), 2**32 - 10**8, 10**6, 10**7
    at, k, written = start.timestamp() + 7.25 + n, 0, 0
    while at + step + 1 < end.timestamp():
        k += 1
        at += step + rng.randint(-400, 400) / 1000          # jittered, fractional poll times
        uptime += step * 100
        if k == 700:                                         # the agent reboots: uptime and counters from 0
            uptime, hc, c32, out = 3000, 0, 0, 0
        hc = (hc + int(rng.lognormvariate(20, 0.5))) % 2**64     # ~5e8 a poll: wraps soon after the start
        c32 = (c32 + int(rng.lognormvariate(19.5, 0.3))) % 2**32  # ~3e8 a poll: wraps every ~14 polls
        out = (out + int(rng.lognormvariate(12, 1))) % 2**64
        if 1500 <= k < 1512:                                 # missed polls: the next row has a gap
            continue
        readings = {("ifHCInOctets", "1"): CounterReading(hc, 64), ("ifHCInOctets", "2"): CounterReading(c32, 32)}
        if k != 2100:                                        # one poll without this column: another layout
            readings[("ifHCOutOctets", "1")] = CounterReading(out, 64)
        assert ingest.ingest(PollResult(sw.id, at, uptime, readings, {}), sw) == 1
        written += 1
    polls[sw.name] = written
report = rollup.run(budget_s=240)
setup_test_environment()           # lets the test client's host in
user = get_user_model().objects.create_user("settle-viewer", password="pw-settle-1")
roles.grant(user, "viewer")
client = Client()
client.force_login(user)
urls = {}
for n in range(switches):
    urls[f"settle-edge-{n}"] = list(Series.objects.filter(switch__name=f"settle-edge-{n}").order_by("id")
                                    .values_list("id", flat=True))
urls["both"] = urls["settle-edge-0"] + urls["settle-edge-1"]
got = {}
for name, ids in urls.items():
    for kind, arg in (("raw", "raw=1"), ("1m", "res=1m"), ("15m", "res=15m")):
        url = (f"/traffic/export.csv?s={','.join(map(str, ids))}&start={start:%Y-%m-%dT%H:%M:%SZ}"
               f"&end={end:%Y-%m-%dT%H:%M:%SZ}&{arg}")
        resp = client.get(url)
        assert resp.status_code == 200, (url, resp.status_code)
        with open(f"{out_dir}/{name} {kind}.csv", "wb") as f:
            f.write(b"".join(resp.streaming_content))
        got[f"{name} {kind}"] = url
print(json.dumps({"urls": got, "polls": polls, "start": start.isoformat(), "end": end.isoformat()}))
'''

PER_DAY_SQL = ("SELECT switch_id, date_trunc('day', time AT TIME ZONE 'UTC'), count(*) FROM traffic_sample "
               "GROUP BY 1, 2 ORDER BY 1, 2")


def test_an_archive_of_main_settles_in_place_and_its_csv_is_byte_identical(tmp_path):
    target = Target.from_settings()
    db = f"{target.dbname}_settle_before"
    with target.connect("postgres") as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{db}"')
    try:
        tree = main_tree(tmp_path)
        out_dir = tmp_path / "old-csv"
        out_dir.mkdir()
        env = old_code_env(tree, db_url(target, db), tmp_path)
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-c", OLD_ARCHIVE, str(out_dir), str(STEP), str(SWITCHES)], cwd=tree,
                              env=env, capture_output=True, text=True, timeout=420)
        assert proc.returncode == 0, proc.stderr[-3000:]
        made = json.loads(proc.stdout.strip().splitlines()[-1])
        old_csv = {name: (out_dir / f"{name}.csv").read_bytes() for name in made["urls"]}
        old_s = time.monotonic() - started
        # What the old archive holds: WRAP, REBOOT and GAP rows, and every poll a CSV line.
        both = old_csv["both raw"]
        assert b"WRAP" in both and b"REBOOT" in both and b"GAP" in both, both[:400]
        for n in range(SWITCHES):
            assert old_csv[f"settle-edge-{n} raw"].count(b"\n") == made["polls"][f"settle-edge-{n}"] + 1
            # the tiers' CSVs: about a line per quarter hour of the four days, more per minute
            assert old_csv[f"settle-edge-{n} 1m"].count(b"\n") > old_csv[f"settle-edge-{n} 15m"].count(b"\n") > 3 * 96
        with default_db(db):
            call_command("migrate", verbosity=0)
            _settle_and_check(made, old_csv, old_s)
    finally:
        with target.connect("postgres") as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


def _csvs(made: dict) -> dict[str, bytes]:
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.get(username="settle-viewer"))
    out = {}
    for name, url in made["urls"].items():
        resp = client.get(url)
        assert resp.status_code == 200, (url, resp.status_code)
        out[name] = b"".join(resp.streaming_content)
    return out


POLL_INC = 10 ** 6


def _poll_each(at: float) -> None:
    """Today's ingest polls every switch at `at`: each counter POLL_INC past the switch's newest row."""
    from collector.archive import ingest
    from collector.archive.models import Layout, Sample, Series
    from collector.core.poll import PollResult
    from collector.core.readings import CounterReading
    from collector.inventory.models import Switch

    for sw in Switch.objects.filter(name__startswith="settle-edge-"):
        last = Sample.objects.filter(switch=sw).order_by("-time").first()
        assert last is not None
        ids = Layout.objects.get(pk=last.layout_id).series_ids
        series = Series.objects.in_bulk(ids)
        readings = {}
        for sid, raw in zip(ids, last.raw, strict=True):
            s = series[sid]
            readings[(s.object_name, s.index)] = CounterReading((raw + POLL_INC) % 2 ** s.width, s.width)
        assert ingest.ingest(PollResult(sw.id, at, last.uptime_cs + STEP * 100, readings, {}), sw) == 1


def _settle_and_check(made: dict, old_csv: dict[str, bytes], old_s: float) -> None:
    from collector.archive import rollup, settle, tier_settle
    from collector.archive.tiers import SETTLED_TIERS

    assert _csvs(made) == old_csv          # the upgrade alone changes nothing a CSV says
    for _ in range(20):                    # the rollup catches up (the old one may have run out of budget)
        if rollup.run(budget_s=60).caught_up:
            break
    with connection.cursor() as cur:
        cur.execute(PER_DAY_SQL)
        before = {(sw, day.date()): n for sw, day, n in cur.fetchall()}
    started = time.monotonic()
    runs = []
    first_at = at = rollup.db_now().timestamp() - 3600
    for _ in range(50):                    # one switch-day a run: bounded batches, as the beat's runs are
        at += STEP
        _poll_each(at)                     # polling goes on between the batches
        report = settle.run(budget_s=60, max_switch_days=1)
        if not report.switch_days:
            break
        runs.append(report.rows)
    settle_s = time.monotonic() - started
    with connection.cursor() as cur:       # every poll between the batches stored, its delta from the row before
        cur.execute("SELECT count(*) FROM traffic_sample WHERE time >= to_timestamp(%s)", [first_at])
        assert cur.fetchone()[0] == SWITCHES * (len(runs) + 1)
        # (the first poll after the old archive's last, a day before, has no delta: too long a gap)
        cur.execute("SELECT array_agg(DISTINCT d) FROM traffic_sample, unnest(delta) d WHERE time > to_timestamp(%s)",
                    [first_at + STEP + 1])
        assert cur.fetchone()[0] == [POLL_INC]
    until = settle.horizon(rollup.db_now())
    assert until is not None
    settled = {key: n for key, n in before.items() if key[1] < until.date()}
    # Four days ending yesterday, settled up to two days ago: at least two days of each switch.
    assert len(settled) >= 2 * SWITCHES and len(runs) == len(settled), (runs, settled)
    assert report.caught_up

    with connection.cursor() as cur:
        cur.execute(PER_DAY_SQL)
        end = datetime.fromisoformat(made["end"]).date()        # the new polls are today's, after the old ones
        after = {(sw, day.date()): n for sw, day, n in cur.fetchall() if day.date() < end}
        assert not set(after) & set(settled), "a settled day still has rows in traffic_sample"
        assert after == {k: n for k, n in before.items() if k not in settled}
        cur.execute("SELECT switch_id, (lo AT TIME ZONE 'UTC')::date, polls FROM traffic_settled_poll")
        blocks = {(sw, day): n for sw, day, n in cur.fetchall()}
        assert blocks == settled               # every poll of every settled day is in a block
        cur.execute("SELECT p.switch_id, (p.lo AT TIME ZONE 'UTC')::date, count(s.series_id) "
                    "FROM traffic_settled_poll p JOIN traffic_settled_series s USING (switch_id, lo) GROUP BY 1, 2")
        series_blocks = {(sw, day): n for sw, day, n in cur.fetchall()}
        assert series_blocks == {k: 3 for k in settled}     # a block per series of the switch

    assert _csvs(made) == old_csv          # settled: still the old code's bytes, every line

    # Runs without a batch limit go on to the tiers: the 1-minute and 15-minute buckets of the spans
    # past the horizon become blocks, one (tier, switch, span) a transaction, polls going on.
    for _ in range(20):
        at += STEP
        _poll_each(at)
        report = settle.run(budget_s=60)
        if report.caught_up and not report.tiers.blocks:
            break
    assert report.caught_up
    now = rollup.db_now()
    with connection.cursor() as cur:
        cur.execute("SELECT tier, switch_id, count(*) FROM traffic_settled_tier GROUP BY 1, 2")
        tier_blocks = {(tier, sw): n for tier, sw, n in cur.fetchall()}
        for sw in {sw for sw, _ in settled}:
            assert tier_blocks.get(("1m", sw), 0) >= 2 and ("15m", sw) in tier_blocks, tier_blocks
        for tier in SETTLED_TIERS:
            cut = tier_settle.horizon(tier, now, rollup.watermarks())
            cur.execute(f"SELECT count(*) FROM {tier.table} WHERE bucket < %s", [cut])
            assert cur.fetchone()[0] == 0, f"{tier.name} rows left before {cut}"
    assert _csvs(made) == old_csv          # tiers settled too: the old code's bytes, every line
    print(f"\nold archive {sum(made['polls'].values())} polls, written and exported in {old_s:.1f} s; "
          f"{len(runs)} settle runs ({sum(runs)} rows, {datetime.now().isoformat(timespec='seconds')}) "
          f"in {settle_s:.1f} s; CSV bytes {[len(v) for v in old_csv.values()]}")
