#!/usr/bin/env bash
# The static checks `make test` runs before pytest (configuration in pyproject.toml):
#   ruff         lint and import order of every Python file
#   lint-imports the one-way layers (core imports no Django; pages are never imported below; ...)
#   mypy         type hints of every package, Django's through django-stubs
#   check_repo   no build output or generated file is committed
# Each prints what it found; the first that fails stops `make test`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV=${VENV:-.venv}
echo "==> ruff check"
"$VENV/bin/ruff" check --quiet .
echo "==> lint-imports"
"$VENV/bin/lint-imports" --no-cache | sed -n '/^Contracts:/p;/BROKEN/,$p'
test "${PIPESTATUS[0]}" -eq 0
echo "==> mypy"
# django-stubs imports webapp.settings, which requires these variables: harmless values (as
# `make check` gives pytest), so lint never reads state/cellar.env nor needs a provisioned
# service. Types do not depend on them.
env CELLAR_ENV_FILE=/nonexistent SECRET_KEY=lint-only DATABASE_URL=postgres://lint@127.0.0.1:9/none \
    REDIS_URL=redis://127.0.0.1:9/0 "$VENV/bin/mypy" --no-error-summary
echo "==> no build output in the repository"
"$VENV/bin/python" scripts/check_repo.py
echo "lint: ruff, import contracts, mypy and the repository check passed"
