"""Rate limits on the expensive endpoints: 429 with Retry-After over the per-user or per-address
budget, counted in the real redis; plots and pages are not limited."""
from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from collector.archive.models import Series
from tests.support.users import make_user


@pytest.fixture
def limited(network, settings):
    settings.CELLAR_RATE_LIMIT_USER = "3/m"
    settings.CELLAR_RATE_LIMIT_ADDRESS = "5/m"
    cache.clear()
    yield Series.objects.filter(switch=network["sa"]).values_list("id", flat=True)[0]
    cache.clear()


def read(response):
    if response.streaming:
        b"".join(response.streaming_content)
    return response


def logged_in(name: str, address: str) -> Client:
    c = Client(REMOTE_ADDR=address)
    c.force_login(make_user(name, "viewer"))
    return c


def test_a_burst_of_exports_from_one_user_gets_429_with_retry_after(limited):
    alice = logged_in("alice", "127.0.0.21")
    url = f"/traffic/export.csv?s={limited}&range=1h"
    # Each CSV read to its end: an unread stream holds its query and this thread's connection.
    assert [read(alice.get(url)).status_code for _ in range(3)] == [200, 200, 200]
    r = alice.get(url)
    assert r.status_code == 429
    assert 1 <= int(r["Retry-After"]) <= 60
    assert "limit is 3/m" in r.json()["error"] and "user" in r.json()["error"]
    assert alice.get(f"/traffic/api/p95?s={limited}&range=1h").status_code == 429   # one budget for all
    assert alice.get(f"/traffic/api/data?s={limited}&range=1h").status_code == 200  # plots are not limited
    assert alice.get("/switches/").status_code == 200
    bob = logged_in("bob", "127.0.0.22")                                           # others go on
    assert read(bob.get(url)).status_code == 200


def test_many_accounts_from_one_address_hit_the_address_budget(limited):
    url = "/datasets/export.csv?switch=fore-a"
    answers = [logged_in(f"u{i}", "127.0.0.31").get(url).status_code for i in range(6)]
    assert answers == [200] * 5 + [429]
    assert logged_in("elsewhere", "127.0.0.32").get(url).status_code == 200
