"""The traffic page in Debian's headless chromium with JavaScript on: pick a series in the
picker, change the time scale, see a plot with data, zoom, stack VCs, download the CSV.
Screenshots go to /tmp/cellar-shots/traffic-*.png for a human look."""
from __future__ import annotations

import csv
from datetime import timedelta

import pytest

from collector.archive import rollup
from collector.archive.rollup import floor_time
from tests.support import traffic_factory as f
from tests.support.browser import SHOTS, log_in
from tests.support.traffic_network import RX, TX

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("plain_static"),
]


class Page:
    """A page that records console errors and failed requests."""

    def __init__(self, browser):
        self.ctx = browser.new_context(viewport={"width": 1440, "height": 960}, accept_downloads=True)
        self.page = self.ctx.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("requestfailed", lambda r: self.errors.append(f"request failed: {r.url}"))
        self.page.on("response", lambda r: r.status >= 400 and "favicon" not in r.url and not r.url.endswith(
            "s=987654") and self.errors.append(f"{r.status} {r.url}"))

    def loaded(self, contains: str = "points per series") -> str:
        self.page.wait_for_function(
            "t => document.getElementById('status').textContent.includes(t)", arg=contains, timeout=20000)
        # the page asks for the 95th percentile after drawing: loaded means that answer is in too
        self.page.wait_for_function("() => !document.querySelector('#stats td.p95[aria-busy]')", timeout=20000)
        return self.page.inner_text("#status")

    def traces(self, role: str = "average") -> list[dict]:
        return self.page.evaluate(
            # _fullData: the traces as plotly.js read them (typed arrays decoded; NaN breaks a line)
            "role => (document.getElementById('plot')._fullData || []).filter(t => t.meta && t.meta.role === role)"
            ".map(t => { const y = Array.from(t.y).filter(v => v !== null && !Number.isNaN(v));"
            " return {name: t.name, points: y.length, stack: t.stackgroup || null, y: y.slice(0, 3)}; })", role)

    def stats(self) -> str:
        """The statistics table once the 95th percentile (asked after drawing) is in."""
        self.page.wait_for_function(
            "() => document.querySelectorAll('#stats td.p95').length"
            " && !document.querySelector('#stats td.p95[aria-busy]')", timeout=20000)
        return self.page.inner_text("#stats tbody")

    def shot(self, name: str) -> None:
        self.page.screenshot(path=str(SHOTS / f"traffic-{name}.png"), full_page=True)


@pytest.fixture
def page(browser, live_server, transactional_db):
    p = Page(browser)
    log_in(p.ctx, live_server.url, "viewer")
    yield p
    p.ctx.close()


def test_pick_a_series_change_the_scale_zoom_and_download(net, live_server, page):
    pg = page.page
    pg.goto(f"{live_server.url}/traffic/")
    # the 1995 flow: switch -> port -> Receive
    pg.click("details.switch:has-text('asx-1') > summary")
    pg.click("details.port:has-text('A1') > summary")
    pg.click(f"button[data-series-id='{net.rx.id}']")
    status = page.loaded()
    assert "1-minute averages" in status               # range=auto: 24 h of an archive older than that
    lines = page.traces()
    assert len(lines) == 1 and lines[0]["points"] > 100 and lines[0]["y"][0] == pytest.approx(RX)
    assert page.traces("peak")[0]["points"] > 100
    assert f"s={net.rx.id}" in pg.url and "range=auto" in pg.url
    assert page.stats().count("100.0 kcells/s") >= 3   # average, peak, p95
    page.shot("24h")

    # change the time scale
    pg.click("button.range[data-range='3h']")
    status = page.loaded("raw samples")
    assert page.traces()[0]["points"] > 600
    assert "range=3h" in pg.url

    # transmit on the same plot, in Mb/s of the cell stream
    pg.click(f"button[data-series-id='{net.tx.id}']")
    pg.select_option("#unit", "mbps_cells")
    page.loaded("Mb/s of 53-byte cells")
    lines = page.traces()
    # the figure carries y as float32 (7 digits; the page shows 4)
    assert [t["y"][0] for t in lines] == pytest.approx([RX * 424 / 1e6, TX * 424 / 1e6], rel=1e-6)
    assert "unit=mbps_cells" in pg.url
    page.shot("3h-rx-tx-mbps")

    # the CSV of exactly that plot
    with pg.expect_download() as info:
        pg.click("#csv")
    rows = list(csv.reader(open(info.value.path())))
    assert rows[0][1] == "asx-1 A1 Receive rate [Mb/s of 53-byte cells]"
    assert rows[0][5] == "asx-1 A1 Transmit rate [Mb/s of 53-byte cells]"
    assert 700 <= len(rows) - 1 <= 721
    assert float(rows[5][1]) == pytest.approx(RX * 424 / 1e6) and float(rows[5][5]) == pytest.approx(TX * 424 / 1e6)
    assert info.value.suggested_filename.endswith("_raw.csv")

    # zoom into 20 minutes: the window is fetched again, bookmarkable
    lo = floor_time(net.end - timedelta(hours=1), 60)
    pg.evaluate("([a, b]) => Plotly.relayout('plot', {'xaxis.range[0]': a, 'xaxis.range[1]': b})",
                [f"{lo:%Y-%m-%d %H:%M:%S}", f"{lo + timedelta(minutes=20):%Y-%m-%d %H:%M:%S}"])
    page.loaded(f"{lo:%Y-%m-%d %H:%M}")
    assert page.traces()[0]["points"] == 81 and "start=" in pg.url
    # ... and the bookmark shows the same view
    pg.goto(pg.url)
    page.loaded(f"{lo:%Y-%m-%d %H:%M}")
    assert page.traces()[0]["points"] == 81
    assert page.errors == []


def test_stack_the_vcs_of_a_port_and_search(net, live_server, page):
    pg = page.page
    pg.goto(f"{live_server.url}/traffic/?range=7d")
    pg.click("details.switch:has-text('asx-1') > summary")
    pg.click("details.port:has-text('A1') > summary")
    pg.click("text=stack the 3 VCs (receive)")
    page.loaded("15-minute averages")
    lines = page.traces()
    assert [t["stack"] for t in lines] == ["stack"] * 3 and all(t["points"] > 100 for t in lines)
    assert "stack=1" in pg.url
    page.shot("7d-stacked-vcs")
    # search finds a VC by VPI/VCI; clicking adds it
    pg.click(".chip button")                            # remove the first VC
    pg.fill("#search", "0/100")
    pg.click("#search-results button.series")
    page.loaded()
    assert [t["name"] for t in page.traces()][-1] == "asx-1 A1 Receive VP:0 VC:100"
    # IP interfaces are in the picker too
    pg.click("details.switch:has-text('router-1') > summary")
    pg.click("details.port:has-text('eth0') > summary")
    assert pg.is_visible(f"button[data-series-id='{net.ip_in.id}']")
    assert page.errors == []


def test_gaps_and_flags_are_visible(live_server, page, transactional_db):
    now = rollup.db_now()
    t0 = floor_time(now - timedelta(hours=2), 3600)
    sw = f.switch("flaky")
    p = f.port(sw, "C1", capacity_cells=96_000, speed_bps=44_736_000, port_type="DS3", label="gandalf-atm.msc")
    s = f.series(p, "in", capacity=96_000)
    lay = f.layout(sw, [s])
    rows = [(0.0, None, [None], [32])]
    t = 0.0
    for k in range(1, 240):
        t += 15
        rate = 30_000 + 20_000 * ((k // 20) % 3)
        if 100 <= k < 120:
            f.poll_log(sw, t, "timeout", "No SNMP response received before timeout", t0=t0)
            continue
        if k == 120:
            rows.append((t, 315_000, [315 * 55_000], [64]))
        elif k == 40:
            rows.append((t, 15000, [None], [2]))
        elif k == 60:
            rows.append((t, 15000, [10 ** 8], [8]))
        else:
            rows.append((t, 15000, [15 * rate], [1 if k == 80 else 0]))
    f.insert(sw, lay, rows, t0=t0)
    rollup.run(budget_s=60)
    pg = page.page
    pg.goto(f"{live_server.url}/traffic/?s={s.id}&start={t0:%Y-%m-%dT%H:%M:%SZ}"
            f"&end={t0 + timedelta(hours=1):%Y-%m-%dT%H:%M:%SZ}")
    page.loaded("raw samples")
    gaps = pg.evaluate("document.getElementById('plot').data.filter(t => t.meta.role === 'gaps')[0].text")
    assert any("timeout" in g for g in gaps) and any("REBOOT" in g for g in gaps)
    flags = pg.evaluate("document.getElementById('plot').data.filter(t => t.meta.role === 'flags')[0].marker.symbol")
    assert {"x", "triangle-down", "diamond-open", "circle-open"} <= set(flags)
    assert pg.evaluate("document.getElementById('plot').layout.shapes.length") >= 3
    page.shot("gaps-and-flags")
    assert page.errors == []


def test_a_week_of_traffic_with_its_peak_envelope(live_server, page, transactional_db):
    """Diurnal traffic at 15 s for 8 days: the 7-day view draws 15-minute averages and peaks."""
    now = rollup.db_now()
    sw = f.switch("asx-week")
    p = f.port(sw, "D1", label="134.207.18.71")
    rx, tx = f.series(p, "in"), f.series(p, "out")
    lay = f.layout(sw, [rx, tx])
    f.generate(sw, lay, floor_time(now - timedelta(days=8), 60), floor_time(now, 60), 15, [120_000, 45_000])
    rollup.run(budget_s=300)
    pg = page.page
    pg.goto(f"{live_server.url}/traffic/?s={rx.id},{tx.id}&range=7d&unit=mbps_payload")
    page.loaded("15-minute averages")
    columns = ("role => document.getElementById('plot')._fullData.filter(t => t.meta.role === role)"
               ".map(t => Array.from(t.y, v => Number.isNaN(v) ? null : v))")
    avg, peak = pg.evaluate(columns, "average"), pg.evaluate(columns, "peak")
    assert len(avg) == len(peak) == 2
    for a_list, p_list in zip(avg, peak):
        pairs = [(a, b) for a, b in zip(a_list, p_list) if a is not None]
        assert len(pairs) > 600 and all(b >= a - 1e-9 for a, b in pairs) and any(b > a * 1.01 for a, b in pairs)
    page.shot("7d-diurnal-envelope")
    pg.click("button.range[data-range='30d']")
    page.loaded("1-hour averages")
    page.shot("30d-diurnal")
    assert page.errors == []


def test_a_burst_is_banded_listed_and_zoomable(live_server, page, transactional_db):
    """An OC-3 port at 20,000 cells/s with 3 minutes at 200,000 (above 10 % of capacity)."""
    now = rollup.db_now()
    t0 = floor_time(now - timedelta(hours=1), 3600)
    sw = f.switch("bursty")
    s = f.series(f.port(sw, "B1", label="sc95-floor"), "out")
    lay = f.layout(sw, [s])
    rows = [(0.0, None, [None], [32])]
    for k in range(1, 200):
        rate = 200_000 if 100 <= k < 112 else 20_000
        rows.append((15.0 * k, 15000, [15 * rate], [0]))
    f.insert(sw, lay, rows, t0=t0)
    pg = page.page
    pg.goto(f"{live_server.url}/traffic/?s={s.id}&start={t0:%Y-%m-%dT%H:%M:%SZ}"
            f"&end={t0 + timedelta(minutes=50):%Y-%m-%dT%H:%M:%SZ}")
    page.loaded("raw samples")
    bands = pg.evaluate("document.getElementById('plot').layout.shapes.filter(s => s.name === 'burst')"
                        ".map(s => [s.x0, s.x1])")
    start, end = t0 + timedelta(seconds=15 * 99), t0 + timedelta(seconds=15 * 111)
    assert bands == [[f"{start:%Y-%m-%d %H:%M:%S}", f"{end:%Y-%m-%d %H:%M:%S}"]]
    listed = pg.inner_text("#bursts")
    assert "1 found at raw samples" in listed and "3.0 min" in listed and "36,000,000 cells" in listed
    page.shot("burst")
    pg.click("#bursts a:has-text('zoom')")
    page.loaded("raw samples")
    assert "start=" in pg.url and pg.inner_text("#bursts tbody").count("zoom") == 1
    assert page.errors == []


def test_the_data_inventory_marks_bursts_and_opens_the_plot_zoomed_to_them(live_server, page, transactional_db):
    from collector.bursts import scan as scan
    from tests.support import burst_archive

    f.reset_rollups()
    arc = burst_archive.build()
    scan.run(budget_s=120)
    pg = page.page
    pg.goto(f"{live_server.url}/datasets/")
    pg.wait_for_selector("table#inventory tbody tr")
    rows = pg.inner_text("table#inventory tbody")
    assert "sc95-floor" in rows and "B1" in rows and "B2" in rows
    assert pg.locator("table#inventory tr.burst").count() == 1          # only B2 had bursts
    assert "2 series with data" in pg.inner_text("#inventory-summary")
    page.shot("inventory")
    pg.click("table#inventory tr.burst a:has-text('plot bursts')")
    page.loaded("points per series")
    assert f"s={arc['bursty'].id}" in pg.url
    assert "found" in pg.inner_text("#bursts") and pg.locator("#bursts tbody tr").count() >= 1
    page.shot("inventory-to-burst")
    f.reset_rollups()
    assert page.errors == []


def test_bad_input_page(live_server, page, transactional_db):
    pg = page.page
    r = pg.goto(f"{live_server.url}/traffic/?s=987654")
    assert r.status == 400
    assert pg.inner_text("#error-message") == "unknown series id: 987654"
    page.shot("bad-request")
