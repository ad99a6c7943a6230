"""Indexes for the hosts' attachments at size.

The host list and a host's page find the ports that may attach their hosts by label
(webapp/status/queries.host_ports_q): a label names a host only when it starts with the first
three characters of the host's name, normalised as collector/core/names.normalised does (the
SQL expression below must stay the one in host_ports_q), or when it is the host's address. Without
these indexes that was a scan of every port's label (100,000 ports: 80 ms per page, twice).
"""
from django.db import migrations

PREFIX = "left(lower(ltrim(label, E' \\t\\n\\r\\f\\x0b.')), 3)"


class Migration(migrations.Migration):

    dependencies = [
        ('inventory', '0006_switch_time_zone'),
    ]

    operations = [
        migrations.RunSQL(
            sql=[f"CREATE INDEX port_label_prefix ON inventory_port ({PREFIX}) WHERE label <> ''",
                 "CREATE INDEX port_label ON inventory_port (label) WHERE label <> ''"],
            reverse_sql=["DROP INDEX port_label_prefix", "DROP INDEX port_label"],
        ),
    ]
