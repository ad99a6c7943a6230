"""Bills: the list, a bill's page (current estimate, closed periods, the plot of a period's sample
intervals), the admins' form, the history and interval CSVs, the JSON API.

Pages read the Period rows the beat task (cellar.close_bills) stores: no bill is computed in a
web request. Making, changing and deleting a bill needs the admin role (billing.change_bill):
bills are money; "refresh" (operators) asks the worker to compute the estimates now.
"""
from __future__ import annotations

import csv
import io
import logging
from datetime import date

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from collector.billing import edit
from collector.billing.compute import BillError
from collector.billing.models import DIRECTION_WORDS, MODE_WORDS, SAMPLE_INTERVALS, Bill, Period
from collector.billing.tasks import close_bills
from collector.core.isotime import iso
from collector.groups.models import Group
from collector.poller.celery_app import DEFAULT_QUEUE
from webapp.access import roles
from webapp.bills import figures

log = logging.getLogger(__name__)
FORM_FIELDS = ("name", "group", "billing_day", "mode", "direction", "sample_interval_s", "committed_mbps",
               "quota_gb", "time_zone", "starts", "notes")
PERIOD_FIELDS = ["start", "end", "zone", "closed", "as_of", "mode", "direction", "sample_interval_s", "intervals",
                 "measured", "p95_in_bps", "p95_out_bps", "p95_sum_bps", "p95_bps", "p95_at", "volume_in_bytes",
                 "volume_out_bytes", "volume_bytes", "committed_bps", "quota_bytes", "over", "computed_at"]


def _bill(bill_id: int) -> Bill:
    bill = Bill.objects.select_related("group").filter(pk=bill_id).first()
    if bill is None:
        raise Http404(f"no bill {bill_id}")
    return bill


def _current(bill: Bill) -> Period | None:
    return bill.periods.filter(closed=False).order_by("-start").first()


def bill_list(request: HttpRequest) -> HttpResponse:
    rows = []
    for bill in Bill.objects.select_related("group").order_by("name"):
        rows.append({"bill": bill, "current": _current(bill),
                     "last": bill.periods.filter(closed=True).order_by("-start").first()})
    return render(request, "bills/list.html", {"rows": rows, "can_edit": request.user.has_perm(roles.EDIT_BILLS)})


def _number(text: str, label: str, scale: float = 1.0) -> int | None:
    text = (text or "").strip().replace(",", "")
    if not text:
        return None
    try:
        return int(round(float(text) * scale))
    except ValueError:
        raise BillError(f"{label} {text!r} is not a number") from None


def _spec(p) -> edit.BillSpec:
    try:
        starts = date.fromisoformat(p.get("starts", "").strip()) if p.get("starts", "").strip() else None
    except ValueError:
        raise BillError(f"starts {p.get('starts')!r} is not a date (YYYY-MM-DD)") from None
    day = _number(p.get("billing_day", ""), "billing day")
    interval = _number(p.get("sample_interval_s", ""), "sample interval")
    return edit.BillSpec(p.get("name", ""), p.get("group", ""), day if day is not None else 1, p.get("mode", "p95"),
                         p.get("direction", "max"), interval or 300,
                         _number(p.get("committed_mbps", ""), "committed rate", 1e6),
                         _number(p.get("quota_gb", ""), "quota", 1e9), p.get("time_zone", ""), starts,
                         p.get("notes", ""))


def _form_page(request: HttpRequest, form: dict, bill: Bill | None, error: str = "", status: int = 200):
    return render(request, "bills/form.html", {
        "form": form, "bill": bill, "error": error, "groups": Group.objects.order_by("name"),
        "modes": MODE_WORDS.items(), "directions": DIRECTION_WORDS.items(), "intervals": SAMPLE_INTERVALS},
        status=status)


def _send_close_bills() -> None:
    try:
        close_bills.apply_async(queue=DEFAULT_QUEUE)
    except Exception:       # the broker is away: the beat entry "bills" runs within 5 minutes anyway
        log.warning("bills: cellar.close_bills not sent now (broker unavailable)", exc_info=True)


def _refresh_soon() -> None:
    """The worker computes the estimates (and closes what is due) after this request commits."""
    transaction.on_commit(_send_close_bills)


def _save(request: HttpRequest, bill: Bill | None) -> HttpResponse:
    form = {k: request.POST.get(k, "") for k in FORM_FIELDS}
    try:
        saved = edit.save(_spec(request.POST), bill, user=request.user)
    except BillError as exc:
        return _form_page(request, form, bill, str(exc), 400)
    _refresh_soon()
    messages.success(request, f"bill {saved.name} saved; its estimate is computed by the worker within minutes")
    return HttpResponseRedirect(reverse("bills:detail", args=[saved.id]))


@roles.require(roles.EDIT_BILLS, "making a bill needs the admin role")
def bill_new(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        return _save(request, None)
    return _form_page(request, {"billing_day": "1", "mode": "p95", "direction": "max", "sample_interval_s": "300",
                                "group": request.GET.get("group", "")}, None)


@roles.require(roles.EDIT_BILLS, "changing a bill needs the admin role")
def bill_edit(request: HttpRequest, bill_id: int) -> HttpResponse:
    bill = _bill(bill_id)
    if request.method == "POST":
        return _save(request, bill)
    form = {"name": bill.name, "group": str(bill.group_id), "billing_day": str(bill.billing_day), "mode": bill.mode,
            "direction": bill.direction, "sample_interval_s": str(bill.sample_interval_s),
            "committed_mbps": "" if bill.committed_bps is None else f"{bill.committed_bps / 1e6:g}",
            "quota_gb": "" if bill.quota_bytes is None else f"{bill.quota_bytes / 1e9:g}",
            "time_zone": bill.time_zone, "starts": bill.starts.isoformat(), "notes": bill.notes}
    return _form_page(request, form, bill)


@roles.require(roles.EDIT_BILLS, "deleting a bill needs the admin role")
@require_POST
def bill_delete(request: HttpRequest, bill_id: int) -> HttpResponse:
    bill = _bill(bill_id)
    edit.delete(bill)
    messages.success(request, f"bill {bill.name} and its periods deleted")
    return HttpResponseRedirect(reverse("bills:list"))


@roles.require(roles.RUN_CHECKS, "computing bills now needs the operator role")
@require_POST
def bill_refresh(request: HttpRequest, bill_id: int) -> HttpResponse:
    _bill(bill_id)
    _refresh_soon()
    messages.info(request, "the worker is computing the bills' estimates now; reload in a minute")
    return HttpResponseRedirect(reverse("bills:detail", args=[bill_id]))


def bill_detail(request: HttpRequest, bill_id: int) -> HttpResponse:
    bill = _bill(bill_id)
    history = list(bill.periods.filter(closed=True).order_by("-start").defer(
        "bins_in", "bins_out", "measured_in_s", "measured_out_s"))
    current = _current(bill)
    chosen = current
    if request.GET.get("period", "").isdigit():
        chosen = bill.periods.filter(pk=int(request.GET["period"])).first() or current
    problem = ""
    try:
        edit.check(edit.BillSpec(bill.name, str(bill.group_id), bill.billing_day, bill.mode, bill.direction,
                                 bill.sample_interval_s, bill.committed_bps, bill.quota_bytes, bill.time_zone,
                                 bill.starts, bill.notes), bill)
    except BillError as exc:
        problem = str(exc)
    return render(request, "bills/detail.html", {
        "bill": bill, "current": current, "history": history, "chosen": chosen, "problem": problem,
        "figure": figures.figure(chosen) if chosen is not None and chosen.bins_in else None,
        "can_edit": request.user.has_perm(roles.EDIT_BILLS),
        "can_refresh": request.user.has_perm(roles.RUN_CHECKS)})


def _value(v):
    if hasattr(v, "isoformat") and hasattr(v, "tzinfo"):
        return iso(v)
    return v


def period_json(p: Period) -> dict:
    return {"id": p.id, **{f: _value(getattr(p, f)) for f in PERIOD_FIELDS}, "notes": p.notes,
            "intervals_csv": reverse("bills:intervals-csv", args=[p.bill_id, p.id])}


def bill_json(bill: Bill) -> dict:
    return {"id": bill.id, "name": bill.name, "group": {"id": bill.group_id, "name": bill.group.name},
            "billing_day": bill.billing_day, "mode": bill.mode, "direction": bill.direction,
            "sample_interval_s": bill.sample_interval_s, "committed_bps": bill.committed_bps,
            "quota_bytes": bill.quota_bytes, "time_zone": bill.time_zone, "starts": bill.starts.isoformat(),
            "notes": bill.notes, "url": reverse("bills:api-bill", args=[bill.id])}


def api_list(request: HttpRequest) -> JsonResponse:
    out = []
    for bill in Bill.objects.select_related("group").order_by("name"):
        current = bill.periods.filter(closed=False).order_by("-start").defer("bins_in", "bins_out").first()
        out.append({**bill_json(bill), "current": period_json(current) if current else None})
    return JsonResponse({"bills": out})


def api_bill(request: HttpRequest, bill_id: int) -> JsonResponse:
    bill = Bill.objects.select_related("group").filter(pk=bill_id).first()
    if bill is None:
        return JsonResponse({"error": f"no bill {bill_id}"}, status=404)
    rows = bill.periods.order_by("-start").defer("bins_in", "bins_out", "measured_in_s", "measured_out_s")
    return JsonResponse({**bill_json(bill), "periods": [period_json(p) for p in rows]})


def _csv(rows: list[list], header: list[str], filename: str, notes: list[str]) -> HttpResponse:
    buf = io.StringIO()
    for note in notes:
        buf.write(f"# {note}\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow(["" if v is None else _value(v) for v in row])
    response = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def periods_csv(request: HttpRequest, bill_id: int) -> HttpResponse:
    bill = _bill(bill_id)
    rows = bill.periods.order_by("start").defer("bins_in", "bins_out", "measured_in_s", "measured_out_s")
    return _csv([[getattr(p, f) for f in PERIOD_FIELDS] for p in rows], PERIOD_FIELDS,
                f"cellar-bill-{bill.id}-periods.csv",
                [f"Cellar bill {bill.name}: rates bits/s, volumes bytes (cells as 53 bytes), times UTC; closed "
                 "periods are frozen, an open one is the estimate to as_of"])


def intervals_csv(request: HttpRequest, bill_id: int, period_id: int) -> HttpResponse:
    period = Period.objects.select_related("bill").filter(pk=period_id, bill_id=bill_id).first()
    if period is None:
        raise Http404(f"no period {period_id} of bill {bill_id}")
    return _csv(figures.interval_rows(period), figures.INTERVAL_FIELDS,
                f"cellar-bill-{bill_id}-{period.start:%Y%m%d}-intervals.csv",
                [f"Cellar bill {period.bill.name}, period from {iso(period.start)} ({period.zone}); "
                 f"{'closed' if period.closed else 'open, to ' + iso(period.as_of)}; bytes per "
                 f"{period.sample_interval_s} s interval, deltas spread over their poll intervals; counted=0: no "
                 "measured traffic, left out of the percentile"])
