"""Top talkers over the traffic tests' network (tests/support/traffic_network.py: 36 h at exactly
known rates, rolled up): the page, the JSON and the CSV rank the known heavy series first, with
exact averages, an "other" row, every scope, percentiles, and bad input answered with its limit."""
from __future__ import annotations

import csv
import io

import pytest

from collector.groups import edit
from tests.support.traffic_network import IP_BYTES, RX, TX, VC_RATES

pytestmark = pytest.mark.django_db(transaction=True)
CELL_BITS = 53 * 8


def api(client, query: str, status: int = 200) -> dict:
    r = client.get(f"/talkers/api?{query}")
    assert r.status_code == status, r.content[:400]
    return r.json()


def test_the_known_heavy_ports_rank_first_with_their_exact_averages(net, client):
    body = api(client, "range=24h")
    ranked = [(row["series_id"], row["average"]) for row in body["rows"]]
    assert [sid for sid, _ in ranked] == [net.ip_in.id, net.rx.id, net.tx.id]
    assert ranked[0][1] == pytest.approx(IP_BYTES * 8, rel=1e-9)
    assert ranked[1][1] == pytest.approx(RX * CELL_BITS, rel=1e-9)
    assert ranked[2][1] == pytest.approx(TX * CELL_BITS, rel=1e-9)
    assert body["unit"] == "bits/s" and body["tier"] in ("1m", "15m") and body["other"]["count"] == 0
    assert sum(row["share_pct"] for row in body["rows"]) == pytest.approx(100.0)
    row = body["rows"][1]                  # every 15 s sample carries exactly RX x 15 cells
    assert row["samples"] > 5000 and row["total"] == RX * 15 * row["samples"]
    assert row["total_bytes"] == row["total"] * 53 and 99 < row["coverage_pct"] <= 100


def test_n_cuts_into_an_other_row_that_sums_the_rest(net, client):
    body = api(client, "range=24h&n=1")
    assert [r["series_id"] for r in body["rows"]] == [net.ip_in.id]
    other = body["other"]
    assert other["count"] == 2 and other["average"] == pytest.approx((RX + TX) * CELL_BITS, rel=1e-9)
    assert other["share_pct"] + body["rows"][0]["share_pct"] == pytest.approx(100.0)


def test_vcs_least_used_percent_of_capacity_and_scopes(net, client):
    body = api(client, "range=24h&entity=vc")
    assert [r["vci"] for r in body["rows"]] == [102, 101, 100]
    body = api(client, "range=24h&entity=vc&order=bottom&n=1")
    assert body["rows"][0]["vci"] == 100 and body["rows"][0]["average"] == pytest.approx(VC_RATES[0] * CELL_BITS)
    body = api(client, "range=24h&unit=pct&switch=asx-1&direction=in")
    assert [r["series_id"] for r in body["rows"]] == [net.rx.id]
    assert body["rows"][0]["value"] == pytest.approx(RX / 353_207 * 100)
    g = edit.save(edit.spec_from("two", f"{net.tx.id} {net.ip_in.id}", ""))
    assert [r["series_id"] for r in api(client, f"range=24h&group={g.id}")["rows"]] == [net.ip_in.id, net.tx.id]
    assert [r["series_id"] for r in api(client, "range=24h&poller_group=default&metric=packets")["rows"]] == [
        net.ip_pkts.id]


def test_by_peak_and_by_95th_percentile(net, client):
    body = api(client, "range=24h&by=peak")
    assert [r["series_id"] for r in body["rows"]] == [net.ip_in.id, net.rx.id, net.tx.id]
    body = api(client, "range=24h&by=p95&n=2")
    assert [r["series_id"] for r in body["rows"]] == [net.ip_in.id, net.rx.id]
    assert body["rows"][1]["p95"] == pytest.approx(RX * CELL_BITS, rel=1e-9)
    assert body["p95_basis"] and body["p95_computed"] >= 2


def test_csv_has_the_rows_and_the_other_row(net, client):
    r = client.get("/talkers/export.csv?range=24h&n=2")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    lines = [line for line in r.content.decode().splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    assert [row["rank"] for row in rows] == ["1", "2", "other"]
    assert int(rows[0]["series_id"]) == net.ip_in.id and float(rows[0]["average"]) == pytest.approx(IP_BYTES * 8)
    assert float(rows[2]["average"]) == pytest.approx(TX * CELL_BITS)


def test_the_page_shows_the_ranking(net, client):
    r = client.get("/talkers/?range=24h")
    assert r.status_code == 200
    html = r.content.decode()
    assert 'id="talkers"' in html and "eth0" in html and "merlin-atm.edc" in html


@pytest.mark.parametrize("query, message", [
    ("range=2d", "unknown range '2d'"),
    ("switch=nope", "no switch 'nope'"),
    ("poller_group=mars", "no switch in poller group 'mars'"),
    ("group=nope", "no group 'nope'"),
    ("switch=asx-1&group=1", "switch and group are given together"),
    ("n=0", "1 to 1000"),
    ("by=mean", "by='mean'"),
    ("metric=errors&unit=pct", "have no capacity"),
    ("start=yesterday", "not an ISO 8601 time"),
    ("entity=vc&metric=errors", "no errors series of entity vc"),
])
def test_bad_input_says_what_is_wrong(net, client, query, message):
    body = api(client, query, 400)
    assert message in body["error"]
    r = client.get(f"/talkers/?{query}")
    assert r.status_code == 400 and message.replace("'", "&#x27;") in r.content.decode()


def test_a_new_archive_is_not_an_error_on_the_page_but_is_in_the_api(client):
    """No series at all yet (a fresh `make run` before the first polls): the page says so and
    answers 200; the JSON still answers 400 with the reason, as for any empty scope."""
    r = client.get("/talkers/")
    assert r.status_code == 200 and "Nothing archived yet" in r.content.decode()
    assert "no traffic series of entity port" in api(client, "", 400)["error"]
