from django.apps import AppConfig


class GroupsConfig(AppConfig):
    """Groups: saved, named sets of series, static (chosen series) or dynamic (rules over the
    inventory: switch, port name pattern, VPI range, attached host, tag), and the tags the rules
    read. Plots, top talkers, bills and alerts take a group through resolve.resolve, the one
    function that turns a group into its member series."""
    name = "collector.groups"
    label = "groups"
    default_auto_field = "django.db.models.BigAutoField"
