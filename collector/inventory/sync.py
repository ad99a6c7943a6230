"""Bring the rows of one discovered table (VPs, VCs, cross-connects of a switch) into step with
what the agent answered, in a few queries whatever their number.

Discovery runs for every switch once per discovery interval; a row per object and statement
(update_or_create) cost two statements and a Django save per VC: at 100,000 ports (50 ATM switches
of 1,000 VCs) most of a poller's discovery time, for rows that almost never change. Here the
switch's rows are read once, new ones created in bulk, changed ones updated in bulk with only
the fields that changed, and the unchanged ones only have `last_seen` moved, in one UPDATE.

Times computed as "now - age" (status_since, up_since) move by the length of a discovery run at
every run although nothing changed: they count as changed only when they move by more than
SINCE_TOLERANCE (a state that really changed moves them by at least the discovery interval).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from django.db import models

if TYPE_CHECKING:
    from collector.inventory.models import Discovered

K = TypeVar("K", bound=Hashable)

SINCE_TOLERANCE = timedelta(seconds=2)


def differs(old: Any, new: Any) -> bool:
    """Whether a stored value and a discovered one differ (times within SINCE_TOLERANCE do not)."""
    if isinstance(old, datetime) and isinstance(new, datetime):
        return abs(old - new) > SINCE_TOLERANCE
    return bool(old != new)


@dataclass
class SyncResult(Generic[K]):
    rows: dict[K, Discovered] = field(default_factory=dict)            # key -> row, every wanted key
    created: int = 0
    updated: int = 0
    fields: set[str] = field(default_factory=set)                       # fields some row changed


def sync_rows(model: type[Discovered], existing: Mapping[K, Discovered],
              wanted: Mapping[K, tuple[dict[str, Any], dict[str, Any]]], now: datetime,
              fit: Callable[[type[models.Model], dict], tuple[dict, int]]) -> tuple[SyncResult[K], int]:
    """`existing`: the switch's rows by key (present or gone); `wanted`: key -> (the fields that
    make the key, e.g. port_id/vpi/vci, and the fields the agent told). Seen rows end present
    (gone_at NULL) with last_seen = now. Returns the result and how many values `fit` changed."""
    result: SyncResult[K] = SyncResult()
    fitted = 0
    new: list[Discovered] = []
    changed: list[Discovered] = []
    touched: list[int] = []
    for key, (ident, told) in wanted.items():
        told, n = fit(model, told)
        fitted += n
        row = existing.get(key)
        if row is None:
            row = model(**ident, **told, last_seen=now, gone_at=None)
            new.append(row)
        else:
            diff = [f for f, v in told.items() if differs(getattr(row, f), v)]
            if diff or row.gone_at is not None:
                for f in diff:
                    setattr(row, f, told[f])
                row.gone_at, row.last_seen = None, now
                changed.append(row)
                result.fields.update(diff)
            else:
                touched.append(row.pk)
        result.rows[key] = row
    if new:
        model.objects.bulk_create(new, batch_size=500)
    if changed:
        model.objects.bulk_update(changed, sorted(result.fields | {"gone_at", "last_seen"}), batch_size=500)
    if touched:
        model.objects.filter(pk__in=touched).update(last_seen=now)
    result.created, result.updated = len(new), len(changed)
    return result, fitted
