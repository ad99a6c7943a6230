"""The job tables of work asked from the web (owned by the exports app; page apps read them)."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class OwnedJob(models.Model):
    """What every job asked from the web has: its owner (a user, or for an anonymous request the
    SHA-256 of its session key; jobs.visible_to decides who sees it) and its times."""
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="+", help_text="empty when asked anonymously (see session_hash)")
    session_hash = models.CharField(max_length=64, blank=True, default="",
                                    help_text="SHA-256 of the anonymous owner's session key (never the key)")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class ExportJob(OwnedJob):
    """One background CSV export: who asked, what (the query string and the COPY it became),
    and how far the worker got. The COPY's SQL is built by the web from checked ids and numbers
    (webapp/traffic/csvexport.py) and stored so the worker writes exactly that CSV; no secret is
    ever part of it."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        EXPIRED = "expired"

    selection = models.TextField(help_text="the query string asked (series ids, range, resolution, unit)")
    filename = models.CharField(max_length=255)
    header = models.TextField(help_text="the CSV header line")
    copy_sql = models.TextField()
    copy_params = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    expected_rows = models.BigIntegerField()
    rows_written = models.BigIntegerField(default=0)
    bytes_written = models.BigIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    path = models.CharField(max_length=500, blank=True, default="", help_text="the file, once written")
    sent_at = models.DateTimeField(null=True, blank=True, help_text="when its task went to the queue")

    class Meta:
        db_table = "exports_job"
        indexes = [models.Index(fields=["status", "id"], name="exports_job_status_id")]

    @property
    def fraction(self) -> float:
        if self.status == self.Status.DONE:
            return 1.0
        return min(0.99, self.rows_written / max(1, self.expected_rows))


class AnalysisJob(OwnedJob):
    """One traffic analysis (issue 12) asked from the web or the API: the selection as a query
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
