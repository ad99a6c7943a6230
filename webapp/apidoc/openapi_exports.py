"""OpenAPI paths and schemas of bulk exports and export jobs (webapp/exports), part of the one document
served at /traffic/api/openapi.json (openapi.spec merges them): start an export (or get a small one at
once), poll its job, download its file. The grammar is collector/exports/bulkjobs.py's, the columns
collector/exports/bulkfiles.py's."""
from __future__ import annotations

from collector.exports import bulkfiles
from collector.reader import resolution

STR = {"type": "string"}
INT = {"type": "integer"}
NULL_STR = {"type": ["string", "null"]}
JOB_ID = {"name": "job_id", "in": "path", "required": True, "schema": INT}

BULK_PARAMS = [
    {"name": "switch", "in": "query", "schema": STR, "description": "A switch's name (repeatable): every counter "
                                                                     "series of it. One of switch, g, s, all."},
    {"name": "g", "in": "query", "schema": STR, "description": "A group's id or name: its member series at start."},
    {"name": "s", "in": "query", "schema": {"type": "string", "pattern": r"^\d+(,\d+)*$"},
     "description": "Series ids, comma separated (no count limit below CELLAR_BULK_EXPORT_MAX_SERIES)."},
    {"name": "all", "in": "query", "schema": {"type": "string", "enum": ["1"]},
     "description": "Every counter series of the archive."},
    {"name": "start", "in": "query", "schema": STR, "example": "24h",
     "description": "ISO 8601 (UTC without an offset) or a span before end: 90m, 24h, 7d, 1y. Default 24h."},
    {"name": "end", "in": "query", "schema": STR, "description": "ISO 8601 or a span before now. Default now."},
    {"name": "res", "in": "query", "schema": {"type": "string", "enum": list(resolution.CHOICES), "default": "raw"},
     "description": "raw samples or a rollup tier; auto: what the plot page would draw"},
    {"name": "format", "in": "query", "schema": {"type": "string", "enum": list(bulkfiles.FORMATS),
                                                 "default": "csv"},
     "description": "csv: a row per series and time (" + ", ".join(bulkfiles.LABEL_COLUMNS) + ", then raw: "
                    + ", ".join(("counter", "delta", "rate", "interval_s", "flags")) + "; tiers: "
                    + ", ".join(("delta", "rate", "peak_rate", "min_rate", "drawn_s", "samples", "flagged"))
                    + "); csv-wide: time, then one rate column per series; parquet: the csv's columns typed "
                      "(time timestamp[us, UTC], labels dictionary-encoded, counter uint64, delta int64)."},
]
SCHEMAS = {
    "ExportJob": {"type": "object", "required": ["id", "status", "kind", "percent", "rows_written", "text"],
                  "properties": {
                      "id": INT, "kind": {"type": "string", "enum": ["plot", "bulk"]},
                      "status": {"type": "string", "enum": ["queued", "running", "done", "failed", "expired"]},
                      "title": STR, "selection": STR, "filename": STR, "expected_rows": INT, "rows_written": INT,
                      "bytes_written": INT, "percent": {"type": "number"}, "error": STR, "created": STR,
                      "started": NULL_STR, "finished": NULL_STR, "position": {"type": ["integer", "null"]},
                      "download_url": NULL_STR, "text": STR}},
    "ExportCreated": {"type": "object", "required": ["id", "status", "json_url", "page_url", "download_url"],
                      "properties": {"id": INT, "status": STR, "json_url": STR, "page_url": STR,
                                     "download_url": STR, "expected_rows": INT}},
}


def paths(json_ok, error: dict, too_slow: dict) -> dict:
    """The paths, given openapi.py's response helpers."""
    files = {media: {"schema": {"type": "string"}} for media in sorted(set(bulkfiles.CONTENT_TYPE.values()))}
    return {
        "/exports/api/bulk": {
            "get": {
                "operationId": "bulkExport", "summary": "A small bulk export at once (streamed)",
                "description": "A switch, a group, series or the whole network over a window. At most "
                               "CELLAR_CSV_SYNC_MAX_CELLS rows (2,000,000) at once; more answers 409: POST the same "
                               "URL for a background job. At most CELLAR_BULK_EXPORT_MAX_SERIES series and "
                               "CELLAR_BULK_EXPORT_MAX_ROWS rows in any export (400 naming both numbers).",
                "parameters": BULK_PARAMS,
                "responses": {"200": {"description": "The file, streamed batch by batch", "content": files},
                              "400": error,
                              "409": {"description": "Too many rows for a direct answer: rows, limit, and how to "
                                                     "create the job", "content": {"application/json": {}}},
                              "503": too_slow}},
            "post": {
                "operationId": "startBulkExport", "summary": "Start a bulk export as a background job",
                "description": "The job (queue exports) writes the file batch by batch with progress; poll "
                               "json_url, then GET download_url. Kept CELLAR_EXPORT_KEEP_HOURS (24) after it ends. "
                               "The parameters in the query string, or form-encoded in the body.",
                "parameters": BULK_PARAMS,
                "responses": {"202": json_ok("ExportCreated", "Queued: id, json_url, page_url, download_url"),
                              "400": error}}},
        "/exports/{job_id}.json": {"get": {
            "operationId": "exportJob", "summary": "An export job: status, progress, download URL when done",
            "parameters": [JOB_ID],
            "responses": {"200": json_ok("ExportJob", "status, rows and bytes written, percent, text"),
                          "404": {"description": "No such job", "content": {"text/html": {}}}}}},
        "/exports/{job_id}/download": {"get": {
            "operationId": "exportDownload", "summary": "The file of a finished export job",
            "parameters": [JOB_ID],
            "responses": {"200": {"description": "The CSV or Parquet file", "content": files},
                          "409": {"description": "Not done (or expired): the job's state",
                                  "content": {"text/plain": {"schema": STR}}},
                          "404": {"description": "No such job, or its file is gone",
                                  "content": {"text/html": {}}}}}},
    }
