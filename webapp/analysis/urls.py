from django.urls import path

from webapp.analysis import views

app_name = "analysis"
urlpatterns = [
    path("", views.page, name="page"),
    path("run", views.start_form, name="run"),
    path("api/jobs", views.start_api, name="create"),
    path("jobs/<int:job_id>/", views.job_page, name="job"),
    path("api/jobs/<int:job_id>", views.job_json, name="job-json"),
    path("jobs/<int:job_id>/results.csv", views.job_csv, name="job-csv"),
]
