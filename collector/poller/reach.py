"""Which process may send a poller group's packets: the guard before every poll, discovery, host
check and probe.

A poller group may be bound to a network namespace (GroupNamespace): the simulated network of
`make run` lives in one, where its unreachable host sits behind a link that is down. From the
machine's own namespace that address would be routed off the machine, and the simulated switches'
loopback addresses would reach nothing or something else. So a process outside a group's
namespace never sends that group's packets: it refuses (Elsewhere), and work asked from the web
goes to the group's queue, whose worker runs inside (collector/poller/jobs.py).
"""
from __future__ import annotations

import time

from django.db import DatabaseError

from collector.core import netns
from collector.poller.models import GroupNamespace

CACHE_S = 10.0
_bound: dict[str, tuple[float, str | None]] = {}


class Elsewhere(Exception):
    """This process is not in the network of the object's poller group; str() says where to run."""


def namespace_of(group: str) -> str | None:
    """The namespace the group is bound to, or None (served from anywhere). Read at most every
    CACHE_S seconds; while the database is away, the last answer (or None for a group never read)."""
    now = time.monotonic()
    cached = _bound.get(group)
    if cached is not None and now - cached[0] < CACHE_S:
        return cached[1]
    try:
        found = GroupNamespace.objects.filter(group=group).values_list("netns", flat=True).first()
    except DatabaseError:
        return cached[1] if cached is not None else None
    _bound[group] = (now, found)
    return found


def forget() -> None:
    _bound.clear()


def served_here(group: str) -> bool:
    bound = namespace_of(group)
    return bound is None or bound == netns.current()


def check(group: str, what: str) -> None:
    """Elsewhere unless this process may send packets for `what` (e.g. "switch asx200bx")."""
    bound = namespace_of(group)
    if bound is None:
        return
    here = netns.describe()
    if bound != here:
        raise Elsewhere(
            f"{what} is in poller group {group!r}, whose network is namespace {bound}; this process runs in "
            f"namespace {here} and does not send that group's packets. Run the command inside it "
            f"(ip netns exec {bound} ...; scripts/simnet-exec.sh for the simulated network) or use the web page, "
            f"whose jobs go to the group's worker")


def bind(group: str, name: str | None) -> None:
    """Record (name) or drop (None) the namespace a group's worker runs in."""
    if name is None:
        GroupNamespace.objects.filter(group=group).delete()
    else:
        GroupNamespace.objects.update_or_create(group=group, defaults={"netns": name})
    _bound.pop(group, None)
