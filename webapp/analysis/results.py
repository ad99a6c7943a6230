"""An analysis result as rows: one per statistic and estimate, for the page's table and the CSV.
Pure: a function of the stored result (a job's JSON).

CSV columns: section, statistic, value, ci_low, ci_high, fit_from, fit_to, fit_unit, samples, note.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Iterator

COLUMNS = ("section", "statistic", "value", "ci_low", "ci_high", "fit_from", "fit_to", "fit_unit", "samples",
           "note")
SUMMARY_NOTES = {"variance": "ddof = 1", "cv": "standard deviation / mean",
                 "peak_to_mean": "highest sample / mean"}


def _row(section: str, name: str, value: object, **kw: object) -> dict:
    row = {"section": section, "statistic": name, "value": value, "ci_low": None, "ci_high": None,
           "fit_from": None, "fit_to": None, "fit_unit": "", "samples": None, "note": ""}
    row.update(kw)
    return row


def _summary(r: dict) -> Iterator[dict]:
    s = r.get("summary") or {}
    n = s.get("n")
    for key, value in s.items():
        if key == "percentiles":
            for p, v in value.items():
                yield _row("summary", f"percentile {p}", v, samples=n, note=r.get("unit", ""))
        elif key != "n":
            yield _row("summary", key, value, samples=n, note=SUMMARY_NOTES.get(key, r.get("unit", "")
                       if key in ("mean", "std", "minimum", "peak") else ""))


def _hurst(r: dict) -> Iterator[dict]:
    for e in r.get("hurst") or []:
        lo, hi = (e.get("fit_range") or (None, None))[:2]
        yield _row("hurst", e["method"], e.get("h"), ci_low=e.get("ci_low"), ci_high=e.get("ci_high"),
                   fit_from=lo, fit_to=hi, fit_unit=e.get("fit_unit", ""), samples=e.get("n"),
                   note="; ".join(e.get("notes") or []))


def _stationarity(r: dict) -> Iterator[dict]:
    st = r.get("stationarity") or {}
    yield _row("stationarity", "stationary", 1 if st.get("stationary") else 0,
               note=" ".join(st.get("reasons") or []))
    for key in ("trend_r2", "trend_slope_per_s"):
        if key in st:
            yield _row("stationarity", key, st[key])
    for peak in (r.get("spectrum") or {}).get("peaks") or []:
        yield _row("spectrum", "periodic component: period [s]", peak.get("period_s"),
                   note=f"ratio to the local spectrum {_fmt(peak.get('ratio'))}, p = {_fmt(peak.get('p_value'))}")


def _acf(r: dict) -> Iterator[dict]:
    a = r.get("acf") or {}
    n = (r.get("summary") or {}).get("n")
    bands = a.get("band_bartlett") or []
    for i, (lag, v) in enumerate(zip(a.get("lags") or [], a.get("values") or [])):
        if lag == 0:
            continue
        half = bands[i] if i < len(bands) else None
        yield _row("acf", f"lag {lag}", v, ci_low=None if half is None else -half, ci_high=half, samples=n,
                   note="band: Bartlett, 95 %")


def _correlation(r: dict) -> Iterator[dict]:
    c = r.get("correlation")
    if not c:
        return
    note = f"{c['first']['label']} vs {c['second']['label']}, {c['interval_s']}-second intervals"
    yield _row("correlation", "r at lag 0", c.get("r_at_zero"), note=note)
    yield _row("correlation", "lag of the highest r [intervals]", c.get("best_lag"),
               note=f"{c.get('lag_meaning', '')} (searched +/- {c.get('max_lag')})")
    yield _row("correlation", "highest r", c.get("best_r"), note=note)


def rows(r: dict) -> list[dict]:
    out = [*_summary(r), *_stationarity(r), *_hurst(r), *_correlation(r), *_acf(r)]
    for row in out:
        row["value_text"] = _fmt(row["value"])
        row["ci_text"] = "" if row["ci_low"] is None else f"{_fmt(row['ci_low'])} to {_fmt(row['ci_high'])}"
        row["fit"] = ("" if row["fit_from"] is None else
                      f"{_fmt(row['fit_from'])} to {_fmt(row['fit_to'])} ({row['fit_unit']})")
    return out


def _fmt(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e6 else f"{v:.6g}"
    return str(v)


def csv_text(r: dict) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for row in rows(r):
        w.writerow(["" if row[c] is None else (repr(row[c]) if isinstance(row[c], float) else row[c])
                    for c in COLUMNS])
    return buf.getvalue()
