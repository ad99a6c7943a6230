from django.contrib import admin
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import path

from webapp.status import views as status_views


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness for load balancers and `make run`: the web process answers and reaches the database."""
    with connection.cursor() as cur:
        cur.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [
    path("", status_views.dashboard, name="dashboard"),
    path("admin/", admin.site.urls),
    path("healthz", healthz),
]
