from django.apps import AppConfig


class ExportsPagesConfig(AppConfig):
    """Pages of background exports: a job's progress, its JSON and its download. Reads only;
    jobs are created through collector.exports.jobs (by the CSV view of webapp/traffic)."""
    name = "webapp.exports"
    label = "exports_pages"
