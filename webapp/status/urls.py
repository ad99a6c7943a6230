"""Status pages (included at "/" by webapp/urls.py).

Names come from the inventory and may contain "/" (a switch "core/1", a port "Gi1/0/1"), so
they are matched with the path converter; the more specific patterns come first.
"""
from django.urls import path

from webapp.status.views import connections, dashboard, hosts, runs, switches
from webapp.timelimits import limited

app_name = "status"
# Every status page's statements time out at the "status" limit (collector/reader/timelimits.py): a 503 page.
# Not the actions (check now, new run): they poll and write, outside a request-wide transaction.
urlpatterns = [
    path("", limited("status")(dashboard.dashboard), name="dashboard"),
    path("hosts/", limited("status")(hosts.hosts), name="hosts"),
    path("runs/", limited("status")(runs.run_list), name="runs"),
    path("runs/new", runs.run_create, name="run_create"),
    path("runs/api", limited("status")(runs.runs_api), name="runs_api"),
    path("runs/api/<int:run_id>", limited("status")(runs.run_api), name="run_api"),
    path("runs/<int:run_id>/", limited("status")(runs.run_detail), name="run"),
    path("runs/<int:run_id>/accounting.csv", limited("status")(runs.run_csv), name="run_csv"),
    path("hosts/<path:name>/check", hosts.host_check, name="host_check"),
    path("hosts/<path:name>/", limited("status")(hosts.host_detail), name="host"),
    path("switches/", limited("status")(dashboard.switches), name="switches"),
    path("switches/<path:name>/ports/<path:port>/", limited("status")(switches.port_detail), name="port"),
    path("switches/<path:name>/check", switches.switch_check, name="switch_check"),
    path("switches/<path:name>/pvcs/", limited("status")(connections.switch_pvcs), name="switch_pvcs"),
    path("switches/<path:name>/vccs/", limited("status")(connections.switch_vccs), name="switch_vccs"),
    path("switches/<path:name>/", limited("status")(switches.switch_detail), name="switch"),
    path("pvcs/", limited("status")(connections.pvcs), name="pvcs"),
    path("vccs/", limited("status")(connections.vccs_form), name="vccs"),
    path("path/", limited("status")(connections.path), name="path"),
    path("path/vc/", limited("status")(connections.trace_vc), name="trace_vc"),
    path("search/", limited("status")(dashboard.search), name="search"),
]
