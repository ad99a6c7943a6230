"""Groups and tags: lists, a group's page (members, rules, what uses it), the operators' forms and
the JSON API. Writes go through collector/groups (edit, tags), whose messages are shown as they
are; a group a bill uses is changed only by those who may change bills (admins)."""
from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from collector.groups import edit, rules, tags
from collector.groups.models import Group, Tag
from collector.groups.resolve import MAX_MEMBERS, GroupError, Members, resolve
from webapp.access import roles

SHOWN_MEMBERS = 500


def _group(group_id: int) -> Group:
    group = Group.objects.filter(pk=group_id).first()
    if group is None:
        raise Http404(f"no group {group_id}")
    return group


def _members(group: Group) -> tuple[Members | None, str]:
    try:
        return resolve(group, allow_empty=True), ""
    except GroupError as exc:
        return None, str(exc)


def group_list(request: HttpRequest) -> HttpResponse:
    rows = []
    for g in Group.objects.prefetch_related("rules").order_by("name"):
        rows.append({"group": g, "static": g.members.count(), "rules": [r.text for r in g.rules.all()],
                     "users": [u for _, u in edit.users_of(g)]})
    return render(request, "groups/list.html", {"rows": rows, "can_edit": request.user.has_perm(roles.EDIT_GROUPS)})


def _form_page(request: HttpRequest, form: dict, group: Group | None, error: str = "", status: int = 200,
               preview: Members | None = None) -> HttpResponse:
    return render(request, "groups/form.html", {
        "form": form, "group": group, "error": error, "preview": preview, "syntax": rules.USAGE,
        "max_members": MAX_MEMBERS, "max_rules": rules.MAX_RULES}, status=status)


def _save(request: HttpRequest, group: Group | None) -> HttpResponse:
    p = request.POST
    form = {k: p.get(k, "") for k in ("name", "description", "series", "rules")}
    try:
        spec = edit.spec_from(form["name"], form["series"], form["rules"])
        if p.get("action") == "check":
            return _form_page(request, form, group, preview=edit.check(spec, group))
        saved = edit.save(spec, group=group, description=form["description"], user=request.user)
    except GroupError as exc:
        return _form_page(request, form, group, str(exc), 400)
    messages.success(request, f"group {saved.name} saved")
    return HttpResponseRedirect(reverse("groups:detail", args=[saved.id]))


@roles.require(roles.EDIT_GROUPS, "making a group needs the operator role")
def group_new(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        return _save(request, None)
    return _form_page(request, {"series": request.GET.get("s", "").replace(",", " "), "rules": ""}, None)


def _bill_guard(request: HttpRequest, group: Group) -> HttpResponse | None:
    """A group that bills use is money: only those who may change bills change it."""
    billed = [u for app, u in edit.users_of(group) if app == "billing"]
    if billed and not request.user.has_perm(roles.EDIT_BILLS):
        return render(request, "groups/refused.html", {
            "group": group, "message": f"group {group.name} is used by {', '.join(billed)}: changing it changes what "
                                       "is billed, which needs the admin role"}, status=403)
    return None


@roles.require(roles.EDIT_GROUPS, "changing a group needs the operator role")
def group_edit(request: HttpRequest, group_id: int) -> HttpResponse:
    group = _group(group_id)
    refused = _bill_guard(request, group)
    if refused:
        return refused
    if request.method == "POST":
        return _save(request, group)
    form = {"name": group.name, "description": group.description,
            "series": " ".join(str(i) for i in group.members.values_list("series_id", flat=True)),
            "rules": "\n".join(r.text for r in group.rules.all())}
    return _form_page(request, form, group)


@roles.require(roles.EDIT_GROUPS, "deleting a group needs the operator role")
@require_POST
def group_delete(request: HttpRequest, group_id: int) -> HttpResponse:
    group = _group(group_id)
    try:
        edit.delete(group)
    except GroupError as exc:
        return render(request, "groups/refused.html", {"group": group, "message": str(exc)}, status=409)
    messages.success(request, f"group {group.name} deleted")
    return HttpResponseRedirect(reverse("groups:list"))


def group_detail(request: HttpRequest, group_id: int) -> HttpResponse:
    group = _group(group_id)
    members, error = _members(group)
    rules_shown = list(group.rules.all())
    counts = members.rule_counts if members else ()
    return render(request, "groups/detail.html", {
        "group": group, "members": members, "error": error, "shown": members.series[:SHOWN_MEMBERS] if members else (),
        "shown_max": SHOWN_MEMBERS, "rules": [(r.text, counts[i] if i < len(counts) else None)
                                              for i, r in enumerate(rules_shown)],
        "users": edit.users_of(group), "can_edit": request.user.has_perm(roles.EDIT_GROUPS),
        "can_bill": request.user.has_perm(roles.EDIT_BILLS),
        "plot_max": 50})


def tag_list(request: HttpRequest) -> HttpResponse:
    rows = Tag.objects.select_related("switch", "port__switch", "vp__switch", "vp__port", "vc__switch", "vc__port")
    return render(request, "groups/tags.html", {"rows": rows, "form": {},
                                                "can_edit": request.user.has_perm(roles.EDIT_TAGS)})


@roles.require(roles.EDIT_TAGS, "tagging needs the operator role")
@require_POST
def tag_add(request: HttpRequest) -> HttpResponse:
    p = request.POST
    form = {k: p.get(k, "") for k in ("name", "switch", "port", "vpi", "vci")}
    try:
        tag = tags.add(form["name"], form["switch"], form["port"], form["vpi"], form["vci"], user=request.user)
    except GroupError as exc:
        rows = Tag.objects.select_related("switch", "port__switch", "vp__switch", "vp__port", "vc__switch",
                                          "vc__port")
        return render(request, "groups/tags.html", {"rows": rows, "form": form, "error": str(exc),
                                                    "can_edit": True}, status=400)
    messages.success(request, f"tagged {tag.target_text()} {tag.name}")
    return HttpResponseRedirect(reverse("groups:tags"))


@roles.require(roles.EDIT_TAGS, "untagging needs the operator role")
@require_POST
def tag_delete(request: HttpRequest, tag_id: int) -> HttpResponse:
    deleted, _ = Tag.objects.filter(pk=tag_id).delete()
    if not deleted:
        raise Http404(f"no tag {tag_id}")
    return HttpResponseRedirect(reverse("groups:tags"))


def _group_json(group: Group, members: Members | None, error: str) -> dict:
    counts = members.rule_counts if members else ()
    return {
        "id": group.id, "name": group.name, "description": group.description,
        "static": list(group.members.values_list("series_id", flat=True)),
        "rules": [{"text": r.text, "matches": counts[i] if i < len(counts) else None}
                  for i, r in enumerate(group.rules.all())],
        "used_by": [u for _, u in edit.users_of(group)], "error": error or None,
        "count": len(members.series) if members else 0,
        "members": [{"id": s.id, "switch": s.switch, "port": s.port, "vpi": s.vpi, "vci": s.vci,
                     "direction": s.direction, "metric": s.metric, "unit": s.unit, "capacity_per_s": s.capacity_per_s,
                     "static": s.static} for s in (members.series if members else ())],
        "objects": [{"kind": o.kind, "id": o.id, "switch": o.switch, "port": o.port, "vpi": o.vpi, "vci": o.vci}
                    for o in (members.objects if members else ())],
        "plot_url": f"{reverse('traffic:plot')}?g={group.id}", "talkers_url": f"/talkers/?group={group.id}",
    }


def api_list(request: HttpRequest) -> JsonResponse:
    groups = [{"id": g.id, "name": g.name, "description": g.description, "static": g.members.count(),
               "rules": [r.text for r in g.rules.all()], "url": reverse("groups:api-group", args=[g.id])}
              for g in Group.objects.prefetch_related("rules").order_by("name")]
    return JsonResponse({"groups": groups})


def api_group(request: HttpRequest, group_id: int) -> JsonResponse:
    group = Group.objects.filter(pk=group_id).first()
    if group is None:
        return JsonResponse({"error": f"no group {group_id}"}, status=404)
    members, error = _members(group)
    return JsonResponse(_group_json(group, members, error))
