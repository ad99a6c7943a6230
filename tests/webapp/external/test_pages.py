"""webapp/external: the upload form (operators; a refused file shows the parser's message and
stores nothing), the list, a series' page (plot data from a JSON block, no inline script), its
JSON and CSV."""
from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from collector.external import imports
from collector.external.models import ExternalPoint, ExternalSeries
from tests.support.users import make_user

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 11, 20, 0, 0, tzinfo=UTC)
CSV = "time,value\n" + "".join(f"{(T0 + timedelta(seconds=900 * k)):%Y-%m-%dT%H:%M:%SZ},{k * 900}\n"
                               for k in range(8)) + "2026-11-20T02:00:00Z,\n"


def form(text: str | bytes = CSV, **extra) -> dict:
    data = text.encode() if isinstance(text, str) else text
    return {"file": SimpleUploadedFile("sprint.csv", data, "text/csv"), "name": "sprint-cells", "unit": "cells",
            "interval": "900", "stamp": "start", "source": "Sprint", "description": "", **extra}


def imported(name: str = "sprint-cells") -> ExternalSeries:
    return imports.import_csv(CSV, imports.SeriesSpec(name, "cells", 900, source="Sprint")).series


def test_an_operator_uploads_and_lands_on_the_series_page_with_the_result(client):
    r = client.post("/external/upload", form())
    series = ExternalSeries.objects.get()
    assert r.status_code == 302 and r.url == f"/external/{series.id}/"
    assert ExternalPoint.objects.filter(series=series).count() == 8 and series.created_by.username == "tester"
    page = client.get(r.url).content.decode()
    assert ("8 points stored in new series sprint-cells (cells per 900 s), intervals starting 2026-11-20T00:00:00Z "
            "to 2026-11-20T01:45:00Z; 1 empty (missing) value not stored.") in page
    assert "<td>2026-11-20 00:15:00</td>" in page and "<td class=\"num\">1.000</td>" in page   # 900 cells / 900 s
    assert 'src="/static/traffic/vendor/plotly.min.js"' in page and 'src="/static/external/series.js"' in page
    assert 'id="external-plot-data" type="application/json"' in page
    assert not re.findall(r"<script(?![^>]*(src=|application/json))[^>]*>", page)


def test_the_form_replaces_when_asked(client):
    client.post("/external/upload", form())
    r = client.post("/external/upload", form(CSV.replace(",900\n", ",1000\n")))
    assert r.status_code == 400
    assert "8 of the file&#x27;s intervals are already stored" in r.content.decode()
    r = client.post("/external/upload", form(CSV.replace(",900\n", ",1000\n"), replace="1"), follow=True)
    assert "8 of them replaced points stored before" in r.content.decode()
    assert ExternalPoint.objects.get(t=T0 + timedelta(seconds=900)).value == 1000


@pytest.mark.parametrize("data,message", [
    (form("time,value\n2026-11-20T00:00:00Z,-3\n"), "nothing imported: line 2: a negative value (a count is &gt;= 0)"),
    (form(b""), "choose a CSV file of time,value lines"),
    (form(b"\xff\xfe1,2\n"), "the file is not UTF-8 text"),
    (form(interval="15 min"), "interval &#x27;15 min&#x27;: a whole number of seconds"),
    (form(name="no spaces please"), "series name &#x27;no spaces please&#x27;"),
    (form(unit="bytes"), "unit &#x27;bytes&#x27;: use one of cells, octets, packets, bits"),
])
def test_a_refused_file_shows_the_message_on_the_form_and_stores_nothing(client, data, message):
    r = client.post("/external/upload", data)
    assert r.status_code == 400
    page = r.content.decode()
    error = re.search(r'<p class="note bad" id="import-error">(.*?)</p>', page, re.S)
    assert error and message in error.group(1), page[:3000]
    assert 'value="' + data["name"] + '"' in page          # the form keeps what was typed
    assert not ExternalSeries.objects.exists() and not ExternalPoint.objects.exists()


def test_a_file_over_the_size_limit_is_refused(client, settings):
    settings.CELLAR_EXTERNAL_UPLOAD_MAX_MB = 1
    big = CSV + "#" * (1024 * 1024) + "\n"
    r = client.post("/external/upload", form(big))
    assert r.status_code == 400 and "the form takes at most 1 MB (CELLAR_EXTERNAL_UPLOAD_MAX_MB)" in r.content.decode()
    assert not ExternalSeries.objects.exists()


def test_a_viewer_may_not_upload_and_an_anonymous_visitor_is_sent_to_log_in(db):
    viewer = Client()
    viewer.force_login(make_user("v", "viewer"))
    assert viewer.post("/external/upload", form()).status_code == 403
    assert viewer.get("/external/upload").status_code == 403
    r = Client().post("/external/upload", form())
    assert r.status_code == 302 and "/accounts/login/" in r.url
    assert not ExternalSeries.objects.exists()
    assert "Import a CSV" not in viewer.get("/external/").content.decode()


def test_the_upload_form_needs_csrf(db):
    c = Client(enforce_csrf_checks=True)
    c.force_login(make_user("op", "operator"))
    assert c.post("/external/upload", form()).status_code == 403
    page = c.get("/external/upload").content.decode()
    assert 'name="csrfmiddlewaretoken"' in page and 'enctype="multipart/form-data"' in page
    assert not ExternalSeries.objects.exists()


def test_the_list_shows_every_series(client):
    s = imported()
    page = client.get("/external/").content.decode()
    assert f'<a href="/external/{s.id}/">sprint-cells</a>' in page
    assert "<td>cells</td>" in page and '<td class="num">900</td>' in page and '<td class="num">8</td>' in page
    assert "<td>Sprint</td>" in page and "Import a CSV" in page


def test_json_has_the_attributes_and_the_points(client):
    s = imported()
    body = client.get(f"/external/{s.id}.json").json()
    assert body["series"]["name"] == "sprint-cells" and body["series"]["csv"] == f"/external/{s.id}.csv"
    assert (body["series"]["unit"], body["series"]["interval_s"], body["series"]["points"]) == ("cells", 900, 8)
    assert body["series"]["first"] == "2026-11-20T00:00:00Z" and body["series"]["last"] == "2026-11-20T01:45:00Z"
    assert body["points"][:2] == [["2026-11-20T00:00:00Z", 0.0], ["2026-11-20T00:15:00Z", 900.0]]
    window = client.get(f"/external/{s.id}.json?start=2026-11-20T01:00:00Z&end=2026-11-20T01:30:00Z").json()
    assert window["points"] == [["2026-11-20T01:00:00Z", 3600.0], ["2026-11-20T01:15:00Z", 4500.0]]
    bad = client.get(f"/external/{s.id}.json?start=noon")
    assert bad.status_code == 400 and "start='noon' is not an ISO 8601 time" in bad.json()["error"]
    assert client.get("/external/999999.json").status_code == 404


def test_csv_reads_back_into_the_same_points(client):
    s = imported()
    r = client.get(f"/external/{s.id}.csv")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    text = b"".join(r.streaming_content).decode()
    lines = list(csv.reader(io.StringIO(text)))
    assert lines[0] == ["time", "value"] and lines[1] == ["2026-11-20T00:00:00Z", "0"]
    assert lines[2] == ["2026-11-20T00:15:00Z", "900"] and len(lines) == 9
    again = imports.import_csv(text, imports.SeriesSpec("round-trip", "cells", 900))
    assert list(ExternalPoint.objects.filter(series=again.series).order_by("t").values_list("t", "value")) == list(
        ExternalPoint.objects.filter(series=s).order_by("t").values_list("t", "value"))


def test_an_unknown_series_is_404(client):
    assert client.get("/external/999999/").status_code == 404
    assert client.get("/external/999999.csv").status_code == 404


def test_a_long_series_is_drawn_in_buckets_of_whole_intervals(client):
    from collector.external import read

    rows = "".join(f"{(T0 + timedelta(seconds=60 * k)):%Y-%m-%dT%H:%M:%SZ},{60 * (k % 2)}\n" for k in range(1000))
    s = imports.import_csv(rows, imports.SeriesSpec("minutes", "octets", 60)).series
    times, rates, bucket = read.plot_points(s, max_points=100)
    assert bucket == 600 and len(times) == 100 and times[0] == "2026-11-20T00:00:00Z"
    assert rates == [0.5] * 100                                    # mean rate of 1, 0, 1, 0 ... octets/s
    page = client.get(f"/external/{s.id}/").content.decode()
    assert "each point is the mean rate of the stored intervals in a bucket" not in page   # 1,000 <= 5,000 drawn


def test_a_viewer_in_another_zone_sees_local_interval_starts_while_json_and_csv_keep_utc(db):
    from webapp.personal import zones

    s = imported()
    user = make_user("kolkata", "viewer")
    zones.save(user, "Asia/Kolkata")
    c = Client()
    c.force_login(user)
    page = c.get(f"/external/{s.id}/").content.decode()
    data = re.search(r'<script id="external-plot-data" type="application/json">(.*?)</script>', page, re.S)
    plot = json.loads(data.group(1))
    assert plot["zone"] == "Asia/Kolkata" and plot["t"][0] == "2026-11-20 05:30:00"
    assert "Interval start (Asia/Kolkata)" in page and "<td>2026-11-20 05:30:00</td>" in page
    assert c.get(f"/external/{s.id}.json").json()["points"][0][0] == "2026-11-20T00:00:00Z"


def test_a_missing_interval_is_a_gap_in_the_plot_data(client):
    rows = "".join(f"{(T0 + timedelta(seconds=900 * k)):%Y-%m-%dT%H:%M:%SZ},1\n" for k in (0, 1, 2, 5, 6))
    s = imports.import_csv(rows, imports.SeriesSpec("holey", "cells", 900)).series
    page = client.get(f"/external/{s.id}/").content.decode()
    plot = json.loads(re.search(r'id="external-plot-data" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert plot["t"][3] is None and plot["rate"][3] is None and len(plot["t"]) == 6
