"""External series in Debian's headless chromium: a refused upload shows the parser's message on
the form; a good one lands on the series page, whose rate plot is drawn by its static script
(no inline script, no policy violation). Screenshots: /tmp/cellar-shots/external-*.png."""
from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from collector.external.models import ExternalSeries
from tests.support.browser import SHOTS, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
T0 = datetime(2026, 11, 20, tzinfo=UTC)


def day_of_counts() -> bytes:
    """A day of 15-minute cell counts (labelled at interval ends), a daily swing and two missing."""
    lines = ["time,cells"]
    for k in range(96):
        end = T0 + timedelta(seconds=900 * (k + 1))
        value = "" if k in (40, 41) else str(round(900 * 2000 * (1.2 + math.sin(k / 96 * 2 * math.pi))))
        lines.append(f"{end:%Y-%m-%dT%H:%M:%SZ},{value}")
    return ("\n".join(lines) + "\n").encode()


def test_upload_refused_then_accepted_and_drawn(browser, live_server, plain_static):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    log_in(ctx, live_server.url, "operator")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # The refused upload answers 400 (chromium logs that as a console error); anything else counts,
    # a Content Security Policy violation first of all.
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "status of 400" not in m.text
            else None)
    try:
        page.goto(f"{live_server.url}/external/upload")
        bad = b"time,cells\n2026-11-20T00:15:00Z,1200\n2026-11-20T00:30:00Z,-40\n2026-11-20T00:37:00Z,900\n"
        page.set_input_files("input[name=file]", {"name": "sprint.csv", "mimeType": "text/csv", "buffer": bad})
        page.fill("input[name=name]", "sprint-cells")
        page.select_option("select[name=stamp]", "end")
        page.fill("input[name=source]", "Sprint")
        with page.expect_navigation():
            page.click("#import-form button[type=submit]")
        message = page.inner_text("#import-error")
        assert "line 3: a negative value" in message and "line 4: a time not on the 900-second grid" in message
        assert page.input_value("input[name=name]") == "sprint-cells"
        assert not ExternalSeries.objects.exists()
        page.screenshot(path=str(SHOTS / "external-upload-error.png"), full_page=True)

        page.set_input_files("input[name=file]", {"name": "sprint.csv", "mimeType": "text/csv",
                                                  "buffer": day_of_counts()})
        with page.expect_navigation():
            page.click("#import-form button[type=submit]")
        series = ExternalSeries.objects.get()
        assert page.url.endswith(f"/external/{series.id}/")
        assert "94 points stored in new series sprint-cells" in page.inner_text("ul.messages")
        page.wait_for_selector("#external-plot .main-svg", timeout=10_000)
        page.screenshot(path=str(SHOTS / "external-series.png"), full_page=True)
        page.goto(f"{live_server.url}/external/")
        assert "sprint-cells" in page.inner_text("#external-series")
        assert errors == []
    finally:
        ctx.close()
