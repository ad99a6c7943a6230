from django.urls import path

from webapp.groups import views
from webapp.timelimits import limited

app_name = "groups"
# Reads run within the "status" statement limit (collector/reader/timelimits.py): a group's resolution is one
# statement over the series table.
urlpatterns = [
    path("", limited("status")(views.group_list), name="list"),
    path("new", views.group_new, name="new"),
    path("<int:group_id>/", limited("status")(views.group_detail), name="detail"),
    path("<int:group_id>/edit", views.group_edit, name="edit"),
    path("<int:group_id>/delete", views.group_delete, name="delete"),
    path("tags/", limited("status")(views.tag_list), name="tags"),
    path("tags/add", views.tag_add, name="tag-add"),
    path("tags/<int:tag_id>/delete", views.tag_delete, name="tag-delete"),
    path("api", limited("status", "json")(views.api_list), name="api"),
    path("api/<int:group_id>", limited("status", "json")(views.api_group), name="api-group"),
]
