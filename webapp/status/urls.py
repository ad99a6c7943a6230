"""Status pages (included at "/" by webapp/urls.py).

Names come from the inventory and may contain "/" (a switch "core/1", a port "Gi1/0/1"), so
they are matched with the path converter; the more specific patterns come first.
"""
from django.urls import path

from webapp.status.views import connections, dashboard, hosts, switches

app_name = "status"
urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("hosts/", hosts.hosts, name="hosts"),
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
