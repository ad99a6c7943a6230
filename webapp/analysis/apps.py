from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    """The pages of traffic analyses: the form with the series picker, a job's progress and results,
    their JSON and CSV. The jobs, their task and their body are collector/analysis."""
    name = "webapp.analysis"
    label = "analysis_pages"
