"""collector/archive/tasks.py: the rollup and retention tasks under their names, scheduled by beat."""
from __future__ import annotations

import pytest


@pytest.mark.django_db(transaction=True)
def test_celery_tasks_and_beat_entries():
    from collector.archive import tasks as rollup_tasks
    from collector.poller.schedule import static_entries

    entries = static_entries()
    assert entries["rollup"]["task"] == rollup_tasks.rollup.name == "cellar.rollup"
    assert entries["retention"]["task"] == rollup_tasks.retention.name == "cellar.retention"
    for name in ("rollup", "retention"):
        assert entries[name]["options"]["expires"] > 0 and entries[name]["options"]["queue"] == "default"
    assert rollup_tasks.rollup.apply().get()["skipped"] is False
    assert isinstance(rollup_tasks.retention.apply().get(), dict)
