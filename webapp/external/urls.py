from django.urls import path

from webapp.budget import limited
from webapp.external import views

app_name = "external"
# Reads run within the "status" statement limit (webapp/budget.py); the upload writes and the CSV
# streams outside a request-wide transaction (the CSV is rate-limited as an expensive request).
urlpatterns = [
    path("", limited("status")(views.series_list), name="list"),
    path("upload", views.upload, name="upload"),
    path("<int:series_id>/", limited("status")(views.series_page), name="series"),
    path("<int:series_id>.json", limited("status", "json")(views.series_json), name="json"),
    path("<int:series_id>.csv", views.series_csv, name="csv"),
]
