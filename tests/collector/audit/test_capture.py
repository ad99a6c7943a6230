"""Each way of changing a tracked object (the admin, a management command, a page) records one
AuditEvent with who, from where and what changed; SNMP secrets only as set/changed/cleared."""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from collector.audit import context
from collector.audit.models import AuditEvent
from collector.core.snapshot import ChannelInfo, PathInfo, PortInfo, Snapshot
from collector.inventory.discovery import apply_facts, apply_snapshot
from collector.inventory.models import Host, Port, Switch
from collector.runs.models import ExperimentRun
from tests.support.users import make_user

pytestmark = pytest.mark.django_db
SECRET = "s3cret-community-7d1"
SECRETS = (SECRET, "auth-" + SECRET, "priv-" + SECRET, "new-" + SECRET)
CLI = f"cli:{context.unix_user()}"


def switch_form(**kw) -> dict:
    form = {"name": "asx-a", "address": "192.0.2.10", "enabled": "on", "profile": "auto", "poll_interval_s": 15,
            "poller_group": "default", "snmp_port": 161, "snmp_version": "2c", "community": "", "v3_user": "",
            "auth_proto": "", "auth_key": "", "priv_proto": "", "priv_key": "", "timeout_s": 2.0, "retries": 1}
    return {**form, **kw}


def v3_switch() -> Switch:
    # Made with no actor bound: recorded as "system", before the case counts its events.
    return Switch.objects.create(name="asx-a", address="192.0.2.10", snmp_version="3", v3_user="ops",
                                 auth_proto="SHA", auth_key="auth-" + SECRET, priv_proto="AES",
                                 priv_key="priv-" + SECRET)


@dataclass
class Case:
    setup: Callable[[], object]                       # builds what the action changes
    act: Callable[[object, object], object]           # (client, what setup made) -> response or None
    actor: str
    source: str
    action: str
    object_type: str
    changes: dict = field(default_factory=dict)       # field -> expected change (a subset of the fields)
    absent: tuple[str, ...] = ()                      # fields that must not be in the changes


def _ok(response) -> None:
    assert response.status_code == 302, response.content.decode()[:3000]


def admin_post(url: str, form: dict):
    """POST an admin form; "{obj...}" in the URL or a value names what setup made."""
    return lambda client, obj: _ok(client.post(url.format(obj=obj), {
        k: v.format(obj=obj) if isinstance(v, str) else v for k, v in form.items()}))


def run_start(client, obj) -> None:
    call_command("run", "start", "ftp-1", "--bytes", "1000")


def run_stop(client, obj) -> None:
    call_command("run", "stop", "ftp-1")


def web_run(client, obj) -> None:
    client.force_login(make_user("op", "operator"))
    _ok(client.post("/runs/new", {"name": "web-1", "start": (timezone.now() - timedelta(minutes=1)).isoformat(),
                                  "bytes_sent": "5000"}))


def make_port() -> Port:
    return Port.objects.create(switch=Switch.objects.create(name="r1", address="192.0.2.1"), key="3", name="ge-3")


CASES = {
    "admin-create-switch": Case(
        lambda: None, admin_post("/admin/inventory/switch/add/", switch_form(community=SECRET)),
        "admin", "admin", "create", "inventory.switch",
        {"name": {"new": "asx-a"}, "poll_interval_s": {"new": 15}, "community": {"secret": "set"}},
        absent=("auth_key", "priv_key")),
    "admin-change-switch": Case(
        v3_switch, admin_post("/admin/inventory/switch/{obj.id}/change/", switch_form(
            snmp_version="3", v3_user="ops", auth_proto="SHA", priv_proto="AES", priv_key="new-" + SECRET,
            poll_interval_s=30)),
        "admin", "admin", "update", "inventory.switch",
        {"poll_interval_s": {"old": 15, "new": 30}, "priv_key": {"secret": "changed"}},
        absent=("auth_key", "community", "name")),           # a blank key keeps the stored one
    "admin-clear-secrets": Case(
        v3_switch, admin_post("/admin/inventory/switch/{obj.id}/change/", switch_form(
            snmp_version="3", v3_user="ops", clear_secrets="on")),
        "admin", "admin", "update", "inventory.switch",
        {"auth_key": {"secret": "cleared"}, "priv_key": {"secret": "cleared"},
         "auth_proto": {"old": "SHA", "new": ""}}),
    "admin-delete-switch": Case(
        v3_switch, admin_post("/admin/inventory/switch/{obj.id}/delete/", {"post": "yes"}),
        "admin", "admin", "delete", "inventory.switch",
        {"name": {"old": "asx-a"}, "auth_key": {"secret": "cleared"}}),
    "admin-create-host": Case(
        lambda: None, admin_post("/admin/inventory/host/add/", {
            "name": "mauchly", "address": "192.0.2.20", "check_method": "auto", "tcp_port": 22, "enabled": "on",
            "poller_group": "default"}),
        "admin", "admin", "create", "inventory.host", {"name": {"new": "mauchly"}, "address": {"new": "192.0.2.20"}}),
    "admin-rename-port": Case(
        make_port, admin_post("/admin/inventory/port/{obj.id}/change/", {
            "switch": "{obj.switch_id}", "key": "3", "name": "uplink", "agent_name": "", "label": "to core",
            "description": ""}),
        "admin", "admin", "update", "inventory.port",
        {"name": {"old": "ge-3", "new": "uplink"}, "label": {"old": "", "new": "to core"}}),
    "admin-create-link": Case(
        lambda: (make_port(), Host.objects.create(name="mauchly", address="192.0.2.20")),
        admin_post("/admin/inventory/link/add/", {"a_port": "{obj[0].id}", "b_host": "{obj[1].id}",
                                                  "source": "manual", "note": "fibre 12", "state": "confirmed"}),
        "admin", "admin", "create", "inventory.link", {"note": {"new": "fibre 12"}, "source": {"new": "manual"},
                                                       "state": {"new": "confirmed"}},
        absent=("b_port",)),
    "cli-add-switch": Case(
        lambda: None, lambda c, o: call_command("add_switch", "--no-check", "asx-c", "192.0.2.30", "--community",
                                                SECRET),
        CLI, "cli", "create", "inventory.switch", {"name": {"new": "asx-c"}, "community": {"secret": "set"}}),
    "cli-add-host": Case(
        lambda: None, lambda c, o: call_command("add_host", "houdini", "192.0.2.21"),
        CLI, "cli", "create", "inventory.host", {"name": {"new": "houdini"}}),
    "cli-run-start": Case(
        lambda: None, run_start, CLI, "cli", "create", "runs.experimentrun",
        {"name": {"new": "ftp-1"}, "bytes_sent": {"new": 1000}, "created_by": {"new": "cli"}}, absent=("end",)),
    "cli-run-stop": Case(
        lambda: ExperimentRun.objects.create(name="ftp-1", start=timezone.now() - timedelta(minutes=5)),
        run_stop, CLI, "cli", "update", "runs.experimentrun", {"end": {"old": None}}, absent=("name", "start")),
    "web-run-new": Case(
        lambda: None, web_run, "op", "web", "create", "runs.experimentrun",
        {"name": {"new": "web-1"}, "bytes_sent": {"new": 5000}, "created_by": {"new": "op"}}),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_each_change_records_one_event_with_its_actor_and_fields(case: Case, client, admin_user):
    obj = case.setup()
    if case.source == "admin":
        client.force_login(admin_user)
    before = set(AuditEvent.objects.values_list("id", flat=True))
    case.act(client, obj)
    events = list(AuditEvent.objects.exclude(id__in=before))
    assert len(events) == 1, [str(e) for e in events]
    event = events[0]
    assert (event.actor_label, event.source, event.action, event.object_type) == (
        case.actor, case.source, case.action, case.object_type)
    assert event.address == ("127.0.0.1" if case.source in ("web", "admin") else None)
    assert event.actor == (get_user_model().objects.get(username=case.actor) if case.source in ("web", "admin")
                           else None)
    for name, expected in case.changes.items():
        assert {k: event.changes[name][k] for k in expected} == expected, (name, event.changes.get(name))
    assert not set(case.absent) & set(event.changes), event.changes
    if case.action == "update":
        assert all(set(c) == {"secret"} or set(c) == {"old", "new"} for c in event.changes.values())
    assert_no_secret_stored()


def assert_no_secret_stored() -> None:
    """The whole audit table as text (every column of every row) holds no secret, in clear or
    as its Fernet ciphertext (tokens start with gAAAAA)."""
    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(string_agg(row_to_json(e)::text, E'\\n'), '') FROM audit_event e")
        dump = cur.fetchone()[0]
    assert dump, "no audit row to check"
    leaked = [s for s in (*SECRETS, "gAAAAA") if s in dump]
    assert not leaked, f"secret material in audit_event: {leaked}"


@pytest.mark.parametrize("actor", [context.SYSTEM, context.Actor(CLI, "cli"), context.Actor("op", "web")],
                         ids=["beat task", "manage.py discover", "check now on a page"])
def test_discovery_and_unchanged_saves_record_nothing(actor):
    switch = v3_switch()
    before = AuditEvent.objects.count()
    snap = Snapshot(ports=[PortInfo(key="1", name="A1", oper_status="up")],
                    paths=[PathInfo(port_key="1", vpi=0)], channels=[ChannelInfo(port_key="1", vpi=0, vci=100)])
    with context.acting_as(actor.label, source=actor.source):
        for uptime in (100, 200):                            # twice: the second run updates every row
            apply_facts(switch, "if-mib", {"sysDescr": "r1, IOS", "sysName": "r1", "sysUpTime": uptime})
            apply_snapshot(switch, snap)
        Switch.objects.get(pk=switch.pk).save()              # nothing changed at all
        port = Port.objects.get(switch=switch)
        port.name = "renamed by discovery"
        port.save()                                          # ports: only hand edits (admin, api)
    assert AuditEvent.objects.count() == before
    assert Switch.objects.get(pk=switch.pk).sys_name == "r1"


def test_without_a_bound_actor_the_system_acts_and_api_tokens_name_themselves():
    host = Host.objects.create(name="h1", address="192.0.2.5")
    created = AuditEvent.objects.get(object_type="inventory.host", action="create")
    assert (created.actor_label, created.source, created.actor) == ("system", "task", None)
    user = get_user_model().objects.create_user("alice")
    with context.acting_as("api-token:alice/ci", user, source="api", address="198.51.100.7"):
        host.description = "lab"
        host.save()
    changed = AuditEvent.objects.get(object_type="inventory.host", action="update")
    assert (changed.actor_label, changed.source, changed.actor, changed.address) == (
        "api-token:alice/ci", "api", user, "198.51.100.7")
    assert changed.changes == {"description": {"old": "", "new": "lab"}}
    assert context.current() == context.SYSTEM
    with pytest.raises(ValueError):
        context.set_actor("x", source="shell")   # type: ignore[arg-type]


def test_a_request_leaves_no_actor_bound(client, admin_user):
    client.force_login(admin_user)
    assert client.get("/admin/").status_code == 200
    assert context.current() == context.SYSTEM


def test_a_long_report_is_summarised_not_copied():
    report = {"intervals": ["x" * 100] * 100}
    run = ExperimentRun.objects.create(name="big", start=timezone.now() - timedelta(hours=1), report=report)
    event = AuditEvent.objects.get(object_id=str(run.id), object_type="runs.experimentrun")
    assert event.changes["report"] == {"new": f"(JSON of {len(json.dumps(report)):,} characters)"}
