from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support import traffic_factory as f

# Evaluations are run at chosen times (evaluate.run(now=...)): minutes of polls around NOW.
NOW = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)
STEP = 15


@pytest.fixture
def atm(db):
    sw = f.switch("asx-alert")
    a1 = f.port(sw, "A1")
    s_in, s_out = f.series(a1, "in"), f.series(a1, "out")
    return {"sw": sw, "port": a1, "in": s_in, "out": s_out, "layout": f.layout(sw, [s_in, s_out])}


def polls(net: dict, start: datetime, seconds: int, pct_in: float, pct_out: float = 5.0, flags: int = 0) -> None:
    """Polls every STEP s from start for `seconds`, at these % of the OC3's capacity."""
    rows = []
    for k in range(1, seconds // STEP + 1):
        rows.append((k * STEP, STEP * 1000, [int(f.OC3_CELLS * pct_in / 100 * STEP),
                                            int(f.OC3_CELLS * pct_out / 100 * STEP)], [flags, flags]))
    f.insert(net["sw"], net["layout"], rows, t0=start)
