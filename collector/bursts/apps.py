from django.apps import AppConfig


class BurstsConfig(AppConfig):
    """Significant bursts of the archived series, found day by day by a beat task with the rule
    stated on each row (numerics/bursts.py is the definition); the data inventory and the plots
    show them."""
    name = "collector.bursts"
    label = "bursts"
    default_auto_field = "django.db.models.BigAutoField"
