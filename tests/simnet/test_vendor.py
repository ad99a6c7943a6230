"""simnet/vendor.py: an agent's records for any compiled MIB module, counters at known rates."""
from __future__ import annotations

import pytest

from simnet import recording, vendor


def test_every_column_of_the_rows_given_is_answered_counters_at_their_rate():
    recs = vendor.records("ATM2-MIB", {3: [(1, 0, 100)]}, rate=lambda name, index: 7,
                          only=["atmVclStatClp0Tagged", "atmVclStatTotalCellIns", "atmAal5VclInPkts"])
    by_name = {r.name: r for r in recs}
    assert set(by_name) == {"atmVclStatClp0Tagged", "atmVclStatTotalCellIns", "atmAal5VclInPkts"}
    tagged = by_name["atmVclStatClp0Tagged"]
    assert recording.render_line(tagged, 1_700_000_000).startswith("1.3.6.1.2.1.37.1.14.1.11.1.7.1.0.100|65:numeric|")
    assert tagged.series.rate == 7 and tagged.index == (1, 0, 100)
    everything = vendor.records("ATM2-MIB", {1: [(1,)], 2: [(1, 0)], 3: [(1, 0, 100)]}, rate=lambda n, i: 1)
    names = {r.name for r in everything}
    assert "atmVclStatTotalCellOuts" in names and "atmVplStatClp0Tagged" in names
    assert "atmVclVpi" not in names                  # an index column: never read


def test_a_module_nobody_compiled_is_an_error():
    with pytest.raises(KeyError, match="no compiled module NOPE-MIB"):
        vendor.records("NOPE-MIB", {1: [(1,)]}, rate=lambda n, i: 1)
