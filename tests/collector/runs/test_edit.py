"""collector/runs/edit.py and `manage.py run`: runs checked, created, stopped; bad input stores nothing."""
from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command

from collector.runs import edit
from collector.runs.models import ExperimentRun
from tests.support.status_network import build_network

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


def spec(**kw) -> edit.RunSpec:
    base = {"name": "ftp B-C", "start": NOW - timedelta(minutes=10), "end": NOW - timedelta(minutes=5),
            "src": "alpha.example", "dst": "gamma.example"}
    return edit.RunSpec(**{**base, **kw})


def iperf3_report(bytes_sent: int = 14_000_000, start: datetime = NOW - timedelta(minutes=3),
                  seconds: float = 10.0) -> str:
    return json.dumps({"start": {"timestamp": {"timesecs": int(start.timestamp())}, "tcp_mss_default": 1448,
                                 "connected": [{"local_host": "10.213.0.1"}],
                                 "test_start": {"protocol": "TCP", "blksize": 131072}},
                       "end": {"sum_sent": {"bytes": bytes_sent, "seconds": seconds}}})


def test_a_run_is_created_with_its_hosts_and_what_was_sent():
    build_network()
    run = edit.create(spec(bytes_sent=14_000_000, message_size=9180, overhead=8), NOW)
    assert (run.src_host.name, run.dst_host.name, run.bytes_sent, run.message_size) == (
        "alpha.example", "gamma.example", 14_000_000, 9180)


@pytest.mark.parametrize("kw,message", [
    ({"end": NOW - timedelta(minutes=20)}, "is not after start"),
    ({"src": "nosuch"}, "unknown source host 'nosuch' (known: alpha.example"),
    ({"dst": "nosuch"}, "unknown destination host"),
    ({"bytes_sent": -1}, "bytes sent cannot be negative"),
    ({"bytes_sent": 10**13}, "more than the fastest port of the run can carry"),
    ({"name": ""}, "a run needs a name"),
    ({"pvc": "fore-a A1 0"}, "write it as 'switch port vpi/vci'"),
    ({"pvc": "fore-a A1 7/7"}, "unknown PVC fore-a A1 7/7"),
    ({"start": datetime(1980, 1, 1, tzinfo=UTC), "end": None}, "before 1990"),
    ({"report_text": "{not json"}, "neither iperf3's JSON"),
    ({"report_text": "hello"}, "a NetSpec experiment script"),
])
def test_bad_input_is_refused_and_nothing_is_stored(kw, message):
    build_network()
    with pytest.raises(edit.RunError, match=message.replace("(", r"\(")):
        edit.create(spec(**kw), NOW)
    assert not ExperimentRun.objects.exists()


def test_overlapping_runs_with_the_same_name_are_refused_but_not_apart_or_renamed():
    build_network()
    edit.create(spec(), NOW)
    with pytest.raises(edit.RunError, match="already covers"):
        edit.create(spec(start=NOW - timedelta(minutes=7), end=NOW - timedelta(minutes=2)), NOW)
    edit.create(spec(start=NOW - timedelta(minutes=5), end=NOW - timedelta(minutes=1)), NOW)   # touching
    edit.create(spec(name="other"), NOW)
    assert ExperimentRun.objects.count() == 3


def test_iperf3_report_gives_bytes_start_and_duration():
    build_network()
    run = edit.create(edit.RunSpec("iperf", src="alpha.example", dst="gamma.example",
                                   report_text=iperf3_report()), NOW)
    # TCP cuts the application's 128 KiB writes into segments of the MSS: one frame each
    assert (run.bytes_sent, run.message_size, run.overhead) == (14_000_000, 1448, 20 + 20 + 12)
    assert run.start == NOW - timedelta(minutes=3) and run.end == run.start + timedelta(seconds=10)
    assert run.report["end"]["sum_sent"]["bytes"] == 14_000_000


def test_cli_start_stop_add_and_list(tmp_path):
    build_network()
    out = io.StringIO()
    call_command("run", "start", "live", "--src", "alpha.example", "--dst", "gamma.example", stdout=out)
    assert "going on" in out.getvalue()
    call_command("run", "stop", "live", stdout=out)
    report = tmp_path / "iperf.json"
    report.write_text(iperf3_report(start=datetime.now(UTC) - timedelta(hours=1)))
    call_command("run", "add", "past", "--iperf3", str(report), "--src", "alpha.example", "--dst", "gamma.example",
                 stdout=out)
    listing = io.StringIO()
    call_command("run", "list", stdout=listing)
    assert "live:" in listing.getvalue() and "past:" in listing.getvalue() and "14,000,000 bytes" in listing.getvalue()
    assert ExperimentRun.objects.get(name="live").end is not None
    with pytest.raises(CommandError, match="no run named 'live' is going on"):
        call_command("run", "stop", "live")
    with pytest.raises(CommandError, match="not an ISO 8601 time"):
        call_command("run", "add", "x", "--start", "noon", "--end", "later")
