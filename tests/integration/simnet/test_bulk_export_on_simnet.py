"""A network-wide bulk export, end to end: the simulated network's switches (known constant rates; asx200bx
D1's transmit Counter32 wraps mid-window; ipsw8 reboots) polled by Cellar's own poller into TimescaleDB,
then exported from the CLI as CSV and as Parquet and from the web as a background job that a real worker
writes. pandas reads the Parquet and every value equals the CSV's (rows, times with their zone, labels,
exact integers, rates); the rows are every archived reading of every counter; the drawn rates are the
agents' true rates within 1 %; the 1-minute tier's deltas sum to the raw export's; the web's Parquet is
the CLI's. Bad input from the web and over the inline limit answers with the limit named."""
from __future__ import annotations

import io
import shutil
import time
from datetime import timedelta

import pandas as pd
import pytest
import redis
from django.core.management import call_command
from django.db import connection
from django.test import Client

from collector.archive import rollup
from collector.core.isotime import iso
from collector.inventory.models import Switch
from collector.poller import runner
from simnet.runner import SimNetwork, find_free_base_port
from tests.support import bulk_check
from tests.support.celery_procs import CeleryProcess, wait_for
from tests.support.simnet_lab import make_state_dir
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.timeout(400)]
WRAP_IN = 30.0      # the near-wrap Counter32 wraps this long after the network starts
ROUNDS, EVERY_S = 9, 5.0
REBOOTED = "ipsw8"


@pytest.fixture
def polled(tmp_path):
    state = make_state_dir("bulk")
    net = SimNetwork(state, find_free_base_port(5), wrap_in=WRAP_IN, hosts=False)
    net.start()
    try:
        call_command("seed_simnet", "--manifest", str(net.state_dir / "manifest.json"), "--interval", "5")
        switches = list(Switch.objects.order_by("name"))
        start = rollup.db_now()
        for k in range(ROUNDS):
            began = time.monotonic()
            if k == ROUNDS // 2:
                net.restart_agent(REBOOTED)
            for sw in switches:
                assert runner.poll_once(sw.id).ok, sw.name
            time.sleep(max(0.0, EVERY_S - (time.monotonic() - began)))
        end = rollup.db_now() + timedelta(seconds=1)
        yield net.manifest, start, end
    finally:
        net.stop()
        shutil.rmtree(state, ignore_errors=True)


def _cli(tmp_path, name: str, *args: str):
    out = tmp_path / name
    call_command("export", *args, "--output", str(out), stdout=io.StringIO())
    return out


def _archived_readings(start, end) -> int:
    """Counter readings stored in the window (every element of every counter series in a sample row)."""
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id "
                    "CROSS JOIN LATERAL unnest(l.series_ids) AS u(sid) JOIN traffic_series t ON t.id = u.sid "
                    "AND t.kind = 'counter' WHERE s.time >= %s AND s.time < %s", [start, end])
        return cur.fetchone()[0]


def test_a_network_wide_export_is_the_same_in_csv_and_parquet_and_in_the_web_job(polled, tmp_path, settings):
    manifest, start, end = polled
    window = ["--start", iso(start), "--end", iso(end)]
    csv = _cli(tmp_path, "net.csv", "--all", *window)
    parquet = _cli(tmp_path, "net.parquet", "--all", *window, "--format", "parquet")
    df = bulk_check.assert_same(csv, parquet)

    assert len(df) == _archived_readings(start, end) > 1000
    assert set(df["switch"].astype(str)) == {e["name"] for e in manifest["switches"]}
    words = {w for x in df["flags"].dropna().astype(str) for w in x.split("|")}
    assert {"WRAP", "REBOOT", "FIRST"} <= words, words
    rebooted = df[df["flags"].astype(str).str.contains("REBOOT")]
    assert set(rebooted["switch"].astype(str)) == {REBOOTED} and rebooted["delta"].isna().all()
    wrapped = df[df["flags"].astype(str).str.contains("WRAP")]
    assert (wrapped["switch"].astype(str) == manifest["near_wrap"]["counter32"]["switch"]).all()
    assert (wrapped["counter"] < wrapped["delta"]).all()         # the reading came round past 2^32

    # Every drawn rate is the agent's true rate (the manifest's), within 1 %.
    truth = {(e["name"], t["object"], t["index"]): t["rate"] for e in manifest["switches"] for t in e["series"]}
    from collector.archive.models import Series
    key = {s.id: (s.switch.name, s.object_name, s.index) for s in Series.objects.select_related("switch")}
    drawn = df.dropna(subset=["rate"])
    checked = 0
    for sid, rates in drawn.groupby("series_id")["rate"]:
        want = truth.get(key[int(sid)])
        if want is None:
            continue      # a 32-bit fallback answered for a 64-bit object (named after the profile's)
        assert rates.median() == pytest.approx(want, rel=0.01, abs=2), key[int(sid)]
        checked += 1
    assert checked > 100

    # The 1-minute tier of the same window: its deltas sum to the raw export's drawn deltas.
    rollup.run(budget_s=60, lag_s=0)
    tier_csv = _cli(tmp_path, "tier.csv", "--all", *window, "--resolution", "1m")
    tier = bulk_check.assert_same(tier_csv, _cli(tmp_path, "tier.parquet", "--all", *window, "--resolution", "1m",
                                                 "--format", "parquet"))
    assert int(tier["delta"].sum()) == int(drawn["delta"].sum()) and int(tier["samples"].sum()) == len(df)

    wide = pd.read_csv(_cli(tmp_path, "wide.csv", "--all", *window, "--format", "csv-wide"))
    assert len(wide) == df["time"].nunique() and len(wide.columns) == 1 + df["series_id"].nunique()

    # The web: over the inline limit a 409 naming it; bad input a 400 naming the problem; POST: a job that a
    # real worker writes, with progress, whose Parquet is the CLI's.
    settings.CELLAR_EXPORT_DIR = tmp_path / "exports"
    settings.CELLAR_CSV_SYNC_MAX_CELLS = 1000
    settings.CELLAR_RATE_LIMIT_USER = settings.CELLAR_RATE_LIMIT_ADDRESS = "100000/m"
    redis.Redis.from_url(settings.REDIS_URL).delete("exports")
    web = Client()
    web.force_login(make_user("vera", "viewer"))
    q = f"all=1&start={iso(start)}&end={iso(end)}&format=parquet"
    offer = web.get(f"/exports/api/bulk?{q}")
    assert offer.status_code == 409 and "a direct download holds at most 1,000" in offer.json()["error"]
    bad = web.get(f"/exports/api/bulk?all=1&switch=asx200bx&start={iso(start)}")
    assert bad.status_code == 400 and "give one scope, not switches and all" in bad.json()["error"]
    small = web.get(f"/exports/api/bulk?switch={REBOOTED}&start={iso(start)}&end={iso(end)}&res=1m")
    assert small.status_code == 200 and small["Content-Type"].startswith("text/csv")
    want = _cli(tmp_path, "small.csv", "--switch", REBOOTED, *window, "--resolution", "1m").read_bytes()
    assert b"".join(small.streaming_content) == want

    worker = CeleryProcess("worker", tmp_path, queues="exports", REDIS_URL=settings.REDIS_URL,
                           CELLAR_EXPORT_DIR=str(tmp_path / "exports"))
    try:
        worker.wait_for_log("ready.")
        created = web.post(f"/exports/api/bulk?{q}", HTTP_ACCEPT="application/json")
        assert created.status_code == 202, created.content
        job = created.json()
        assert job["expected_rows"] >= len(df)
        assert wait_for(lambda: web.get(job["json_url"]).json()["status"] in ("done", "failed"), 120), worker.tail()
    finally:
        worker.kill()
    state = web.get(job["json_url"]).json()
    assert state["status"] == "done" and state["rows_written"] == len(df), state
    got = web.get(job["download_url"])
    assert got["Content-Type"] == "application/vnd.apache.parquet"
    (tmp_path / "web.parquet").write_bytes(b"".join(got.streaming_content))
    pd.testing.assert_frame_equal(bulk_check.read_parquet(tmp_path / "web.parquet"), bulk_check.read_parquet(parquet))
    page = web.get(job["page_url"]).content.decode()
    assert "Parquet export" in page and "the whole network" in page
