"""Bill pages: the admin's form with its messages, a bill's page with the current estimate, the plot
and the history, the CSVs of periods and of a period's sample intervals, the JSON."""
from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from collector.billing import closing
from collector.billing.models import Bill, Period
from collector.groups import edit as groups
from tests.support import traffic_factory as f
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin():
    c = Client()
    c.force_login(make_user("boss", "admin"))
    return c


@pytest.fixture
def group():
    from collector.archive.rollup import db_now

    now = db_now()
    sw = f.switch("asx-1")
    a1 = f.port(sw, "A1")
    rx, tx = f.series(a1, "in"), f.series(a1, "out")
    f.constant(sw, f.layout(sw, [rx, tx]), now - timedelta(hours=2), 480, 15, [2000, 1000])
    return groups.save(groups.spec_from("a1", f"{rx.id} {tx.id}", ""))


def form(group, **kw) -> dict:
    return {"name": "acme", "group": str(group.id), "billing_day": "1", "mode": "p95", "direction": "max",
            "sample_interval_s": "300", "committed_mbps": "0.5", "quota_gb": "", "time_zone": "",
            "starts": datetime.now(UTC).date().isoformat(), "notes": ""} | kw


@pytest.mark.parametrize("change, message", [
    ({"billing_day": "32"}, "billing day 32: a day of the month, 1 to 31"),
    ({"billing_day": "x"}, "billing day &#x27;x&#x27; is not a number"),
    ({"group": ""}, "a bill is a group"),
    ({"committed_mbps": "lots"}, "committed rate &#x27;lots&#x27; is not a number"),
    ({"starts": "2026-13-01"}, "is not a date"),
])
def test_bad_bills_say_what_is_accepted(admin, group, change, message):
    r = admin.post("/bills/new", form(group) | change)
    assert r.status_code == 400 and message in r.content.decode()
    assert not Bill.objects.exists()


def test_a_bill_made_computed_and_shown(admin, group, client):
    r = admin.post("/bills/new", form(group, billing_day="31"))
    bill = Bill.objects.get()
    assert r.status_code == 302 and bill.committed_bps == 500_000 and bill.billing_day == 31
    page = admin.get(f"/bills/{bill.id}/").content.decode()
    assert "No estimate yet" in page and "the month's last day when it has no day 31" in page
    closing.run()
    page = client.get(f"/bills/{bill.id}/").content.decode()          # an operator reads it
    current = Period.objects.get(bill=bill)
    assert "estimate to" in page and 'id="bill-figure"' in page and "/edit" not in page   # no admin links
    assert current.p95_bps == pytest.approx(2000 * 53 * 8, rel=1e-9) and current.over > 0
    body = client.get(f"/bills/api/{bill.id}").json()
    assert body["periods"][0]["p95_bps"] == current.p95_bps and not body["periods"][0]["closed"]
    lines = [x for x in client.get(f"/bills/{bill.id}/periods.csv").content.decode().splitlines()
             if not x.startswith("#")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    assert float(rows[0]["p95_bps"]) == current.p95_bps
    lines = [x for x in client.get(f"/bills/{bill.id}/periods/{current.id}.csv").content.decode().splitlines()
             if not x.startswith("#")]
    intervals = list(csv.DictReader(io.StringIO("\n".join(lines))))
    counted = sorted(float(r["rate_in_bps"]) for r in intervals if r["counted"] == "1")
    import math

    assert counted[math.ceil(0.95 * len(counted)) - 1] == pytest.approx(current.p95_in_bps, rel=1e-6)
    assert client.post(f"/bills/{bill.id}/delete").status_code == 403       # an operator cannot
    assert admin.post(f"/bills/{bill.id}/delete").status_code == 302 and not Bill.objects.exists()
