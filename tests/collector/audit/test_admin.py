"""The audit trail is read only, and only for superusers and holders of audit.view_auditevent;
the capture knows every secret field of the inventory."""
from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from collector.audit.capture import REGISTRY, is_secret_field
from collector.audit.models import AuditEvent
from collector.inventory.models import Host, Switch
from collector.inventory.secrets import SecretField

pytestmark = pytest.mark.django_db
LIST = "/admin/audit/auditevent/"


@pytest.fixture
def event() -> AuditEvent:
    Switch.objects.create(name="asx-a", address="192.0.2.10", community="c0mmunity-in-admin-test")
    return AuditEvent.objects.get(object_type="inventory.switch")


def staff(name: str, *perms: str):
    user = get_user_model().objects.create_user(name, password="pw-for-tests-1", is_staff=True)
    user.user_permissions.add(*(Permission.objects.get(content_type__app_label="audit", codename=p) for p in perms))
    return user


@pytest.mark.parametrize("who, status", [
    ("superuser", 200),
    ("staff with audit.view_auditevent", 200),
    ("staff without it", 403),
    ("non-staff user", 302),          # to the admin login: the admin is for staff only
    ("anonymous", 302),
])
def test_who_can_see_the_audit_list(client, admin_user, event, who, status):
    users = {"superuser": admin_user, "staff with audit.view_auditevent": staff("viewer", "view_auditevent"),
             "staff without it": staff("other"),
             "non-staff user": get_user_model().objects.create_user("op", password="pw-for-tests-1")}
    if who in users:
        client.force_login(users[who])
    for url in (LIST, f"{LIST}{event.id}/change/"):
        response = client.get(url)
        assert response.status_code == status, (url, response.status_code)
        if status == 302:
            assert "/admin/login/" in response["Location"]
        if status == 200:
            assert "asx-a" in response.content.decode()


def test_nobody_adds_changes_or_deletes_an_event(admin_client, event):
    assert admin_client.get(f"{LIST}add/").status_code == 403
    assert admin_client.post(f"{LIST}{event.id}/delete/", {"post": "yes"}).status_code == 403
    page = admin_client.get(f"{LIST}{event.id}/change/").content.decode()
    assert 'name="_save"' not in page and "c0mmunity" not in page and "<td>community</td><td>set</td>" in page
    bulk = admin_client.post(LIST, {"action": "delete_selected", "_selected_action": [event.id], "post": "yes"})
    assert bulk.status_code in (200, 302) and AuditEvent.objects.filter(pk=event.id).exists()
    assert [p.codename for p in Permission.objects.filter(content_type__app_label="audit")] == ["view_auditevent"]


def test_the_list_filters_and_searches(admin_client, event):
    Host.objects.create(name="mauchly", address="192.0.2.20")
    page = admin_client.get(LIST, {"object_type": "inventory.host"}).content.decode()
    assert "mauchly" in page and "asx-a" not in page
    page = admin_client.get(LIST, {"q": "asx"}).content.decode()
    assert "asx-a" in page and "mauchly" not in page
    for query in ({"action": "create"}, {"actor_label": "system"}, {"source": "task"}, {"time__gte": "2000-01-01"}):
        assert "mauchly" in admin_client.get(LIST, query).content.decode(), query


def test_every_secret_field_of_the_inventory_is_treated_as_secret():
    """is_secret_field finds SecretField by class name (the audit imports no inventory code):
    this pins it to the real class, and the Switch registration to all three credentials."""
    secret_fields = [f for m in apps.get_app_config("inventory").get_models() for f in m._meta.concrete_fields
                     if isinstance(f, SecretField)]
    assert {f.name for f in secret_fields} == {"community", "auth_key", "priv_key"}
    assert all(is_secret_field(f) for f in secret_fields)
    assert REGISTRY[Switch].secrets == {"community", "auth_key", "priv_key"}
    assert not any(is_secret_field(f) for f in Host._meta.concrete_fields)
