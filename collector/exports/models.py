"""The table of background CSV exports (owned by the exports app; page apps read it)."""
from __future__ import annotations

from django.db import models

from collector.audit.owners import OwnedJob


class ExportJob(OwnedJob):
    """One background export: who asked, what, and how far the worker got. Two kinds: a plot's CSV
    ("plot": the query string and the COPY it became; the COPY's SQL is built by the web from checked
    ids and numbers, collector/reader/csvrows.py, and stored so the worker writes exactly that CSV)
    and a bulk export ("bulk": `spec` holds the scope, the window made absolute, the resolution and
    the format: collector/exports/bulkjobs.py). No secret is ever part of either."""

    class Kind(models.TextChoices):
        PLOT = "plot"
        BULK = "bulk"

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
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.PLOT)
    spec = models.JSONField(default=dict, blank=True, help_text="a bulk export: scope, start, end, res, format")
    progress_at = models.DateTimeField(null=True, blank=True, help_text="when the worker last reported progress")

    class Meta:
        db_table = "exports_job"
        indexes = [models.Index(fields=["status", "id"], name="exports_job_status_id")]

    @property
    def fraction(self) -> float:
        if self.status == self.Status.DONE:
            return 1.0
        return min(0.99, self.rows_written / max(1, self.expected_rows))
