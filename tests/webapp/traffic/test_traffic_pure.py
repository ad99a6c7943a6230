"""Pure parts of the traffic app: units, parameters, tier choice, gaps, statistics, figures.

No database: SeriesInfo and Columns are plain values, so these run in milliseconds.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from tests.webapp.traffic import traffic_factory
from webapp.traffic import params, plots, points, tiers, units
from webapp.traffic.catalog import SeriesInfo
from webapp.traffic.params import BadRequest
from webapp.traffic.points import bucket_columns, raw_columns
from webapp.traffic.units import UnitError

UTC = timezone.utc
NOW = datetime(2026, 11, 22, 12, 0, 7, tzinfo=UTC)
CELLS = SeriesInfo(1, 1, "asx", "A1", "merlin", "OC3", True, None, None, "in", "cells", "cells", 32, 353_207, 15,
                   "portReceivedCells", "1", True, False)
VC = replace(CELLS, id=2, vpi=0, vci=15, port_level=False, object_name="chanCells", index="1.0.15")
ATM_OCTETS = replace(CELLS, id=3, metric="octets", unit="octets", capacity_per_s=19_440_000, object_name="ifHCInOctets")
AAL5 = replace(ATM_OCTETS, id=4, vpi=0, vci=100, port_level=False)
IP = replace(CELLS, id=5, is_atm=False, port="eth0", metric="octets", unit="octets", capacity_per_s=125_000_000)
PKTS = replace(IP, id=6, metric="ucast_pkts", unit="packets", capacity_per_s=None)
NOCAP = replace(CELLS, id=7, capacity_per_s=None)


# --- labels and units ----------------------------------------------------------------------

def test_labels_read_like_the_1995_picker():
    assert CELLS.label == "asx A1 Receive"
    assert replace(CELLS, direction="out").label == "asx A1 Transmit"
    assert VC.label == "asx A1 Receive VP:0 VC:15"
    assert replace(CELLS, vpi=0, port_level=False).label == "asx A1 Receive VP:0"
    assert IP.label == "asx eth0 Receive"
    assert PKTS.label == "asx eth0 Receive unicast packets"
    assert AAL5.label == "asx A1 Receive VP:0 VC:100 octets"


@pytest.mark.parametrize("series, unit, factor", [
    (CELLS, "cells", 1.0),
    (CELLS, "mbps_cells", 53 * 8 / 1e6),          # the cell stream, 53-byte cells
    (CELLS, "mbps_payload", 48 * 8 / 1e6),        # the payload, 48 bytes of each cell
    (CELLS, "bps", 424.0),
    (CELLS, "pct", 100 / 353_207),
    (ATM_OCTETS, "cells", 1 / 53),                # an ATM ifTable row counts cells x 53
    (ATM_OCTETS, "mbps_cells", 8 / 1e6),
    (ATM_OCTETS, "mbps_payload", 8 / 1e6 * 48 / 53),
    (IP, "bps", 8.0),
    (IP, "pct", 100 / 125_000_000),
    (PKTS, "pps", 1.0),
])
def test_unit_factors(series, unit, factor):
    assert units.factor(series, unit) == pytest.approx(factor, rel=1e-15)


def test_oc3_at_line_rate_is_135_63_mbps_of_payload():
    assert 353_207 * units.factor(CELLS, "mbps_payload") == pytest.approx(135.63, abs=0.01)
    assert 353_207 * units.factor(CELLS, "mbps_cells") == pytest.approx(149.76, abs=0.01)


@pytest.mark.parametrize("series, unit, message", [
    (IP, "cells", "cells/s does not apply to asx eth0 Receive"),
    (AAL5, "cells", "does not apply"),           # AAL5 octets are payload, not cells
    (PKTS, "bps", "it counts packets"),
    (NOCAP, "pct", "capacity of asx A1 Receive is not known"),
    (CELLS, "furlongs", "unknown unit 'furlongs'"),
])
def test_units_that_do_not_apply_say_why(series, unit, message):
    with pytest.raises(UnitError, match=message):
        units.factor(series, unit)


def test_auto_unit():
    assert units.auto_unit([CELLS, VC]) == "cells"
    assert units.auto_unit([IP]) == "bps"
    assert units.auto_unit([CELLS, IP]) == "bps"
    assert units.auto_unit([ATM_OCTETS]) == "cells"
    assert units.auto_unit([PKTS]) == "pps"
    assert units.auto_unit([CELLS, replace(PKTS, capacity_per_s=10)]) == "pct"
    with pytest.raises(UnitError, match="count different things"):
        units.auto_unit([CELLS, PKTS])


# --- parameters ----------------------------------------------------------------------------

def test_parse_defaults_and_round_trip():
    req = params.parse({"s": "12,13"})
    assert req.series_ids == (12, 13) and req.range == "24h" and req.unit == "auto" and not req.stack
    full = params.parse({"s": "3", "start": "2026-11-20T10:00:00Z", "end": "2026-11-20 12:30", "unit": "pct",
                         "res": "1m", "stack": "1"})
    assert full.range == "custom" and full.start == datetime(2026, 11, 20, 10, tzinfo=UTC)
    assert full.end == datetime(2026, 11, 20, 12, 30, tzinfo=UTC)
    again = params.parse(dict(pair.split("=", 1) for pair in full.query().split("&")))
    assert again == full


@pytest.mark.parametrize("query, message", [
    ({"s": "12,x"}, "series id 'x' is not a number"),
    ({"s": "1", "unit": "knots"}, "unknown unit 'knots'"),
    ({"s": "1", "res": "5m"}, "unknown resolution '5m'"),
    ({"s": "1", "range": "2w"}, "unknown range '2w'"),
    ({"s": "1", "start": "yesterday"}, "start='yesterday' is not an ISO 8601 time"),
    ({"s": "1", "range": "custom"}, "a custom range needs start"),
    ({"s": "1", "range": "1h", "start": "2026-11-20T10:00Z"}, "contradict"),
    ({"s": "1", "stack": "maybe"}, "stack='maybe'"),
    ({"s": ",".join(map(str, range(1, 60)))}, "at most 50"),
])
def test_bad_parameters_say_what_is_wrong(query, message):
    with pytest.raises(BadRequest, match=message):
        params.parse(query)


@pytest.mark.parametrize("query, message", [
    ({"s": "1", "start": "2026-11-22T10:00Z", "end": "2026-11-22T09:00Z"}, "is not before end"),
    ({"s": "1", "start": "2026-11-22T10:00Z", "end": "2026-11-22T10:00Z"}, "is not before end"),
    ({"s": "1", "start": "1970-01-01T00:00Z", "end": "2026-11-22T10:00Z"}, "before 1990"),
    ({"s": "1", "start": "2026-11-22T10:00Z", "end": "2126-11-22T10:00Z"}, "in the future"),
])
def test_absurd_ranges_are_refused(query, message):
    with pytest.raises(BadRequest, match=message):
        params.resolve_range(params.parse(query), NOW, None)


def test_ranges_end_now():
    start, end = params.resolve_range(params.parse({"s": "1", "range": "3h"}), NOW, None)
    assert (start, end) == (NOW - timedelta(hours=3), NOW)
    first = NOW - timedelta(days=100)
    assert params.resolve_range(params.parse({"s": "1", "range": "all"}), NOW, first) == (first, NOW)


# --- tiers ---------------------------------------------------------------------------------

KEEP = {"raw": None, "1m": None, "15m": None, "1h": None, "1d": None}


@pytest.mark.parametrize("span, expected", [
    (timedelta(hours=1), "raw"), (timedelta(hours=3), "raw"), (timedelta(hours=24), "1m"),
    (timedelta(days=7), "15m"), (timedelta(days=30), "1h"), (timedelta(days=365), "1d"),
    (timedelta(days=3650), "1d"),
])
def test_each_range_reads_the_finest_tier_under_2000_points(span, expected):
    res = tiers.choose(NOW - span, NOW, 15, KEEP, 2000)
    assert res == expected
    assert tiers.points(res, NOW - span, NOW, 15) <= 2000 or res == "1d"


def test_retention_moves_old_ranges_to_coarser_tiers():
    cut = {**KEEP, "raw": NOW - timedelta(days=30), "1m": NOW - timedelta(days=30)}
    old = NOW - timedelta(days=60)
    assert tiers.choose(old, old + timedelta(hours=1), 15, cut, 2000) == "15m"
    assert tiers.choose(NOW - timedelta(hours=1), NOW, 15, cut, 2000) == "raw"


def test_segments_read_the_tier_then_finer_tiers_then_raw():
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    done = {"1m": datetime(2026, 11, 22, 11, 58, tzinfo=UTC), "15m": datetime(2026, 11, 22, 11, 45, tzinfo=UTC),
            "1h": datetime(2026, 11, 22, 11, tzinfo=UTC), "1d": datetime(2026, 11, 22, tzinfo=UTC)}
    end = datetime(2026, 11, 23, tzinfo=UTC)
    main, tail = tiers.segments("1d", t0, end, done)
    assert main == ("1d", t0, done["1d"])
    assert tail == [("1h", done["1d"], done["1h"]), ("15m", done["1h"], done["15m"]),
                    ("1m", done["15m"], done["1m"]), ("raw", done["1m"], end)]
    # before any rollup ran: everything from raw samples
    assert tiers.segments("1h", t0, end, {k: None for k in done}) == (None, [("raw", t0, end)])
    assert tiers.segments("raw", t0, end, done) == (("raw", t0, end), [])


def test_align_takes_whole_buckets():
    s, e = tiers.align("15m", datetime(2026, 1, 1, 10, 7, tzinfo=UTC), datetime(2026, 1, 1, 11, 1, tzinfo=UTC))
    assert (s, e) == (datetime(2026, 1, 1, 10, 0, tzinfo=UTC), datetime(2026, 1, 1, 11, 15, tzinfo=UTC))


# --- points, gaps, statistics --------------------------------------------------------------

T0 = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


def raw_series(spec):
    """spec: list of (seconds after T0, interval_ms, delta, flags)."""
    return raw_columns([(T0.timestamp() + s, iv, d, f) for s, iv, d, f in spec])


def buckets(width, spec):
    """spec: list of (seconds after T0, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged)."""
    nan = float("nan")
    cols = list(zip(*spec)) if spec else [()] * 7
    return bucket_columns(width, [T0.timestamp() + t for t in cols[0]], cols[1], [ms / 1000 for ms in cols[2]],
                          [nan if v is None else v for v in cols[3]], [nan if v is None else v for v in cols[4]],
                          cols[5], cols[6])


def values(a):
    return [None if v != v else v for v in list(a)]


def test_raw_points_draw_only_what_is_traffic():
    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, 10 ** 9, 8), (45, 15000, None, 2), (60, 15000, 3000, 1)])
    assert values(pts.avg()) == [100.0, None, None, 200.0]
    assert pts.stored[1] == 10 ** 9 and pts.flagged[1] == 1
    assert pts.flagged[3] == 0          # WRAP alone is routine
    st = points.stats(pts, T0, T0 + timedelta(minutes=1), 150.0, "raw")
    assert st.total == 4500 and st.seconds == 30 and st.average == 150.0 and st.peak == 200.0


def test_gaps_at_raw_resolution_say_why():
    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, None, 2), (45, 15000, 1500, 0),
                      (345, 300000, 30000, 64), (360, 15000, 1500, 0)])
    gaps = points.find_gaps(pts, None, 15, T0, T0 + timedelta(minutes=6), T0 + timedelta(minutes=6))
    kinds = [(g.kind, g.lo - T0, g.hi - T0, g.detail) for g in gaps]
    assert ("withheld", timedelta(seconds=15), timedelta(seconds=30), "REBOOT") in kinds
    assert ("missed", timedelta(seconds=45), timedelta(seconds=345), "average over 300 s") in kinds
    assert len(gaps) == 2


def test_before_the_first_sample_is_no_data_not_a_withheld_sample():
    pts = raw_series([(600, None, None, 32), (615, 15000, 1500, 0), (630, 15000, 1500, 0)])
    gaps = points.find_gaps(pts, None, 15, T0, T0 + timedelta(seconds=640), T0 + timedelta(seconds=640))
    assert [(g.kind, g.lo - T0, g.hi - T0, g.detail) for g in gaps] == [
        ("nodata", timedelta(0), timedelta(seconds=600), "before the first sample in this range")]


def test_a_switch_that_stopped_answering_shows_a_trailing_gap():
    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, 1500, 0)])
    gaps = points.find_gaps(pts, None, 15, T0, T0 + timedelta(minutes=10), T0 + timedelta(minutes=10))
    assert [(g.kind, g.lo - T0) for g in gaps] == [("nodata", timedelta(seconds=30))]
    g = gaps[0]
    assert points.describe(g, {"timeout": (36, "No SNMP response")}) == "36 polls timeout (No SNMP response)"


def test_gaps_between_buckets():
    pts = buckets(60, [(k * 60, 6000, 60000, 120.0, 80.0, 4, 0) for k in (0, 1, 4)] + [(300, 0, 0, None, None, 4, 4)])
    gaps = points.find_gaps(pts, 60, 15, T0, T0 + timedelta(minutes=6), T0 + timedelta(hours=1))
    assert [(g.kind, g.lo - T0, g.hi - T0) for g in gaps] == [
        ("nodata", timedelta(minutes=2), timedelta(minutes=4)), ("withheld", timedelta(minutes=5), timedelta(minutes=6))]


@pytest.mark.parametrize("present, drawn, now_after, expected", [
    # every bucket there and drawn: no gap (the fast path)
    ((0, 1, 2, 3, 4, 5), (0, 1, 2, 3, 4, 5), 60, []),
    # the first two missing: no data before the first sample
    ((2, 3, 4, 5), (2, 3, 4, 5), 60, [("nodata", 0, 2, "before the first sample in this range")]),
    # nothing at all: one gap, no claim about a first sample
    ((), (), 60, [("nodata", 0, 6, "")]),
    # the last two missing, the range is over: a trailing gap to the end of the range
    ((0, 1, 2, 3), (0, 1, 2, 3), 60, [("nodata", 4, 6, "")]),
    # the last bucket missing but "now" is within it: still being polled, not a gap
    ((0, 1, 2, 3, 4), (0, 1, 2, 3, 4), -300 + 37.5, []),
    # one bucket present but nothing drawn in it
    ((0, 1, 2, 3, 4, 5), (0, 1, 3, 4, 5), 60, [("withheld", 2, 3, "4 samples, none drawn (1 flagged)")]),
])
def test_bucket_gaps_table(present, drawn, now_after, expected):
    spec = [(k * 60, 6000 if k in drawn else 0, 60000 if k in drawn else 0, 100.0 if k in drawn else None,
             100.0 if k in drawn else None, 4, 0 if k in drawn else 1) for k in present]
    end = T0 + timedelta(minutes=6)
    gaps = points.find_gaps(buckets(60, spec), 60, 15, T0, end, end + timedelta(seconds=now_after))
    assert [(g.kind, (g.lo - T0) / timedelta(minutes=1), (g.hi - T0) / timedelta(minutes=1), g.detail)
            for g in gaps] == expected


# --- figures -------------------------------------------------------------------------------

class Pl:
    """Stands in for service.Plotted (the figure builder only reads these attributes)."""

    def __init__(self, info, cols, gaps=(), factor=1.0):
        self.info, self.cols, self.gaps, self.factor = info, cols, list(gaps), factor
        self.stats = points.stats(cols, T0, T0 + timedelta(hours=1), None, "raw")


def traces(fig, role):
    return [t for t in fig["data"] if (t.get("meta") or {}).get("role") == role]


def decode(spec):
    return traffic_factory.decode(spec)


def times(spec):
    return [plots.px(datetime.fromtimestamp(v / 1000, UTC)) for v in decode(spec)]


def test_raw_figure_steps_breaks_and_flags():
    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, 3000, 1), (45, 15000, None, 2), (60, 15000, 1500, 0),
                      (75, 15000, 10 ** 9, 8)])
    gaps = [points.Gap(T0 + timedelta(seconds=30), T0 + timedelta(seconds=45), "withheld", "REBOOT", "")]
    fig = plots.build([Pl(CELLS, pts, gaps)], "cells", "raw", 15, T0, T0 + timedelta(minutes=2), False)
    line = traces(fig, "average")[0]
    assert line["line"]["shape"] == "vh"
    # first run starts at the beginning of its first interval; a None breaks the line at the reboot
    assert times(line["x"])[:3] == ["2026-11-22 10:00:00", "2026-11-22 10:00:15", "2026-11-22 10:00:30"]
    assert decode(line["y"])[:4] == [100.0, 100.0, 200.0, None]
    assert decode(line["customdata"])[:3] == [15.0, 15.0, 15.0]          # hover: each sample's interval
    flags = traces(fig, "flags")[0]
    assert len(flags["x"]) == 3 and "REBOOT" in flags["text"][1] and "OVER_CAPACITY" in flags["text"][2]
    assert flags["y"][2] == pytest.approx(353_207 * 1.02)      # over capacity: marked at the top, not drawn
    assert flags["marker"]["symbol"] == ["diamond-open", "triangle-down", "x"]
    assert len(fig["layout"]["shapes"]) == 1 and traces(fig, "gaps")[0]["text"][0].startswith("no traffic drawn")
    assert not traces(fig, "peak")


def test_bucket_figure_has_average_and_peak_envelope_and_converts_units():
    pts = buckets(3600, [(k * 3600, 360_000_000, 3_600_000, 150_000.0, 50_000.0, 240, 0) for k in range(3)])
    f = units.factor(CELLS, "mbps_cells")
    fig = plots.build([Pl(CELLS, pts, factor=f)], "mbps_cells", "1h", 3600, T0, T0 + timedelta(hours=3), False)
    avg, peak = traces(fig, "average")[0], traces(fig, "peak")[0]
    assert avg["line"]["shape"] == "hv" and len(decode(avg["x"])) == 4      # three buckets and the end of the last
    assert times(avg["x"])[-1] == "2026-11-22 13:00:00"
    assert decode(avg["y"])[0] == pytest.approx(100_000 * 424 / 1e6, rel=1e-7)      # float32 on the wire
    assert decode(peak["y"])[0] == pytest.approx(150_000 * 424 / 1e6, rel=1e-7)
    assert decode(avg["customdata"]) == [100.0] * 4                     # hover: % of the bucket drawn
    assert fig["layout"]["yaxis"]["title"]["text"] == "Mb/s of 53-byte cells"
    assert fig["layout"]["xaxis"]["range"] == ["2026-11-22 10:00:00", "2026-11-22 13:00:00"]


def test_stacked_vcs_share_a_stackgroup_and_have_no_envelope():
    pts = buckets(60, [(0, 600, 60000, 12.0, 8.0, 4, 0)])
    fig = plots.build([Pl(VC, pts), Pl(replace(VC, id=9, vci=16), pts)], "cells", "1m", 60, T0,
                      T0 + timedelta(minutes=1), True)
    assert [t["stackgroup"] for t in traces(fig, "average")] == ["stack", "stack"]
    assert not traces(fig, "peak")


def test_capacity_line_only_near_line_rate():
    busy = buckets(60, [(0, 353_207 * 50, 60000, 353_207.0, 1.0, 4, 0)])
    quiet = buckets(60, [(0, 600, 60000, 10.0, 10.0, 4, 0)])
    end = T0 + timedelta(minutes=1)
    assert plots.build([Pl(CELLS, busy)], "cells", "1m", 60, T0, end, False)["layout"]["shapes"][0]["y0"] == 353_207
    assert plots.build([Pl(CELLS, quiet)], "cells", "1m", 60, T0, end, False)["layout"]["shapes"] == []


def test_figure_is_json_serialisable_and_deterministic():
    import json

    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, 1500, 64)])
    a = plots.build([Pl(CELLS, pts)], "cells", "raw", 15, T0, T0 + timedelta(minutes=1), False)
    b = plots.build([Pl(CELLS, pts)], "cells", "raw", 15, T0, T0 + timedelta(minutes=1), False)
    assert json.dumps(a) == json.dumps(b)


def test_bucket_average_is_exact():
    pts = buckets(900, [(0, 1_000_001, 899_999, 2000.0, 1000.0, 60, 0), (900, 0, 0, None, None, 60, 60)])
    assert values(pts.avg()) == [1_000_001 / 899.999, None]


def test_a_hole_in_buckets_breaks_the_line():
    pts = buckets(60, [(0, 600, 60000, 12.0, 8.0, 4, 0), (60, 600, 60000, 12.0, 8.0, 4, 0),
                       (180, 1200, 60000, 30.0, 10.0, 4, 0)])
    fig = plots.build([Pl(CELLS, pts)], "cells", "1m", 60, T0, T0 + timedelta(minutes=4), False)
    line = traces(fig, "average")[0]
    assert times(line["x"]) == ["2026-11-22 10:00:00", "2026-11-22 10:01:00", "2026-11-22 10:02:00",
                                "2026-11-22 10:03:00", "2026-11-22 10:03:00", "2026-11-22 10:04:00"]
    assert decode(line["y"]) == [10.0, 10.0, 10.0, None, 20.0, 20.0]


@pytest.mark.parametrize("minutes, drawn, expected", [
    ((0, 1, 2, 3), (0, 1, 2, 3), [(0, 4)]),                 # one run
    ((0, 1, 3, 4), (0, 1, 3, 4), [(0, 2), (2, 4)]),         # a missing bucket splits it
    ((0, 1, 2, 3), (0, 1, 3), [(0, 2), (3, 4)]),            # so does a bucket with nothing drawn
    ((0, 1, 2, 3), (), []),                                 # nothing drawn at all
    ((0,), (0,), [(0, 1)]),
    ((), (), []),
])
def test_bucket_runs_table(minutes, drawn, expected):
    pts = buckets(60, [(m * 60, 600 if m in drawn else 0, 60000 if m in drawn else 0, 10.0, 10.0, 4, 0)
                       for m in minutes])
    assert plots._runs(pts, 60) == expected


def test_raw_runs_join_samples_whose_intervals_touch():
    # 15 s polls; the fourth sample comes after a 45 s hole (its own interval is 15 s); the fifth is withheld
    pts = raw_series([(15, 15000, 1500, 0), (30, 15000, 1500, 0), (45, 15000, 1500, 0), (105, 15000, 1500, 0),
                      (120, 15000, None, 2), (135, 15000, 1500, 0)])
    assert plots._runs(pts, None) == [(0, 3), (3, 4), (5, 6)]
