from django.apps import AppConfig


class MetricsConfig(AppConfig):
    """What monitoring systems scrape: the Prometheus exposition of every counter's cumulative total
    (/metrics/counters), read through collector/reader/cumulative.py. A page app: it only reads."""
    name = "webapp.metrics"
    label = "metrics"
