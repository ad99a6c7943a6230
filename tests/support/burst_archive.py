"""An archive with known bursts, written as the collector's writer stores samples and rolled up.

Two days (from traffic_factory.T0, midnight UTC ten days ago) of 15 s samples of two OC-3 port
series: `quiet` at 10,000 cells/s throughout; `bursty` at 10,000 cells/s with two bursts of
200,000 cells/s (well above 10 % of 353,207): BURSTS, as (start, end) offsets in seconds from T0.
Polls are missing for MISSED_S seconds on day 1 (a hole in time, no rows).
"""
from __future__ import annotations

from datetime import timedelta

from collector.archive import rollup
from collector.core.facts import Flag
from tests.support import traffic_factory as f

STEP = 15
QUIET, BURST = 10_000, 200_000
BURSTS = [(3 * 3600, 3 * 3600 + 600), (86400 + 12 * 3600, 86400 + 12 * 3600 + 1800)]
MISSED = (6 * 3600, 6 * 3600 + 300)
DAYS = 2


def rate_at(offset: float, bursts=BURSTS) -> int:
    return BURST if any(a < offset <= b for a, b in bursts) else QUIET


def build(bursts=BURSTS) -> dict:
    sw = f.switch("sc95-floor")
    quiet = f.series(f.port(sw, "B1", label="to phillips"), "out")
    bursty = f.series(f.port(sw, "B2", label="to cewes"), "out")
    lay = f.layout(sw, [quiet, bursty])
    rows = [(0.0, None, [None, None], [32, 32])]
    last = 0
    for k in range(1, DAYS * 86400 // STEP + 1):
        t = k * STEP
        if MISSED[0] < t <= MISSED[1]:
            continue
        interval = t - last
        flag = int(Flag.GAP) if interval > STEP else 0      # as the collector flags a missed poll
        rows.append((float(t), interval * 1000, [QUIET * interval, rate_at(t, bursts) * interval], [flag, flag]))
        last = t
    f.insert(sw, lay, rows, t0=f.T0)
    rollup.run(budget_s=300)
    return {"switch": sw, "quiet": quiet, "bursty": bursty, "rows": rows, "t0": f.T0,
            "end": f.T0 + timedelta(seconds=DAYS * 86400)}
