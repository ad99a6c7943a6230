from django.apps import AppConfig


class EventsPagesConfig(AppConfig):
    """Page app: the events list (filters, pages), notes posted by operators (form and JSON API).
    Reads collector/events; writes notes through collector/events/notes.py."""
    name = "webapp.events"
    label = "events_pages"
