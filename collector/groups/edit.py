"""Creating, changing and deleting groups, with the checks that keep every group usable.

A group is saved only when its name is free and well formed, every rule line parses, every
chosen series exists, and it resolves to at least one and at most MAX_MEMBERS series now.
What uses a group (a bill, an alert rule: any model of another app pointing at it) is listed by
`users_of`; a group in use is not deleted (the message names the users), and the pages let only
those allowed to change the users change it (webapp/groups: a bill's group is an admin's).
"""
from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.db import transaction

from collector.groups.models import NAME_PATTERN, NAME_RULE, Group, Member, Rule
from collector.groups.resolve import GroupError, Members, Spec, resolve

MAX_STATIC = 10_000


def spec_from(name: str, series_text: str | list[int] | tuple[int, ...], rules_text: str | list[str] | tuple[str, ...],
              ) -> Spec:
    """A Spec from what a form or an API call gives: series ids as a list or as text ("12, 13 14"),
    rules as a list of lines or as text (one rule a line; blank lines and # comments skipped)."""
    if isinstance(series_text, str):
        ids: list[int] = []
        for part in re.split(r"[\s,]+", series_text.strip()):
            if not part:
                continue
            if not part.isdigit():
                raise GroupError(f"series id {part!r} is not a number (write ids separated by commas or spaces)")
            ids.append(int(part))
    else:
        ids = [int(i) for i in series_text]
    if len(ids) > MAX_STATIC:
        raise GroupError(f"{len(ids):,} series chosen; a group holds at most {MAX_STATIC:,}")
    lines = rules_text.splitlines() if isinstance(rules_text, str) else list(rules_text)
    kept = [" ".join(line.split()) for line in lines if line.strip() and not line.strip().startswith("#")]
    return Spec(name.strip(), tuple(dict.fromkeys(ids)), tuple(kept))


def check(spec: Spec, group: Group | None = None) -> Members:
    """The members the spec would have now; GroupError saying what is wrong otherwise."""
    if not re.match(NAME_PATTERN, spec.name):
        raise GroupError(f"name {spec.name!r}: {NAME_RULE}")
    clash = Group.objects.filter(name=spec.name)
    if group is not None:
        clash = clash.exclude(pk=group.pk)
    if clash.exists():
        raise GroupError(f"a group named {spec.name!r} exists already")
    return resolve(spec)


def users_of(group: Group) -> list[tuple[str, str]]:
    """(app label, "bill acme-transit") for every object of another app that points at the group."""
    found: list[tuple[str, str]] = []
    for rel in group._meta.related_objects:
        model = rel.related_model
        if isinstance(model, str):          # "self" or a lazy name: resolved once the apps are loaded
            raise TypeError(f"unresolved relation {model!r} of {rel}")
        if model._meta.app_label == "groups":
            continue
        accessor = rel.get_accessor_name()
        if accessor is None:
            continue
        manager = getattr(group, accessor)
        for obj in manager.all()[:20]:
            found.append((model._meta.app_label, f"{model._meta.verbose_name} {obj}"))
    return found


@transaction.atomic
def save(spec: Spec, *, group: Group | None = None, description: str = "", user=None) -> Group:
    """Create (group None) or replace the group's name, description, members and rules."""
    check(spec, group)
    if group is None:
        group = Group(created_by=user if getattr(user, "is_authenticated", False) else None)
    group.name, group.description = spec.name, description.strip()
    try:
        group.full_clean(exclude=["created_by"])
    except ValidationError as exc:
        raise GroupError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
    group.save()
    group.members.all().delete()
    group.rules.all().delete()
    Member.objects.bulk_create([Member(group=group, series_id=i) for i in spec.series_ids])
    for i, text in enumerate(spec.rules):          # one by one: each rule line is an audited change
        Rule.objects.create(group=group, position=i, text=text)
    return group


def delete(group: Group) -> None:
    """Delete a group nothing uses; GroupError naming its users otherwise."""
    users = users_of(group)
    if users:
        raise GroupError(f"group {group.name!r} is used by {', '.join(u for _, u in users)}: "
                         "change or delete those first")
    group.delete()
