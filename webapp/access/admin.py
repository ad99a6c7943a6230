"""API tokens in the admin: admins see everyone's and revoke them; nobody makes one here (a token
made in the admin could not be shown once to its owner: users make theirs on /accounts/tokens/)."""
from django.contrib import admin
from django.utils import timezone

from webapp.access import tokens
from webapp.access.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created", "expires", "last_used", "revoked")
    list_filter = ("revoked", "expires")
    search_fields = ("name", "user__username", "prefix")
    readonly_fields = ("user", "name", "prefix", "created", "expires", "last_used", "revoked")
    exclude = ("digest",)
    actions = ["revoke"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description="Revoke the selected tokens", permissions=["change"])
    def revoke(self, request, queryset) -> None:
        now = timezone.now()
        n = sum(tokens.revoke(t, now) for t in queryset)
        self.message_user(request, f"{n} token(s) revoked")
