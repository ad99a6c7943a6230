from django.apps import AppConfig


class AlertsPagesConfig(AppConfig):
    """The alerts page: states, history, ack/mute, rules and destinations forms, "send test",
    failing destinations and the evaluation's cost. Writes go through collector/alerts."""
    name = "webapp.alerts"
    label = "alerts_pages"
