from django.urls import path

from webapp.personal import views

app_name = "personal"
urlpatterns = [
    path("", views.me, name="me"),
    path("image-links/<int:link_id>/revoke", views.revoke_image_link, name="revoke-image-link"),
]
