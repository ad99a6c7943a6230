from django.apps import AppConfig


class BillsPagesConfig(AppConfig):
    """Pages of bills: the list, a bill's current estimate and history with the plot of its sample
    intervals, the admins' form, JSON and CSV. Reads what collector/billing stored; writes go
    through collector/billing/edit.py."""
    name = "webapp.bills"
    label = "bills_pages"
