from django.apps import AppConfig


class AlertsConfig(AppConfig):
    """Alert rules over the archive, their state per object (ok, pending, firing, resolved) and the
    notifications they send (docs/alerts.md). The beat task cellar.evaluate_alerts evaluates the
    rules; cellar.send_notification delivers one message on the queue "notify"."""
    name = "collector.alerts"
    label = "alerts"
    default_auto_field = "django.db.models.BigAutoField"
