#!/usr/bin/env bash
# Provision everything Cellar needs on a Debian bookworm machine, idempotently:
#   a. system packages (apt, only the missing ones)
#   b. TimescaleDB 2.19.3 Apache edition built from Debian trixie's source package
#   c. a private PostgreSQL 15 cluster in state/pg (127.0.0.1:$CELLAR_PG_PORT, default 54329)
#   d. a private redis-server (127.0.0.1:$CELLAR_REDIS_PORT, default 63799)
#   e. state/cellar.env (DATABASE_URL, REDIS_URL, secrets generated once)
#   f. the virtualenv .venv (pip install only when requirements.txt changed)
#   g. Django: migrate, admin user, collectstatic (skipped with --no-django)
#
# Usage: scripts/provision.sh [--no-django]
# DATABASE_URL / REDIS_URL set in the environment: that service is not provisioned, the given
# URL is written to state/cellar.env instead.
#
# Sourced by start-services.sh (so both share one EXIT trap and the list of what this run
# started); run directly by the Makefile.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Captured before anything loads state/cellar.env: only a URL given by the caller means
# "do not provision this service".
EXT_DATABASE_URL=${DATABASE_URL:-}
EXT_REDIS_URL=${REDIS_URL:-}

APT_PACKAGES=(
    postgresql-15 postgresql-server-dev-15 cmake build-essential libssl-dev dpkg-dev xz-utils
    redis-server snmp snmpd iperf3 chromium chromium-driver iproute2 iputils-ping python3-venv
    prometheus prometheus-snmp-exporter
)

TSDB_VERSION=2.19.3
TSDB_DEB_VERSION=2.19.3+dfsg-1+deb13u1
TSDB_SO=/usr/lib/postgresql/15/lib/timescaledb-$TSDB_VERSION.so

# ---------------------------------------------------------------------------------------------
prepare_state() {
    mkdir -p "$STATE" "$RUN_DIR" "$LOG_DIR" "$STATE/build"
    # The postgres OS user must traverse state/ even when the caller's umask is 077.
    chmod 755 "$STATE"
    # One provisioning run at a time (make run and make test in two terminals would otherwise
    # race on initdb / ports). fd 8 is closed in every daemon we launch so they don't keep it.
    exec 8>>"$STATE/.lock"
    if ! flock -n 8; then
        info "waiting for another provisioning run (state/.lock) ..."
        flock -w 600 8 || die "another Cellar provisioning run held state/.lock for 600 s"
    fi
}

# a. ------------------------------------------------------------------------------------------
step_packages() {
    step "system packages" apt
    local p missing=()
    for p in "${APT_PACKAGES[@]}"; do
        # dpkg -s also succeeds for removed packages whose config files remain: check the status.
        [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
    done
    if ((${#missing[@]} == 0)); then
        info "all ${#APT_PACKAGES[@]} packages present"
        return
    fi
    info "installing: ${missing[*]}"
    # The lock timeout waits for a concurrent apt/dpkg (unattended upgrades, a colleague).
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update \
        >>"$CURRENT_LOG" 2>&1
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y \
        --no-install-recommends "${missing[@]}" >>"$CURRENT_LOG" 2>&1
}

# b. ------------------------------------------------------------------------------------------
# Bookworm has no TimescaleDB package; trixie's source package is the Apache-2 edition and builds
# against bookworm's PostgreSQL 15. The source is fetched with a PRIVATE apt configuration
# (own sources list, lists and cache under state/build): /etc/apt is never touched.
step_timescaledb() {
    step "build timescaledb" timescaledb
    if [[ -n $EXT_DATABASE_URL ]]; then
        info "DATABASE_URL is set in the environment: not building (the extension must exist there)"
        return
    fi
    if [[ -e $TSDB_SO ]]; then
        info "already installed ($TSDB_SO)"
        return
    fi
    local work=$STATE/build/timescaledb
    local aptd=$work/apt
    rm -rf "$work"
    mkdir -p "$aptd/lists/partial" "$aptd/cache/archives/partial" "$work/src"
    printf '%s\n' "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
        >"$aptd/sources.list"
    local apt_opts=(
        -o "Dir::Etc::sourcelist=$aptd/sources.list" -o "Dir::Etc::sourceparts=-"
        -o "Dir::State::Lists=$aptd/lists" -o "Dir::Cache=$aptd/cache"
        -o "Acquire::Languages=none"
    )
    info "fetching the trixie source index (private apt config in $(rel "$aptd"))"
    apt-get "${apt_opts[@]}" update >>"$CURRENT_LOG" 2>&1

    # Prefer the verified Debian revision; accept a newer revision of the same upstream version
    # (a trixie point release replaces deb13u1 and the old one leaves the archive).
    local versions version
    versions=$(apt-cache "${apt_opts[@]}" showsrc timescaledb 2>>"$CURRENT_LOG" | awk '/^Version:/ {print $2}')
    if grep -qxF "$TSDB_DEB_VERSION" <<<"$versions"; then
        version=$TSDB_DEB_VERSION
    else
        version=$(grep -m1 "^${TSDB_VERSION//./\\.}+" <<<"$versions" || true)
        [[ -n $version ]] || die "Debian trixie no longer offers timescaledb $TSDB_VERSION (has: ${versions//$'\n'/ }); update TSDB_VERSION in scripts/provision.sh"
        echo "note: $TSDB_DEB_VERSION not offered, using $version" >>"$CURRENT_LOG"
    fi
    info "downloading source timescaledb=$version"
    (cd "$work/src" && apt-get "${apt_opts[@]}" source --download-only "timescaledb=$version") >>"$CURRENT_LOG" 2>&1

    info "building (Apache-only, telemetry off; ~30 s)"
    {
        cd "$work/src"
        dpkg-source -x ./*.dsc tree
        cd tree
        ./bootstrap -DAPACHE_ONLY=ON -DREGRESS_CHECKS=OFF -DTAP_CHECKS=OFF -DWARNINGS_AS_ERRORS=OFF \
            -DLINTER=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPG_CONFIG="$PG_BIN/pg_config" \
            -DUSE_TELEMETRY=OFF -DSEND_TELEMETRY_DEFAULT=OFF
        make -C build -j"$(nproc)"
        as_root make -C build install
        cd "$ROOT"
    } >>"$CURRENT_LOG" 2>&1
    [[ -e $TSDB_SO ]] || die "the build finished but $TSDB_SO is missing, see $(rel "$CURRENT_LOG")"
    rm -rf "$work" # ~80 MB of build tree; a failed build keeps it for inspection
    info "installed $TSDB_SO"
}

# c. ------------------------------------------------------------------------------------------
pg_conf_content() {
    cat <<EOF
# Written by scripts/provision.sh on every run: change it there, not here.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$RUN_DIR'
shared_preload_libraries = 'timescaledb'
timescaledb.telemetry_level = off
password_encryption = 'scram-sha-256'
# TimescaleDB starts a background scheduler per database; tests create databases.
max_worker_processes = 16
EOF
}

# pg_hba.conf of the private cluster: a password (SCRAM) for every role on the socket and on
# 127.0.0.1, and no trust line, so another account on this machine cannot log in as the superuser.
pg_hba_content() {
    cat <<'EOF'
# Written by scripts/provision.sh on every run: change it there, not here.
# Private cluster, loopback and the socket in state/run only; passwords in state/pgpass.
local   all   all                 scram-sha-256
host    all   all   127.0.0.1/32  scram-sha-256
EOF
}

rand_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; } # N random bytes, hex (URL-safe)

# state/pgpass (mode 0600): the passwords of `postgres` and `cellar`, generated once and kept.
ensure_pg_passfile() {
    local su cel out
    su=$(pg_password postgres)
    cel=$(pg_password cellar)
    out="# Written by scripts/provision.sh: libpq password file of the private cluster (mode 0600)."$'\n'
    out+="*:*:*:postgres:${su:-$(rand_hex 24)}"$'\n'"*:*:*:cellar:${cel:-$(rand_hex 24)}"$'\n'
    if [[ ! -f $PG_PASSFILE || "$(cat "$PG_PASSFILE")"$'\n' != "$out" ]]; then
        (umask 077 && printf '%s' "$out" >"$PG_PASSFILE.tmp")
        mv "$PG_PASSFILE.tmp" "$PG_PASSFILE"
    fi
    chmod 600 "$PG_PASSFILE"
}

# initdb into state/pg.init and rename at the end: an interrupted run never leaves a
# half-initialised state/pg behind.
pg_init() {
    local tmp=$STATE/pg.init pwfile=$STATE/pg.init.pw
    rm -rf "$tmp"
    mkdir -m 700 "$tmp"
    if is_root; then chown postgres:postgres "$tmp"; fi
    info "initdb $(rel "$PG_DATA") (scram-sha-256)"
    # initdb reads the superuser's password from a file only it (the postgres OS user) can read.
    (umask 077 && pg_password postgres >"$pwfile")
    if is_root; then chown postgres:postgres "$pwfile"; fi
    if ! as_pg "$PG_BIN/initdb" -D "$tmp" -U postgres --auth=scram-sha-256 --pwfile="$pwfile" \
        -E UTF8 --locale=C.UTF-8 >>"$CURRENT_LOG" 2>&1 8>&-; then
        rm -f "$pwfile"
        die "initdb failed, see $(rel "$CURRENT_LOG")"
    fi
    rm -f "$pwfile"
    pg_hba_content >"$tmp/pg_hba.conf"
    printf "\n# Cellar's settings (port, socket dir, timescaledb) live in cellar.conf\ninclude 'cellar.conf'\n" \
        >>"$tmp/postgresql.conf"
    if is_root; then chown postgres:postgres "$tmp/pg_hba.conf"; fi
    mv "$tmp" "$PG_DATA"
}

# psql on the private cluster through the socket, the password from state/pgpass (-w: never
# prompt; a missing password is an error).
pg_psql() { # ROLE ARGS...
    local role=$1
    shift
    PGPASSFILE=$PG_PASSFILE "$PG_BIN/psql" -X -q -w -v ON_ERROR_STOP=1 -h "$RUN_DIR" -p "$PG_PORT" -U "$role" "$@"
}

# Passwords of both roles set from state/pgpass, then pg_hba.conf without trust. A cluster made
# before passwords (trust; an older checkout) is converted here in place: trust still lets us in
# to set the passwords, then pg_hba.conf is rewritten and reloaded. Data is not touched.
pg_lock_down() {
    local su cel err
    su=$(pg_password postgres)
    cel=$(pg_password cellar)
    # The passwords travel on psql's stdin; the session never logs a failing statement's text.
    if ! err=$(pg_psql postgres -d postgres 2>&1 >/dev/null <<SQL
SET log_min_error_statement = panic;
SET log_statement = 'none';
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cellar') THEN
    CREATE ROLE cellar SUPERUSER LOGIN;
  END IF;
END \$\$;
ALTER ROLE postgres PASSWORD '$su';
ALTER ROLE cellar SUPERUSER LOGIN PASSWORD '$cel';
SQL
    ); then
        printf '%s\n' "$err" | sed "s/$su/***/g; s/$cel/***/g" >>"$CURRENT_LOG"
        if [[ $err == *"password authentication failed"* || $err == *"no password supplied"* ]]; then
            die "the private cluster refuses the passwords in $(rel "$PG_PASSFILE") (replaced or deleted?); put the old file back, or 'make clean-state' to start over"
        fi
        die "could not set the roles' passwords, see $(rel "$CURRENT_LOG")"
    fi
    if [[ "$(cat "$PG_DATA/pg_hba.conf")" != "$(pg_hba_content)" ]]; then
        pg_hba_content >"$PG_DATA/pg_hba.conf"
        if is_root; then chown postgres:postgres "$PG_DATA/pg_hba.conf"; fi
        as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" reload >>"$CURRENT_LOG" 2>&1 8>&-
        info "pg_hba.conf rewritten (passwords required, no trust) and reloaded"
    fi
}

pg_port_taken() {
    die "port $PG_PORT on 127.0.0.1 is already in use by another program ($(port_owner "$PG_PORT")), not this checkout's cluster; set CELLAR_PG_PORT to a free port"
}

write_pg_conf() {
    pg_conf_content >"$PG_DATA/cellar.conf"
    if is_root; then chown postgres:postgres "$PG_DATA/cellar.conf"; fi
}

pg_start() {
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$LOG_DIR/postgres.log" -w -t 60 "$@" \
        </dev/null >>"$CURRENT_LOG" 2>&1 5>&- 6>&- 8>&- ||
        die "PostgreSQL did not start, see $(rel "$LOG_DIR/postgres.log")" "$LOG_DIR/postgres.log"
}

step_postgres() {
    step "postgres" postgres
    if [[ -n $EXT_DATABASE_URL ]]; then
        info "DATABASE_URL is set in the environment: using it, no private cluster"
        return
    fi
    local sock=$RUN_DIR/.s.PGSQL.$PG_PORT
    ((${#sock} < 108)) || die "unix socket path $sock is longer than 107 bytes; clone the repository to a shorter path"

    # The server runs as `postgres` (root) or as the caller: it needs the socket dir and its log.
    touch "$LOG_DIR/postgres.log"
    if is_root; then
        chown postgres:postgres "$RUN_DIR" "$LOG_DIR/postgres.log"
        as_pg test -w "$RUN_DIR" ||
            die "the postgres OS user cannot reach $RUN_DIR (a parent directory is not world-searchable, e.g. /root); clone the repository elsewhere or set DATABASE_URL"
    fi

    ensure_pg_passfile
    if [[ ! -f $PG_DATA/PG_VERSION ]]; then
        if [[ -e $PG_DATA ]] && [[ -n $(ls -A "$PG_DATA" 2>/dev/null) ]]; then
            die "$(rel "$PG_DATA") exists but holds no PostgreSQL cluster; remove it (make clean-state)"
        fi
        rmdir "$PG_DATA" 2>/dev/null || true
        pg_init
    fi

    # cellar.conf follows CELLAR_PG_PORT; it is rewritten (and the server restarted) only after
    # the new port proved free, so a failed run leaves a running cluster as it was.
    local conf=$PG_DATA/cellar.conf
    if pg_running; then
        local pid port
        pid=$(sed -n 1p "$PG_DATA/postmaster.pid")
        port=$(sed -n 4p "$PG_DATA/postmaster.pid")
        if [[ $port != "$PG_PORT" ]] && port_in_use "$PG_PORT"; then pg_port_taken; fi
        if [[ "$(cat "$conf" 2>/dev/null)" != "$(pg_conf_content)" || $port != "$PG_PORT" ]]; then
            write_pg_conf
            if [[ $port != "$PG_PORT" ]]; then
                info "configuration changed: restarting (port $port -> $PG_PORT)"
            else
                info "configuration changed: restarting"
            fi
            pg_start -m fast restart
        else
            info "already running (pid $pid, 127.0.0.1:$PG_PORT)"
        fi
    else
        if port_in_use "$PG_PORT"; then pg_port_taken; fi
        write_pg_conf
        info "starting on 127.0.0.1:$PG_PORT (socket dir $(rel "$RUN_DIR"))"
        STARTED+=(postgres)
        pg_start start
    fi

    # Passwords, role, database, extension: cheap and idempotent, so checked on every run.
    pg_lock_down
    local psql=(pg_psql postgres)
    "${psql[@]}" -d postgres >>"$CURRENT_LOG" 2>&1 <<'SQL'
SELECT 'CREATE DATABASE cellar OWNER cellar'
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'cellar')\gexec
SQL
    "${psql[@]}" -d cellar -c 'CREATE EXTENSION IF NOT EXISTS timescaledb' >>"$CURRENT_LOG" 2>&1
    local ext
    ext=$("${psql[@]}" -d cellar -At -F ' ' \
        -c "SELECT extversion, current_setting('timescaledb.license') FROM pg_extension WHERE extname = 'timescaledb'" \
        2>>"$CURRENT_LOG")
    info "database cellar ready: timescaledb ${ext% *} (${ext#* } license)"
}

# d. ------------------------------------------------------------------------------------------
# redis-server reads its password (requirepass) from state/redis.conf (mode 0600), never from
# argv. It listens on 127.0.0.1 and on a unix socket in state/run (the processes `make run` puts in
# its network namespace reach it there: sockets are not isolated by network namespaces).
redis_conf_content() { # PASSWORD
    cat <<EOF
# Written by scripts/provision.sh on every run (mode 0600: it holds the password).
bind 127.0.0.1
port $REDIS_PORT
unixsocket $REDIS_SOCK
unixsocketperm 700
requirepass $1
save ""
appendonly no
daemonize yes
pidfile $REDIS_PID
logfile $LOG_DIR/redis.log
dir $REDIS_DIR
EOF
}

write_redis_conf() {
    local pw out
    pw=$(redis_password)
    out=$(redis_conf_content "${pw:-$(rand_hex 24)}")
    if [[ ! -f $REDIS_CONF || "$(cat "$REDIS_CONF")" != "$out" ]]; then
        (umask 077 && printf '%s\n' "$out" >"$REDIS_CONF.tmp")
        mv "$REDIS_CONF.tmp" "$REDIS_CONF"
    fi
    chmod 600 "$REDIS_CONF"
}

redis_served_pid() { # pid of the redis answering on our port with our password, if any
    redis_cli -h 127.0.0.1 -p "$REDIS_PORT" info server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p' || true
}

# Ours runs as configured now: our port, our socket, and it refuses a client without the password
# (a redis started before passwords, by an older checkout, does not).
redis_current() { # PID
    [[ $(redis_served_pid) == "$1" ]] || return 1
    [[ $(redis_cli -s "$REDIS_SOCK" ping 2>/dev/null) == PONG ]] || return 1
    [[ $(redis-cli -s "$REDIS_SOCK" ping 2>&1) == *NOAUTH* ]]
}

step_redis() {
    step "redis" redis
    if [[ -n $EXT_REDIS_URL ]]; then
        info "REDIS_URL is set in the environment: using it, no private redis"
        return
    fi
    ((${#REDIS_SOCK} < 108)) || die "unix socket path $REDIS_SOCK is longer than 107 bytes; clone the repository to a shorter path"
    mkdir -p "$REDIS_DIR"
    write_redis_conf
    local pid i
    if pid=$(redis_pid); then
        if redis_current "$pid"; then
            info "already running (pid $pid, 127.0.0.1:$REDIS_PORT, password required)"
            return
        fi
        # Check the new port before stopping ours: a failed run must not leave redis down.
        # (An older redis of ours, without a password, still answers `info`: redis-cli goes on
        # after a refused AUTH.)
        if [[ $(redis_served_pid) != "$pid" ]] && port_in_use "$REDIS_PORT"; then
            die "port $REDIS_PORT on 127.0.0.1 is already in use by another program ($(port_owner "$REDIS_PORT")), not this checkout's redis; set CELLAR_REDIS_PORT to a free port"
        fi
        info "ours runs with another configuration (port, socket or no password): restarting"
        stop_service redis >>"$CURRENT_LOG" 2>&1
    fi
    if port_in_use "$REDIS_PORT"; then
        die "port $REDIS_PORT on 127.0.0.1 is already in use by another program ($(port_owner "$REDIS_PORT")), not this checkout's redis; set CELLAR_REDIS_PORT to a free port"
    fi
    rm -f "$REDIS_PID"
    info "starting on 127.0.0.1:$REDIS_PORT and $(rel "$REDIS_SOCK") (password required, no persistence)"
    STARTED+=(redis)
    redis-server "$REDIS_CONF" </dev/null >>"$CURRENT_LOG" 2>&1 5>&- 6>&- 8>&-
    for ((i = 0; i < 100; i++)); do # <= 10 s
        if pid=$(redis_pid) && redis_current "$pid"; then
            return
        fi
        sleep 0.1
    done
    die "redis did not answer on 127.0.0.1:$REDIS_PORT within 10 s" "$LOG_DIR/redis.log"
}

# e. ------------------------------------------------------------------------------------------
rand_urlsafe() { # N random bytes as urlsafe base64 (Fernet keys are exactly this for N=32)
    head -c "$1" /dev/urandom | base64 -w0 | tr '+/' '-_'
}

# Rewrite state/cellar.env in place: managed keys updated, secrets generated once and kept,
# any other line (comments, extra keys someone added) preserved.
step_env() {
    step "cellar.env" ""
    declare -A want=(
        [DATABASE_URL]=${EXT_DATABASE_URL:-postgres://cellar:$(pg_password cellar)@127.0.0.1:$PG_PORT/cellar}
        [REDIS_URL]=${EXT_REDIS_URL:-redis://:$(redis_password)@127.0.0.1:$REDIS_PORT/0}
    )
    # Only set when missing (or empty): secrets must survive, DEBUG may be edited by hand.
    declare -A defaults=(
        [SECRET_KEY]=$(rand_urlsafe 48 | tr -d '=')
        [ALLOWED_HOSTS]="127.0.0.1,localhost"
        [DEBUG]=false
        [CELLAR_SECRETS_KEY]=$(rand_urlsafe 32)
    )
    local order=(DATABASE_URL REDIS_URL SECRET_KEY ALLOWED_HOSTS DEBUG CELLAR_SECRETS_KEY)
    declare -A seen=()
    local line k v out=""
    if [[ -f $ENV_FILE ]]; then
        while IFS= read -r line || [[ -n $line ]]; do
            k=${line%%=*}
            v=${line#*=}
            if [[ $line == *=* && $k =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
                if [[ -n ${want[$k]+x} ]]; then
                    line="$k=${want[$k]}"
                    seen[$k]=1
                elif [[ -n ${defaults[$k]+x} ]]; then
                    [[ -n $v ]] || line="$k=${defaults[$k]}"
                    seen[$k]=1
                fi
            fi
            out+="$line"$'\n'
        done <"$ENV_FILE"
    else
        out="# Cellar environment, written by scripts/provision.sh (KEY=VALUE, no quotes)."$'\n'
        out+="# Secrets are generated once and kept; URLs follow the ports on every run."$'\n'
    fi
    for k in "${order[@]}"; do
        [[ -n ${seen[$k]+x} ]] && continue
        out+="$k=${want[$k]:-${defaults[$k]}}"$'\n'
    done
    if [[ -f $ENV_FILE && "$(cat "$ENV_FILE")"$'\n' == "$out" ]]; then
        chmod 600 "$ENV_FILE" # it holds the secrets (a copy made by hand may not be 0600)
        info "$(rel "$ENV_FILE") up to date"
        return
    fi
    local tmp=$ENV_FILE.tmp
    (umask 077 && printf '%s' "$out" >"$tmp")
    mv "$tmp" "$ENV_FILE"
    info "wrote $(rel "$ENV_FILE")"
}

# f. ------------------------------------------------------------------------------------------
step_venv() {
    step "virtualenv" venv
    local stamp=$STATE/.venv-stamp req=$ROOT/requirements.txt
    if ! "$PY" -c 'import sys' >/dev/null 2>&1; then
        if [[ -e $VENV || -L $VENV ]]; then
            # Never wipe a venv automatically (it may be someone's, or a symlink): say so.
            die "$(rel "$VENV") exists but $(rel "$PY") does not run (built with a Python that is gone?); remove .venv and re-run"
        else
            info "creating $(rel "$VENV")"
            python3 -m venv "$VENV" >>"$CURRENT_LOG" 2>&1
        fi
        rm -f "$stamp"
    fi
    if [[ ! -f $req ]]; then
        warn "requirements.txt not found: nothing installed into .venv"
        return
    fi
    if [[ -f $stamp && ! $req -nt $stamp ]]; then
        info "requirements unchanged since the last install (stamp $(rel "$stamp"))"
        return
    fi
    info "pip install -r requirements.txt"
    (cd "$ROOT" && "$PY" -m pip install --disable-pip-version-check -r "$req") >>"$CURRENT_LOG" 2>&1
    touch "$stamp"
}

# g. ------------------------------------------------------------------------------------------
# Runs in the Django shell; the password comes in through the environment (not argv, which
# any user can read in ps).
ADMIN_PY='
import os
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
from django.contrib.auth import get_user_model
User = get_user_model()
if User._default_manager.filter(**{User.USERNAME_FIELD: "admin"}).exists():
    print("CELLAR_ADMIN=exists")
else:
    User._default_manager.create_superuser(
        **{User.USERNAME_FIELD: "admin"}, email="admin@localhost",
        password=os.environ["CELLAR_ADMIN_PW"])
    print("CELLAR_ADMIN=created")
'

step_django() {
    step "django setup" django
    [[ -f $ROOT/manage.py ]] || die "manage.py not found in the repository root"
    # manage.py reads state/cellar.env itself; exporting it here would hand its values to
    # supervisord as if the caller had set them (services/programs.py settings_digest).
    # One Django process for migrate and the admin user: each start-up costs ~2 s.
    info "manage.py migrate"
    local pw=${CELLAR_ADMIN_PASSWORD:-} generated=0 out
    if [[ -z $pw ]]; then
        pw=$(rand_urlsafe 12 | tr -d '=')
        generated=1
    fi
    out=$(cd "$ROOT" && CELLAR_ADMIN_PW=$pw "$PY" manage.py shell -c "$ADMIN_PY" </dev/null 2>>"$CURRENT_LOG")
    printf '%s\n' "$out" >>"$CURRENT_LOG"
    if [[ $out == *CELLAR_ADMIN=created* ]]; then
        if ((generated)); then
            # Kept (mode 0600, like the other secrets of state/) so `make run` can say how to log in.
            (umask 077 && printf '%s\n' "$pw" >"$STATE/admin-password")
            info "created superuser 'admin'; its password is in $(rel "$STATE/admin-password") (mode 0600)"
            info "(set CELLAR_ADMIN_PASSWORD before the first run to choose it)"
        else
            info "created superuser 'admin' (password from CELLAR_ADMIN_PASSWORD)"
        fi
    elif [[ $out == *CELLAR_ADMIN=exists* ]]; then
        info "superuser 'admin' exists"
    else
        die "could not check or create the admin user, see $(rel "$CURRENT_LOG")"
    fi

    # collectstatic only when a static source or the installed packages changed since last time.
    local stamp=$STATE/.static-stamp
    if [[ -f $stamp && -d $ROOT/staticfiles ]] && [[ -z $(find "$ROOT/webapp" "$STATE/.venv-stamp" -newer "$stamp" \( -path '*/static/*' -o -name .venv-stamp \) -print -quit 2>/dev/null) ]]; then
        info "static files unchanged since the last collectstatic"
    else
        info "manage.py collectstatic"
        (cd "$ROOT" && "$PY" manage.py collectstatic --noinput) </dev/null >>"$CURRENT_LOG" 2>&1
        touch "$stamp"
    fi
}

# ---------------------------------------------------------------------------------------------
provision_main() {
    local django=1 arg
    for arg in "$@"; do
        case $arg in
            --no-django) django=0 ;;
            --venv-only)
                # the fast loop (make check): the virtualenv only, no service, no package install
                # when python3-venv is there
                prepare_state
                step_venv
                CURRENT_STEP="done"
                return
                ;;
            -h | --help)
                sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
                exit 0
                ;;
            *) die "unknown option '$arg' (usage: scripts/provision.sh [--no-django | --venv-only])" ;;
        esac
    done
    check_port_var CELLAR_PG_PORT "$PG_PORT"
    check_port_var CELLAR_REDIS_PORT "$REDIS_PORT"
    prepare_state
    step_packages
    step_timescaledb
    step_postgres
    step_redis
    step_env
    step_venv
    if ((django)); then step_django; fi
    CURRENT_STEP="done"
    CURRENT_LOG=""
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    install_traps
    provision_main "$@"
    say "==> provisioned (logs in $(rel "$LOG_DIR"))"
fi
