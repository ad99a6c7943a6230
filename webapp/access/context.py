"""Template context: where the admin answers (CELLAR_ADMIN_PATH) and the visitor's role."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def access(request: HttpRequest) -> dict:
    return {"admin_root": "/" + settings.CELLAR_ADMIN_PATH}
