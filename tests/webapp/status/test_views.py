"""The status pages against a network built by code: content, units, times, 404s, query counts."""
from __future__ import annotations

import html as htmlmod
import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from collector.inventory.models import Switch
from collector.poller import jobs
from collector.poller.models import HostCheck, HostState, NetworkJob
from tests.support.status_network import SECRETS, grow
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

PAGES = [
    "/", "/hosts/", "/hosts/?status=unreachable", "/hosts/alpha.example/", "/switches/", "/switches/fore-a/",
    "/switches/fore-b/", "/switches/ipsw/", "/switches/fore-a/ports/A1/", "/switches/ipsw/ports/Gi1/0/1/",
    "/switches/fore-a/pvcs/", "/switches/fore-a/vccs/", "/pvcs/", "/vccs/",
    "/path/", "/path/?src=alpha.example&dst=gamma.example", "/path/?src=alpha&dst=beta",
    "/path/vc/?switch=fore-b&port=A4&vpi=0&vci=200", "/search/?q=gamma",
]


def text(resp) -> str:
    """The page's visible text, whitespace collapsed (tags dropped)."""
    html = resp.content.decode()
    html = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", html, flags=re.S)
    return htmlmod.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def rows_of(resp, table_id: str) -> list[str]:
    html = resp.content.decode()
    m = re.search(rf'<table[^>]*id="{table_id}"[^>]*>(.*?)</table>', html, flags=re.S)
    assert m, f"no table #{table_id}"
    body = m.group(1).split("<tbody>", 1)[-1]
    return [htmlmod.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", r))).strip()
            for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


def row_with(rows: list[str], *needles: str) -> str:
    hits = [r for r in rows if all(n in r for n in needles)]
    assert hits, f"no row with {needles} in {rows}"
    return hits[0]


@pytest.mark.parametrize("url", PAGES)
def test_every_page_answers_without_secrets_and_shows_measurement_times(client, network, url):
    resp = client.get(url)
    assert resp.status_code == 200, url
    html = resp.content.decode()
    for secret in SECRETS:
        assert secret not in html
    assert "<script" not in html                     # tables need no JavaScript
    if url not in ("/path/", "/vccs/", "/search/?q=gamma"):
        assert "<time datetime=" in html, f"{url} shows no measurement time"


def test_secrets_are_absent_from_the_admin_switch_form_too(client, network):
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-tests-1")
    client.force_login(user)
    html = client.get(f"/admin/inventory/switch/{network['sa'].id}/change/").content.decode()
    assert "fore-a" in html
    for secret in SECRETS:
        assert secret not in html


def test_dashboard_lists_problems(client, network):
    resp = client.get("/")
    rows = rows_of(resp, "problems")
    assert "3 failed polls in a row" in row_with(rows, "fore-b")
    assert "unreachable" in row_with(rows, "delta.example")
    assert "port(s) enabled but not up" in row_with(rows, "fore-a")


def test_dashboard_groups_failing_polls_by_cause_and_poller_group(client, network):
    from collector.poller.models import SwitchHealth

    extra = [Switch.objects.create(name=f"edge-{i}", address=f"192.0.2.{9 + i}", poller_group="site-b")
             for i in range(2)]
    for sw in extra:
        SwitchHealth.objects.create(switch=sw, **{
            "last_poll_at": network["now"], "last_status": "unreachable", "consecutive_failures": 4,
            "last_error": "network unreachable: no route to 192.0.2.9:161 (from this poller: group site-b, "
                          "network namespace root)"})
    rows = rows_of(client.get("/"), "failure-causes")
    first = rows[0]
    assert first == "unreachable : the network does not reach the agent from this poller site-b 2 edge-0 , edge-1"
    assert row_with(rows, "timeout") == ("timeout : no answer: agent down, filtered, or credentials not accepted "
                                         "default 1 fore-b")
    assert "no route to 192.0.2.9:161" in row_with(rows_of(client.get("/"), "problems"), extra[0].name)


def test_hosts_table_is_table_1_with_history_and_filter(client, network):
    resp = client.get("/hosts/")
    rows = rows_of(resp, "hosts")
    alpha = row_with(rows, "alpha.example")
    assert "responding" in alpha and "0.500 ms" in alpha and "fore-a A1" in alpha
    assert "172 ms" in row_with(rows, "beta.example")
    delta = row_with(rows, "delta.example")
    assert "unreachable" in delta and "no echo reply" in delta
    assert "not checked" in row_with(rows, "gamma.example")
    html = resp.content.decode()
    assert html.count('<svg class="strip"') == 4
    assert "checks answered" in html                   # bar tooltips carry the figures
    assert "delay avg" in html
    only = rows_of(client.get("/hosts/?status=unreachable"), "hosts")
    assert len(only) == 1 and "delta.example" in only[0]
    assert len(rows_of(client.get("/hosts/?status=responding"), "hosts")) == 2
    assert len(rows_of(client.get("/hosts/?q=gamma"), "hosts")) == 1


def test_host_page(client, network):
    resp = client.get("/hosts/alpha.example/")
    t = text(resp)
    assert "alpha.example is responding" in t
    assert "fore-a" in row_with(rows_of(resp, "attachments"), "A1")
    assert "gamma.example" in row_with(rows_of(resp, "outgoing"), "fore-a A1 0/100")
    assert "gamma.example" in row_with(rows_of(resp, "incoming"), "fore-b A1 0/401")
    assert len(rows_of(resp, "checks")) == 30
    # by address too
    assert client.get("/hosts/127.0.0.1/").status_code == 200


def test_switch_summary_and_poll_health(client, network):
    t = text(client.get("/switches/fore-a/"))
    assert "ASX-200BX switch up 10 days, 6:26, 5 ports (4 active), software 3.0.1, hardware 1.0" in t
    assert "uptime carried forward to now" in t
    t_b = text(client.get("/switches/fore-b/"))
    assert "failing" in t_b and "3 failed polls in a row" in t_b and "no answer from 192.0.2.102" in t_b
    assert "as read at" in t_b                          # not answering: the uptime is not carried forward
    rows = rows_of(client.get("/switches/"), "switches")
    assert "10 days, 6:26" in row_with(rows, "fore-a")


def test_the_switch_page_shows_values_the_poll_could_not_use(client, network):
    from django.utils import timezone

    from collector.archive import writer
    from collector.core.readings import READ_AS_64, WRONG_TYPE, ValueNote, summarize

    assert "every value fore-a answered was used" in text(client.get("/switches/fore-a/"))
    notes = summarize([ValueNote("portReceivedCells", "0", WRONG_TYPE, "n/a", False),
                       ValueNote("ifHCInOctets", "3.0.100", READ_AS_64, "5", True)])
    writer.write_poll_log(network["sa"].id, timezone.now().timestamp(), "partial", 10, 5, 4, "x", notes)
    rows = rows_of(client.get("/switches/fore-a/"), "value-notes")
    assert any("A1" in r and "portReceivedCells" in r and WRONG_TYPE in r and "n/a" in r for r in rows), rows
    assert any("A4" in r and READ_AS_64 in r for r in rows), rows


def test_port_table_columns_of_tables_2b_2c(client, network):
    resp = client.get("/switches/fore-a/")
    rows = rows_of(resp, "ports")
    a1 = row_with(rows, "A1", "alpha-atm")
    # port, name/attached, type, speed, state, time in state, VPs/max, VCs/max, Kb/s in/out, BW, cells, Mb
    assert "alpha.example" in a1 and "OC3" in a1 and "155.5 Mb/s" in a1 and "up" in a1 and "10d 06:27" in a1
    assert "1/2" in a1                 # VPs: 1 now, 2 at one time (a VP that vanished since)
    assert "4/4" in a1                 # VCs
    assert " 424 " in f" {a1} " and " 848 " in f" {a1} "    # 1000 and 2000 cells/s x 424 bits
    assert "68.0 M" in a1 and "78.1 M" in a1              # counters (table 2c "Cells 68 M")
    assert " 12.7 " in f" {a1} " and " 25.4 " in f" {a1} "    # total Mb in/out: 30000 and 60000 cells
    assert "0.424 / 0" in a1 and " 150 " in a1            # allocated in / out (1000 / 0 cells/s), max 353207 cells/s
    a4 = row_with(rows, "A4", "to fore-b")
    assert "reboot" in a4                                  # withheld rate says why
    assert "fore-b A4" in a4                               # trunk
    c1 = row_with(rows, "C1")
    assert "down" in c1
    html = resp.content.decode()
    assert 'href="/traffic/?switch=fore-a&amp;port=A1&amp;direction=in"' in html
    assert 'href="/traffic/?switch=fore-a&amp;port=A1&amp;direction=out"' in html
    down = rows_of(client.get("/switches/fore-a/?state=down"), "ports")
    assert len(down) == 1 and "C1" in down[0]
    assert "fore-b A4" in row_with(rows_of(resp, "links"), "A4")


def test_ip_switch_port_table_uses_octets_and_u64(client, network):
    resp = client.get("/switches/ipsw/")
    rows = rows_of(resp, "ports")
    gi = row_with(rows, "Gi1/0/1")
    assert "1,000,000" in gi                    # 1.875e9 octets / 15 s = 1 Gb/s = 1,000,000 Kb/s
    assert "8,000" in gi                        # 15e6 octets / 15 s
    assert "18446744073709551611" in resp.content.decode().replace(",", "")   # 2**64 - 5, not -5
    assert "Octets" in text(resp) and "VPs/max" not in text(resp)
    port = client.get("/switches/ipsw/ports/Gi1/0/1/")
    assert port.status_code == 200 and "uplink" in text(port)


def test_pvc_table_2d_per_switch(client, network):
    resp = client.get("/switches/fore-a/pvcs/")
    rows = rows_of(resp, "pvcs")
    r = row_with(rows, "alpha->gamma")
    # source, destination, in port/vpi/vci, out port/vpi/vci, Mb/s, uptime, BW, cells
    assert re.search(r"alpha\.example gamma\.example A1 0 100 A4 0 200 0\.339 3d 00:00 0\.848 5\.0 M up", r), r
    broken = row_with(rows, "alpha->nowhere")
    assert "broken" in broken and "stops at fore-b A4" in broken
    dead = row_with(rows, "c1 dead")
    assert "cross-connect down" in dead
    ctl = row_with(rows, "ilmi A1")
    assert "fore-a (control)" in ctl
    html = resp.content.decode()
    assert 'href="/traffic/?switch=fore-a&amp;port=A1&amp;direction=in&amp;vpi=0&amp;vci=100"' in html
    assert len(rows_of(client.get("/switches/fore-a/pvcs/?status=broken"), "pvcs")) == 2
    assert len(rows_of(client.get("/switches/fore-a/pvcs/?host=gamma"), "pvcs")) == 2


def test_pvc_table_network_wide(client, network):
    resp = client.get("/pvcs/")
    rows = rows_of(resp, "pvcs")
    assert len(rows) == 7
    r = row_with(rows, "fore-b", "alpha->gamma")
    assert "alpha.example gamma.example A4 0 200 A1 0 300" in r
    assert "0.338" in r                       # 11970 cells / 15 s = 798 cells/s
    assert len(rows_of(client.get("/pvcs/?switch=fore-b"), "pvcs")) == 2


def test_all_vccs_of_a_switch(client, network):
    resp = client.get("/switches/fore-a/vccs/")
    rows = rows_of(resp, "vccs")
    assert len(rows) == 10
    r = row_with(rows, "A1 0 100")
    assert "→ A4 0/200" in r and "alpha.example → gamma.example" in r and "up" in r
    assert "broken" in row_with(rows, "A1 0 110")
    assert "← A1 0/110" in row_with(rows, "A4 0 210")
    assert "terminates on fore-a" in row_with(rows, "A4 0 5 ")
    assert "not listed" in row_with(rows, "C1 0 60")          # a cross-connect without an endpoint row
    assert client.get("/vccs/?switch=fore-a").url == "/switches/fore-a/vccs/"
    nf = client.get("/vccs/?switch=fore-z")
    assert nf.status_code == 404 and "fore-a" in text(nf)


def test_path_between_two_hosts_across_two_switches(client, network):
    resp = client.get("/path/?src=alpha.example&dst=gamma.example")
    t = text(resp)
    assert "are joined by VC paths in both directions, all hops up" in t
    html = resp.content.decode()
    fwd = html[html.index('id="forward"'):html.index('id="reverse"')]
    hops = rows_of_fragment(fwd)
    assert "fore-a A1 alpha-atm 0/100 A4 to fore-b 0/200 VC alpha->gamma up 800 0.339 5.0 M" in hops[0]
    assert "fore-b A4 0/200 A1 gamma-atm 0/300 VC alpha->gamma up 798 0.338" in hops[1]
    assert "fore-a A4" in hops[1]                               # reached via the trunk
    rev = html[html.index('id="reverse"'):]
    assert "fore-b A1 gamma-atm 0/401" in " ".join(rows_of_fragment(rev))
    # by address and by a unique prefix
    assert client.get("/path/?src=127.0.0.1&dst=gamma").status_code == 200


def rows_of_fragment(html: str) -> list[str]:
    body = html.split("<tbody>", 1)[1]
    return [htmlmod.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", r))).strip()
            for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


def test_path_that_does_not_exist_says_where_it_stops(client, network):
    resp = client.get("/path/?src=alpha&dst=beta")
    assert resp.status_code == 200
    t = text(resp)
    assert "No VC path joins alpha.example and beta.example" in t
    assert "arrives at fore-b A4 as 0/210, but fore-b has no cross-connect for it" in t
    assert "No cross-connect sends cells to beta.example" in t


def test_unattached_host_is_explained(client, network):
    t = text(client.get("/path/?src=delta&dst=alpha"))
    assert "delta.example is not attached to any switch port" in t


def test_unknown_hosts_in_the_path_form_get_a_404_with_suggestions(client, network):
    resp = client.get("/path/?src=alpah.example&dst=gamma")
    assert resp.status_code == 404
    t = text(resp)
    assert 'No host "alpah.example"' in t and "Did you mean: alpha.example" in t


def test_trace_of_one_vc_from_the_middle(client, network):
    t = text(client.get("/path/vc/?switch=fore-b&port=A4&vpi=0&vci=200"))
    assert "alpha.example → gamma.example" in t and "2 hops" in t
    nf = client.get("/path/vc/?switch=fore-b&port=A4&vpi=7&vci=7")
    assert nf.status_code == 404 and "fore-b has no cross-connect for it" in text(nf)


@pytest.mark.parametrize("url,expect", [
    ("/switches/fore-z/", ["No switch \"fore-z\"", "fore-a", "fore-b", "Did you mean"]),
    ("/hosts/gamma.exampel/", ["No host \"gamma.exampel\"", "gamma.example", "Did you mean"]),
    ("/switches/fore-a/ports/Z9/", ["No port \"fore-a Z9\"", "fore-a A1"]),
    ("/switches/fore-z/pvcs/", ["No switch"]),
    ("/no/such/page", ["Nothing lives at", "fore-a", "alpha.example"]),
    ("/search/?q=zzzz", ["Nothing in the inventory matches"]),
])
def test_helpful_404_pages(client, network, url, expect):
    resp = client.get(url)
    assert resp.status_code == 404
    t = text(resp)
    for e in expect:
        assert e in t, (url, e)


def test_search(client, network):
    t = text(client.get("/search/?q=gamma"))
    assert "gamma.example" in t and "fore-b A1" in t and "alpha->gamma" in t
    assert client.get("/search/?q=fore-a&go=1").url == "/switches/fore-a/"


# --------------------------------------------------------------------------- check now


def test_check_now_needs_the_operator_role_and_a_post(network):
    client = Client()
    resp = client.post("/hosts/alpha.example/check")
    assert resp.status_code == 302 and resp.url.startswith("/accounts/login/")
    client.force_login(make_user("viewer", "viewer"))
    assert client.get("/hosts/alpha.example/check").url == "/hosts/alpha.example/"
    assert client.post("/switches/fore-a/check").status_code == 403
    assert client.post("/hosts/alpha.example/check").status_code == 403
    assert "checking needs the operator role" in text(client.get("/hosts/"))


def _job_of(resp) -> NetworkJob:
    """The network job a "check now" made (its page is where the POST redirects)."""
    assert resp.status_code == 302 and resp.url.startswith("/onboard/jobs/"), resp
    return NetworkJob.objects.get(pk=int(resp.url.split("/")[3]))


def test_check_host_now_is_a_job_of_the_hosts_poller_group(client, network):
    before = HostCheck.objects.filter(host_id=network["alpha"].id).count()
    job = _job_of(client.post("/hosts/alpha.example/check", {"next": "/hosts/?status=responding"}))
    assert (job.kind, job.poller_group, job.status, job.params) == (
        "check_host", "default", "queued", {"host_id": network["alpha"].id})
    assert HostCheck.objects.filter(host_id=network["alpha"].id).count() == before   # the web sent nothing
    assert jobs.run(job.id) == "done"               # what the group's worker does with it
    page = client.get(f"/onboard/jobs/{job.id}/")
    assert "alpha.example is responding" in text(page)        # 127.0.0.1 answers
    assert HostCheck.objects.filter(host_id=network["alpha"].id).count() == before + 1
    assert HostState.objects.get(host=network["alpha"]).method in ("icmp", "tcp")
    body = client.get(f"/onboard/jobs/{job.id}.json").json()
    assert body["status"] == "done" and body["links"] == [{"text": "host alpha.example",
                                                             "url": "/hosts/alpha.example/"}]
    # a GET with an outside target is refused: back to the host's page
    assert client.get("/hosts/alpha.example/check", {"next": "https://evil.example/"}).url == "/hosts/alpha.example/"


def test_check_switch_now_reports_failures_on_its_job_page(client, network):
    # fore-a's address is 127.0.0.1 port 1: the agent is not there (ICMP port unreachable)
    Switch.objects.filter(pk=network["sa"].pk).update(address="127.0.0.1", snmp_port=1, timeout_s=0.2, retries=0)
    job = _job_of(client.post("/switches/fore-a/check"))
    assert jobs.run(job.id) == "done"
    body = client.get(f"/onboard/jobs/{job.id}.json").json()
    texts = [st["text"] for st in body["steps"]]
    assert any(t.startswith("discovery failed") and "no SNMP agent listens on port 1" in t for t in texts), texts
    assert any(t.startswith("poll: refused") for t in texts), texts
    assert [st["state"] for st in body["steps"]].count("fail") == 2


def test_a_user_has_at_most_a_few_network_jobs_open(client, network):
    made = [_job_of(client.post("/switches/fore-a/check")) for _ in range(jobs.OPEN_PER_OWNER)]
    resp = client.post("/switches/fore-a/check", follow=True)
    assert f"at most {jobs.OPEN_PER_OWNER} at once" in text(resp) and len(made) == jobs.OPEN_PER_OWNER


# --------------------------------------------------------------------------- query counts


COUNTED = ["/", "/hosts/", "/hosts/alpha.example/", "/switches/", "/switches/fore-a/", "/switches/fore-a/ports/A1/",
           "/switches/fore-a/pvcs/", "/switches/fore-a/vccs/", "/pvcs/", "/path/?src=alpha&dst=gamma",
           "/path/vc/?switch=fore-b&port=A4&vpi=0&vci=200", "/search/?q=example"]


def count_queries(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_query_counts_do_not_grow_with_the_network(client, network):
    small = {url: count_queries(client, url) for url in COUNTED}
    grow(network, 25, "g")
    big = {url: count_queries(client, url) for url in COUNTED}
    assert big == small
    for url, n in small.items():
        # 4 of them: the session, the user, its role's permissions; 2 the statement budget
        # (collector/reader/timelimits.py): its SET LOCAL statement_timeout and, inside the test's transaction
        # only, putting the previous timeout back; 1 the page's events (collector/events/read.recent);
        # the port page one more per switch-to-switch step of its traces (queries.reach:
        # fore-a -> fore-b -> back).
        assert n <= (32 if "/ports/" in url else 31), f"{url}: {n} queries"


def test_names_with_slashes_and_odd_characters(client, network):
    from collector.inventory.models import Host, Port, Switch

    sw = Switch.objects.create(name="core/1", address="192.0.2.44")
    Port.objects.create(switch=sw, key="7", name="Te1/1/1 #a?", label="odd", oper_status="up")
    Host.objects.create(name="web/01 & co", address="192.0.2.45")
    assert "core/1" in text(client.get("/switches/"))
    assert client.get("/switches/core/1/").status_code == 200
    assert client.get("/switches/core/1/pvcs/").status_code == 200
    resp = client.get("/switches/core/1/")
    port_link = re.search(r'href="(/switches/core/1/ports/[^"]+)"', resp.content.decode()).group(1)
    assert "odd" in text(client.get(htmlmod.unescape(port_link)))
    assert client.get("/hosts/web/01%20&%20co/").status_code == 200
    assert client.get("/hosts/").status_code == 200


def test_path_page_gives_tcp_window_advice_for_the_bottleneck(client, network):
    # alpha -> gamma: OC3 ports everywhere, but 2,000 cells/s allocated to fore-a A1 0/100.
    resp = client.get("/path/?src=alpha&dst=gamma&rtt_ms=60")
    rows = rows_of(resp, "window-advice")
    assert "2,000 cells/s (bandwidth allocated to fore-a A1 0/100) = 768.00 kb/s" in row_with(rows, "Bottleneck")
    assert "60.0 ms (entered)" in row_with(rows, "Round-trip time")
    assert "5,760 bytes" in row_with(rows, "Window needed")          # 768,000 b/s x 0.060 s / 8
    assert "limits TCP to 4.37 Mb/s" in row_with(rows, "A 32,768-byte window")   # 32,768 x 8 / 0.060
    assert "(100 % of the bottleneck)" in row_with(rows, "A 65,535-byte window")


def test_path_page_window_advice_without_rtt_estimates_from_host_checks(client, network):
    rows = rows_of(client.get("/path/?src=alpha&dst=gamma"), "window-advice")
    assert "0.5 ms (estimate: Cellar's host check of alpha.example" in row_with(rows, "Round-trip time")


@pytest.mark.parametrize("rtt,message", [("abc", "'abc' is not a number"), ("0", "outside (0, 60000] ms"),
                                         ("-5", "outside"), ("1e9", "outside")])
def test_path_page_refuses_a_bad_rtt_and_keeps_the_path(client, network, rtt, message):
    resp = client.get(f"/path/?src=alpha&dst=gamma&rtt_ms={rtt}")
    assert resp.status_code == 200
    t = text(resp)
    assert message in t and "are joined by VC paths" in t
