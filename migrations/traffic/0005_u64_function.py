"""cellar_u64(bigint): read back a Counter64 stored as two's complement in a bigint."""
from django.db import migrations

CREATE = """
CREATE FUNCTION cellar_u64(v bigint) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT CASE WHEN v < 0 THEN v::numeric + 18446744073709551616 ELSE v::numeric END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("traffic", "0004_poll_log_hypertable")]
    operations = [migrations.RunSQL(CREATE, reverse_sql="DROP FUNCTION cellar_u64(bigint);")]
