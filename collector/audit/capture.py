"""Saves and deletes of tracked models become AuditEvent rows, in the same transaction.

Hand-written on Django's model signals rather than django-auditlog, django-simple-history or
django-reversion: those store the field values themselves (auditlog masks only part of a
value, simple-history and reversion copy every column, secrets included, into their own
tables), while here a secret must be recorded only as set/changed/cleared; and none of them
is in requirements.txt. What signals do not see is not recorded: QuerySet.update(),
bulk_create/bulk_update (discovery's port upkeep, never a hand edit) and raw SQL.

Register a model with one line in tracked.py: track("app.Model", exclude=(...)).
"""
from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models.signals import post_delete, post_save, pre_save

from collector.audit.context import SOURCES, Actor, current

ACTIONS = ("create", "update", "delete")
LONGEST_VALUE = 500         # characters of a value kept; longer ones are summarised (an iperf3 report)
_OLD = "_audit_old"         # instance attribute carrying the row as it was, from pre_save to post_save
_SKIP = object()


def is_secret_field(field: models.Field) -> bool:
    """collector.inventory.secrets.SecretField and its subclasses, found by class name: the audit
    sits below the inventory and imports none of it (tests/collector/audit pins this)."""
    return any(cls.__name__ == "SecretField" for cls in type(field).__mro__)


@dataclass(frozen=True)
class Tracking:
    fields: tuple[models.Field, ...]
    secrets: frozenset[str]
    actions: frozenset[str]
    sources: frozenset[str] | None       # None: whoever acts

    def wanted(self, action: str, actor: Actor) -> bool:
        return action in self.actions and (self.sources is None or actor.source in self.sources)


REGISTRY: dict[type[models.Model], Tracking] = {}


def track(label: str, *, exclude: tuple[str, ...] = (), only: tuple[str, ...] | None = None,
          actions: tuple[str, ...] = ACTIONS, sources: tuple[str, ...] | None = None,
          secret: tuple[str, ...] = ()) -> None:
    """Record create/update/delete of the model `label` ("inventory.Switch"). Primary key and
    auto_now(_add) fields are never compared (the event has its own time); `secret` names
    fields besides SecretFields whose values must never be stored."""
    model = apps.get_model(label)
    names = {f.name for f in model._meta.concrete_fields}
    unknown = (set(exclude) | set(only or ()) | set(secret)) - names
    if unknown or not set(actions) <= set(ACTIONS) or not set(sources or ()) <= set(SOURCES):
        raise ImproperlyConfigured(f"audit track({label!r}): unknown field, action or source in "
                                   f"{sorted(unknown) or (actions, sources)}")
    fields = tuple(f for f in model._meta.concrete_fields
                   if not f.primary_key and not getattr(f, "auto_now", False)
                   and not getattr(f, "auto_now_add", False)
                   and f.name not in exclude and (only is None or f.name in only))
    REGISTRY[model] = Tracking(fields, frozenset(f.name for f in fields if is_secret_field(f) or f.name in secret),
                               frozenset(actions), frozenset(sources) if sources is not None else None)
    uid = f"cellar-audit:{model._meta.label}"
    pre_save.connect(_before_save, sender=model, dispatch_uid=uid)
    post_save.connect(_after_save, sender=model, dispatch_uid=uid)
    post_delete.connect(_after_delete, sender=model, dispatch_uid=uid)


def _before_save(sender: type[models.Model], instance: models.Model, raw: bool = False,
                 update_fields: frozenset[str] | None = None, **_: Any) -> None:
    t = REGISTRY.get(sender)
    if t is None or raw or instance._state.adding:
        return
    fields = [f for f in t.fields if update_fields is None or f.name in update_fields]
    if not fields or not t.wanted("update", current()):
        instance.__dict__[_OLD] = _SKIP       # nothing to compare: no query
        return
    instance.__dict__[_OLD] = sender._base_manager.using(instance._state.db).filter(pk=instance.pk).values(
        *(f.attname for f in fields)).first() or _SKIP


def _after_save(sender: type[models.Model], instance: models.Model, created: bool, raw: bool = False,
                **_: Any) -> None:
    t = REGISTRY.get(sender)
    old = instance.__dict__.pop(_OLD, _SKIP)
    if t is None or raw:
        return
    actor = current()
    if created:
        if t.wanted("create", actor):
            _record(actor, "create", instance, _snapshot(t, instance, "new"))
        return
    if old is _SKIP:
        return
    by_attname = {f.attname: f for f in t.fields}
    changes = {}
    for attname, before in old.items():
        change = _change(t, by_attname[attname], before, getattr(instance, attname))
        if change is not None:
            changes[by_attname[attname].name] = change
    if changes:
        _record(actor, "update", instance, changes)


def _after_delete(sender: type[models.Model], instance: models.Model, **_: Any) -> None:
    t = REGISTRY.get(sender)
    actor = current()
    if t is None or not t.wanted("delete", actor):
        return
    _record(actor, "delete", instance, _snapshot(t, instance, "old"))


def _snapshot(t: Tracking, instance: models.Model, side: str) -> dict:
    """Every tracked field that holds something, as the "new" side of a create or the "old" side
    of a delete."""
    out = {}
    for f in t.fields:
        value = f.value_from_object(instance)
        change = _change(t, f, None, value) if side == "new" else _change(t, f, value, None)
        if change is not None and (change.get(side) not in (None, "") or "secret" in change):
            out[f.name] = {k: v for k, v in change.items() if k in (side, "secret")}
    return out


def _change(t: Tracking, field: models.Field, old: Any, new: Any) -> dict | None:
    """What to store for one field, or None when it did not change."""
    if field.name in t.secrets:
        before, after = str(old or ""), str(new or "")
        if before == after:
            return None
        return {"secret": "set" if not before else "cleared" if not after else "changed"}
    before, after = _plain(old), _plain(new)
    if old == new or before == after:
        return None
    return {"old": before, "new": after}


def _plain(value: Any) -> Any:
    """A JSON value that shows what the field held, at most LONGEST_VALUE characters."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, dict | list):
        text = json.dumps(value, cls=DjangoJSONEncoder, default=str)
        return json.loads(text) if len(text) <= LONGEST_VALUE else f"(JSON of {len(text):,} characters)"
    text = str(value)
    return text if len(text) <= LONGEST_VALUE else f"{text[:LONGEST_VALUE]}... ({len(text):,} characters)"


def _repr(instance: models.Model) -> str:
    try:
        return str(instance)[:200]
    except Exception:  # noqa: BLE001 - a related row deleted in the same cascade: the id still names it
        return f"{instance._meta.label} #{instance.pk}"


def _address(text: str | None) -> str | None:
    try:
        return str(ipaddress.ip_address(text)) if text else None
    except ValueError:
        return None


def _record(actor: Actor, action: str, instance: models.Model, changes: dict) -> None:
    from collector.audit.models import AuditEvent

    AuditEvent.objects.using(instance._state.db).create(
        actor_id=getattr(actor.user, "pk", None), actor_label=actor.label[:150], source=actor.source,
        address=_address(actor.address), action=action, object_type=instance._meta.label_lower,
        object_id=str(instance.pk), object_repr=_repr(instance), changes=changes)
