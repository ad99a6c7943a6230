"""Analysis jobs now belong to the analysis app (state only; the table stays, see
migrations/analysis/0001)."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("exports", "0002_analysis_jobs"), ("analysis", "0001_analysis_job_from_exports")]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel("AnalysisJob")],
                                            database_operations=[]),
    ]
