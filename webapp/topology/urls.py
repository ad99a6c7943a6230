"""The network map (included at "map/" by webapp/urls.py)."""
from django.urls import path

from webapp.timelimits import limited
from webapp.topology import views

app_name = "topology"
# Every read within the "status" statement budget (collector/reader/timelimits.py): a 503 that states it.
urlpatterns = [
    path("", limited("status")(views.page), name="map"),
    path("api/graph", limited("status", "json")(views.graph_api), name="graph"),
    path("api/links/<int:link_id>", limited("status", "json")(views.link_api), name="link"),
    path("api/path", limited("status", "json")(views.path_api), name="path"),
    path("api/positions", views.positions_api, name="positions"),
]
