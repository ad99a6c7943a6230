from django.apps import AppConfig


class RunsConfig(AppConfig):
    """Experiment runs: named windows of traffic, with what the application said it sent, the series
    and the PVC they concern (the form, the API and `manage.py run` take the same fields: spec.py).
    Their pages are webapp/status (runs, the accounting along a path)."""
    name = "collector.runs"
    label = "runs"
    default_auto_field = "django.db.models.BigAutoField"
