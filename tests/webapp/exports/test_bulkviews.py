"""webapp/exports/bulkviews.py: the form starts a job (303 to its page), a bad form comes back with the
message and what was typed, a job's page and JSON name what it exports; the API streams a small export
and answers a larger one with 409 naming the inline limit."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from collector.exports.models import ExportJob
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def archive(settings, tmp_path):
    settings.CELLAR_EXPORT_DIR = tmp_path / "exports"
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    f.derived_archive("web-a", t0)
    return t0


def test_the_form_starts_a_job_and_its_page_says_what_it_exports(client, archive):
    page = client.get("/exports/new")
    assert page.status_code == 200 and 'name="scope"' in page.content.decode() and "web-a" in page.content.decode()
    r = client.post("/exports/api/bulk", {"scope": "switch", "switch": ["web-a"], "g": "", "s": "", "start": "2h",
                                          "end": "", "res": "raw", "format": "parquet"})
    assert r.status_code == 303
    job = ExportJob.objects.get()
    assert r["Location"] == f"/exports/{job.id}/"
    assert job.kind == "bulk" and job.spec["scope"]["switches"] == ["web-a"] and job.spec["format"] == "parquet"
    assert job.expected_rows == 2 * 7200 // 15 and job.filename.endswith("_raw.parquet")
    shown = client.get(r["Location"]).content.decode()
    assert f"Parquet export {job.id}: switch web-a, raw" in shown and "The form of this export" in shown
    state = client.get(f"/exports/{job.id}.json").json()
    assert state["kind"] == "bulk" and state["status"] == "queued" and state["title"].startswith("Parquet export")
    assert "Parquet export" in client.get("/exports/").content.decode()


# form fields -> the message the form shows again
BAD = {
    "two scopes by parameters": ({"scope": "", "switch": "web-a", "all": "1"}, "give one scope, not switches and all"),
    "a switch not chosen": ({"scope": "switch"}, "say what to export"),
    "bad series": ({"scope": "series", "s": "12,x"}, "s=&#x27;12,x&#x27;: give series ids separated by commas"),
    "bad start": ({"scope": "all", "start": "last week"}, "not an ISO 8601 time"),
    "too many rows": ({"scope": "all", "start": "30d"}, "a bulk export holds at most 1,000"),
}


@pytest.mark.parametrize("name", list(BAD), ids=list(BAD))
def test_a_bad_form_comes_back_with_the_message(client, archive, settings, name):
    settings.CELLAR_BULK_EXPORT_MAX_ROWS = 1000
    fields, words = BAD[name]
    r = client.post("/exports/api/bulk", {"format": "csv", "res": "raw", **fields})
    assert r.status_code == 400 and words in r.content.decode(), r.content.decode()[:2000]
    assert 'id="export-form"' in r.content.decode() and not ExportJob.objects.exists()


def test_the_api_streams_a_small_export_and_offers_a_job_for_a_large_one(client, archive, settings):
    q = f"switch=web-a&start={archive:%Y-%m-%dT%H:%M:%SZ}&end=20m"
    small = client.get(f"/exports/api/bulk?{q.replace('end=20m', 'end=0m')}")
    assert small.status_code == 200 and small["Content-Disposition"].endswith('.csv"')
    lines = b"".join(small.streaming_content).decode().splitlines()
    assert lines[0].startswith('"time","switch","port"') and len(lines) == 1 + 2 * len(f.EVERY_FLAG_POLLS)
    settings.CELLAR_CSV_SYNC_MAX_CELLS = 10
    large = client.get(f"/exports/api/bulk?{q.replace('end=20m', 'end=0m')}&format=parquet")
    body = large.json()
    assert large.status_code == 409 and body["limit"] == 10 and body["rows"] > 10
    assert "a direct download holds at most 10 (CELLAR_CSV_SYNC_MAX_CELLS)" in body["error"]
    assert body["create"]["method"] == "POST"
    created = client.post(body["create"]["url"], HTTP_ACCEPT="application/json")
    assert created.status_code == 202 and ExportJob.objects.get().spec["format"] == "parquet"
    in_body = client.post("/exports/api/bulk", {"switch": "web-a", "start": "2h", "res": "1m", "format": "csv-wide"})
    assert in_body.status_code == 202 and ExportJob.objects.get(pk=in_body.json()["id"]).spec["res"] == "1m"
