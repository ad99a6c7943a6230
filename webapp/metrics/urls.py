from django.urls import path

from webapp.metrics import views

app_name = "metrics"
urlpatterns = [
    path("counters", views.counters, name="counters"),
]
