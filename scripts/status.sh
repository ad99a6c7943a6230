#!/usr/bin/env bash
# `make status`: which of Cellar's processes run (from pidfiles in state/run and the cluster
# in state/pg), and whether the web answers /healthz. Read-only; always exits 0.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

line() { printf '%-9s %s\n' "$1:" "$2"; }

if [[ -f $PG_DATA/PG_VERSION ]] && pg_running; then
    line postgres "running (pid $(sed -n 1p "$PG_DATA/postmaster.pid"), 127.0.0.1:$(sed -n 4p "$PG_DATA/postmaster.pid"))"
else
    line postgres "stopped"
fi
if pid=$(proc_pid redis); then
    line redis "running (pid $pid, 127.0.0.1:$REDIS_PORT)"
else
    line redis "stopped"
fi
for name in "${APP_PROCS[@]}"; do
    if pid=$(proc_pid "$name"); then
        line "$name" "running (pid $pid)"
    else
        line "$name" "stopped"
    fi
done
if ns=$(netns_recorded) && [[ -e /run/netns/$ns ]]; then
    line netns "$ns (simnet, web, worker, beat inside)"
else
    line netns "none"
fi
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$WEB_PORT/healthz" 2>/dev/null || true)
[[ $code =~ ^[1-5][0-9][0-9]$ ]] || code="no answer"
line healthz "http://127.0.0.1:$WEB_PORT/healthz -> $code"
if [[ -f $ENV_FILE ]]; then
    # Passwords are masked: this output ends up in terminals, CI logs and bug reports.
    grep -E '^(DATABASE_URL|REDIS_URL)=' "$ENV_FILE" | mask_url | sed 's/^/  /'
fi
