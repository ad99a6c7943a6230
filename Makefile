# Cellar: developer and CI entry points. Provisioning lives in scripts/ (see scripts/provision.sh).
# Everything the targets create (PostgreSQL cluster, redis, logs, pidfiles, cellar.env) is under
# state/, which is git-ignored. Ports: CELLAR_PG_PORT (54329), CELLAR_REDIS_PORT (63799),
# CELLAR_WEB_PORT (8000).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PY       := .venv/bin/python
WITH_ENV := scripts/with-env.sh

.PHONY: help run stop provision test lint bench bench-smoke status logs clean-state

help: ## Show this help
	@echo "Cellar make targets:"
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo "Variables: PYTEST_ARGS='-k foo' (test), FOLLOW=1 LOG_LINES=N (logs)."

run: ## Provision, start simnet, web, worker and beat; print the dashboard URL
	@scripts/start-services.sh

stop: ## Stop everything `make run` started (web, worker, beat, simnet, redis, PostgreSQL)
	@scripts/stop.sh

provision: ## Provision only (packages, TimescaleDB, PostgreSQL, redis, cellar.env, .venv, migrate)
	@scripts/provision.sh

test: ## Provision services (no web processes), run the static checks, then the test suite
	@scripts/provision.sh --no-django
	@scripts/lint.sh
	@$(WITH_ENV) $(PY) -m pytest $(PYTEST_ARGS)

lint: ## ruff, import-linter contracts and mypy (part of `make test`)
	@scripts/lint.sh

bench: ## Run the benchmarks (python -m benchmarks.run)
	@scripts/provision.sh --no-django
	@$(WITH_ENV) $(PY) -m benchmarks.run $(BENCH_ARGS)

bench-smoke: ## Quick benchmark run, to catch regressions in CI
	@scripts/provision.sh --no-django
	@$(WITH_ENV) $(PY) -m benchmarks.run --smoke $(BENCH_ARGS)

status: ## Show which Cellar processes are running
	@scripts/status.sh

logs: ## Tail the logs in state/logs (FOLLOW=1 to follow)
	@scripts/logs.sh

clean-state: ## DESTRUCTIVE: stop everything, then delete state/ (database, logs, secrets in cellar.env); asks nothing
	@scripts/stop.sh
	@rm -rf state
	@echo "removed state/ (the next make run/test provisions from scratch)"
