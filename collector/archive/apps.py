from django.apps import AppConfig


class ArchiveConfig(AppConfig):
    """The archive: series, layouts, raw samples, poll log, rollup tiers; the only code that
    writes them (ingest, writer, spool, rollup, retention). Its tables keep their traffic_*
    names (migrations/archive/0001 moved the models from the traffic app, state only)."""
    name = "collector.archive"
    label = "archive"
    default_auto_field = "django.db.models.BigAutoField"
