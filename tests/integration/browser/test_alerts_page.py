"""The alerts page in Debian's headless chromium at 1,400 px, no console error: firing and pending
alerts with their plot links and values in Mb/s, the history, the evaluation's cost, a failing
destination, acknowledging with an expiry, "send test", deleting a rule (retired: its history stays,
under its name), every table within the window, and a refused rule shown with its reason.
Screenshots: /tmp/cellar-shots/alerts-*.png (and /work/helpers/shots/ when that folder exists)."""
from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from collector.alerts import evaluate, rules
from collector.alerts.models import Destination, Notification, State
from tests.support import traffic_factory as f
from tests.support.browser import SHOTS, log_in, sticking_out

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("plain_static")]
KEEP = Path("/work/helpers/shots")


@pytest.fixture
def page(browser, live_server, transactional_db):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    log_in(ctx, live_server.url, "operator")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    yield pg
    ctx.close()


def shot(pg, name: str) -> None:
    path = SHOTS / f"alerts-{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    if KEEP.is_dir():
        shutil.copy(path, KEEP / path.name)


def alerting_network() -> None:
    sw = f.switch("asx-core")
    a1, b2 = f.port(sw, "A1"), f.port(sw, "B2")
    b2.oper_status = "down"
    b2.save()
    s_in, s_out = f.series(a1, "in"), f.series(a1, "out")
    lay = f.layout(sw, [s_in, s_out])
    now = datetime.now(UTC).replace(microsecond=0)
    rows = [(k * 15, 15_000, [int(f.OC3_CELLS * 0.92 * 15), int(f.OC3_CELLS * 0.2 * 15)], [0, 0])
            for k in range(1, 41)]
    f.insert(sw, lay, rows, t0=now - timedelta(minutes=10))
    mail = Destination.objects.create(name="noc-mail", url="mailto://127.0.0.1:2525?from=cellar@cellar.test&to=noc@cellar.test")
    dead = Destination.objects.create(name="pager-hook", url="json://127.0.0.1:9/hook?token=s3cret",
                                      failing_since=now - timedelta(minutes=3),
                                      last_error=f"{now:%Y-%m-%d %H:%M:%S} UTC: Connection refused")
    rules.save({"name": "core uplinks above 80 %", "kind": "rate", "scope": "switch", "switch": "asx-core",
                "threshold": "80", "recovery": "70", "window_minutes": "5"}, [mail.id, dead.id])
    rules.save({"name": "core ports down", "kind": "status", "scope": "switch", "switch": "asx-core",
                "window_minutes": "2"}, [mail.id])
    rules.save({"name": "core uplinks above 100 Mb/s", "kind": "rate", "scope": "switch", "switch": "asx-core",
                "unit": "bps", "threshold": "100000000", "recovery": "90000000", "window_minutes": "5"}, [mail.id])
    evaluate.run()


def test_alerts_page_ack_send_test_and_a_refused_rule(live_server, page):
    alerting_network()
    page.goto(f"{live_server.url}/alerts/")
    states = page.locator("#alert-states tbody tr")
    assert states.count() == 3
    hot = page.locator(".state-firing", has_text="above 80 %")
    assert "asx-core A1 in" in hot.inner_text() and "92.0 %" in hot.inner_text() and "80.0 %" in hot.inner_text()
    # 92 % of an OC3's 353,207 cells/s of 424 bits: 138 Mb/s against 100 Mb/s.
    fast = page.locator(".state-firing", has_text="above 100 Mb/s").inner_text()
    assert "138 Mb/s" in fast and "100 Mb/s" in fast and "e+" not in fast
    assert sticking_out(page) == []
    assert "pending" in page.inner_text(".state-pending")
    assert "/traffic/?s=" in page.get_attribute(".state-firing a", "href")
    assert "pager-hook" in page.inner_text(".failing-destination") and "s3cret" not in page.content()
    assert "Last evaluation" in page.inner_text("#alerts-cost")
    with page.expect_navigation():
        page.locator(".state-firing", has_text="above 80 %").locator("button[value=ack]").click()
    assert "acknowledged until" in page.inner_text(".msg")
    assert "acknowledged by browser" in page.locator(".state-firing", has_text="above 80 %").inner_text()
    with page.expect_navigation():
        page.locator("#alert-destinations tr", has_text="noc-mail").locator("button.send-test").click()
    assert "test notification to noc-mail queued" in page.inner_text(".msg")
    assert Notification.objects.filter(kind="test").count() == 1
    assert State.objects.get(state="firing", rule__name="core uplinks above 80 %").ack_until is not None
    shot(page, "page")
    with page.expect_navigation():
        page.locator("#alert-rules tr", has_text="above 100 Mb/s").locator("button[value=delete]").click()
    assert "rule core uplinks above 100 Mb/s retired" in page.inner_text(".msg")
    assert "above 100 Mb/s" not in page.inner_text("#alert-rules") + page.inner_text("#alert-states")
    kept = page.locator("#alert-history tr", has_text="FIRING: core uplinks above 100 Mb/s").inner_text()
    assert "retired" in kept and "138 Mb/s" in kept
    assert sticking_out(page) == []
    shot(page, "retired")
    assert page.errors == []
    page.goto(f"{live_server.url}/alerts/rules/new")
    page.fill("input[name=name]", "too hot")
    page.select_option("select[name=scope]", "switch")
    page.fill("input[name=switch]", "asx-core")
    page.fill("input[name=threshold]", "130")
    with page.expect_navigation():
        page.click("#rule-form button[type=submit]")
    assert "130 % is above 100 % of capacity" in page.inner_text("#rule-error")
    shot(page, "rule-refused")
    assert page.errors == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]
