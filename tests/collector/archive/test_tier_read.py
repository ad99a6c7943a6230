"""The pure parts of reading settled tier buckets (collector/archive/tier_read.py): blocks as the
plots' columns, summed per series and block, and as COPY binary rows. No database."""
from __future__ import annotations

import struct
from datetime import UTC, datetime, timedelta

import numpy as np

from collector.archive import tier_read
from collector.archive.tiers import TIER
from collector.core import tierblocks
from tests.collector.core.test_tierblocks import _buckets

DAY = 86400
LO = 20000 * DAY


def _found() -> list[tier_read.Block]:
    rows = _buckets(np.random.default_rng(9), 60, 1440, [4, 9, 14], LO)
    spine, cols = tierblocks.split(rows, LO, 60)
    return [(1, datetime.fromtimestamp(LO, UTC), spine, cols)]


def test_columns_keep_the_range_and_summed_rows_are_their_sums():
    found = _found()
    lo, hi = datetime.fromtimestamp(LO, UTC) + timedelta(hours=2), datetime.fromtimestamp(LO, UTC) + timedelta(hours=9)
    cols = tier_read.columns_of(TIER["1m"], found, lo, hi)
    seconds = cols["t"] / 1_000_000 + tier_read.PG_EPOCH_S
    assert seconds.min() >= lo.timestamp() and seconds.max() < hi.timestamp() and len(cols["sid"]) > 3 * 400
    summed = tier_read.columns_of(TIER["1m"], found, lo, hi, summed=True)
    assert sorted(summed["sid"].tolist()) == [4, 9, 14]
    for i, sid in enumerate(summed["sid"].tolist()):
        mine = cols["sid"] == sid
        assert summed["d"][i] == cols["d"][mine].sum() and summed["ms"][i] == cols["ms"][mine].sum()
        assert summed["n"][i] == cols["n"][mine].sum() and summed["f"][i] == cols["f"][mine].sum()
        assert summed["mx"][i] == np.nanmax(cols["mx"][mine]) and summed["mn"][i] == np.nanmin(cols["mn"][mine])
        assert summed["t"][i] == cols["t"][mine].min()


def test_copy_binary_rows_are_postgres_binary_copy_with_exact_doubles():
    cols = tier_read.columns_of(TIER["1m"], _found(), None, None)
    data = tier_read.copy_binary(cols)
    assert data.startswith(b"PGCOPY\n\xff\r\n\x00") and data.endswith(b"\xff\xff")
    body = data[19:-2]
    assert len(body) == 86 * len(cols["sid"])
    first = body[:86]
    (fields,) = struct.unpack(">h", first[:2])
    assert fields == 8
    max_rate = struct.unpack(">d", first[2 + 4 + 8 + 4 + 4 + 4 + 8 + 4 + 8 + 4:][:8])[0]
    assert max_rate == cols["mx"][0] or (np.isnan(max_rate) and np.isnan(cols["mx"][0]))
    assert tier_read.copy_binary(tier_read.columns_of(TIER["1m"], [], None, None)) == b""
