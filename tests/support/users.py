"""Users with a role, for tests of pages and of who may do what (webapp/access/roles.py)."""
from __future__ import annotations


def make_user(username: str, role: str | None, password: str | None = None):
    """A user holding exactly `role` (viewer, operator, admin or None)."""
    from django.contrib.auth import get_user_model

    from webapp.access import roles

    user = get_user_model().objects.create_user(username, password=password)
    roles.grant(user, role)
    return user
