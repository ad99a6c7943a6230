"""Table 2d's order sorted by the database (views/connections.TABLE_2D_ORDER) is the order
porttable.port_sort_key gives in Python: switch names and port names in code point order, numeric
port keys first and by number, VPI, then VCI with a VP cross-connect (no VCI) first."""
from __future__ import annotations

import itertools

import pytest
from django.test import RequestFactory

from collector.inventory.models import CrossConnect, Port, Switch
from webapp.status.porttable import port_sort_key
from webapp.status.views.connections import _pvc_candidates

pytestmark = pytest.mark.django_db

SWITCHES = ("fore-b", "Fore-a", "ärger", "fore-a10", "fore-a9")
PORTS = (("10", "1A4"), ("9", "1A3"), ("2", "B1"), ("A1", "A1"), ("1A", "a2"), ("100000000000000000000", "big"),
         ("007", "Z7"))


def python_order(xcs: list[CrossConnect]) -> list[int]:
    """The sort the view did in Python before the database did it."""
    return [x.id for x in sorted(xcs, key=lambda x: (x.switch.name, port_sort_key(x.in_port), x.in_vpi,
                                                     -1 if x.in_vci is None else x.in_vci))]


def test_the_database_sorts_table_2d_as_python_did():
    xcs = []
    for n, name in enumerate(SWITCHES):
        sw = Switch.objects.create(name=name, address=f"192.0.2.{n + 1}")
        ports = [Port.objects.create(switch=sw, key=k, name=pn) for k, pn in PORTS]
        out = ports[0]
        for i, (p, vpi, vci) in enumerate(itertools.product(ports, (1, 0), (None, 300, 32))):
            if (i + n) % 3 == 0:
                continue                     # not every combination, in no particular order
            xcs.append(CrossConnect.objects.create(switch=sw, kind="vp" if vci is None else "vc", in_port=p,
                                                   in_vpi=vpi, in_vci=vci, out_port=out, out_vpi=vpi + 7,
                                                   out_vci=None if vci is None else vci + n))
    got = [r[0] for r in _pvc_candidates(RequestFactory().get("/pvcs/"))]
    assert got == python_order(xcs) and len(got) > 100
    one = Switch.objects.get(name="fore-a9")
    got = [r[0] for r in _pvc_candidates(RequestFactory().get("/pvcs/"), one.id)]
    assert got == python_order([x for x in xcs if x.switch_id == one.id])
    vp = [r[0] for r in _pvc_candidates(RequestFactory().get("/pvcs/?kind=vp&switch=ärger"))]
    assert vp == python_order([x for x in xcs if x.kind == "vp" and x.switch.name == "ärger"]) and vp
    text = [r[0] for r in _pvc_candidates(RequestFactory().get("/pvcs/?q=1a4"))]
    assert text == python_order([x for x in xcs if x.in_port.name == "1A4" or x.out_port.name == "1A4"])
