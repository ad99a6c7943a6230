"""collector/events/record.py: one public way to record an event, idempotent, refusing bad input."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from collector.events.models import Event
from collector.events.record import EventError, record_event
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db
AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_the_same_fact_is_one_row():
    sw = f.switch("asx-ev")
    a = record_event("reboot", at=AT, switch_id=sw.id, message="agent restarted", source="poll", data={"n": 1})
    b = record_event("reboot", at=AT, switch_id=sw.id, message="agent restarted", source="poll", data={"n": 1})
    assert a.pk == b.pk
    assert Event.objects.count() == 1
    other = record_event("reboot", at=AT, switch_id=sw.id, message="agent restarted again", source="poll")
    assert other.pk != a.pk


def test_port_and_user_are_kept():
    from django.contrib.auth.models import User

    sw = f.switch("asx-ev2")
    port = f.port(sw, "A1")
    u = User.objects.create_user("op-ev")
    ev = record_event("note", switch_id=sw.id, port_id=port.id, message="  fibre swapped  ", source="user",
                      user_id=u.id)
    ev.refresh_from_db()
    assert (ev.switch_id, ev.port_id, ev.actor_id, ev.message) == (sw.id, port.id, u.id, "fibre swapped")
    assert ev.at is not None


@pytest.mark.parametrize("kw, words", [
    ({"kind": "explosion"}, "unknown event kind"),
    ({"source": "gossip"}, "unknown event source"),
    ({"message": "   "}, "needs a message"),
    ({"message": "x" * 2001}, "at most 2000"),
    ({"at": datetime(2026, 1, 1)}, "zone"),
])
def test_bad_input_is_refused_with_the_reason(kw, words):
    args = {"kind": "note", "message": "hello", "source": "user", **kw}
    kind = args.pop("kind")
    with pytest.raises(EventError, match=words):
        record_event(kind, **args)
    assert Event.objects.count() == 0
