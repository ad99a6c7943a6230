"""One model of a run: every field of collector/runs/spec.py goes in through the form, the API
and the CLI alike and comes out the same through /runs/api, `run show` and the page; the series a
run names are chosen by name or id in each, and their counts are in the API and the CSV."""
from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from collector.runs import spec
from collector.runs.management.commands.run import Command, option
from collector.runs.models import ExperimentRun
from tests.support.users import make_user
from webapp.access import tokens

pytestmark = pytest.mark.django_db
SUMMARY = {"bytes": 1_000_000, "message_size": 9180, "overhead": 8}


def every_field(name: str) -> dict:
    """A value for every field (windows with milliseconds); a test below checks none is missing."""
    return {"name": name, "start": "2026-11-24T10:00:00.815Z", "end": "2026-11-24T10:05:00.120Z",
            "description": "all the fields", "src": "alpha.example", "dst": "gamma.example",
            "pvc": "fore-a A1 0/100", "series": ["fore-a A1 Receive VP:0 VC:100", "ipsw Gi1/0/1 out"],
            "bytes_sent": 1_000_000, "messages": 109, "message_size": 9180, "overhead": 8,
            "report": json.dumps(SUMMARY)}


def test_the_example_names_every_field():
    assert set(every_field("x")) == set(spec.NAMES)


def _subparser(action: str):
    parser = Command().create_parser("manage.py", "run")
    sub = next(a for a in parser._actions if a.dest == "action")
    return sub.choices[action]


@pytest.mark.parametrize("field", spec.FIELDS, ids=[f.name for f in spec.FIELDS])
def test_every_interface_takes_every_field(client, network, field):
    form = client.get("/runs/").content.decode()
    form = form[form.index('id="run-form"'):]
    assert f'name="{field.name}"' in form, f"the form has no input {field.name}"
    add = _subparser("add")
    flags = {s for a in add._actions for s in a.option_strings} | {a.dest for a in add._actions if not a.option_strings}
    assert option(field.name) in flags or field.name in flags, f"`run add` has no {option(field.name)}"
    assert field.name in spec.as_json(ExperimentRun.objects.create(name="x", start=network["now"]))


def _strip(body: dict) -> dict:
    return {k: v for k, v in body.items() if k not in ("id", "name", "created_by", "created_at", "url")}


def test_form_api_and_cli_store_the_same_run(tmp_path, network):
    op = make_user("op", "operator")
    web = Client()
    web.force_login(op)
    values = every_field("via-form")
    posted = web.post("/runs/new", {**values, "series": "\n".join(values["series"])})
    assert posted.status_code == 302, posted.content.decode()[:2000]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {tokens.issue(op, 'script').plaintext}"}
    made = Client(enforce_csrf_checks=True).post("/runs/api", json.dumps({**every_field("via-api"), "report": SUMMARY}),
                                                 content_type="application/json", **auth)
    assert made.status_code == 201, made.content
    report = tmp_path / "summary.json"
    report.write_text(json.dumps(SUMMARY))
    v = every_field("via-cli")
    args = ["run", "add", "via-cli", "--report", str(report)]
    for f in spec.FIELDS:
        if f.name in ("name", "report"):
            continue
        for item in v[f.name] if isinstance(v[f.name], list) else [v[f.name]]:
            args += [option(f.name), str(item)]
    call_command(*args, stdout=io.StringIO())
    shown = io.StringIO()
    call_command("run", "show", "via-cli", stdout=shown)
    api = {r["name"]: r for r in (Client(**auth).get(f"/runs/api/{r.id}").json() for r in ExperimentRun.objects.all())}
    fields = _strip(json.loads(shown.getvalue()))        # the run's own fields (the API adds its counts)
    assert fields.keys() >= set(spec.NAMES) - {"name"}
    assert [{k: api[n][k] for k in fields} for n in ("via-form", "via-api", "via-cli")] == [fields] * 3
    one = api["via-api"]
    assert (one["start"], one["end"]) == ("2026-11-24T10:00:00.815000Z", "2026-11-24T10:05:00.120000Z")
    assert [s["name"] for s in one["series"]] == ["fore-a A1 Receive VP:0 VC:100", "ipsw Gi1/0/1 Transmit"]
    assert (one["pvc"], one["report"], one["messages"]) == ("fore-a A1 0/100", SUMMARY, 109)
    run = ExperimentRun.objects.get(name="via-form")
    assert run.start == datetime(2026, 11, 24, 10, 0, 0, 815_000, UTC)
    page = web.get(f"/runs/{run.id}/").content.decode()
    assert "2026-11-24 10:00:00.815" in page and "2026-11-24 10:05:00.120" in page
    assert "fore-a A1 Receive VP:0 VC:100; ipsw Gi1/0/1 Transmit" in page


def test_chosen_series_are_counted_in_the_api_and_the_csv(network):
    now = network["now"]
    op = make_user("op", "operator")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {tokens.issue(op, 'script').plaintext}"}
    api = Client(**auth)
    made = api.post("/runs/api", json.dumps({
        "name": "chosen", "start": (now - timedelta(seconds=20)).isoformat(),
        "end": (now - timedelta(seconds=5)).isoformat(), "series": ["ipsw Gi1/0/1 out", "fore-a A1 0/100 in"],
        "bytes_sent": 14_000_000}),
        content_type="application/json")
    assert made.status_code == 201, made.content
    body = api.get(f"/runs/api/{made.json()['id']}").json()
    counted = {c["name"]: c["counted"] for c in body["series_counts"]}
    ip = counted["ipsw Gi1/0/1 Transmit"]
    assert (ip["low"], ip["unit"]) == (15_000_000, "octets")
    assert counted["fore-a A1 Receive VP:0 VC:100"]["low"] == 12_000
    csv_text = api.get(f"/runs/{made.json()['id']}/accounting.csv").content.decode()
    assert "ipsw Gi1/0/1 Transmit,octets,15000000,15000000,15000000" in csv_text
    assert "fore-a A1 Receive VP:0 VC:100,cells,12000,12000,12000" in csv_text


# reference, what the run names (series names), or the error's words
REFERENCES = [
    ("ipsw Gi1/0/1", ["ipsw Gi1/0/1 Receive", "ipsw Gi1/0/1 Transmit"], None),
    ("ipsw Gi1/0/1 Transmit", ["ipsw Gi1/0/1 Transmit"], None),
    ("ipsw ifindex:1 tx", ["ipsw Gi1/0/1 Transmit"], None),
    ("fore-a A1 in", ["fore-a A1 Receive"], None),
    ("fore-a A1 0/100", ["fore-a A1 Receive VP:0 VC:100"], None),
    ("fore-a A1 VP:0 VC:100 Receive", ["fore-a A1 Receive VP:0 VC:100"], None),
    ("nosuch A1", None, "no switch named 'nosuch'"),
    ("fore-a Z9", None, "Z9"),
    ("fore-a A1 0/999", None, "no such counter"),
    ("ipsw Gi1/0/1 out errors", None, "no such counter"),
    ("999999", None, "no counter series with id 999999"),
]


@pytest.mark.parametrize("ref,names,error", REFERENCES, ids=[r[0] for r in REFERENCES])
def test_series_references(network, ref, names, error):
    start = (network["now"] - timedelta(minutes=1)).isoformat()
    if error:
        with pytest.raises(CommandError, match=error):
            call_command("run", "add", "ref", "--start", start, "--series", ref, stdout=io.StringIO())
        assert not ExperimentRun.objects.exists()
        return
    call_command("run", "add", "ref", "--start", start, "--series", ref, stdout=io.StringIO())
    assert [s["name"] for s in spec.as_json(ExperimentRun.objects.get())["series"]] == names


@pytest.mark.parametrize("body,message", [
    ({"name": "x", "bytes": 5}, "unknown run field bytes"),
    ({"name": "x", "start": 1795800000}, "start=1795800000 is not an ISO 8601 time"),
    ({"name": "x", "start": "noon"}, "start='noon' is not an ISO 8601 time"),
    ({"name": "x", "bytes_sent": 1.5}, "bytes sent '1.5' is not a whole number"),
    ({"name": "x", "series": ["fore-a Z9"]}, "Z9"),
    ([1, 2], "a JSON object of run fields"),
])
def test_the_api_refuses_what_is_not_a_run(network, body, message):
    api = Client(HTTP_AUTHORIZATION=f"Bearer {tokens.issue(make_user('op', 'operator'), 's').plaintext}")
    r = api.post("/runs/api", json.dumps(body), content_type="application/json")
    assert r.status_code == 400 and message in r.json()["error"], r.json()
    assert not ExperimentRun.objects.exists()
