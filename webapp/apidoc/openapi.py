"""OpenAPI 3.1 description of the JSON API and CSV exports (served at /traffic/api/openapi.json): traffic,
analyses and the network map (reports: openapi_reports.py; bulk exports and export jobs: openapi_exports.py).

Hand-written next to the views it documents; tests/webapp/traffic/test_api.py checks that it is
well formed, that every route under /traffic/api/ is in it, and that real answers match it.
"""
from __future__ import annotations

from collector.reader import resolution, units
from webapp.apidoc import openapi_exports, openapi_links, openapi_reports

NULLABLE_NUMBER = {"type": ["number", "null"]}
NULLABLE_INT = {"type": ["integer", "null"]}

SELECTION_PARAMS = [
    {"name": "s", "in": "query", "schema": {"type": "string", "pattern": r"^\d+(,\d+)*$"},
     "description": "Series ids, comma separated (or repeated). At most 50. Required unless g is given.",
     "example": "12,13"},
    {"name": "g", "in": "query", "schema": {"type": "integer"},
     "description": "A group's id instead of s: its member series (at most 50), stacked by default, with their "
                    "total (the sum of the members' averages per bucket; 1-minute buckets or coarser)."},
    {"name": "range", "in": "query", "schema": {"type": "string", "enum": [*resolution.RANGE_CHOICES, "auto"],
                                                  "default": "24h"},
     "description": "Time scale ending now; `all` = all available data; `custom` with start/end; `auto` = "
                    "24 h, or from just before the first data when it is younger (what the page opens on)."},
    {"name": "start", "in": "query", "schema": {"type": "string", "format": "date-time"},
     "description": "ISO 8601; UTC when no offset is given. Implies range=custom."},
    {"name": "end", "in": "query", "schema": {"type": "string", "format": "date-time"},
     "description": "ISO 8601, default now."},
    {"name": "unit", "in": "query", "schema": {"type": "string", "enum": list(units.CHOICES), "default": "auto"},
     "description": "cells/s, Mb/s of 53-byte cells, Mb/s of 48-byte payload, bits/s, packets/s, % of capacity."},
    {"name": "res", "in": "query", "schema": {"type": "string", "enum": list(resolution.CHOICES), "default": "auto"},
     "description": "auto: the finest resolution giving at most ~2000 points per series."},
    {"name": "stack", "in": "query", "schema": {"type": "string", "enum": ["0", "1"], "default": "0"}},
    {"name": "compare", "in": "query",
     "schema": {"type": "string", "pattern": r"^(\d+:)?\d+[mhdwy](,(\d+:)?\d+[mhdwy])*$"},
     "description": "The same series an offset earlier, dashed (1d, 7d, 1w, 12h, 90m, 1y), or series:offset "
                    "(12:1d) for one series; at most 4. Added to the JSON (compare) and CSV (columns after the "
                    "plot's). 400 when the earlier period is before the archive's first data."},
    {"name": "tz", "in": "query", "schema": {"type": "string"}, "example": "Europe/Berlin",
     "description": "IANA zone of the figure's axis and hover labels and of the CSV's times (ISO 8601 with "
                    "the offset); default: the viewer's zone for figures, UTC (Z) for the CSV."},
]

ERROR = {"description": "Bad input: the message says what was wrong.",
         "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}

TOO_SLOW = {"description": "The query ran past its time limit (collector/reader/timelimits.py): the message says the "
                           "limit and what to do instead",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
TEXT = {"text/plain": {"schema": {"type": "string"}}}

SERIES_PROPS = {
    "id": {"type": "integer"}, "label": {"type": "string"}, "switch_id": {"type": "integer"},
    "switch": {"type": "string"}, "port": {"type": "string"}, "port_label": {"type": "string"},
    "port_type": {"type": "string"}, "is_atm": {"type": "boolean"}, "vpi": NULLABLE_INT, "vci": NULLABLE_INT,
    "direction": {"type": "string", "enum": ["in", "out", ""]}, "metric": {"type": "string"},
    "unit": {"type": "string", "enum": ["cells", "octets", "packets", "events"]}, "width": {"type": "integer"},
    "capacity_per_s": NULLABLE_INT, "poll_interval_s": {"type": "integer"}, "object_name": {"type": "string"},
    "index": {"type": "string"}, "port_level": {"type": "boolean"}, "gone": {"type": "boolean"},
    "if_index": {**NULLABLE_INT, "description": "the port's ifIndex, an unsigned 32-bit value"},
}

SCHEMAS = {
    "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
    "Series": {"type": "object", "required": ["id", "label", "switch", "direction", "metric", "unit"],
               "properties": SERIES_PROPS},
    "SeriesList": {"type": "object", "required": ["series", "total"], "properties": {
        "series": {"type": "array", "items": {"$ref": "#/components/schemas/Series"}},
        "total": {"type": "integer", "description": "matches, counted up to catalog.RANK_MAX (5,000)"},
        "more": {"type": "boolean", "description": "more than 5,000 series match: the first 5,000 found were "
                                                  "ranked, the answer's best are among those; narrow the search"},
        "note": {"type": "string", "description": "with more: what to do"}}},
    "SwitchSummary": {"type": "object", "required": ["id", "name"], "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"}, "profile": {"type": "string"},
        "address": {"type": "string"}, "poll_interval_s": {"type": "integer"}, "enabled": {"type": "boolean"},
        "ports": {"type": "integer"}, "series": {"type": "integer"}}},
    "Inventory": {"type": "object", "required": ["switches"], "properties": {
        "switches": {"type": "array", "items": {"$ref": "#/components/schemas/SwitchSummary"}}}},
    "SeriesBrief": {"type": "object", "required": ["id", "direction", "metric", "label"], "properties": {
        "id": {"type": "integer"}, "direction": {"type": "string"}, "metric": {"type": "string"},
        "unit": {"type": "string"}, "label": {"type": "string"}, "gone": {"type": "boolean"}}},
    "VC": {"type": "object", "required": ["vci", "series"], "properties": {
        "vci": {"type": "integer"}, "gone": {"type": "boolean"}, "service_category": {"type": "string"},
        "series": {"type": "array", "items": {"$ref": "#/components/schemas/SeriesBrief"}}}},
    "VP": {"type": "object", "required": ["vpi", "series", "vcs"], "properties": {
        "vpi": {"type": "integer"}, "gone": {"type": "boolean"},
        "series": {"type": "array", "items": {"$ref": "#/components/schemas/SeriesBrief"}},
        "vcs": {"type": "array", "items": {"$ref": "#/components/schemas/VC"}}}},
    "Port": {"type": "object", "required": ["id", "name", "series", "vps"], "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"}, "label": {"type": "string"},
        "port_type": {"type": "string"}, "is_atm": {"type": "boolean"}, "speed_bps": NULLABLE_INT,
        "capacity_cells": NULLABLE_INT, "oper_status": {"type": "string"}, "gone": {"type": "boolean"},
        "series": {"type": "array", "items": {"$ref": "#/components/schemas/SeriesBrief"}},
        "vps": {"type": "array", "items": {"$ref": "#/components/schemas/VP"}}}},
    "SwitchTree": {"type": "object", "required": ["id", "name", "ports"], "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"}, "profile": {"type": "string"},
        "poll_interval_s": {"type": "integer"},
        "ports": {"type": "array", "items": {"$ref": "#/components/schemas/Port"}}}},
    "Stats": {"type": "object", "required": ["average", "peak", "p95", "total", "total_unit"], "properties": {
        "average": NULLABLE_NUMBER, "peak": NULLABLE_NUMBER, "p95": NULLABLE_NUMBER,
        "p95_basis": {"type": "string", "enum": list(resolution.RESOLUTIONS)},
        "total": {"type": "integer", "description": "archived deltas drawn in the range (cells, bytes or packets)"},
        "total_unit": {"type": "string"}, "total_bytes": {"type": "integer"},
        "total_payload_bytes": {"type": "integer"}, "seconds": {"type": "number"},
        "coverage": NULLABLE_NUMBER, "samples": {"type": "integer"}, "flagged": {"type": "integer"}}},
    "Points": {"type": "object", "required": ["t", "avg", "peak", "total", "seconds"],
               "description": "Columns of equal length; values in the response's unit, totals in the series' unit.",
               "properties": {
                   "t": {"type": "array", "items": {"type": "string", "format": "date-time"}},
                   "avg": {"type": "array", "items": NULLABLE_NUMBER},
                   "peak": {"type": "array", "items": NULLABLE_NUMBER},
                   "low": {"type": "array", "items": NULLABLE_NUMBER},
                   "total": {"type": "array", "items": {"type": "integer"}},
                   "seconds": {"type": "array", "items": {"type": "number"}},
                   "samples": {"type": "array", "items": {"type": "integer"}},
                   "flagged": {"type": "array", "items": {"type": "integer"}},
                   "flags": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
                   "delta": {"type": "array", "items": NULLABLE_INT},
                   "interval": {"type": "array", "items": {"type": "number"}}}},
    "Gap": {"type": "object", "required": ["start", "end", "kind", "reason"], "properties": {
        "start": {"type": "string", "format": "date-time"}, "end": {"type": "string", "format": "date-time"},
        "kind": {"type": "string", "enum": ["nodata", "withheld", "missed"]}, "reason": {"type": "string"}}},
    "SeriesData": {"allOf": [{"$ref": "#/components/schemas/Series"}, {
        "type": "object", "required": ["factor", "stats", "n_points", "gaps"], "properties": {
            "factor": {"type": "number"}, "stats": {"$ref": "#/components/schemas/Stats"},
            "n_points": {"type": "integer"},
            "points": {"$ref": "#/components/schemas/Points", "description": "left out with points=0"},
            "gaps": {"type": "array", "items": {"$ref": "#/components/schemas/Gap"}},
            "bursts": {"$ref": "#/components/schemas/Bursts", "description": "left out with bursts=0"}}}]},
    "Burst": {"type": "object", "required": ["start", "end", "duration_s", "peak", "mean", "volume"], "properties": {
        "start": {"type": "string", "format": "date-time"}, "end": {"type": "string", "format": "date-time"},
        "duration_s": {"type": "number"}, "peak": {"type": "number"}, "mean": {"type": "number"},
        "volume": {"type": "integer", "description": "units counted (cells, octets, packets)"},
        "points": {"type": "integer"}, "gap_s": {"type": "number", "description": "unknown time inside"},
        "samples": {"type": "integer", "description": "poll samples above the threshold (in buckets: the fewest "
                                                       "their volume and peak imply)"}}},
    "Bursts": {"type": "object", "required": ["median", "threshold", "bursts"], "properties": {
        "median": NULLABLE_NUMBER, "threshold": NULLABLE_NUMBER,
        "bursts": {"type": "array", "items": {"$ref": "#/components/schemas/Burst"}}}},
    "BurstRule": {"type": "object", "required": ["k", "capacity_pct", "min_duration_s", "definition"],
                  "properties": {"k": {"type": "number"}, "capacity_pct": {"type": "number"},
                                 "min_duration_s": {"type": "number"}, "min_samples": {"type": "integer"},
                                 "definition": {"type": "string"},
                                 "found_at": {"type": "string", "description": "the resolution searched"}}},
    "Data": {"type": "object", "required": ["start", "end", "resolution", "unit", "series"], "properties": {
        "start": {"type": "string", "format": "date-time"}, "end": {"type": "string", "format": "date-time"},
        "now": {"type": "string", "format": "date-time"}, "range": {"type": "string"},
        "resolution": {"type": "string", "enum": list(resolution.RESOLUTIONS)}, "resolution_label": {"type": "string"},
        "resolution_seconds": {"type": "number"}, "unit": {"type": "string", "enum": list(units.UNITS)},
        "unit_label": {"type": "string"}, "stack": {"type": "boolean"}, "query": {"type": "string"},
        "group": {"type": ["object", "null"], "description": "the group plotted (g=) and its total line",
                  "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
                                 "total": {"type": ["object", "null"], "properties": {
                                     "members": {"type": "integer"}, "average": NULLABLE_NUMBER,
                                     "peak": NULLABLE_NUMBER, "total": NULLABLE_INT,
                                     "total_unit": {"type": ["string", "null"]}, "n_points": {"type": "integer"},
                                     "points": {"type": "object", "description": "t, avg, total, drawn"}}}}},
        "notes": {"type": "array", "items": {"type": "string"}}, "server_ms": {"type": "number"},
        "series": {"type": "array", "items": {"$ref": "#/components/schemas/SeriesData"}},
        "burst_rule": {"$ref": "#/components/schemas/BurstRule"},
        "zone": {"type": "string", "description": "IANA zone of the figure's times (tz, else the viewer's)"},
        "compare": {"type": "array", "description": "with compare=: each earlier period of each series, points at "
                                                    "their own (earlier) times; the figure draws them shifted",
                    "items": {"type": "object", "required": ["series", "offset", "offset_s", "start", "end", "stats"],
                              "properties": {
                                  "series": {"type": "integer"}, "label": {"type": "string"},
                                  "offset": {"type": "string"}, "offset_s": {"type": "integer"},
                                  "start": {"type": "string", "format": "date-time"},
                                  "end": {"type": "string", "format": "date-time"},
                                  "stats": {"$ref": "#/components/schemas/Stats"}, "n_points": {"type": "integer"},
                                  "points": {"$ref": "#/components/schemas/Points"}}}},
        "runs": {"type": "array", "description": "experiment runs overlapping the range (at most 50)",
                 "items": {"type": "object", "required": ["id", "name", "start"], "properties": {
                     "id": {"type": "integer"}, "name": {"type": "string"},
                     "start": {"type": "string", "format": "date-time"},
                     "end": {"type": ["string", "null"], "format": "date-time"}, "url": {"type": "string"},
                     "going_on": {"type": "boolean"}}}},
        "figure": {"type": "object", "description": "Plotly figure {data, layout} (figure=1)",
                   "required": ["data", "layout"],
                   "properties": {"data": {"type": "array"}, "layout": {"type": "object"}}}}},
    "P95": {"type": "object", "required": ["start", "end", "unit", "p95_basis", "series"], "properties": {
        "start": {"type": "string", "format": "date-time"}, "end": {"type": "string", "format": "date-time"},
        "unit": {"type": "string", "enum": list(units.UNITS)},
        "p95_basis": {"type": "string", "enum": list(resolution.RESOLUTIONS),
                      "description": "the resolution whose rates the percentile is taken over"},
        "server_ms": {"type": "number"},
        "series": {"type": "array", "items": {"type": "object", "required": ["id", "p95"], "properties": {
            "id": {"type": "integer"}, "label": {"type": "string"}, "p95": NULLABLE_NUMBER}}}}},
}

ON_OFF = {"type": "string", "enum": ["0", "1"]}


AUTH_ERROR = {"description": "401: not logged in and no valid API token (WWW-Authenticate: Bearer); 403: the "
                             "user's role does not allow it. The message says which.",
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
RATE_LIMITED = {"description": "Too many expensive requests (CSV, percentiles) from this user or address: "
                               "Retry-After says in how many seconds to try again; the message states the limit.",
                "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
SECURITY_SCHEMES = {
    "apiToken": {"type": "http", "scheme": "bearer",
                 "description": "A personal API token (Authorization: Bearer cellar_...), made on /accounts/tokens/ "
                                "or with manage.py token create USER NAME; it has its user's role, expires, and "
                                "stops working when revoked."},
    "session": {"type": "apiKey", "in": "cookie", "name": "sessionid",
                "description": "The browser session of a logged-in user (the pages use it)."},
}
# Operations counted against the rate limits of webapp/access/ratelimits.py.
LIMITED_OPERATIONS = {"exportCsv", "seriesP95", "startAnalysis", "plotPng", "plotSvg", "plotCsv", "topTalkers",
                      "topTalkersCsv", "bulkExport", "startBulkExport"}


def with_access(doc: dict) -> dict:
    """Every operation needs a viewer's token or session: say so, with its 401/403 (and 429)."""
    doc["security"] = [{"apiToken": []}, {"session": []}]
    doc["components"]["securitySchemes"] = SECURITY_SCHEMES
    for path in doc["paths"].values():
        for op in path.values():
            op["responses"].setdefault("401", AUTH_ERROR)
            op["responses"].setdefault("403", AUTH_ERROR)
            if op["operationId"] in LIMITED_OPERATIONS:
                op["responses"]["429"] = RATE_LIMITED
    return doc


def spec() -> dict:
    doc = _spec()
    p = doc["paths"]
    p.update(openapi_links.paths(SELECTION_PARAMS, p["/traffic/api/data"]["get"], p["/traffic/export.csv"]["get"]))
    return with_access(doc)


def _spec() -> dict:
    json_ok = lambda ref, text: {"description": text,  # noqa: E731
                                 "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Cellar traffic API", "version": "1",
                 "description": "Read-only: the series Cellar archives, their data at any time scale, the "
                                "inventory to find them, top talkers, groups of series and bills. Times are ISO "
                                "8601 UTC. Every call needs a user with the viewer role (or more): a script sends "
                                "its API token as a bearer token."},
        "paths": {
            "/traffic/api/series": {"get": {
                "operationId": "listSeries", "summary": "Search counter series",
                "parameters": [
                    {"name": "q", "in": "query", "schema": {"type": "string"},
                     "description": "Words matched against switch, port name or label, VP:n, VC:n, vpi/vci, "
                                    "receive/transmit, metric."},
                    {"name": "switch", "in": "query", "schema": {"type": "string"}},
                    {"name": "port", "in": "query", "schema": {"type": "string"},
                     "description": "a port name (unique on its switch), the agent's name, or ifindex:N"},
                    {"name": "direction", "in": "query", "schema": {"type": "string", "enum": ["in", "out"]}},
                    {"name": "metric", "in": "query", "schema": {"type": "string"}},
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 1000,
                                                                "default": 200}}],
                "responses": {"200": json_ok("SeriesList", "Matching series"), "400": ERROR}}},
            "/traffic/api/data": {"get": {
                "operationId": "seriesData", "summary": "Data of series over a range, at the plot's resolution",
                "parameters": SELECTION_PARAMS + [
                    {"name": "figure", "in": "query", "schema": ON_OFF,
                     "description": "1: also return the Plotly figure the page draws (long columns as Plotly "
                                    "typed arrays: {dtype: f8, bdata: base64 of little-endian float64}, x in "
                                    "epoch milliseconds, NaN where the line breaks)."},
                    {"name": "points", "in": "query", "schema": {**ON_OFF, "default": "1"},
                     "description": "0: leave out the point columns (n_points still says how many)."},
                    {"name": "p95", "in": "query", "schema": {**ON_OFF, "default": "1"},
                     "description": "0: leave out the 95th percentile (stats.p95 null), which reads a finer "
                                    "resolution than the points; /traffic/api/p95 gives it on its own."},
                    {"name": "bursts", "in": "query", "schema": {**ON_OFF, "default": "1"},
                     "description": "0: do not look for significant bursts (a rate above max(burst_k x the "
                                    "median of the range, burst_pct % of capacity) for at least burst_min s "
                                    "and burst_samples poll samples, at the answer's resolution)."},
                    {"name": "burst_k", "in": "query", "schema": {"type": "number", "minimum": 0, "maximum": 1000}},
                    {"name": "burst_pct", "in": "query", "schema": {"type": "number", "minimum": 0, "maximum": 100}},
                    {"name": "burst_min", "in": "query",
                     "schema": {"type": "number", "minimum": 0, "maximum": 604800}},
                    {"name": "burst_samples", "in": "query",
                     "schema": {"type": "integer", "minimum": 1, "maximum": 10000}}],
                "responses": {"200": json_ok("Data", "Points, gaps and statistics per series"), "400": ERROR,
                              "503": TOO_SLOW}}},
            "/traffic/api/p95": {"get": {
                "operationId": "seriesP95", "summary": "95th percentile of each series' rates over a range",
                "description": "Over the finest resolution with at most 20,000 points per series (a year: "
                               "1-hour averages), in the unit asked for; same selection as /traffic/api/data.",
                "parameters": SELECTION_PARAMS,
                "responses": {"200": json_ok("P95", "Per series"), "400": ERROR, "503": TOO_SLOW}}},
            "/traffic/api/inventory": {"get": {
                "operationId": "inventory", "summary": "Switches",
                "responses": {"200": json_ok("Inventory", "All switches")}}},
            "/traffic/api/inventory/{switch_id}": {"get": {
                "operationId": "switchTree", "summary": "Ports, VPs, VCs and series of one switch",
                "parameters": [{"name": "switch_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {"200": json_ok("SwitchTree", "The switch's tree"),
                              "404": {"description": "No such switch",
                                      "content": {"application/json": {
                                          "schema": {"$ref": "#/components/schemas/Error"}}}}}}},
            "/traffic/port/{switch}/{port}/": {"get": {
                "operationId": "plotOfPort", "summary": "Redirect to the plot of a port, VP or VC, by names",
                "parameters": [
                    {"name": "switch", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "port", "in": "path", "required": True, "schema": {"type": "string"},
                     "description": "a port name (unique on its switch), the agent's name when unique, "
                                    "or ifindex:N; an ambiguous name answers 404 listing the candidates"},
                    {"name": "vpi", "in": "query", "schema": {"type": "integer"}},
                    {"name": "vci", "in": "query", "schema": {"type": "integer"}},
                    {"name": "direction", "in": "query", "schema": {"type": "string", "enum": ["in", "out"]}},
                    {"name": "range", "in": "query",
                     "schema": {"type": "string", "enum": list(resolution.RANGE_CHOICES)}}],
                "responses": {"302": {"description": "to /traffic/?s=<ids>&..."},
                              "404": {"description": "No such port, VP or VC", "content": {"text/html": {}}}}}},
            "/traffic/api/openapi.json": {"get": {
                "operationId": "openapi", "summary": "This document",
                "responses": {"200": {"description": "OpenAPI 3.1",
                                      "content": {"application/json": {"schema": {"type": "object"}}}}}}},
            "/traffic/export.csv": {"get": {
                "operationId": "exportCsv", "summary": "CSV of what the plot shows (streamed)",
                "parameters": SELECTION_PARAMS + [
                    {"name": "raw", "in": "query", "schema": {"type": "string", "enum": ["0", "1"]},
                     "description": "1: raw samples instead of the plot's resolution."}],
                "responses": {"200": {"description": "time column (ISO 8601 UTC), then per series value columns with "
                                                     "their unit in brackets and a flags column",
                                      "content": {"text/csv": {"schema": {"type": "string"}}}},
                              "400": {"description": "Bad input", "content": TEXT},
                              "409": {"description": "Larger than a direct download holds (CELLAR_CSV_SYNC_MAX_CELLS): "
                                                     "a page (JSON with Accept: application/json) offering a "
                                                     "background export; POST the same URL to start it",
                                      "content": {"text/html": {}, "application/json": {}}},
                              "429": {"description": "Too many direct downloads streaming (in all, or of this "
                                                     "user or address); Retry-After says when to retry",
                                      "content": TEXT},
                              "503": {"description": "The query ran past its time limit (the message says which "
                                                     "and what to do)", "content": TEXT}}},
                "post": {
                    "operationId": "startExport", "summary": "Start a background export of this CSV",
                    "parameters": SELECTION_PARAMS + [{"name": "raw", "in": "query",
                                                       "schema": {"type": "string", "enum": ["0", "1"]}}],
                    "responses": {
                        "202": {"description": "Created (Accept: application/json): id, page_url, json_url",
                                "content": {"application/json": {}}},
                        "303": {"description": "Created: to the job's page /exports/<id>/"},
                        "400": {"description": "Bad input", "content": TEXT}}}},
            "/analysis/api/jobs": {"post": {
                "operationId": "startAnalysis", "summary": "Start a traffic analysis (runs on the worker)",
                "description": "Summary statistics, autocorrelation, spectrum, stationarity and the Hurst parameter "
                               "(aggregated variance, R/S, Abry-Veitch wavelet, local Whittle) of one series or the "
                               "sum of several, and optionally the correlation with a second series in coarse "
                               "intervals at every lag. Reads the finest resolution with at most 65,536 points. "
                               "One user may have 3 analyses queued or running (429 beyond).",
                "parameters": SELECTION_PARAMS[:1] + [
                    {"name": "x", "in": "query", "schema": {"type": "integer"},
                     "description": "An imported external series instead of s"}] + SELECTION_PARAMS[1:5] + [
                    {"name": "res", "in": "query", "schema": {"type": "string", "enum": list(resolution.CHOICES)},
                     "description": "auto: the finest resolution with at most 65,536 points"},
                    {"name": "gaps", "in": "query", "schema": {"type": "string", "enum": ["longest", "interpolate"]}},
                    {"name": "max_gap", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 60}},
                    {"name": "with", "in": "query", "schema": {"type": "string", "pattern": r"^[sx]:\d+$"},
                     "description": "s:<series id> or x:<external series id> to correlate with"},
                    {"name": "coarse", "in": "query", "schema": {"type": "integer", "minimum": 60},
                     "description": "seconds of the coarse intervals (default: the external's interval, else 900)"},
                    {"name": "max_lag", "in": "query", "schema": {"type": "integer", "minimum": 0, "maximum": 96}}],
                "responses": {
                    "202": {"description": "Queued: id, status, json_url, page_url",
                            "content": {"application/json": {}}},
                    "200": {"description": "The same selection of a settled window was analysed already: that job",
                            "content": {"application/json": {}}},
                    "400": ERROR}}},
            "/analysis/api/jobs/{job_id}": {"get": {
                "operationId": "analysisJob", "summary": "An analysis: status, progress, numbers and figures",
                "parameters": [{"name": "job_id", "in": "path", "required": True, "schema": {"type": "integer"}},
                               {"name": "figures", "in": "query", "schema": {**ON_OFF, "default": "1"},
                                "description": "0: leave out the Plotly figures"}],
                "responses": {"200": {"description": "status (queued, running, done, failed), percent, step, "
                                                     "error; when done: result (every number) and figures",
                                      "content": {"application/json": {}}},
                              "404": {"description": "No such analysis", "content": {"text/html": {}}}}}},
            "/analysis/jobs/{job_id}/results.csv": {"get": {
                "operationId": "analysisCsv", "summary": "One row per statistic and estimate",
                "parameters": [{"name": "job_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "section, statistic, value, ci_low, ci_high, fit_from, fit_to, "
                                                     "fit_unit, samples, note",
                                      "content": {"text/csv": {"schema": {"type": "string"}}}},
                              "409": {"description": "Not done yet", "content": TEXT}}}},
            # The network map (webapp/topology).
            "/map/api/graph": {"get": {
                "operationId": "mapGraph",
                "summary": "Switches, hosts and links with the utilisation of each direction",
                "description": "Nodes (switches, hosts) with their map positions; edges (links between switches, "
                               "host attachments) with how each is known (manual, confirmed, inferred: confidence, "
                               "evidence kinds, conflict) and, per direction ab/ba, rate, unit, capacity and "
                               "utilisation (rate / capacity). Now: the latest poll of each switch; with `at`: the "
                               "bucket of the finest rollup tier that holds that time. A network of more nodes than "
                               "the map draws (webapp/topology/graph.MAP_NODES_MAX, 300) is drawn around one "
                               "switch, within `hops` links; `view` says what was drawn.",
                "parameters": [{"name": "at", "in": "query", "schema": {"type": "string", "format": "date-time"},
                                "description": "ISO 8601 time to replay (1990 .. now)"},
                               {"name": "around", "in": "query", "schema": {"type": "string"},
                                "description": "the switch to draw around (default: the best-connected one, and "
                                               "only when the network has more nodes than the map draws)"},
                               {"name": "hops", "in": "query", "schema": {"type": "integer", "minimum": 1,
                                                                          "maximum": 6, "default": 2},
                                "description": "links from that switch"}],
                "responses": {"200": {"description": "nodes, edges, size, source, view (whole, nodes_total, "
                                                     "shown, limit, around, hops, cut), retained, conflicts",
                                      "content": {"application/json": {}}}, "400": ERROR}}},
            "/map/api/links/{link_id}": {"get": {
                "operationId": "mapLink", "summary": "A link between switches: evidence, conflict, crossing VCs",
                "parameters": [{"name": "link_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "state, confidence, conflict, a/b ends with plot URLs, "
                                                     "evidence, the claims of both ports, vcs with their latest "
                                                     "cells/s", "content": {"application/json": {}}},
                              "404": ERROR}}},
            "/map/api/path": {"get": {
                "operationId": "mapPath", "summary": "The traced VCC paths between two hosts, to highlight",
                "parameters": [{"name": "src", "in": "query", "required": True, "schema": {"type": "string"}},
                               {"name": "dst", "in": "query", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "summary, edges and nodes on the paths, traces (hops, status, "
                                                     "the links used)", "content": {"application/json": {}}},
                              "400": ERROR, "404": ERROR}}},
            "/map/api/positions": {"post": {
                "operationId": "mapPositions", "summary": "Store node positions (operator role)",
                "requestBody": {"content": {"application/json": {"schema": {
                    "type": "object", "properties": {"positions": {
                        "type": "object", "additionalProperties": {"type": "array", "items": {"type": "number"},
                                                                   "minItems": 2, "maxItems": 2}}}}}}},
                "responses": {"200": {"description": "saved: how many", "content": {"application/json": {}}},
                              "400": ERROR, "403": ERROR}}},
            **openapi_reports.paths(json_ok, ERROR, TOO_SLOW, TEXT),
            **openapi_exports.paths(json_ok, ERROR, TOO_SLOW),
        },
        "components": {"schemas": {**SCHEMAS, **openapi_reports.SCHEMAS, **openapi_exports.SCHEMAS}},
    }
