from django.urls import path

from webapp.traffic import views

app_name = "traffic"
urlpatterns = [
    path("", views.page, name="plot"),
    path("export.csv", views.export, name="export"),
    path("port/<str:switch>/<str:port>/", views.for_port, name="for-port"),
    path("api/data", views.data, name="data"),
    path("api/p95", views.p95, name="p95"),
    path("api/series", views.series_list, name="series"),
    path("api/inventory", views.inventory, name="inventory"),
    path("api/inventory/<int:switch_id>", views.inventory_switch, name="inventory-switch"),
    path("api/openapi.json", views.openapi_json, name="openapi"),
]
