"""A background export in Debian's headless chromium: the CSV link of a large selection offers
it, the button starts it, and the job page (its script a static file, no inline script) follows
the progress to the download link without a reload."""
from __future__ import annotations

import pytest

from collector.exports import writer
from collector.exports.models import ExportJob
from tests.support.browser import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_job_page_follows_the_export_to_its_download(browser, net, live_server, settings, tmp_path,
                                                          plain_static):
    settings.CELLAR_CSV_SYNC_MAX_CELLS = 1000
    settings.CELLAR_ANONYMOUS_READ = True      # an anonymous job: owned by the browser's session
    settings.CELLAR_EXPORT_DIR = tmp_path / "exports"
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        offer = page.goto(f"{live_server.url}/traffic/export.csv?s={net.rx.id}&range=24h&raw=1")
        assert offer.status == 409
        assert "a direct download holds at most 1,000" in page.inner_text("#offer-message")
        with page.expect_navigation() as nav:
            page.click("button[type=submit]")
        assert nav.value.status == 200 and "/exports/" in page.url, (page.url, page.inner_text("main")[:500])
        job = ExportJob.objects.get()
        assert job.owner_id is None and job.session_hash       # anonymous: the browser's session owns it
        assert "queued" in page.inner_text("#export-text")
        assert not page.is_visible("#export-link")
        writer.run(job.id)                                     # the worker's part, here
        # (a selector, not wait_for_function: the Content Security Policy forbids evaluating strings)
        page.wait_for_selector('#export-job[data-status="done"]', state="attached", timeout=10_000)
        job.refresh_from_db()
        assert job.rows_written > 5000
        assert page.inner_text("#export-text").startswith(f"done: {job.rows_written:,} rows")
        assert page.is_visible("#export-link")
        page.screenshot(path=str(SHOTS / "export-job.png"))
        with page.expect_download() as dl:
            page.click("#export-link")
        path = dl.value.path()
        with open(path, "rb") as fh:
            assert fh.read().count(b"\n") == job.rows_written + 1
        assert errors == []
    finally:
        ctx.close()
