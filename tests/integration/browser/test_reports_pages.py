"""Top talkers, groups and bills in Debian's headless chromium, JavaScript on, no console error (the
Content Security Policy allows only Cellar's static scripts): the ranking page and its form, a group
made on its form and plotted stacked with its total line, a bill's page with its plot.
Screenshots: /tmp/cellar-shots/reports-*.png (and /work/shots/talkers/ when that folder exists)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from collector.billing import closing
from collector.billing.models import Bill
from collector.groups.models import Group
from tests.support.browser import SHOTS, watched_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("plain_static")]
KEEP = Path("/work/shots/talkers")


@pytest.fixture
def page(browser, live_server, transactional_db):
    ctx, pg = watched_page(browser, live_server.url, "admin", "browser", {"width": 1400, "height": 900})
    yield pg
    ctx.close()


def shot(pg, name: str) -> None:
    path = SHOTS / f"reports-{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    if KEEP.is_dir():
        shutil.copy(path, KEEP / path.name)


def test_talkers_page_ranks_and_its_form_changes_the_ranking(net, live_server, page):
    page.goto(f"{live_server.url}/talkers/?range=24h")
    rows = page.locator("#talkers tbody tr")
    assert rows.count() == 3 and "eth0" in rows.nth(0).inner_text()
    shot(page, "talkers")
    page.goto(f"{live_server.url}/talkers/?range=24h&n=2")
    assert "other (1 series)" in page.inner_text("#talkers-other")
    shot(page, "talkers-other")
    page.select_option("select[name=entity]", "vc")
    page.select_option("select[name=by]", "p95")
    with page.expect_navigation():
        page.click("#talkers-form button[type=submit]")
    assert "by=p95" in page.url and "entity=vc" in page.url
    assert page.locator("#talkers tbody tr").count() == 3
    assert "102" in page.locator("#talkers tbody tr").nth(0).inner_text()
    shot(page, "talkers-vcs-p95")
    page.goto(f"{live_server.url}/talkers/?range=24h&switch=nope")
    assert "no switch 'nope'" in page.inner_text("#talkers-error")
    assert page.errors == [e for e in page.errors if "400" in e]


def test_a_group_made_on_its_form_plots_stacked_with_its_total(net, live_server, page):
    page.goto(f"{live_server.url}/groups/new")
    page.fill("input[name=name]", "A1 and its VCs")
    page.fill("textarea[name=rules]", "switch=asx-1 port=A1 entity=any direction=in")
    page.click("button[value=check]")
    assert "4 member series now" in page.inner_text("#group-preview")
    shot(page, "group-form")
    with page.expect_navigation():
        page.click("button[value=save]")
    group = Group.objects.get()
    assert page.url.endswith(f"/groups/{group.id}/")
    assert page.locator("#members tbody tr").count() == 4
    shot(page, "group")
    with page.expect_navigation():
        page.click("#plot-link")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('points per series')",
                           timeout=20000)
    page.wait_for_function("() => !document.querySelector('#stats td.p95[aria-busy]')", timeout=20000)
    roles = page.evaluate("() => (document.getElementById('plot')._fullData || []).map(t => (t.meta || {}).role)")
    assert roles.count("total") == 1 and roles.count("average") == 4
    assert "group A1 and its VCs" in page.inner_text("#selection")
    assert "total of A1 and its VCs (4 series)" in page.inner_text("#stats tbody")
    shot(page, "group-plot")
    assert page.errors == []


def test_a_bills_page_shows_its_estimate_plot_and_history(net, live_server, page):
    from collector.groups import edit

    group = edit.save(edit.spec_from("A1", f"{net.rx.id} {net.tx.id}", ""))
    page.goto(f"{live_server.url}/bills/new?group={group.id}")
    page.fill("input[name=name]", "acme")
    page.fill("input[name=billing_day]", "31")
    page.fill("input[name=committed_mbps]", "30")
    with page.expect_navigation():
        page.click("#bill-form button[type=submit]")
    bill = Bill.objects.get()
    closing.run()
    page.goto(f"{live_server.url}/bills/{bill.id}/")
    page.wait_for_selector("#bill-plot .main-svg", timeout=10_000)
    assert "42.4" in page.inner_text("#current")            # 100,000 cells/s x 53 B x 8 = 42.4 Mb/s
    shot(page, "bill")
    page.goto(f"{live_server.url}/bills/")
    assert "acme" in page.inner_text("#bills")
    shot(page, "bills")
    assert page.errors == []
