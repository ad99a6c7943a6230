"""Where the network map draws each node: positions someone placed, kept between visits.

The map (webapp/topology) reads them, and places every node nobody placed yet around them,
the same way at every visit (webapp/topology/drawing.py); an operator who drags a node stores
its position here. Coordinates are those of the map's drawing area, WIDTH x HEIGHT.
"""
from __future__ import annotations

import math
import re

from django.db import transaction
from django.utils import timezone

from collector.inventory.models import Host, MapPosition, Switch

WIDTH, HEIGHT = 1000.0, 700.0
MAX_NODES = 2000                 # positions one request may store
NODE = re.compile(r"^(switch|host):(\d{1,10})$")


class LayoutError(ValueError):
    pass


def positions() -> dict[str, tuple[float, float]]:
    return {node: (x, y) for node, x, y in MapPosition.objects.values_list("node", "x", "y")}


def save(moved: object, who: str) -> int:
    """Store {"switch:3": [x, y], ...}; every node must exist and lie in the drawing area."""
    if not isinstance(moved, dict) or not moved:
        raise LayoutError("positions: a mapping of node to [x, y]")
    if len(moved) > MAX_NODES:
        raise LayoutError(f"at most {MAX_NODES} positions at once ({len(moved)} given)")
    wanted: dict[str, tuple[float, float]] = {}
    ids: dict[str, set[int]] = {"switch": set(), "host": set()}
    for node, xy in moved.items():
        m = NODE.match(str(node))
        if not m or not isinstance(xy, list | tuple) or len(xy) != 2:
            raise LayoutError(f"{node!r}: a node is switch:<id> or host:<id>, its position [x, y]")
        try:
            x, y = float(xy[0]), float(xy[1])
        except (TypeError, ValueError):
            raise LayoutError(f"{node}: x and y are numbers") from None
        if not (math.isfinite(x) and math.isfinite(y) and 0 <= x <= WIDTH and 0 <= y <= HEIGHT):
            raise LayoutError(f"{node}: ({x}, {y}) is outside the map (0..{WIDTH:.0f}, 0..{HEIGHT:.0f})")
        ids[m.group(1)].add(int(m.group(2)))
        wanted[node] = (round(x, 1), round(y, 1))
    known = {f"switch:{i}" for i in Switch.objects.filter(id__in=ids["switch"]).values_list("id", flat=True)}
    known |= {f"host:{i}" for i in Host.objects.filter(id__in=ids["host"]).values_list("id", flat=True)}
    unknown = sorted(set(wanted) - known)
    if unknown:
        raise LayoutError(f"no such node: {', '.join(unknown[:10])}")
    now = timezone.now()
    with transaction.atomic():
        for node, (x, y) in wanted.items():
            MapPosition.objects.update_or_create(node=node, defaults={"x": x, "y": y, "moved_by": who[:150],
                                                                     "moved_at": now})
    return len(wanted)
