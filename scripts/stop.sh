#!/usr/bin/env bash
# `make stop`: everything `make run` started, newest first: the programs, supervisord and the
# namespace (python -m services stop), then redis and the private PostgreSQL cluster. Only what
# this checkout started is touched; the machine's own PostgreSQL/redis services never are.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [[ ! -d $STATE ]]; then
    echo "nothing to stop (no state/ directory)"
    exit 0
fi
rc=0
services stop 5>&- 6>&- || rc=1
stop_service redis || rc=1
stop_service postgres || rc=1
exit "$rc"
