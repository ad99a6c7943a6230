from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    """The data inventory (seed 002, table 15, alive): every archived series, what it holds and
    where its significant bursts are. A page app: it only reads."""
    name = "webapp.datasets"
    label = "datasets"
