#!/usr/bin/env bash
# `make run`: provision (scripts/provision.sh, all steps), then start the simulated network,
# register it (manage.py seed_simnet), and start web (gunicorn), worker and beat (celery) and the
# SNMP trap receiver (manage.py trapd, in the root namespace: CELLAR_TRAP_PORT, default 1162) in the
# background, each in its own session/process group with a pidfile in state/run and a log in
# state/logs. Waits for the web to answer /healthz, then prints where everything is.
#
# As root, simnet, web, worker and beat run inside a network namespace of this checkout
# (scripts/lib.sh, simnet/hosts.py): the machine's own addresses, links and routes stay as they
# were. Otherwise (or with DATABASE_URL/REDIS_URL given) they run here, and the simulated
# unreachable host is a closed loopback port.
#
# Idempotent: a process whose pidfile names a live process of ours, started with the same
# command and the same service URLs, is reused. If something dies at start, the tail of its log is printed and whatever
# this run started (app processes, and postgres/redis if this run started them) is stopped.
set -euo pipefail
# Sourcing (not running) provision.sh shares one EXIT trap and one list of started things.
# shellcheck source=scripts/provision.sh
source "$(dirname "${BASH_SOURCE[0]}")/provision.sh"

HEALTH_TIMEOUT=${CELLAR_HEALTH_TIMEOUT:-30}   # seconds for the web to answer /healthz
MIN_UPTIME=3                                  # seconds a fresh process must survive to count

declare -A STARTED_AT=()

# start_proc NAME CMD...: start CMD in the background in a new session (setsid: it becomes
# the leader of its own process group, so stop.sh can take down its children too).
start_proc() {
    local name=$1
    shift
    # The stamp (a digest of the service URLs, not the URLs: they hold passwords) restarts a
    # process started with other credentials, e.g. before passwords were required.
    local log=$LOG_DIR/$name.log cmd pid
    cmd="$* [env $(printf '%s\n' "${DATABASE_URL:-}" "${REDIS_URL:-}" "${CELERY_BROKER_URL:-}" "${PGHOST:-}" | sha256sum | cut -c1-12)]"
    step "start $name" ""
    if pid=$(proc_pid "$name"); then
        if [[ $(proc_saved_cmd "$name") == "$cmd" ]]; then
            info "already running (pid $pid), reusing"
            return
        fi
        info "running with another command line: restarting"
        stop_service "$name" >/dev/null
    fi
    if [[ $name == trapd ]] && udp_port_in_use "$TRAP_PORT"; then
        die "UDP port $TRAP_PORT is already in use by another program; set CELLAR_TRAP_PORT to a free port"
    fi
    if [[ $name == web ]] && port_in_use "$WEB_PORT"; then
        die "port $WEB_PORT on 127.0.0.1 is already in use by another program ($(port_owner "$WEB_PORT")); set CELLAR_WEB_PORT to a free port"
    fi
    printf '\n==== %s starting: %s\n' "$(date '+%F %T')" "$cmd" >>"$log"
    # Job control is off in scripts, so the child is not a group leader and setsid does not
    # fork: $! is the process itself (pid == pgid == sid).
    setsid "$@" </dev/null >>"$log" 2>&1 5>&- 6>&- 8>&- &
    pid=$!
    printf '%s\n%s\n' "$pid" "$cmd" >"$(pidfile "$name")"
    STARTED+=("$name")
    STARTED_AT[$name]=$SECONDS
    info "started (pid $pid, log $(rel "$log"))"
}

# Fail the current step with the tail of NAME's log if NAME died.
check_alive() {
    local name=$1
    if ! proc_pid "$name" >/dev/null; then
        CURRENT_STEP="start $name"
        die "$name exited right after starting" "$LOG_DIR/$name.log"
    fi
}

# Bounded wait: a freshly started process must stay up MIN_UPTIME seconds.
settle() {
    local name=$1 i
    [[ -n ${STARTED_AT[$name]+x} ]] || return 0
    for ((i = 0; i < 10 * MIN_UPTIME; i++)); do
        check_alive "$name"
        ((SECONDS - STARTED_AT[$name] >= MIN_UPTIME)) && return 0
        sleep 0.1
    done
    check_alive "$name"
}

health_code() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$WEB_PORT/healthz" 2>/dev/null || true
}

IN_NS=() # the command prefix that runs a program inside the namespace (empty: no namespace)

step_netns() {
    step "network namespace" ""
    if ! is_root || ! command -v ip >/dev/null 2>&1 || [[ -n $EXT_DATABASE_URL || -n $EXT_REDIS_URL ]]; then
        info "none (needs root, iproute2 and the private PostgreSQL and redis): the unreachable host is a closed loopback port"
        return
    fi
    local ns
    ns=$("$PY" -m simnet netns-name --state-dir "$SIMNET_DIR")
    if [[ ! -e /run/netns/$ns ]]; then
        printf '%s\n' "$ns" >"$NETNS_FILE"
        STARTED+=(netns)
    fi
    "$PY" -m simnet netns-up --state-dir "$SIMNET_DIR" >/dev/null
    printf '%s\n' "$ns" >"$NETNS_FILE"
    IN_NS=(ip netns exec "$ns")
    netns_env
    info "$ns: simnet, web, worker and beat run in it; the root namespace is not changed"
}

main() {
    check_port_var CELLAR_WEB_PORT "$WEB_PORT"
    provision_main
    load_env
    cd "$ROOT"
    step_netns

    start_proc simnet "${IN_NS[@]}" "$PY" -m simnet up --state-dir state/simnet
    settle simnet

    step "seed simnet" seed
    if [[ -n ${STARTED_AT[simnet]+x} ]]; then
        info "manage.py seed_simnet"
        "${IN_NS[@]}" "$PY" manage.py seed_simnet </dev/null >>"$CURRENT_LOG" 2>&1
    else
        info "simnet was already running and registered"
    fi

    local bind=("127.0.0.1:$WEB_PORT") listen=()
    if ((${#IN_NS[@]})); then
        bind=(fd://3)
        listen=("$PY" "$ROOT/scripts/listen-exec.py" 127.0.0.1 "$WEB_PORT" "${IN_NS[@]}")
    fi
    local web_cmd=("${listen[@]}" "$VENV/bin/gunicorn" webapp.wsgi:application --bind "${bind[@]}"
        --workers 2 --access-logfile "$LOG_DIR/web-access.log"
        # gunicorn >= 23 opens a control socket in ~/.gunicorn by default: keep it in state/
        # (and apart from any other checkout's gunicorn).
        --control-socket "$RUN_DIR/gunicorn.ctl")
    start_proc web "${web_cmd[@]}"
    start_proc worker "${IN_NS[@]}" "$VENV/bin/celery" -A collector.poller.celery_app worker -Q "${CELLAR_QUEUES:-polls,default,exports,notify}" -l info --pool threads --concurrency "${CELLAR_WORKER_CONCURRENCY:-16}"
    start_proc beat "${IN_NS[@]}" "$VENV/bin/celery" -A collector.poller.celery_app beat -l info
    # The trap receiver listens where the agents can reach it: the root namespace (docs/events.md).
    start_proc trapd "$PY" manage.py trapd --host "${CELLAR_TRAP_HOST:-127.0.0.1}" --port "$TRAP_PORT"

    step "wait for web" ""
    local i code=""
    for ((i = 0; i < HEALTH_TIMEOUT * 2; i++)); do # every 0.5 s
        check_alive web
        check_alive worker
        check_alive beat
        check_alive trapd
        code=$(health_code)
        [[ $code == 200 ]] && break
        sleep 0.5
    done
    if [[ $code != 200 ]]; then
        CURRENT_STEP="start web"
        die "http://127.0.0.1:$WEB_PORT/healthz did not answer 200 within ${HEALTH_TIMEOUT} s (last status: ${code:-none})" "$LOG_DIR/web.log"
    fi
    info "/healthz answered 200"
    settle worker
    settle beat
    settle trapd
    check_alive simnet

    CURRENT_STEP="done"
    say ""
    say "Cellar is running."
    say "  dashboard:  http://127.0.0.1:$WEB_PORT/"
    say "  log in:     http://127.0.0.1:$WEB_PORT/accounts/login/  as 'admin' (superuser), password: $(admin_password_hint)"
    say "  more users: .venv/bin/python manage.py role NAME viewer --create   (roles: viewer, operator, admin)"
    say "  admin site: http://127.0.0.1:$WEB_PORT/${CELLAR_ADMIN_PATH:-admin/}"
    say "  SNMP traps: udp ${CELLAR_TRAP_HOST:-127.0.0.1}:$TRAP_PORT (v2c: the switch's community; v3: its user; docs/events.md)"
    say "  logs:       $(rel "$LOG_DIR")/  (make logs; make status)"
    say "  stop with:  make stop"
}

# Where the admin's password is, never the password itself (the terminal may be logged).
admin_password_hint() {
    if [[ -f $STATE/admin-password ]]; then
        echo "cat $(rel "$STATE/admin-password")"
    elif [[ -n ${CELLAR_ADMIN_PASSWORD:-} ]]; then
        echo "the CELLAR_ADMIN_PASSWORD you set"
    else
        echo "printed when it was made (reset: .venv/bin/python manage.py changepassword admin)"
    fi
}

install_traps
main "$@"
