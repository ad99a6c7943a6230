from django.apps import AppConfig


class ExternalConfig(AppConfig):
    """Series that Cellar did not poll: counts per fixed interval from another source (a carrier's
    15-minute cell counts), imported from CSV and kept apart from the polled archive. The web
    (webapp/external) and the CLI (`manage.py import_csv`) import through imports.py; the analysis
    layer reads through read.py."""
    name = "collector.external"
    label = "external"
    default_auto_field = "django.db.models.BigAutoField"
