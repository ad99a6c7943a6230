"""The data inventory page, JSON and CSV over an archive with known bursts, gaps and totals."""
from __future__ import annotations

import csv
import html as htmlmod
import io
from datetime import timedelta

import pytest
from django.db import connection

from collector.bursts import scan as scan
from collector.core.isotime import iso
from tests.support import burst_archive as arc
from tests.support import traffic_factory as f

pytestmark = pytest.mark.usefixtures("plain_static")


@pytest.fixture
def archive(transactional_db):
    f.reset_rollups()
    built = arc.build()
    scan.run(budget_s=120)
    yield built
    f.reset_rollups()


def stored_total(series_id: int, before=None) -> int:
    """Sum of the stored deltas of a series (of samples before `before`, when given)."""
    with connection.cursor() as cur:
        cur.execute("SELECT sum(u.d) FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id, "
                    "unnest(l.series_ids, s.delta) AS u(sid, d) WHERE u.sid = %s "
                    "AND (%s::timestamptz IS NULL OR s.time < %s)", [series_id, before, before])
        return int(cur.fetchone()[0])


def api(client, **params):
    r = client.get("/datasets/api", params)
    assert r.status_code == 200, r.content[:300]
    return r.json()


def test_every_series_with_its_data_totals_coverage_and_bursts(client, archive):
    body = api(client)
    rows = {r["series_id"]: r for r in body["rows"]}
    quiet, bursty = rows[archive["quiet"].id], rows[archive["bursty"].id]
    for r, s in ((quiet, archive["quiet"]), (bursty, archive["bursty"])):
        assert (r["switch"], r["tr"], r["unit"]) == ("sc95-floor", "T", "cells")
        assert r["total"] == stored_total(s.id)                    # exact, from the tiers
        # first and last data to the minute (found down in the 1-minute tier)
        assert r["first"] == iso(archive["t0"]) and r["first_precision"] == "1m"
        assert r["last"] == iso(archive["end"]) and r["last_precision"] == "1m"    # the last poll, at the end
        missed = (arc.MISSED[1] - arc.MISSED[0]) // arc.STEP
        assert r["missed_polls"] == pytest.approx(missed, abs=5)
        assert 0.99 < r["coverage"] < 1
    assert quiet["bursts"] == 0 and bursty["bursts"] == 2
    assert bursty["peak"] == pytest.approx(arc.BURST, rel=0.01)
    assert bursty["burst_start"][:16] == iso(archive["t0"] + timedelta(seconds=arc.BURSTS[0][0]))[:16]
    assert "start=" in bursty["plot"] and f"s={archive['bursty'].id}" in bursty["plot"]
    assert body["tiers"] and {t["tier"] for t in body["tiers"]} <= {"1m", "15m", "1h", "1d"} and body["server_ms"] > 0
    assert body["bursts_last_scanned"] is not None and "4 x median" in body["notes"][0]


def test_filters_by_switch_port_and_range(client, archive):
    assert [r["port"] for r in api(client, switch="sc95-floor", port="B2")["rows"]] == ["B2"]
    day2 = api(client, start=iso(archive["t0"] + timedelta(days=1)), end=iso(archive["end"]))
    bursty = next(r for r in day2["rows"] if r["series_id"] == archive["bursty"].id)
    assert bursty["bursts"] == 1 and bursty["first"] == iso(archive["t0"] + timedelta(days=1))
    assert api(client, start=iso(archive["end"] + timedelta(days=1)))["rows"] == []


def test_a_year_is_read_from_a_coarse_tier_and_says_which(client, archive):
    body = api(client, start=iso(archive["t0"] - timedelta(days=355)), end=iso(archive["end"]))
    assert body["tiers"][0]["tier"] in ("1m", "15m", "1h", "1d")
    totals = {r["series_id"]: r["total"] for r in body["rows"]}
    assert totals[archive["bursty"].id] == stored_total(archive["bursty"].id, before=archive["end"])


@pytest.mark.parametrize("query,message", [
    ("start=yesterday", "start='yesterday' is not an ISO 8601 time"),
    ("start=2026-01-02T00:00:00Z&end=2026-01-01T00:00:00Z", "is not before end"),
    ("sort=colour", "cannot sort by 'colour'"), ("page=0", "page='0' is not a page number"),
    ("switch=nosuch", "no archived series of switch 'nosuch'"), ("start=1980-01-01T00:00:00Z", "before 1990")])
def test_bad_input_is_a_400_that_says_why(client, archive, query, message):
    r = client.get(f"/datasets/api?{query}")
    assert r.status_code == 400 and message in r.json()["error"]
    page = client.get(f"/datasets/?{query}")
    assert page.status_code == 400 and message in htmlmod.unescape(page.content.decode())


def test_sorting_the_page_and_the_csv(client, archive):
    html = client.get("/datasets/?sort=-bursts").content.decode()
    assert html.index("B2") < html.index("B1") and 'class="burst"' in html
    assert "sort=bursts" in html                                  # the header now sorts the other way
    r = client.get("/datasets/export.csv?sort=total")
    lines = b"".join(r.streaming_content).decode().splitlines()
    assert lines[0].startswith("# Cellar data inventory") and any("significant bursts" in x for x in lines[:3])
    data = list(csv.DictReader(io.StringIO("\n".join(x for x in lines if not x.startswith("#")))))
    assert [d["port"] for d in data] == ["B1", "B2"] and data[1]["bursts"] == "2"
