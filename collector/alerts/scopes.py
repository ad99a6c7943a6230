"""A rule's scope as the objects it watches: series (rate rules), ports/VPs/VCs (status), switches
(not polled, discontinuity) or hosts (unreachable).

Series come from collector.groups.resolve.resolve, THE way a group becomes series: a saved group
as it is, a name pattern as an unsaved group of one rule line, and one object, a switch, a poller
group or everything as an unsaved group of the matching series of the rule's metric (traffic:
cells, else octets, the groups' TRAFFIC_SQL; or a counter by name, such as errors or lost_cells),
so every scope means the same series as the plots and the talkers do. A saved group keeps the
metrics its own rules name.
At most `limit` objects per rule (ScopeTooLarge names it).
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from django.db import connection

from collector.alerts.models import Rule
from collector.groups import rules as group_rules
from collector.groups.resolve import GroupError, MemberSeries, Spec, resolve
from collector.inventory.models import Host, Port, Switch, VirtualChannel, VirtualPath

MAX_OBJECTS_PER_RULE = 10_000


class ScopeError(ValueError):
    """A scope that cannot be evaluated now (its group is gone, it holds too much); the message says why."""


@dataclass(frozen=True)
class Target:
    """A port, VP, VC, switch or host a rule watches (kind, id) and the ids its events carry."""
    kind: str
    id: int
    label: str
    switch_id: int | None = None
    port_id: int | None = None
    vp_id: int | None = None
    vc_id: int | None = None
    host_id: int | None = None


def pattern_line(rule: Rule) -> str:
    """The rule's name pattern as a group rule line: its own metric= wins, else the rule's metric."""
    if rule.metric == "traffic" or "metric=" in rule.pattern.lower():
        return rule.pattern
    return f"{rule.pattern} metric={rule.metric}"


def _series_ids(rule: Rule, limit: int) -> list[int]:
    conds = ["s.kind = 'counter'", "s.gone_at IS NULL"]
    params: list[int | str | None] = []
    if rule.metric == "traffic":
        conds.append(group_rules.TRAFFIC_SQL)
    else:
        conds.append("s.metric = %s")
        params.append(rule.metric)
    if rule.scope == "object":
        column = "vc_id" if rule.vc_id else "vp_id" if rule.vp_id else "port_id"
        conds.append(f"s.{column} = %s")
        params.append(rule.vc_id or rule.vp_id or rule.port_id)
        if column == "port_id":
            conds.append("s.vp_id IS NULL AND s.vc_id IS NULL")
        elif column == "vp_id":
            conds.append("s.vc_id IS NULL")
    else:
        conds.append(group_rules.ENTITY_SQL[rule.entity])
        if rule.scope == "switch":
            conds.append("s.switch_id = %s")
            params.append(rule.switch_id)
        elif rule.scope == "poller_group":
            conds.append("s.switch_id IN (SELECT id FROM inventory_switch WHERE poller_group = %s)")
            params.append(rule.poller_group)
    if rule.direction != "both":
        conds.append("s.direction = %s")
        params.append(rule.direction)
    with connection.cursor() as cur:
        cur.execute(f"SELECT s.id FROM traffic_series s WHERE {' AND '.join(conds)} ORDER BY s.id LIMIT %s",
                    [*params, limit + 1])
        return [row[0] for row in cur.fetchall()]


def series(rule: Rule, limit: int = MAX_OBJECTS_PER_RULE) -> list[MemberSeries]:
    """The traffic series a rate rule watches (each direction is its own object)."""
    try:
        if rule.scope == "group":
            if rule.group_id is None:
                raise ScopeError(f"rule {rule.name!r} watches a group but names none")
            members = resolve(rule.group_id, limit=limit * 2, allow_empty=True)
        elif rule.scope == "pattern":
            members = resolve(Spec(rule.name, rules=(pattern_line(rule),)), limit=limit * 2, allow_empty=True)
        else:
            ids = _series_ids(rule, limit)
            if len(ids) > limit:
                raise ScopeError(too_many(rule, limit))
            members = resolve(Spec(rule.name, series_ids=tuple(ids)), limit=limit, allow_empty=True)
    except GroupError as exc:
        raise ScopeError(str(exc)) from None
    found = [s for s in members.series if rule.direction == "both" or s.direction == rule.direction]
    if len(found) > limit:
        raise ScopeError(too_many(rule, limit))
    return found


def too_many(rule: Rule, limit: int) -> str:
    return (f"rule {rule.name!r} watches more than {limit:,} objects (MAX_OBJECTS_PER_RULE): narrow its scope "
            "(a switch, a group, a pattern) or split it")


def _entities(rule: Rule) -> list[str]:
    return ["port", "vp", "vc"] if rule.entity == "any" else [rule.entity]


def status_targets(rule: Rule, limit: int = MAX_OBJECTS_PER_RULE) -> list[Target]:
    """The ports, VPs and VCs a status rule watches (present ones: gone objects are not down)."""
    if rule.scope == "object":
        p, vp, vc = rule.port, rule.vp, rule.vc
        if p is not None:
            return [Target("port", p.id, str(p), p.switch_id, p.id)]
        if vp is not None:
            return [Target("vp", vp.id, str(vp), vp.switch_id, vp.port_id, vp.id)]
        if vc is None:
            raise ScopeError(f"rule {rule.name!r} watches one object but names no port, VP or VC")
        return [Target("vc", vc.id, str(vc), vc.switch_id, vc.port_id, None, vc.id)]
    wanted: dict[str, set[int]] | None = None
    if rule.scope in ("group", "pattern"):
        wanted = {"port": set(), "vp": set(), "vc": set()}
        for s in series(rule, limit):
            kind, oid = (("vc", s.vc_id) if s.vc_id else ("vp", s.vp_id) if s.vp_id else ("port", s.port_id))
            if oid is not None:
                wanted[kind].add(oid)
    out: list[Target] = []
    for kind in _entities(rule) if wanted is None else ["port", "vp", "vc"]:
        model = {"port": Port, "vp": VirtualPath, "vc": VirtualChannel}[kind]
        qs = model.objects.present().select_related("switch", *([] if kind == "port" else ["port"]))
        if wanted is not None:
            qs = qs.filter(pk__in=wanted[kind])
        elif rule.scope == "switch":
            qs = qs.filter(switch_id=rule.switch_id)
        elif rule.scope == "poller_group":
            qs = qs.filter(switch__poller_group=rule.poller_group)
        qs = qs.filter(switch__enabled=True)
        for obj in qs[: limit + 1 - len(out)]:
            port_id = obj.id if kind == "port" else obj.port_id
            out.append(Target(kind, obj.id, str(obj), obj.switch_id, port_id, obj.id if kind == "vp" else None,
                              obj.id if kind == "vc" else None))
        if len(out) > limit:
            raise ScopeError(too_many(rule, limit))
    return out


def matches(pattern: str, name: str) -> bool:
    """A shell pattern (* any run, ? one character) on a switch or host name, any case (as the
    group rules' switch=)."""
    return fnmatch.fnmatchcase(name.lower(), pattern.lower())


def switch_targets(rule: Rule, limit: int = MAX_OBJECTS_PER_RULE) -> list[Target]:
    qs = Switch.objects.filter(enabled=True)
    if rule.scope in ("object", "switch"):
        if rule.switch_id is None:
            return []                   # names no switch: watches none
        qs = qs.filter(pk=rule.switch_id)
    elif rule.scope == "poller_group":
        qs = qs.filter(poller_group=rule.poller_group)
    found = [Target("switch", sw.id, sw.name, sw.id) for sw in qs.only("id", "name")
             if rule.scope != "pattern" or matches(rule.pattern, sw.name)]
    if len(found) > limit:
        raise ScopeError(too_many(rule, limit))
    return found


def host_targets(rule: Rule, limit: int = MAX_OBJECTS_PER_RULE) -> list[Target]:
    qs = Host.objects.filter(enabled=True)
    if rule.scope == "object":
        if rule.host_id is None:
            return []                   # names no host: watches none
        qs = qs.filter(pk=rule.host_id)
    found = [Target("host", h.id, h.name, host_id=h.id) for h in qs.only("id", "name")
             if rule.scope != "pattern" or matches(rule.pattern, h.name)]
    if len(found) > limit:
        raise ScopeError(too_many(rule, limit))
    return found
