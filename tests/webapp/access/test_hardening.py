"""HTTP hardening: the Content Security Policy (no inline script anywhere), secure cookies and
HSTS under HTTPS, login lock-out (django-axes), the admin's path, and `check --deploy` clean
with production settings."""
from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings

from tests.support.users import make_user

ROOT = Path(__file__).resolve().parents[3]


def test_every_answer_carries_the_policy_and_scripts_come_only_from_our_files(client, network):
    r = client.get("/traffic/")
    policy = dict(part.strip().split(" ", 1) for part in r["Content-Security-Policy"].split(";") if part.strip())
    assert policy["script-src"] == "'self'" and "unsafe" not in policy["script-src"]
    assert policy["default-src"] == "'self'" and policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'"
    assert r["X-Frame-Options"] == "DENY" and r["X-Content-Type-Options"] == "nosniff"


def test_no_template_has_an_inline_script_or_handler():
    offenders = []
    for path in ROOT.glob("webapp/**/templates/**/*.html"):
        text = path.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            if "src=" not in tag and 'type="application/json"' not in tag:
                offenders.append(f"{path.relative_to(ROOT)}: {tag}")
        offenders += [f"{path.relative_to(ROOT)}: {m}" for m in re.findall(r"\son[a-z]+=\"", text)]
        offenders += [f"{path.relative_to(ROOT)}: javascript: URL" for _ in re.findall(r"javascript:", text)]
    assert not offenders


def test_a_user_name_is_locked_out_after_repeated_failures(db, settings):
    make_user("victim", "viewer", password="the-right-password-1")
    c = Client(REMOTE_ADDR="127.0.0.41")
    for _ in range(settings.CELLAR_LOGIN_FAILURE_LIMIT - 1):
        r = c.post("/accounts/login/", {"username": "victim", "password": "wrong"})
        assert r.status_code == 200 and 'id="login-error"' in r.content.decode()
    r = c.post("/accounts/login/", {"username": "victim", "password": "wrong"})
    assert r.status_code == 429 and int(r["Retry-After"]) == settings.CELLAR_LOGIN_LOCKOUT_MINUTES * 60
    # Locked: even the right password is refused now, from this address.
    r = c.post("/accounts/login/", {"username": "victim", "password": "the-right-password-1"})
    assert r.status_code == 429 and "locked out" in r.content.decode()
    # Another address is not locked out (the lock-out is per user name and address).
    ok = Client(REMOTE_ADDR="127.0.0.42").post("/accounts/login/", {"username": "victim",
                                                                    "password": "the-right-password-1"})
    assert ok.status_code == 302 and ok.url == "/"


def test_logging_in_goes_where_the_visitor_was_going(db):
    make_user("walker", "viewer", password="the-right-password-2")
    c = Client()
    r = c.get("/switches/")
    assert r.status_code == 302 and r.url == "/accounts/login/?next=%2Fswitches%2F"
    page = c.get(r.url).content.decode()
    assert 'name="next" value="/switches/"' in page
    r = c.post("/accounts/login/", {"username": "walker", "password": "the-right-password-2", "next": "/switches/"})
    assert r.status_code == 302 and r.url == "/switches/"
    r = c.post("/accounts/login/", {"username": "walker", "password": "the-right-password-2",
                                    "next": "https://evil.example/"})
    assert r.url == "/"


def run_check_deploy(extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELLAR_HTTPS", "DEBUG"))}
    env.update({"SECRET_KEY": secrets.token_urlsafe(50), "DEBUG": "false", "ALLOWED_HOSTS": "cellar.example.net",
                "CSRF_TRUSTED_ORIGINS": "https://cellar.example.net", **extra})
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_check_deploy_is_clean_with_production_settings():
    done = run_check_deploy({"CELLAR_HTTPS": "true"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_check_deploy_fails_without_https():
    """The check is not vacuous: the same settings over plain HTTP are reported."""
    done = run_check_deploy({"CELLAR_HTTPS": "false"})
    assert done.returncode != 0 and "SECURE_SSL_REDIRECT" in done.stdout + done.stderr


def test_https_sends_hsts_and_secure_cookies():
    done = subprocess.run(
        [sys.executable, "-c", "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
         "'webapp.settings'); django.setup(); from django.conf import settings as s; "
         "print(s.SECURE_HSTS_SECONDS, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT)"],
        cwd=ROOT, env={**os.environ, "CELLAR_HTTPS": "true"}, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["31536000", "True", "True", "True"], done.stderr


@pytest.mark.parametrize("value", ["", "/", "a b/", "x//y"])
def test_a_bad_admin_path_is_refused_at_start(value):
    from webapp import env

    os.environ["CELLAR_TEST_ADMIN_PATH"] = value
    try:
        with pytest.raises(env.EnvError, match="CELLAR_TEST_ADMIN_PATH"):
            if not value:                      # empty means "use the default": test the default's checker
                env.env_url_path("CELLAR_TEST_ADMIN_PATH", "")
            else:
                env.env_url_path("CELLAR_TEST_ADMIN_PATH", "admin/")
    finally:
        del os.environ["CELLAR_TEST_ADMIN_PATH"]
    env.READ.discard("CELLAR_TEST_ADMIN_PATH")


def test_the_admin_answers_on_its_configured_path():
    done = subprocess.run(
        [sys.executable, "-c", "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
         "'webapp.settings'); django.setup(); from django.urls import reverse; "
         "print(reverse('admin:index'), reverse('admin:inventory_switch_changelist'))"],
        cwd=ROOT, env={**os.environ, "CELLAR_ADMIN_PATH": "ops/cellar-admin"}, capture_output=True, text=True,
        timeout=60)
    assert done.stdout.split() == ["/ops/cellar-admin/", "/ops/cellar-admin/inventory/switch/"], done.stderr


@override_settings(CELLAR_ANONYMOUS_READ=False)
def test_the_login_page_itself_is_open(db):
    r = Client().get("/accounts/login/")
    assert r.status_code == 200 and 'id="login-form"' in r.content.decode()
