"""Real agents on their own terms: every recording of a real device, and every quirk device built
by code, served by snmpsim with counters that move at known rates, goes through Cellar end to end.

For each agent: the profile `auto` chooses; discovery makes one port per ifTable row, with
names unique on the switch, and reports no failure; two polls store every octet and packet
counter the agent answers for an interface (its 64-bit column where it has one, else the 32-bit
one, a Counter64 value read as 64-bit whatever column it came in), with the archived rate within
1 % of the truth; every value Cellar could not use is counted in the poll log with its reason;
CSV headers are unique.

Recordings: tests/data/recordings/real/ (snmpsim-data, BSD licence, LICENSE.txt beside them) and,
when present, ../shared/recordings/real/ beside the repository: drop another device's .snmprec
or .snmprec.bz2 there and it is tested the same way. Quirk devices: simnet/quirks.py.
"""
from __future__ import annotations

import io
import os
import time
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command

from collector.archive.models import Layout, PollLog, Sample, Series
from collector.core.facts import Flag
from collector.inventory.models import Port, Switch
from collector.poller import actions, runner
from simnet import quirks
from simnet.replay import IF_TABLE, moving_copy, read_lines
from simnet.serve import RecordingServer

ROOT = Path(__file__).resolve().parents[3]
# Also every directory in CELLAR_REAL_RECORDINGS (os.pathsep-separated): other devices' recordings.
RECORDING_DIRS = [ROOT / "tests" / "data" / "recordings" / "real", ROOT.parent / "shared" / "recordings" / "real",
                  *(Path(d) for d in os.environ.get("CELLAR_REAL_RECORDINGS", "").split(os.pathsep) if d)]
# A fixed epoch for the numeric variation: the rewritten files are the same from run to run, so
# snmpsim's index (minutes for the largest recordings) is built once per machine.
START = 1_700_000_000
GAP_S = 12.0            # seconds between the two polls whose deltas are checked
# The module's pipeline discovers and polls every agent twice, waiting up to 150 s for the slowest
# agent's interval; on a loaded machine that is more than the suite's 300 s per test (seen: a setup
# stopped at 300 s while 4 other test runs shared the 2 cores). Bounded, but not by 300 s.
pytestmark = pytest.mark.timeout(900)


def recordings() -> list[Path]:
    found: dict[str, Path] = {}
    for d in RECORDING_DIRS:
        if d.is_dir():
            for p in sorted(d.iterdir()):
                if ".snmprec" in p.name:
                    found.setdefault(p.name.split(".snmprec")[0], p)
    return list(found.values())


QUIRKS = [make.__name__ for make in quirks.DEVICES]
REAL = [p.name.split(".snmprec")[0] for p in recordings()]


def _cache_dirs() -> tuple[Path, Path]:
    """Stable directories (snmpsim keys its index by file path and mtime): under state/ when the
    checkout has one, else /tmp."""
    base = ROOT / "state" / "cache" / "real-agents"
    if not (ROOT / "state").is_dir():
        base = Path("/tmp/cellar-real-agents")
    return base / "data", base / "cache"


@pytest.fixture(scope="module")
def agents():
    """One snmpsim serving the moving copies of every recording and the quirk devices."""
    data, cache = _cache_dirs()
    data.mkdir(parents=True, exist_ok=True)
    truth: dict[str, dict] = {}
    for path in recordings():
        rec = moving_copy(path, data, START)
        truth[rec.community] = {"kind": "real", "rates": rec.rates, "tags": rec.tags, "lines": read_lines(rec.path)}
    for dev in quirks.build_all(START):
        written = dev.write(data)
        truth[dev.name] = {"kind": "quirk", "device": dev, "lines": read_lines(written)}
    for old in data.iterdir():            # recordings removed since the last run
        if old.name.split(".snmprec")[0] not in truth:
            old.unlink()
    server = RecordingServer(data, cache, log_path=data.parent / "snmpsim.log")
    with server:
        yield server, truth


# --- the pipeline: add, discover, poll, wait, poll, for every agent at once ---------------------

def expected_profile(lines: list[str]) -> str:
    """The profile `auto` must choose, from what the agent answers (sysObjectID, then the first
    profile, in probing order, whose characteristic column it answers)."""
    from collector.core import profiles

    oids = {line.split("|", 1)[0] for line in lines}
    sys_oid = next((line.split("|")[2] for line in lines if line.startswith("1.3.6.1.2.1.1.2.0|")), "")
    by_oid = profiles.profile_for_sys_object_id(sys_oid)
    if by_oid:
        return by_oid.name
    for p in profiles.probe_order():
        column = profiles.object_by_name(p.probe).oid + "."
        if any(o.startswith(column) for o in oids):
            return p.name
    return "none"


def _counter_columns(profile: str = "if-mib") -> dict[str, tuple[str, bool]]:
    """Column OID -> (series object, is a 32-bit fallback), for the profile's port counters."""
    from collector.core.profiles import get_profile, object_by_name

    columns: dict[str, tuple[str, bool]] = {}
    for c in get_profile(profile).counters:
        if c.entity == "port":
            columns[object_by_name(c.object).oid] = (c.object, False)
            if c.fallback:
                columns[object_by_name(c.fallback).oid] = (c.object, True)
    return columns


def expected_series(community: str, t: dict) -> dict[tuple[str, str], tuple[int, int]]:
    """(series object, index) -> (rate, width) that Cellar must archive, from the truth: an
    interface's 64-bit column where it moves, else its 32-bit one; the width the value type
    says (a Counter64 in a 32-bit column is read as 64-bit)."""
    columns = _counter_columns(expected_profile(t["lines"]))
    if t["kind"] == "real":
        moving = {oid: (rate, 64 if t["tags"][oid] == "70" else 32) for oid, rate in t["rates"].items()}
    else:
        moving = {oid: (e.rate, e.width) for oid, e in t["device"].expect.items() if e.rate is not None}
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for want_fallback in (False, True):          # the 64-bit columns first
        for oid, (rate, width) in moving.items():
            column, index = oid.rsplit(".", 1)
            obj, fallback = columns.get(column, ("", None))
            if fallback is not want_fallback or (obj, index) in out:
                continue        # not a polled column, or the interface's 64-bit column answers
            out[(obj, index)] = (rate, width)
    return out


def if_table_rows(lines: list[str]) -> set[str]:
    rows = set()
    for line in lines:
        oid = line.split("|", 1)[0]
        if oid.startswith(IF_TABLE):
            column, _, index = oid[len(IF_TABLE):].partition(".")
            if column in {"1", "2", "3", "5", "7", "8", "9"} and index:
                rows.add(index)
    return rows


@pytest.fixture(scope="module")
def pipeline(agents, django_db_setup, django_db_blocker):
    server, truth = agents
    results: dict[str, dict] = {}
    with django_db_blocker.unblock():
        for name in truth:
            call_command("add_switch", "--no-check", name, "127.0.0.1", "--port", str(server.port), "--community",
                         name, "--profile", "auto", "--interval", "15", "--timeout", "10", "--retries", "1",
                         stdout=io.StringIO())
            switch = Switch.objects.get(name=name)
            started = time.monotonic()
            try:
                report = actions.discover(switch.id)
                results[name] = {"report": report, "discovery_s": time.monotonic() - started}
            except Exception as exc:      # a failure is a finding of the tests below, not a crash here
                results[name] = {"error": f"{exc.__class__.__name__}: {exc}"}
        # The rate of a counter is read over the interval between two polls; the skew between the
        # moments an agent reads one counter in two polls is a fraction of a poll's duration, so
        # each agent's interval is long against its own poll (1 % needs 100x the skew) and is its
        # poll interval (no GAP flag): 15 s for most, longer for the slowest agents.
        due: list[tuple[float, str]] = []
        for name in truth:
            if "error" not in results[name]:
                t0 = time.monotonic()
                results[name]["first"] = runner.poll_once(Switch.objects.get(name=name).id)
                interval = max(15, min(150, round(40 * (time.monotonic() - t0))))
                Switch.objects.filter(name=name).update(poll_interval_s=interval)
                due.append((t0 + interval, name))
        runner.forget_switches()
        for at, name in sorted(due):
            time.sleep(max(0.0, at - time.monotonic()))
            results[name]["second"] = runner.poll_once(Switch.objects.get(name=name).id)
        yield results, truth
        ids = list(Switch.objects.filter(name__in=list(truth)).values_list("id", flat=True))
        Sample.objects.filter(switch_id__in=ids).delete()
        PollLog.objects.filter(switch_id__in=ids).delete()
        Switch.objects.filter(id__in=ids).delete()


ALL = REAL + QUIRKS


def _switch(name: str) -> Switch:
    return Switch.objects.get(name=name)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ALL)
def test_discovery_makes_one_port_per_iftable_row_with_unique_names(pipeline, name):
    results, truth = pipeline
    assert "error" not in results[name], results[name].get("error")
    report = results[name]["report"]
    assert report.complete, report.summary()
    switch = _switch(name)
    assert switch.detected_profile == expected_profile(truth[name]["lines"]) != "none"
    ports = list(Port.objects.filter(switch=switch))
    if switch.detected_profile == "fore-asx":       # FORE ports are portTable rows
        from collector.core.profiles import object_by_name

        column = object_by_name("portOperStatus").oid + "."
        assert {p.key for p in ports} == {line.split("|")[0][len(column):] for line in truth[name]["lines"]
                                          if line.startswith(column)}
    else:
        assert {p.key for p in ports} == if_table_rows(truth[name]["lines"])
        assert all(p.if_index == int(p.key) for p in ports)
    names = [p.name for p in ports]
    assert len(names) == len(set(names)), Counter(names).most_common(3)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ALL)
def test_every_counter_the_agent_answers_is_archived_at_its_rate(pipeline, name):
    results, truth = pipeline
    assert "error" not in results[name], results[name].get("error")
    second = results[name]["second"]
    assert second.ok, (second.status, second.error)
    switch = _switch(name)
    rows = list(Sample.objects.filter(switch_id=switch.id).order_by("time"))
    assert len(rows) == 2
    row = rows[1]
    ids = Layout.objects.get(pk=row.layout_id).series_ids
    series = {(s.object_name, s.index): s for s in Series.objects.filter(switch=switch, kind="counter")}
    wrong = []
    interval = row.interval_ms / 1000
    # A poll is stamped with its start; the agent reads each counter somewhere within the poll, so
    # the two readings' true interval differs from the stamps' by at most the longer poll. That is
    # the interval set for the agent's own poll time (1 % of it); on a loaded machine the second
    # poll can take longer than the first did (seen: 3 % under load 6), so the polls' measured
    # durations widen the tolerance when, and only as much as, they must.
    skew = max(PollLog.objects.filter(switch_id=switch.id).values_list("duration_ms", flat=True)) / 1000
    tolerance = max(0.01, skew / interval)
    for key, (rate, width) in expected_series(name, truth[name]).items():
        s = series.get(key)
        if s is None or s.id not in ids:
            wrong.append(f"{key}: not archived")
            continue
        pos = ids.index(s.id)
        delta, flags = row.delta[pos], row.flags[pos]
        if s.width != width:
            wrong.append(f"{key}: width {s.width}, the agent answers {width}-bit")
        if row.raw[pos] is None:
            wrong.append(f"{key}: no raw value archived")
        if s.capacity_per_s and s.capacity_per_s * interval >= 2 ** width:
            # Cellar's rule: a counter that could wrap more than once at the interface's speed
            # within the interval (a 32-bit octet counter on a fast port) is archived raw and its
            # delta withheld as AMBIGUOUS, never guessed.
            if delta is not None or not flags & Flag.AMBIGUOUS:
                wrong.append(f"{key}: capacity x interval >= 2**{width} but delta {delta}, flags {flags}")
            continue
        got = None if delta is None else delta / interval
        if got is None or abs(got - rate) > tolerance * rate + 1 / interval:
            wrong.append(f"{key}: rate {got} (flags {flags}), truth {rate}")
    assert not wrong, f"{len(wrong)} of {len(expected_series(name, truth[name]))}: " + "; ".join(wrong[:10])


@pytest.mark.django_db
@pytest.mark.parametrize("name", ALL)
def test_csv_headers_of_the_switch_are_unique(pipeline, name):
    from collector.reader import catalog

    switch = _switch(name)
    ids = list(Series.objects.filter(switch=switch, kind="counter").values_list("id", flat=True))
    labels = [s.label for s in catalog.load_series(ids)]
    assert labels and len(labels) == len(set(labels)), Counter(labels).most_common(3)


@pytest.mark.django_db
@pytest.mark.parametrize("name", QUIRKS)
def test_values_cellar_cannot_use_are_counted_with_their_reason(pipeline, name):
    results, truth = pipeline
    dev = truth[name]["device"]
    columns = _counter_columns()
    log = PollLog.objects.filter(switch_id=_switch(name).id).order_by("-time").first()
    examples = {(obj, index, reason) for obj, index, reason, _ in (log.notes or {}).get("examples", [])}
    for oid, e in dev.expect.items():
        column, index = oid.rsplit(".", 1)
        obj, fallback = columns[column]
        if e.rate is None and e.reason in ("wrong type", "negative", "not answered"):
            reason = {"wrong type": "not an integer", "negative": "negative value"}.get(e.reason, e.reason)
            assert (obj, index, reason) in examples, (oid, reason, log.notes)
        if e.rate is not None and e.width == 64 and fallback:
            assert (obj, index, "Counter64 value in a 32-bit column: read as a 64-bit counter") in examples
    if any(e.rate is None and e.reason in ("wrong type", "negative") for e in dev.expect.values()):
        assert log.status == "partial" and "not used" in log.error


@pytest.mark.django_db
def test_ifindex_above_2_31_is_stored_and_named_in_the_cli(pipeline, tmp_path):
    switch = _switch("dslam")
    top = Port.objects.get(switch=switch, if_index=4_160_777_152)
    assert top.key == "4160777152" and top.name == "adsl-1/1/9"
    out = tmp_path / "dslam.csv"
    call_command("export_csv", "--switch", "dslam", "--port", "ifindex:4160777152", "--resolution", "raw",
                 "--output", str(out))
    assert out.read_text().splitlines()[0].startswith("time,dslam adsl-1/1/9 Receive")


@pytest.mark.django_db
def test_duplicate_names_get_the_ifindex_and_the_cli_can_choose(pipeline, tmp_path):
    switch = _switch("dupnames")
    names = sorted(Port.objects.filter(switch=switch).values_list("name", flat=True))
    assert names == ["em0", "em0.100", "lo0 (ifIndex 1)", "lo0 (ifIndex 16)"]
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="ambiguous: it names lo0 \\(ifIndex 1\\), lo0 \\(ifIndex 16\\)"):
        call_command("export_csv", "--switch", "dupnames", "--port", "lo0", "--output", str(tmp_path / "x.csv"))
    for ref in ("lo0 (ifIndex 16)", "ifindex:16"):
        out = tmp_path / "lo0.csv"
        call_command("export_csv", "--switch", "dupnames", "--port", ref, "--resolution", "raw", "--output", str(out))
        assert "dupnames lo0 (ifIndex 16) Receive" in out.read_text().splitlines()[0]
