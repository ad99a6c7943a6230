from django.urls import path

from webapp.exports import bulkviews, views

app_name = "exports"
urlpatterns = [
    path("", views.job_list, name="list"),
    path("new", bulkviews.new, name="new"),
    path("api/bulk", bulkviews.bulk, name="bulk"),
    path("<int:job_id>/", views.job_page, name="job"),
    path("<int:job_id>.json", views.job_json, name="job-json"),
    path("<int:job_id>/download", views.download, name="download"),
]
