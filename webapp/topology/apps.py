from django.apps import AppConfig


class TopologyConfig(AppConfig):
    """The network map: switches and hosts, links drawn with their utilisation now or at any retained
    time, a traced path highlighted. Reads only; node positions are stored through
    collector/inventory/mappositions.py."""
    name = "webapp.topology"
    label = "topology"
