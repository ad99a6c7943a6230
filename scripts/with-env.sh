#!/usr/bin/env bash
# Run a command with state/cellar.env exported (variables already set in the environment win,
# as in webapp/env.py), from the repository root. Used by `make test`, `make bench`.
# Usage: scripts/with-env.sh CMD [ARGS...]
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
(($#)) || { echo "usage: scripts/with-env.sh CMD [ARGS...]" >&2; exit 2; }
install_traps
CURRENT_STEP="load state/cellar.env"
load_env
cd "$ROOT"
trap - EXIT
exec 5>&- 6>&- "$@"
