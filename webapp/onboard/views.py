"""Adding switches: the page (add by address, candidates, sweep, recent jobs), and a network job's
progress (HTML, polled as JSON by static/onboard/job.js). The work itself is a job on the worker of
the switch's poller group (collector/poller/jobs.py): a web process never sends a packet."""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from collector.core.isotime import iso
from collector.inventory.models import CredentialSet, Switch
from collector.poller import candidates, jobs
from collector.poller.models import NetworkJob
from webapp.access import roles
from webapp.onboard.forms import AddSwitchForm, SweepForm

RECENT_JOBS = 20


def page(request: HttpRequest, form: AddSwitchForm | None = None, sweep: SweepForm | None = None) -> HttpResponse:
    found, total = candidates.candidates()
    groups = sorted(set(Switch.objects.values_list("poller_group", flat=True)) | {"default"})
    context = {"form": form or AddSwitchForm(initial=_prefill(request)), "sweep": sweep or SweepForm(),
               "candidates": found, "candidates_total": total, "groups": groups,
               "sets": CredentialSet.objects.all(), "sweep_networks": settings.CELLAR_SWEEP_NETWORKS,
               "sweep_rate": settings.CELLAR_SWEEP_RATE, "jobs": NetworkJob.objects.all()[:RECENT_JOBS],
               "may_add": request.user.has_perm(roles.ADD_SWITCHES)}
    return render(request, "onboard/page.html", context, status=400 if (form or sweep) else 200)


def _prefill(request: HttpRequest) -> dict:
    """A candidate's "add" link fills the form (its address, name and poller group)."""
    return {k: request.GET[k] for k in ("address", "name", "poller_group") if request.GET.get(k)}


@require_POST
@roles.require(roles.ADD_SWITCHES, "adding switches needs the operator role")
def add(request: HttpRequest) -> HttpResponse:
    form = AddSwitchForm(request.POST)
    if not form.is_valid():
        return page(request, form=form)
    d = form.cleaned_data
    return _start(request, NetworkJob.Kind.ADD_SWITCH, d["address"].strip(), d["poller_group"], form.job_params(),
                  form.typed_credentials())


@require_POST
@roles.require(roles.ADD_SWITCHES, "sweeping needs the operator role")
def sweep(request: HttpRequest) -> HttpResponse:
    form = SweepForm(request.POST)
    if not form.is_valid():
        return page(request, sweep=form)
    d = form.cleaned_data
    return _start(request, NetworkJob.Kind.SWEEP, d["network"].strip(), d["poller_group"],
                  {"network": d["network"].strip()})


def _start(request: HttpRequest, kind: str, target: str, group: str, params: dict,
           credentials: dict | None = None) -> HttpResponse:
    try:
        job = jobs.create(kind, target, group, params, owner_id=request.user.pk, credentials=credentials)
    except jobs.TooMany as exc:
        messages.error(request, str(exc))
        return HttpResponseRedirect(reverse("onboard:page"))
    return HttpResponseRedirect(reverse("onboard:job", args=[job.id]))


def _job(job_id: int) -> NetworkJob:
    job = NetworkJob.objects.filter(pk=job_id).defer("community", "auth_key", "priv_key").first()
    if job is None:
        raise Http404(f"no network job {job_id}")
    return job


def state(job: NetworkJob) -> dict:
    """What the job page shows and its JSON answers (never a secret)."""
    d = {"id": job.id, "kind": job.kind, "kind_text": job.get_kind_display(), "target": job.target,
         "poller_group": job.poller_group, "queue": Switch.queue_name(job.poller_group), "status": job.status,
         "steps": job.steps, "error": job.error, "result": job.result, "created": iso(job.created),
         "started": iso(job.started) if job.started else None, "finished": iso(job.finished) if job.finished else None,
         "links": []}
    name = (job.result or {}).get("switch")
    if name:
        d["links"].append({"text": f"switch {name}", "url": reverse("status:switch", args=[name])})
    if (job.result or {}).get("host"):
        host = job.result["host"]
        d["links"].append({"text": f"host {host}", "url": reverse("status:host", args=[host])})
    if job.kind == NetworkJob.Kind.SWEEP and job.status == NetworkJob.Status.DONE:
        d["links"].append({"text": "candidates", "url": reverse("onboard:page") + "#candidates"})
    return d


def job_page(request: HttpRequest, job_id: int) -> HttpResponse:
    return render(request, "onboard/job.html", {"job": state(_job(job_id))})


def job_json(request: HttpRequest, job_id: int) -> JsonResponse:
    return JsonResponse(state(_job(job_id)))
