"""The OpenAPI document: well formed, complete, and true of what the API really answers.

A small JSON Schema checker (the subset the document uses: type, enum, properties, required,
items, allOf, $ref) validates real responses, so a view that drifts from its description fails.
"""
from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, get_resolver

from webapp.apidoc import openapi

SPEC = openapi.spec()
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def resolve(schema: dict) -> dict:
    while "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/"), ref
        node = SPEC
        for part in ref[2:].split("/"):
            node = node[part]
        schema = node
    return schema


def check(value, schema: dict, path: str = "$") -> list[str]:
    schema = resolve(schema)
    errors: list[str] = []
    for sub in schema.get("allOf", []):
        errors += check(value, sub, path)
    if "type" in schema:
        allowed = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        ok = False
        for t in allowed:
            if t == "integer":
                ok |= isinstance(value, int) and not isinstance(value, bool)
            elif t == "number":
                ok |= isinstance(value, (int, float)) and not isinstance(value, bool)
            else:
                ok |= isinstance(value, TYPES[t])
        if not ok:
            return errors + [f"{path}: {type(value).__name__} is not {allowed}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"{path}: missing {name}")
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                errors += check(value[name], sub, f"{path}.{name}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value[:50]):
            errors += check(item, schema["items"], f"{path}[{i}]")
    return errors


def all_refs(node) -> list[str]:
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "$ref"] + [r for v in node.values() for r in all_refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in all_refs(v)]
    return []


def test_document_is_well_formed():
    assert SPEC["openapi"].startswith("3.1") and SPEC["info"]["title"] and SPEC["info"]["version"]
    for ref in all_refs(SPEC):
        resolve({"$ref": ref})
    for path, item in SPEC["paths"].items():
        assert path.startswith(("/traffic/", "/analysis/", "/talkers/", "/groups/", "/bills/", "/map/", "/exports/"))
        for method, op in item.items():
            assert method in ("get", "post", "put", "delete", "patch")
            assert op["operationId"] and op["responses"]
            for code in op["responses"]:
                assert re.fullmatch(r"[1-5]\d\d", code)
            names = [p["name"] for p in op.get("parameters", [])]
            assert len(names) == len(set(names)), path
            for p in op.get("parameters", []):
                assert p["in"] in ("query", "path") and "schema" in p
                if p["in"] == "path":
                    assert p["required"] and "{" + p["name"] + "}" in path
    ids = [op["operationId"] for item in SPEC["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))


def test_every_route_of_the_app_is_documented():
    resolver = get_resolver()
    documented = {re.sub(r"\{[^}]+\}", "{}", p) for p in SPEC["paths"]}
    routes = set()
    for pattern in resolver.url_patterns:
        if str(pattern.pattern) == "traffic/":
            for sub in pattern.url_patterns:
                assert isinstance(sub, URLPattern)
                route = "/traffic/" + re.sub(r"<[^>]+>", "{}", str(sub.pattern))
                if route != "/traffic/":            # the HTML page
                    routes.add(route)
        if str(pattern.pattern) in ("analysis/", "talkers/", "groups/", "bills/", "map/", "exports/"):
            for sub in pattern.url_patterns:     # their API, CSV and JSON
                route = f"/{pattern.pattern}" + re.sub(r"<[^>]+>", "{}", str(sub.pattern))
                if "/api" in route or route.endswith((".csv", ".json")):
                    routes.add(route)
    assert routes and routes <= documented, routes - documented


def test_the_spec_is_served(client):
    r = client.get("/traffic/api/openapi.json")
    assert r.status_code == 200 and r.json() == SPEC


@pytest.mark.usefixtures("plain_static")
def test_real_answers_match_the_schemas(net, client):
    schema = lambda name: {"$ref": f"#/components/schemas/{name}"}  # noqa: E731
    cases = [
        ("/traffic/api/series?q=asx-1", "SeriesList"),
        ("/traffic/api/inventory", "Inventory"),
        (f"/traffic/api/inventory/{net.switch.id}", "SwitchTree"),
        (f"/traffic/api/data?s={net.rx.id},{net.tx.id}&range=24h&figure=1", "Data"),
        (f"/traffic/api/data?s={net.rx.id}&range=1h&unit=mbps_cells", "Data"),
        (f"/traffic/api/data?s={net.ip_in.id}&range=7d", "Data"),
        (f"/traffic/api/data?s={net.rx.id}&range=30d&figure=1&points=0&p95=0", "Data"),
        (f"/traffic/api/p95?s={net.rx.id},{net.tx.id}&range=30d&unit=mbps_cells", "P95"),
        ("/traffic/api/p95?s=987654", "Error"),
        ("/traffic/api/data?s=987654", "Error"),
        ("/traffic/api/inventory/987654", "Error"),
    ]
    for url, name in cases:
        r = client.get(url)
        errors = check(r.json(), schema(name))
        assert not errors, (url, errors[:5])
    from collector.billing import closing
    from collector.billing.models import Bill
    from collector.groups import edit

    group = edit.save(edit.spec_from("asx-ports", "", "switch=asx-1"))
    bill = Bill.objects.create(name="acme", group=group, starts=net.start.date())
    closing.run()
    g = edit.save(edit.spec_from("rx-tx", f"{net.rx.id} {net.tx.id}", ""))
    for url, name in [(f"/traffic/api/data?g={g.id}&range=24h", "Data"), ("/talkers/api?range=24h", "Talkers"),
                      ("/talkers/api?range=7d&by=p95&entity=any", "Talkers"),
                      ("/talkers/api?range=2d", "Error"), ("/groups/api", "GroupList"),
                      (f"/groups/api/{group.id}", "Group"), ("/groups/api/987654", "Error"),
                      ("/bills/api", "BillList"), (f"/bills/api/{bill.id}", "Bill"), ("/bills/api/987654", "Error")]:
        r = client.get(url)
        errors = check(r.json(), schema(name))
        assert not errors, (url, errors[:5])
    assert client.get(f"/bills/api/{bill.id}").json()["periods"], "the open period's estimate is listed"
    created = client.post(f"/exports/api/bulk?s={net.rx.id},{net.tx.id}&start=7d&res=1h&format=parquet",
                          HTTP_ACCEPT="application/json")
    assert created.status_code == 202 and not check(created.json(), schema("ExportCreated"))
    assert not check(client.get(created.json()["json_url"]).json(), schema("ExportJob"))
    refused = client.get("/exports/api/bulk?all=1&start=1990-01-01T00:00Z&res=1d")
    assert refused.status_code == 400 and not check(refused.json(), schema("Error"))
    # the documented error codes are the ones returned
    assert client.get("/traffic/api/data?s=987654").status_code == 400
    assert "400" in SPEC["paths"]["/traffic/api/data"]["get"]["responses"]


def test_the_document_says_how_to_authenticate_and_what_refusals_look_like():
    doc = openapi.spec()
    assert doc["components"]["securitySchemes"]["apiToken"] == {**doc["components"]["securitySchemes"]["apiToken"],
                                                                "type": "http", "scheme": "bearer"}
    assert {"apiToken": []} in doc["security"]
    for path, ops in doc["paths"].items():
        for op in ops.values():
            assert {"401", "403"} <= op["responses"].keys(), path
    assert "429" in doc["paths"]["/traffic/export.csv"]["get"]["responses"]
    assert "Retry-After" in doc["paths"]["/traffic/api/p95"]["get"]["responses"]["429"]["headers"]
