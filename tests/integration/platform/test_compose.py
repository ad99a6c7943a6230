"""docker-compose.yml and .env.example agree with the settings module (no Docker engine here)."""
from __future__ import annotations

import re
from pathlib import Path

import yaml
from django.conf import settings

ROOT = Path(__file__).resolve().parents[3]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
EXAMPLE = {m.group(1) for m in re.finditer(r"^([A-Z][A-Z0-9_]*)=", (ROOT / ".env.example").read_text(), re.M)}
# Read by scripts/ (make run/test) or by docker-compose.yml itself, not by Django.
PROCESS_VARIABLES = {"CELLAR_PG_PORT", "CELLAR_REDIS_PORT", "CELLAR_WEB_PORT", "CELLAR_ADMIN_PASSWORD",
                     "CELLAR_QUEUES", "CELLAR_WORKER_CONCURRENCY", "POSTGRES_PASSWORD"}


def _command(service: dict) -> str:
    cmd = service.get("command", "")
    return " ".join(cmd) if isinstance(cmd, list) else cmd


def test_services_and_their_commands():
    services = COMPOSE["services"]
    assert {"db", "redis", "web", "worker", "beat", "migrate", "trapd"} <= set(services)
    assert "manage.py trapd" in _command(services["trapd"]) and "162:1162/udp" in services["trapd"]["ports"]
    assert services["db"]["image"].startswith("timescale/timescaledb:")
    assert "gunicorn webapp.wsgi:application" in _command(services["web"])
    assert "celery -A collector.poller.celery_app worker" in _command(services["worker"])
    assert "celery -A collector.poller.celery_app beat" in _command(services["beat"])
    assert "manage.py migrate" in _command(services["migrate"])
    for name in ("db", "redis", "web", "worker", "beat", "trapd"):
        assert "healthcheck" in services[name], f"{name} has no health check"
    assert "db-data" in COMPOSE["volumes"]


def test_the_worker_consumes_the_queues_beat_sends_to():
    from collector.poller.schedule import static_entries

    worker = _command(COMPOSE["services"]["worker"])
    default_queues = re.search(r"CELLAR_QUEUES:-([a-z.,]+)", worker).group(1).split(",")
    for entry in static_entries().values():
        assert entry["options"]["queue"] in default_queues
    assert "polls" in default_queues   # switches of the default poller group


def test_every_environment_name_is_documented_and_known_to_settings():
    x_app = COMPOSE["x-app"]
    names = set(x_app["environment"])
    text = (ROOT / "docker-compose.yml").read_text()
    names |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", text)) | set(re.findall(r"\$\$\{([A-Z][A-Z0-9_]*)", text))
    names -= {"HOSTNAME"}
    undocumented = names - EXAMPLE
    assert not undocumented, f"not in .env.example: {sorted(undocumented)}"
    # Every documented variable is read by the settings module or by the process scripts.
    unused = EXAMPLE - settings.ENV_VARIABLES - PROCESS_VARIABLES
    assert not unused, f"documented but read by nothing: {sorted(unused)}"
    # And every variable the settings read is documented.
    missing = settings.ENV_VARIABLES - EXAMPLE
    assert not missing, f"read by settings but not in .env.example: {sorted(missing)}"


def test_the_env_file_is_wired_to_every_app_service():
    for name in ("web", "worker", "beat", "migrate", "trapd"):
        service = {**COMPOSE["x-app"], **COMPOSE["services"][name]}
        assert service.get("env_file") == ".env"
