#!/usr/bin/env bash
# `make run`: provision (scripts/provision.sh, all steps), then `python -m services up`: the
# simulated network's namespace (as root), this checkout's supervisord (state/supervisord.conf)
# and its programs simnet, web (gunicorn), worker, simworker, beat (celery) and the SNMP trap
# receiver (manage.py trapd), simnet registered by `manage.py seed_simnet` in between; waits for
# /healthz and prints where everything is. What runs how: services/programs.py.
#
# Idempotent: running programs with the same command are reused. If something fails, its log's
# tail is printed and whatever this run started is stopped: the programs, supervisord and the
# namespace by services/, PostgreSQL and redis (if this run started them) by the EXIT trap here.
set -euo pipefail
# Sourcing (not running) provision.sh shares one EXIT trap and one list of started things.
# shellcheck source=scripts/provision.sh
source "$(dirname "${BASH_SOURCE[0]}")/provision.sh"

main() {
    check_port_var CELLAR_WEB_PORT "${CELLAR_WEB_PORT:-8000}"
    check_port_var CELLAR_TRAP_PORT "${CELLAR_TRAP_PORT:-1162}"
    provision_main
    CURRENT_STEP="services"
    # The daemons must not inherit the caller's stdout/stderr copies (5, 6) nor the lock (8):
    # `make run | tee` or CI would wait for them forever.
    if ! services up 5>&- 6>&- 8>&-; then
        FAIL_REPORTED=1
        exit 1
    fi
}

install_traps
main "$@"
