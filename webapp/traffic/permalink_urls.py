"""Short URLs at the root: saved views (/v/<code>[.png|.svg|.csv|.json]) and image links (/i/<secret>.png)."""
from django.urls import path

from webapp.traffic import permalinks

app_name = "links"
urlpatterns = [
    path("v/<str:code>.<str:fmt>", permalinks.short_form, name="view-form"),
    path("v/<str:code>", permalinks.short, name="view"),
    path("i/<str:secret>.<str:fmt>", permalinks.image_link, name="image"),
]
