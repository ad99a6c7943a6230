"""Writes need a login; SNMP secrets are write-only everywhere and encrypted at rest."""
from __future__ import annotations

import pytest
from django.db import connection

from collector.inventory.models import Switch

pytestmark = pytest.mark.django_db
SECRET = "s3cret-community-9f2"


@pytest.fixture
def switch() -> Switch:
    return Switch.objects.create(name="asx-secret", address="127.0.0.1", community=SECRET,
                                 snmp_version="3", v3_user="ops", auth_proto="SHA", auth_key="auth-" + SECRET,
                                 priv_proto="AES", priv_key="priv-" + SECRET)


def test_secrets_are_encrypted_in_the_database(switch):
    with connection.cursor() as cur:
        cur.execute("SELECT community, auth_key, priv_key FROM inventory_switch WHERE id = %s", [switch.id])
        stored = cur.fetchone()
    assert all(SECRET not in value for value in stored)
    switch.refresh_from_db()
    assert switch.community == SECRET and switch.priv_key == "priv-" + SECRET
    assert SECRET not in repr(switch.community)


def test_admin_requires_login(client, switch):
    response = client.get(f"/admin/inventory/switch/{switch.id}/change/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    response = client.post("/admin/inventory/switch/add/", {"name": "x"})
    assert response.status_code == 302 and not Switch.objects.filter(name="x").exists()


def test_change_form_never_renders_a_secret_and_blank_keeps_it(admin_client, switch):
    page = admin_client.get(f"/admin/inventory/switch/{switch.id}/change/").content.decode()
    assert SECRET not in page and 'name="community"' in page
    form = {
        "name": switch.name, "address": switch.address, "enabled": "on", "profile": "auto", "poll_interval_s": 30,
        "poller_group": "default", "snmp_port": 161, "snmp_version": "3", "community": "", "v3_user": "ops",
        "auth_proto": "SHA", "auth_key": "", "priv_proto": "AES", "priv_key": "", "timeout_s": 2.0, "retries": 1,
    }
    response = admin_client.post(f"/admin/inventory/switch/{switch.id}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    switch.refresh_from_db()
    assert switch.poll_interval_s == 30
    assert switch.community == SECRET and switch.auth_key == "auth-" + SECRET   # blank = keep
    list_page = admin_client.get("/admin/inventory/switch/").content.decode()
    assert SECRET not in list_page


def test_new_secret_replaces_the_old_one(admin_client, switch):
    form = {
        "name": switch.name, "address": switch.address, "enabled": "on", "profile": "auto", "poll_interval_s": 15,
        "poller_group": "default", "snmp_port": 161, "snmp_version": "2c", "community": "new-community-1",
        "v3_user": "", "auth_proto": "", "auth_key": "", "priv_proto": "", "priv_key": "", "timeout_s": 2.0,
        "retries": 1,
    }
    assert admin_client.post(f"/admin/inventory/switch/{switch.id}/change/", form).status_code == 302
    switch.refresh_from_db()
    assert switch.community == "new-community-1"


def test_short_v3_key_is_refused(admin_client, switch):
    form = {
        "name": switch.name, "address": switch.address, "enabled": "on", "profile": "auto", "poll_interval_s": 15,
        "poller_group": "default", "snmp_port": 161, "snmp_version": "3", "community": "", "v3_user": "ops",
        "auth_proto": "SHA", "auth_key": "short", "priv_proto": "", "priv_key": "", "timeout_s": 2.0, "retries": 1,
    }
    page = admin_client.post(f"/admin/inventory/switch/{switch.id}/change/", form).content.decode()
    assert "at least 8 characters" in page and "short" not in page.split("errorlist")[0][-0:]


def test_poll_log_and_cli_output_never_contain_the_community(switch, capsys, caplog):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    Switch.objects.filter(pk=switch.pk).update(snmp_version="2c", snmp_port=9, timeout_s=0.2, retries=0,
                                                profile="if-mib")
    with pytest.raises(CommandError) as exc:
        call_command("poll", switch.name)
    out = capsys.readouterr()
    assert SECRET not in str(exc.value) + out.out + out.err + caplog.text
