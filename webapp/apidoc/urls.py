from django.urls import path

from webapp.apidoc import views

app_name = "apidoc"
urlpatterns = [
    path("api/openapi.json", views.openapi_json, name="openapi"),
    # where the document was first published: clients that fetched it there keep working
    path("traffic/api/openapi.json", views.openapi_json, name="openapi-at-traffic"),
]
