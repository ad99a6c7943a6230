"""webapp/metrics/exposition.py: the Prometheus text format (0.0.4) of counter totals. Pure."""
from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from collector.reader.cumulative import Labelled, Reading
from webapp.metrics import exposition as x


def s(sid=1, switch="asx200bx", port="A1", vpi=None, vci=None, direction="in", metric="cells", unit="cells",
      obj="portReceivedCells") -> Labelled:
    return Labelled(sid, 7, switch, port, vpi, vci, direction, metric, unit, obj)


# name -> (series, total, at_ms, the sample line)
CASES = {
    "port": (s(), 12, 1_700_000_000_123,
             'cellar_cells_total{switch="asx200bx",port="A1",direction="in",metric="cells"} 12 1700000000123'),
    "vc": (s(vpi=0, vci=210, direction="out"), 0, 5,
           'cellar_cells_total{switch="asx200bx",port="A1",vpi="0",vci="210",direction="out",metric="cells"} 0 5'),
    "vp only": (s(vpi=3), 1, 5, 'cellar_cells_total{switch="asx200bx",port="A1",vpi="3",direction="in",'
                                'metric="cells"} 1 5'),
    "beyond 2**64, exact": (s(unit="octets", metric="octets"), 2 ** 70 + 1, 5,
                            f'cellar_octets_total{{switch="asx200bx",port="A1",direction="in",metric="octets"}} '
                            f'{2 ** 70 + 1} 5'),
    "no port, no direction": (s(port="", direction="", metric="errors", unit="packets"), 3, 5,
                              'cellar_packets_total{switch="asx200bx",metric="errors"} 3 5'),
    "quotes, backslash, newline": (s(switch='core "1"', port="Gi1\\0\n/48"), 4, 5,
                                   'cellar_cells_total{switch="core \\"1\\"",port="Gi1\\\\0\\n/48",direction="in",'
                                   'metric="cells"} 4 5'),
    "another profile's unit": (s(unit="events/s", metric="ocd"), 2, 5,
                               'cellar_events_s_total{switch="asx200bx",port="A1",direction="in",metric="ocd"} 2 5'),
}


@pytest.mark.parametrize("name", list(CASES), ids=list(CASES))
def test_a_sample_line(name):
    series, total, at_ms, line = CASES[name]
    text = "".join(x.render([Reading(series, total, at_ms)]))
    head, tail = text.split("\n# TYPE ", 1)
    assert head.startswith(f"# HELP {x.family(series.unit)} ")
    assert tail.split("\n")[0] == f"{x.family(series.unit)} counter"
    assert text.splitlines()[-1] == line
    (fam,) = text_string_to_metric_families(text)            # the client library's own parser reads it back
    (sample,) = fam.samples
    assert fam.type == "counter" and round(sample.timestamp * 1000) == at_ms          # seconds, from milliseconds
    assert float(sample.value) == float(total)
    assert sample.labels == {k: v for k, v in (("switch", series.switch), ("port", series.port),
                                               ("vpi", "" if series.vpi is None else str(series.vpi)),
                                               ("vci", "" if series.vci is None else str(series.vci)),
                                               ("direction", series.direction), ("metric", series.metric)) if v}


def test_one_header_per_family_and_families_in_one_group_each():
    readings = [Reading(s(1, unit="cells"), 1, 1), Reading(s(2, port="A2"), 2, 1),
                Reading(s(3, unit="octets", metric="octets"), 3, 1),
                Reading(s(4, unit="packets", metric="ucast"), 4, 1)]
    text = "".join(x.render(readings))
    assert [line.split()[2] for line in text.splitlines() if line.startswith("# TYPE")] == [
        "cellar_cells_total", "cellar_octets_total", "cellar_packets_total"]
    families = {f.name: len(f.samples) for f in text_string_to_metric_families(text)}
    assert families == {"cellar_cells": 2, "cellar_octets": 1, "cellar_packets": 1}
    assert list(x.render([])) == []


def test_series_that_would_share_labels_also_carry_their_object():
    a, b, c = s(1, obj="pathCells"), s(2, obj="pathShmem2Cells"), s(3, port="A2")
    assert x.shared([a, b, c]) == {1, 2}
    assert x.shared([a, s(4, unit="octets")]) == set()       # another family: no clash
    text = "".join(x.render([Reading(a, 1, 1), Reading(b, 2, 1), Reading(c, 3, 1)], x.shared([a, b, c])))
    assert 'metric="cells",object="pathCells"} 1 1' in text and 'object="pathShmem2Cells"} 2 1' in text
    assert 'port="A2",direction="in",metric="cells"} 3 1' in text
    (fam,) = text_string_to_metric_families(text)
    assert len({tuple(sorted(sample.labels.items())) for sample in fam.samples}) == 3
