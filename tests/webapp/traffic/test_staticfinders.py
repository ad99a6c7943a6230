"""Plotly's JavaScript is served from the installed wheel: by the finders, and by whitenoise after
`collectstatic` with DEBUG off (the production setup), under a hashed, cacheable name."""
from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import Client

from tests.support.users import make_user
from webapp.traffic.staticfinders import PACKAGE_DATA


def test_finder_finds_plotly_in_the_wheel():
    path = finders.find("traffic/vendor/plotly.min.js")
    assert path and Path(path) == PACKAGE_DATA / "plotly.min.js"
    assert finders.find("cellar/cellar.css")          # base.html's stylesheet is collected too
    assert finders.find("traffic/traffic.js") and finders.find("traffic/traffic.css")


@pytest.mark.django_db
def test_collectstatic_and_whitenoise_serve_it_with_debug_off(settings, tmp_path, db):
    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path / "static"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}}
    call_command("collectstatic", "--noinput", "--ignore", "admin", verbosity=0)
    copied = settings.STATIC_ROOT / "traffic" / "vendor" / "plotly.min.js"
    assert copied.stat().st_size == (PACKAGE_DATA / "plotly.min.js").stat().st_size
    client = Client()                                   # a new handler: whitenoise reads STATIC_ROOT now
    client.force_login(make_user("viewer", "viewer"))
    page = client.get("/traffic/").content.decode()
    hashed = next(part for part in page.split('"') if "plotly." in part and part.endswith(".js"))
    assert hashed != "/static/traffic/vendor/plotly.min.js"       # manifest name with a content hash
    r = client.get(hashed)
    assert r.status_code == 200 and r["Content-Type"].startswith("text/javascript")
    assert "max-age" in r.get("Cache-Control", "")
    assert b"".join(r.streaming_content)[:200] == copied.read_bytes()[:200]
