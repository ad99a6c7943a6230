from django.apps import AppConfig


class TopologyConfig(AppConfig):
    """The network map: switches and hosts, links drawn with their utilisation now or at any retained
    time, a traced path highlighted (issue 13). Reads only; node positions are stored through
    collector/inventory/layout.py."""
    name = "webapp.topology"
    label = "topology"
