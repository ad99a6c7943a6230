"""Links to plots (webapp/personal/permalinks.py): short URLs at the root, saved views (/v/<code>[.png|.svg|
.csv|.json]) and image links (/i/<secret>.png), and the plot page's forms that make them, at their
place under /traffic/api/."""
from django.urls import path

from webapp.personal import permalinks

app_name = "links"
urlpatterns = [
    path("v/<str:code>.<str:fmt>", permalinks.short_form, name="view-form"),
    path("v/<str:code>", permalinks.short, name="view"),
    path("i/<str:secret>.<str:fmt>", permalinks.image_link, name="image"),
    path("traffic/api/views", permalinks.save_view, name="save-view"),
    path("traffic/api/image-links", permalinks.mint_image_link, name="mint-image-link"),
]
