"""numerics/window.py against the seed's own arithmetic (seed 002, section 2.2.2)."""
from __future__ import annotations

import pytest

from numerics import window


def test_seed_window_for_34_mbps_and_60_ms():
    assert window.window_bytes(34e6, 0.060) == pytest.approx(255_000)


def test_seed_conventional_windows_limit_a_coast_to_coast_path_to_8_to_9_mbps():
    advice = window.advise(34e6, 0.060)
    limit_64k = next(lim for lim in advice.limits if lim.window == 65_535)
    assert 8e6 <= limit_64k.limit_bps <= 9e6
    limit_32k = next(lim for lim in advice.limits if lim.window == 32_768)
    assert limit_32k.limit_bps == pytest.approx(limit_64k.limit_bps / 2, rel=1e-3)
    assert advice.scale == 2            # 255,000 bytes needs 65,535 << 2


def test_seed_table_12_throughput_is_window_over_rtt():
    # 208 kB window at 36.3 ms RTT (seed 002, figure 3 caption) allows about 46.9 Mb/s.
    assert window.throughput_limit_bps(208 * 1024, 0.0363) == pytest.approx(46.9e6, rel=0.01)


@pytest.mark.parametrize("w,shift", [(1, 0), (65_535, 0), (65_536, 1), (255_000, 2), (1 << 30, 14)])
def test_window_scale(w, shift):
    assert window.window_scale(w) == shift


def test_payload_rate_of_a_ds3_cell_rate():
    assert window.payload_bps(96_000) == pytest.approx(36.864e6)


@pytest.mark.parametrize("rate,rtt", [(0, 0.06), (-1, 0.06), (34e6, 0), (34e6, -0.1), (34e6, 61)])
def test_nonsense_is_refused(rate, rtt):
    with pytest.raises(ValueError):
        window.window_bytes(rate, rtt)
