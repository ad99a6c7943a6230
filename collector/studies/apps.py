from django.apps import AppConfig


class StudiesConfig(AppConfig):
    """Holds only the migrations that made the tables of experiment runs and bursts (studies_run,
    studies_burst, studies_burst_scan): their models moved, state only, to collector/runs and
    collector/bursts, which own them now. A database made before the move migrates through these."""
    name = "collector.studies"
    label = "studies"
