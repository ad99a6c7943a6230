from django.urls import path

from webapp.alerts import views
from webapp.timelimits import limited

app_name = "alerts"
urlpatterns = [
    path("", limited("status")(views.page), name="page"),
    path("states/<int:state_id>/ack", views.ack, name="ack"),
    path("rules/new", views.rule_edit, name="rule-new"),
    path("rules/<int:rule_id>/edit", views.rule_edit, name="rule-edit"),
    path("rules/<int:rule_id>/action", views.rule_action, name="rule-action"),
    path("destinations/new", views.destination_save, name="destination-new"),
    path("destinations/<int:destination_id>/save", views.destination_save, name="destination-save"),
    path("destinations/<int:destination_id>/action", views.destination_action, name="destination-action"),
]
