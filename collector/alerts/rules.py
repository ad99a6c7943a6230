"""Checking and saving alert rules, overrides and destinations: the one place that says what they
may be. Every refusal is an AlertError whose text names the field and the limit (the pages and
the admin show it as it is); nothing is saved unless all of it is right.
"""
from __future__ import annotations

from django.db import transaction

from collector.alerts import machine
from collector.alerts.models import COMPARISONS, DIRECTIONS, ENTITIES, KINDS, MODES, SCOPES, UNITS, Destination, Rule
from collector.groups import rules as group_rules
from collector.groups.models import Group
from collector.inventory.models import Host, Port, Switch, VirtualChannel, VirtualPath

MAX_WINDOW_MINUTES = 1440       # a day: longer windows read the 1-minute tier (readings.py)
MAX_COUNT = 1000
SERIES_KINDS = ("rate",)
OBJECT_SCOPES = {"rate": ("port", "vp", "vc"), "status": ("port", "vp", "vc"), "not_polled": ("switch",),
                 "discontinuity": ("switch",), "unreachable": ("host",)}
SCOPES_OF = {"rate": ("object", "switch", "poller_group", "group", "pattern", "all"),
             "status": ("object", "switch", "poller_group", "group", "pattern", "all"),
             "not_polled": ("object", "switch", "poller_group", "pattern", "all"),
             "discontinuity": ("object", "switch", "poller_group", "pattern", "all"),
             "unreachable": ("object", "pattern", "all")}
FIELDS = ("name", "kind", "scope", "object", "switch", "poller_group", "group", "pattern", "entity", "direction",
          "metric", "unit", "comparison", "threshold", "recovery", "mode", "window_minutes", "count")


class AlertError(ValueError):
    """A rule, override or destination that cannot be used; str() is the message for the user."""


def _choice(form: dict, key: str, choices: list[tuple[str, str]], default: str) -> str:
    value = (form.get(key) or default).strip()
    names = [c for c, _ in choices]
    if value not in names:
        raise AlertError(f"{key} {value!r} is not one of {', '.join(names)}")
    return value


def _number(form: dict, key: str, *, required: bool) -> float | None:
    text = str(form.get(key) or "").strip()
    if not text:
        if required:
            raise AlertError(f"a {key} is required for this kind of rule")
        return None
    try:
        value = float(text)
    except ValueError:
        raise AlertError(f"{key} {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise AlertError(f"{key} {text!r} is not a finite number")
    if value < 0:
        raise AlertError(f"{key} {value:g} is negative: rates and percentages are 0 or more")
    return value


def _whole(form: dict, key: str, default: int, lo: int, hi: int) -> int:
    text = str(form.get(key) if form.get(key) not in (None, "") else default).strip()
    if not text.isdigit() or not lo <= int(text) <= hi:
        raise AlertError(f"{key} {text!r} must be a whole number from {lo} to {hi}")
    return int(text)


def resolve_object(kind: str, ref: str) -> tuple[str, object]:
    """An object reference of the form port:ID, vp:ID, vc:ID, switch:ID or NAME, host:ID or NAME."""
    allowed = OBJECT_SCOPES[kind]
    what, _, ident = (ref or "").strip().partition(":")
    if not ident:
        raise AlertError(f"the rule's object is empty: give one of {', '.join(a + ':ID' for a in allowed)}")
    if what not in allowed:
        raise AlertError(f"a {kind} rule watches {' or '.join(allowed)} objects, not {what!r} "
                         f"(give {', '.join(a + ':ID' for a in allowed)})")
    models: dict[str, type[Port | VirtualPath | VirtualChannel | Switch | Host]] = {
        "port": Port, "vp": VirtualPath, "vc": VirtualChannel, "switch": Switch, "host": Host}
    model = models[what]
    found = (model.objects.filter(pk=int(ident)).first() if ident.isdigit()
             else model.objects.filter(name=ident).first() if what in ("switch", "host") else None)
    if found is None:
        raise AlertError(f"no {what} {ident!r}")
    return what, found


def check(form: dict, rule: Rule | None = None) -> Rule:
    """The rule the form describes, checked, not saved (the form's destinations aside)."""
    rule = rule or Rule()
    name = (form.get("name") or "").strip()
    if not name or len(name) > 100:
        raise AlertError("a rule needs a name of 1 to 100 characters")
    if Rule.objects.filter(name=name, retired_at__isnull=True).exclude(pk=rule.pk).exists():
        raise AlertError(f"a rule named {name!r} exists already")
    rule.name = name
    kind = rule.kind = _choice(form, "kind", KINDS, "")
    scope = rule.scope = _choice(form, "scope", SCOPES, "")
    if scope not in SCOPES_OF[kind]:
        raise AlertError(f"a {kind} rule's scope is one of {', '.join(SCOPES_OF[kind])}, not {scope}")
    rule.switch = rule.port = rule.vp = rule.vc = rule.host = rule.group = None
    rule.poller_group = rule.pattern = ""
    rule.entity = _choice(form, "entity", ENTITIES, "port")
    if scope == "object":
        what, obj = resolve_object(kind, form.get("object", ""))
        setattr(rule, what, obj)
    elif scope == "switch":
        ref = (form.get("switch") or "").strip()
        if not ref:
            raise AlertError("the rule's scope is a switch, but no switch is given: give its name or id")
        rule.switch = (Switch.objects.filter(pk=int(ref)).first() if ref.isdigit()
                       else Switch.objects.filter(name=ref).first())
        if rule.switch is None:
            raise AlertError(f"no switch {ref!r}")
    elif scope == "poller_group":
        rule.poller_group = (form.get("poller_group") or "").strip()
        if not rule.poller_group:
            raise AlertError("the rule's scope is a poller group, but none is given")
        if not Switch.objects.filter(poller_group=rule.poller_group).exists():
            raise AlertError(f"no switch is in poller group {rule.poller_group!r}")
    elif scope == "group":
        ref = (form.get("group") or "").strip()
        if not ref:
            raise AlertError("the rule's scope is a saved group, but no group is given (see /groups/)")
        rule.group = (Group.objects.filter(pk=int(ref)).first() if ref.isdigit()
                      else Group.objects.filter(name=ref).first())
        if rule.group is None:
            raise AlertError(f"no group {ref!r} (see /groups/)")
    elif scope == "pattern":
        rule.pattern = " ".join((form.get("pattern") or "").split())
        if not rule.pattern:
            raise AlertError("the rule's scope is a name pattern, but the pattern is empty")
        if kind in ("rate", "status"):
            try:
                group_rules.parse(rule.pattern)
            except group_rules.RuleError as exc:
                raise AlertError(f"pattern: {exc}") from None
    rule.direction = _choice(form, "direction", DIRECTIONS, "both")
    rule.metric = (form.get("metric") or "traffic").strip().lower()
    if not group_rules.METRIC.match(rule.metric):
        raise AlertError(f"metric {rule.metric!r}: traffic, or a counter's name such as errors, discards, lost_cells")
    rule.unit = _choice(form, "unit", UNITS, "pct")
    if kind == "rate" and rule.unit == "pct" and rule.metric != "traffic":
        raise AlertError(f"% of capacity is a share of the traffic a port can carry; {rule.metric} is not traffic: "
                         f"give its rate (units/s of the counter) or bits/s")
    rule.comparison = _choice(form, "comparison", COMPARISONS, "above")
    rule.mode = _choice(form, "mode", MODES, "avg")
    rule.window_minutes = _whole(form, "window_minutes", 5, 0, MAX_WINDOW_MINUTES)
    rule.count = _whole(form, "count", 3, 1, MAX_COUNT)
    rule.threshold = _number(form, "threshold", required=kind == "rate")
    rule.recovery = _number(form, "recovery", required=False)
    if kind == "rate":
        check_threshold(rule, rule.threshold, rule.recovery)
    else:
        rule.threshold = rule.recovery = None
    return rule


def check_threshold(rule: Rule, threshold: float | None, recovery: float | None) -> None:
    assert threshold is not None
    for what, value in (("threshold", threshold), ("recovery value", recovery)):
        if value is not None and rule.unit == "pct" and value > 100:
            raise AlertError(f"a {what} of {value:g} % is above 100 % of capacity: give 0 to 100 "
                             "(or an absolute rate in units/s)")
    why = machine.check_recovery(threshold, recovery, rule.comparison == "above")
    if why:
        raise AlertError(why)


@transaction.atomic
def save(form: dict, destination_ids: list[int], rule: Rule | None = None, user=None) -> Rule:
    rule = check(form, rule)
    known = set(Destination.objects.filter(pk__in=destination_ids).values_list("id", flat=True))
    unknown = sorted(set(destination_ids) - known)
    if unknown:
        raise AlertError(f"no destination {', '.join(map(str, unknown))}")
    if rule.pk is None and user is not None and user.is_authenticated:
        rule.created_by = user
    rule.save()
    rule.destinations.set(known)
    return rule


def set_override(rule: Rule, object_ref: str, threshold: str, recovery: str = "") -> None:
    """A per-object threshold of a rate rule (object: series:ID, port:ID, vp:ID, vc:ID)."""
    from collector.alerts.models import Override

    if rule.kind != "rate":
        raise AlertError("only rate rules have thresholds to override")
    what, _, ident = object_ref.strip().partition(":")
    if what not in ("series", "port", "vp", "vc") or not ident.isdigit():
        raise AlertError(f"override object {object_ref!r}: give series:ID, port:ID, vp:ID or vc:ID")
    form = {"threshold": threshold, "recovery": recovery}
    t = _number(form, "threshold", required=True)
    r = _number(form, "recovery", required=False)
    check_threshold(rule, t, r)
    Override.objects.update_or_create(rule=rule, object_kind=what, object_id=int(ident),
                                      defaults={"threshold": t, "recovery": r})


def save_destination(name: str, url: str, destination: Destination | None = None) -> Destination:
    from collector.alerts import notify

    name = (name or "").strip()
    if not name or len(name) > 100:
        raise AlertError("a destination needs a name of 1 to 100 characters")
    others = Destination.objects.filter(name=name)
    if destination is not None:
        others = others.exclude(pk=destination.pk)
    if others.exists():
        raise AlertError(f"a destination named {name!r} exists already")
    url = (url or "").strip()
    if not url and destination is not None:
        url = str(destination.url)          # the form never shows the stored URL: empty keeps it
    notify.check_url(url)
    destination = destination or Destination()
    destination.name, destination.url = name, url
    destination.save()
    return destination
