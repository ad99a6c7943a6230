"""migrations/alerts/0003 and 0004: a database made before rules were retired migrates forward with
its history, each transition and notification taking the names its rule and destination had (and
its value's unit), and from then on deleting the rule keeps them."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from collector.alerts import actions
from collector.alerts.models import Notification, Rule, Transition

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE = [("alerts", "0002_rule_unit_bits")]
AFTER = [("alerts", "0004_state_transition_unit")]


@pytest.fixture(autouse=True)
def _newest_after():
    """Every app back at its newest migration whatever the test did: the models imported above, and every
    test after this one, need the newest tables."""
    yield
    _migrate(_latest())


def _latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def test_old_history_takes_the_names_of_its_rule_and_destination():
    old = _migrate(BEFORE)
    now = timezone.now()
    rule = old.get_model("alerts", "Rule").objects.create(name="core down", kind="not_polled", scope="all")
    dest = old.get_model("alerts", "Destination").objects.create(name="noc-hook", url="json://127.0.0.1:9/h")
    state = old.get_model("alerts", "State").objects.create(rule=rule, object_kind="port", object_id=1, label="x A1",
                                                             state="firing", since=now, evaluated_at=now)
    tr = old.get_model("alerts", "Transition").objects.create(state=state, at=now, from_state="ok",
                                                              to_state="firing", message="FIRING: core down on x A1")
    old.get_model("alerts", "Notification").objects.create(transition=tr, destination=dest, kind="firing",
                                                           title="t", body="b", next_try_at=now)
    _migrate(AFTER)
    _migrate(_latest())
    (t,) = Transition.objects.all()
    (n,) = Notification.objects.all()
    assert (t.rule_id, t.rule_name, n.transition_id, n.destination_name) == (rule.id, "core down", t.id, "noc-hook")
    assert t.unit == t.state.unit == "s"
    actions.retire(Rule.objects.get())
    Rule.objects.create(name="core down", kind="not_polled", scope="all")    # the name is free again
    assert Transition.objects.get().rule.retired_at is not None and Notification.objects.count() == 1
