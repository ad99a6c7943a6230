from django.apps import AppConfig


class StatusConfig(AppConfig):
    name = "webapp.status"
    label = "status"
    default_auto_field = "django.db.models.BigAutoField"
