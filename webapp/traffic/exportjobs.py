"""A CSV too large for a web request: offer a background export, and create it on POST.

The job (collector/exports) stores the very COPY a direct download would stream
(csvrows.copy_spec), so its file is that CSV byte for byte. Its selection is the plan's query
string with the range made absolute: the job exports what was asked when it was asked.
"""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse

from collector.exports import jobs
from collector.reader import csvrows, resolution
from collector.reader.reading import Plan


def wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def selection(plan: Plan, raw: bool) -> str:
    q = plan.req.query(range="custom", start=plan.start, end=plan.end, res=plan.res if not raw else "auto")
    return q + ("&raw=1" if raw else "")


def offer(request: HttpRequest, plan: Plan, size: int) -> HttpResponse:
    """409: not streamed; the message says why and how to start the background export."""
    limit = settings.CELLAR_CSV_SYNC_MAX_CELLS
    message = (f"this CSV has about {size:,} values ({len(plan.series)} series x {plan.expected_points:,} rows of "
               f"{resolution.RES_LABEL[plan.res]}); a direct download holds at most {limit:,}: start a background "
               "export (POST this same URL), or narrow the range or choose a coarser resolution")
    if wants_json(request):
        return JsonResponse({"error": message, "cells": size, "limit": limit,
                             "create": {"method": "POST", "url": request.get_full_path()}}, status=409)
    return render(request, "traffic/export_offer.html", {"message": message, "action": request.get_full_path(),
                                                         "series": plan.series}, status=409)


def start(request: HttpRequest, plan: Plan, raw: bool) -> HttpResponse:
    """Create the job for the requester (user, or anonymous session) and point at its page."""
    header, sql, params = csvrows.copy_spec(plan)
    session_key = None
    if not request.user.is_authenticated:
        # An anonymous owner is its session: make sure there is one and its cookie is sent.
        request.session["exports_owner"] = True
        request.session.save()
        session_key = request.session.session_key
    job = jobs.create(owner_id=request.user.pk if request.user.is_authenticated else None, session_key=session_key,
                      selection=selection(plan, raw), filename=csvrows.filename(plan), header=header, sql=sql,
                      params=params, expected_rows=plan.expected_points)
    page = reverse("exports:job", args=[job.id])
    if wants_json(request):
        return JsonResponse({"id": job.id, "status": job.status, "page_url": page,
                             "json_url": reverse("exports:job-json", args=[job.id])}, status=202)
    return HttpResponseRedirect(page, status=303)
