from django.urls import path

from webapp.traffic import permalinks, views

app_name = "traffic"
urlpatterns = [
    path("", views.page, name="plot"),
    path("export.csv", views.export, name="export"),
    # every plot's forms, same query as the page (permalinks.py)
    path("plot.png", permalinks.plot_image, {"fmt": "png"}, name="image-png"),
    path("plot.svg", permalinks.plot_image, {"fmt": "svg"}, name="image-svg"),
    path("plot.csv", views.export, name="plot-csv"),
    path("plot.json", views.data, name="plot-json"),
    path("api/views", permalinks.save_view, name="save-view"),
    path("api/image-links", permalinks.mint_image_link, name="mint-image-link"),
    path("port/<str:switch>/<str:port>/", views.for_port, name="for-port"),
    path("api/data", views.data, name="data"),
    path("api/p95", views.p95, name="p95"),
    path("api/series", views.series_list, name="series"),
    path("api/inventory", views.inventory, name="inventory"),
    path("api/inventory/<int:switch_id>", views.inventory_switch, name="inventory-switch"),
    path("api/openapi.json", views.openapi_json, name="openapi"),
]
