#!/usr/bin/env bash
# `make logs`: the last lines of every log in state/logs; FOLLOW=1 keeps following them
# (Ctrl-C to quit). LOG_LINES=N changes how many lines (default 30).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
shopt -s nullglob
logs=("$LOG_DIR"/*.log)
if ((${#logs[@]} == 0)); then
    echo "no logs yet in $(rel "$LOG_DIR")"
    exit 0
fi
if [[ ${FOLLOW:-0} == 1 ]]; then
    exec tail -n "${LOG_LINES:-30}" -F "${logs[@]}"
fi
tail -n "${LOG_LINES:-30}" "${logs[@]}"
