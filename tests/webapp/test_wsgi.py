"""The WSGI module freezes what Django loaded (webapp/wsgi.py): a gunicorn worker's requests then
never walk the startup heap in a full collection. Run in a process of its own: freezing the test
process would change every later test's collections."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = ("import gc; before = gc.get_freeze_count(); import webapp.wsgi as w; "
         "from django.urls import get_resolver; "
         "print(before, gc.get_freeze_count(), callable(w.application), len(get_resolver().url_patterns))")


def test_the_wsgi_module_freezes_django_and_the_urlconf():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings"}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    before, after, app, patterns = out.stdout.split()
    assert before == "0" and int(after) > 50_000, out.stdout    # Django, the apps and the views: ~160,000
    assert app == "True" and int(patterns) > 10
