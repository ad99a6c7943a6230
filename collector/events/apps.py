from django.apps import AppConfig


class EventsConfig(AppConfig):
    """What happened to the network, one row per fact (docs/events.md): agent reboots,
    counter wraps and discontinuities (from polls), port/VP/VC state changes and ports or PVCs
    appearing or vanishing (from discovery and traps), alert firings, and notes posted by users
    or through the API. Everything records through record.record_event; pages and plots read
    through read.py. Events are small and kept past the archive's retention."""
    name = "collector.events"
    label = "events"
    default_auto_field = "django.db.models.BigAutoField"
