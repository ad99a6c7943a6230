"""What an application says it sent, read from its report (pure: text in, Report out).

Three forms are understood, tried in this order:
- iperf3's JSON report (client side, `iperf3 -J`): bytes, start, duration, and what goes on the
  wire per packet: over TCP a segment of the MSS iperf3 reports (`tcp_mss_default`; its block
  size is what the application writes at once, which TCP cuts into segments) with IP + TCP
  headers + the 12 bytes of TCP timestamps (on by default in Linux) as overhead; over UDP a
  datagram of the block size with IP + UDP headers. IPv6 when the connection's address says so;
- a NetSpec experiment script (the EDL of seed 002, figures 8-10) with one connection: message
  size, and for a CBR test the bytes it sends, which the script fixes: one burst of
  messagesize x count bytes every `period` microseconds for `duration` (bursts = duration /
  period, rounded down). A full-speed or random test sends what the network lets through, so
  its bytes are not in the script: they stay unknown (enter them) rather than guessed;
- a plain JSON summary in NetSpec's terms, for tools with no report of their own:
  {"bytes": N, "messages": M, "message_size": S, "overhead": H, "start": "ISO 8601", "duration_s": D},
  every key optional.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

MAX_REPORT_BYTES = 2_000_000


class ReportError(ValueError):
    """str() says which form was expected and what is wrong."""


@dataclass(frozen=True)
class Report:
    kind: str                          # "iperf3", "netspec-script", "summary"
    doc: dict[str, Any]                # what is stored with the run
    bytes: int | None = None
    start: datetime | None = None
    seconds: float | None = None
    message_size: int | None = None
    messages: int | None = None
    overhead: int | None = None        # header bytes per message not counted in `bytes`


def parse(text: str) -> Report:
    if len(text) > MAX_REPORT_BYTES:
        raise ReportError(f"the report is {len(text):,} bytes; at most {MAX_REPORT_BYTES:,}")
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise ReportError(f"the report is neither iperf3's JSON (-J) nor a JSON summary: {exc}") from None
        if isinstance(doc, dict) and "end" in doc and "start" in doc and isinstance(doc["start"], dict):
            return _iperf3(doc)
        return _summary(doc)
    if re.match(r"experiment\s*\{", stripped):
        return netspec_script(text)
    raise ReportError("the report is not iperf3's JSON (-J), a NetSpec experiment script (experiment { ... }) "
                      "or a JSON summary ({\"bytes\": ..., \"message_size\": ...})")


IPV4_HEADER, IPV6_HEADER, TCP_HEADER, TCP_TIMESTAMPS, UDP_HEADER = 20, 40, 20, 12, 8


def _iperf3(doc: dict) -> Report:
    try:
        sent = doc["end"]["sum_sent"]
        started = doc["start"]["timestamp"]["timesecs"]
        test = doc["start"].get("test_start", {})
        connected = doc["start"].get("connected") or [{}]
        ip = IPV6_HEADER if ":" in str(connected[0].get("local_host", "")) else IPV4_HEADER
        if str(test.get("protocol", "TCP")).upper() == "UDP":
            size, overhead = test.get("blksize"), ip + UDP_HEADER
        else:
            size, overhead = doc["start"].get("tcp_mss_default"), ip + TCP_HEADER + TCP_TIMESTAMPS
        return Report("iperf3", doc, int(sent["bytes"]), datetime.fromtimestamp(int(started), UTC),
                      float(sent["seconds"]), int(size) if size else None, overhead=overhead if size else None)
    except (ValueError, KeyError, TypeError) as exc:
        raise ReportError(f"the report is not iperf3's JSON (-J) output: {exc.__class__.__name__} {exc}") from None


def _summary(doc: Any) -> Report:
    keys = {"bytes", "messages", "message_size", "overhead", "start", "duration_s"}
    if not isinstance(doc, dict) or not keys & doc.keys():
        raise ReportError(f"a JSON summary needs at least one of {', '.join(sorted(keys))}")

    def whole(key: str) -> int | None:
        v = doc.get(key)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ReportError(f"{key} must be a whole number >= 0, not {v!r}")
        return v

    start = None
    if doc.get("start") is not None:
        try:
            start = datetime.fromisoformat(str(doc["start"]).replace("Z", "+00:00"))
        except ValueError:
            raise ReportError(f"start {doc['start']!r} is not an ISO 8601 time") from None
        if start.tzinfo is None:
            raise ReportError(f"start {doc['start']!r} has no time zone (add Z for UTC)")
    seconds = doc.get("duration_s")
    if seconds is not None and (not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds <= 0):
        raise ReportError(f"duration_s must be a number of seconds > 0, not {seconds!r}")
    return Report("summary", doc, whole("bytes"), start, float(seconds) if seconds else None,
                  whole("message_size"), whole("messages"), whole("overhead"))


_CONNECTION = re.compile(r"connection\s*\{(.*?)\}", re.S)
_TEST = re.compile(r"test\s*=\s*(full|cbr|random)\s*\((.*?)\)\s*;", re.S)
_DURATION = re.compile(r"duration\s*=\s*([\d.]+)\s*(s|ms|us)?\s*;")
_UNIT_S = {"s": 1.0, "ms": 1e-3, "us": 1e-6, None: 1.0}


def netspec_script(text: str) -> Report:
    """A NetSpec experiment with one connection (seed 002, figures 8-10)."""
    conns = _CONNECTION.findall(text)
    if len(conns) != 1:
        raise ReportError(f"the NetSpec script has {len(conns)} connections; paste the experiment of this "
                          "run's one connection (a duplex test is two runs, one per direction)")
    body = conns[0]
    test, duration = _TEST.search(body), _DURATION.search(body)
    if test is None:
        raise ReportError("the NetSpec connection has no test = full(...), cbr(...) or random(...)")
    mode, args = test.group(1), dict(
        (k.strip().lower(), v.strip()) for k, _, v in (a.partition("=") for a in test.group(2).split(",")) if k.strip())
    size_text, _, count_text = args.get("messagesize", "").partition(":")
    if not size_text.isdigit() or (count_text and not count_text.isdigit()):
        raise ReportError(f"messagesize {args.get('messagesize')!r}: expected bytes or bytes:messages-per-burst")
    size, per_burst = int(size_text), int(count_text or 1)
    seconds = float(duration.group(1)) * _UNIT_S[duration.group(2)] if duration else None
    protocol = re.search(r"protocol\s*=\s*(\w+)", body)
    doc: dict[str, Any] = {"netspec": {"test": mode, "messagesize": size, "messages_per_burst": per_burst,
                                       "duration_s": seconds, "protocol": protocol.group(1) if protocol else None,
                                       **{k: v for k, v in args.items() if k != "messagesize"}},
                           "script": text}
    sent = messages = None
    if mode == "cbr":
        if not args.get("period", "").isdigit() or int(args["period"]) <= 0 or seconds is None:
            raise ReportError("a NetSpec cbr test needs period=<microseconds> and a duration to know what it sent")
        bursts = int(seconds * 1e6 // int(args["period"]))
        messages = bursts * per_burst
        sent = messages * size
        doc["netspec"]["pacing_mbps"] = size * per_burst * 8 / int(args["period"])
    return Report("netspec-script", doc, sent, None, seconds, size, messages)
