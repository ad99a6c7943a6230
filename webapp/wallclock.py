"""Wall-clock times of a zone, for whole arrays of UTC times at once (one time: `wall_clock_text`,
the same code on an array of one). Pure (numpy, zoneinfo).

Plotly has no time zones, so a page that draws times in the viewer's zone moves them by the
zone's UTC offset at each instant. zoneinfo exposes no transition table: the offsets of a range
are found by sampling every day and bisecting to the second where one changed, then applied to
whole arrays with numpy (a year of 48 series costs one pass, not a call per point). Used by the
plot's time axis (webapp/traffic/timeaxis.py), the analysis figures and the external series page.
"""
from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import numpy as np

UTC_KEYS = ("UTC", "Etc/UTC", "Etc/Universal", "Universal", "Zulu", "Etc/Zulu")
_DAY = 86400


def is_utc(zone: ZoneInfo) -> bool:
    return zone.key in UTC_KEYS


def offset_at(zone: ZoneInfo, t: float) -> float:
    off = datetime.fromtimestamp(t, UTC).astimezone(zone).utcoffset()
    return off.total_seconds() if off is not None else 0.0


def transitions(zone: ZoneInfo, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """(instants, offsets): the offset in force from each instant (epoch seconds) on, over [lo, hi]."""
    lo, hi = lo - _DAY, hi + _DAY
    at, offs = [lo], [offset_at(zone, lo)]
    t = lo
    while t < hi:
        nxt = min(t + _DAY, hi)
        o = offset_at(zone, nxt)
        if o != offs[-1]:
            a, b = t, nxt                 # offs[-1] at a, o at b: find the first second of o
            while b - a > 1:
                m = (a + b) // 2
                if offset_at(zone, m) == offs[-1]:
                    a = m
                else:
                    b = m
            at.append(b)
            offs.append(o)
        t = nxt
    return np.asarray(at, dtype=np.float64), np.asarray(offs, dtype=np.float64)


def shift_ms(x_ms: np.ndarray, zone: ZoneInfo) -> np.ndarray:
    """Epoch milliseconds (UTC) to the zone's wall-clock times, as epoch milliseconds (NaN stays)."""
    finite = x_ms[np.isfinite(x_ms)]
    if not len(finite):
        return x_ms
    at, offs = transitions(zone, float(finite.min()) / 1000, float(finite.max()) / 1000)
    idx = np.searchsorted(at * 1000, np.nan_to_num(x_ms, nan=at[0] * 1000), side="right") - 1
    return x_ms + offs[np.clip(idx, 0, len(offs) - 1)] * 1000


def wall_clock_texts(texts: list, zone: ZoneInfo) -> list:
    """ISO 8601 UTC times ('2026-11-22T10:00:00Z', naive '2026-11-22 10:00:00' read as UTC) as
    the zone's wall-clock times in Plotly's form ('2026-11-22 11:00:00'); what is not a string
    (None: a gap) stays. One numpy pass, not a datetime per point (a figure holds up to 2^16)."""
    at = [i for i, t in enumerate(texts) if isinstance(t, str)]
    if not at:
        return list(texts)
    plain = [texts[i].removesuffix("Z").removesuffix("+00:00").replace(" ", "T") for i in at]
    ms = np.array(plain, dtype="datetime64[ms]").astype("int64")
    if not is_utc(zone):
        ms = shift_ms(ms.astype("f8"), zone).astype("int64")
    local = np.datetime_as_string(ms.astype("datetime64[ms]"), unit="s" if not (ms % 1000).any() else "ms")
    out = list(texts)
    for i, t in zip(at, local, strict=True):
        out[i] = str(t).replace("T", " ")
    return out


def wall_clock_text(text: str, zone: ZoneInfo) -> str:
    """One time of `wall_clock_texts` (a shape's edge, an annotation, an axis end): the same code,
    so a marker and the line it marks are moved alike."""
    return wall_clock_texts([text], zone)[0]
