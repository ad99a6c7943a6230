"""Status pages (included at "/" by webapp/urls.py).

Names come from the inventory and may contain "/" (a switch "core/1", a port "Gi1/0/1"), so
they are matched with the path converter; the more specific patterns come first.
"""
from django.urls import path

from webapp.status import views

app_name = "status"
urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("hosts/", views.hosts, name="hosts"),
    path("hosts/<path:name>/check", views.host_check, name="host_check"),
    path("hosts/<path:name>/", views.host_detail, name="host"),
    path("switches/", views.switches, name="switches"),
    path("switches/<path:name>/ports/<path:port>/", views.port_detail, name="port"),
    path("switches/<path:name>/check", views.switch_check, name="switch_check"),
    path("switches/<path:name>/pvcs/", views.switch_pvcs, name="switch_pvcs"),
    path("switches/<path:name>/vccs/", views.switch_vccs, name="switch_vccs"),
    path("switches/<path:name>/", views.switch_detail, name="switch"),
    path("pvcs/", views.pvcs, name="pvcs"),
    path("vccs/", views.vccs_form, name="vccs"),
    path("path/", views.path, name="path"),
    path("path/vc/", views.trace_vc, name="trace_vc"),
    path("search/", views.search, name="search"),
]
