from django.urls import path

from webapp.talkers import views

app_name = "talkers"
urlpatterns = [
    path("", views.page, name="page"),
    path("api", views.api, name="api"),
    path("export.csv", views.export, name="export"),
]
