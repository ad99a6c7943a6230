from django.urls import path

from webapp.external import views
from webapp.timelimits import limited

app_name = "external"
# Reads run within the "status" statement limit (collector/reader/timelimits.py); the upload writes and the CSV
# streams outside a request-wide transaction (the CSV is rate-limited as an expensive request).
urlpatterns = [
    path("", limited("status")(views.series_list), name="list"),
    path("upload", views.upload, name="upload"),
    path("<int:series_id>/", limited("status")(views.series_page), name="series"),
    path("<int:series_id>.json", limited("status", "json")(views.series_json), name="json"),
    path("<int:series_id>.csv", views.series_csv, name="csv"),
]
