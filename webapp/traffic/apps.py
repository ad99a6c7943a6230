from django.apps import AppConfig


class TrafficConfig(AppConfig):
    name = "webapp.traffic"
    label = "traffic"
    default_auto_field = "django.db.models.BigAutoField"
