"""Where nodes are drawn: positions people stored, and for the others a force-directed layout that
is the same at every visit for the same network (networkx spring_layout, fixed seed, stored nodes
held fixed), so the map does not move about between visits."""
from __future__ import annotations

import hashlib

import redis
from django.core.cache import cache

from collector.inventory.mappositions import HEIGHT, WIDTH

MARGIN = 40.0
SEED = 13
# Nodes a spring layout is run on at most (~1 s here; it grows with the square of the nodes: 3,050
# nodes took 33 s, minutes under load, in the first visit of the map of figure 13). A larger part
# of the network is drawn from its core: leaves (access switches, hosts) are stripped, round after
# round, until the core is small enough; the core gets the spring layout (or, if it has no leaves
# left and is still larger, a circle), and each stripped node goes on a small ring around the
# neighbour it hung from.
SPRING_MAX = 400


def _to_unit(x: float, y: float) -> tuple[float, float]:
    return ((x - MARGIN) / (WIDTH - 2 * MARGIN) * 2 - 1, (y - MARGIN) / (HEIGHT - 2 * MARGIN) * 2 - 1)


def _from_unit(u: float, v: float) -> tuple[float, float]:
    u, v = max(-1.0, min(1.0, u)), max(-1.0, min(1.0, v))
    return (round(float(MARGIN + (u + 1) / 2 * (WIDTH - 2 * MARGIN)), 1),
            round(float(MARGIN + (v + 1) / 2 * (HEIGHT - 2 * MARGIN)), 1))


def _packed(g) -> dict[str, tuple[float, float]]:
    """Each connected part laid out on its own (spring layout, fixed seed), the parts side by side
    in rows, largest first, each in a square cell sized by its number of nodes: a network of
    several islands does not drift into the corners."""
    import math

    import networkx as nx

    parts = sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: (-len(c), c[0]))
    sides = [math.sqrt(len(c)) for c in parts]
    # rows about as wide as the drawing area's shape asks for the parts' total area
    aspect = (WIDTH - 2 * MARGIN) / (HEIGHT - 2 * MARGIN)
    row_width = max(max(sides), 1.1 * math.sqrt(sum(x * x for x in sides) * aspect))
    cells, x, y, row_h = [], 0.0, 0.0, 0.0
    for side in sides:
        if x > 0 and x + side > row_width + 1e-9:
            x, y, row_h = 0.0, y + row_h, 0.0
        cells.append((x, y, side))
        x, row_h = x + side, max(row_h, side)
    total_w, total_h = max(cx + s for cx, _, s in cells), max(cy + s for _, cy, s in cells)
    scale = min((WIDTH - 2 * MARGIN) / total_w, (HEIGHT - 2 * MARGIN) / total_h)
    out = {}
    for part, (cx, cy, side) in zip(parts, cells):
        if len(part) == 1:
            local = {part[0]: (0.0, 0.0)}
        else:
            local = bounded_spring(g.subgraph(part))
        for n, (u, v) in local.items():
            px = MARGIN + (cx + side * (0.5 + 0.4 * u)) * scale
            py = MARGIN + (cy + side * (0.5 + 0.4 * v)) * scale
            out[n] = (round(float(px), 1), round(float(py), 1))      # plain floats: numpy's do not serialise
    return out


def bounded_spring(part) -> dict[str, tuple[float, float]]:
    """Positions in [-1, 1] of one connected part; a spring layout of at most SPRING_MAX nodes."""
    import math

    import networkx as nx

    core = nx.Graph(part)
    stripped: list[list[tuple[str, str]]] = []          # per round: (leaf, the node it hung from)
    while core.number_of_nodes() > SPRING_MAX:
        leaves = sorted(n for n in core if core.degree(n) == 1)
        if not leaves or len(leaves) == core.number_of_nodes():
            break
        stripped.append([(n, next(iter(core[n]))) for n in leaves])
        core.remove_nodes_from(leaves)
    if core.number_of_nodes() <= SPRING_MAX:
        pos = nx.spring_layout(core, seed=SEED, iterations=80, k=1.2 / math.sqrt(core.number_of_nodes()))
    else:
        pos = nx.circular_layout(sorted(core))
    at = {n: (float(x), float(y)) for n, (x, y) in pos.items()}
    # Rings shrink as rounds go outwards; a ring's radius also shrinks with a crowded core.
    radius = 0.6 / math.sqrt(max(1, core.number_of_nodes()))
    for leaves in reversed(stripped):
        children: dict[str, list[str]] = {}
        for leaf, parent in leaves:
            children.setdefault(parent, []).append(leaf)
        for parent, kids in children.items():
            px, py = at[parent]
            for i, kid in enumerate(kids):
                angle = 2 * math.pi * (i + 0.5) / len(kids)
                at[kid] = (px + radius * math.cos(angle), py + radius * math.sin(angle))
        radius *= 0.5
    span = max(1e-9, max(max(abs(x), abs(y)) for x, y in at.values()))
    return {n: (x / span, y / span) for n, (x, y) in at.items()}


CACHE_S = 7 * 86400
VERSION = 3                 # of the layout rules: a change computes every cached layout again


def place(nodes: list[str], edges: list[tuple[str, str]], stored: dict[str, tuple[float, float]],
          fresh: bool = False) -> dict[str, tuple[float, float]]:
    """Position of every node: its stored one, else where the layout puts it. The layout of a given
    network (nodes, edges, stored positions) is computed once and kept in the cache (seconds for
    hundreds of nodes); redis away, it is computed again, the same. `fresh`: compute it again."""
    placed = {n: stored[n] for n in nodes if n in stored}
    if len(placed) == len(nodes):
        return placed
    shape = repr((sorted(nodes), sorted(edges), sorted(placed.items())))
    key = f"map-layout-{VERSION}-" + hashlib.sha256(shape.encode()).hexdigest()
    try:
        cached = None if fresh else cache.get(key)
    except redis.RedisError:        # the cache does not answer: compute it
        cached = None
    if cached is not None and set(cached) == set(nodes):
        return {n: (float(xy[0]), float(xy[1])) for n, xy in cached.items()}
    out = _layout(nodes, edges, placed)
    try:
        cache.set(key, out, CACHE_S)
    except redis.RedisError:
        pass
    return out


def _layout(nodes: list[str], edges: list[tuple[str, str]], placed: dict[str, tuple[float, float]]
            ) -> dict[str, tuple[float, float]]:
    import networkx as nx  # only when some node has no stored position

    g = nx.Graph()
    g.add_nodes_from(sorted(nodes))
    g.add_edges_from(sorted((a, b) for a, b in edges if a in g and b in g and a != b))
    if not placed:
        return _packed(g)
    if len(nodes) > SPRING_MAX:
        # Too many for a spring layout around the stored nodes: the packed layout, stored ones kept.
        return {**_packed(g), **placed}
    fixed = sorted(placed)
    start = {n: _to_unit(*xy) for n, xy in placed.items()}
    k = 1.6 / max(1.0, len(nodes) ** 0.5)
    pos = nx.spring_layout(g, pos=start, fixed=fixed, seed=SEED, iterations=60, k=k)
    return {n: placed.get(n) or _from_unit(*pos[n]) for n in nodes}
