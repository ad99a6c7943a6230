"""The main navigation at 1,400 px: one line (the header does not wrap), the report, research and
alert pages behind <details> menus that open without script, the menu of the current page marked.
Screenshot: /tmp/cellar-shots/nav-*.png."""
from __future__ import annotations

import pytest

from tests.support.browser import SHOTS, watched_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("plain_static")]


@pytest.fixture
def page(browser, live_server, transactional_db):
    ctx, pg = watched_page(browser, live_server.url, "admin", "administrator", {"width": 1400, "height": 700})
    yield pg
    ctx.close()


def test_header_is_one_line_and_menus_lead_to_their_pages(live_server, page):
    page.goto(f"{live_server.url}/switches/")
    nav = page.locator("header.top nav")
    links = nav.locator(":scope > a, :scope > details > summary")   # staff see every item
    tops = {round(links.nth(i).bounding_box()["y"]) for i in range(links.count())}
    assert len(tops) == 1, f"the nav wraps at 1,400 px: link rows at y = {sorted(tops)}"
    assert page.locator("header.top").bounding_box()["height"] < 60
    page.click("header.top .user summary")
    inventory = page.locator("header.top .user a", has_text="inventory")
    assert inventory.is_visible() and inventory.get_attribute("href") == "/admin/"
    page.screenshot(path=str(SHOTS / "nav-user-open.png"))
    page.click("header.top .user summary")
    assert not page.locator("text=Top talkers").is_visible()     # closed menu
    page.click("header.top summary:has-text('Reports')")
    assert page.locator("text=Top talkers").is_visible()
    page.screenshot(path=str(SHOTS / "nav-reports-open.png"))
    with page.expect_navigation():
        page.click("text=Top talkers")
    assert page.url.endswith("/talkers/")
    assert "active" in page.locator("details.menu", has_text="Reports").get_attribute("class")
    assert "active" not in page.locator("details.menu", has_text="Research").get_attribute("class")
    page.click("header.top summary:has-text('Research')")
    with page.expect_navigation():
        page.click("text=External data")
    assert "/external/" in page.url
    assert "active" in page.locator("details.menu", has_text="Research").get_attribute("class")
    page.screenshot(path=str(SHOTS / "nav-external.png"))
    # Alerts and events share a menu.
    page.click("header.top summary:has-text('Alerts')")
    with page.expect_navigation():
        page.click("text=Alerts and rules")
    assert page.url.endswith("/alerts/")
    assert "active" in page.locator("details.menu", has_text="Alerts").get_attribute("class")
    assert page.errors == []
