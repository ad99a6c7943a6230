"""State changes the inventory learns between discoveries (SNMP traps: collector/events/traps.py).

Discovery (discovery.py) sets the states it walks; a trap sets a port's state at once, so the
port page and the alert rules that read Port.oper_status see it before the next poll.
"""
from __future__ import annotations

from datetime import datetime

from django.db import transaction

from collector.inventory.models import Port


def set_port_state(port_id: int, oper_status: str, admin_status: str, at: datetime) -> tuple[str, str]:
    """Set the port's oper status (and admin status when given); status_since moves only when the
    oper status changes. Returns (old oper status, new oper status)."""
    with transaction.atomic():
        port = Port.objects.select_for_update().get(pk=port_id)
        old = port.oper_status
        fields = []
        if oper_status and oper_status != old:
            port.oper_status, port.status_since = oper_status, at
            fields += ["oper_status", "status_since"]
        if admin_status and admin_status != port.admin_status:
            port.admin_status = admin_status
            fields.append("admin_status")
        if fields:
            port.save(update_fields=fields)
    return old, port.oper_status
