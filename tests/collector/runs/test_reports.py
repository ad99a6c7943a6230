"""Application reports: iperf3 -J, NetSpec experiment scripts (seed 002, figures 8-10) and JSON
summaries; a run made from each takes what it says."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from collector.runs import edit as runs
from collector.runs import reports
from tests.support.status_network import build_network

# Seed 002, figure 9: UDP paced at 18432 bytes x 5 messages every 20 ms for 100 s ("the pacing
# rate is 36.864 Mbps").
FIGURE_9 = """
experiment {
connection {
xmcntl = utexas.perf.ukans.aai.net;
rcvcntl = 204.235.71.130;
xmt = utexas.perf.ukans.aai.net (xmtbuf=51200);
rcv = 204.235.71.130 (rcvbuf = 51200);
rep = utexas.perf.ukans.aai.net;
protocol = udp;
test = cbr(messagesize = 18432:5, period=20000);
delay = 0 s;
duration = 100 s;
}
}
"""
FIGURE_10 = FIGURE_9.replace("cbr(messagesize = 18432:5, period=20000)",
                             "random(messagesize = 8192:9, minPeriod=20000, maxPeriod=40000)")
FIGURE_8_DUPLEX = "experiment{ parallel{ connection{ protocol = tcp; test = full(messagesize = 65536); " \
                  "duration = 100 s; } connection{ protocol = tcp; test = full(messagesize = 65536); " \
                  "duration = 100 s; } } }"


def test_the_seeds_cbr_script_gives_its_pacing_rate_and_bytes():
    r = reports.parse(FIGURE_9)
    assert r.kind == "netspec-script" and r.doc["netspec"]["pacing_mbps"] == pytest.approx(36.864)
    # 100 s / 20 ms = 5000 bursts of 5 x 18432 bytes
    assert (r.messages, r.message_size, r.bytes, r.seconds) == (25_000, 18432, 460_800_000, 100.0)
    assert r.bytes * 8 / r.seconds / 1e6 == pytest.approx(36.864)


@pytest.mark.parametrize("text, size, messages, sent", [
    (FIGURE_10, 8192, None, None),                                  # random: what it sent is not in the script
    (FIGURE_9.replace("cbr(", "full(").replace(":5, period=20000", ""), 18432, None, None),
    (FIGURE_9.replace("duration = 100 s", "duration = 1500 ms"), 18432, 75 * 5, 75 * 5 * 18432),
    (FIGURE_9.replace("18432:5", "1000"), 1000, 5000, 5_000_000),  # one message per burst when no count
])
def test_netspec_tests_table(text, size, messages, sent):
    r = reports.parse(text)
    assert (r.message_size, r.messages, r.bytes) == (size, messages, sent)


@pytest.mark.parametrize("text, why", [
    (FIGURE_8_DUPLEX, "has 2 connections"),
    (FIGURE_9.replace(", period=20000", ""), "needs period="),
    (FIGURE_9.replace("18432:5", "big"), "messagesize 'big'"),
    (FIGURE_9.replace("test = cbr", "tst = cbr"), "has no test ="),
    ('{"bytes": -5}', "whole number >= 0"),
    ('{"start": "2026-11-25T10:00:00"}', "no time zone"),
    ('{"duration_s": 0}', "duration_s must be"),
    ('{"other": 1}', "needs at least one of"),
    ('[1, 2]', "a NetSpec experiment script"),
    ("x" * (reports.MAX_REPORT_BYTES + 1), "at most"),
])
def test_bad_reports_say_what_is_wrong(text, why):
    with pytest.raises(reports.ReportError, match=why.replace("(", r"\(")):
        reports.parse(text)


def test_a_json_summary():
    r = reports.parse(json.dumps({"bytes": 14_000_000, "message_size": 9180, "start": "2026-11-25T10:00:00Z",
                                  "duration_s": 12.5}))
    assert (r.kind, r.bytes, r.message_size, r.messages) == ("summary", 14_000_000, 9180, None)
    assert r.start == datetime(2026, 11, 25, 10, tzinfo=UTC) and r.seconds == 12.5


@pytest.mark.django_db
def test_a_run_from_a_netspec_script_lasts_its_duration_from_its_start_and_counts_its_bytes():
    build_network()
    start = datetime.now(UTC) - timedelta(hours=2)
    run = runs.create(runs.RunSpec("cbr", start=start, src="alpha.example", dst="gamma.example",
                                   report_text=FIGURE_9), datetime.now(UTC))
    assert run.end == start + timedelta(seconds=100)
    assert (run.bytes_sent, run.messages, run.message_size) == (460_800_000, 25_000, 18432)
    assert run.report["netspec"]["test"] == "cbr" and "experiment" in run.report["script"]
