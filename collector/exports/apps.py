from django.apps import AppConfig


class ExportsConfig(AppConfig):
    """Background CSV exports: the job table, the worker that writes a job's file, and its expiry.
    Page apps create jobs through collector.exports.jobs and only read the table."""
    name = "collector.exports"
    label = "exports"
    default_auto_field = "django.db.models.BigAutoField"
