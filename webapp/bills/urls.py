from django.urls import path

from webapp.bills import views
from webapp.timelimits import limited

app_name = "bills"
# Pages read stored periods (the beat task computes them): the "status" statement limit.
urlpatterns = [
    path("", limited("status")(views.bill_list), name="list"),
    path("new", views.bill_new, name="new"),
    path("<int:bill_id>/", limited("status")(views.bill_detail), name="detail"),
    path("<int:bill_id>/edit", views.bill_edit, name="edit"),
    path("<int:bill_id>/delete", views.bill_delete, name="delete"),
    path("<int:bill_id>/refresh", views.bill_refresh, name="refresh"),
    path("<int:bill_id>/periods.csv", limited("status", "text")(views.periods_csv), name="periods-csv"),
    path("<int:bill_id>/periods/<int:period_id>.csv", limited("status", "text")(views.intervals_csv),
         name="intervals-csv"),
    path("api", limited("status", "json")(views.api_list), name="api"),
    path("api/<int:bill_id>", limited("status", "json")(views.api_bill), name="api-bill"),
]
