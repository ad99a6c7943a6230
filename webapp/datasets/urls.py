from django.urls import path

from webapp.datasets import views

app_name = "datasets"
urlpatterns = [
    path("", views.page, name="inventory"),
    path("api", views.api, name="api"),
    path("export.csv", views.export, name="export"),
]
