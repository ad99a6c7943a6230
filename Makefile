# Cellar: developer and CI entry points. Provisioning lives in scripts/ (see scripts/provision.sh);
# the app processes of `make run` are supervisord's programs, driven by `python -m services`.
# Everything the targets create (PostgreSQL cluster, redis, supervisord.conf, sockets, logs,
# cellar.env) is under state/, which is git-ignored. Ports: CELLAR_PG_PORT (54329),
# CELLAR_REDIS_PORT (63799), CELLAR_WEB_PORT (8000), CELLAR_TRAP_PORT (1162/udp).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PY       := .venv/bin/python
WITH_ENV := scripts/with-env.sh

.PHONY: help run stop provision test check lint mibs mib-add mib-check bench bench-smoke status logs clean-state

help: ## Show this help
	@echo "Cellar make targets:"
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo "Variables: PYTEST_ARGS='-k foo' (test), FOLLOW=1 LOG_LINES=N (logs), FILES=... VENDOR=... (mib-add)."

run: ## Provision, start supervisord and its programs (simnet, web, workers, beat, trapd); print the dashboard URL
	@scripts/start-services.sh

stop: ## Stop everything `make run` started (programs, supervisord, namespace, redis, PostgreSQL)
	@scripts/stop.sh

provision: ## Provision only (packages, TimescaleDB, PostgreSQL, redis, cellar.env, .venv, migrate)
	@scripts/provision.sh

test: ## Provision services (no web processes), run the static checks, then the test suite
	@scripts/provision.sh --no-django
	@scripts/lint.sh
	@$(WITH_ENV) $(PY) -m pytest $(PYTEST_ARGS)

check: ## The fast loop: the static checks and every test that needs no service (no PostgreSQL, redis, browser or namespace)
	@scripts/provision.sh --venv-only
	@scripts/lint.sh
	@env -u DATABASE_URL -u REDIS_URL CELLAR_FAST_LOOP=1 CELLAR_ENV_FILE=/nonexistent SECRET_KEY=fast-loop-only \
		DATABASE_URL=postgres://fast-loop@127.0.0.1:9/none REDIS_URL=redis://127.0.0.1:9/0 \
		$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

lint: ## ruff, import-linter contracts and mypy (part of `make test`)
	@scripts/lint.sh

mibs: ## Compile every module of mibs/compiled/ again from its MIB text (after changing a text)
	@scripts/provision.sh --venv-only
	@$(PY) -m collector.mibc rebuild

mib-add: ## Compile vendor MIB texts and what they import: make mib-add FILES="VENDOR-MIB.my ..." [VENDOR=name]
	@scripts/provision.sh --venv-only
	@$(PY) -m collector.mibc add $(FILES) $(if $(VENDOR),--vendor $(VENDOR))

mib-check: ## Fail when mibs/compiled/ is not what the MIB texts compile to
	@scripts/provision.sh --venv-only
	@$(PY) -m collector.mibc check

bench: ## Run the benchmarks (python -m benchmarks.run)
	@scripts/provision.sh --no-django
	@$(WITH_ENV) $(PY) -m benchmarks.run $(BENCH_ARGS)

bench-smoke: ## Quick benchmark run, to catch regressions in CI
	@scripts/provision.sh --no-django
	@$(WITH_ENV) $(PY) -m benchmarks.run --smoke $(BENCH_ARGS)

status: ## Show which Cellar processes are running (PostgreSQL, redis, supervisord's programs)
	@scripts/status.sh

logs: ## Tail the logs in state/logs (FOLLOW=1 to follow)
	@scripts/logs.sh

clean-state: ## DESTRUCTIVE: stop everything, then delete state/ (database, logs, secrets in cellar.env); asks nothing
	@scripts/stop.sh
	@rm -rf state
	@echo "removed state/ (the next make run/test provisions from scratch)"
