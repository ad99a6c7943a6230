"""collector/reader/units.py: display units and the cell arithmetic behind them."""
from __future__ import annotations

from dataclasses import replace

import pytest

from collector.reader import units
from collector.reader.units import UnitError
from tests.webapp.traffic.examples import AAL5, ATM_OCTETS, CELLS, IP, NOCAP, PKTS, VC


@pytest.mark.parametrize("series, unit, factor", [
    (CELLS, "cells", 1.0),
    (CELLS, "mbps_cells", 53 * 8 / 1e6),          # the cell stream, 53-byte cells
    (CELLS, "mbps_payload", 48 * 8 / 1e6),        # the payload, 48 bytes of each cell
    (CELLS, "bps", 424.0),
    (CELLS, "pct", 100 / 353_207),
    (ATM_OCTETS, "cells", 1 / 53),                # an ATM ifTable row counts cells x 53
    (ATM_OCTETS, "mbps_cells", 8 / 1e6),
    (ATM_OCTETS, "mbps_payload", 8 / 1e6 * 48 / 53),
    (IP, "bps", 8.0),
    (IP, "pct", 100 / 125_000_000),
    (PKTS, "pps", 1.0),
])
def test_unit_factors(series, unit, factor):
    assert units.factor(series, unit) == pytest.approx(factor, rel=1e-15)


def test_oc3_at_line_rate_is_135_63_mbps_of_payload():
    assert 353_207 * units.factor(CELLS, "mbps_payload") == pytest.approx(135.63, abs=0.01)
    assert 353_207 * units.factor(CELLS, "mbps_cells") == pytest.approx(149.76, abs=0.01)


@pytest.mark.parametrize("series, unit, message", [
    (IP, "cells", "cells/s does not apply to asx eth0 Receive"),
    (AAL5, "cells", "does not apply"),           # AAL5 octets are payload, not cells
    (PKTS, "bps", "it counts packets"),
    (NOCAP, "pct", "capacity of asx A1 Receive is not known"),
    (CELLS, "furlongs", "unknown unit 'furlongs'"),
])
def test_units_that_do_not_apply_say_why(series, unit, message):
    with pytest.raises(UnitError, match=message):
        units.factor(series, unit)


def test_auto_unit():
    assert units.auto_unit([CELLS, VC]) == "cells"
    assert units.auto_unit([IP]) == "bps"
    assert units.auto_unit([CELLS, IP]) == "bps"
    assert units.auto_unit([ATM_OCTETS]) == "cells"
    assert units.auto_unit([PKTS]) == "pps"
    assert units.auto_unit([CELLS, replace(PKTS, capacity_per_s=10)]) == "pct"
    with pytest.raises(UnitError, match="count different things"):
        units.auto_unit([CELLS, PKTS])
