"""The traffic page, JSON API and CSV export on real data with known rates.

The fixture network (conftest.build_net) carries exact rates: port A1 receives 100,000 cells/s
and transmits 50,000, its VCs 1,000/2,000/3,000 cells/s, an IP interface 100 Mb/s. Every
statistic, unit conversion and total is checked against those numbers or against SQL sums of
the archived deltas.
"""
from __future__ import annotations

import csv
import html
import io
from datetime import timedelta

import pytest
from django.db import connection
from django.http import StreamingHttpResponse

from collector.archive import rollup
from collector.archive.rollup import floor_time
from collector.reader import catalog
from tests.support import traffic_factory as f
from tests.support.traffic_network import IP_BYTES, RX, TX, VC_RATES, build_net

pytestmark = pytest.mark.usefixtures("plain_static")


def get_json(client, url, status=200):
    r = client.get(url)
    assert r.status_code == status, r.content[:500]
    return r.json()


def csv_rows(response) -> list[list[str]]:
    assert isinstance(response, StreamingHttpResponse)
    text = b"".join(response.streaming_content).decode()
    return list(csv.reader(io.StringIO(text)))


def archived(series_id: int, start, end) -> int:
    """Sum of the stored deltas drawn as traffic, straight from the samples."""
    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(sum(u.d), 0) FROM traffic_sample s JOIN traffic_layout l ON l.id = s.layout_id, "
                    "unnest(l.series_ids, s.delta, s.flags) AS u(sid, d, f) WHERE u.sid = %s AND s.time >= %s "
                    "AND s.time < %s AND u.d IS NOT NULL AND u.f & 8 = 0 AND s.interval_ms > 0",
                    [series_id, start, end])
        return int(cur.fetchone()[0])


# --- plots at every time scale --------------------------------------------------------------

@pytest.mark.parametrize("rng, res", [("1h", "raw"), ("3h", "raw"), ("24h", "1m"), ("7d", "15m"), ("30d", "1h"),
                                      ("1y", "1d"), ("all", "15m")])
def test_every_time_scale_shows_the_known_rates(net, client, rng, res):
    body = get_json(client, f"/traffic/api/data?s={net.rx.id},{net.tx.id}&range={rng}&figure=1")
    assert body["resolution"] == res
    assert body["unit"] == "cells" and body["unit_label"] == "cells/s"
    rx, tx = body["series"]
    assert rx["label"] == "asx-1 A1 Receive" and tx["label"] == "asx-1 A1 Transmit"
    for s, rate in ((rx, RX), (tx, TX)):
        assert s["stats"]["average"] == pytest.approx(rate, rel=1e-12)
        assert s["stats"]["peak"] == pytest.approx(rate, rel=1e-12)
        assert s["stats"]["p95"] == pytest.approx(rate, rel=1e-12)
        assert len(s["points"]["t"]) <= 2000
        assert all(v == pytest.approx(rate) for v in s["points"]["avg"] if v is not None)
    lines = [t for t in body["figure"]["data"] if t["meta"].get("role") == "average"]
    # One unbroken step line: a vertex per drawn bucket, plus the last one held to its bucket's
    # end. 36 h of data cover 2 or 3 days, by the time of day the test runs.
    drawn = sum(v is not None for v in rx["points"]["avg"])
    assert len(lines) == 2 and drawn >= 2
    assert sum(y is not None for y in f.decode(lines[0]["y"])) == drawn + 1


@pytest.mark.parametrize("unit, value", [("cells", RX), ("mbps_cells", RX * 424 / 1e6),
                                         ("mbps_payload", RX * 384 / 1e6), ("bps", RX * 424),
                                         ("pct", 100 * RX / f.OC3_CELLS)])
def test_units(net, client, unit, value):
    body = get_json(client, f"/traffic/api/data?s={net.rx.id}&range=3h&unit={unit}")
    assert body["series"][0]["stats"]["average"] == pytest.approx(value, rel=1e-12)


def test_ip_interfaces_in_bits_per_second(net, client):
    body = get_json(client, f"/traffic/api/data?s={net.ip_in.id}&range=24h")
    assert body["unit"] == "bps"
    assert body["series"][0]["stats"]["average"] == pytest.approx(IP_BYTES * 8, rel=1e-12)
    assert body["series"][0]["stats"]["total_unit"] == "bytes"
    pct = get_json(client, f"/traffic/api/data?s={net.ip_in.id}&range=24h&unit=pct")
    assert pct["series"][0]["stats"]["average"] == pytest.approx(10.0)


def test_vcs_of_a_port_stacked(net, client):
    ids = ",".join(str(s.id) for s in net.vcs)
    body = get_json(client, f"/traffic/api/data?s={ids}&range=24h&stack=1&figure=1")
    assert [s["label"] for s in body["series"]] == [f"asx-1 A1 Receive VP:0 VC:{100 + i}" for i in range(3)]
    assert [s["stats"]["average"] for s in body["series"]] == pytest.approx(list(VC_RATES))
    lines = [t for t in body["figure"]["data"] if t["meta"].get("role") == "average"]
    assert {t.get("stackgroup") for t in lines} == {"stack"}


def test_zooming_in_reads_finer_data(net, client):
    start = floor_time(net.end - timedelta(hours=5), 3600)
    wide = get_json(client, f"/traffic/api/data?s={net.rx.id}&range=24h")
    zoom = get_json(client, f"/traffic/api/data?s={net.rx.id}&start={start:%Y-%m-%dT%H:%M:%SZ}"
                            f"&end={start + timedelta(minutes=40):%Y-%m-%dT%H:%M:%SZ}")
    assert (wide["resolution"], zoom["resolution"]) == ("1m", "raw")
    assert zoom["range"] == "custom" and len(zoom["series"][0]["points"]["t"]) == 160


def test_all_data_starts_at_the_first_sample(net, client):
    body = get_json(client, f"/traffic/api/data?s={net.rx.id}&range=all")   # 36 h: 15-minute buckets
    assert body["start"] == f"{floor_time(net.start, 900):%Y-%m-%dT%H:%M:%S}Z"
    assert body["series"][0]["points"]["t"][0] == body["start"]


# --- exact totals, tiers and tail -----------------------------------------------------------

@pytest.mark.parametrize("res", ["raw", "1m", "15m", "1h", "auto"])
def test_range_totals_equal_the_archived_deltas(net, client, res):
    start = floor_time(net.start + timedelta(hours=3), 3600)
    end = start + timedelta(hours=20)
    q = f"s={net.rx.id},{net.vcs[1].id}&start={start:%Y-%m-%dT%H:%M:%SZ}&end={end:%Y-%m-%dT%H:%M:%SZ}&res={res}"
    body = get_json(client, f"/traffic/api/data?{q}")
    for s in body["series"]:
        want = archived(s["id"], start, end)
        assert s["stats"]["total"] == want == sum(s["points"]["total"])
    rows = csv_rows(client.get(f"/traffic/export.csv?{q}"))
    header = rows[0]
    for s in body["series"]:
        col = header.index(f"{s['label']} {'delta' if body['resolution'] == 'raw' else 'total'} [cells]")
        assert sum(int(r[col]) for r in rows[1:] if r[col]) == archived(s["id"], start, end)


def test_rollup_tiers_and_the_live_tail_give_identical_answers(transactional_db, client):
    """Before any rollup everything is aggregated from raw samples; after it, from the tiers."""
    net = build_net(hours=30, rollup=False)
    urls = [f"/traffic/api/data?s={net.rx.id},{net.vcs[0].id}&range={r}" for r in ("24h", "7d", "30d", "1y")]
    before = [get_json(client, u) for u in urls]
    rollup.run(budget_s=300)
    assert rollup.watermarks()["1d"] is not None
    after = [get_json(client, u) for u in urls]
    for b, a in zip(before, after):
        assert b["resolution"] == a["resolution"]
        for sb, sa in zip(b["series"], a["series"]):
            assert sb["points"] == sa["points"]
            assert {k: v for k, v in sb["stats"].items()} == {k: v for k, v in sa["stats"].items()}


# --- gaps, flags and their reasons ----------------------------------------------------------

@pytest.fixture
def gappy(transactional_db):
    """One hour of 15 s polls with a reboot, an over-capacity spike, a wrap and a 5-minute
    outage whose polls timed out (the poll after it carries the average over the hole)."""
    now = rollup.db_now()
    t0 = floor_time(now - timedelta(hours=3), 3600)
    sw = f.switch("flaky")
    p = f.port(sw, "C1", capacity_cells=96_000, speed_bps=44_736_000)
    s = f.series(p, "in", capacity=96_000)
    lay = f.layout(sw, [s])
    rows = [(0.0, None, [None], [32])]
    t = 0.0
    for k in range(1, 230):
        t += 15
        if 100 <= k < 120:               # the outage: no rows, the poll log says why
            f.poll_log(sw, t, "timeout", "No SNMP response received before timeout", t0=t0)
            continue
        if k == 120:
            rows.append((t, 315_000, [315 * 1000], [64]))
        elif k == 40:
            rows.append((t, 15000, [None], [2]))
        elif k == 60:
            rows.append((t, 15000, [10 ** 8], [8]))
        elif k == 80:
            rows.append((t, 15000, [15 * 1000], [1]))
        else:
            rows.append((t, 15000, [15 * 1000], [0]))
    f.insert(sw, lay, rows, t0=t0)
    rollup.run(budget_s=120)
    return s, t0


def test_gaps_are_drawn_as_gaps_with_their_reason(gappy, client):
    s, t0 = gappy
    q = f"s={s.id}&start={t0:%Y-%m-%dT%H:%M:%SZ}&end={t0 + timedelta(hours=1):%Y-%m-%dT%H:%M:%SZ}"
    body = get_json(client, f"/traffic/api/data?{q}&figure=1")
    assert body["resolution"] == "raw"
    gaps = body["series"][0]["gaps"]
    reasons = " | ".join(g["reason"] for g in gaps)
    assert "REBOOT" in reasons and "OVER_CAPACITY" in reasons
    missed = [g for g in gaps if g["kind"] == "missed"]
    assert len(missed) == 1 and "20 polls timeout (No SNMP response" in missed[0]["reason"]
    flags = body["series"][0]["points"]["flags"]
    assert ["WRAP"] in flags and ["GAP"] in flags and ["REBOOT"] in flags and ["OVER_CAPACITY"] in flags
    st = body["series"][0]["stats"]
    assert st["average"] == pytest.approx(1000.0) and st["peak"] == pytest.approx(1000.0)   # the spike is not traffic
    shapes = body["figure"]["layout"]["shapes"]
    assert len(shapes) >= 3
    gap_hover = next(t for t in body["figure"]["data"] if t["meta"].get("role") == "gaps")
    assert any("timeout" in text for text in gap_hover["text"])
    # the same reasons, per bucket, at a coarser resolution
    one_min = get_json(client, f"/traffic/api/data?{q}&res=1m")
    assert one_min["series"][0]["stats"]["total"] == body["series"][0]["stats"]["total"]
    assert any("timeout" in g["reason"] for g in one_min["series"][0]["gaps"])


def test_csv_says_why_as_well(gappy, client):
    s, t0 = gappy
    q = f"s={s.id}&start={t0:%Y-%m-%dT%H:%M:%SZ}&end={t0 + timedelta(hours=1):%Y-%m-%dT%H:%M:%SZ}"
    raw = csv_rows(client.get(f"/traffic/export.csv?{q}&raw=1"))
    assert raw[0] == ["time", "flaky C1 Receive rate [cells/s]", "flaky C1 Receive delta [cells]",
                      "flaky C1 Receive interval [s]", "flaky C1 Receive flags"]
    flags = [r[4] for r in raw[1:]]
    assert flags.count("poll timeout (No SNMP response received before timeout)") == 20
    assert "REBOOT" in flags and "WRAP" in flags and "GAP" in flags and "FIRST" in flags
    spike = next(r for r in raw[1:] if r[4] == "OVER_CAPACITY")
    assert spike[1] == "" and spike[2] == str(10 ** 8)     # kept, flagged, not a rate
    gap_row = next(r for r in raw[1:] if r[4] == "GAP")
    assert gap_row[1] == "1000" and gap_row[3] == "315"
    assert all(r[0].endswith("Z") and "T" in r[0] for r in raw[1:])
    buckets = csv_rows(client.get(f"/traffic/export.csv?{q}&res=1m"))
    assert buckets[0][1:] == [f"flaky C1 Receive {c}" for c in ("average [cells/s]", "peak [cells/s]",
                                                                "total [cells]", "drawn [s]", "samples", "flags")]
    assert any("4 polls timeout" in r[6] for r in buckets[1:])
    assert any("flagged" in r[6] for r in buckets[1:])


# --- CSV ------------------------------------------------------------------------------------

def test_csv_of_the_plot_matches_the_plot(net, client):
    q = f"s={net.rx.id},{net.tx.id}&range=7d&unit=mbps_payload"
    body = get_json(client, f"/traffic/api/data?{q}")
    r = client.get(f"/traffic/export.csv?{q}")
    assert r["Content-Type"].startswith("text/csv")
    assert r["Content-Disposition"].startswith('attachment; filename="cellar_asx-1_A1_and_1_more_')
    rows = csv_rows(r)
    assert rows[0][:4] == ["time", "asx-1 A1 Receive average [Mb/s of 48-byte payload]",
                           "asx-1 A1 Receive peak [Mb/s of 48-byte payload]", "asx-1 A1 Receive total [cells]"]
    data = [row for row in rows[1:] if row[1]]
    pts = body["series"][0]["points"]
    assert [row[0] for row in data] == [t for t, a in zip(pts["t"], pts["avg"]) if a is not None]
    assert [float(row[1]) for row in data] == pytest.approx([a for a in pts["avg"] if a is not None])
    assert float(data[0][1]) == pytest.approx(RX * 384 / 1e6)


def test_raw_csv_on_request(net, client):
    rows = csv_rows(client.get(f"/traffic/export.csv?s={net.rx.id}&range=1h&raw=1"))
    assert rows[0] == ["time", "asx-1 A1 Receive rate [cells/s]", "asx-1 A1 Receive delta [cells]",
                       "asx-1 A1 Receive interval [s]", "asx-1 A1 Receive flags"]
    assert 230 <= len(rows) - 1 <= 241
    assert rows[1][1:] == ["100000", str(RX * 15), "15", ""]


def test_csv_of_two_switches_merges_by_time(net, client):
    rows = csv_rows(client.get(f"/traffic/export.csv?s={net.rx.id},{net.ip_in.id}&range=1h&raw=1&unit=bps"))
    assert rows[0][5] == "router-1 eth0 Receive rate [bits/s]"
    times = [r[0] for r in rows[1:]]
    assert times == sorted(times)
    assert all(r[1] == str(RX * 424) and r[5] == str(IP_BYTES * 8) for r in rows[1:])


def test_export_cli(net, tmp_path):
    from django.core.management import call_command

    out = tmp_path / "a1.csv"
    start = floor_time(net.start + timedelta(hours=2), 3600)
    end = start + timedelta(hours=1)
    call_command("export_csv", "--switch", "asx-1", "--port", "A1", "--direction", "in", "--start",
                 start.isoformat(), "--end", end.isoformat(), "--resolution", "raw", "--output", str(out))
    rows = list(csv.reader(out.open()))
    assert rows[0][1] == "asx-1 A1 Receive rate [cells/s]" and len(rows) == 241
    assert sum(int(r[2]) for r in rows[1:]) == archived(net.rx.id, start, end)
    both = tmp_path / "both.csv"
    call_command("export_csv", "--switch", "asx-1", "--port", "A1", "--start", start.isoformat(), "--end",
                 end.isoformat(), "--resolution", "15m", "--output", str(both))
    header = next(csv.reader(both.open()))
    assert "asx-1 A1 Receive total [cells]" in header and "asx-1 A1 Transmit total [cells]" in header
    vc = tmp_path / "vc.csv"
    call_command("export_csv", "--switch", "asx-1", "--port", "A1", "--vpi", "0", "--vci", "101",
                 "--output", str(vc))
    assert next(csv.reader(vc.open()))[1] == "asx-1 A1 Receive VP:0 VC:101 average [cells/s]"


@pytest.mark.parametrize("args, message", [
    (["--switch", "nope", "--port", "A1"], "unknown switch 'nope'"),
    (["--switch", "asx-1", "--port", "Z9"], "no port 'Z9' on asx-1"),
    (["--switch", "asx-1", "--port", "A1", "--vci", "5"], "--vci needs --vpi"),
    (["--switch", "asx-1", "--port", "A1", "--start", "2026-11-22T10:00Z", "--end", "2026-11-22T09:00Z"],
     "is not before end"),
    (["--switch", "asx-1", "--port", "A1", "--unit", "pps"], "does not apply"),
])
def test_export_cli_errors(net, args, message):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match=message):
        call_command("export_csv", *args)


# --- bad input: 400 with a message, never a 500 ---------------------------------------------

BAD = [
    ("s=999999", "unknown series id: 999999"),
    ("s=abc", "is not a number"),
    ("s={rx}&start=2026-11-22T10:00Z&end=2026-11-22T09:00Z", "is not before end"),
    ("s={rx}&start=1900-01-01T00:00Z&end=2026-11-22T09:00Z", "before 1990"),
    ("s={rx}&start=2026-11-22T10:00Z&end=2999-01-01T00:00Z", "in the future"),
    ("s={rx}&start=noon", "not an ISO 8601 time"),
    ("s={rx}&unit=furlongs", "unknown unit 'furlongs'"),
    ("s={rx}&unit=pps", "does not apply to asx-1 A1 Receive"),
    ("s={rx}&range=fortnight", "unknown range"),
    ("s={rx}&res=5s", "unknown resolution"),
    ("s={rx}&res=raw&range=1y", "points per series"),
    ("s={rx},{ip_pkts}&unit=bps", "does not apply to router-1 eth0 Receive unicast packets"),
]


@pytest.mark.parametrize("query, message", BAD)
def test_bad_input_is_a_400_that_says_why(net, client, query, message):
    q = query.format(rx=net.rx.id, ip_pkts=net.ip_pkts.id)
    api = client.get(f"/traffic/api/data?{q}")
    assert api.status_code == 400 and message in api.json()["error"]
    if "res=raw&range=1y" not in q:      # a CSV has no point limit
        exp = client.get(f"/traffic/export.csv?{q}")
        assert exp.status_code == 400 and message in exp.content.decode()
    if "points per series" not in message:
        page = client.get(f"/traffic/?{q}")
        assert page.status_code == 400 and message in html.unescape(page.content.decode())


def test_empty_selection(net, client):
    assert client.get("/traffic/").status_code == 200
    r = client.get("/traffic/api/data?range=1h")
    assert r.status_code == 400 and "no series selected" in r.json()["error"]


def test_reading_needs_no_login_and_writing_is_not_offered(net, client):
    assert client.get(f"/traffic/api/data?s={net.rx.id}").status_code == 200
    assert client.post(f"/traffic/api/data?s={net.rx.id}").status_code == 405
    # A POST of the CSV URL creates a background export job (tests/webapp/traffic/test_export_limits.py).
    assert client.put("/traffic/export.csv").status_code == 405


# --- inventory and series API ---------------------------------------------------------------

def test_inventory_and_tree(net, client):
    switches = get_json(client, "/traffic/api/inventory")["switches"]
    assert [s["name"] for s in switches] == ["asx-1", "router-1"]
    tree = get_json(client, f"/traffic/api/inventory/{net.switch.id}")
    a1 = next(p for p in tree["ports"] if p["name"] == "A1")
    assert a1["label"] == "merlin-atm.edc" and a1["is_atm"]
    assert {s["direction"] for s in a1["series"]} == {"in", "out"}
    assert a1["vps"][0]["vpi"] == 0 and [vc["vci"] for vc in a1["vps"][0]["vcs"]] == [100, 101, 102]
    ip_tree = get_json(client, f"/traffic/api/inventory/{net.ip_switch.id}")
    assert ip_tree["ports"][0]["is_atm"] is False
    assert len(ip_tree["ports"][0]["series"]) == 2
    assert get_json(client, "/traffic/api/inventory/99999", status=404)["error"] == "unknown switch id 99999"


@pytest.mark.parametrize("q, labels", [
    ("VC:101", ["asx-1 A1 Receive VP:0 VC:101"]),
    ("0/102", ["asx-1 A1 Receive VP:0 VC:102"]),
    ("asx-1 A1 transmit", ["asx-1 A1 Transmit"]),
    ("merlin tx", ["asx-1 A1 Transmit"]),
    ("router packets", ["router-1 eth0 Receive unicast packets"]),
    ("router-1 eth0", ["router-1 eth0 Receive", "router-1 eth0 Receive unicast packets"]),
])
def test_series_search(net, client, q, labels):
    body = get_json(client, f"/traffic/api/series?q={q}")
    assert [s["label"] for s in body["series"]] == labels and body["total"] == len(labels)


def test_series_filters_and_limit(net, client):
    body = get_json(client, "/traffic/api/series?switch=asx-1&port=A1&direction=in&limit=2")
    assert body["total"] == 4 and len(body["series"]) == 2
    assert get_json(client, "/traffic/api/series?limit=0", status=400)["error"].startswith("limit must be")


def test_series_search_ranks_at_most_rank_max_matches_and_says_so(net, client, monkeypatch):
    body = get_json(client, "/traffic/api/series?q=asx-1")
    assert body["total"] > 3 and body["more"] is False and "note" not in body
    monkeypatch.setattr(catalog, "RANK_MAX", 3)      # the bound, small enough for the test network
    capped = get_json(client, "/traffic/api/series?q=asx-1")
    assert (capped["total"], capped["more"], len(capped["series"])) == (3, True, 3)
    assert capped["note"].startswith("more than 3 series match") and "narrow the search" in capped["note"]
    # within the bound, the same answer as before
    assert get_json(client, "/traffic/api/series?q=VC:101")["more"] is False


def test_page_holds_the_selection_in_its_url(net, client):
    r = client.get(f"/traffic/?s={net.rx.id},{net.tx.id}&range=7d&unit=mbps_cells&stack=1")
    html = r.content.decode()
    assert r.status_code == 200
    assert '"range": "7d"' in html and '"unit": "mbps_cells"' in html and '"stack": true' in html
    assert "asx-1 A1 Transmit" in html and "traffic/vendor/plotly.min.js" in html


def test_readable_links_to_a_port_vp_or_vc(net, client):
    r = client.get("/traffic/port/asx-1/A1/")
    assert r.status_code == 302 and r["Location"] == f"/traffic/?s={net.rx.id},{net.tx.id}&range=24h"
    r = client.get("/traffic/port/asx-1/A1/?vpi=0&vci=101&range=7d")
    assert r["Location"] == f"/traffic/?s={net.vcs[1].id}&range=7d"
    assert client.get(r["Location"]).status_code == 200
    assert client.get("/traffic/port/asx-1/A1/?direction=out")["Location"].startswith(f"/traffic/?s={net.tx.id}&")
    assert client.get("/traffic/port/router-1/eth0/")["Location"].startswith(f"/traffic/?s={net.ip_in.id}&")
    missing = client.get("/traffic/port/asx-1/Q7/")
    assert missing.status_code == 404 and "no port 'Q7' on asx-1" in html.unescape(missing.content.decode())
    assert client.get("/traffic/port/asx-1/A1/?vpi=x").status_code == 404


# --- what the page asks for: the figure first, the 95th percentile after -------------------

def test_page_request_leaves_out_points_and_p95_and_api_p95_gives_it(net, client):
    full = get_json(client, f"/traffic/api/data?s={net.rx.id},{net.tx.id}&range=7d&figure=1")
    page = get_json(client, f"/traffic/api/data?s={net.rx.id},{net.tx.id}&range=7d&figure=1&points=0&p95=0")
    later = get_json(client, f"/traffic/api/p95?s={net.rx.id},{net.tx.id}&range=7d")
    for a, b, c in zip(full["series"], page["series"], later["series"]):
        assert "points" not in b and b["n_points"] == a["n_points"] == len(a["points"]["t"]) > 100
        assert b["stats"]["p95"] is None and b["stats"]["average"] == a["stats"]["average"]
        assert c["id"] == a["id"] and c["p95"] == pytest.approx(a["stats"]["p95"], rel=1e-12)
        assert c["p95"] == pytest.approx(RX if a["id"] == net.rx.id else TX, rel=1e-12)
    assert later["p95_basis"] == full["series"][0]["stats"]["p95_basis"]
    assert [t["x"] for t in page["figure"]["data"]] == [t["x"] for t in full["figure"]["data"]]


@pytest.mark.parametrize("query, message", [
    ("figure=2", "figure=1 or figure=0"), ("points=maybe", "points=1 or points=0"),
    ("p95=yes please", "p95=1 or p95=0")])
def test_bad_switches_are_400(net, client, query, message):
    r = client.get(f"/traffic/api/data?s={net.rx.id}&{query}")
    assert r.status_code == 400 and message in r.json()["error"]
