"""Experiment runs: checked, then created (the web form, the API and `manage.py run` all call this).

Bad input is a RunError whose message says what is wrong; nothing is stored then:
- end not after start; a start before 1990 or more than a day ahead;
- a run with the same name whose window overlaps this one;
- a host or PVC that the inventory does not know (with the names it does know, when few);
- bytes sent that are negative, or more than the fastest port the run concerns could carry in
  its window (when that port's line rate is known);
- an application report that is not one of the forms of collector/runs/reports.py (iperf3's
  JSON, a NetSpec script, a JSON summary): its bytes, messages, message size, header overhead,
  start and duration are taken from it when not given;
- a series reference that names no series (collector/runs/series.py), or more than 50.
The fields, as every interface takes them: collector/runs/spec.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.db.models import Q

from collector.archive.models import Series
from collector.core.facts import EARLIEST_DATA, capacity_per_s
from collector.inventory.models import Host, Port, VirtualChannel
from collector.runs import reports, series
from collector.runs.models import ExperimentRun
from numerics.window import payload_bps

FUTURE_SLACK = timedelta(days=1)
MAX_REPORT_BYTES = reports.MAX_REPORT_BYTES


class RunError(ValueError):
    """str() is the message for the user."""


@dataclass
class RunSpec:
    name: str
    start: datetime | None = None
    end: datetime | None = None
    description: str = ""
    src: str = ""                 # host names (or addresses)
    dst: str = ""
    pvc: str = ""                 # "switch port vpi/vci"
    bytes_sent: int | None = None
    messages: int | None = None
    message_size: int | None = None
    overhead: int | None = None   # None: the report's, else 0
    report_text: str = ""         # iperf3 -J output, a NetSpec script or a JSON summary (reports.py)
    created_by: str = ""
    series: tuple[str, ...] = ()  # references: ids or names (series.py)


def _host(text: str, role: str) -> Host | None:
    if not text:
        return None
    found = Host.objects.filter(Q(name=text) | Q(address=text)).first()
    if found is None:
        names = sorted(Host.objects.values_list("name", flat=True)[:21])
        known = f" (known: {', '.join(names[:20])}{' ...' if len(names) > 20 else ''})" if names else ""
        raise RunError(f"unknown {role} host {text!r}{known}")
    return found


def _pvc(text: str) -> VirtualChannel | None:
    if not text:
        return None
    parts = text.replace("/", " ").split()
    if len(parts) != 4 or not parts[2].isdigit() or not parts[3].isdigit():
        raise RunError(f"PVC {text!r}: write it as 'switch port vpi/vci', e.g. 'asx200bx A4 0/210'")
    switch, port, vpi, vci = parts[0], parts[1], int(parts[2]), int(parts[3])
    vc = VirtualChannel.objects.filter(switch__name=switch, port__name=port, vpi=vpi, vci=vci).first()
    if vc is None:
        raise RunError(f"unknown PVC {switch} {port} {vpi}/{vci} (see the switch's PVC page)")
    return vc


def parse_report(text: str) -> reports.Report | None:
    if not text.strip():
        return None
    try:
        return reports.parse(text)
    except reports.ReportError as exc:
        raise RunError(str(exc)) from None


def _fastest_line_bps(ports: list[Port]) -> float | None:
    rates = [capacity_per_s("octets", p.speed_bps, None) for p in ports if p.speed_bps]
    cells = [capacity_per_s("cells", p.speed_bps, p.capacity_cells) for p in ports if p.is_atm]
    best = [r * 8 for r in rates if r] + [payload_bps(c) for c in cells if c]
    return max(best) if best else None


def _ports_of(src: Host | None, dst: Host | None, vc: VirtualChannel | None, series_ids: list[int]) -> list[Port]:
    ports = [vc.port] if vc else []
    hosts = [h for h in (src, dst) if h]
    if hosts:
        ports += list(Port.objects.filter(links_a__b_host__in=hosts).distinct())
    if series_ids:
        ports += list(Port.objects.filter(id__in=Series.objects.filter(id__in=series_ids).values("port_id")))
    return ports


def check(spec: RunSpec, now: datetime) -> dict:
    """Everything needed to store the run, or RunError."""
    name = spec.name.strip()
    if not name or len(name) > 100:
        raise RunError("a run needs a name of 1 to 100 characters")
    report = parse_report(spec.report_text)
    start = spec.start or (report.start if report else None) or now
    # The report's duration ends the run when the report also gave the start, or gave no start at
    # all (a NetSpec script: it runs for `duration` from when it was started, the run's start).
    end = spec.end
    if end is None and report is not None and report.seconds and (report.start is None or not spec.start):
        end = start + timedelta(seconds=report.seconds)
    bytes_sent = spec.bytes_sent if spec.bytes_sent is not None else (report.bytes if report else None)
    messages = spec.messages if spec.messages is not None else (report.messages if report else None)
    message_size = spec.message_size or (report.message_size if report else None)
    overhead = spec.overhead if spec.overhead is not None else (report.overhead if report else 0) or 0
    if start < EARLIEST_DATA or start > now + FUTURE_SLACK:
        raise RunError(f"start {start:%Y-%m-%d %H:%M:%S} UTC is before 1990 or more than a day ahead")
    if end is not None and end <= start:
        raise RunError(f"end {end:%Y-%m-%d %H:%M:%S} is not after start {start:%Y-%m-%d %H:%M:%S} (UTC)")
    for label, v in (("bytes sent", bytes_sent), ("messages", messages), ("message size", message_size),
                     ("overhead", overhead)):
        if v is not None and v < 0:
            raise RunError(f"{label} cannot be negative ({v})")
    src, dst, vc = _host(spec.src, "source"), _host(spec.dst, "destination"), _pvc(spec.pvc)
    try:
        series_ids = series.resolve(spec.series)
    except series.SeriesRefError as exc:
        raise RunError(str(exc)) from None
    clash = ExperimentRun.objects.filter(name=name, start__lt=end or datetime.max.replace(tzinfo=UTC)).filter(
        Q(end__isnull=True) | Q(end__gt=start)).first()
    if clash:
        raise RunError(f"a run named {name!r} already covers {clash.start:%Y-%m-%d %H:%M:%S} – "
                       f"{f'{clash.end:%Y-%m-%d %H:%M:%S}' if clash.end else 'now'} UTC: choose another name or time")
    line = _fastest_line_bps(_ports_of(src, dst, vc, series_ids))
    if bytes_sent and end and line and bytes_sent * 8 > line * (end - start).total_seconds():
        raise RunError(f"{bytes_sent:,} bytes in {(end - start).total_seconds():g} s is more than the fastest port "
                       f"of the run can carry ({line / 1e6:g} Mb/s of payload)")
    return {"name": name, "description": spec.description, "start": start, "end": end, "src_host": src,
            "dst_host": dst, "channel": vc, "bytes_sent": bytes_sent, "messages": messages,
            "message_size": message_size, "overhead": overhead, "report": report.doc if report else None,
            "created_by": spec.created_by, "series": series_ids}


def create(spec: RunSpec, now: datetime) -> ExperimentRun:
    fields = check(spec, now)
    series_ids = fields.pop("series")
    with transaction.atomic():
        run = ExperimentRun.objects.create(**fields)
        if series_ids:
            run.series.set(series_ids)
    return run


def stop(name: str, now: datetime) -> ExperimentRun:
    """End the run of that name that is still going on, now."""
    run = ExperimentRun.objects.filter(name=name, end__isnull=True).order_by("-start").first()
    if run is None:
        raise RunError(f"no run named {name!r} is going on (see `manage.py run list`)")
    if now <= run.start:
        raise RunError(f"run {name!r} started at {run.start:%Y-%m-%d %H:%M:%S} UTC, after now")
    run.end = now
    run.save(update_fields=["end"])
    return run
