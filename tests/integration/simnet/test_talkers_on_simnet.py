"""Top talkers and a bill end to end: a simulated 48-port IP switch serving counters at known rates
(simnet's manifest) -> Cellar's polls -> the archive -> the rollup -> the talkers API and page,
and a bill's estimate. The ports the simulator makes heaviest rank first, at their rates."""
from __future__ import annotations

import shutil
import time
from datetime import timedelta

import pytest
from django.core.management import call_command

from collector.archive import rollup
from collector.archive.models import Series
from collector.billing import closing
from collector.billing.models import Bill, Period
from collector.groups import edit
from collector.inventory.models import Switch
from collector.poller import runner
from simnet.runner import SimNetwork, find_free_base_port
from tests.support.simnet_lab import make_state_dir

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.timeout(600)]
POLL_S = 5
POLLS = 31          # 150 s: at least two whole minutes of data for a bill's 1-minute intervals


@pytest.fixture(scope="module")
def lab():
    state = make_state_dir("talkers")
    network = SimNetwork(state, find_free_base_port(1), hosts=False, switches=["ipsw48"])
    network.start()
    yield network
    network.stop()
    shutil.rmtree(state, ignore_errors=True)


def truth(lab, obj: str) -> dict[str, int]:
    """ifIndex -> the simulated rate of one column of ipsw48."""
    entry = next(e for e in lab.manifest["switches"] if e["name"] == "ipsw48")
    return {t["index"]: t["rate"] for t in entry["series"] if t["object"] == obj}


def test_known_heavy_ports_rank_first_from_poll_to_page(lab, client):
    call_command("seed_simnet", "--manifest", str(lab.state_dir / "manifest.json"), "--interval", str(POLL_S))
    sw = Switch.objects.get(name="ipsw48")
    started = rollup.db_now()
    for i in range(POLLS):
        due = time.monotonic() + POLL_S
        assert runner.poll_once(sw.id).ok
        if i < POLLS - 1:
            time.sleep(max(0.0, due - time.monotonic()))
    rollup.run(budget_s=60)
    window = (f"start={(started - timedelta(minutes=1)).isoformat()}&"
              f"end={(rollup.db_now() + timedelta(minutes=1)).isoformat()}").replace("+", "%2B")
    rate_in = truth(lab, "ifHCInOctets")
    heaviest = sorted(rate_in, key=lambda k: -rate_in[k])

    body = client.get(f"/talkers/api?{window}&switch=ipsw48&direction=in&n=4").json()
    ranked = [Series.objects.get(pk=r["series_id"]).index for r in body["rows"]]
    assert ranked == heaviest[:4] and ranked[:3] == ["47", "48", "45"], (ranked, heaviest[:6])
    for row, index in zip(body["rows"], ranked):
        assert row["average"] == pytest.approx(rate_in[index] * 8, rel=0.01), index
    assert body["other"]["count"] == 44 and body["in_scope"] == 48

    by_p95 = client.get(f"/talkers/api?{window}&direction=in&by=p95&n=2").json()      # network-wide
    assert [Series.objects.get(pk=r["series_id"]).index for r in by_p95["rows"]] == ["47", "48"]
    assert by_p95["rows"][0]["p95"] == pytest.approx(rate_in["47"] * 8, rel=0.02)
    # in % of capacity the 1 Gb/s fileserver port (880 Mb/s) beats the 10 Gb/s uplinks (36 %)
    pct = client.get(f"/talkers/api?{window}&direction=in&unit=pct&n=1").json()["rows"][0]
    assert Series.objects.get(pk=pct["series_id"]).index == "45"
    assert pct["value"] == pytest.approx(rate_in["45"] * 8 / 1e9 * 100, rel=0.01)
    # errors and discards, ranked like traffic: port 7 has 2 errors/s in; port 45 discards 5/s in
    errors = client.get(f"/talkers/api?{window}&metric=errors&n=1").json()["rows"][0]
    assert Series.objects.get(pk=errors["series_id"]).index == "7" and errors["average"] == pytest.approx(2, rel=0.05)
    discards = client.get(f"/talkers/api?{window}&metric=discards&n=2").json()["rows"]
    assert [(Series.objects.get(pk=r["series_id"]).index, r["direction"]) for r in discards] == [
        ("45", "in"), ("47", "out")]
    page = client.get(f"/talkers/?{window}&switch=ipsw48&direction=in&n=4")
    assert page.status_code == 200 and "uplink core-a" in page.content.decode()

    # a bill on the two uplinks: its 95th of 1-minute intervals is their summed inbound rate
    uplinks = [r["series_id"] for r in body["rows"][:2]]
    group = edit.save(edit.spec_from("uplinks-in", uplinks, []))
    bill = Bill.objects.create(name="core", group=group, starts=started.date(), direction="in",
                               sample_interval_s=60)
    # a clock two minutes on: the estimate reaches past the last poll (however long this test's
    # requests took on a loaded machine), so every minute polled is in, a whole one among them
    report = closing.run(now=rollup.db_now() + timedelta(minutes=2))
    assert not report["failed"], report
    period = Period.objects.get(bill=bill, closed=False)
    assert period.measured >= 3
    assert period.p95_bps == pytest.approx((rate_in["47"] + rate_in["48"]) * 8, rel=0.01)
