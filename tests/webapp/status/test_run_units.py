"""A run's counts are in the unit of each counter it counts, on the page, in its CSV and its JSON:
octets of an Ethernet port as octets and Mb/s (8 bits each, never a 53-byte cell), packets as
packets/s, cells as 53-byte cells with their 48-byte payloads; and what the application sent is
expected in that unit, by the medium's arithmetic (table-driven)."""
from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from collector.archive.models import Series
from collector.inventory.models import Port, Switch
from collector.runs.models import ExperimentRun
from tests.support.status_network import add_samples, series

pytestmark = pytest.mark.django_db


def ip_switch(network) -> dict:
    """A 10 Gb/s Ethernet port and a loopback, polled at t1 and t2 (15 s) like fore-a."""
    now = network["now"]
    t1, t2 = now - timedelta(seconds=20), now - timedelta(seconds=5)
    sw = Switch.objects.create(name="eth-sw", address="192.0.2.140", community="x", profile="if-mib")
    eth = Port.objects.create(switch=sw, key="2", if_index=2, name="eth0", port_type="ethernet", is_atm=False,
                              speed_bps=10_000_000_000, oper_status="up")
    lo = Port.objects.create(switch=sw, key="1", if_index=1, name="lo", port_type="loopback", is_atm=False,
                             speed_bps=10_000_000, oper_status="up")
    made = [series(sw, "ifHCOutOctets", "2", "out", "octets", "octets", port=eth, width=64),
            series(sw, "ifHCOutUcastPkts", "2", "out", "ucast_pkts", "packets", port=eth, width=64),
            series(sw, "ifHCOutOctets", "1", "out", "octets", "octets", port=lo, width=64)]
    add_samples(sw, [(t1, None, [100, 10, 5], [None] * 3, [32] * 3),
                     (t2, 15000, [15_000_100, 10_010, 3_000_005], [15_000_000, 10_000, 3_000_000], [0, 0, 0])], made)
    return {"t1": t1, "t2": t2, "octets": made[0], "packets": made[1], "loopback": made[2]}


def vc_cells(network) -> Series:
    return Series.objects.get(switch=network["sa"], object_name="chanCells", index="0.0.100")


# name, series, bytes sent, message size, overhead, expected (page), counted (page), average (page),
# verdict, CSV/JSON: unit, avg_line_mbps, avg_payload_mbps, avg_per_s
CASES = [
    ("ethernet octets", "octets", 14_000_000, 1448, 52, "14,638,154</strong> octets", "15,000,000 – 15,000,000 octets",
     "8.000 Mb/s", "consistent", "octets", 8.0, None, 1_000_000.0),
    ("ethernet packets", "packets", 14_000_000, 1448, 52, "9,669</strong> packets", "10,000 – 10,000 packets",
     "666.667 packets/s", "consistent", "packets", None, None, 10_000 / 15),
    ("loopback octets", "loopback", 2_800_000, 1448, 52, "2,900,568</strong> octets", "3,000,000 – 3,000,000 octets",
     "1.600 Mb/s", "consistent", "octets", 1.6, None, 200_000.0),
    ("ATM VC cells", "cells", 12_000 * 48, None, 0, "12,000</strong> cells", "12,000 – 12,000 cells",
     "0.339 / 0.307 Mb/s", "consistent", "cells", 800 * 424 / 1e6, 800 * 384 / 1e6, 800.0),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_run_counts_each_series_in_its_own_unit(client, network, case):
    (_, which, sent, size, overhead, expected, counted, average, word, unit, line, payload, per_s) = case
    ip = ip_switch(network)
    s = vc_cells(network) if which == "cells" else ip[which]
    run = ExperimentRun.objects.create(name=f"units {which}", start=ip["t1"], end=ip["t2"], bytes_sent=sent,
                                       message_size=size, overhead=overhead)
    run.series.set([s])
    html = client.get(f"/runs/{run.id}/").content.decode()
    summary, table = html[html.index('id="expected"'):], html[html.index('id="series-counts"'):]
    table = table[:table.index("</table>")]
    assert expected in summary[:summary.index("</td>")]
    assert counted in table and average in table and word in table
    if unit != "cells":
        assert "cells" not in table and "payload" not in table
    rows = list(csv.DictReader(io.StringIO("\n".join(
        line_ for line_ in client.get(f"/runs/{run.id}/accounting.csv").content.decode().splitlines()
        if not line_.startswith("#")))))
    (row,) = [r for r in rows if r["part"] == "series"]
    assert (row["series_id"], row["unit"], row["verdict"]) == (str(s.id), unit, word)
    assert float(row["avg_per_s"]) == pytest.approx(per_s, rel=1e-4)
    assert (float(row["avg_line_mbps"]) if row["avg_line_mbps"] else None) == (
        pytest.approx(line, rel=1e-4) if line else None)
    assert (float(row["avg_payload_mbps"]) if row["avg_payload_mbps"] else None) == (
        pytest.approx(payload, rel=1e-4) if payload else None)
    body = client.get(f"/runs/api/{run.id}").json()
    (entry,) = body["series_counts"]
    got = entry["counted"]
    near = [pytest.approx(v, rel=1e-4) if v else None for v in (line, payload)]
    assert (got["unit"], got["verdict"], got["avg_line_mbps"], got["avg_payload_mbps"]) == (unit, word, *near)
    assert got["avg_per_s"] == pytest.approx(per_s, rel=1e-4)
    assert [e["unit"] for e in body["expected"]] == [unit]
    assert entry["expected"] == int(expected.split("<")[0].replace(",", ""))
