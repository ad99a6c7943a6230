"""OpenAPI of the plot's forms and links (permalinks.py): images, the CSV/JSON aliases, saved views,
image links; merged into openapi.spec(). The selection parameters are the page's (openapi.py)."""
from __future__ import annotations

TEXT = {"text/plain": {"schema": {"type": "string"}}}
IMAGE_PARAMS = [
    {"name": "w", "in": "query", "schema": {"type": "integer", "minimum": 300, "maximum": 2400, "default": 1000},
     "description": "image width in pixels"},
    {"name": "h", "in": "query", "schema": {"type": "integer", "minimum": 200, "maximum": 1600, "default": 480},
     "description": "image height in pixels"},
]


def _image(op_id: str, media: str, selection: list[dict]) -> dict:
    return {"get": {
        "operationId": op_id, "summary": f"The plot as {media}, rendered on the server",
        "description": "The page's figure (lines, gaps, bursts, runs, comparisons) with a title naming the "
                       "series, the range (in tz or the viewer's zone) and the unit. At most 50 lines. "
                       "Cached (a range reaching now: CELLAR_IMAGE_CACHE_S; a past range: a day; "
                       "X-Cellar-Cache says hit or miss).",
        "parameters": selection + IMAGE_PARAMS,
        "responses": {"200": {"description": media, "content": {media: {}}},
                      "400": {"description": "Bad input, the limit named", "content": TEXT},
                      "429": {"description": "All renders busy (CELLAR_IMAGE_RENDERS) or the rate limit; "
                                             "Retry-After", "content": TEXT},
                      "503": {"description": "Too slow: the data query's limit, or the render's "
                                             "(CELLAR_IMAGE_TIMEOUT_S)", "content": TEXT}}}}


def paths(selection: list[dict], data_op: dict, csv_op: dict) -> dict:
    saved = {"type": "object", "properties": {"code": {"type": "string"}, "url": {"type": "string"},
                                              "query": {"type": "string"}, "forms": {"type": "object"}}}
    query_body = {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": {
        "type": "object", "required": ["query"], "properties": {
            "query": {"type": "string", "description": "the plot's query string (s=...&range=...)"},
            "days": {"type": "integer", "minimum": 1, "maximum": 366, "description": "image links: lifetime"}}}}}}
    return {
        "/traffic/plot.png": _image("plotPng", "image/png", selection),
        "/traffic/plot.svg": _image("plotSvg", "image/svg+xml", selection),
        "/traffic/plot.csv": {"get": {**csv_op, "operationId": "plotCsv",
                                      "summary": "The plot's CSV (the same as /traffic/export.csv)"}},
        "/traffic/plot.json": {"get": {**data_op, "operationId": "plotJson",
                                       "summary": "The plot's data (the same as /traffic/api/data)"}},
        "/traffic/api/views": {"post": {
            "operationId": "saveView", "summary": "A short URL (/v/<code>) for a plot's query (operator role)",
            "requestBody": query_body,
            "responses": {"201": {"description": "code, url, the forms' URLs",
                                  "content": {"application/json": {"schema": saved}}},
                          "400": {"description": "Bad query", "content": {"application/json": {}}}}}},
        "/traffic/api/image-links": {"post": {
            "operationId": "mintImageLink",
            "summary": "A read-only, expiring image link (/i/<secret>.png) of one plot, no login needed to view "
                       "(operator role); shown once",
            "requestBody": query_body,
            "responses": {"201": {"description": "png, svg, expires, query", "content": {"application/json": {}}},
                          "400": {"description": "Bad query or days", "content": {"application/json": {}}}}}},
    }
