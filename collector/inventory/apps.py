from django.apps import AppConfig


class InventoryConfig(AppConfig):
    """What Cellar polls and what discovery found on it: switches, ports, VPs, VCs,
    cross-connects, hosts, links (tables inventory_*)."""
    name = "collector.inventory"
    label = "inventory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Profiles of CELLAR_PROFILE_DIRS join the built-in ones before anything polls or
        # validates a switch; a bad file stops start-up with its name (ProfileError).
        from django.conf import settings

        from collector.core import profiles

        if settings.CELLAR_PROFILE_DIRS:
            profiles.use_directories(settings.CELLAR_PROFILE_DIRS)
