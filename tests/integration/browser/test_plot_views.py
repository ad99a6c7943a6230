"""Time zones, saved views and image links in Debian's headless chromium at 1400 px: a viewer whose
zone differs from the site's sees local times (status line, inputs, axis, hover labels, status
pages); the plot page of a
young archive opens on its data; the switch port table scrolls in its own box with the port
column kept; the compare control draws a dashed line. Screenshots: /work/shots/plots/."""
from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from collector.archive import rollup
from tests.support import traffic_factory as f
from tests.support.browser import log_in
from tests.support.status_network import build_network
from webapp.personal import zones

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("plain_static")]
SHOTS = Path("/work/shots/plots") if Path("/work/shots").is_dir() else Path("/tmp/cellar-shots")


class Page:
    def __init__(self, browser, live_server, zone: str | None = None):
        self.ctx = browser.new_context(viewport={"width": 1400, "height": 900})
        self.page = self.ctx.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.user = log_in(self.ctx, live_server.url, "operator", username=f"u{id(self)}")
        self.url = live_server.url
        if zone:      # as a user does it: the settings page
            self.page.goto(f"{self.url}/me/")
            self.page.fill("input[name=time_zone]", zone)
            self.page.click("#zone-form button")
            self.page.wait_for_selector("li.msg.success")
            assert zones.of_user(self.user).key == zone

    def loaded(self) -> str:
        self.page.wait_for_function("() => document.getElementById('status').textContent.includes('points per series')",
                                    timeout=30000)
        return self.page.inner_text("#status")

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_viewer_in_another_zone_sees_local_times(browser, live_server, net, settings):
    settings.CELLAR_TIME_ZONE = "Europe/Berlin"          # the site's default ...
    pg = Page(browser, live_server, "America/Chicago")   # ... and a viewer in Chicago
    p = pg.page
    p.goto(f"{pg.url}/traffic/?s={net.rx.id}&range=3h&compare=1d")
    avg = "() => document.getElementById('plot')._fullData.filter(t => t.meta && t.meta.role === '%s')"
    status = pg.loaded()
    layout = p.evaluate("() => document.getElementById('plot')._fullLayout.xaxis.range")
    body = p.evaluate("id => fetch('/traffic/api/data?range=3h&s=' + id).then(r => r.json())", net.rx.id)
    end = datetime.fromisoformat(body["end"].replace("Z", "+00:00")).astimezone(ZoneInfo("America/Chicago"))
    # the status line and the axis say Chicago's wall-clock time, not UTC's nor Berlin's
    assert end.strftime("%Y-%m-%d %H:%M") in status and end.tzname() in status, status
    assert layout[1].startswith(end.strftime("%Y-%m-%d %H:%M")[:13]), layout
    title = p.evaluate("() => document.getElementById('plot')._fullLayout.xaxis.title.text")
    assert title == "time (America/Chicago)"
    hover = p.evaluate(avg % "average" + "[0].hovertemplate")
    assert "America/Chicago" in hover and "UTC" not in hover
    assert p.inner_text("#zone-label") == "America/Chicago"
    # the compare line is there, dashed, with its legend entry
    dashed = p.evaluate(avg % "compare" + ".map(t => [t.name, t.line.dash])")
    assert dashed == [["asx-1 A1 Receive (1 day earlier)", "dash"]]
    pg.shot("plot-chicago-compare-1d")
    # a custom range typed in Chicago time reaches the server as the same instant in UTC
    p.fill("#start", "2026-11-20 06:00")
    p.fill("#end", "")
    p.evaluate("() => document.getElementById('custom').requestSubmit()")
    p.wait_for_function("() => location.search.includes('start=')")
    assert "start=2026-11-20T12:00:00Z" in p.url, p.url
    # a status page: times in Chicago, the footer says so
    p.goto(f"{pg.url}/me/")
    assert "America/Chicago" in p.inner_text("footer")
    pg.shot("settings-chicago")
    assert not pg.errors, pg.errors


def test_a_young_archive_opens_on_its_data(browser, live_server, transactional_db):
    now = rollup.db_now()
    sw = f.switch("asx-new")
    port = f.port(sw, "A1")
    rx = f.series(port, "in")
    lay = f.layout(sw, [rx])
    f.constant(sw, lay, now - timedelta(minutes=10), 38, 15, [20_000])
    pg = Page(browser, live_server)
    p = pg.page
    p.goto(f"{pg.url}/traffic/?s={rx.id}")
    pg.loaded()
    lo, hi = p.evaluate("() => document.getElementById('plot')._fullLayout.xaxis.range")
    span = datetime.fromisoformat(hi[:19]) - datetime.fromisoformat(lo[:19])
    assert timedelta(minutes=10) < span < timedelta(minutes=13), (lo, hi)   # not 24 h
    pts = p.evaluate("() => document.getElementById('plot')._fullData.filter(t => t.meta && t.meta.role === 'average')"
                     "[0].x.length")
    assert pts > 30
    pg.shot("plot-young-archive")
    assert not pg.errors, pg.errors


def test_the_port_table_scrolls_in_its_box_with_the_port_column_kept(browser, live_server, transactional_db):
    build_network()
    pg = Page(browser, live_server)
    p = pg.page
    p.goto(f"{pg.url}/switches/fore-a/")
    p.wait_for_selector("table#ports")
    pg.shot("switch-ports-1400")
    # At 1400 px it fits or scrolls inside its own box; narrower (1000 px) it must scroll there
    # (checked to overflow, so the sticky column is really tested), never the page.
    for width in (1400, 1000):
        p.set_viewport_size({"width": width, "height": 900})
        page_width = p.evaluate("() => document.documentElement.scrollWidth")
        assert page_width <= width, page_width          # the page itself does not overflow the window
        box = p.evaluate("() => { const w = document.querySelector('#ports').parentElement; "
                         "return [w.className, w.clientWidth, w.scrollWidth, w.getBoundingClientRect().left, "
                         "w.getBoundingClientRect().right]; }")
        assert box[0] == "tablewrap" and box[1] <= width
        if width == 1000:
            assert box[2] > box[1] + 100, box          # it overflows: it scrolls in its box
        p.evaluate("() => { const w = document.querySelector('#ports').parentElement; w.scrollLeft = w.scrollWidth; }")
        first = p.evaluate("() => document.querySelector('#ports tbody tr td:first-child')"
                           ".getBoundingClientRect().left")
        last = p.evaluate("() => { const c = document.querySelector('#ports thead tr:last-child th:last-child')"
                          ".getBoundingClientRect(); return [c.left, c.right]; }")
        assert abs(first - box[3]) <= 2                # the port column stays at the box's left edge
        assert last[1] <= box[4] + 1                   # the last column (after Total Mb) is reachable
        pg.shot(f"switch-ports-{width}-scrolled")
    totals = p.evaluate("() => [...document.querySelectorAll('#ports thead tr.group th')].map(t => t.textContent)")
    assert "Total Mb" in totals
    assert not pg.errors, pg.errors


def test_one_series_is_compared_from_its_chip(browser, live_server, net):
    """Per-series comparison from the page (compare=ID:offset), not only through the URL."""
    pg = Page(browser, live_server)
    p = pg.page
    p.goto(f"{pg.url}/traffic/?s={net.rx.id},{net.tx.id}&range=3h")
    pg.loaded()
    compared = ("() => document.getElementById('plot')._fullData.filter(t => t.meta && t.meta.role === 'compare')"
                ".map(t => [t.name, t.line.dash])")
    assert p.evaluate(compared) == []
    p.select_option(f'.chip[data-series="{net.tx.id}"] select.chip-compare', "1d")
    p.wait_for_function(f"() => location.search.includes('compare={net.tx.id}:1d')")
    p.wait_for_function(f"() => ({compared})().length === 1", timeout=30000)
    tx_label = p.evaluate(f"() => document.querySelector('.chip[data-series=\"{net.tx.id}\"]').textContent")
    (name, dash), = p.evaluate(compared)
    assert name.endswith("(1 day earlier)") and name.split(" (")[0] in tx_label and dash == "dash"
    # the chip shows its own offset, the other chip none; the CSV link carries it
    assert p.eval_on_selector(f'.chip[data-series="{net.tx.id}"] select.chip-compare', "s => s.value") == "1d"
    assert p.eval_on_selector(f'.chip[data-series="{net.rx.id}"] select.chip-compare', "s => s.value") == ""
    assert f"compare={net.tx.id}:1d" in p.get_attribute("#csv", "href")
    pg.shot("plot-compare-one-series")
    p.select_option(f'.chip[data-series="{net.tx.id}"] select.chip-compare', "")
    p.wait_for_function("() => !location.search.includes('compare=')")
    assert not pg.errors, pg.errors
