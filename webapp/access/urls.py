from django.urls import path

from webapp.access import views

app_name = "access"
urlpatterns = [
    path("login/", views.login, name="login"),
    path("logout/", views.logout, name="logout"),
    path("tokens/", views.token_list, name="tokens"),
    path("tokens/<int:token_id>/revoke", views.token_revoke, name="token_revoke"),
]
