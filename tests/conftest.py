"""Shared fixtures. Tests run against the real private TimescaleDB and redis of `make test`.

Layout: tests/<package>/test_<module>.py test one module each (units, with the database where
the module is about the database); tests/integration/ holds the scenarios (faults, the simulated
network, real agents, workers, the browser, the platform); tests/support/ the helpers they share
(agents, network builders, browser, Celery processes). Fixtures used in several folders are here.
"""
from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

import pytest


def other_redis_db(url: str, db: int = 1) -> str:
    """The same redis server, database `db` (redis:// and rediss:// URLs; others unchanged)."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        return url
    return urlunsplit(parts._replace(path=f"/{db}"))


@pytest.fixture(scope="session", autouse=True)
def _tests_use_their_own_redis_db():
    """`make run` and `make test` share state/cellar.env's redis server: the tests use another of its
    databases, so that a running service's workers never take a test's tasks (a background export,
    a poll) nor a test the service's. Set before anything connects; children inherit it."""
    from django.conf import settings
    from django.test.utils import override_settings

    from collector.poller.celery_app import app

    url = other_redis_db(settings.REDIS_URL)
    caches = {name: {**conf, "LOCATION": url} if conf.get("LOCATION") == settings.REDIS_URL else conf
              for name, conf in settings.CACHES.items()}
    with override_settings(REDIS_URL=url, CELERY_BROKER_URL=url, CACHES=caches):
        app.conf.broker_url = url
        os.environ["REDIS_URL"] = url
        yield


@pytest.fixture(autouse=True)
def _tiers_kept_for_the_test_archives(settings):
    """Test archives reach 10 days back (tests/support/traffic_factory.T0) and their tiers are read there;
    the default retention of the 1-minute tier (7 days) would count those buckets as dropped. The tests
    keep every tier 90 days or more; a test of retention sets its own."""
    settings.CELLAR_RETENTION_1M_DAYS = max(settings.CELLAR_RETENTION_1M_DAYS, 90)
    settings.CELLAR_RETENTION_15M_DAYS = max(settings.CELLAR_RETENTION_15M_DAYS, 400)


@pytest.fixture
def redis_url() -> str:
    from django.conf import settings

    return settings.REDIS_URL


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    """Production serves hashed names from collectstatic's manifest; tests serve the sources."""
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}


@pytest.fixture
def plain_static(settings):
    """Named form of the above, for tests that say so explicitly (live servers)."""
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}


@pytest.fixture(autouse=True)
def _roomy_rate_limits(settings):
    """Every test's requests come from 127.0.0.1: the suite made more than the address budget of
    expensive requests (60 a minute) in some minutes and later tests got 429s. Tests of the limits
    set their own rates (a different rate is a different counter in django-ratelimit)."""
    settings.CELLAR_RATE_LIMIT_USER = settings.CELLAR_RATE_LIMIT_ADDRESS = "100000/m"


@pytest.fixture(autouse=True)
def _spool_in_tmp(settings, tmp_path):
    """Each test gets its own spool directory: a spooled poll must never leak between tests."""
    settings.CELLAR_SPOOL_DIR = tmp_path / "spool"


@pytest.fixture(autouse=True)
def _fresh_ingest_caches():
    from collector.archive import ingest
    from collector.events import polled
    from collector.poller import runner

    ingest.forget_all()
    runner.forget_switches()
    polled.forget()
    yield
    ingest.forget_all()
    runner.forget_switches()
    polled.forget()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix) -> None:
    """One test database per pytest run, so concurrent runs (and their Celery children) never share one."""
    from django.conf import settings

    name = settings.DATABASES["default"]["NAME"]
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = f"test_{name}_{os.getpid()}"


@pytest.fixture(autouse=True)
def _clean_rollups(request, django_db_blocker):
    """Rollup watermarks and tiers written by a test must not leak into the next one."""
    yield
    if request.node.get_closest_marker("django_db") or {"live_server", "transactional_db", "db"} & set(
            request.fixturenames):
        from tests.support import traffic_factory

        with django_db_blocker.unblock():
            traffic_factory.reset_rollups()


@pytest.fixture
def client(db):
    """pytest-django's client, logged in as an operator (reads everything, runs checks, creates
    runs): page tests test pages; who may do what is tests/webapp/access/test_access_table.py's.
    Anonymous requests use django.test.Client() directly."""
    from django.test import Client

    from tests.support.users import make_user

    c = Client()
    c.force_login(make_user("tester", "operator"))
    return c


@pytest.fixture
def net(transactional_db):
    """36 h of polls of an ATM switch and an IP router at exactly known rates, rolled up."""
    from tests.support.traffic_network import build_net

    return build_net()


@pytest.fixture
def network(db) -> dict:
    """Two FORE-like switches, hosts, PVCs and stored polls for the status pages."""
    from tests.support.status_network import build_network

    return build_network()


# --------------------------------------------------------------------------- the fast loop
# `make check` sets CELLAR_FAST_LOOP=1 and no service runs: the scenarios (tests/integration/) and
# the unit tests that need PostgreSQL, redis, a browser or a network namespace are deselected (they
# run in `make test`), so a change to a module is checked in a minute or two. A unit test needs a
# service when it is marked so or asks, directly or through its fixtures, for one of these.
SERVICE_FIXTURES = frozenset({"db", "transactional_db", "django_db_setup", "live_server", "client", "admin_client",
                              "django_user_model", "django_assert_num_queries", "django_assert_max_num_queries",
                              "redis_url"})
SERVICE_MARKERS = ("django_db", "netns", "browser", "slow")


def needs_services(item: pytest.Item) -> bool:
    return item.nodeid.startswith("tests/integration/") or bool(
        SERVICE_FIXTURES & set(getattr(item, "fixturenames", ()))) or any(
        item.get_closest_marker(m) for m in SERVICE_MARKERS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("CELLAR_FAST_LOOP") != "1":
        return
    drop = [item for item in items if needs_services(item)]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [item for item in items if not needs_services(item)]
