from django.urls import path

from webapp.events import views
from webapp.timelimits import limited

app_name = "events"
urlpatterns = [
    path("", limited("status")(views.event_list), name="list"),
    path("api", limited("status", "json")(views.events_api), name="api"),
    path("note", views.note_create, name="note"),
]
