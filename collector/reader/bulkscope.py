"""Which series a bulk export holds: a switch (or several), a group, a list of series or the whole
network, and the order its rows come in.

The scope is one of four kinds, never two at once (BadRequest says so): `switches` (every counter
series of each named switch), `group` (its members as collector/groups resolve gives them at the
window's start: a series gone before then is left out), `series` (ids) or `all` (every counter
series of the archive, gone ones included: they may have data in the window). Series come in the
order the exports write them: by switch name, port (natural order: 'Gi1/0/10' after 'Gi1/0/9'),
VPI, VCI, direction, metric, id.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from collector.archive.models import Series
from collector.groups.resolve import GroupError
from collector.groups.resolve import resolve as resolve_group
from collector.inventory.models import Switch
from collector.reader import catalog
from collector.reader.catalog import SeriesInfo, UnknownSeries
from collector.reader.selection import BadRequest

KINDS = ("switches", "group", "series", "all")


@dataclass(frozen=True)
class Scope:
    switches: tuple[str, ...] = ()
    group: str = ""                 # a group's id or name
    series: tuple[int, ...] = ()
    all: bool = False

    def kinds(self) -> list[str]:
        return [k for k, given in zip(KINDS, (self.switches, self.group, self.series, self.all)) if given]

    def check(self) -> None:
        """BadRequest unless exactly one kind of scope is given."""
        kinds = self.kinds()
        if not kinds:
            raise BadRequest("say what to export: a switch (switch=NAME, --switch), a group (g=ID, --group), "
                             "series (s=ID,..., --series) or the whole network (all=1, --all)")
        if len(kinds) > 1:
            raise BadRequest(f"give one scope, not {' and '.join(kinds)}: a switch, a group, series or all")

    @property
    def text(self) -> str:
        """'switch asx200bx', 'group 7', '3 series', 'the whole network'."""
        if self.switches:
            return f"switch{'es' if len(self.switches) > 1 else ''} {', '.join(self.switches)}"
        if self.group:
            return f"group {self.group}"
        if self.series:
            return f"{len(self.series)} series"
        return "the whole network"

    def query(self) -> str:
        """The scope as the web's query parameters (switch=, g=, s=, all=1)."""
        if self.switches:
            return urlencode([("switch", name) for name in self.switches])
        if self.group:
            return urlencode([("g", self.group)])
        if self.series:
            return "s=" + ",".join(map(str, self.series))
        return "all=1"


def parse_ids(text: str, name: str = "s") -> tuple[int, ...]:
    """'12,13' -> (12, 13); BadRequest for anything else (no count limit: series_of has one)."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or any(not p.isdigit() for p in parts):
        raise BadRequest(f"{name}={text!r}: give series ids separated by commas (e.g. {name}=12,13)")
    return tuple(dict.fromkeys(int(p) for p in parts))


def order_key(s: SeriesInfo) -> tuple:
    return (s.switch, catalog.natural(s.port or s.index), -1 if s.vpi is None else s.vpi,
            -1 if s.vci is None else s.vci, s.direction, s.metric, s.id)


def series_of(scope: Scope, at: datetime, max_series: int) -> list[SeriesInfo]:
    """The scope's counter series in export order; BadRequest for an unknown switch, group or
    series, an empty scope, or more than max_series series (the message names both numbers)."""
    scope.check()
    ids = _ids(scope, at)
    if not ids:
        raise BadRequest(f"{scope.text} has no counter series (nothing polled yet)")
    if len(ids) > max_series:
        raise BadRequest(f"{scope.text} has {len(ids):,} series; a bulk export holds at most {max_series:,} "
                         "(CELLAR_BULK_EXPORT_MAX_SERIES): export switches or groups one at a time")
    try:
        found = catalog.load_series(ids)
    except UnknownSeries as exc:
        raise BadRequest(str(exc)) from None
    return sorted(found, key=order_key)


def _ids(scope: Scope, at: datetime) -> list[int]:
    counters = Series.objects.filter(kind="counter").order_by("id")
    if scope.switches:
        known = dict(Switch.objects.filter(name__in=scope.switches).values_list("name", "id"))
        missing = [name for name in scope.switches if name not in known]
        if missing:
            raise BadRequest(f"unknown switch{'es' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
                             "(the inventory's names: /status/ or manage.py export --help)")
        ids = list(counters.filter(switch_id__in=known.values()).values_list("id", flat=True))
        empty = set(known) - set(Switch.objects.filter(series__id__in=ids).values_list("name", flat=True))
        if ids and empty:
            raise BadRequest(f"nothing polled on {', '.join(sorted(empty))} yet")
        return ids
    if scope.group:
        try:
            return resolve_group(int(scope.group) if scope.group.isdigit() else scope.group, at=at).series_ids
        except GroupError as exc:
            raise BadRequest(str(exc)) from None
    if scope.series:
        known_ids = set(counters.filter(id__in=scope.series).values_list("id", flat=True))
        missing_ids = [i for i in scope.series if i not in known_ids]
        if missing_ids:
            raise BadRequest(str(UnknownSeries(missing_ids)))
        return list(dict.fromkeys(scope.series))
    return list(counters.values_list("id", flat=True))
