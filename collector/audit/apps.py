from django.apps import AppConfig


class AuditConfig(AppConfig):
    """The audit trail: owns audit_event; connects its signal handlers to the tracked models."""
    name = "collector.audit"
    label = "audit"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from collector.audit import tracked

        tracked.register()
