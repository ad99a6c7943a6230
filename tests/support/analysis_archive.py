"""Series with known statistics, written into the archive as the collector's writer stores samples
and rolled up, for the analysis tests.

`selfsim`: 15-second samples of one OC-3 port whose rate is MEAN + STD x fractional Gaussian noise
with a known Hurst parameter (numerics.synthetic.fgn, Davies-Harte), n = N samples. Three
samples near the start carry what real archives hold: a reboot (no delta), an over-capacity
sample (kept, not drawn) and a counter wrap (exact: kept). The longest stretch after them holds
more than 2^14 samples, the size at which the estimators' accuracy is stated (docs/analysis.md).
`periodic`: white noise plus a sinusoid of PERIOD_S seconds, as a daily cycle would be.
"""
from __future__ import annotations

from datetime import timedelta

import numpy as np

from collector.archive import rollup
from collector.core.facts import Flag
from numerics.synthetic import fgn
from tests.support import traffic_factory as f

STEP = 15
N = 2 ** 14 + 2_000
MEAN, STD = 100_000.0, 20_000.0          # cells/s: about 28 % of an OC-3, never above its capacity
REBOOT_AT, OVER_AT, WRAP_AT = 40, 1_200, 9_000
PERIOD_S = 3_600.0


def rates_selfsim(h: float, seed: int, n: int = N) -> np.ndarray:
    return MEAN + STD * fgn(n, h, seed=seed)


def rates_periodic(seed: int, n: int = N, amplitude: float = 1.5) -> np.ndarray:
    k = np.arange(n)
    noise = np.random.default_rng(seed).standard_normal(n)
    return MEAN + STD * (noise + amplitude * np.sin(2 * np.pi * k * STEP / PERIOD_S))


def build(name: str, rates: np.ndarray, *, port: str = "A1", marks: bool = True) -> dict:
    """One switch, one port series carrying `rates` (cells/s), every STEP s from T0; rolled up."""
    sw = f.switch(name)
    s = f.series(f.port(sw, port), "in")
    lay = f.layout(sw, [s])
    rows: list[f.Row] = [(0.0, None, [None], [int(Flag.FIRST)])]
    deltas = np.rint(rates * STEP).astype(np.int64)
    for k, d in enumerate(deltas.tolist(), start=1):
        flag, delta = 0, d
        if marks and k == REBOOT_AT:
            flag, delta = int(Flag.REBOOT), None
        elif marks and k == OVER_AT:
            flag, delta = int(Flag.OVER_CAPACITY), 400_000 * STEP
        elif marks and k == WRAP_AT:
            flag = int(Flag.WRAP)
        rows.append((float(k * STEP), STEP * 1000, [delta], [flag]))
    f.insert(sw, lay, rows, t0=f.T0)
    rollup.run(budget_s=300)
    return {"switch": sw, "series": s, "rows": rows, "t0": f.T0,
            "end": f.T0 + timedelta(seconds=(len(rates) + 1) * STEP)}


def used_rates(rows: list[f.Row]) -> tuple[np.ndarray, np.ndarray]:
    """(times, rates) of the samples the analysis may use, by the rule of collector/analysis/source.py,
    computed here independently from the rows as written."""
    t, v = [], []
    for offset, interval_ms, deltas, flags in rows:
        if deltas[0] is None or interval_ms is None or flags[0] & ~int(Flag.WRAP):
            continue
        t.append(f.T0.timestamp() + offset)
        v.append(deltas[0] / (interval_ms / 1000))
    return np.array(t), np.array(v)
