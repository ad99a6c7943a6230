from django.apps import AppConfig


class ApiDocConfig(AppConfig):
    """The site's API document: OpenAPI 3.1 of every JSON answer and CSV export Cellar serves (plots,
    analyses, runs, groups, talkers, events, the map, links to plots), at /api/openapi.json."""
    name = "webapp.apidoc"
    label = "apidoc"
