"""The run admin: a run saved unchanged from its change form keeps its window to the millisecond."""
from __future__ import annotations

from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest

from collector.runs.models import ExperimentRun

pytestmark = pytest.mark.django_db


class FormValues(HTMLParser):
    """What a browser submits from the admin's change form as rendered (inputs, selects, textareas)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "checkbox", "file"):
            self.values[name] = a.get("value") or ""
        elif tag == "input" and name and a.get("type") == "checkbox" and "checked" in a:
            self.values[name] = "on"
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.values[self._select] = a.get("value") or ""
        elif tag == "textarea" and name:
            self._textarea = name
            self.values[name] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.values[self._textarea] += data


WINDOWS = [
    # name, start, end
    ("milliseconds", datetime(2026, 11, 24, 20, 15, 1, 815_000, UTC), datetime(2026, 11, 24, 20, 16, 2, 5_000, UTC)),
    ("microseconds", datetime(2026, 11, 24, 20, 15, 1, 815_123, UTC), datetime(2026, 11, 24, 20, 15, 1, 815_124, UTC)),
    ("whole seconds", datetime(2026, 11, 24, 20, 15, 1, tzinfo=UTC), datetime(2026, 11, 24, 20, 15, 2, tzinfo=UTC)),
    ("going on", datetime(2026, 11, 24, 20, 15, 1, 999_000, UTC), None),
]


@pytest.mark.parametrize("name,start,end", WINDOWS, ids=[w[0] for w in WINDOWS])
def test_saving_a_run_in_the_admin_keeps_its_window(admin_client, name, start, end):
    run = ExperimentRun.objects.create(name=f"precise {name}", start=start, end=end, bytes_sent=1000)
    url = f"/admin/runs/experimentrun/{run.id}/change/"
    form = FormValues()
    form.feed(admin_client.get(url).content.decode())
    assert "start_0" in form.values or "start" in form.values, sorted(form.values)
    form.values.pop("_addanother", None)
    response = admin_client.post(url, form.values)
    assert response.status_code == 302, response.content.decode()[:3000]
    run.refresh_from_db()
    assert (run.start, run.end) == (start, end)
