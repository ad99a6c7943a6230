"""webapp/status/windowadvice.py: the bottleneck of a traced path and the RTT it is advised for."""
from __future__ import annotations

import pytest

from webapp.status import pathmodel as pm
from webapp.status import windowadvice as wa

SW = pm.SwitchInfo(1, "asx")
P = {i: pm.PortInfo(i, 1, name) for i, name in ((1, "A1"), (2, "B1"), (3, "C1"))}


def hop(i: int, o: int, alloc: int | None = None) -> pm.Hop:
    xc = pm.XcInfo(1, 1, "vc", i, 0, 100, o, 0, 100)
    return pm.Hop(SW, xc, P[i], P[o], 0, 100, 0, 100, alloc_bw=alloc)


def test_bottleneck_is_the_slowest_port_or_allocation():
    trace = pm.Trace([hop(1, 2), hop(2, 3)])
    cells = {1: 353_207.0, 2: 353_207.0, 3: 96_000.0}
    neck = wa.bottleneck(trace, cells)
    assert neck.cells_per_s == 96_000 and "C1" in neck.what
    neck = wa.bottleneck(pm.Trace([hop(1, 2, alloc=50_000), hop(2, 3)]), cells)
    assert neck.cells_per_s == 50_000 and "allocated" in neck.what
    assert wa.bottleneck(trace, {}) is None


def test_ds3_path_over_a_coast_to_coast_rtt():
    # A DS3 bottleneck (96,000 cells/s = 36.9 Mb/s of payload) and 60 ms: the seed's
    # "hundreds of thousands of bytes", and a 64 KB window holds TCP to about 8.7 Mb/s.
    advice = wa.window_advice(pm.Trace([hop(1, 3)]), {1: 353_207.0, 3: 96_000.0}, 60.0, {})
    assert advice.rtt_source == "entered"
    assert advice.advice.window == pytest.approx(96_000 * 48 * 8 * 0.060 / 8)     # 276,480 bytes
    assert 8e6 < advice.advice.limits[-1].limit_bps < 9e6


def test_rtt_estimate_takes_the_larger_host_check_and_says_so():
    advice = wa.window_advice(pm.Trace([hop(1, 3)]), {3: 96_000.0}, None, {"a": 12.0, "b": 30.0, "c": None})
    assert advice.rtt_ms == 30.0 and advice.rtt_source.startswith("estimate: Cellar's host check of b")
    assert wa.window_advice(pm.Trace([hop(1, 3)]), {3: 96_000.0}, None, {"a": None}) is None


@pytest.mark.parametrize("text,value", [("", None), (" 60 ", 60.0), ("0.5", 0.5)])
def test_parse_rtt(text, value):
    assert wa.parse_rtt_ms(text) == value


@pytest.mark.parametrize("text", ["x", "0", "-1", "60001", "nan", "inf"])
def test_parse_rtt_refuses(text):
    with pytest.raises(ValueError):
        wa.parse_rtt_ms(text)
