"""webapp/metrics/views.py: /metrics/counters, who may scrape it, its filters, its refusals, its text
(read back by Prometheus's own promtool)."""
from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import Client

from collector.groups import edit
from tests.support import traffic_factory as f
from tests.support.users import make_user
from webapp.access import tokens

pytestmark = pytest.mark.django_db
URL = "/metrics/counters"


@pytest.fixture
def on(settings):
    settings.CELLAR_PROMETHEUS_COUNTERS = True
    settings.CELLAR_PROMETHEUS_SCRAPERS = ["192.0.2.0/28", "2001:db8::/64"]
    return settings


@pytest.fixture
def archive():
    """Two switches polled a minute ago and now: an ATM port, a VC, an IP interface."""
    now = datetime.now(UTC).replace(microsecond=0)
    out = {}
    for name, rows in (("m-atm", [(10, 5), (3000, 40)]), ("m-ip", [(7, 1), (700, 9)])):
        sw = f.switch(name)
        p = f.port(sw, "A1" if name == "m-atm" else "Gi1/0/1", is_atm=name == "m-atm")
        if name == "m-atm":
            members = [f.series(p, "in"), f.series(p, "in", channel=f.vc(p, 0, 210))]
        else:
            members = [f.series(p, "in", metric="octets", unit="octets", width=64),
                       f.series(p, "out", metric="ucast_pkts", unit="packets", object_name="ifHCOutUcastPkts")]
        lay = f.layout(sw, members)
        with connection.cursor() as cur:
            for k, (d0, d1) in enumerate(rows):
                cur.execute("INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, "
                            "delta, flags) VALUES (%s, 1, %s, %s, 60000, %s, %s, %s)",
                            [now - timedelta(minutes=1 - k), sw.id, lay.id, [d0, d1], [d0, d1], [0, 0]])
        out[name] = (sw, members)
    out["now_ms"] = int(now.timestamp() * 1000)
    return out


def bearer(role: str | None) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {tokens.issue(make_user(f'scraper-{role}', role), 'prometheus').plaintext}"}


def test_off_by_default(archive, settings):
    assert settings.CELLAR_PROMETHEUS_COUNTERS is False
    r = Client().get(URL, **bearer("viewer"))
    assert r.status_code == 404 and "CELLAR_PROMETHEUS_COUNTERS=true" in r.content.decode()


# who -> (client keyword arguments from a fixture, status)
WHO = {
    "no token": (lambda: {}, 401),
    "viewer token": (lambda: bearer("viewer"), 200),
    "token of a user without a role": (lambda: bearer(None), 403),
    "an unknown token": (lambda: {"HTTP_AUTHORIZATION": "Bearer cellar_nope"}, 401),
    "allow-listed scraper": (lambda: {"REMOTE_ADDR": "192.0.2.7"}, 200),
    "allow-listed IPv6 scraper": (lambda: {"REMOTE_ADDR": "2001:db8::9"}, 200),
    "IPv4-mapped allow-listed scraper": (lambda: {"REMOTE_ADDR": "::ffff:192.0.2.7"}, 200),
    "scraper outside the allow-list": (lambda: {"REMOTE_ADDR": "192.0.2.16"}, 401),
}


@pytest.mark.parametrize("who", list(WHO), ids=list(WHO))
def test_who_may_scrape(archive, on, who):
    kwargs, status = WHO[who]
    r = Client().get(URL, **kwargs())
    assert r.status_code == status, r.content
    if status == 401:
        assert r["WWW-Authenticate"].startswith("Bearer")
    if who == "scraper outside the allow-list":
        assert "192.0.2.16 is not in it" in r.content.decode()


def test_a_logged_in_viewer_reads_it_and_anonymous_read_opens_it(archive, on):
    client = Client()
    client.force_login(make_user("v", "viewer"))
    assert client.get(URL).status_code == 200
    on.CELLAR_ANONYMOUS_READ = True
    assert Client().get(URL).status_code == 200


def test_the_text_is_what_promtool_accepts(archive, on):
    r = Client().get(URL, **bearer("viewer"))
    assert r.status_code == 200 and r["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    text = r.content.decode()
    now_ms = archive["now_ms"]
    assert f'cellar_cells_total{{switch="m-atm",port="A1",direction="in",metric="cells"}} 3010 {now_ms}' in text
    assert (f'cellar_cells_total{{switch="m-atm",port="A1",vpi="0",vci="210",direction="in",metric="cells"}} 45 '
            f'{now_ms}') in text
    assert f'cellar_octets_total{{switch="m-ip",port="Gi1/0/1",direction="in",metric="octets"}} 707 {now_ms}' in text
    assert 'cellar_packets_total{switch="m-ip",port="Gi1/0/1",direction="out",metric="ucast_pkts"} 10' in text
    assert r["Cellar-Series"] == "4" and "# cellar: 4 series of 4 in the scope (limit 10000)" in text
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.fail("promtool (Debian's prometheus package) is not installed: scripts/provision.sh installs it")
    checked = subprocess.run([promtool, "check", "metrics"], input=r.content, capture_output=True, timeout=30)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_gzip_when_asked(archive, on):
    r = Client().get(URL, HTTP_ACCEPT_ENCODING="gzip", **bearer("viewer"))
    assert r.status_code == 200 and r["Content-Encoding"] == "gzip"


def test_filters(archive, on):
    client, auth = Client(), bearer("viewer")

    def families(query: str) -> set[str]:
        r = client.get(URL + query, **auth)
        assert r.status_code == 200, r.content
        return {line.split("{")[0] for line in r.content.decode().splitlines() if not line.startswith("#")}

    assert families("?switch=m-ip") == {"cellar_octets_total", "cellar_packets_total"}
    assert families("?switch=m-ip&switch=m-atm") == {"cellar_octets_total", "cellar_packets_total",
                                                      "cellar_cells_total"}
    vc = archive["m-atm"][1][1]
    group = edit.save(edit.spec_from("m-g", [vc.id], []))
    r = client.get(f"{URL}?group={group.id}", **auth)
    assert 'vci="210"' in r.content.decode() and r["Cellar-Series"] == "1"


# query -> (status, words of the answer)
BAD = {
    "?switch=nope": (404, "no switch named 'nope'"),
    "?group=999999": (404, "no group"),
    "?group=1&group=2": (400, "one group"),
    "?switches=m-ip": (400, "unknown parameter switches"),
    "?switch=": (400, "switch= names a switch"),
}


@pytest.mark.parametrize("query", list(BAD), ids=list(BAD))
def test_bad_scrapes_say_why(archive, on, query):
    status, words = BAD[query]
    r = Client().get(URL + query, **bearer("viewer"))
    assert r.status_code == status and words in r.content.decode()


def test_over_the_cardinality_limit_refused_with_the_limit_not_truncated(archive, on):
    on.CELLAR_PROMETHEUS_MAX_SERIES = 3
    auth = bearer("viewer")
    r = Client().get(URL, **auth)
    text = r.content.decode()
    assert r.status_code == 413 and "cellar_" not in text
    assert "holds 4 counter series; the limit of one scrape is 3 series (CELLAR_PROMETHEUS_MAX_SERIES)" in text
    assert "?switch=NAME" in text
    assert Client().get(URL + "?switch=m-ip", **auth).status_code == 200      # a part fits


@pytest.mark.django_db(transaction=True)     # the timeout ends the request's own transaction
def test_a_statement_past_its_limit_is_a_503_that_states_it(archive, on, monkeypatch):
    from collector.reader import cumulative

    real = cumulative.readings_sql

    def slow():
        sql = real()
        assert "FROM present\n" in sql
        return sql.replace("FROM present\n", "FROM present CROSS JOIN pg_sleep(0.5)\n")
    monkeypatch.setattr(cumulative, "readings_sql", slow)
    on.CELLAR_WEB_TIMEOUT_MAX_MS = 100
    r = Client().get(URL, **bearer("viewer"))
    assert r.status_code == 503 and "a Prometheus scrape of counter totals took longer than its limit" in \
        r.content.decode() and r["Cellar-Limit-Ms"] == "100"
