"""SNMP session for Cellar: GET and table-column walks behind a small async interface.

    target = SnmpTarget("10.0.0.1", community="...")
    async with SnmpSession(target) as s:
        scalars = await s.get(["1.3.6.1.2.1.1.3.0", "1.3.6.1.2.1.1.1.0"])
        columns = await s.walk(["1.3.6.1.2.1.2.2.1.10", "1.3.6.1.2.1.2.2.1.16"])
        # {"1.3.6.1.2.1.2.2.1.10": {(1,): 123, (2,): 456}, ...}

Two interchangeable backends sit behind SnmpSession: ``fast`` (SNMPv1/v2c, chosen
automatically; collector/core/snmp_fast.py) and ``pysnmp`` (SNMPv3, or any version when asked
for; collector/core/snmp_pysnmp.py). Both feed the same GET / walk logic below, so their
behaviour (chunking, error handling, loop protection, value mapping) is identical and tested
against each other. Which backend "auto" means is the caller's choice (CELLAR_SNMP_BACKEND is
read by the settings, never here).
"""

from __future__ import annotations

from collections.abc import Sequence

from collector.core import snmp_codec as codec
from collector.core.snmp_codec import VarBindException
from collector.core.snmp_fast import FastBackend
from collector.core.snmp_pysnmp import PysnmpBackend
from collector.core.snmp_types import (
    SnmpConfigError,
    SnmpProtocolError,
    SnmpStats,
    SnmpTarget,
    Value,
    raw_oid,
    status_error,
    validate_target,
)

MAX_GET_VARBINDS = 40             # varbinds per GET PDU
MAX_WALK_COLUMNS = 40             # columns per GETNEXT/GETBULK PDU
MAX_REPETITIONS_CAP = 1000        # never ask for more repetitions than this
MAX_BULK_VARBINDS = 250           # columns x repetitions asked for in one GETBULK
DEFAULT_MAX_WALK_VARBINDS = 1_000_000
BACKENDS = ("auto", "fast", "pysnmp")

class _Column:
    __slots__ = ("key", "prefix", "plen", "last", "last_index", "rows")

    def __init__(self, key: str, prefix: bytes):
        self.key = key
        self.prefix = prefix
        self.plen = len(prefix)
        self.last = prefix
        self.last_index: tuple = ()
        self.rows: dict = {}


class SnmpSession:
    """An SNMP conversation with one agent. Safe to share between tasks of one loop."""

    def __init__(self, target: SnmpTarget, engine: object = None, *, backend: str = "auto",
                 max_walk_varbinds: int = DEFAULT_MAX_WALK_VARBINDS):
        validate_target(target)
        if backend not in BACKENDS:
            raise SnmpConfigError(f"unknown SNMP backend {backend!r}")
        if backend == "auto":
            backend = "pysnmp" if target.version == "3" else "fast"
        if backend == "fast" and target.version == "3":
            raise SnmpConfigError("the fast backend speaks SNMPv1/v2c only")
        self.target = target
        self.stats = SnmpStats()
        self.max_walk_varbinds = max_walk_varbinds
        if backend == "fast":
            self._backend: FastBackend | PysnmpBackend = FastBackend(target, self.stats)
        else:
            self._backend = PysnmpBackend(target, self.stats, engine)

    @property
    def backend(self) -> str:
        return self._backend.name

    def __repr__(self) -> str:
        return f"<SnmpSession {self.target.label} v{self.target.version} {self.backend}>"

    async def __aenter__(self) -> SnmpSession:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._backend.close()

    async def _request(self, pdu_type: int, names: list, max_repetitions: int = 0):
        status, index, varbinds = await self._backend.request(pdu_type, names, max_repetitions)
        if status:
            self.stats.error_status += 1
        return status, index, varbinds

    # -- GET -----------------------------------------------------------------------------
    async def get(self, oids: Sequence[str]) -> dict[str, Value]:
        """GET the given instances; missing ones (noSuchObject/Instance) map to None."""
        if isinstance(oids, str):
            raise SnmpConfigError("get() wants a sequence of OIDs, not a string")
        raws = {oid: raw_oid(oid) for oid in oids}
        unique = list(dict.fromkeys(raws.values()))
        values: dict[bytes, Value] = {}
        for i in range(0, len(unique), MAX_GET_VARBINDS):
            await self._get_chunk(unique[i:i + MAX_GET_VARBINDS], values)
        return {oid: values[raw] for oid, raw in raws.items()}

    async def _get_chunk(self, names: list, values: dict) -> None:
        pending = list(names)
        label = self.target.label
        while pending:
            status, index, varbinds = await self._request(codec.GET, pending)
            if status:
                if status == 2 and 1 <= index <= len(pending):
                    # SNMPv1 style "no such name": that instance is absent; ask the rest.
                    values[pending.pop(index - 1)] = None
                    continue
                if status == 1 and len(pending) > 1:       # tooBig: split
                    half = len(pending) // 2
                    await self._get_chunk(pending[:half], values)
                    await self._get_chunk(pending[half:], values)
                    return
                culprit = (f" at {codec.raw_to_str(pending[index - 1])}"
                           if 1 <= index <= len(pending) else "")
                raise status_error(label, "GET", status, culprit)
            if len(varbinds) != len(pending):
                raise SnmpProtocolError(
                    f"{label} answered a GET of {len(pending)} OIDs with {len(varbinds)}")
            for req, (name, value) in zip(pending, varbinds):
                if name != req:
                    raise SnmpProtocolError(
                        f"{label} answered GET {codec.raw_to_str(req)} with "
                        f"{codec.raw_to_str(name)}")
                values[req] = None if isinstance(value, VarBindException) else value
            return

    # -- WALK ----------------------------------------------------------------------------
    async def walk(self, columns: Sequence[str], *, expected_rows: int | None = None, ordered: bool = True
                   ) -> dict[str, dict[tuple[int, ...], Value]]:
        """Walk table columns (OID subtrees): {column: {index tuple: value}}.

        v2c/v3 use GETBULK with up to MAX_WALK_COLUMNS columns per request, each column
        advanced independently and dropped when it leaves its subtree; v1 uses GETNEXT.
        Repetitions per request: target.max_repetitions, lowered so that columns x
        repetitions <= MAX_BULK_VARBINDS.  ``expected_rows`` (e.g. the port count known
        from the last poll) sizes the first GETBULK so that a table of that many rows
        usually takes one request without overshooting into the following columns.
        Raises SnmpProtocolError on non-increasing OIDs or after max_walk_varbinds.
        ``ordered=False`` accepts an agent that answers a table out of OID order (a Ruijie N18010
        lists lldpRemTable by local port, not by time mark; net-snmp's snmpwalk -Cc): a row is
        taken as long as it was not seen before, and a column ends at the first repeated row.
        """
        if isinstance(columns, str):
            raise SnmpConfigError("walk() wants a sequence of column OIDs, not a string")
        cols: dict[str, _Column] = {}
        for c in columns:
            if c not in cols:
                cols[c] = _Column(c, raw_oid(c))
        active = list(cols.values())
        label = self.target.label
        bulk = self.target.version != "1"
        reps = max(1, min(self.target.max_repetitions, MAX_REPETITIONS_CAP))
        first_reps = reps if expected_rows is None else max(1, expected_rows + 1)
        width = MAX_WALK_COLUMNS
        budget = self.max_walk_varbinds
        total = 0
        subids_get = codec.SUBID_CACHE.get
        while active:
            batch = active[:width]
            n = len(batch)
            names = [c.last for c in batch]
            if bulk:
                asked = max(1, min(reps, first_reps, MAX_BULK_VARBINDS // n))
                first_reps = reps
                status, index, varbinds = await self._request(codec.GETBULK, names, asked)
            else:
                status, index, varbinds = await self._request(codec.GETNEXT, names)
            if status:
                if status == 2 and 1 <= index <= n:
                    # v1 end of MIB view (or agent refusing the column): column is done
                    active.remove(batch[index - 1])
                    continue
                if status == 1:                         # tooBig: ask for less
                    if bulk and asked > 1:
                        reps = asked // 2
                        continue
                    if width > 1 and n > 1:
                        width = max(1, n // 2)
                        continue
                raise status_error(label, "GETBULK" if bulk else "GETNEXT", status)
            nvb = len(varbinds)
            if nvb == 0 or nvb > (n * asked if bulk else n) or (not bulk and nvb != n):
                raise SnmpProtocolError(
                    f"{label} answered a walk request for {n} columns with {nvb} varbinds")
            done = []
            for j, col in enumerate(batch):
                prefix = col.prefix
                plen = col.plen
                last_index = col.last_index
                rows = col.rows
                before = len(rows)
                last = None
                finished = False
                for name, value in (varbinds[j::n] if n > 1 else varbinds):
                    if value.__class__ is VarBindException or not name.startswith(prefix):
                        finished = True
                        break
                    suffix = name[plen:]
                    index_ = tuple(suffix) if suffix.isascii() else (subids_get(suffix) or codec.raw_subids(suffix))
                    if index_ <= last_index:
                        if ordered:
                            raise SnmpProtocolError(
                                f"{label} returned non-increasing OID "
                                f"{codec.raw_to_str(name)} while walking {col.key}")
                        if index_ in rows:              # back to a row already read: a loop, stop
                            finished = True
                            break
                    rows[index_] = value
                    last_index = index_
                    last = name
                if last is not None:
                    total += len(rows) - before
                    col.last = last
                    col.last_index = last_index
                if finished:
                    done.append(col)
            if total > budget:
                raise SnmpProtocolError(
                    f"walk of {label} exceeded {budget} varbinds; giving up")
            for col in done:
                active.remove(col)
        return {key: col.rows for key, col in cols.items()}
