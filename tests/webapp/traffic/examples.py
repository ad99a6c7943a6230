"""Series descriptions and point columns the traffic tests share (plain values, no database)."""
from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from collector.reader.catalog import SeriesInfo
from collector.reader.points import bucket_columns, raw_columns

NOW = datetime(2026, 11, 22, 12, 0, 7, tzinfo=UTC)
CELLS = SeriesInfo(1, 1, "asx", "A1", "merlin", "OC3", True, None, None, "in", "cells", "cells", 32, 353_207, 15,
                   "portReceivedCells", "1", True, False)
VC = replace(CELLS, id=2, vpi=0, vci=15, port_level=False, object_name="chanCells", index="1.0.15")
ATM_OCTETS = replace(CELLS, id=3, metric="octets", unit="octets", capacity_per_s=19_440_000, object_name="ifHCInOctets")
AAL5 = replace(ATM_OCTETS, id=4, vpi=0, vci=100, port_level=False)
IP = replace(CELLS, id=5, is_atm=False, port="eth0", metric="octets", unit="octets", capacity_per_s=125_000_000)
PKTS = replace(IP, id=6, metric="ucast_pkts", unit="packets", capacity_per_s=None)
NOCAP = replace(CELLS, id=7, capacity_per_s=None)
T0 = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


def raw_series(spec):
    """spec: list of (seconds after T0, interval_ms, delta, flags)."""
    return raw_columns([(T0.timestamp() + s, iv, d, f) for s, iv, d, f in spec])


def buckets(width, spec):
    """spec: list of (seconds after T0, sum_delta, sum_interval_ms, max_rate, min_rate, samples, flagged)."""
    nan = float("nan")
    cols = list(zip(*spec)) if spec else [()] * 7
    return bucket_columns(width, [T0.timestamp() + t for t in cols[0]], cols[1], [ms / 1000 for ms in cols[2]],
                          [nan if v is None else v for v in cols[3]], [nan if v is None else v for v in cols[4]],
                          cols[5], cols[6])


def values(a):
    return [None if v != v else v for v in list(a)]
