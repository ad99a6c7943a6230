"""Cellar's only settings module.

Everything that differs between a laptop and production comes from the environment, read
through the validating helpers in webapp.env; there is no dev/prod split. Defaults are the safe
production ones (DEBUG off, SECRET_KEY required). `make run` writes state/cellar.env, which is
loaded first for any variable not already set. Every variable is documented in .env.example.
"""
from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from numerics.bursts import BurstRule
from webapp import env

BASE_DIR = Path(__file__).resolve().parent.parent

try:
    env.READ.add("CELLAR_ENV_FILE")
    env.load_env_file(Path(os.environ.get("CELLAR_ENV_FILE") or BASE_DIR / "state" / "cellar.env"))

    SECRET_KEY = env.env_str("SECRET_KEY")
    DEBUG = env.env_bool("DEBUG", False)
    ALLOWED_HOSTS = env.env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1"])
    CSRF_TRUSTED_ORIGINS = env.env_list("CSRF_TRUSTED_ORIGINS", [])
    HTTPS = env.env_bool("CELLAR_HTTPS", False)
    # Access (webapp/access): anonymous visitors read nothing unless this is on (then anyone who
    # reaches the web port sees the topology, addresses and traffic: for a closed lab only).
    CELLAR_ANONYMOUS_READ = env.env_bool("CELLAR_ANONYMOUS_READ", False)
    # Expensive requests (CSV, percentiles, analyses, images) per user and per client address.
    CELLAR_RATE_LIMIT_USER = env.env_rate("CELLAR_RATE_LIMIT_USER", "30/m")
    CELLAR_RATE_LIMIT_ADDRESS = env.env_rate("CELLAR_RATE_LIMIT_ADDRESS", "60/m")
    # Failed logins of one user name from one address before a lock-out, and its length (django-axes).
    CELLAR_LOGIN_FAILURE_LIMIT = env.env_int("CELLAR_LOGIN_FAILURE_LIMIT", 5, minimum=1, maximum=100)
    CELLAR_LOGIN_LOCKOUT_MINUTES = env.env_int("CELLAR_LOGIN_LOCKOUT_MINUTES", 15, minimum=1, maximum=24 * 60)
    # Where the Django admin (inventory, credentials) answers: a path that is not guessed first.
    CELLAR_ADMIN_PATH = env.env_url_path("CELLAR_ADMIN_PATH", "admin/")
    # HSTS max-age sent when CELLAR_HTTPS is on (0 = none).
    CELLAR_HSTS_SECONDS = env.env_int("CELLAR_HSTS_SECONDS", 31536000, minimum=0)

    DATABASE_PREPARED_STATEMENTS = env.env_bool("DATABASE_PREPARED_STATEMENTS", True)
    DATABASES = {"default": env.parse_database_url("DATABASE_URL", env.env_str("DATABASE_URL"))}
    DATABASES["default"]["CONN_MAX_AGE"] = env.env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"]["OPTIONS"] = {
        # A query that runs away must not hold a web worker forever. No JIT: a range read plans
        # over hundreds of chunks and LLVM compiled for seconds before the first row (measured:
        # 23 s for a year of raw samples), while these short queries never gain from it.
        "options": f"-c statement_timeout={env.env_int('DATABASE_STATEMENT_TIMEOUT_MS', 60000, minimum=0)} "
                   "-c jit=off",
        "connect_timeout": env.env_int("DATABASE_CONNECT_TIMEOUT", 5, minimum=1),
        # Server-side prepared statements only where the code asks (execute(..., prepare=True):
        # the plot's series catalog and bucket columns, collector/reader/pgbinary.py); Django's own
        # cursors bind client-side and never prepare. PostgreSQL's plan_cache_mode stays auto:
        # the catalog's five-table join goes to a generic plan after five runs (planning it cost
        # 4x running it), the plot's UNION over five hypertables keeps custom plans, which exclude
        # chunks while planning (a generic plan locks and checks every chunk at each run: slower
        # with the ~150 chunks of the default retention, docs/benchmarks.md). Off (None) behind a
        # pooler that cannot keep them (PgBouncer in transaction mode before 1.21).
        "prepare_threshold": 2**31 - 1 if DATABASE_PREPARED_STATEMENTS else None,
    }
    REDIS_URL = env.check_redis_url("REDIS_URL", env.env_str("REDIS_URL"))

    # Key for SNMP secrets at rest (Fernet, urlsafe base64 of 32 bytes). When unset it is
    # derived from SECRET_KEY, so rotating SECRET_KEY then makes stored secrets unreadable.
    CELLAR_SECRETS_KEY = env.env_str("CELLAR_SECRETS_KEY", "")
    # Keys used before (rotation): read, never written; `manage.py rotate_secrets` moves values off them.
    CELLAR_SECRETS_OLD_KEYS = env.env_list("CELLAR_SECRETS_OLD_KEYS", [])

    # Collector behaviour.
    CELLAR_DEFAULT_POLL_INTERVAL = env.env_int("CELLAR_DEFAULT_POLL_INTERVAL", 15, minimum=1, maximum=3600)
    CELLAR_SNMP_TIMEOUT = env.env_float("CELLAR_SNMP_TIMEOUT", 2.0, minimum=0.1)
    CELLAR_SNMP_RETRIES = env.env_int("CELLAR_SNMP_RETRIES", 1, minimum=0, maximum=5)
    # auto: our own BER codec for SNMPv1/v2c (fast), pysnmp for v3; pysnmp for everything when
    # a v1/v2c agent misbehaves with the fast path (collector/core/snmp.py).
    CELLAR_SNMP_BACKEND = env.env_choice("CELLAR_SNMP_BACKEND", "auto", ("auto", "fast", "pysnmp"))
    # Directories of extra device profiles (YAML, collector/core/profiles.py), loaded at start.
    CELLAR_PROFILE_DIRS = env.env_list("CELLAR_PROFILE_DIRS", [])
    CELLAR_DISCOVERY_INTERVAL = env.env_int("CELLAR_DISCOVERY_INTERVAL", 600, minimum=30)
    CELLAR_HOST_CHECK_INTERVAL = env.env_int("CELLAR_HOST_CHECK_INTERVAL", 30, minimum=5)
    # Link inference (docs/topology.md): seconds between runs (cross-connect continuity over the archive,
    # then every claim again), and the minutes of polls the continuity test compares.
    CELLAR_TOPOLOGY_INTERVAL = env.env_int("CELLAR_TOPOLOGY_INTERVAL", 300, minimum=30, maximum=86400)
    CELLAR_TOPOLOGY_WINDOW_MIN = env.env_int("CELLAR_TOPOLOGY_WINDOW_MIN", 10, minimum=2, maximum=240)
    # The SNMP trap receiver (manage.py trapd, docs/events.md): UDP address and port. 1162 needs no
    # privilege; for 162 see docs/events.md (a port redirect, or CAP_NET_BIND_SERVICE).
    CELLAR_TRAP_HOST = env.env_str("CELLAR_TRAP_HOST", "0.0.0.0")
    CELLAR_TRAP_PORT = env.env_int("CELLAR_TRAP_PORT", 1162, minimum=1, maximum=65535)
    # Sweeps for SNMP agents (collector/poller/sweep.py): the networks that may be swept (empty: sweeping
    # is off), the probes a second, the addresses one sweep may probe.
    CELLAR_SWEEP_NETWORKS = env.env_networks("CELLAR_SWEEP_NETWORKS", [])
    CELLAR_SWEEP_RATE = env.env_float("CELLAR_SWEEP_RATE", 50.0, minimum=1.0, maximum=1000.0)
    CELLAR_SWEEP_MAX_ADDRESSES = env.env_int("CELLAR_SWEEP_MAX_ADDRESSES", 4096, minimum=1, maximum=65536)
    CELLAR_SPOOL_DIR = Path(env.env_str("CELLAR_SPOOL_DIR", str(BASE_DIR / "state" / "spool")))
    CELLAR_BEAT_HEARTBEAT = Path(env.env_str("CELLAR_BEAT_HEARTBEAT", str(BASE_DIR / "state" / "beat-heartbeat")))
    CELLAR_METRICS_PORT = env.env_int("CELLAR_METRICS_PORT", 0, minimum=0, maximum=65535)
    # The Prometheus exposition of counter totals (/metrics/counters, webapp/metrics, docs/integrations.md):
    # off unless asked; scrapers come with a viewer's API token (Bearer) or from these networks
    # (the TCP peer's address: behind a reverse proxy use a token); one scrape answers at most
    # CELLAR_PROMETHEUS_MAX_SERIES series and refuses a larger scope (413, never truncated).
    CELLAR_PROMETHEUS_COUNTERS = env.env_bool("CELLAR_PROMETHEUS_COUNTERS", False)
    CELLAR_PROMETHEUS_SCRAPERS = env.env_networks("CELLAR_PROMETHEUS_SCRAPERS", [])
    CELLAR_PROMETHEUS_MAX_SERIES = env.env_int("CELLAR_PROMETHEUS_MAX_SERIES", 10_000, minimum=1, maximum=100_000)
    # The password of the database role cellar_grafana (migration archive/0007: SELECT on the views of
    # schema grafana only), set by `manage.py grafana_role`; empty: the role cannot log in.
    CELLAR_GRAFANA_PASSWORD = env.env_str("CELLAR_GRAFANA_PASSWORD", "")
    LOG_LEVEL = env.env_choice("LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR"))
    # The zone pages show times in for a viewer who chose none (webapp/personal); data stays UTC.
    CELLAR_TIME_ZONE = env.env_zone("CELLAR_TIME_ZONE", "UTC")
    ENV_VARIABLES = frozenset(env.READ)
except env.EnvError as exc:
    raise ImproperlyConfigured(f"Cellar configuration error: {exc}") from None

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "axes",
    "csp",
    # What polls and archives (collector/): the inventory, the archive and the poller own the
    # tables they write; page apps (webapp/) only read them.
    "collector.inventory",
    "collector.archive",
    "collector.poller",
    "collector.studies",
    "collector.runs",
    "collector.bursts",
    "webapp.access",
    "webapp.personal",
    "collector.audit",
    "webapp.traffic",
    "webapp.status",
    "webapp.datasets",
    "collector.exports",
    "webapp.exports",
    "collector.analysis",
    "collector.external",
    "webapp.external",
    "webapp.analysis",
    "collector.groups",
    "collector.billing",
    "collector.events",
    "webapp.groups",
    "webapp.bills",
    "webapp.talkers",
    "webapp.topology",
    "collector.alerts",
    "webapp.alerts",
    "webapp.events",
    "webapp.onboard",
    "webapp.apidoc",
    "webapp.metrics",
]

# Migration modules live in the top-level migrations/ package (one folder per app), written by
# hand: hypertables and SQL functions are created with RunSQL there. traffic and status keep the
# history of the tables they created before the archive and the poller took them over.
MIGRATION_MODULES = {
    "inventory": "migrations.inventory",
    "archive": "migrations.archive",
    "poller": "migrations.poller",
    "studies": "migrations.studies",
    "runs": "migrations.runs",
    "bursts": "migrations.bursts",
    "exports": "migrations.exports",
    "analysis": "migrations.analysis",
    "external": "migrations.external",
    "access": "migrations.access",
    "personal": "migrations.personal",
    "audit": "migrations.audit",
    "traffic": "migrations.traffic",
    "status": "migrations.status",
    "groups": "migrations.groups",
    "billing": "migrations.billing",
    "events": "migrations.events",
    "alerts": "migrations.alerts",
}

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # API tokens, the read permission on every view, rate limits (webapp/access/middleware.py).
    "webapp.access.middleware.AccessMiddleware",
    # The viewer's time zone (their preference, else CELLAR_TIME_ZONE), after request.user is set.
    "webapp.personal.zones.ZoneMiddleware",
    "collector.audit.middleware.AuditActorMiddleware",   # who changes what: after request.user is set
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it answers a locked-out login.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "webapp.urls"
WSGI_APPLICATION = "webapp.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "webapp" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "webapp.access.context.access",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "access:login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "access:login"
# django-axes first: it refuses a locked-out user name/address before the password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = CELLAR_LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(minutes=CELLAR_LOGIN_LOCKOUT_MINUTES)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "webapp.access.views.locked_out"

# The cache holds the rate-limit counters (django-ratelimit), shared by every web worker.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                      "KEY_PREFIX": "cellar-cache", "TIMEOUT": 300,
                      "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
RATELIMIT_USE_CACHE = "default"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_TZ = True
USE_I18N = False

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
if DEBUG:
    STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]      # the load balancer's plain-HTTP liveness probe
    SECURE_HSTS_SECONDS = CELLAR_HSTS_SECONDS
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
# Preloading HSTS is a request to browser vendors that binds the whole domain for months: the
# domain's owner decides it, not Cellar; the check that asks for it (W021) is silenced for that.
SILENCED_SYSTEM_CHECKS = ["security.W021"]
# Content Security Policy (django-csp): scripts only from Cellar's own static files, never inline.
# Styles allow inline because Plotly sets style attributes and <style> on the SVG it draws.
CONTENT_SECURITY_POLICY = {"DIRECTIVES": {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:"],
    "connect-src": ["'self'"],
    "font-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}}

# Celery: the broker is redis; results are not needed (tasks write to the database).
CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
# Early acks on purpose: a poll redelivered after a worker crash would run after its interval
# (it expires instead: a gap of that one poll), and late acks sent from pool threads race a
# lost broker connection and kill the worker (kombu: "'NoneType' object has no attribute
# 'hostname'", seen in tests/collector/test_faults.py when redis goes away).
CELERY_TASK_ACKS_LATE = False
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 300}
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TIMEZONE = "UTC"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # pysnmp logs full PDUs (community strings included) at debug level: keep it quiet.
    # django-axes logs every successful login at INFO; its failures and lock-outs are warnings.
    "loggers": {"pysnmp": {"level": "WARNING"}, "asyncio": {"level": "WARNING"}, "axes": {"level": "WARNING"},
                # kaleido's browser driver (plot images) logs each tab and temp dir at INFO.
                "choreographer": {"level": "WARNING"}, "kaleido": {"level": "WARNING"},
                "logistro": {"level": "WARNING"}},
}

# --- Traffic: plots, rollup tiers and retention (webapp/traffic, collector/archive/rollup.py) ---
try:
    # Seconds between rollup runs (beat entry "rollup"); each run catches up within that time.
    CELLAR_ROLLUP_INTERVAL = env.env_int("CELLAR_ROLLUP_INTERVAL", 60, minimum=10, maximum=3600)
    # The 1m tier trails the clock by this much; at least 120 s (see migrations/traffic/0007).
    CELLAR_ROLLUP_LAG_S = env.env_int("CELLAR_ROLLUP_LAG_S", 120, minimum=120, maximum=86400)
    # Raw samples older than this many hours (and behind the 1m tier) are settled into compressed
    # blocks (collector/archive/settle.py); a late poll for a settled day reopens it. Beat "settle".
    CELLAR_SETTLE_AFTER_HOURS = env.env_int("CELLAR_SETTLE_AFTER_HOURS", 48, minimum=1, maximum=24 * 365)
    CELLAR_SETTLE_INTERVAL = env.env_int("CELLAR_SETTLE_INTERVAL", 300, minimum=10, maximum=86400)
    # Days each table keeps (0 = forever); enforced hourly with drop_chunks (beat "retention").
    CELLAR_RETENTION_RAW_DAYS = env.env_int("CELLAR_RETENTION_RAW_DAYS", 400, minimum=0)
    CELLAR_RETENTION_1M_DAYS = env.env_int("CELLAR_RETENTION_1M_DAYS", 300, minimum=0)
    CELLAR_RETENTION_15M_DAYS = env.env_int("CELLAR_RETENTION_15M_DAYS", 730, minimum=0)
    CELLAR_RETENTION_1H_DAYS = env.env_int("CELLAR_RETENTION_1H_DAYS", 730, minimum=0)
    CELLAR_RETENTION_1D_DAYS = env.env_int("CELLAR_RETENTION_1D_DAYS", 0, minimum=0)
    CELLAR_RETENTION_POLL_LOG_DAYS = env.env_int("CELLAR_RETENTION_POLL_LOG_DAYS", 400, minimum=0)
    # Points per series above which a plot reads the next coarser tier.
    CELLAR_PLOT_MAX_POINTS = env.env_int("CELLAR_PLOT_MAX_POINTS", 2000, minimum=100, maximum=100000)
    # Significant bursts (numerics/bursts.py, where the defaults are stated and argued): a rate above
    # max(K x the window's median, CAPACITY_PCT % of the port's capacity) for at least MIN_SECONDS
    # and MIN_SAMPLES poll samples; a request may override each.
    CELLAR_BURST_K = env.env_float("CELLAR_BURST_K", BurstRule.k, minimum=0.0)
    CELLAR_BURST_CAPACITY_PCT = env.env_float("CELLAR_BURST_CAPACITY_PCT", BurstRule.capacity_pct, minimum=0.0,
                                              maximum=100.0)
    CELLAR_BURST_MIN_SECONDS = env.env_int("CELLAR_BURST_MIN_SECONDS", int(BurstRule.min_duration_s), minimum=0,
                                           maximum=86400 * 7)
    CELLAR_BURST_MIN_SAMPLES = env.env_int("CELLAR_BURST_MIN_SAMPLES", BurstRule.min_samples, minimum=1,
                                           maximum=10000)

    # --- Bounded work per request (collector/reader/timelimits.py, streamslots.py, collector/exports) ---
    # Statement timeouts of the web's heavy endpoints: the table in collector/reader/timelimits.py, times SCALE,
    # never above MAX_MS (a web request waits at most that long for one statement).
    CELLAR_WEB_TIMEOUT_SCALE = env.env_float("CELLAR_WEB_TIMEOUT_SCALE", 1.0, minimum=0.01, maximum=100.0)
    CELLAR_WEB_TIMEOUT_MAX_MS = env.env_int("CELLAR_WEB_TIMEOUT_MAX_MS", 30000, minimum=100, maximum=600000)
    # A CSV of more cells (series x rows at its resolution) becomes a background export job.
    CELLAR_CSV_SYNC_MAX_CELLS = env.env_int("CELLAR_CSV_SYNC_MAX_CELLS", 2_000_000, minimum=1000)
    # Direct CSV downloads streaming at once: in the whole web tier, and per user (or address).
    CELLAR_CSV_STREAMS_MAX = env.env_int("CELLAR_CSV_STREAMS_MAX", 4, minimum=1, maximum=1000)
    CELLAR_CSV_STREAMS_PER_CLIENT = env.env_int("CELLAR_CSV_STREAMS_PER_CLIENT", 2, minimum=1, maximum=1000)
    # Background export jobs running at once per user; more wait in line ("queued, position k").
    CELLAR_EXPORT_JOBS_PER_USER = env.env_int("CELLAR_EXPORT_JOBS_PER_USER", 2, minimum=1, maximum=100)
    # Where export jobs write their files (mode 0600), and how long a finished file is kept.
    CELLAR_EXPORT_DIR = Path(env.env_str("CELLAR_EXPORT_DIR", str(BASE_DIR / "state" / "exports")))
    CELLAR_EXPORT_KEEP_HOURS = env.env_int("CELLAR_EXPORT_KEEP_HOURS", 24, minimum=1, maximum=24 * 90)
    # Bulk exports (a switch, a group, series or the whole network: collector/reader/bulk.py): the most
    # series and rows one may hold, from the CLI, the web and the API alike (the error names the limit).
    CELLAR_BULK_EXPORT_MAX_SERIES = env.env_int("CELLAR_BULK_EXPORT_MAX_SERIES", 100_000, minimum=1)
    CELLAR_BULK_EXPORT_MAX_ROWS = env.env_int("CELLAR_BULK_EXPORT_MAX_ROWS", 500_000_000, minimum=1000)
    # External series (collector/external): the largest CSV the upload form takes, megabytes
    # (`manage.py import_csv` reads any size; both stop at 1,000,000 rows).
    CELLAR_EXTERNAL_UPLOAD_MAX_MB = env.env_int("CELLAR_EXTERNAL_UPLOAD_MAX_MB", 20, minimum=1, maximum=200)
    # Bills (collector/billing): a period is closed (frozen) this long after it ends, so the polls
    # that straddle its end and samples replayed from a poller's spool are in.
    CELLAR_BILL_CLOSE_DELAY_S = env.env_int("CELLAR_BILL_CLOSE_DELAY_S", 3600, minimum=0, maximum=7 * 86400)
    # Plot images (webapp/traffic/images.py): renders at once in the whole web tier (each web
    # process keeps one headless chromium through kaleido), the longest a render may take, the
    # longest a request waits for a free render, and how long an image of a range that reaches
    # now is cached (a range wholly in the past: a day).
    CELLAR_IMAGE_RENDERS = env.env_int("CELLAR_IMAGE_RENDERS", 2, minimum=1, maximum=64)
    CELLAR_IMAGE_TIMEOUT_S = env.env_int("CELLAR_IMAGE_TIMEOUT_S", 20, minimum=2, maximum=300)
    CELLAR_IMAGE_WAIT_S = env.env_int("CELLAR_IMAGE_WAIT_S", 5, minimum=0, maximum=60)
    CELLAR_IMAGE_CACHE_S = env.env_int("CELLAR_IMAGE_CACHE_S", 60, minimum=0, maximum=86400)
    # Chromium for the images (kaleido drives it; nothing is downloaded). Default Debian's.
    CELLAR_CHROMIUM = env.env_str("CELLAR_CHROMIUM", "/usr/bin/chromium")
    # --- Alerts (collector/alerts, /alerts/; docs/alerts.md) ---
    # Seconds between evaluations of every alert rule (beat "alerts"): a rate crossing its
    # threshold fires within one poll interval plus this, once its window holds.
    CELLAR_ALERTS_INTERVAL = env.env_int("CELLAR_ALERTS_INTERVAL", 15, minimum=5, maximum=3600)
    # The absolute address of this site, for the plot links in notifications (no trailing slash).
    CELLAR_SITE_URL = env.env_site_url("CELLAR_SITE_URL", "http://127.0.0.1:8000")
    ENV_VARIABLES = frozenset(env.READ)
except env.EnvError as exc:
    raise ImproperlyConfigured(f"Cellar configuration error: {exc}") from None

# Static files: the project-wide webapp/static (base.html's cellar.css) and Plotly's JS, served
# from the installed plotly wheel (no copy committed); `collectstatic` gathers both.
STATICFILES_DIRS = [BASE_DIR / "webapp" / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "webapp.traffic.staticfinders.PlotlyFinder",
]
