"""Shared fixtures. Tests run against the real private TimescaleDB and redis of `make test`.

Layout: tests/<package>/test_<module>.py test one module each (units, with the database where
the module is about the database); tests/integration/ holds the scenarios (faults, the simulated
network, real agents, workers, the browser, the platform); tests/support/ the helpers they share
(agents, network builders, browser, Celery processes). Fixtures used in several folders are here.
"""
from __future__ import annotations

import os

import pytest


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
