"""Evaluation from the archive: states, transitions, hysteresis, the outbox, mutes and the other
rule kinds, with samples written through the real schema."""
from __future__ import annotations

from datetime import timedelta

import pytest

from collector.alerts import actions, evaluate, notify, rules
from collector.alerts.models import Destination, EvaluationRun, Notification, State, Transition
from collector.core.facts import Flag
from collector.events.models import Event
from collector.groups import edit as group_edit
from collector.groups.models import Group
from collector.inventory.models import Host
from collector.poller.models import HostCheck, SwitchHealth
from tests.collector.alerts.conftest import NOW, polls
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db
MIN = timedelta(minutes=1)


def rate_rule(net, **kw):
    dest = Destination.objects.create(name=f"hook-{kw.get('name', 'r')}", url="json://127.0.0.1:9/hook")
    form = {"name": "A above 80", "kind": "rate", "scope": "switch", "switch": net["sw"].name, "threshold": "80",
            "recovery": "70", "window_minutes": "5", "mode": "avg", "direction": "both", **kw}
    return rules.save(form, [dest.id])


def transitions():
    return [(t.from_state, t.to_state) for t in Transition.objects.order_by("at", "id")]


def test_rate_fires_once_holds_between_recovery_and_threshold_and_resolves(atm):
    rate_rule(atm)
    polls(atm, NOW - 20 * MIN, 600, 90)          # 90 % for 10 minutes
    polls(atm, NOW - 10 * MIN, 600, 75)          # between recovery (70) and threshold (80)
    polls(atm, NOW, 600, 40)                     # well below
    evaluate.run(now=NOW - 17 * MIN)             # 3 minutes of 90 %: pending (window not yet full)
    assert State.objects.get().state == "pending"
    for minutes in (-14, -13, -10, -6, -3, -1):
        evaluate.run(now=NOW + minutes * MIN)
        assert State.objects.get().state == "firing", minutes
    evaluate.run(now=NOW + 6 * MIN)
    assert State.objects.get().state == "resolved"
    evaluate.run(now=NOW + 7 * MIN)
    state = State.objects.get()
    assert state.state == "ok" and state.object_kind == "series" and state.object_id == atm["in"].id
    assert transitions() == [("ok", "pending"), ("pending", "firing"), ("firing", "resolved")]
    sent = Notification.objects.order_by("id")
    assert [n.kind for n in sent] == ["firing", "resolved"]
    assert "FIRING: A above 80 on asx-alert A1 in (cells)" in sent[0].title
    assert f"/traffic/?s={atm['in'].id}&start=" in sent[0].body and sent[0].body.count("http://") == 2
    assert "RESOLVED" in sent[1].title and "below the recovery value 70" in sent[1].body
    assert not State.objects.filter(object_id=atm["out"].id).exists()      # always ok: no row
    run = EvaluationRun.objects.first()
    assert run.rules == 1 and run.watched == 2 and run.duration_ms > 0
    # Firing and resolution are events too (collector/events), on the port, from the alert.
    events = list(Event.objects.filter(source="alert").order_by("at"))
    assert [e.kind for e in events] == ["alert_firing", "alert_resolved"]
    assert events[0].port_id == atm["port"].id and events[0].data["rule"] == "A above 80"


def test_every_sample_mode_and_a_spike_that_does_not_last(atm):
    rate_rule(atm, mode="every", window_minutes="2")
    polls(atm, NOW - 10 * MIN, 60, 95)
    polls(atm, NOW - 9 * MIN, 30, 50)            # one dip: not every sample is above
    polls(atm, NOW - 8.5 * MIN, 90, 95)
    evaluate.run(now=NOW - 8 * MIN)
    assert State.objects.get().state == "pending"
    evaluate.run(now=NOW - 7 * MIN + timedelta(seconds=1))
    assert State.objects.get().state == "pending"     # the window still holds the dip
    polls(atm, NOW - 7 * MIN, 240, 95)
    evaluate.run(now=NOW - 5 * MIN)
    assert State.objects.get().state == "firing"


def test_per_object_override_and_absolute_rate(atm):
    rule = rate_rule(atm, unit="rate", threshold="1000", recovery="900", window_minutes="0")
    rules.set_override(rule, f"port:{atm['port'].id}", "300000", "250000")
    polls(atm, NOW - 2 * MIN, 120, 80)           # 282,565 cells/s in: under the port's override
    evaluate.run(now=NOW)
    assert not State.objects.exists()
    rules.set_override(rule, f"series:{atm['in'].id}", "200000")
    evaluate.run(now=NOW)
    assert State.objects.get(object_id=atm["in"].id).state == "firing"


def test_a_bits_per_second_threshold_counts_a_cell_as_424_bits_on_the_wire(atm):
    """80 % of an OC3 is 282,565 cells/s = 119.8 Mb/s of 53-byte cells: above 100 Mb/s (a cells
    rule would need 235,849 cells/s), not above 120 Mb/s."""
    fires = rate_rule(atm, name="100M", unit="bps", threshold="100e6", recovery="90e6", window_minutes="0")
    rate_rule(atm, name="120M", unit="bps", threshold="120e6", recovery="110e6", window_minutes="0")
    polls(atm, NOW - 2 * MIN, 120, 80)
    evaluate.run(now=NOW)
    firing = State.objects.get(state="firing")
    assert firing.rule_id == fires.id and firing.object_id == atm["in"].id
    assert firing.value == pytest.approx(int(f.OC3_CELLS * 0.8 * 15) / 15 * 424, rel=1e-9)
    # Written for people, with the unit kept on the state and its history: 119,807,814 b/s is 120 Mb/s.
    assert (firing.unit, firing.detail) == ("b/s", "latest 120 Mb/s")
    assert Transition.objects.get(state=firing).unit == "b/s"
    body = Notification.objects.get(transition__state=firing, kind="firing").body
    assert "Value: 120 Mb/s, above the threshold 100 Mb/s" in body


def test_muted_rule_fires_silently_and_its_resolution_is_silent_too(atm):
    rule = rate_rule(atm, window_minutes="0")
    rule.muted_until = NOW + 60 * MIN
    rule.save()
    polls(atm, NOW - 2 * MIN, 120, 95)
    polls(atm, NOW, 120, 10)
    evaluate.run(now=NOW)
    rule.muted_until = None
    rule.save()
    evaluate.run(now=NOW + 2 * MIN)
    assert transitions() == [("ok", "firing"), ("firing", "resolved")]
    assert not Notification.objects.exists()


def test_an_object_muted_on_its_own_fires_silently_until_its_mute_expires(atm):
    # The object's mute (not the rule's): the same test of "muted now" as the rule's (actions.is_muted).
    rate_rule(atm, window_minutes="0")
    for k, pct in enumerate((95, 10, 95, 10, 95)):          # 95 % from -8, -4 and 0 minutes, 10 % between
        polls(atm, NOW + (2 * k - 8) * MIN, 120, pct)
    evaluate.run(now=NOW - 6 * MIN)
    evaluate.run(now=NOW - 4 * MIN)
    state = State.objects.get()
    actions.mute(state, "1")
    evaluate.run(now=NOW - 2 * MIN)
    evaluate.run(now=NOW)
    state.refresh_from_db()
    state.muted_until = NOW + MIN                           # expired by the next evaluation
    state.save()
    evaluate.run(now=NOW + 2 * MIN)
    assert transitions() == [("ok", "firing"), ("firing", "resolved"), ("resolved", "firing"), ("firing", "resolved"),
                             ("resolved", "firing")]
    assert [n.kind for n in Notification.objects.order_by("id")] == ["firing", "resolved", "firing"]


def test_status_rule_holds_for_its_minutes(atm):
    rules.save({"name": "A1 down", "kind": "status", "scope": "object", "object": f"port:{atm['port'].id}",
                "window_minutes": "1"}, [])
    port = atm["port"]
    port.oper_status = "down"
    port.save()
    evaluate.run(now=NOW)
    assert State.objects.get().state == "pending"
    evaluate.run(now=NOW + MIN)
    assert State.objects.get().state == "firing"
    port.oper_status = "up"
    port.save()
    evaluate.run(now=NOW + 2 * MIN)
    assert State.objects.get().state == "resolved" and State.objects.get().ack_until is None


def test_not_polled_unreachable_and_discontinuity(atm):
    rules.save({"name": "stale", "kind": "not_polled", "scope": "all", "count": "3"}, [])
    rules.save({"name": "gone", "kind": "unreachable", "scope": "pattern", "pattern": "merl*", "count": "2"}, [])
    rules.save({"name": "reboot", "kind": "discontinuity", "scope": "switch", "switch": "asx-alert",
                "window_minutes": "5"}, [])
    SwitchHealth.objects.create(switch=atm["sw"], last_success_at=NOW - 46 * timedelta(seconds=1))
    host = Host.objects.create(name="merlin", address="127.0.0.1")
    for k, ok in enumerate([True, False, False]):
        HostCheck.objects.create(host=host, time=NOW - (3 - k) * MIN, reachable=ok, method="tcp")
    polls(atm, NOW - 2 * MIN, 60, 10)
    polls(atm, NOW - MIN, 15, 10, flags=int(Flag.REBOOT))
    evaluate.run(now=NOW)
    got = {s.rule.name: s.state for s in State.objects.select_related("rule")}
    assert got == {"stale": "firing", "gone": "firing", "reboot": "firing"}
    evaluate.run(now=NOW + 10 * MIN)    # no sample in the window: the discontinuity rule has no reading
    assert State.objects.get(rule__name="reboot").state == "firing"


def test_a_scope_too_large_is_skipped_with_its_reason(atm, monkeypatch):
    from collector.alerts import scopes

    rate_rule(atm)
    monkeypatch.setattr(scopes, "MAX_OBJECTS_PER_RULE", 1)
    evaluate.run(now=NOW)
    assert "more than 1 objects (MAX_OBJECTS_PER_RULE)" in EvaluationRun.objects.first().skipped


def test_an_overlapping_run_skips(atm):
    from django.db import connection

    with connection.cursor() as cur:
        # Another session holds the lock: this one must skip, not wait.
        cur.execute("SELECT pg_advisory_lock(%s)", [evaluate.LOCK_KEY])
    import threading

    out = {}

    def other():
        from django.db import connection as c2

        out["r"] = evaluate.run(now=NOW)
        c2.close()

    t = threading.Thread(target=other)
    t.start()
    t.join(30)
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_unlock(%s)", [evaluate.LOCK_KEY])
    assert out["r"] == {"skipped": "another evaluation is running"}


def test_due_retries_and_lost_tasks_are_sent_again(atm, monkeypatch):
    from django.utils import timezone

    from collector.alerts import notify

    sent: list[list[int]] = []
    monkeypatch.setattr(notify, "dispatch", lambda ids: sent.append(list(ids)))
    dest = Destination.objects.create(name="d", url="json://127.0.0.1:9/h")
    now = timezone.now()
    fresh = Notification.objects.create(destination=dest, kind="test", title="t", body="b", next_try_at=now)
    lost = Notification.objects.create(destination=dest, kind="test", title="t", body="b",
                                       next_try_at=now - 2 * notify.LOST_AFTER)
    due = Notification.objects.create(destination=dest, kind="test", title="t", body="b", status="retrying",
                                      next_try_at=now)
    Notification.objects.create(destination=dest, kind="test", title="t", body="b", status="retrying",
                                next_try_at=now + MIN)
    Notification.objects.create(destination=dest, kind="test", title="t", body="b", status="sent", next_try_at=now)
    assert notify.dispatch_due(now) == 2
    assert sorted(sent[0]) == sorted([lost.id, due.id]) and fresh.id not in sent[0]


def test_a_long_window_reads_the_one_minute_tier_before_its_watermark(atm):
    from django.db import connection

    from tests.support import traffic_factory as f

    rate_rule(atm, window_minutes="120")
    mark = NOW.replace(second=0) - 2 * MIN           # tier buckets and the watermark are whole minutes
    polls(atm, mark - MIN, 180, 90)                   # raw: the last 3 minutes only
    evaluate.run(now=NOW)
    assert State.objects.get().state == "pending"     # raw alone does not cover 120 minutes
    with connection.cursor() as cur:                  # the tier: 118 minutes at 90 %, then its watermark
        for k in range(1, 119):
            cur.execute("INSERT INTO traffic_rollup_1m (bucket, series_id, sum_delta, sum_interval_ms, max_rate, "
                        "min_rate, samples, flagged) VALUES (%s, %s, %s, 60000, %s, %s, 4, 0)",
                        [mark - k * MIN, atm["in"].id, int(f.OC3_CELLS * 0.9 * 60), f.OC3_CELLS * 0.91,
                         f.OC3_CELLS * 0.89])
        cur.execute("INSERT INTO traffic_rollup_watermark (tier, done_until, updated_at) VALUES ('1m', %s, now()) "
                    "ON CONFLICT (tier) DO UPDATE SET done_until = EXCLUDED.done_until", [mark])
    evaluate.run(now=NOW + timedelta(seconds=15))
    state = State.objects.get()
    assert state.state == "firing" and 89 < state.value < 91, (state.value, state.detail)


def test_history_outlives_its_rule_retired_or_renamed_its_destination_and_its_switch(atm):
    """History is evidence: retiring a rule (the page's and the admin's delete), renaming it, deleting
    its destination or its switch keep every transition and notification, with the names of the time."""
    rule = rate_rule(atm)
    polls(atm, NOW - 10 * MIN, 600, 90)
    evaluate.run(now=NOW)
    assert transitions() == [("ok", "firing")] and Notification.objects.count() == 1
    rules.save({"name": "renamed", "kind": "rate", "scope": "switch", "switch": atm["sw"].name, "threshold": "80"},
               [], rule)
    actions.retire(rule)
    rule.refresh_from_db()
    assert rule.retired_at is not None and not rule.enabled
    assert evaluate.run(now=NOW + MIN)["rules"] == 0                     # a retired rule is not evaluated
    assert rules.save({"name": "renamed", "kind": "status", "scope": "switch", "switch": atm["sw"].name}, []).pk
    group = Group.objects.create(name="watched")
    actions.retire(rules.save({"name": "on a group", "kind": "rate", "scope": "group", "group": "watched",
                               "threshold": "50"}, []))
    group_edit.delete(group)                                              # a retired rule holds no group
    Destination.objects.filter(name="hook-r").delete()
    atm["sw"].delete()
    (t,) = Transition.objects.all()
    assert (t.rule_name, t.to_state) == ("A above 80", "firing")
    assert t.message == "FIRING: A above 80 on asx-alert A1 in (cells)"
    (n,) = Notification.objects.all()
    assert (n.transition_id, n.destination_name, n.kind) == (t.id, "hook-r", "firing")
    assert notify.send(n.id) == "failed"                                  # nowhere to send it: it says why
    n.refresh_from_db()
    assert n.last_error == "the destination hook-r is deleted"
