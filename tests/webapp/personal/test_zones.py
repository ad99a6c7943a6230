"""The viewer's zone: the site default (CELLAR_TIME_ZONE), a user's own choice, and status pages
and figures that follow it."""
from __future__ import annotations

import pytest
from django.test import Client

from tests.support.users import make_user
from webapp.personal import zones

pytestmark = pytest.mark.django_db


def test_a_users_zone_wins_over_the_site_default(settings):
    settings.CELLAR_TIME_ZONE = "Europe/Berlin"
    u = make_user("z", "viewer")
    assert zones.of_user(u).key == "Europe/Berlin"
    zones.save(u, "Asia/Kolkata")
    assert zones.of_user(u).key == "Asia/Kolkata"
    with pytest.raises(zones.UnknownZone, match="unknown time zone"):
        zones.save(u, "Nowhere/Special")


def test_the_settings_page_saves_and_status_pages_follow(network, settings):
    settings.CELLAR_TIME_ZONE = "UTC"
    c = Client()
    c.force_login(make_user("k", "viewer"))
    page = c.get("/switches/fore-a/").content.decode()
    assert 'times in <a href="/me/" title="change your time zone">UTC</a>' in page
    bad = c.post("/me/", {"time_zone": "Not/AZone"})
    assert bad.status_code == 400 and "unknown time zone" in bad.content.decode()
    assert c.post("/me/", {"time_zone": "Asia/Kolkata"}).status_code == 302
    page = c.get("/switches/fore-a/").content.decode()
    assert "times in <a" in page and "Asia/Kolkata</a>" in page and "IST Asia/Kolkata" in page
    # back to the site default
    c.post("/me/", {"time_zone": ""})
    assert "UTC</a>" in c.get("/switches/").content.decode()


def test_the_env_helper_refuses_a_bad_zone(monkeypatch):
    from webapp import env

    monkeypatch.setenv("CELLAR_TIME_ZONE", "Europe/Nowhere")
    with pytest.raises(env.EnvError, match="not an IANA time zone"):
        env.env_zone("CELLAR_TIME_ZONE", "UTC")
