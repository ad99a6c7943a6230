"""Plot images: the page's figure (plotfigure.py) with a title (series, range in the viewer's zone,
units) rendered on the server as PNG or SVG, for a wiki page, a mail or a report.

Renderer: kaleido (PyPI) driving Debian's chromium (CELLAR_CHROMIUM; kaleido would otherwise
download a Chrome, which a closed machine cannot): the same plotly.js as the page, read from the
plotly wheel, so an image is the page's plot; nothing is fetched from the network.

Bounded, because a render is heavy (a browser tab, ~0.2 s warm, ~3 s for the first in a process):
- a render pool, not a Celery task: an <img> in a wiki asks once and waits for bytes; it cannot
  follow a job, so a task would keep the web worker waiting just the same, plus a broker round
  trip and a result store Cellar does not run. Each web process keeps one chromium (kaleido's
  server, started at the first image) and renders one image at a time (a lock); the whole web
  tier renders at most CELLAR_IMAGE_RENDERS at once (leases in redis, streamslots.acquire). A
  request waits at most CELLAR_IMAGE_WAIT_S for a free render, else 429 with Retry-After; a render
  stops after CELLAR_IMAGE_TIMEOUT_S (503). The data read has the plot's limits and budget.
- at most MAX_SERIES lines and the plot's points (params.py), stated in the 400;
- cached (Django's cache, redis): an image of a range that reaches now for CELLAR_IMAGE_CACHE_S,
  of a range wholly in the past for a day; the key is the selection, the zone, size, format and
  the range (a range ending now, "24h", by its cache period: it is drawn anew as time moves on).
"""
from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import plotly
from django.conf import settings
from django.core.cache import cache

from collector.core.isotime import iso
from collector.reader import units
from collector.reader.reading import Plan
from collector.reader.selection import BadRequest, single
from webapp.traffic import streamslots, timeaxis

FORMATS = {"png": "image/png", "svg": "image/svg+xml"}
SIZE_LIMITS = {"w": (300, 2400), "h": (200, 1600)}
DEFAULT_SIZE = {"w": 1000, "h": 480}
PREFIX = "cellar:image-renders:"
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
FINAL_AFTER = timedelta(hours=2)     # a range that ended this long ago is not changing any more


class Busy(Exception):
    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class RenderFailed(Exception):
    """The renderer did not answer in time or failed; str() says which."""


def size(params: Mapping) -> tuple[int, int]:
    out = {}
    for name, (lo, hi) in SIZE_LIMITS.items():
        text = single(params, name, "")
        if not text:
            out[name] = DEFAULT_SIZE[name]
            continue
        if not text.isdigit() or not lo <= int(text) <= hi:
            raise BadRequest(f"{name}={text!r}: the image {'width' if name == 'w' else 'height'} is {lo} to {hi} "
                             "pixels")
        out[name] = int(text)
    return out["w"], out["h"]


def title(p: Plan, zone: ZoneInfo) -> str:
    names = [s.label for s in p.series]
    who = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    extra = "".join(f" · compared with {c.words} earlier" for c in p.req.compare)
    return (f"<b>{who}</b>{extra}<br><span style='font-size:12px'>{timeaxis.span_text(p.start, p.end, zone)} · "
            f"{units.UNITS[p.unit].label} · Cellar</span>")


def titled(fig: dict, p: Plan, zone: ZoneInfo, w: int, h: int) -> dict:
    layout = fig["layout"]
    layout["title"] = {"text": title(p, zone), "x": 0.01, "xanchor": "left", "font": {"size": 15}}
    layout["margin"] = {**layout.get("margin", {}), "t": 70}
    layout["width"], layout["height"] = w, h
    layout["font"] = {"family": "DejaVu Sans, Liberation Sans, sans-serif", "size": 12}
    return fig


def cache_key(query: str, fmt: str, w: int, h: int, zone: ZoneInfo, p: Plan) -> str:
    """A fixed range is its own key; a range ending now ("24h") is keyed by its cache period, so
    requests within one period share an image and the next period draws the newer data."""
    if p.req.range == "custom":
        when = f"{iso(p.start)}/{iso(p.end)}"
    else:
        when = f"{p.req.range}@{int(p.now.timestamp()) // max(1, settings.CELLAR_IMAGE_CACHE_S)}"
    text = "|".join([query, fmt, str(w), str(h), zone.key, when])
    return "cellar-image:" + hashlib.sha256(text.encode()).hexdigest()


def cache_seconds(p: Plan) -> int:
    return 86400 if p.end < p.now - FINAL_AFTER else settings.CELLAR_IMAGE_CACHE_S


_lock = threading.Lock()
_started = False


def _render_here(fig: dict, fmt: str, w: int, h: int) -> bytes:
    """One render in this process' chromium (started at the first image)."""
    import os

    import kaleido

    global _started
    with _lock:
        if not _started:
            os.environ.setdefault("BROWSER_PATH", settings.CELLAR_CHROMIUM)
            kaleido.start_sync_server(silence_warnings=True, timeout=settings.CELLAR_IMAGE_TIMEOUT_S,
                                      plotlyjs=str(PLOTLY_JS), mathjax=False)
            _started = True
        try:
            return kaleido.calc_fig_sync(fig, opts={"format": fmt, "width": w, "height": h})
        except Exception as exc:     # kaleido's timeout and browser errors: the render is lost, not the worker
            raise RenderFailed(f"the image renderer failed: {type(exc).__name__}: {exc}") from exc


def render(fig: dict, fmt: str, w: int, h: int) -> bytes:
    """Bytes of the image, inside a render slot of the web tier; Busy when none frees in time."""
    deadline = time.monotonic() + settings.CELLAR_IMAGE_WAIT_S
    limit = settings.CELLAR_IMAGE_RENDERS
    lease_s = settings.CELLAR_IMAGE_TIMEOUT_S + 10
    while True:
        got = streamslots.acquire((PREFIX + "all",), (limit,), lease_s)
        if isinstance(got, streamslots.Lease):
            break
        if time.monotonic() >= deadline:
            raise Busy(f"{limit} plot images are being rendered now, the most the server renders at once "
                       f"(CELLAR_IMAGE_RENDERS); retry in {got[1]} s", got[1])
        time.sleep(0.1)
    try:
        return _render_here(fig, fmt, w, h)
    finally:
        got.release()


def image(fig: dict, p: Plan, zone: ZoneInfo, fmt: str, w: int, h: int, query: str) -> tuple[bytes, bool, int]:
    """(bytes, from the cache, seconds it may be cached)."""
    key = cache_key(query, fmt, w, h, zone, p)
    ttl = cache_seconds(p)
    found = cache.get(key) if ttl else None
    if found is not None:
        return found, True, ttl
    data = render(titled(fig, p, zone, w, h), fmt, w, h)
    if ttl:
        cache.set(key, data, ttl)
    return data, False, ttl

