#!/usr/bin/env bash
# The static checks `make test` runs before pytest (configuration in pyproject.toml):
#   ruff         lint and import order of every Python file
#   lint-imports the one-way layers (core imports no Django; pages are never imported below; ...)
#   mypy         type hints of the Django-free modules
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
"$VENV/bin/mypy" --no-error-summary
echo "lint: ruff, import contracts and mypy passed"
