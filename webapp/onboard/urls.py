from django.urls import path

from webapp.onboard import views

app_name = "onboard"
urlpatterns = [
    path("", views.page, name="page"),
    path("add", views.add, name="add"),
    path("sweep", views.sweep, name="sweep"),
    path("jobs/<int:job_id>/", views.job_page, name="job"),
    path("jobs/<int:job_id>.json", views.job_json, name="job-json"),
]
