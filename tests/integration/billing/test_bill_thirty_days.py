"""Bills over thirty synthetic days in the archive (tests/support/bill_archive.py: a 32-bit counter
that wraps every two minutes, an agent reboot, a port down for 2.5 days, 20 minutes without an
answer), through ingest's derivation, the writer, the raw CSV export and the rollup:

- every mode (95th percentile and quota, in / out / max / sum) within 0.1 % of a numpy reference
  computed from the TRUE per-second volumes by the stated rule;
- a bill's 95th percentile equal to an independent computation from the raw CSV export (plain
  Python over the CSV's delta and interval columns) within 0.1 %;
- identical after a re-rollup of the whole period; a closed period frozen (the database refuses
  an update) and listed by the page and the API.
"""
from __future__ import annotations

import csv
import io
import math
from datetime import timedelta
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from django.db import DatabaseError, transaction

from collector.archive import rollup
from collector.archive.models import PollLog, Sample
from collector.billing import closing, compute
from collector.billing.models import Bill, Period
from collector.groups import edit
from collector.inventory.models import Switch
from tests.support import bill_archive

pytestmark = [pytest.mark.slow]
ZONE = "Europe/Paris"
TOLERANCE = 1e-3


@pytest.fixture(scope="module")
def month(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        now = compute.db_now()
        start, end = bill_archive.period_of_30_days(now, ZONE)
        archive = bill_archive.build("edge-paris", start, end, time_zone=ZONE)
        yield archive, start, end
        Sample.objects.filter(switch_id=archive.switch.id).delete()
        PollLog.objects.filter(switch_id=archive.switch.id).delete()
        Bill.objects.all().delete()
        Switch.objects.filter(id=archive.switch.id).delete()


def make_bill(archive, name: str, **kw) -> Bill:
    group = edit.save(edit.spec_from(f"{name}-ports", "", "switch=edge-paris"))
    start = bill_archive.period_of_30_days(compute.db_now(), ZONE)[0]
    fields = {"billing_day": 1, "mode": "p95", "direction": "max",
              "starts": start.astimezone(ZoneInfo(ZONE)).date()} | kw
    return Bill.objects.create(name=name, group=group, **fields)


def reference(archive, start, end, width=300):
    keys_in = [(k, "in") for k in bill_archive.PORTS]
    keys_out = [(k, "out") for k in bill_archive.PORTS]
    vin = bill_archive.truth_bins(archive, start, end, width, keys_in)
    vout = bill_archive.truth_bins(archive, start, end, width, keys_out)
    rin, rout = vin * 8 / width, vout * 8 / width
    p = lambda x: float(np.percentile(x, 95, method="inverted_cdf"))  # noqa: E731
    return {"in": p(rin), "out": p(rout), "max": max(p(rin), p(rout)), "sum": p(rin + rout),
            "vol_in": vin.sum(), "vol_out": vout.sum()}


def close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * abs(b)


@pytest.mark.django_db
def test_every_mode_within_a_tenth_of_a_percent_of_the_reference(month):
    archive, start, end = month
    assert end - start == timedelta(days=30)
    bill = make_bill(archive, "acme")
    c = compute.compute(bill, start, end)
    assert c.zone == ZONE and c.as_of == end
    ref = reference(archive, start, end)
    f = c.figures
    assert f.intervals == 30 * 288 and f.measured == f.intervals
    for rule in ("in", "out", "max", "sum"):
        assert close(f.p95(rule), ref[rule]), (rule, f.p95(rule), ref[rule])
    vin, vout = ref["vol_in"], ref["vol_out"]
    for rule, truth in (("in", vin), ("out", vout), ("max", max(vin, vout)), ("sum", vin + vout)):
        assert close(f.volume(rule), truth), (rule, f.volume(rule), truth)
    # the data really has what the rule is about: a wrap every ~2 minutes, the reboot, the gap
    with transaction.atomic():
        from django.db import connection

        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FILTER (WHERE f & 1 <> 0), count(*) FILTER (WHERE f & 2 <> 0), "
                        "count(*) FILTER (WHERE f & 64 <> 0), count(*) FILTER (WHERE f & 128 <> 0) "
                        "FROM traffic_sample s, unnest(s.flags) f WHERE s.switch_id = %s", [archive.switch.id])
            wraps, reboots, gaps, ambiguous = cur.fetchone()
    assert wraps > 10_000 and reboots == 6 and gaps == 6 and ambiguous == 2


def csv_reference(client, archive, start, end, width=300) -> dict:
    """The 95th percentile from the raw CSV export alone: each drawn delta (rate column present)
    spread over (time - interval, time], summed per 5 minutes, nearest rank."""
    ids = ",".join(map(str, archive.ids()))
    q = (f"/traffic/export.csv?s={ids}&raw=1&start={(start - timedelta(hours=1)).isoformat()}"
         f"&end={(end + timedelta(hours=1)).isoformat()}").replace("+", "%2B")
    r = client.get(q)
    assert r.status_code == 200, r.content[:300]
    rows = list(csv.reader(io.StringIO(b"".join(r.streaming_content).decode())))
    header, body = rows[0], rows[1:]
    n = math.ceil((end - start).total_seconds() / width)
    lo = start.timestamp()
    bins = {"in": [0.0] * n, "out": [0.0] * n}
    measured = [False] * n
    from collector.core.isotime import parse_iso

    groups = [(i, "in" if " Receive " in header[i] + " " else "out") for i in range(1, len(header), 4)]
    for row in body:
        t = parse_iso(row[0]).timestamp()
        for i, direction in groups:
            if not row[i]:                      # no rate: not drawn (first, reboot, ambiguous)
                continue
            delta, interval = int(row[i + 1]), float(row[i + 2])
            a, b = t - interval, t
            k = max(0, int((a - lo) // width))
            while k < n and lo + k * width < b:
                overlap = min(b, lo + (k + 1) * width) - max(a, lo + k * width)
                if overlap > 0:
                    bins[direction][k] += delta * overlap / interval
                    measured[k] = True
                k += 1
    rates = {d: [v * 8 / width for v, m in zip(bins[d], measured) if m] for d in bins}
    rates["sum"] = [(vi + vo) * 8 / width for vi, vo, m in zip(bins["in"], bins["out"], measured) if m]

    def rank95(values):
        values = sorted(values)
        return values[math.ceil(0.95 * len(values)) - 1]

    return {d: rank95(v) for d, v in rates.items()}


@pytest.mark.django_db
def test_the_95th_equals_an_independent_computation_from_the_raw_csv(month, client):
    archive, start, end = month
    bill = make_bill(archive, "csvcheck")
    f = compute.compute(bill, start, end).figures
    ref = csv_reference(client, archive, start, end)
    assert close(f.p95_in, ref["in"]) and close(f.p95_out, ref["out"]) and close(f.p95_sum, ref["sum"]), (f, ref)
    assert close(f.p95("max"), max(ref["in"], ref["out"]))


@pytest.mark.django_db
def test_identical_after_a_re_rollup_and_a_closed_period_is_frozen(month, client):
    archive, start, end = month
    bill = make_bill(archive, "frozen", mode="quota", direction="sum", quota_bytes=10**14)
    before = compute.compute(bill, start, end).figures
    rollup.run(budget_s=600)
    rollup.recompute(start, end)
    after = compute.compute(bill, start, end).figures
    assert after == before
    report = closing.run(now=end + timedelta(hours=2))
    assert report["closed"] == 1 and not report["failed"], report
    period = Period.objects.get(bill=bill, start=start)
    assert period.closed and period.volume_bytes == before.volume("sum") and period.over == max(
        0, before.volume("sum") - 10**14)
    assert len(period.bins_in) == 8640 and period.zone == ZONE
    # a later run does not touch it; the database refuses to
    closing.run(now=end + timedelta(hours=3))
    assert Period.objects.get(pk=period.pk).computed_at == period.computed_at
    with pytest.raises(DatabaseError, match="is closed: it is never recomputed"), transaction.atomic():
        Period.objects.filter(pk=period.pk).update(volume_bytes=0)
    body = client.get(f"/bills/api/{bill.id}").json()
    closed = [p for p in body["periods"] if p["closed"]]
    assert closed and closed[0]["volume_bytes"] == before.volume("sum") and closed[0]["start"] == \
        start.isoformat().replace("+00:00", "Z")
