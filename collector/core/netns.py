"""Which network namespace this process runs in, in words for messages: pure, no Django.

A poller reaches what its network namespace routes to. Cellar's simulated network runs in a
namespace of its own (`ip netns add` binds it at /run/netns/NAME), everything else in the
machine's own (the namespace of PID 1). Failures are reported with where the poller stood, and a
poller group bound to a namespace is served only from inside it (collector/poller/reach.py).
"""
from __future__ import annotations

import os
from pathlib import Path

NETNS_DIR = Path("/run/netns")
ROOT = "root"       # the machine's own namespace, as messages and the bindings name it


def _inode(path: str | os.PathLike) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def current(prefix: str = "") -> str | None:
    """The name under /run/netns of this process's namespace (only names starting with
    `prefix`), ROOT for the namespace of PID 1, None for a namespace nobody named.

    Where PID 1's namespace cannot be read (a micro-VM's init, a container), a namespace that has
    no name under /run/netns counts as the machine's own: `ip netns` names every other one."""
    mine = _inode("/proc/self/ns/net")
    if mine is None:
        return None
    init = _inode("/proc/1/ns/net")
    if mine == init:
        return ROOT
    try:
        entries = sorted(NETNS_DIR.glob(f"{prefix}*"))
    except OSError:
        entries = []
    for path in entries:
        if _inode(path) == mine:
            return path.name
    if init is None and not any(_inode(p) == mine for p in _all_named()):
        return ROOT
    return None


def _all_named() -> list[Path]:
    try:
        return list(NETNS_DIR.iterdir())
    except OSError:
        return []


def describe() -> str:
    """This process's namespace for a message: 'root', a name, or 'unnamed'."""
    return current() or "unnamed"


def exists(name: str) -> bool:
    return name == ROOT or (NETNS_DIR / name).exists()
