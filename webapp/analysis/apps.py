from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    """Traffic statistics of any series (issue 12): the page, its JSON and CSV, and the worker
    task that computes them. Reads through webapp.traffic; its jobs live in collector.exports."""
    name = "webapp.analysis"
    label = "analysis"
