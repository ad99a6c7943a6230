from django.apps import AppConfig


class ExternalPagesConfig(AppConfig):
    """Pages of external series (imported counts from another source): the list, the upload form
    (operators; it calls collector.external.imports), a series' page, its JSON and CSV."""
    name = "webapp.external"
    label = "external_pages"
