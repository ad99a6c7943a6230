"""A local disk spool for poll results the database could not take.

When PostgreSQL is down the poller keeps polling: each PollResult (raw readings, not yet
derived) is appended to CELLAR_SPOOL_DIR/<switch_id>.jsonl. While a switch has a spool, newer
results are appended behind it, so results are always derived and written in poll order;
`drain` replays them through the normal ingest once the database answers. A line that cannot
be parsed (a torn write at a crash) is moved to a .bad file for inspection, never dropped
silently and never allowed to block the rest.
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from collector.core.poll import PollResult

log = logging.getLogger(__name__)


def _path(switch_id: int) -> Path:
    return Path(settings.CELLAR_SPOOL_DIR) / f"{int(switch_id)}.jsonl"


@contextmanager
def _locked(switch_id: int) -> Iterator[Path]:
    path = _path(switch_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield path
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def pending(switch_id: int) -> bool:
    path = _path(switch_id)
    return path.exists() and path.stat().st_size > 0


def last(switch_id: int) -> PollResult | None:
    """The newest spooled result, or None (also for an unreadable last line)."""
    try:
        line = _path(switch_id).read_text().splitlines()[-1]
        return PollResult.from_json(json.loads(line))
    except (OSError, IndexError, ValueError, KeyError, TypeError):
        return None


def append(result: PollResult) -> None:
    with _locked(result.switch_id) as path:
        with open(path, "a+b") as fh:
            # A crash mid-write leaves a line without its newline: end it, so that this
            # result is not glued to the torn one (drain sets the torn line aside).
            fh.seek(0, os.SEEK_END)
            if fh.tell():
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    fh.write(b"\n")
            fh.write(json.dumps(result.to_json(), separators=(",", ":")).encode() + b"\n")
            fh.flush()
            os.fsync(fh.fileno())


def drain(switch_id: int, ingest: Callable[[PollResult], object], limit: int = 100_000) -> int:
    """Replay spooled results in order; stop at the first failure, keeping the rest.

    Returns how many were replayed. Bounded by `limit` per call so one huge spool cannot hold a
    worker forever; the next poll continues where this one stopped.
    """
    with _locked(switch_id) as path:
        if not path.exists():
            return 0
        lines = path.read_text().splitlines()
        done = 0
        try:
            for line in lines[:limit]:
                try:
                    result = PollResult.from_json(json.loads(line))
                except (ValueError, KeyError, TypeError):
                    with open(path.with_suffix(".bad"), "a") as bad:
                        bad.write(line + "\n")
                    log.error("spool %s: unreadable line moved to %s", path, path.with_suffix(".bad"))
                    done += 1
                    continue
                ingest(result)
                done += 1
        finally:
            rest = lines[done:]
            tmp = path.with_suffix(".tmp")
            tmp.write_text("".join(line + "\n" for line in rest))
            os.replace(tmp, path)
            if not rest:
                path.unlink(missing_ok=True)
        return done
