from django.apps import AppConfig


class PersonalConfig(AppConfig):
    """What a user keeps: their time zone, saved views (short URLs) and image links they minted."""
    name = "webapp.personal"
    label = "personal"
    default_auto_field = "django.db.models.BigAutoField"
