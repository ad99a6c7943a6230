"""webapp/topology/drawing.py: a big network is laid out in bounded work (a spring layout of at most
SPRING_MAX nodes; figure 13's 3,050-node map took 33 s with one spring layout of everything), every
node placed, apart from the others, inside the drawing, the same at every visit."""
from __future__ import annotations

import networkx as nx
import pytest

from collector.inventory.mappositions import HEIGHT, WIDTH
from webapp.topology import drawing


def _campus(core: int, per_core: int, hosts: int) -> nx.Graph:
    """A ring of core switches, access switches hanging from them, a host on some access switches."""
    g = nx.cycle_graph([f"core{i}" for i in range(core)])
    for i in range(core * per_core):
        g.add_edge(f"acc{i}", f"core{i % core}")
    for h in range(hosts):
        g.add_edge(f"host{h}", f"acc{h}")
    return g


@pytest.mark.parametrize("graph, largest_spring", [
    (_campus(50, 40, 1000), 50),                 # 3,050 nodes: the ring alone gets the spring layout
    (_campus(10, 3, 20), 60),                    # small: one spring layout of the whole part, as before
    (nx.cycle_graph([f"r{i}" for i in range(450)]), 0),   # no leaves to strip, above SPRING_MAX: a circle
])
def test_layouts_are_bounded_complete_apart_and_stable(graph, largest_spring, monkeypatch):
    sizes = []
    spring = nx.spring_layout

    def counted(g, *args, **kwargs):
        sizes.append(g.number_of_nodes())
        return spring(g, *args, **kwargs)

    monkeypatch.setattr(nx, "spring_layout", counted)
    out = drawing._packed(graph)
    assert max(sizes, default=0) == largest_spring <= drawing.SPRING_MAX
    assert set(out) == set(graph)
    assert len(set(out.values())) == len(out)                     # no two nodes on one point
    assert all(0 <= x <= WIDTH and 0 <= y <= HEIGHT for x, y in out.values())
    assert drawing._packed(graph) == out                           # the same at every visit


def test_a_big_network_with_stored_positions_keeps_them():
    graph = _campus(50, 10, 0)
    stored = {"core0": (100.0, 100.0), "acc7": (300.0, 200.0)}
    out = drawing._layout(list(graph), list(graph.edges), stored)
    assert out["core0"] == (100.0, 100.0) and out["acc7"] == (300.0, 200.0) and set(out) == set(graph)
