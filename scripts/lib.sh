# shellcheck shell=bash disable=SC2034  # (variables here are used by the sourcing scripts)
# Shared helpers for Cellar's provisioning scripts (provision.sh, start-services.sh, stop.sh,
# status.sh, with-env.sh, simnet-exec.sh). Source it, do not run it.
#
# Conventions
#   * Everything we create lives under state/ (git-ignored): the PostgreSQL cluster, redis,
#     sockets and the daemons' own pidfiles (state/run), logs (state/logs), build trees
#     (state/build), cellar.env.
#   * Provisioning owns PostgreSQL (pg_ctl on state/pg) and redis (it writes state/run/redis.pid
#     itself). The app processes of `make run` are supervisord's programs (services/, Python).
#     We never touch system services (the machine's own PostgreSQL on 5432 and redis on 6379
#     keep running).
#   * Errors: set -e ends the script; the EXIT trap prints ONE line naming the step and its log,
#     then stops whatever this run started (so a failed run leaves nothing half-started).

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
STATE=$ROOT/state
RUN_DIR=$STATE/run
LOG_DIR=$STATE/logs
PG_DATA=$STATE/pg
REDIS_DIR=$STATE/redis
ENV_FILE=$STATE/cellar.env
# Secrets, each generated once by provision.sh and kept, mode 0600 (see "Secrets" below).
PG_PASSFILE=$STATE/pgpass      # libpq password file: the `postgres` and `cellar` roles
REDIS_CONF=$STATE/redis.conf   # redis-server's configuration, with its requirepass
REDIS_SOCK=$RUN_DIR/redis.sock
REDIS_PID=$RUN_DIR/redis.pid   # written by redis-server itself once it runs, removed when it stops
NETNS_FILE=$RUN_DIR/netns      # the name of the network namespace `make run` made, if any (services/)
VENV=$ROOT/.venv
PY=$VENV/bin/python

PG_PORT=${CELLAR_PG_PORT:-54329}
REDIS_PORT=${CELLAR_REDIS_PORT:-63799}
PG_BIN=/usr/lib/postgresql/15/bin

# Which pieces this run started (postgres, redis). Only these are stopped when the run fails.
STARTED=()
CURRENT_STEP="setup"
CURRENT_LOG=""
FAIL_MSG=""
FAIL_DETAIL=""
FAIL_REPORTED=0   # 1: the failure was already reported (by python -m services up)

# Keep the caller's stdout/stderr reachable (fds 5, 6) even while a step redirects into its log
# file. Daemons we launch must not inherit them (nor the lock on fd 8): a daemon holding the
# caller's pipe open would make `make run | tee` or CI wait forever. Hence the
# `</dev/null 5>&- 6>&- 8>&-` on every launch below.
exec 5>&1 6>&2

say()    { printf '%s\n' "$*" >&5; }
info()   { printf '    %s\n' "$*" >&5; }
warn()   { printf 'cellar: warning: %s\n' "$*" >&6; }
rel()    { printf '%s' "${1#"$ROOT"/}"; }   # path relative to the repo root, for messages

# die MESSAGE [DETAIL_FILE]: fail the current step with a specific message (printed by the
# EXIT trap instead of the generic "see log" line). Must run in the main shell, not in $(...).
die() { FAIL_MSG=$1; FAIL_DETAIL=${2:-}; exit 1; }

# step NAME LOGNAME: start a step; its noisy commands append to state/logs/provision-LOGNAME.log.
step() {
    CURRENT_STEP=$1
    if [[ -n ${2:-} ]]; then
        CURRENT_LOG=$LOG_DIR/provision-$2.log
        : >"$CURRENT_LOG"
    else
        CURRENT_LOG=""
    fi
    FAIL_MSG=""
    say "==> $1"
}

on_exit() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    if ((rc != 0)); then
        if ((FAIL_REPORTED)); then
            :
        elif [[ -n $FAIL_MSG ]]; then
            printf "cellar: step '%s' failed: %s\n" "$CURRENT_STEP" "$FAIL_MSG" >&6
        elif [[ -n $CURRENT_LOG ]]; then
            printf "cellar: step '%s' failed, see %s\n" "$CURRENT_STEP" "$(rel "$CURRENT_LOG")" >&6
        else
            printf "cellar: step '%s' failed (exit status %s)\n" "$CURRENT_STEP" "$rc" >&6
        fi
        # The tail of the log saves a round trip (CI keeps no state/ directory).
        local detail=${FAIL_DETAIL:-$CURRENT_LOG}
        if ((!FAIL_REPORTED)) && [[ -n $detail && -s $detail ]]; then
            printf -- '---- last lines of %s ----\n' "$(rel "$detail")" >&6
            tail -n 30 "$detail" | sed 's/^/    /' >&6
            printf -- '----\n' >&6
        fi
        if ((${#STARTED[@]})); then
            printf 'cellar: stopping what this run started: %s\n' "${STARTED[*]}" >&6
            local i
            for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
                stop_service "${STARTED[i]}" >&6 2>&1
            done
        fi
    fi
    exit "$rc"
}

install_traps() {
    trap on_exit EXIT
    # Ctrl-C / kill: treat as failure so the EXIT trap cleans up.
    trap 'FAIL_MSG="interrupted"; exit 130' INT
    trap 'FAIL_MSG="terminated"; exit 143' TERM
}

is_root() { [[ $(id -u) -eq 0 ]]; }

# Run a command as root: directly when root, else through sudo.
as_root() {
    if is_root; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "this needs root and sudo is not installed; run as root: $*"
    fi
}

# PostgreSQL refuses to run as root: as root use the `postgres` OS user, else the current
# user. cd / so a cwd the postgres user cannot read does not produce warnings.
as_pg() {
    if is_root; then
        (cd / && exec runuser -u postgres -- "$@")
    else
        (cd / && exec "$@")
    fi
}

check_port_var() { # NAME VALUE
    if ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < 1 || $2 > 65535)); then die "$1=$2 is not a valid TCP port"; fi
}

# Something listens on TCP port $1 (any address: 0.0.0.0/:: would collide with 127.0.0.1 too).
port_in_use() {
    if command -v ss >/dev/null 2>&1; then
        [[ -n $(ss -Hltn "sport = :$1" 2>/dev/null) ]]
    else
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
    fi
}

port_owner() { # best effort description of the listener on port $1
    ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'users:(([^)]*' | head -n1 | sed 's/users:((//' || true
}

# ---------------------------------------------------------------------------------------------
# redis-server daemonizes itself and writes its pid to state/run/redis.pid (redis.conf); a process
# is our redis while that pid is a live redis-server (not a zombie: a stopped daemon's parent is
# init, and some inits, in micro-VMs and containers, reap only every second or two).
redis_pid() {
    local pid s
    { read -r pid <"$REDIS_PID"; } 2>/dev/null || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    { read -r s <"/proc/$pid/stat"; } 2>/dev/null || return 1
    [[ $s == *"(redis-server) "[!ZX]* ]] || return 1
    printf '%s' "$pid"
}

# ---------------------------------------------------------------------------------------------
# The network namespace of `make run` (root only; made and removed by services/): simnet and its
# worker (simworker) run in it, through simnet-exec.sh, so the simulated unreachable host needs no
# address, link or route in the machine's own namespace (simnet/hosts.py). Inside, only lo and
# simnet's veth pair exist: those processes reach PostgreSQL and redis through their unix sockets
# in state/run (sockets are not isolated by network namespaces).

netns_recorded() { # the namespace's name, if make run made one
    local ns=""
    [[ -r $NETNS_FILE ]] && read -r ns <"$NETNS_FILE"
    [[ -n $ns ]] && printf '%s' "$ns"
}

# Export the service URLs of a process inside the namespace: unix sockets, passwords included
# (the environment is readable by the same user only, unlike argv). Celery's kombu spells a
# redis socket redis+socket:// (CELERY_BROKER_URL, read by Celery itself); redis-py unix://.
netns_env() {
    export PGHOST=$RUN_DIR
    export DATABASE_URL="postgres://cellar:$(pg_password cellar)@:$PG_PORT/cellar"
    export REDIS_URL="unix://:$(redis_password)@$REDIS_SOCK?db=0"
    export CELERY_BROKER_URL="redis+socket://:$(redis_password)@$REDIS_SOCK"
}

pg_running() { # our cluster in state/pg is running
    [[ -f $PG_DATA/PG_VERSION ]] && as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

# stop_service postgres|redis: stop one of provisioning's services and print one line about it.
stop_service() {
    local name=$1 pid i
    case $name in
        postgres)
            if pg_running; then
                pid=$(head -n1 "$PG_DATA/postmaster.pid" 2>/dev/null || echo '?')
                if as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop >/dev/null 2>&1; then
                    printf '%-9s stopped (pid %s)\n' "$name:" "$pid"
                else
                    printf '%-9s FAILED to stop (pid %s), see %s\n' "$name:" "$pid" "$(rel "$LOG_DIR/postgres.log")"
                    return 1
                fi
            else
                printf '%-9s not running\n' "$name:"
            fi
            ;;
        redis)
            if pid=$(redis_pid); then
                # redis removes its pidfile on the way out; SIGKILL only after 10 s.
                kill -TERM "$pid" 2>/dev/null || true
                for ((i = 0; i < 100; i++)); do redis_pid >/dev/null || break; sleep 0.1; done
                if redis_pid >/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
                printf '%-9s stopped (pid %s)\n' "$name:" "$pid"
            else
                printf '%-9s not running\n' "$name:"
            fi
            ;;
        *)
            printf 'cellar: stop_service: unknown service %s\n' "$name" >&2
            return 2
            ;;
    esac
}

# ---------------------------------------------------------------------------------------------
# Secrets. Passwords never go on a command line (any user sees argv in ps) and are never
# printed: libpq reads them from PGPASSFILE, redis-cli from REDISCLI_AUTH, redis-server from
# its configuration file.

pg_password() { # ROLE: its password in state/pgpass ("*:*:*:ROLE:PASSWORD"), or nothing
    [[ -r $PG_PASSFILE ]] || return 0
    awk -F: -v u="$1" '$1 !~ /^#/ && $4 == u {print $5; exit}' "$PG_PASSFILE"
}

redis_password() { # the requirepass of state/redis.conf, or nothing
    [[ -r $REDIS_CONF ]] || return 0
    awk '$1 == "requirepass" {print $2; exit}' "$REDIS_CONF"
}

# redis-cli on our private redis, authenticated through the environment (REDISCLI_AUTH), not -a.
redis_cli() { # ARGS... (after -h/-p or -s)
    REDISCLI_AUTH=$(redis_password) redis-cli "$@"
}

# A URL with its password replaced by ***, for anything we print.
mask_url() { sed -E 's#(://[^:/@]*:)[^@]*@#\1***@#'; }

# Export KEY=VALUE lines of state/cellar.env. Variables already set in the environment win,
# the same rule webapp/env.py applies, so `FOO=x make test` overrides the file.
load_env() {
    [[ -r $ENV_FILE ]] || die "$(rel "$ENV_FILE") is missing: run 'make provision' (or make run / make test) first"
    local line k v
    while IFS= read -r line || [[ -n $line ]]; do
        [[ -z $line || $line == \#* || $line != *=* ]] && continue
        k=${line%%=*}
        v=${line#*=}
        [[ $k =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
        [[ -n ${!k+x} ]] && continue
        export "$k=$v"
    done <"$ENV_FILE"
}

# python -m services (the app processes, standard library only): with the venv's Python, or the
# system's before the venv exists (make stop and make status work then too).
services() {
    local py=$PY
    "$py" -c '' 2>/dev/null || py=python3
    (cd "$ROOT" && "$py" -m services "$@")
}
