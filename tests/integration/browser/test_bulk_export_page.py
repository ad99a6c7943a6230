"""A bulk export in Debian's headless chromium, as a viewer: the form (Reports → Exports → New bulk
export) starts a network-wide Parquet export, the job page follows it to its download link, and the
downloaded file read by pandas is what `manage.py export` writes for the same window; a bad window
comes back on the form with the message. Screenshots: /tmp/cellar-shots/bulk-*.png."""
from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest
from django.core.management import call_command

from collector.core.isotime import iso
from collector.exports import writer
from collector.exports.models import ExportJob
from tests.support import bulk_check
from tests.support import traffic_factory as f
from tests.support.browser import SHOTS, sticking_out, watched_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("plain_static")]


def test_a_viewer_exports_the_network_as_parquet_from_the_form(browser, live_server, settings, tmp_path):
    settings.CELLAR_EXPORT_DIR = tmp_path / "exports"
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    f.derived_archive("browser-a", t0)
    f.derived_archive("browser-b", t0 + timedelta(seconds=3), series_count=3)
    start, end = iso(t0 - timedelta(minutes=1)), iso(t0 + timedelta(minutes=10))
    ctx, page = watched_page(browser, live_server.url, "viewer", "vic", {"width": 1400, "height": 900})
    try:
        page.goto(live_server.url + "/exports/")
        page.click("#new-export")
        page.wait_for_selector("#export-form")
        assert sticking_out(page) == []
        page.check("input[name=scope][value=all]")
        page.fill("input[name=start]", "yesterday")
        page.click("#export-form button[type=submit]")
        assert "start='yesterday' is not an ISO 8601 time" in page.inner_text("#export-error")
        page.screenshot(path=str(SHOTS / "bulk-form-error.png"), full_page=True)
        assert page.errors == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]
        page.errors.clear()                                    # that 400 was the point
        page.fill("input[name=start]", start)
        page.fill("input[name=end]", end)
        page.select_option("select[name=format]", "parquet")
        page.screenshot(path=str(SHOTS / "bulk-form.png"), full_page=True)
        with page.expect_navigation():
            page.click("#export-form button[type=submit]")
        job = ExportJob.objects.get()
        assert page.url.endswith(f"/exports/{job.id}/") and "queued" in page.inner_text("#export-text")
        assert "Parquet export" in page.inner_text("h1") and "the whole network" in page.inner_text("h1")
        writer.run(job.id)                                     # the worker's part, here
        page.wait_for_selector('#export-job[data-status="done"]', state="attached", timeout=10_000)
        assert page.inner_text("#export-text").startswith("done: 50 rows")
        page.screenshot(path=str(SHOTS / "bulk-job.png"), full_page=True)
        with page.expect_download() as dl:
            page.click("#export-link")
        got = pd.read_parquet(dl.value.path(), dtype_backend="numpy_nullable")
        page.goto(live_server.url + "/exports/")
        assert "Parquet export" in page.inner_text("main")
        page.screenshot(path=str(SHOTS / "bulk-list.png"), full_page=True)
        assert page.errors == []
    finally:
        ctx.close()
    want = tmp_path / "cli.parquet"
    call_command("export", "--all", "--start", start, "--end", end, "--format", "parquet", "-o", str(want),
                 stdout=io.StringIO())
    pd.testing.assert_frame_equal(got, bulk_check.read_parquet(want))
    assert len(got) == 50 and set(got["switch"].astype(str)) == {"browser-a", "browser-b"}
