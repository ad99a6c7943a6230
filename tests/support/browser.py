"""Debian's headless chromium driven by Playwright, shared by the page tests.

Never skipped: `make test` installs chromium; without it the browser tests fail loudly.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path("/tmp/cellar-shots")
# As root chromium needs --no-sandbox; the background-networking flags keep it from calling
# out of this closed machine.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium() -> Iterator:
    """Yield a launched browser (use from a module-scoped fixture)."""
    from playwright.sync_api import sync_playwright

    assert os.path.exists(CHROMIUM), "Debian chromium is not installed (make test installs it)"
    SHOTS.mkdir(parents=True, exist_ok=True)
    # Playwright's sync API keeps an event loop in this thread; the ORM calls the tests make
    # around it are synchronous and safe (Django's documented escape hatch for this case).
    old = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            yield browser
            browser.close()
    finally:
        if old is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = old


def log_in(context, base_url: str, role: str = "operator", username: str = "browser"):
    """Give a browser context the session of a new user with `role` (every page needs a login).
    The session is made by Django's test client (force_login) and handed over as its cookie."""
    from django.conf import settings
    from django.test import Client

    from tests.support.users import make_user

    user = make_user(username, role)
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    context.add_cookies([{"name": name, "value": client.cookies[name].value, "url": base_url}])
    return user


# What sticks out of the window: the page itself, or a table whose right edge is past it (a column
# cut off, or scrolled out of sight in its box, is one the reader does not see).
STICKING_OUT_JS = """() => {
  const w = window.innerWidth, out = [], page = document.documentElement.scrollWidth;
  if (page > w) out.push(`the page is ${page} px wide in a ${w} px window`);
  for (const t of document.querySelectorAll('main table')) {
    const r = t.getBoundingClientRect();
    if (r.width && r.right > w + 0.5) out.push(`table ${t.id || t.className || '?'} ends at ${Math.round(r.right)} px`);
  }
  return out;
}"""


def sticking_out(page) -> list[str]:
    """What of the page does not fit its window's width (nothing: [])."""
    return page.evaluate(STICKING_OUT_JS)


def watched_page(browser, base_url: str, role: str, username: str, viewport: dict):
    """(context, page) logged in with `role`; page.errors collects console errors and uncaught
    exceptions (CSP violations included) for the test to assert on. Close the context after."""
    ctx = browser.new_context(viewport=viewport)
    log_in(ctx, base_url, role, username=username)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    return ctx, pg
