"""The analysis pages in Debian's headless chromium: the form checks a selection and shows what it
will read, the button starts the analysis, the job page follows its progress (static JS, no
inline script) and then draws every figure; no console error (CSP violations included).
Screenshots: /tmp/cellar-shots/analysis-*.png."""
from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.support import analysis_archive as A
from tests.support.browser import SHOTS, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]


def _coarse(tmp_path, data) -> str:
    """An exact 15-minute aggregate of the series, as a carrier would send it."""
    sums: dict[int, int] = {}
    t0 = int(data["t0"].timestamp())
    for offset, _ms, deltas, flags in data["rows"]:
        if deltas[0] is not None and not flags[0] & 8:
            b = (t0 + int(offset)) // 900 * 900
            sums[b] = sums.get(b, 0) + deltas[0]
    path = tmp_path / "carrier.csv"
    path.write_text("time,value\n" + "".join(f"{b},{v}\n" for b, v in sorted(sums.items())))
    return str(path)


def test_the_analysis_page_from_form_to_figures(browser, live_server, tmp_path, plain_static):
    from collector.analysis import run
    from collector.analysis.models import AnalysisJob

    data = A.build("browser-lrd", A.rates_selfsim(0.8, seed=21))
    call_command("import_csv", _coarse(tmp_path, data), name="sprint-15min", unit="cells", interval=900)
    from collector.external.models import ExternalSeries

    xs = ExternalSeries.objects.get(name="sprint-15min")
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    log_in(ctx, live_server.url, "viewer")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        q = (f"s={data['series'].id}&start={data['t0']:%Y-%m-%dT%H:%M:%SZ}&end={data['end']:%Y-%m-%dT%H:%M:%SZ}"
             f"&with=x:{xs.id}")
        r = page.goto(f"{live_server.url}/analysis/?{q}")
        assert r.status == 200
        preview = page.inner_text(".preview")
        assert "browser-lrd" in preview and "raw samples" in preview
        page.screenshot(path=str(SHOTS / "analysis-form.png"), full_page=True)
        with page.expect_navigation():
            page.click(".preview button[type=submit]")
        assert "/analysis/jobs/" in page.url
        job = AnalysisJob.objects.get()
        assert "queued" in page.inner_text("#analysis-step")
        run.execute(job.id)                                  # the worker's part, here
        page.wait_for_selector('#analysis-job[data-status="done"]', state="attached", timeout=20_000)
        page.wait_for_selector("#figures[data-drawn]", state="attached", timeout=20_000)
        drawn = int(page.get_attribute("#figures", "data-drawn"))
        assert drawn >= 3 + 4, drawn                      # series, ACF, spectrum, 4 estimators (+ correlation)
        assert page.locator("#figures .figure .main-svg").count() >= drawn
        page.screenshot(path=str(SHOTS / "analysis-job.png"), full_page=True)
        text = page.inner_text("main")
        for needed in ("Stationarity", "hurst", "local Whittle", "correlation", "lag of the highest r"):
            assert needed in text, needed
        # the page's table fits the window: nothing wider than the viewport
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 1400, width
        assert errors == [], errors
    finally:
        ctx.close()


def test_series_are_chosen_with_the_picker_and_named_everywhere(browser, live_server, tmp_path, plain_static):
    """No id is typed or shown: the picker's search and tree choose the series (two, summed), the
    second series to correlate with, and the preview, the job page and its title name them."""
    from collector.analysis import run
    from collector.analysis.models import AnalysisJob

    data = A.build("picker-lrd", A.rates_selfsim(0.8, seed=22))
    other = A.build("picker-other", A.rates_selfsim(0.7, seed=23), port="B2", marks=False)
    third = A.build("picker-third", A.rates_selfsim(0.6, seed=24), port="C3", marks=False)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    log_in(ctx, live_server.url, "viewer", username="picker")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        assert page.goto(f"{live_server.url}/analysis/").status == 200
        assert page.locator('input[name="s"]').get_attribute("type") == "hidden"   # nothing to type
        page.select_option('select[name="range"]', "custom")
        page.fill('input[name="start"]', f"{data['t0']:%Y-%m-%dT%H:%M:%SZ}")
        page.fill('input[name="end"]', f"{data['end']:%Y-%m-%dT%H:%M:%SZ}")
        # the search finds a series by its switch's name; a click chooses it, shown by name
        page.fill("#picker-search", "picker-lrd")
        page.click("#picker-results button.series >> text=picker-lrd A1 Receive")
        # the tree: open a switch, a port, choose its receive counter (summed with the first)
        page.click("#picker-tree details.switch[data-switch-id] >> text=picker-other")
        page.click("#picker-tree details.port >> text=B2")
        page.click("#picker-tree details.port[open] button.series >> text=Receive")
        # the second series, to correlate with
        page.check("#pick-with")
        page.fill("#picker-search", "picker-third")
        page.click("#picker-results button.series >> text=picker-third C3 Receive")
        chosen = page.inner_text("#picked-s")
        assert "picker-lrd A1 Receive" in chosen and "picker-other B2 Receive" in chosen and "summed" in chosen
        assert "picker-third C3 Receive" in page.inner_text("#picked-with")
        page.screenshot(path=str(SHOTS / "analysis-picker.png"), full_page=True)
        with page.expect_navigation():
            page.click("#analysis-form button[type=submit]")
        assert f"s={data['series'].id}%2C{other['series'].id}" in page.url or \
            f"s={data['series'].id},{other['series'].id}" in page.url
        preview = page.inner_text(".preview")
        assert "picker-lrd A1 Receive" in preview and "picker-other B2 Receive" in preview
        assert "correlated with picker-third C3 Receive" in preview
        # the chips come back by name from the URL's ids
        assert "picker-other B2 Receive" in page.inner_text("#picked-s")
        page.screenshot(path=str(SHOTS / "analysis-picker-preview.png"), full_page=True)
        with page.expect_navigation():
            page.click(".preview button[type=submit]")
        run.execute(AnalysisJob.objects.get().id)
        page.wait_for_selector("#figures[data-drawn]", state="attached", timeout=30_000)
        title = page.inner_text("h1")
        assert "sum of 2 series: picker-lrd A1 Receive + picker-other B2 Receive" in title, title
        analysed = page.inner_text("main")
        assert "correlated with picker-third C3 Receive" in analysed
        for sid in (data["series"].id, other["series"].id, third["series"].id):
            assert f"series {sid}" not in analysed and f"s:{sid}" not in analysed
        page.screenshot(path=str(SHOTS / "analysis-picker-job.png"), full_page=True)
        assert errors == [], errors
    finally:
        ctx.close()
