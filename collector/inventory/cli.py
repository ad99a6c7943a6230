"""Shared by the management commands (of every app) that take a switch NAME."""
from __future__ import annotations

from django.core.management.base import CommandError

from collector.inventory.models import Switch


def switch_named(name: str) -> Switch:
    switch = Switch.objects.filter(name=name).first()
    if switch is None:
        known = ", ".join(Switch.objects.values_list("name", flat=True)[:20]) or "none yet: use add_switch"
        raise CommandError(f"unknown switch {name!r} (known: {known})")
    return switch
