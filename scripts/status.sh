#!/usr/bin/env bash
# `make status`: PostgreSQL and redis (provisioning's), then supervisord, each program, the
# namespace and /healthz (python -m services status), then the service URLs, passwords masked.
# Read-only; always exits 0.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

line() { printf '%-9s %s\n' "$1:" "$2"; }

if [[ -f $PG_DATA/PG_VERSION ]] && pg_running; then
    line postgres "running (pid $(sed -n 1p "$PG_DATA/postmaster.pid"), 127.0.0.1:$(sed -n 4p "$PG_DATA/postmaster.pid"))"
else
    line postgres "stopped"
fi
if pid=$(redis_pid); then
    line redis "running (pid $pid, 127.0.0.1:$REDIS_PORT)"
else
    line redis "stopped"
fi
services status 5>&- 6>&- || true
if [[ -f $ENV_FILE ]]; then
    # Passwords are masked: this output ends up in terminals, CI logs and bug reports.
    grep -E '^(DATABASE_URL|REDIS_URL)=' "$ENV_FILE" | mask_url | sed 's/^/  /'
fi
