"""/me/: the viewer's time zone, their saved views and image links (revoke)."""
from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from webapp.personal import links, zones
from webapp.personal.models import ImageLink, Preference


@require_http_methods(["GET", "POST"])
def me(request: HttpRequest) -> HttpResponse:
    """GET: the settings; POST time_zone=<IANA name>: keep it (blank: back to the site default)."""
    if not request.user.is_authenticated:
        return render(request, "personal/me.html", {"anonymous": True, "site_zone": zones.site_default().key})
    status = 200
    if request.method == "POST":
        name = request.POST.get("time_zone", "").strip()
        if not name:
            zones.save(request.user, "", request)
            messages.success(request, f"times are shown in the site's zone, {zones.site_default().key}")
            return HttpResponseRedirect(reverse("personal:me"))
        try:
            z = zones.save(request.user, name, request)
        except zones.UnknownZone as exc:
            messages.error(request, str(exc))
            status = 400
        else:
            messages.success(request, f"times are now shown in {z.key}")
            return HttpResponseRedirect(reverse("personal:me"))
    pref = Preference.objects.filter(user=request.user).first()
    return render(request, "personal/me.html", {
        "pref": pref, "site_zone": zones.site_default().key, "zones": zones.choices(),
        "views": request.user.saved_views.all()[:100], "image_links": request.user.image_links.all()[:100],
        "max_days": links.IMAGE_LINK_MAX_DAYS, "now_value": timezone.now()}, status=status)


@require_POST
def revoke_image_link(request: HttpRequest, link_id: int) -> HttpResponse:
    """Revoke one of one's image links (staff may revoke anyone's)."""
    link = ImageLink.objects.filter(pk=link_id).first()
    if link is None or not (request.user.is_authenticated
                            and (link.owner_id == request.user.pk or request.user.is_staff)):
        raise Http404("no such image link of yours")
    if links.revoke(link):
        messages.success(request, f"image link {link.prefix}… revoked: it no longer shows the image")
    return HttpResponseRedirect(reverse("personal:me"))
