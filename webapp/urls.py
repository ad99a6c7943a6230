"""URL map: each app owns its routes (webapp/<app>/urls.py)."""
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import include, path


@login_not_required
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness for load balancers and `make run`: the web process answers and reaches the database."""
    with connection.cursor() as cur:
        cur.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [
    path(settings.CELLAR_ADMIN_PATH, admin.site.urls),
    path("accounts/", include("webapp.access.urls")),
    path("healthz", healthz),
    path("traffic/", include("webapp.traffic.urls")),
    path("datasets/", include("webapp.datasets.urls")),
    path("exports/", include("webapp.exports.urls")),
    path("external/", include("webapp.external.urls")),
    path("analysis/", include("webapp.analysis.urls")),
    path("me/", include("webapp.personal.urls")),
    path("", include("webapp.personal.permalink_urls")),
    path("", include("webapp.apidoc.urls")),
    path("map/", include("webapp.topology.urls")),
    path("talkers/", include("webapp.talkers.urls")),
    path("groups/", include("webapp.groups.urls")),
    path("bills/", include("webapp.bills.urls")),
    path("alerts/", include("webapp.alerts.urls")),
    path("events/", include("webapp.events.urls")),
    path("onboard/", include("webapp.onboard.urls")),
    path("metrics/", include("webapp.metrics.urls")),
    path("", include("webapp.status.urls")),
]
