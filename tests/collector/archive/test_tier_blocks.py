"""Settled-tier blocks (collector/core/tierblocks.py) on the rows the rollup itself wrote.

Two days of jittered 15 s polls of six series (busy, bursty, idle, Counter64-sized, every kind of
flag, reboots, a gap of missed polls) rolled up by collector/archive/rollup.py in TimescaleDB; every
tier's buckets, cut into blocks per switch and block span (tiers.Tier.block), go through the codec
and come back exactly, the float rates bit for bit, each rate as an integer pair.
"""
from __future__ import annotations

import random
import struct
from collections import defaultdict

import pytest
from django.db import connection

from collector.archive import rollup
from collector.archive.tiers import TIERS
from collector.core import tierblocks
from collector.core.facts import Flag
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db(transaction=True)

N = 6
W, OVER, GAP, REBOOT, MISSING, FIRST = (int(Flag.WRAP), int(Flag.OVER_CAPACITY), int(Flag.GAP), int(Flag.REBOOT),
                                        int(Flag.MISSING), int(Flag.FIRST))


def _polls(days: int = 2) -> list[f.Row]:
    rng = random.Random(11)
    rows: list[f.Row] = [(0.0, None, [None] * N, [FIRST] * N)]
    t = 0.0
    for k in range(1, days * 86400 // 15):
        iv = 15000 + rng.randint(-25, 25)
        deltas: list[int | None] = [int(rng.lognormvariate(12, 0.6)), int(rng.lognormvariate(8, 2.0)), 0,
                                    int(rng.lognormvariate(30, 0.3)), 3 * k % 7, int(rng.lognormvariate(5, 0.1))]
        flags = [0] * N
        if k % 333 == 0:
            flags[0] = W
        if k % 777 == 0:
            deltas[0], flags[0] = 10 ** 12, OVER
        if k % 900 == 1:
            deltas[1], flags[1] = None, MISSING
        if k % 1000 == 500:
            deltas, flags = [None] * N, [REBOOT] * N
        if k == 3000:                       # eight missed polls
            iv += 120_000
            flags = [GAP] * N
        t += iv / 1000
        rows.append((t, iv, deltas, flags))
    return rows


def _key(rows) -> list:
    bits = lambda v: None if v is None else struct.pack("<d", v)  # noqa: E731
    return [(r[0], r[1], r[2], r[3], bits(r[4]), bits(r[5]), r[6], r[7]) for r in rows]


def test_every_tier_written_by_the_rollup_comes_back_from_blocks_exactly():
    f.reset_rollups()
    sw = f.switch("blocks")
    members = [f.series(f.port(sw, f"A{i}"), "in") for i in range(N)]
    f.insert(sw, f.layout(sw, members), _polls())
    for _ in range(50):
        if rollup.run(budget_s=120).caught_up:
            break
    seen = {}
    for tier in TIERS:
        with connection.cursor() as cur:
            cur.execute(f"SELECT series_id, extract(epoch FROM bucket)::bigint, sum_delta, sum_interval_ms, max_rate, "
                        f"min_rate, samples, flagged FROM {tier.table} WHERE series_id = ANY(%s) ORDER BY 1, 2",
                        [[s.id for s in members]])
            rows = cur.fetchall()
        blocks = defaultdict(list)
        for r in rows:
            blocks[tier.block_start(r[1])].append(r)
        size = by_candidate = 0
        for lo, part in blocks.items():
            spine, cols = tierblocks.split(part, lo, tier.seconds)
            sb = tierblocks.encode_spine(spine)
            encoded = {sid: tierblocks.encode_column(c, spine) for sid, c in cols.items()}
            back_spine = tierblocks.decode_spine(sb)
            back = tierblocks.join(back_spine, {sid: tierblocks.decode_column(b, back_spine)
                                                for sid, b in encoded.items()}, lo, tier.seconds)
            assert _key(back) == _key(part), tier.name
            size += len(sb) + sum(len(b) for b in encoded.values())
            for c in cols.values():
                for got in tierblocks.column_pairs(c, spine):
                    assert not len(got.unpaired), tier.name       # every rate is an integer pair
                    by_candidate += int((got.index < tierblocks.CANDIDATES).sum())
        seen[tier.name] = (len(rows), size, by_candidate)
    buckets_1m, size_1m, by_candidate_1m = seen["1m"]
    assert buckets_1m > 2 * 1440 * N * 0.95
    assert by_candidate_1m > buckets_1m          # most of the 2 rates a bucket take a spine candidate
    assert size_1m / buckets_1m < 10              # rows take ~124 bytes a bucket; the blocks a few
    assert {name: n > 0 for name, (n, _, _) in seen.items()} == {t.name: True for t in TIERS}
