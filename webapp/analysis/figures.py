"""The analysis page's figures: Plotly figure dicts made from a stored result. Pure.

Every estimate is drawn with the plot it comes from, its fitted scales marked (filled markers)
apart from the ones left out (hollow), and its fit line; titles carry the estimate, its 95 %
interval and the number of samples, so a screenshot of one figure says what it shows.
"""
from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from webapp.traffic import timeaxis

BLUE, ORANGE, GREY, RED, GREEN = "#1f5fa8", "#d9730d", "#98a2b3", "#c0392b", "#2e7d32"
Figure = dict[str, Any]


def _axis(title: str, log: bool, date: bool = False) -> dict:
    return {"title": {"text": title}, "type": "log" if log else ("date" if date else "linear"), "automargin": True}


def _layout(title: str, x: str, y: str, *, log_x: bool = False, log_y: bool = False, date_x: bool = False) -> dict:
    return {"title": {"text": title, "font": {"size": 13}}, "xaxis": _axis(x, log_x, date_x), "yaxis": _axis(y, log_y),
            "showlegend": True, "legend": {"orientation": "h", "y": -0.25}}


def times(iso_texts: list[str]) -> list[str]:
    """ISO 8601 UTC times as plotly.js reads dates: it ignores no offset, so "Z" is dropped (every
    time on these figures is UTC, and the axes say so)."""
    return [t.replace("T", " ").removesuffix("Z").removesuffix("+00:00") for t in iso_texts]


def series_figure(r: dict) -> Figure:
    a = r["analysed"]
    s = r["sampling"]
    title = (f"Analysed series: {s['n']:,} points of {r['resolution_label']}"
             + (" (min/max envelope drawn)" if a.get("thinned") else ""))
    return {"data": [{"type": "scatter", "mode": "lines", "x": times(a["t"]), "y": a["v"], "name": r["label"],
                      "line": {"color": BLUE, "width": 1}}],
            "layout": _layout(title, "time (UTC)", r["unit"], date_x=True)}


def acf_figure(r: dict) -> Figure:
    a = r["acf"]
    lags, values = a["lags"], a["values"]
    white, bart = a.get("band_white"), a.get("band_bartlett") or []
    data: list[dict] = [{"type": "bar", "x": lags, "y": values, "name": "autocorrelation", "marker": {"color": BLUE}}]
    if white is not None:
        data.append({"type": "scatter", "mode": "lines", "x": [lags[0], lags[-1]], "y": [white, white],
                     "name": "±1.96/√n (i.i.d.)", "line": {"color": GREY, "dash": "dash"}})
        data.append({"type": "scatter", "mode": "lines", "x": [lags[0], lags[-1]], "y": [-white, -white],
                     "showlegend": False, "line": {"color": GREY, "dash": "dash"}})
    if bart:
        data.append({"type": "scatter", "mode": "lines", "x": lags, "y": bart, "name": "Bartlett 95 %",
                     "line": {"color": ORANGE, "width": 1}})
        data.append({"type": "scatter", "mode": "lines", "x": lags, "y": [None if b is None else -b for b in bart],
                     "showlegend": False, "line": {"color": ORANGE, "width": 1}})
    return {"data": data, "layout": _layout(f"Autocorrelation ({len(lags) - 1} lags of {r['step_s']:g} s)",
                                            "lag (samples)", "r")}


def spectrum_figure(r: dict) -> Figure:
    sp = r["spectrum"]
    data: list[dict] = [
        {"type": "scatter", "mode": "markers", "x": sp["frequencies"], "y": sp["periodogram"],
         "name": f"periodogram ({sp.get('ordinates_kept', len(sp['frequencies'])):,} of "
                 f"{sp.get('ordinates', len(sp['frequencies'])):,} ordinates drawn)",
         "marker": {"color": GREY, "size": 3}},
        {"type": "scatter", "mode": "lines", "x": sp.get("smoothed_frequencies") or sp["frequencies"],
         "y": sp["smoothed"], "name": "Welch estimate", "line": {"color": BLUE, "width": 2}},
    ]
    peaks = sp.get("peaks") or []
    if peaks:
        data.append({"type": "scatter", "mode": "markers+text", "x": [p["frequency_hz"] for p in peaks],
                     "y": [p.get("power") for p in peaks], "text": [_period(p["period_s"]) for p in peaks],
                     "textposition": "top center", "name": "periodic component",
                     "marker": {"color": RED, "size": 9, "symbol": "x"}})
    title = f"Power spectrum ({len(peaks)} periodic component{'' if len(peaks) == 1 else 's'} found)"
    return {"data": data, "layout": _layout(title, "frequency (Hz)", f"power ({r['unit']})²/Hz",
                                            log_x=True, log_y=True)}


def _period(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} s"


def hurst_figure(e: dict) -> Figure:
    """One estimator's own plot: every scale computed, the fitted ones filled, and the fit line."""
    p = e["plot"]
    fitted = p.get("fitted") or [True] * len(p["x"])
    err = p.get("y_err")
    used = [i for i, f in enumerate(fitted) if f]
    unused = [i for i, f in enumerate(fitted) if not f]

    def trace(idx: list[int], name: str, symbol: str) -> dict:
        t = {"type": "scatter", "mode": "markers", "x": [p["x"][i] for i in idx], "y": [p["y"][i] for i in idx],
             "name": name, "marker": {"color": BLUE, "size": 6, "symbol": symbol}}
        if err:
            t["error_y"] = {"type": "data", "array": [err[i] for i in idx], "color": GREY, "thickness": 1}
        return t

    data: list[dict] = [trace(used, "fitted", "circle"), trace(unused, "not fitted", "circle-open")]
    if p.get("fit_x"):
        data.append({"type": "scatter", "mode": "lines", "x": p["fit_x"], "y": p["fit_y"],
                     "name": p.get("fit_label", f"fit: H = {_num(e['h'])}"), "line": {"color": ORANGE, "width": 2}})
    if p.get("expected_iid"):
        data.append({"type": "scatter", "mode": "lines", "x": p["x"], "y": p["expected_iid"],
                     "name": "E[R/S] of i.i.d. noise (H = 0.5)", "line": {"color": GREY, "dash": "dot"}})
    lo, hi = (e.get("fit_range") or (None, None))[:2]
    title = (f"{e['method']}: H = {_num(e['h'])} [{_num(e.get('ci_low'))}, {_num(e.get('ci_high'))}]<br>"
             f"<sup>n = {e['n']:,}; fitted {e.get('fit_unit', '')} {_num(lo)} to {_num(hi)}</sup>")
    return {"data": data, "layout": _layout(title, p.get("x_title", ""), p.get("y_title", ""),
                                            log_x=p.get("x_scale") == "log", log_y=p.get("y_scale") == "log")}


def correlation_figures(c: dict) -> list[tuple[str, Figure, bool]]:
    first, second = c["first"], c["second"]
    same_unit = first["unit"] == second["unit"]
    both: dict[str, Any] = {"data": [
        {"type": "scatter", "mode": "lines", "x": times(c["t"]), "y": first["values"], "name": first["label"],
         "line": {"color": BLUE, "width": 1.5}},
        {"type": "scatter", "mode": "lines", "x": times(c["t"]), "y": second["values"], "name": second["label"],
         "yaxis": "y" if same_unit else "y2", "line": {"color": ORANGE, "width": 1.5, "dash": "dot"}},
    ], "layout": _layout(f"Both series in {c['interval_s']}-second intervals", "time (UTC)", first["unit"],
                         date_x=True)}
    if not same_unit:
        both["layout"]["yaxis2"] = {"title": {"text": second["unit"]}, "overlaying": "y", "side": "right"}
    xc: dict[str, Any] = {"data": [{"type": "bar", "x": c["lags"], "y": c["r"], "name": "r at lag",
                    "marker": {"color": [RED if lag == c.get("best_lag") else BLUE for lag in c["lags"]]}}],
          "layout": _layout(f"Cross-correlation: r = {_num(c.get('r_at_zero'))} at lag 0, highest "
                            f"{_num(c.get('best_r'))} at lag {c.get('best_lag')}",
                            f"lag ({c['interval_s']} s intervals)", "Pearson r")}
    xc["layout"]["yaxis"]["range"] = [-1, 1]
    return [("correlation-series", both, True), ("cross-correlation", xc, False)]


def _num(v: object) -> str:
    return "–" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))


def all_figures(r: dict, zone: ZoneInfo | None = None) -> list[dict]:
    """Every figure of a result, in page order: [{id, figure, wide}]; the time axes in `zone`
    (the viewer's; the stored result and its CSV stay UTC)."""
    out: list[tuple[str, Figure, bool]] = [("series", series_figure(r), True)]
    for e in r.get("hurst") or []:
        out.append((f"hurst-{e['method'].lower().replace(' ', '-').replace('/', '')}", hurst_figure(e), False))
    out += [("acf", acf_figure(r), False), ("spectrum", spectrum_figure(r), False)]
    if r.get("correlation"):
        out += correlation_figures(r["correlation"])
    if zone is not None:
        for _, fig, _ in out:
            if fig["layout"]["xaxis"].get("type") == "date":
                timeaxis.localize(fig, zone)
    return [{"id": key, "figure": fig, "wide": wide} for key, fig, wide in out]
