from django.apps import AppConfig


class BillingConfig(AppConfig):
    """Bills on groups of series: LibreNMS's "billing" from exact data. The 95th percentile of a
    bill is taken over the archived raw deltas summed across its ports per sample interval,
    never over averaged tiers; closed periods are stored and never recomputed (the beat task
    cellar.close_bills closes them and keeps the open period's estimate current)."""
    name = "collector.billing"
    label = "billing"
    default_auto_field = "django.db.models.BigAutoField"
