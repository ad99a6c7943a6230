from django.urls import path

from webapp.status import views

app_name = "status"
urlpatterns = [
    path("", views.dashboard, name="dashboard"),
]
