"""collector/reader/catalog.py: series named as operators name them."""
from __future__ import annotations

from dataclasses import replace

from tests.webapp.traffic.examples import AAL5, CELLS, IP, PKTS, VC


def test_labels_read_like_the_1995_picker():
    assert CELLS.label == "asx A1 Receive"
    assert replace(CELLS, direction="out").label == "asx A1 Transmit"
    assert VC.label == "asx A1 Receive VP:0 VC:15"
    assert replace(CELLS, vpi=0, port_level=False).label == "asx A1 Receive VP:0"
    assert IP.label == "asx eth0 Receive"
    assert PKTS.label == "asx eth0 Receive unicast packets"
    assert AAL5.label == "asx A1 Receive VP:0 VC:100 octets"
