"""collector/external/imports.py and read.py against the real database: every refusal names its
lines and stores nothing; stamps, epoch and ISO times, re-imports, replace; the reader's arrays."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.db import connection

from collector.external import imports, read
from collector.external.imports import ImportRefused, SeriesSpec, import_csv
from collector.external.models import ExternalPoint, ExternalSeries

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
T0 = datetime(2026, 11, 20, 0, 0, tzinfo=UTC)
SPEC = SeriesSpec("sprint-cells", "cells", 900, source="Sprint")


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def rows(*pairs, start: datetime = T0, step: int = 900) -> str:
    """CSV of (k, value) pairs at start + k intervals."""
    return "".join(f"{iso(start + timedelta(seconds=k * step))},{v}\n" for k, v in pairs)


def stored(name: str = SPEC.name) -> list[tuple[datetime, float]]:
    return list(ExternalPoint.objects.filter(series__name=name).order_by("t").values_list("t", "value"))


def nothing_stored() -> None:
    assert not ExternalSeries.objects.exists()
    assert not ExternalPoint.objects.exists()


GOOD = rows((0, 10), (1, 20))
BAD = [
    ("empty file", "", ["no data rows", "time,value"]),
    ("header only", "time,value\n\n# a comment\n", ["no data rows"]),
    ("unparsable time", GOOD + "yesterday noon,5\n", ["line 3: a time that cannot be read", "ISO 8601",
                                                       "epoch seconds"]),
    ("unparsable value", rows((0, "ten")), ["line 1: a value that cannot be read", "a count >= 0"]),
    ("not a number", rows((0, "nan"), (1, "inf")), ["lines 1, 2: a value that cannot be read"]),
    ("negative value", GOOD + rows((2, -4)), ["line 3: a negative value (a count is >= 0)"]),
    ("duplicate time", GOOD + rows((1, 5)), ["line 3: a time given twice"]),
    ("off the grid", GOOD + rows((0, 5), start=T0 + timedelta(seconds=60)),
     ["line 3: a time not on the 900-second grid of the first row (line 1, 2026-11-20T00:00:00Z)"]),
    ("before 1990", rows((0, 1), start=datetime(1989, 12, 31, 23, 45, tzinfo=UTC)),
     ["line 1: an interval that starts before 1990-01-01"]),
    ("in the future", rows((0, 1), start=NOW), ["line 1: an interval that ends in the future"]),
    ("three fields", "2026-11-20T00:00:00Z,1,2\n", ["line 1: not two fields time,value"]),
    ("one field", "2026-11-20T00:00:00Z\n", ["line 1: not two fields time,value"]),
    ("every value missing", rows((0, ""), (1, "")), ["every value of the file's 2 rows is empty"]),
    ("many bad lines", "".join(f"x{k},1\n" for k in range(8)), ["lines 1, 2, 3, 4, 5 and 3 more: a time that"]),
    ("several problems at once", rows((0, -1), (1, "x")), ["line 1: a negative value", "line 2: a value that"]),
]


@pytest.mark.parametrize("text,messages", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_file_is_refused_with_its_lines_and_nothing_is_stored(text, messages):
    with pytest.raises(ImportRefused) as exc:
        import_csv(text, SPEC, now=NOW)
    for m in messages:
        assert m in str(exc.value), str(exc.value)
    nothing_stored()


@pytest.mark.parametrize("spec,message", [
    (SeriesSpec("1st", "cells", 900), "series name '1st': use 1 to 100 characters: a letter first"),
    (SeriesSpec("has space", "cells", 900), "series name 'has space'"),
    (SeriesSpec("s", "bytes", 900), "unit 'bytes': use one of cells, octets, packets, bits"),
    (SeriesSpec("s", "cells", 0), "interval 0: a whole number of seconds from 1 to 604,800"),
    (SeriesSpec("s", "cells", 900, stamp="middle"), "stamp 'middle'"),
])
def test_a_bad_series_spec_is_refused(spec, message):
    with pytest.raises(ImportRefused, match=message):
        import_csv(GOOD, spec, now=NOW)
    nothing_stored()


def test_more_rows_than_the_limit_are_refused(monkeypatch):
    monkeypatch.setattr(imports, "MAX_ROWS", 3)
    with pytest.raises(ImportRefused, match="more than 3 data rows"):
        import_csv(rows(*((k, 1) for k in range(4))), SPEC, now=NOW)
    nothing_stored()
    assert import_csv(rows(*((k, 1) for k in range(3))), SPEC, now=NOW).stored == 3


def test_a_file_that_is_not_utf8_is_refused():
    with pytest.raises(ImportRefused, match=r"not UTF-8 text \(byte 21"):
        import_csv(b"2026-11-20T00:00:00Z,\xff\n", SPEC, now=NOW)
    nothing_stored()


def test_a_good_file_is_stored_with_its_missing_values_counted():
    text = "time,cells\n" + rows((0, 10), (1, ""), (2, "12.5"), (3, "1e3"))
    result = import_csv(text.encode(), SPEC, now=NOW)
    assert (result.created, result.stored, result.replaced, result.missing_values) == (True, 3, 0, 1)
    assert (result.first, result.last) == (T0, T0 + timedelta(seconds=2700))
    assert stored() == [(T0, 10.0), (T0 + timedelta(seconds=1800), 12.5), (T0 + timedelta(seconds=2700), 1000.0)]
    s = ExternalSeries.objects.get(name="sprint-cells")
    assert (s.unit, s.interval_s, s.stamp, s.source, s.n_points, s.first, s.last) == (
        "cells", 900, "start", "Sprint", 3, T0, T0 + timedelta(seconds=2700))
    assert result.sentence == ("3 points stored in new series sprint-cells (cells per 900 s), intervals starting "
                               "2026-11-20T00:00:00Z to 2026-11-20T00:45:00Z; 1 empty (missing) value not stored.")


def test_epoch_seconds_iso_with_an_offset_and_without_one_are_the_same_times():
    epoch = int(T0.timestamp())
    forms = {
        "epoch": f"{epoch},1\n{epoch + 900},2\n",
        "offset": "2026-11-20T01:00:00+01:00,1\n2026-11-19 19:15:00-05:00,2\n",
        "no offset (UTC)": "2026-11-20T00:00:00,1\n2026-11-20 00:15:00,2\n",
    }
    for k, (label, text) in enumerate(forms.items()):
        result = import_csv(text, SeriesSpec(f"form{k}", "cells", 900), now=NOW)
        assert stored(f"form{k}") == [(T0, 1.0), (T0 + timedelta(seconds=900), 2.0)], label
        assert ("without an offset read as UTC" in result.sentence) == (label == "no offset (UTC)")


def test_stamp_end_stores_interval_starts_one_interval_earlier():
    # A carrier's 15-minute count labelled 00:15 is the count of 00:00-00:15.
    text = rows((1, 5), (2, 7))
    result = import_csv(text, SeriesSpec("ends", "cells", 900, stamp="end"), now=NOW)
    assert stored("ends") == [(T0, 5.0), (T0 + timedelta(seconds=900), 7.0)]
    assert "the file's times were interval ends, stored as starts (900 s earlier)" in result.sentence
    t, v = read.points(result.series.id)
    assert t.tolist() == [T0.timestamp(), T0.timestamp() + 900] and v.tolist() == [5.0, 7.0]


def test_an_interval_ending_by_now_is_taken_one_ending_later_than_the_slack_is_not():
    # FUTURE_SLACK (5 minutes) allows for the clocks of the data's source and of this machine.
    assert import_csv(rows((0, 1), start=NOW - timedelta(seconds=900)), SPEC, now=NOW).stored == 1
    assert import_csv(rows((0, 1), start=NOW - timedelta(seconds=600)), SeriesSpec("y", "cells", 900),
                      now=NOW).stored == 1
    with pytest.raises(ImportRefused, match="ends in the future"):
        import_csv(rows((0, 1), start=NOW - timedelta(seconds=540)), SeriesSpec("x", "cells", 900), now=NOW)


def test_reimport_refuses_overlaps_unless_replace_and_keeps_the_other_points():
    import_csv(rows((0, 1), (1, 2), (2, 3), (3, 4)), SPEC, now=NOW)
    second = rows((2, 30), (3, 40), (4, 50))
    with pytest.raises(ImportRefused) as exc:
        import_csv(second, SPEC, now=NOW)
    assert ("2 of the file's intervals are already stored in series sprint-cells (the first at line 1: "
            "2026-11-20T00:30:00Z): nothing imported; import with replace") in str(exc.value)
    assert [v for _, v in stored()] == [1, 2, 3, 4]
    result = import_csv(second, SPEC, replace=True, now=NOW)
    assert (result.created, result.stored, result.replaced) == (False, 3, 2)
    assert "; 2 of them replaced points stored before" in result.sentence
    assert [v for _, v in stored()] == [1, 2, 30, 40, 50]
    s = ExternalSeries.objects.get()
    assert (s.n_points, s.first, s.last) == (5, T0, T0 + timedelta(seconds=3600))


def test_reimport_with_replace_is_idempotent():
    text = rows((0, 1), (1, ""), (2, 3))
    import_csv(text, SPEC, now=NOW)
    before = stored()
    for _ in range(2):
        result = import_csv(text, SPEC, replace=True, now=NOW)
        assert (result.stored, result.replaced, result.missing_values) == (2, 2, 1)
        assert stored() == before
    assert ExternalSeries.objects.get().n_points == 2


def test_reimport_with_other_attributes_or_off_the_series_grid_is_refused():
    import_csv(GOOD, SPEC, now=NOW)
    with pytest.raises(ImportRefused, match=r"exists with other attributes: unit 'octets' \(the series has 'cells'\), "
                                            r"interval 300 \(the series has 900\)"):
        import_csv(rows((5, 1)), SeriesSpec(SPEC.name, "octets", 300), now=NOW)
    with pytest.raises(ImportRefused, match="stamp 'end'"):
        import_csv(rows((5, 1)), SeriesSpec(SPEC.name, "cells", 900, stamp="end"), now=NOW)
    with pytest.raises(ImportRefused, match="not on the grid of series sprint-cells"):
        import_csv(rows((5, 1), start=T0 + timedelta(seconds=300)), SPEC, now=NOW)
    assert [v for _, v in stored()] == [10, 20]


def test_a_refused_reimport_changes_nothing_all_or_nothing():
    import_csv(GOOD, SPEC, now=NOW)
    with pytest.raises(ImportRefused, match="line 3: a negative value"):
        import_csv(rows((5, 1), (6, 2), (7, -1)), SeriesSpec(SPEC.name, "cells", 900, source="Other"), now=NOW)
    s = ExternalSeries.objects.get()
    assert (s.n_points, s.source) == (2, "Sprint") and [v for _, v in stored()] == [10, 20]


def test_the_points_table_is_a_hypertable_with_only_its_primary_key():
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM timescaledb_information.hypertables WHERE hypertable_name = 'external_point'")
        assert cur.fetchone()[0] == 1
        cur.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'external_point'")
        defs = [r[0] for r in cur.fetchall()]
    assert len(defs) == 1 and "(series_id, t)" in defs[0]


def test_deleting_a_series_deletes_its_points():
    import_csv(GOOD, SPEC, now=NOW)
    ExternalSeries.objects.get().delete()
    assert not ExternalPoint.objects.exists()


def test_find_by_id_or_name_and_a_clear_error_with_candidates():
    a = import_csv(GOOD, SPEC, now=NOW).series
    import_csv(GOOD, SeriesSpec("sprint-octets", "octets", 900), now=NOW)
    assert read.find(a.id) == a and read.find(str(a.id)) == a and read.find("sprint-cells") == a
    with pytest.raises(LookupError, match="no external series 'sprint'; candidates: sprint-cells, sprint-octets"):
        read.find("sprint")
    with pytest.raises(LookupError, match="candidates: sprint-cells, sprint-octets"):
        read.find("999999")


def test_find_says_when_nothing_is_imported():
    with pytest.raises(LookupError, match="none is imported yet"):
        read.find("anything")


def test_points_reads_a_half_open_window_as_arrays():
    series = import_csv(rows(*((k, k * 10) for k in range(6))), SPEC, now=NOW).series
    t, v = read.points(series.id, T0 + timedelta(seconds=900), T0 + timedelta(seconds=3600))
    assert t.dtype == np.float64 and v.dtype == np.float64
    assert (t - T0.timestamp()).tolist() == [900, 1800, 2700] and v.tolist() == [10, 20, 30]
    t, v = read.points(series.id)
    assert len(t) == len(v) == 6
    t, v = read.points(series.id, NOW)
    assert t.shape == v.shape == (0,)
