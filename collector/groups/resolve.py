"""resolve(): a group to its member series (and the ports, VPs and VCs they count), at a time.

The one way any part of Cellar turns a group into series: the plot (webapp/traffic, `g=`), top
talkers (webapp/talkers, `group=`), bills (collector/billing) and alert scopes all call it, so a
group means the same series everywhere. The rest of this module is its result types and errors.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db import connection

from collector.groups import rules
from collector.groups.models import Group

MAX_MEMBERS = 10_000        # series one group may hold (plots, rankings and bills read them all)


class GroupError(ValueError):
    """A group that cannot be used as asked; str() is the message for the user (a 400)."""


class GroupNotFound(GroupError, LookupError):
    pass


class EmptyGroup(GroupError):
    pass


class TooManyMembers(GroupError):
    pass


@dataclass(frozen=True)
class Spec:
    """A group as an edit form or an API call describes it, before (or instead of) saving it."""
    name: str
    series_ids: tuple[int, ...] = ()
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class MemberSeries:
    """One member counter series and what it counts (plain values: no ORM objects)."""
    id: int
    switch_id: int
    switch: str
    port_id: int | None
    port: str
    vp_id: int | None
    vc_id: int | None
    vpi: int | None
    vci: int | None
    direction: str
    metric: str
    unit: str
    capacity_per_s: int | None
    gone_at: datetime | None        # when the series, its port, VP or VC vanished (None: present)
    static: bool                    # chosen by hand (else only matched by rules)


@dataclass(frozen=True)
class MemberObject:
    """A port, VP or VC (or a switch-level counter's switch) that member series count."""
    kind: str                        # port | vp | vc | switch
    id: int
    switch: str
    port: str
    vpi: int | None
    vci: int | None


@dataclass(frozen=True)
class Members:
    group_id: int | None
    name: str
    at: datetime
    series: tuple[MemberSeries, ...]
    rule_counts: tuple[int, ...] = field(default=())     # series each rule line matched
    static_count: int = 0

    @property
    def series_ids(self) -> list[int]:
        return [s.id for s in self.series]

    @property
    def switch_ids(self) -> list[int]:
        return sorted({s.switch_id for s in self.series})

    @property
    def objects(self) -> list[MemberObject]:
        """The distinct ports, VPs and VCs counted, in member order."""
        seen: dict[tuple[str, int], MemberObject] = {}
        for s in self.series:
            if s.vc_id is not None:
                key = ("vc", s.vc_id)
            elif s.vp_id is not None:
                key = ("vp", s.vp_id)
            elif s.port_id is not None:
                key = ("port", s.port_id)
            else:
                key = ("switch", s.switch_id)
            seen.setdefault(key, MemberObject(key[0], key[1], s.switch, s.port, s.vpi, s.vci))
        return list(seen.values())


GONE = "least(s.gone_at, p.gone_at, vp.gone_at, vc.gone_at)"
SELECT = f"""
SELECT s.id, s.switch_id, sw.name, s.port_id, coalesce(p.name, ''), s.vp_id, s.vc_id, coalesce(vc.vpi, vp.vpi),
       vc.vci, s.direction, s.metric, s.unit, s.capacity_per_s, {GONE}, s.id = ANY(%(static)s),
       count(*) OVER () {{flags}}
  FROM traffic_series s
  JOIN inventory_switch sw ON sw.id = s.switch_id
  LEFT JOIN inventory_port p ON p.id = s.port_id
  LEFT JOIN inventory_virtualpath vp ON vp.id = s.vp_id
  LEFT JOIN inventory_virtualchannel vc ON vc.id = s.vc_id
 WHERE s.kind = 'counter' AND ({GONE} IS NULL OR {GONE} > %(at)s)
   AND (s.id = ANY(%(static)s) {{rules}})
 ORDER BY sw.name, s.port_id NULLS FIRST, coalesce(vc.vpi, vp.vpi) NULLS FIRST, vc.vci NULLS FIRST, s.direction,
          s.metric, s.id
 LIMIT %(limit)s"""


def _spec_of(group: Group | int | str | Spec) -> tuple[int | None, Spec]:
    if isinstance(group, Spec):
        return None, group
    if not isinstance(group, Group):
        found = (Group.objects.filter(pk=group).first() if isinstance(group, int) or str(group).isdigit()
                 else Group.objects.filter(name=group).first())
        if found is None:
            raise GroupNotFound(f"no group {group!r} (see /groups/)")
        group = found
    return group.id, Spec(group.name, tuple(group.members.values_list("series_id", flat=True)),
                          tuple(group.rules.order_by("position", "id").values_list("text", flat=True)))


def _check_static(ids: tuple[int, ...]) -> None:
    if not ids:
        return
    with connection.cursor() as cur:
        cur.execute("SELECT id FROM traffic_series WHERE kind = 'counter' AND id = ANY(%s)", [list(ids)])
        known = {row[0] for row in cur.fetchall()}
    missing = [i for i in ids if i not in known]
    if missing:
        raise GroupError(f"unknown counter series id{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(map(str, missing[:20]))}" + (" ..." if len(missing) > 20 else ""))


def resolve(group: Group | int | str | Spec, *, at: datetime | None = None, limit: int = MAX_MEMBERS,
            allow_empty: bool = False) -> Members:
    """The member series of `group` (a Group, its id, its name, or an unsaved Spec) at time `at`.

    Members: the group's static series plus every counter series matched by any of its rules
    (collector/groups/rules.py), in switch, port, VPI, VCI, direction order. `at` (default now)
    leaves out the series whose series, port, VP or VC was gone (vanished from the agent) at or
    before `at`; series that appeared after `at` are kept: they simply have no data then. Give
    the start of a window to get every series present at any moment of it. Rules are matched
    against the inventory as it is now (names, tags, links), not as it was at `at`.

    Raises GroupNotFound (no such group), GroupError (a rule line or a static id that is wrong),
    EmptyGroup (no member: the message says which rules matched nothing; unless allow_empty) and
    TooManyMembers (more than `limit`, by default MAX_MEMBERS = 10,000, series: the message
    names the limit). Every message is meant for the user as it is.

    The result: Members.series (MemberSeries: id, switch, port, VP/VC, direction, metric,
    unit, capacity), .series_ids, .switch_ids, .objects (the distinct ports, VPs and VCs),
    .rule_counts (series each rule matched) and .static_count.
    """
    group_id, spec = _spec_of(group)
    at = at or datetime.now(UTC)
    if len(spec.rules) > rules.MAX_RULES:
        raise GroupError(f"{len(spec.rules)} rules; a group has at most {rules.MAX_RULES}")
    try:
        parsed = [rules.parse(text) for text in spec.rules]
    except rules.RuleError as exc:
        raise GroupError(str(exc)) from None
    _check_static(spec.series_ids)
    params: dict = {"static": list(spec.series_ids), "at": at, "limit": limit + 1}
    conds, flags = [], []
    for i, rule in enumerate(parsed):
        sql, p = rules.where(rule, f"r{i}")
        params |= p
        conds.append(f"OR {sql}")
        flags.append(f", {sql}")
    with connection.cursor() as cur:
        cur.execute(SELECT.format(flags="".join(flags), rules=" ".join(conds)), params)
        rows = cur.fetchall()
    total = rows[0][15] if rows else 0
    name = spec.name or "(new group)"
    if total > limit:
        raise TooManyMembers(f"group {name!r} has {total:,} member series; a group holds at most {limit:,} "
                             f"(collector/groups MAX_MEMBERS): narrow its rules (switch=, port=, entity=, "
                             f"direction=, metric=)")
    counts = tuple(sum(1 for r in rows if r[16 + i]) for i in range(len(parsed)))
    # r[:14] is every field before `static` (mypy cannot count a slice of a row of unknown length).
    series = tuple(MemberSeries(*r[:14], static=bool(r[14])) for r in rows)  # type: ignore[misc]
    members = Members(group_id, name, at, series, counts, sum(1 for r in rows if r[14]))
    if not members.series and not allow_empty:
        raise EmptyGroup(empty_message(members, spec))
    return members


def empty_message(members: Members, spec: Spec) -> str:
    """What a group without members says: which of its parts matched nothing."""
    if not spec.series_ids and not spec.rules:
        return f"group {members.name!r} has no members: choose series or write a rule"
    parts = [f"rule {i + 1} ({text!r}) matches no series" for i, text in enumerate(spec.rules)]
    if spec.series_ids:
        parts.append(f"its {len(spec.series_ids)} chosen series were gone by {members.at:%Y-%m-%d %H:%M} UTC")
    return f"group {members.name!r} has no members: " + "; ".join(parts)
