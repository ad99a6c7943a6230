import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies = [migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        migrations.CreateModel(
            name="ApiToken",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(help_text="what the token is for (a script, a wiki)", max_length=100)),
                ("prefix", models.CharField(help_text="the token's first characters, to recognise it", max_length=16)),
                ("digest", models.CharField(help_text="SHA-256 of the token (hex)", max_length=64, unique=True)),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                ("expires", models.DateTimeField()),
                ("last_used", models.DateTimeField(blank=True, null=True)),
                ("revoked", models.DateTimeField(blank=True, null=True)),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="api_tokens",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "db_table": "access_api_token",
                "ordering": ["-created"],
                "permissions": [("read_archive", "Read pages, plots, CSV and the JSON API"),
                                ("run_checks", "Check a switch or a host now")],
            },
        ),
        migrations.AddConstraint(
            model_name="apitoken",
            constraint=models.UniqueConstraint(fields=("user", "name"), name="access_token_user_name"),
        ),
    ]
