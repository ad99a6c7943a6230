"""The OpenAPI document, as JSON (needs the viewer role, like what it describes)."""
from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from webapp.apidoc import openapi


@require_GET
def openapi_json(request: HttpRequest) -> JsonResponse:
    return JsonResponse(openapi.spec())
