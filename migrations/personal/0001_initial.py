import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies = [migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        migrations.CreateModel(
            name="Preference",
            fields=[
                ("user", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True,
                                              related_name="cellar_preference", serialize=False,
                                              to=settings.AUTH_USER_MODEL)),
                ("time_zone", models.CharField(help_text="IANA time zone name, e.g. Europe/Berlin", max_length=64)),
            ],
            options={"db_table": "personal_preference"},
        ),
        migrations.CreateModel(
            name="SavedView",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("code", models.CharField(max_length=16, unique=True)),
                ("digest", models.CharField(help_text="SHA-256 of the query", max_length=64, unique=True)),
                ("query", models.TextField(help_text="the plot's query string, checked when saved")),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                ("owner", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                            related_name="saved_views", to=settings.AUTH_USER_MODEL)),
            ],
            options={"db_table": "personal_saved_view", "ordering": ["-created"]},
        ),
        migrations.CreateModel(
            name="ImageLink",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("digest", models.CharField(help_text="SHA-256 of the link's secret", max_length=64, unique=True)),
                ("prefix", models.CharField(help_text="the secret's first characters, to recognise it",
                                            max_length=16)),
                ("query", models.TextField(help_text="the plot's query string: the only selection the link shows")),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                ("expires", models.DateTimeField()),
                ("revoked", models.DateTimeField(blank=True, null=True)),
                ("last_used", models.DateTimeField(blank=True, null=True)),
                ("owner", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="image_links",
                                            to=settings.AUTH_USER_MODEL)),
            ],
            options={"db_table": "personal_image_link", "ordering": ["-created"]},
        ),
    ]
