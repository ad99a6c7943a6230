"""Status pages (included at "/" by webapp/urls.py).

Names come from the inventory and may contain "/" (a switch "core/1", a port "Gi1/0/1"), so
they are matched with the path converter; the more specific patterns come first.
"""
from django.urls import path

from webapp.status.views import connections, dashboard, hosts, runs, switches

app_name = "status"
urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("hosts/", hosts.hosts, name="hosts"),
    path("runs/", runs.run_list, name="runs"),
    path("runs/new", runs.run_create, name="run_create"),
    path("runs/api", runs.runs_api, name="runs_api"),
    path("runs/api/<int:run_id>", runs.run_api, name="run_api"),
    path("runs/<int:run_id>/", runs.run_detail, name="run"),
    path("runs/<int:run_id>/accounting.csv", runs.run_csv, name="run_csv"),
    path("hosts/<path:name>/check", hosts.host_check, name="host_check"),
    path("hosts/<path:name>/", hosts.host_detail, name="host"),
    path("switches/", dashboard.switches, name="switches"),
    path("switches/<path:name>/ports/<path:port>/", switches.port_detail, name="port"),
    path("switches/<path:name>/check", switches.switch_check, name="switch_check"),
    path("switches/<path:name>/pvcs/", connections.switch_pvcs, name="switch_pvcs"),
    path("switches/<path:name>/vccs/", connections.switch_vccs, name="switch_vccs"),
    path("switches/<path:name>/", switches.switch_detail, name="switch"),
    path("pvcs/", connections.pvcs, name="pvcs"),
    path("vccs/", connections.vccs_form, name="vccs"),
    path("path/", connections.path, name="path"),
    path("path/vc/", connections.trace_vc, name="trace_vc"),
    path("search/", dashboard.search, name="search"),
]
