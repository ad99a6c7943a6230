"""An archive for the operations tests (backup/restore): several switches, samples through the
collector's own ingest (derivation of deltas, a Counter32 wrap, a Counter64 wrap, an agent reboot),
the two days of burst_archive, rollups and the burst scan run.

The ingested switch `edge-1` (IF-MIB) is polled every 15 s for INGEST_POLLS polls from START:
port 2 answers only its 32-bit ifInOctets (stored under ifHCInOctets, width 32) and wraps,
ifHCInOctets (64-bit) of port 1 crosses 2**64, and the agent reboots at REBOOT_AT (uptime back
to near zero, counters restart), which starts a new epoch.
"""
from __future__ import annotations

from datetime import timedelta

from django.db import connection

from collector.archive import ingest, rollup
from collector.core.facts import Flag
from collector.core.poll import PollResult
from collector.core.readings import CounterReading
from tests.support import burst_archive
from tests.support import traffic_factory as f

START = f.T0 + timedelta(hours=2)
INGEST_POLLS = 480              # 2 h at 15 s
REBOOT_AT = 300                 # the poll at which the agent has rebooted
RATE_64, RATE_32 = 9_000_000, 700_000     # octets/s


def _readings(k: int) -> tuple[int, dict]:
    """(uptime in centiseconds, readings) of poll k: counters restart from 0 at the reboot."""
    since = k - REBOOT_AT if k >= REBOOT_AT else k
    base64 = 0 if k >= REBOOT_AT else 2**64 - 100 * RATE_64 * 15     # wraps 100 polls in
    base32 = 0 if k >= REBOOT_AT else 2**32 - 50 * RATE_32 * 15       # wraps 50 polls in (and again later)
    uptime = (1_000 if k >= REBOOT_AT else 5_000_000) + since * 1500
    return uptime, {("ifHCInOctets", "1"): CounterReading((base64 + since * RATE_64 * 15) % 2**64, 64),
                    ("ifHCInOctets", "2"): CounterReading((base32 + since * RATE_32 * 15) % 2**32, 32)}


def build() -> dict:
    """The archive; returns the series ids and the time range the tests ask about."""
    bursts = burst_archive.build()
    edge = f.switch("edge-1", profile="if-mib")
    f.port(edge, "1", is_atm=False, capacity_cells=None, speed_bps=1_000_000_000, label="uplink")
    f.port(edge, "2", is_atm=False, capacity_cells=None, speed_bps=100_000_000, label="lab")
    for k in range(INGEST_POLLS):
        uptime, readings = _readings(k)
        at = START.timestamp() + 15 * k
        assert ingest.ingest(PollResult(edge.id, at, uptime, readings, {}), edge) == 1
    with connection.cursor() as cur:     # the derivation really met a wrap of each width and the reboot
        cur.execute("SELECT bool_or(flags[1] & %(w)s > 0), bool_or(flags[2] & %(w)s > 0), "
                    "bool_or(flags[1] & %(r)s > 0) FROM traffic_sample WHERE switch_id = %(sw)s",
                    {"w": int(Flag.WRAP), "r": int(Flag.REBOOT), "sw": edge.id})
        assert cur.fetchone() == (True, True, True)
    rollup.run(budget_s=300)
    from collector.bursts import scan as burst_scan

    burst_scan.run(budget_s=120)
    from collector.archive.models import Series

    ids = dict(Series.objects.filter(switch=edge, kind="counter").values_list("index", "id"))
    return {"edge": edge, "hc_in": ids["1"], "in32": ids["2"],
            "quiet": bursts["quiet"].id, "bursty": bursts["bursty"].id,
            "start": f.T0, "end": bursts["end"], "ingest_start": START,
            "ingest_end": START + timedelta(seconds=15 * INGEST_POLLS)}
