"""Shared fixtures. Tests run against the real private TimescaleDB and redis of `make test`."""
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


@pytest.fixture(autouse=True)
def _spool_in_tmp(settings, tmp_path):
    """Each test gets its own spool directory: a spooled poll must never leak between tests."""
    settings.CELLAR_SPOOL_DIR = tmp_path / "spool"


@pytest.fixture(autouse=True)
def _fresh_ingest_caches():
    from collector.archive import ingest
    from collector.poller import runner

    ingest.forget_all()
    runner.forget_switches()
    yield
    ingest.forget_all()
    runner.forget_switches()


def is_root() -> bool:
    return os.geteuid() == 0


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix) -> None:
    """One test database per pytest run, so concurrent runs (and their Celery children) never share one."""
    from django.conf import settings

    name = settings.DATABASES["default"]["NAME"]
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = f"test_{name}_{os.getpid()}"
