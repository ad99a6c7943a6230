from django.urls import path

from webapp.traffic import imageviews, views

app_name = "traffic"
urlpatterns = [
    path("", views.page, name="plot"),
    path("export.csv", views.export, name="export"),
    # every plot's forms, same query as the page (imageviews.py)
    path("plot.png", imageviews.plot_image, {"fmt": "png"}, name="image-png"),
    path("plot.svg", imageviews.plot_image, {"fmt": "svg"}, name="image-svg"),
    path("plot.csv", views.export, name="plot-csv"),
    path("plot.json", views.data, name="plot-json"),
    path("port/<str:switch>/<str:port>/", views.for_port, name="for-port"),
    path("api/data", views.data, name="data"),
    path("api/p95", views.p95, name="p95"),
    path("api/series", views.series_list, name="series"),
    path("api/inventory", views.inventory, name="inventory"),
    path("api/inventory/<int:switch_id>", views.inventory_switch, name="inventory-switch"),
]
