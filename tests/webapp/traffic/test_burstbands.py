"""webapp/traffic/burstbands.py: the request's rule, bursts over plotted points (raw and buckets), bands."""
from __future__ import annotations

import pytest
from django.http import QueryDict

from collector.reader.points import Gap, Stats
from collector.reader.selection import BadRequest
from webapp.traffic import burstbands

from .examples import CELLS, T0, buckets, raw_series


class Plotted:          # the fields of service.Plotted that bursts read
    def __init__(self, info, cols, factor=1.0):
        self.info, self.cols, self.factor = info, cols, factor
        self.gaps: list[Gap] = []
        self.stats: Stats | None = None


def test_default_rule_comes_from_settings(settings):
    settings.CELLAR_BURST_K, settings.CELLAR_BURST_CAPACITY_PCT, settings.CELLAR_BURST_MIN_SECONDS = 3.0, 20.0, 90
    rule = burstbands.rule_from(QueryDict(""))
    assert (rule.k, rule.capacity_pct, rule.min_duration_s) == (3.0, 20.0, 90.0)


def test_request_overrides_each_parameter_and_bursts_0_turns_it_off():
    rule = burstbands.rule_from(QueryDict("burst_k=2&burst_pct=0.5&burst_min=30"))
    assert (rule.k, rule.capacity_pct, rule.min_duration_s) == (2.0, 0.5, 30.0)
    assert burstbands.rule_from(QueryDict("bursts=0")) is None


@pytest.mark.parametrize("query,message", [
    ("burst_k=x", "burst_k='x' is not a number"), ("burst_pct=150", "burst_pct=150 is outside 0..100"),
    ("burst_min=-1", "burst_min=-1 is outside 0..604800"), ("bursts=maybe", "bursts=1 or bursts=0"),
    ("burst_k=nan", "outside")])
def test_bad_parameters_say_what_is_accepted(query, message):
    with pytest.raises(BadRequest, match=message):
        burstbands.rule_from(QueryDict(query))


def test_raw_samples_end_at_their_time():
    # 15 s samples of A1 (capacity 353,207 cells/s): 10 quiet, 6 at 200,000 cells/s, 4 quiet.
    rates = [1000] * 10 + [200_000] * 6 + [1000] * 4
    cols = raw_series([(15 * (i + 1), 15_000, r * 15, 0) for i, r in enumerate(rates)])
    report = burstbands.of(Plotted(CELLS, cols), burstbands.rule_from(QueryDict("")), raw=True)
    (b,) = report.bursts
    assert b.start == T0.timestamp() + 150 and b.end == T0.timestamp() + 240
    assert b.volume == 6 * 15 * 200_000


def test_buckets_start_at_their_time_and_json_is_in_the_plot_unit():
    spec = [(60 * i, r * 60, 60_000, r, r, 4, 0) for i, r in enumerate([1000] * 5 + [100_000] * 2 + [1000] * 5)]
    pl = Plotted(CELLS, buckets(60, spec), factor=0.5)
    report = burstbands.of(pl, burstbands.rule_from(QueryDict("")), raw=False)
    (b,) = report.bursts
    assert b.start == T0.timestamp() + 300 and b.end == T0.timestamp() + 420
    body = {"series": [{}], "resolution_label": "1-minute averages"}
    burstbands.attach(body, [pl], burstbands.rule_from(QueryDict("")), raw=False)
    j = body["series"][0]["bursts"]
    assert j["bursts"][0]["peak"] == 50_000 and j["bursts"][0]["volume"] == 2 * 60 * 100_000
    assert j["threshold"] == pytest.approx(0.5 * 4 * 1000)          # 4 x the median, above the noise floor
    assert j["bursts"][0]["samples"] == 8                            # two buckets of four samples, all above
    assert body["burst_rule"]["found_at"] == "1-minute averages"
    (band,) = burstbands.bands([report])
    assert band["x0"].startswith("2026-11-22 10:05:00") and band["x1"].startswith("2026-11-22 10:07:00")
