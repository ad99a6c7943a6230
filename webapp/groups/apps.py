from django.apps import AppConfig


class GroupsPagesConfig(AppConfig):
    """Pages of groups and tags: lists, a group's members, the forms operators use (through
    collector/groups: edit, tags), and the JSON API. Reading pages only read."""
    name = "webapp.groups"
    label = "groups_pages"
