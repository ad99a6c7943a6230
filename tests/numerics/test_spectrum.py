"""numerics/spectrum.py: lines of known period are found, smooth (also long-range dependent)
spectra give none, harmonics are reported once, and the test's p-value is exact."""
from __future__ import annotations

import json

import numpy as np
import pytest

from numerics.spectrum import line_p_value, line_threshold, spectrum
from numerics.synthetic import fgn, sinusoid

N, STEP = 2 ** 14, 60.0


@pytest.mark.parametrize("period,h,seed", [(100.7, 0.7, 1), (37.0, 0.9, 2), (1000.0, 0.5, 3)])
def test_sinusoid_in_fgn_is_found_within_one_bin(period, h, seed):
    sp = spectrum(fgn(N, h, seed) + sinusoid(N, period, 1.0), STEP)
    assert len(sp.peaks) == 1
    assert abs(sp.peaks[0].frequency_hz - 1 / (period * STEP)) <= sp.resolution_hz
    assert sp.peaks[0].p_value < 1e-3


@pytest.mark.parametrize("h", [0.5, 0.7, 0.9])
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_smooth_spectra_have_no_line(h, seed):
    assert spectrum(fgn(N, h, seed), STEP).peaks == []


def test_harmonics_are_reported_with_their_fundamental():
    square = np.sign(sinusoid(N, 256.0, 1.0) + 1e-9)
    (peak,) = spectrum(square + fgn(N, 0.7, 4), 1.0).peaks
    assert peak.period_s == pytest.approx(256.0)
    # A square wave has the odd harmonics: 3, 5, 7, ... times the fundamental.
    assert [round(f * 256) for f in peak.harmonics][:3] == [3, 5, 7]


def test_line_p_value_is_exact():
    # Exp(1) against the median of 16 others, by simulation.
    rng = np.random.default_rng(0)
    e = rng.exponential(size=(200_000, 17))
    ratio = e[:, 0] / np.median(e[:, 1:], axis=1)
    for t in (3.0, 8.0):
        assert (ratio > t).mean() == pytest.approx(float(line_p_value(t)), rel=0.05)
    assert 8192 * float(line_p_value(line_threshold(8192))) == pytest.approx(1e-3)


def test_frequencies_and_json():
    sp = spectrum(fgn(1024, 0.5, 1), 10.0)
    assert sp.frequencies[0] == pytest.approx(1 / (1024 * 10.0)) and sp.frequencies[-1] == pytest.approx(0.05)
    assert len(sp.periodogram) == 512 and len(sp.smoothed) == len(sp.smoothed_frequencies)
    assert "Welch" in sp.smoothing
    json.dumps(sp.as_json(), allow_nan=False)
