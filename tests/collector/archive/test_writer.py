"""collector/archive/writer.py: the array text of a sample row round-trips every value it can
hold (NULLs, Counter64 above 2**63, flags)."""
from __future__ import annotations

U32, U64 = 1 << 32, 1 << 64


def test_array_text_round_trips():
    from collector.archive.writer import array_text, flags_text
    from collector.core.facts import to_i64_list

    assert array_text([1, None, 0]) == "{1,NULL,0}"
    assert array_text([]) == "{}"
    assert flags_text([0, 1, 256, 16]) == "{0,1,256,16}"
    assert to_i64_list([U64 - 1, 5, None]) == [-1, 5, None]
    big = [(1 << 63) + 5, 3]
    assert to_i64_list(big) == [-(1 << 63) + 5, 3]
