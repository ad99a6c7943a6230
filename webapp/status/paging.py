"""Long lists in pages: the switch list, the hosts and the PVCs of a network of thousands of
switches are shown PER_PAGE rows at a time (?page=N; a number out of range shows the nearest page),
so a page reads and renders the same amount whatever the size of the inventory."""
from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.http import HttpRequest

SWITCHES_PER_PAGE = 50
HOSTS_PER_PAGE = 50
PVCS_PER_PAGE = 100
DASHBOARD_ROWS = 50       # switches and hosts listed on the dashboard (the lists have them all)
PROBLEMS_SHOWN = 100      # rows of "needs attention" (the count says how many there are)


def page_of(request: HttpRequest, items, per_page: int) -> Page:
    """The requested page of items (a queryset is sliced in SQL, after one COUNT)."""
    return Paginator(items, per_page).get_page(request.GET.get("page"))
