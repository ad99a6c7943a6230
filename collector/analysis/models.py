"""The analysis jobs: traffic statistics of any series asked from the web or the API, computed by the
worker (collector/analysis/run.py), their progress and result (page apps read them)."""
from __future__ import annotations

from django.db import models

from collector.audit.owners import OwnedJob


class AnalysisJob(OwnedJob):
    """One traffic analysis asked from the web or the API: the selection as a query
    string with the range made absolute, and the worker's progress and result (JSON of numbers;
    the page draws its figures from it). Owner rules as for ExportJob."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    selection = models.TextField(help_text="the analysis query string (series, absolute window, options)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    fraction = models.FloatField(default=0.0, help_text="0..1, written by the worker between steps")
    step = models.CharField(max_length=200, blank=True, default="", help_text="what the worker is doing")
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        db_table = "exports_analysis_job"
        indexes = [models.Index(fields=["selection", "status"], name="exports_analysis_sel")]
