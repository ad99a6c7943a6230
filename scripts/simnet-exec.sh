#!/usr/bin/env bash
# Run a command where the simulated network's worker (simworker) runs: inside its network namespace
# (as root), with the service URLs that work there (unix sockets). E.g. poll a simulated switch by hand:
#   scripts/simnet-exec.sh .venv/bin/python manage.py poll asx200bx --count 1
# Without a namespace (make run not running as root) the command simply runs here.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
(($#)) || { echo "usage: scripts/simnet-exec.sh CMD [ARGS...]" >&2; exit 2; }
install_traps
CURRENT_STEP="load state/cellar.env"
load_env
cd "$ROOT"
prefix=()
if ns=$(netns_recorded) && [[ -e /run/netns/$ns ]]; then
    netns_env
    prefix=(ip netns exec "$ns")
fi
trap - EXIT
exec 5>&- 6>&- "${prefix[@]}" "$@"
