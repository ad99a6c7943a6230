"""The figure's axis in the viewer's zone: offsets against zoneinfo point by point across DST
changes, the figure rewritten, the CSV's times with the zone's offset (through the archive)."""
from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from tests.support import traffic_factory as f
from webapp.traffic import timeaxis


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/Chicago", "Asia/Kolkata", "Australia/Lord_Howe", "UTC"])
def test_shift_matches_zoneinfo_at_every_point_across_a_year(zone):
    z = ZoneInfo(zone)
    t0 = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    x = (t0 + np.arange(0, 366 * 86400, 1800.0)) * 1000
    got = timeaxis.shift_ms(x, z)
    want = np.array([(datetime.fromtimestamp(v / 1000, UTC).astimezone(z).utcoffset().total_seconds()) * 1000 + v
                     for v in x])
    assert np.array_equal(got, want)


def test_the_transition_is_found_to_the_second():
    z = ZoneInfo("Europe/Berlin")
    change = datetime(2026, 3, 29, 1, 0, tzinfo=UTC).timestamp()      # 02:00 CET -> 03:00 CEST
    x = np.array([change - 1, change]) * 1000
    assert list(timeaxis.shift_ms(x, z) - x) == [3600_000, 7200_000]


def test_localize_moves_every_time_of_the_figure():
    fig = {"data": [{"x": {"dtype": "f8", "bdata": __import__("webapp.traffic.plots", fromlist=["typed"]).typed(
        np.array([datetime(2026, 7, 1, 12, tzinfo=UTC).timestamp() * 1000]))["bdata"]},
        "hovertemplate": "%{x|%Y-%m-%d %H:%M} UTC<br>%{y}"},
        {"x": ["2026-07-01 12:00:00"], "text": ["no data: 2026-07-01 12:00 – 2026-07-01 13:00 UTC<br>x"]}],
        "layout": {"xaxis": {"range": ["2026-07-01 00:00:00", "2026-07-02 00:00:00"], "title": {"text": "time (UTC)"}},
                   "shapes": [{"xref": "x", "x0": "2026-07-01 12:00:00", "x1": "2026-07-01 13:00:00"}]}}
    out = timeaxis.localize(fig, ZoneInfo("Europe/Berlin"))
    assert f.decode(out["data"][0]["x"]) == [datetime(2026, 7, 1, 14, tzinfo=UTC).timestamp() * 1000]
    assert out["data"][0]["hovertemplate"].startswith("%{x|%Y-%m-%d %H:%M} Europe/Berlin")
    assert out["data"][1]["x"] == ["2026-07-01 14:00:00"]
    assert out["data"][1]["text"] == ["no data: 2026-07-01 14:00 – 2026-07-01 15:00 CEST<br>x"]
    assert out["layout"]["xaxis"]["range"] == ["2026-07-01 02:00:00", "2026-07-02 02:00:00"]
    assert out["layout"]["xaxis"]["title"]["text"] == "time (Europe/Berlin)"
    assert out["layout"]["shapes"][0]["x0"] == "2026-07-01 14:00:00"


@pytest.mark.django_db(transaction=True)
def test_the_csv_keeps_utc_and_gives_the_zones_offset_with_tz(client, net):
    # A fixed window: with range=1h the two requests could straddle a minute and differ by a row.
    end = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=5)
    start = end - timedelta(hours=1)
    q = f"s={net.rx.id}&start={start:%Y-%m-%dT%H:%M:%SZ}&end={end:%Y-%m-%dT%H:%M:%SZ}&res=1m"
    plain = list(csv.reader(io.StringIO(b"".join(client.get(f"/traffic/export.csv?{q}").streaming_content).decode())))
    zoned = list(csv.reader(io.StringIO(b"".join(
        client.get(f"/traffic/export.csv?{q}&tz=America/Chicago").streaming_content).decode())))
    assert plain[1][0].endswith("Z") and len(plain) == len(zoned)
    for a, b in zip(plain[1:], zoned[1:]):
        ta = datetime.fromisoformat(a[0].replace("Z", "+00:00"))
        tb = datetime.fromisoformat(b[0])
        assert ta == tb and tb.utcoffset() in (timedelta(hours=-6), timedelta(hours=-5))   # same instant
        assert a[1:] == b[1:]
    bad = client.get(f"/traffic/export.csv?{q}&tz=Mars/Olympus")
    assert bad.status_code == 400 and "unknown time zone" in bad.content.decode()


def test_markers_and_axis_ends_move_exactly_like_the_line_they_mark():
    # One conversion for arrays and single times: a shape edge, an annotation and an axis end at
    # the same instant as a line's point get the same text (also in the hour Berlin's clocks
    # repeat, and to the millisecond).
    times, fine = ["2026-10-25 00:30:00", "2026-10-25 01:30:00"], "2026-07-01 12:00:00.250"
    fig = {"data": [{"x": list(times)}, {"x": [fine]}],
           "layout": {"xaxis": {"range": list(times)},
                      "shapes": [{"xref": "x", "x0": times[1], "x1": fine}],
                      "annotations": [{"xref": "x", "x": fine}, {"xref": "paper", "x": fine}]}}
    out = timeaxis.localize(fig, ZoneInfo("Europe/Berlin"))
    line, point = out["data"][0]["x"], out["data"][1]["x"][0]
    assert line == ["2026-10-25 02:30:00", "2026-10-25 02:30:00"] and point == "2026-07-01 14:00:00.250"
    assert out["layout"]["xaxis"]["range"] == line
    assert [out["layout"]["shapes"][0][k] for k in ("x0", "x1")] == [line[1], point]
    assert out["layout"]["annotations"][0]["x"] == point
    assert out["layout"]["annotations"][1]["x"] == fine                # paper coordinates are not times
