"""API tokens end to end: made once, hashed at rest, accepted by the API and CSV, refused once
revoked or expired; the token page and `manage.py token`."""
from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django.utils import timezone

from collector.archive.models import Series
from tests.support.users import make_user
from webapp.access import tokens
from webapp.access.models import ApiToken


def bearer(text: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {text}"}


def test_a_token_works_and_stops_working_when_revoked(network):
    issued = tokens.issue(make_user("script-owner", "viewer"), "nightly export")
    sid = Series.objects.filter(switch=network["sa"]).values_list("id", flat=True)[0]
    api = Client()
    r = api.get(f"/traffic/api/data?s={sid}&range=1h", **bearer(issued.plaintext))
    assert r.status_code == 200 and r.json()["series"]
    csv_r = api.get(f"/traffic/export.csv?s={sid}&range=1h", **bearer(issued.plaintext))
    assert csv_r.status_code == 200 and b"".join(csv_r.streaming_content).startswith(b"time")
    assert ApiToken.objects.get(pk=issued.token.pk).last_used is not None
    tokens.revoke(issued.token)
    r = api.get(f"/traffic/api/data?s={sid}&range=1h", **bearer(issued.plaintext))
    assert r.status_code == 401 and "revoked" in r.json()["error"]
    assert r["WWW-Authenticate"].startswith("Bearer")


def test_only_a_digest_is_stored(db):
    issued = tokens.issue(make_user("u", "viewer"), "t")
    with connection.cursor() as cur:
        cur.execute("SELECT * FROM access_api_token")
        stored = repr(cur.fetchall())
    assert issued.plaintext not in stored and issued.plaintext[len(tokens.PREFIX) + 6:] not in stored
    assert issued.token.digest == tokens.digest(issued.plaintext) and len(issued.token.digest) == 64


@pytest.mark.parametrize("header, why", [
    ("Bearer cellar_not-a-real-token", "unknown API token"),
    ("Bearer something-else", "not a Cellar API token"),
])
def test_bad_tokens_get_401_with_the_reason(db, header, why):
    r = Client().get("/traffic/api/series", HTTP_AUTHORIZATION=header)
    assert r.status_code == 401 and why in r.json()["error"]


def test_an_expired_token_and_a_deactivated_user_are_refused(db):
    user = make_user("old", "viewer")
    old = tokens.issue(user, "old", days=1, now=timezone.now() - timedelta(days=2))
    r = Client().get("/traffic/api/series", **bearer(old.plaintext))
    assert r.status_code == 401 and "expired" in r.json()["error"]
    live = tokens.issue(user, "live")
    user.is_active = False
    user.save()
    assert Client().get("/traffic/api/series", **bearer(live.plaintext)).status_code == 401


def test_a_token_has_its_users_role_and_no_more(network):
    viewer = tokens.issue(make_user("v", "viewer"), "t").plaintext
    assert Client().get("/switches/", **bearer(viewer)).status_code == 200
    assert Client().post("/hosts/alpha.example/check", **bearer(viewer)).status_code == 403
    nobody = tokens.issue(make_user("n", None), "t").plaintext
    assert Client().get("/traffic/api/series", **bearer(nobody)).status_code == 403


@pytest.mark.parametrize("name, days, why", [
    ("", 10, "needs a name"), ("x", 0, "1 to 366 days"), ("x", 400, "1 to 366 days"),
])
def test_token_limits(db, name, days, why):
    with pytest.raises(tokens.TokenError, match=why):
        tokens.issue(make_user("u", "viewer"), name, days)


def test_the_token_page_shows_a_new_token_once_and_revokes(db):
    user = make_user("alice", "operator")
    web = Client()
    web.force_login(user)
    made = web.post("/accounts/tokens/", {"name": "wiki", "days": "30"})
    assert made.status_code == 201
    page = made.content.decode()
    text = page.split('id="token-text">')[1].split("<")[0]
    assert text.startswith(tokens.PREFIX) and tokens.check(text).user == user
    again = web.get("/accounts/tokens/").content.decode()
    assert text not in again and "wiki" in again and "operator" in again
    dup = web.post("/accounts/tokens/", {"name": "wiki"})
    assert dup.status_code == 400 and "already has a token named" in dup.content.decode()
    tok = ApiToken.objects.get(user=user, name="wiki")
    other = Client()
    other.force_login(make_user("mallory", "operator"))
    assert other.post(f"/accounts/tokens/{tok.id}/revoke").status_code == 404      # not hers
    assert web.post(f"/accounts/tokens/{tok.id}/revoke").status_code == 302
    assert Client().get("/traffic/api/series", **bearer(text)).status_code == 401


def test_token_command(db):
    make_user("bob", "viewer")
    out, err = io.StringIO(), io.StringIO()
    call_command("token", "create", "bob", "cron", "--days", "7", stdout=out, stderr=err)
    text = out.getvalue().strip()
    assert tokens.check(text).name == "cron" and "shown once" in err.getvalue()
    listing = io.StringIO()
    call_command("token", "list", "bob", stdout=listing)
    assert "cron" in listing.getvalue() and text not in listing.getvalue() and "active" in listing.getvalue()
    tok = ApiToken.objects.get(name="cron")
    call_command("token", "revoke", str(tok.id), stdout=io.StringIO())
    with pytest.raises(tokens.TokenError, match="revoked"):
        tokens.check(text)
    with pytest.raises(CommandError, match="no user"):
        call_command("token", "create", "nobody", "x")


def test_role_command(db, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-password-1\n"))
    out = io.StringIO()
    call_command("role", "carol", "admin", "--create", stdout=out)
    assert "carol: admin" in out.getvalue()
    from django.contrib.auth import get_user_model

    carol = get_user_model().objects.get(username="carol")
    assert carol.is_staff and carol.check_password("a-long-password-1")
    assert carol.has_perm("inventory.change_switch") and carol.has_perm("access.run_checks")
    call_command("role", "carol", "viewer", stdout=io.StringIO())
    carol = get_user_model().objects.get(username="carol")
    assert not carol.is_staff and not carol.has_perm("inventory.change_switch") and carol.has_perm(
        "access.read_archive")
