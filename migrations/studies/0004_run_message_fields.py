"""A run's message size and overhead say what they mean on each medium: per AAL5 message on ATM,
per segment or datagram on Ethernet (their help texts only; no column changes)."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("studies", "0003_burst_continues")]

    operations = [
        migrations.AlterField(
            model_name="experimentrun",
            name="message_size",
            field=models.IntegerField(blank=True, null=True, help_text=(
                "bytes of data per message: an AAL5 CPCS-SDU on ATM, a segment (TCP MSS) or datagram on Ethernet")),
        ),
        migrations.AlterField(
            model_name="experimentrun",
            name="overhead",
            field=models.IntegerField(default=0, help_text=(
                "header bytes per message not counted in bytes_sent (TCP/IP 40, with timestamps 52; LLC/SNAP 8 on ATM)")),
        ),
    ]
