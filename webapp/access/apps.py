from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AccessConfig(AppConfig):
    """Who may see what: the three roles, API tokens, the access gate and the rate limits."""
    name = "webapp.access"
    label = "access"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from webapp.access import roles

        # Permissions of every app exist only after post_migrate (Django creates them there), so
        # the role groups are synced after it too: after migrate, and after a test's flush.
        post_migrate.connect(roles.sync_after_migrate, dispatch_uid="cellar-access-roles")
