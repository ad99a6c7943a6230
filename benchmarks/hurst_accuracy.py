"""`python -m benchmarks.hurst_accuracy [--seeds 25] [--n 16384]`

Measures what the Hurst estimators of numerics.hurst achieve on fractional Gaussian noise of
known H (numerics.synthetic, Davies-Harte: exact), and what the stationarity rule of
numerics.stationarity flags, and prints the Markdown tables of docs/analysis.md ("Hurst
estimators: measured accuracy"). Pure numerics: no database, about a minute on one core.

Per estimator and H: bias = mean estimate - H, s.d. of the estimates over the seeds, the largest
error, the share of seeds within +-0.05 of H, and the share whose 95 % interval holds H.
"""
from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from numerics import hurst, spectrum, stationarity
from numerics.synthetic import fgn

HS = (0.5, 0.7, 0.9)
ESTIMATORS = (("aggregated variance", hurst.aggregated_variance), ("R/S (Anis-Lloyd/Peters)", hurst.rescaled_range),
              ("Abry-Veitch (db3)", hurst.abry_veitch), ("local Whittle (m = n^0.65)", hurst.local_whittle))


def accuracy(n: int, seeds: int) -> str:
    rows = ["| estimator | H | bias | s.d. | largest error | within +-0.05 | 95 % interval holds H | ms per series |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    series: dict[float | str, list[np.ndarray]] = {h: [fgn(n, h, 1000 + s) for s in range(seeds)] for h in HS}
    # i.i.d. Gaussian from numpy (not the fGn generator): the "white noise gives 0.5" row.
    series["i.i.d."] = [np.random.default_rng(5000 + s).standard_normal(n) for s in range(seeds)]
    for name, fn in ESTIMATORS:
        for h, xs in series.items():
            truth = 0.5 if h == "i.i.d." else float(h)
            t = time.perf_counter()
            es = [fn(x) for x in xs]
            ms = 1000 * (time.perf_counter() - t) / len(xs)
            hs = np.array([e.h for e in es])
            err = hs - truth
            cover = np.mean([e.ci_low <= truth <= e.ci_high for e in es])
            rows.append(f"| {name} | {h} | {err.mean():+.3f} | {hs.std(ddof=1):.3f} | {np.abs(err).max():.3f} | "
                        f"{np.mean(np.abs(err) <= 0.05):.0%} | {cover:.0%} | {ms:.0f} |")
    return "\n".join(rows)


def flags(n: int, seeds: int) -> str:
    def rate(make) -> tuple[float, float]:
        trend = lines = 0
        for s in range(seeds):
            x = make(s)
            sp = spectrum.spectrum(x, 1.0)
            st = stationarity.check(x, 1.0, sp)
            trend += st.trend_r2 > stationarity.TREND_R2
            lines += bool(sp.peaks)
        return trend / seeds, lines / seeds

    rows = ["| series | flagged for a trend | a spectral line found |", "| --- | --- | --- |"]
    ramp = np.linspace(0, 1, n)
    for h in HS:
        rows.append("| fGn H = {} | {:.1%} | {:.1%} |".format(h, *rate(lambda s, h=h: fgn(n, h, 2000 + s))))
    for d in (1, 2, 3):
        for h in HS:
            rows.append("| fGn H = {} + linear trend of {} s.d. over the series | {:.1%} | {:.1%} |".format(
                h, d, *rate(lambda s, h=h, d=d: fgn(n, h, 3000 + s) + d * ramp)))
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--flag-seeds", type=int, default=200)
    ap.add_argument("--n", type=int, default=2 ** 14)
    a = ap.parse_args()
    print(f"n = {a.n}, {a.seeds} seeds per H (fGn seeds 1000..; i.i.d. from numpy), bootstrap "
          f"{hurst.BOOTSTRAP} replicates; Python {platform.python_version()}, numpy {np.__version__}\n")
    print(accuracy(a.n, a.seeds))
    print(f"\nStationarity rule (R^2 of the quadratic fit > {stationarity.TREND_R2:g}; line test), "
          f"{a.flag_seeds} seeds each, n = {a.n}:\n")
    print(flags(a.n, a.flag_seeds))


if __name__ == "__main__":
    main()
