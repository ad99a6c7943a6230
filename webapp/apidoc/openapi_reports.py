"""OpenAPI paths and schemas of top talkers, groups and bills, part of the one document
served at /traffic/api/openapi.json (openapi.spec merges them). Hand-written next to the views
they describe (webapp/talkers, webapp/groups, webapp/bills); tests/webapp/traffic/test_openapi.py
checks real answers against them."""
from __future__ import annotations

NUM = {"type": ["number", "null"]}
INT = {"type": ["integer", "null"]}
STR = {"type": "string"}
TIME = {"type": "string", "format": "date-time"}
NULL_TIME = {"type": ["string", "null"], "format": "date-time"}
ERROR_REF = {"$ref": "#/components/schemas/Error"}

TALKER_ROW = {"type": "object", "required": ["rank", "series_id", "switch", "direction", "value", "average", "total"],
              "properties": {
                  "rank": {"type": "integer"}, "series_id": {"type": "integer"}, "label": STR, "switch": STR,
                  "port": STR, "port_label": STR, "vpi": INT, "vci": INT, "direction": STR, "metric": STR,
                  "value": {"type": "number", "description": "the ranked statistic, in `unit`"},
                  "average": NUM, "peak": NUM, "p95": {**NUM, "description": "only when ranked by p95"},
                  "unit": STR, "total": {"type": "integer", "description": "units counted (exact)"},
                  "total_unit": STR, "total_bytes": {**INT, "description": "traffic: bytes (a cell is 53)"},
                  "share_pct": NUM, "coverage_pct": NUM, "samples": {"type": "integer"},
                  "flagged": {"type": "integer"}, "plot": STR}}
SCHEMAS = {
    "TalkerRow": TALKER_ROW,
    "Talkers": {"type": "object", "required": ["start", "end", "unit", "tier", "rows", "other", "in_scope"],
                "properties": {
                    "start": TIME, "end": TIME, "scope": STR, "entity": STR, "metric": STR, "direction": STR,
                    "by": {"type": "string", "enum": ["average", "peak", "p95"]},
                    "order": {"type": "string", "enum": ["top", "bottom"]}, "unit": STR,
                    "tier": {"type": "string", "enum": ["1m", "15m", "1h", "1d"]}, "tiers_read": STR,
                    "in_scope": {"type": "integer"}, "ranked": {"type": "integer"},
                    "without_data": {"type": "integer"}, "without_capacity": {"type": "integer"},
                    "p95_basis": {"type": ["string", "null"]}, "p95_computed": {"type": "integer"},
                    "notes": {"type": "array", "items": STR}, "server_ms": {"type": "number"}, "query": STR,
                    "rows": {"type": "array", "items": {"$ref": "#/components/schemas/TalkerRow"}},
                    "other": {"type": "object", "required": ["count", "total"], "properties": {
                        "count": {"type": "integer"}, "average": NUM, "total": {"type": "integer"},
                        "total_bytes": INT, "share_pct": NUM}}}},
    "GroupSummary": {"type": "object", "required": ["id", "name", "rules"], "properties": {
        "id": {"type": "integer"}, "name": STR, "description": STR, "static": {"type": "integer"},
        "rules": {"type": "array", "items": STR}, "url": STR}},
    "GroupList": {"type": "object", "required": ["groups"], "properties": {
        "groups": {"type": "array", "items": {"$ref": "#/components/schemas/GroupSummary"}}}},
    "Group": {"type": "object", "required": ["id", "name", "members", "objects", "rules", "count"], "properties": {
        "id": {"type": "integer"}, "name": STR, "description": STR,
        "static": {"type": "array", "items": {"type": "integer"}},
        "rules": {"type": "array", "items": {"type": "object", "required": ["text"], "properties": {
            "text": STR, "matches": INT}}},
        "used_by": {"type": "array", "items": STR}, "error": {"type": ["string", "null"]},
        "count": {"type": "integer"},
        "members": {"type": "array", "items": {"type": "object", "required": ["id", "switch", "direction"],
                                               "properties": {
                                                   "id": {"type": "integer"}, "switch": STR, "port": STR,
                                                   "vpi": INT, "vci": INT, "direction": STR, "metric": STR,
                                                   "unit": STR, "capacity_per_s": INT, "static": {"type": "boolean"}}}},
        "objects": {"type": "array", "items": {"type": "object", "required": ["kind", "id"], "properties": {
            "kind": {"type": "string", "enum": ["port", "vp", "vc", "switch"]}, "id": {"type": "integer"},
            "switch": STR, "port": STR, "vpi": INT, "vci": INT}}},
        "plot_url": STR, "talkers_url": STR}},
    "BillPeriod": {"type": "object", "required": ["id", "start", "end", "closed", "p95_bps", "volume_bytes"],
                   "properties": {
                       "id": {"type": "integer"}, "start": TIME, "end": TIME, "zone": STR,
                       "closed": {"type": "boolean", "description": "frozen: never recomputed"},
                       "as_of": TIME, "mode": STR, "direction": STR, "sample_interval_s": {"type": "integer"},
                       "intervals": {"type": "integer"}, "measured": {"type": "integer"},
                       "p95_in_bps": NUM, "p95_out_bps": NUM, "p95_sum_bps": NUM,
                       "p95_bps": {**NUM, "description": "the billed rate by the direction rule"},
                       "p95_at": NULL_TIME, "volume_in_bytes": {"type": "integer"},
                       "volume_out_bytes": {"type": "integer"}, "volume_bytes": {"type": "integer"},
                       "committed_bps": INT, "quota_bytes": INT, "over": NUM, "computed_at": TIME, "notes": STR,
                       "intervals_csv": STR}},
    "Bill": {"type": "object", "required": ["id", "name", "group", "billing_day", "mode", "direction"], "properties": {
        "id": {"type": "integer"}, "name": STR,
        "group": {"type": "object", "properties": {"id": {"type": "integer"}, "name": STR}},
        "billing_day": {"type": "integer", "minimum": 1, "maximum": 31},
        "mode": {"type": "string", "enum": ["p95", "quota"]},
        "direction": {"type": "string", "enum": ["in", "out", "max", "sum"]},
        "sample_interval_s": {"type": "integer"}, "committed_bps": INT, "quota_bytes": INT, "time_zone": STR,
        "starts": STR, "notes": STR, "url": STR,
        "current": {"oneOf": [{"$ref": "#/components/schemas/BillPeriod"}, {"type": "null"}]},
        "periods": {"type": "array", "items": {"$ref": "#/components/schemas/BillPeriod"}}}},
    "BillList": {"type": "object", "required": ["bills"], "properties": {
        "bills": {"type": "array", "items": {"$ref": "#/components/schemas/Bill"}}}},
}


def _q(name: str, schema: dict, description: str = "") -> dict:
    return {"name": name, "in": "query", "schema": schema, **({"description": description} if description else {})}


TALKER_PARAMS = [
    _q("range", {"type": "string", "enum": ["1h", "3h", "24h", "7d", "30d", "1y"], "default": "24h"}),
    _q("start", {"type": "string", "format": "date-time"}, "ISO 8601; a custom window (with end, default now)"),
    _q("end", {"type": "string", "format": "date-time"}),
    _q("switch", STR, "rank one switch's series (exclusive with poller_group and group)"),
    _q("poller_group", STR, "rank the series of the switches of one poller group"),
    _q("group", STR, "rank a group's series (id or name)"),
    _q("entity", {"type": "string", "enum": ["port", "vp", "vc", "any"], "default": "port"}),
    _q("metric", {"type": "string", "enum": ["traffic", "packets", "errors", "discards"], "default": "traffic"}),
    _q("direction", {"type": "string", "enum": ["in", "out", "both"], "default": "both"}),
    _q("by", {"type": "string", "enum": ["average", "peak", "p95"], "default": "average"},
       "p95: the 95th percentile at the plots' p95 resolution, computed exactly for the series that can rank"),
    _q("unit", {"type": "string", "enum": ["rate", "pct"], "default": "rate"},
       "rate: bits/s on the wire (packets/s for packet metrics); pct: % of capacity"),
    _q("order", {"type": "string", "enum": ["top", "bottom"], "default": "top"}, "bottom: the least used"),
    _q("n", {"type": "integer", "minimum": 1, "maximum": 1000, "default": 10}, "rows before the other row"),
]


def paths(json_ok, error: dict, too_slow: dict, text: dict) -> dict:
    """The paths, given openapi.py's response helpers."""
    not_found = {"description": "No such object", "content": {"application/json": {"schema": ERROR_REF}}}
    csv = {"text/csv": {"schema": STR}}
    bill_id = {"name": "bill_id", "in": "path", "required": True, "schema": {"type": "integer"}}
    return {
        "/talkers/api": {"get": {
            "operationId": "topTalkers", "summary": "Busiest or least used ports, VPs and VCs over a window",
            "description": "From the rollup tiers (the window is cut to whole buckets of the finest tier whose "
                           "rows fit 4,000,000); an other row sums the series below the last row.",
            "parameters": TALKER_PARAMS,
            "responses": {"200": json_ok("Talkers", "The ranking"), "400": error, "503": too_slow}}},
        "/talkers/export.csv": {"get": {
            "operationId": "topTalkersCsv", "summary": "The ranking as CSV (# comment lines, then a header)",
            "parameters": TALKER_PARAMS,
            "responses": {"200": {"description": "rows, then the other row", "content": csv},
                          "400": {"description": "Bad input", "content": text}, "503": too_slow}}},
        "/groups/api": {"get": {"operationId": "listGroups", "summary": "Groups of series",
                                "responses": {"200": json_ok("GroupList", "Every group")}}},
        "/groups/api/{group_id}": {"get": {
            "operationId": "group", "summary": "A group's rules, member series and the ports, VPs and VCs they count",
            "parameters": [{"name": "group_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "responses": {"200": json_ok("Group", "The group resolved now"), "404": not_found}}},
        "/bills/api": {"get": {"operationId": "listBills", "summary": "Bills with their current estimate",
                               "responses": {"200": json_ok("BillList", "Every bill")}}},
        "/bills/api/{bill_id}": {"get": {
            "operationId": "bill", "summary": "A bill and every period (closed ones frozen, the open one to as_of)",
            "parameters": [bill_id], "responses": {"200": json_ok("Bill", "The bill"), "404": not_found}}},
        "/bills/{bill_id}/periods.csv": {"get": {
            "operationId": "billPeriodsCsv", "summary": "A bill's periods as CSV",
            "parameters": [bill_id], "responses": {"200": {"description": "one row per period", "content": csv}}}},
        "/bills/{bill_id}/periods/{period_id}.csv": {"get": {
            "operationId": "billIntervalsCsv",
            "summary": "The sample intervals of a period: what its 95th is taken over",
            "parameters": [bill_id, {"name": "period_id", "in": "path", "required": True,
                                     "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "start, bytes in and out, measured seconds, rates, counted",
                                  "content": csv}}}},
    }
