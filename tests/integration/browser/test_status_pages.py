"""Every status page in Debian's headless chromium with JavaScript OFF: the tables must be
there, readable, and fit the window; screenshots go to /tmp/cellar-shots/ for a human look."""
from __future__ import annotations

import pytest

from collector.poller import jobs
from tests.support.browser import SHOTS, log_in
from tests.support.status_network import SECRETS, build_network
from tests.support.users import make_user

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def page(browser, live_server, transactional_db):
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 1440, "height": 900})
    log_in(ctx, live_server.url, "viewer")
    pg = ctx.new_page()
    yield pg
    ctx.close()


@pytest.fixture
def net(transactional_db):
    return build_network()


# name, url, a selector that must be visible, texts that must be on the page
PAGES = [
    ("dashboard", "/", "table#switches", ["Cellar dashboard", "fore-a", "Needs attention", "delta.example"]),
    ("hosts", "/hosts/", "table#hosts", ["Host status", "alpha.example", "responding", "unreachable", "172 ms"]),
    ("hosts-unreachable", "/hosts/?status=unreachable", "table#hosts", ["delta.example", "no echo reply"]),
    ("host", "/hosts/alpha.example/", "table#checks", ["alpha.example is responding", "VCs from alpha.example"]),
    ("switches", "/switches/", "table#switches", ["fore-a", "10 days, 6:26", "failing"]),
    ("switch", "/switches/fore-a/", "table#ports",
     ["ASX-200BX switch up 10 days, 6:26, 5 ports (4 active), software 3.0.1, hardware 1.0", "Total Mb", "alpha-atm"]),
    ("switch-ip", "/switches/ipsw/", "table#ports", ["Gi1/0/1", "Octets", "1,000,000"]),
    ("port", "/switches/fore-a/ports/A1/", "table#vcs", ["port A1", "Virtual channels on A1"]),
    ("port-slash", "/switches/ipsw/ports/Gi1/0/1/", "#port-summary", ["uplink"]),
    ("switch-pvcs", "/switches/fore-a/pvcs/", "table#pvcs", ["alpha.example", "gamma.example", "0.339"]),
    ("pvcs", "/pvcs/", "table#pvcs", ["PVCs of the network", "fore-b"]),
    ("vccs", "/switches/fore-a/vccs/", "table#vccs", ["All VCCs of fore-a", "terminates on fore-a"]),
    ("vccs-form", "/vccs/", "table#switch-list", ["Name of the switch"]),
    ("path-form", "/path/", "form#path-form", ["VCC path between two hosts"]),
    ("path", "/path/?src=alpha.example&dst=gamma.example", "ol.chain",
     ["joined by VC paths in both directions", "fore-b", "798"]),
    ("path-window", "/path/?src=alpha.example&dst=gamma.example&rtt_ms=60", "#window-advice",
     ["5,760 bytes", "limits TCP to 4.37 Mb/s"]),
    ("path-broken", "/path/?src=alpha&dst=beta", ".stop-reason",
     ["No VC path joins alpha.example and beta.example", "fore-b has no cross-connect for it"]),
    ("trace", "/path/vc/?switch=fore-b&port=A4&vpi=0&vci=200", "ol.chain", ["alpha.example → gamma.example"]),
    ("search", "/search/?q=gamma", "h2", ["gamma.example"]),
    ("404-switch", "/switches/fore-z/", "#known", ["No switch \"fore-z\"", "Did you mean"]),
    ("404-host", "/hosts/nobody/", "#known", ["No host \"nobody\""]),
    ("404-path", "/path/?src=nobody&dst=gamma", "#missing-source", ["No host \"nobody\""]),
    ("404-any", "/nothing/here/", "form", ["Nothing lives at", "fore-a"]),
]


@pytest.mark.parametrize("name,url,selector,texts", PAGES, ids=[p[0] for p in PAGES])
def test_page_without_javascript(page, live_server, net, name, url, selector, texts):
    css = []
    page.on("response", lambda r: css.append(r.status) if r.url.endswith(".css") else None)
    resp = page.goto(live_server.url + url)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    assert resp.status == (404 if name.startswith("404") else 200)
    assert page.locator(selector).first.is_visible()
    body = page.inner_text("body")
    for t in texts:
        assert t in body, f"{name}: {t!r} not on the page"
    html = page.content()
    for secret in SECRETS:
        assert secret not in html
    assert css == [200], "the stylesheet did not load"
    # Nothing sticks out of a 1440 px window: wide tables scroll inside their own box.
    for box in page.locator("main > *, main .tablewrap, main table:not(.tablewrap table)").all():
        b = box.bounding_box()
        if b:
            assert b["x"] + b["width"] <= 1440 + 1, f"{name}: an element is {b['x'] + b['width']:.0f} px wide"


def test_check_now_button_works_without_javascript(browser, live_server, net):
    """Log in through the login page (as an operator), then check a host from the list."""
    make_user("operator", "operator", password="pw-for-browser-1")
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 1440, "height": 900})
    page = ctx.new_page()
    page.goto(live_server.url + "/hosts/")
    assert "/accounts/login/" in page.url
    page.screenshot(path=str(SHOTS / "login.png"), full_page=True)
    page.fill("input[name=username]", "operator")
    page.fill("input[name=password]", "pw-for-browser-1")
    page.click("#login-form button[type=submit]")
    assert page.url.endswith("/hosts/")
    row = page.locator("table#hosts tbody tr", has_text="alpha.example")
    row.get_by_role("button", name="Check now").click()
    # a network job: its page, which reloads itself without JavaScript while it waits
    assert "/onboard/jobs/" in page.url and "waiting for a worker" in page.inner_text("#network-job")
    assert page.locator("noscript").count() == 1
    jobs.run(int(page.url.rstrip("/").split("/")[-1]))          # what the host's group's worker does
    page.reload()
    assert "alpha.example is responding" in page.inner_text("#job-steps")
    assert page.inner_text("#job-links") == "host alpha.example"
    page.screenshot(path=str(SHOTS / "hosts-after-check.png"), full_page=True)
    page.click("header .user summary")
    page.click("header .user a:has-text('API tokens')")
    page.fill("#token-form input[name=name]", "a script")
    page.click("#token-form button[type=submit]")
    assert page.inner_text("#token-text").startswith("cellar_")
    page.screenshot(path=str(SHOTS / "tokens.png"), full_page=True)
    ctx.close()


def test_path_form_submits_without_javascript(page, live_server, net):
    page.goto(live_server.url + "/path/")
    page.fill("input[name=src]", "alpha.example")
    page.fill("input[name=dst]", "gamma.example")
    page.click("#path-form button[type=submit]")
    assert "src=alpha.example" in page.url
    assert page.locator("#forward ~ .trace ol.chain").first.is_visible()
    chain = page.locator(".path-forward ol.chain").first.inner_text()
    for node in ("alpha.example", "fore-a", "fore-b", "gamma.example"):
        assert node in chain


def test_run_page_with_cells_per_hop(page, live_server, net):
    from datetime import timedelta

    from collector.runs.models import ExperimentRun

    run = ExperimentRun.objects.create(name="ftp B-C", start=net["now"] - timedelta(seconds=35),
                                       end=net["now"] - timedelta(seconds=5), src_host=net["alpha"],
                                       dst_host=net["gamma"], bytes_sent=24_000 * 48,
                                       description="14 MB file, large windows")
    page.goto(f"{live_server.url}/runs/{run.id}/")
    page.wait_for_selector("table#hop-counts")
    body = page.inner_text("table#hop-counts")
    assert "fore-a" in body and "fore-b" in body and "consistent" in body
    page.screenshot(path=str(SHOTS / "run.png"), full_page=True)
    page.goto(f"{live_server.url}/runs/")
    assert "ftp B-C" in page.inner_text("table#runs")
    page.screenshot(path=str(SHOTS / "runs.png"), full_page=True)
