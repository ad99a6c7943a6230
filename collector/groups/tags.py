"""Tags on switches, ports, VPs and VCs, named as operators name them, for `tag=` rules."""
from __future__ import annotations

import re

from django.db import IntegrityError, transaction

from collector.groups.models import TAG_PATTERN, TAG_RULE, Tag
from collector.groups.resolve import GroupError
from collector.inventory.models import Switch, VirtualChannel, VirtualPath
from collector.inventory.ports import PortLookupError, find_port


def _number(name: str, text: str) -> int:
    if not text.strip().isdigit():
        raise GroupError(f"{name} {text!r} is not a number")
    return int(text)


def add(name: str, switch: str, port: str = "", vpi: str = "", vci: str = "", user=None) -> Tag:
    """Tag a switch, or one of its ports (by name, agent name or ifindex:N), VPs or VCs."""
    name = name.strip()
    if not re.match(TAG_PATTERN, name):
        raise GroupError(f"tag {name!r}: {TAG_RULE}")
    sw = Switch.objects.filter(name=switch.strip()).first()
    if sw is None:
        raise GroupError(f"no switch {switch!r}")
    target: dict = {"switch": sw}
    if port.strip():
        try:
            p = find_port(sw, port.strip())
        except PortLookupError as exc:
            raise GroupError(str(exc)) from None
        target = {"port": p}
        if vci.strip() and not vpi.strip():
            raise GroupError("a VC is named by its VPI and VCI: give vpi too")
        if vpi.strip():
            v = _number("vpi", vpi)
            if vci.strip():
                vc = VirtualChannel.objects.filter(port=p, vpi=v, vci=_number("vci", vci)).first()
                if vc is None:
                    raise GroupError(f"no VC {v}/{vci} on {sw.name} {p.name}")
                target = {"vc": vc}
            else:
                vp = VirtualPath.objects.filter(port=p, vpi=v).first()
                if vp is None:
                    raise GroupError(f"no VP {v} on {sw.name} {p.name}")
                target = {"vp": vp}
    elif vpi.strip() or vci.strip():
        raise GroupError("a VP or VC is named with its port: give port too")
    try:
        with transaction.atomic():
            return Tag.objects.create(name=name, created_by=user if getattr(user, "is_authenticated", False)
                                      else None, **target)
    except IntegrityError:
        raise GroupError(f"{Tag(name=name, **target)} is tagged already") from None
