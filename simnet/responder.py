"""Entry point for one snmpsim agent: ``python -m simnet.responder <snmpsim args>``.

Why not the `snmpsim-command-responder` script directly:

* As root snmpsim must drop privileges (--process-user/--process-group).  It does so
  with seteuid() *before* it builds its record index, and this venv's Python lives under
  /root/.pyenv (mode 0700 /root): every standard-library module imported lazily after
  the drop (dbm.dumb for the index, encodings.idna ...) then fails with "No module named".
  So the modules snmpsim/pysnmp import lazily are imported here first, while still root.
  Set SIMNET_IMPORT_DEBUG=1 to log imports attempted after the privilege drop.
* A watchdog thread exits the agent when its parent (the simnet supervisor or a test
  process) goes away, so agents never outlive their network.  (PR_SET_PDEATHSIG would
  be cleared by snmpsim's setuid.)
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time

PRELOAD = (
    "dbm", "dbm.gnu", "dbm.ndbm", "dbm.dumb", "encodings.latin_1", "encodings.ascii",
    "encodings.utf_8", "encodings.idna", "stringprep", "unicodedata", "math", "random",
    "bz2", "json", "hmac", "hashlib", "uuid", "secrets", "struct", "binascii", "zlib",
    "logging.handlers", "socket", "select", "selectors", "ipaddress", "string", "textwrap",
    "snmpsim.record.snmprec", "snmpsim.record.search.database",
    "snmpsim.record.search.file", "snmpsim.grammar.snmprec",
)


class _LateImportSpy:
    """meta_path hook that reports imports attempted after privileges were dropped."""

    def find_spec(self, name, path=None, target=None):
        if os.geteuid() != 0:
            sys.stderr.write(f"simnet.responder: late import {name}\n")
        return None


def _preload() -> None:
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    import dbm
    # make dbm.open() pick among modules that are really importable (a private attribute: typeshed lacks it)
    dbm._defaultmod = None  # type: ignore[attr-defined]  # noqa: SLF001


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def main(argv: list[str] | None = None) -> int:
    _preload()
    from snmpsim.commands import responder
    if os.environ.get("SIMNET_IMPORT_DEBUG"):
        sys.meta_path.insert(0, _LateImportSpy())
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    sys.argv = ["snmpsim-command-responder", *(sys.argv[1:] if argv is None else argv)]
    return responder.main() or 0


if __name__ == "__main__":
    sys.exit(main())
