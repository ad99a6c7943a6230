from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    """Traffic statistics of any series: the job table, the worker's task and the job's body (read
    through collector/reader, computed by numerics/). Its pages are webapp/analysis."""
    name = "collector.analysis"
    label = "analysis"
    default_auto_field = "django.db.models.BigAutoField"
