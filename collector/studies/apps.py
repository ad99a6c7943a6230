from django.apps import AppConfig


class StudiesConfig(AppConfig):
    """What researchers make of the archive: the significant bursts found in it (scanned day by
    day by a poller task, with the rule stated on each row) and, later, experiment runs."""
    name = "collector.studies"
    label = "studies"
    default_auto_field = "django.db.models.BigAutoField"
