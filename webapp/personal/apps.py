from django.apps import AppConfig


class PersonalConfig(AppConfig):
    """What a user keeps: their time zone, saved views (short URLs) and image links they minted."""
    name = "webapp.personal"
    label = "personal"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from webapp.personal import zones

        # The zone goes into the session at login: pages then read it with no query.
        user_logged_in.connect(zones.remember_at_login, dispatch_uid="cellar-personal-zone")
