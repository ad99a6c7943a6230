from django.apps import AppConfig


class PollerConfig(AppConfig):
    """The poller: Celery app, the beat schedule, tasks, the runner of one poll, host checks,
    and their health tables (status_* names kept: migrations/poller/0001 moved the models from
    the status app, state only)."""
    name = "collector.poller"
    label = "poller"
    default_auto_field = "django.db.models.BigAutoField"
