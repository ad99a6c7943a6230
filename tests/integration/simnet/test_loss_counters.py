"""The ATM loss and health counters, end to end: cells lost at known hops of the simulated network
(simnet/losses.py, a model parameter) are polled, archived and found by switch, port, VP/VC, metric
and direction, with the counts the injection says, at the hop where they were lost; the hops after
it count the cells that are left. This is what the loss localisation of a VCC path reads.
"""
from __future__ import annotations

import shutil
import time

import pytest
from django.core.management import call_command

from collector.archive.models import Layout, Sample, Series
from collector.inventory.models import Switch
from collector.poller import runner
from simnet.losses import Loss
from simnet.network import HOUDINI_TO_MAUCHLY, MAUCHLY_TO_HOUDINI, build_network
from simnet.runner import SimNetwork, find_free_base_port
from tests.support.simnet_lab import make_state_dir

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.timeout(900)]

LOSSES = (
    # mauchly -> houdini, first hop: asx200bx-b loses 400 cells/s at its output buffer toward A4 (a
    # shared-memory module: per output VC too); asx200bx, the next hop, receives 400 fewer.
    Loss("asx200bx-b", "A1", 0, 210, 400, "overflow"),
    # houdini -> mauchly: 900 cells/s lost on the trunk into asx200bx-b A4 (HEC): no FORE counter,
    # the hops' cell counts differ (by 3 %, more than a time-shared estimate could).
    Loss("asx200bx-b", "A4", 0, 210, 900, "line"),
    # gandalf -> wan: asx200bx polices 100 cells/s at A2 (chanRejectedCells); atm2sw gets 100 fewer.
    Loss("asx200bx", "A2", 0, 100, 100, "discard"),
    # cardini -> wan: 250 cells/s lost on the link into atm2sw atm1/0/0 (ifInErrors, OCD events).
    Loss("atm2sw", "atm1/0/0", 0, 120, 250, "line"),
    # houdini -> wan: atm2sw polices 600 cells/s at atm1/0/0 (TotalDiscards, Clp0Discards, ifInDiscards).
    Loss("atm2sw", "atm1/0/0", 0, 140, 600, "discard"),
    # ... and tags 90 CLP=0 cells/s CLP=1 on the same VC (Clp0Tagged; fewer CLP0 cells out).
    Loss("atm2sw", "atm1/0/0", 0, 140, 90, "tag"),
    # EDC -> NCSA: 150 cells/s lost at atm2sw's output toward atm3/0/0 (ifOutDiscards).
    Loss("atm2sw", "atm1/0/2", 0, 300, 150, "overflow"),
    # wan -> gandalf: 70 cells/s arrive at atm1/0/1 on a VPI/VCI nobody set up (ifInUnknownProtos);
    # asx200bx, two hops on, receives 70 fewer on D1 0/100.
    Loss("atm2sw", "atm1/0/1", 0, 100, 70, "unknown"),
    # AAL5 PDUs with CRC errors on atm2sw's own management VCC.
    Loss("atm2sw", "atm1/0/1", 0, 32, 2, "crc"),
)


@pytest.fixture(scope="module")
def lossy():
    state = make_state_dir("losses")
    network = build_network(losses=LOSSES, shmem=(("asx200bx-b", "A4"),))
    net = SimNetwork(state, find_free_base_port(5), network=network,
                     switches=["asx200bx", "asx200bx-b", "atm2sw"])
    net.start()
    yield net
    net.stop()
    shutil.rmtree(state, ignore_errors=True)


@pytest.fixture
def polled(lossy):
    call_command("seed_simnet", "--manifest", str(lossy.state_dir / "manifest.json"), "--interval", "5")
    switches = list(Switch.objects.filter(name__in=["asx200bx", "asx200bx-b", "atm2sw"]))
    lossy.polled_at = []
    for i in range(3):
        if i:
            time.sleep(10)
        for sw in switches:
            result = runner.poll_once(sw.id)
            assert result.ok
        lossy.polled_at.append(result.result.at)
    return lossy


def series(switch: str, port: str, metric: str, direction: str, vpi: int | None = None, vci: int | None = None,
           object_name: str | None = None) -> Series:
    """The one series named by switch, port, VP/VC, metric and direction: what a loss localisation reads."""
    qs = Series.objects.filter(switch__name=switch, port__name=port, metric=metric, direction=direction,
                               kind="counter")
    if vci is not None:
        qs = qs.filter(vc__vpi=vpi, vc__vci=vci)
    elif vpi is not None:
        qs = qs.filter(vp__vpi=vpi, vc__isnull=True)
    else:
        qs = qs.filter(vp__isnull=True, vc__isnull=True)
    if object_name:
        qs = qs.filter(object_name=object_name)
    [s] = qs
    return s


def archived_rate(s: Series) -> float:
    """Its archived rate over the last two poll intervals (20 s)."""
    rows = list(Sample.objects.filter(switch_id=s.switch_id).order_by("-time")[:2])
    total = seconds = 0.0
    for row in rows:
        pos = Layout.objects.get(pk=row.layout_id).series_ids.index(s.id)
        assert row.delta[pos] is not None, s
        total += row.delta[pos]
        seconds += row.interval_ms / 1000
    return total / seconds


def truth(manifest: dict, switch: str, object_name: str, index: str) -> int:
    [t] = [t for e in manifest["switches"] if e["name"] == switch for t in e["series"]
           if (t["object"], t["index"]) == (object_name, index)]
    return t["rate"]


def counts(manifest: dict, cells_per_s: int, switch: str, port: str, metric: str, direction: str,
           vpi: int | None = None, vci: int | None = None, object_name: str | None = None) -> None:
    """The series counts `cells_per_s`: exactly, as the simulated agent serves it (the manifest's
    truth), and as archived (within 1 %, or 2/s: when within a poll the agent read the counter)."""
    s = series(switch, port, metric, direction, vpi, vci, object_name)
    served = truth(manifest, switch, s.object_name, s.index)
    assert served == cells_per_s, (s, served, cells_per_s)
    assert archived_rate(s) == pytest.approx(cells_per_s, rel=0.01, abs=2), s


def test_losses_at_a_fore_hop_are_counted_there_and_missing_after(polled):
    m = polled.manifest
    # overflow at asx200bx-b toward A4: hwPortOverflows of A4, and the shared-memory module's output VC
    counts(m, 400, "asx200bx-b", "A4", "overflow_cells", "out")
    counts(m, 400, "asx200bx-b", "A4", "lost_cells", "out", 0, 210)
    counts(m, 400, "asx200bx-b", "A4", "lost_cells", "out", object_name="portShmem3OverflowLostCells")
    counts(m, MAUCHLY_TO_HOUDINI, "asx200bx-b", "A1", "cells", "in", 0, 210)         # counted in
    counts(m, MAUCHLY_TO_HOUDINI - 400, "asx200bx-b", "A4", "cells", "out", 0, 210)  # not out
    counts(m, MAUCHLY_TO_HOUDINI - 400, "asx200bx", "A4", "cells", "in", 0, 210)     # the next hop
    # the line loss into asx200bx-b A4 (houdini -> mauchly): sent by asx200bx, never received
    counts(m, HOUDINI_TO_MAUCHLY - 900, "asx200bx-b", "A4", "cells", "in", 0, 210)
    sent, received = truth(m, "asx200bx", "portTransmittedCells", "3"), truth(m, "asx200bx-b", "portReceivedCells", "3")
    assert sent - received == 900
    counts(m, sent, "asx200bx", "A4", "cells", "out")
    counts(m, received, "asx200bx-b", "A4", "cells", "in")
    # policing at asx200bx A2 (gandalf -> wan): rejected there, 100 fewer at atm2sw
    counts(m, 100, "asx200bx", "A2", "rejected_cells", "in", 0, 100)
    counts(m, 60000, "asx200bx", "A2", "cells", "in", 0, 100)


def test_losses_at_an_atm2_hop_are_counted_there_and_missing_after(polled):
    m = polled.manifest
    counts(m, 60000 - 100, "atm2sw", "atm1/0/0", "cells", "in", 0, 100)             # after asx200bx's discard
    # line errors into atm1/0/0 on 0/120: ifInErrors and OCD events of the interface, fewer cells in
    counts(m, 250, "atm2sw", "atm1/0/0", "errors", "in")
    counts(m, 250 // 7, "atm2sw", "atm1/0/0", "ocd_events", "in")
    counts(m, 20000 - 250, "atm2sw", "atm1/0/0", "cells", "in", 0, 120)
    # policing on 0/140: discards (all CLP=0) counted in, not out; the interface's ifInDiscards
    counts(m, 600, "atm2sw", "atm1/0/0", "discards", "in", 0, 140)
    counts(m, 600, "atm2sw", "atm1/0/0", "clp0_discards", "in", 0, 140)
    counts(m, 600, "atm2sw", "atm1/0/0", "discards", "in")
    counts(m, 90000, "atm2sw", "atm1/0/0", "cells", "in", 0, 140)
    counts(m, 90000 - 600, "atm2sw", "atm1/0/1", "cells", "out", 0, 140)
    # tagging: 90 CLP=0 cells/s become CLP=1; all still leave
    counts(m, 90, "atm2sw", "atm1/0/0", "tagged_cells", "in", 0, 140)
    counts(m, 90000 - 600 - 90, "atm2sw", "atm1/0/1", "clp0_cells", "out", 0, 140)
    # output loss toward atm3/0/0: ifOutDiscards there, fewer cells out of 0/300
    counts(m, 150, "atm2sw", "atm3/0/0", "discards", "out")
    counts(m, 4000, "atm2sw", "atm1/0/2", "cells", "in", 0, 300)
    counts(m, 4000 - 150, "atm2sw", "atm3/0/0", "cells", "out", 0, 300)
    # unknown VPI/VCI at atm1/0/1: the interface counts them, the VCL and asx200bx D1 do not
    counts(m, 70, "atm2sw", "atm1/0/1", "unknown_cells", "in")
    counts(m, 110000 - 70 + 3, "atm2sw", "atm1/0/1", "cells", "in", 0, 100)    # + the 3/s it always polices
    counts(m, 110000 - 70, "asx200bx", "D1", "cells", "in", 0, 100)
    # AAL5 CRC errors on the management VCC
    counts(m, 2, "atm2sw", "atm1/0/1", "crc_errors", "in", 0, 32)


def test_the_manifest_records_the_losses(lossy):
    assert [Loss(**loss) for loss in lossy.manifest["losses"]] == list(LOSSES)


def _account(net, src: str, dst: str):
    from datetime import UTC, datetime

    from webapp.status import hopcount
    from webapp.status import queries as q
    data = q.load_network(rates=False)
    hosts = {h.name: h for h in data.net.hosts.values()}
    trace = data.net.connection(hosts[src], hosts[dst]).forward[0]
    lo = datetime.fromtimestamp(net.polled_at[0] + 1, UTC)
    hi = datetime.fromtimestamp(net.polled_at[-1] - 1, UTC)
    return hopcount.account(data.net, q.series_index({h.switch.id for h in trace.hops}), trace, lo, hi), lo, hi


def test_the_path_names_the_counter_that_explains_missing_cells(polled, client):
    """mauchly -> houdini loses 400 cells/s inside its first hop (asx200bx-b's output buffer toward
    A4): the accounting finds the cells missing there, and the shared-memory module's lost-cell
    counter of the output VC explains them; the second hop has nothing to explain."""
    hops, lo, hi = _account(polled, "mauchly-atm.ukans", "houdini.tioc")
    assert [h.hop.switch.name for h in hops] == ["asx200bx-b", "asx200bx"]
    first, second = hops
    seconds = (hi - lo).total_seconds()
    assert first.missing.startswith("hop 1 (asx200bx-b): "), first.missing
    assert "asx200bx-b A4 VC 0/210 counted" in first.missing and "lost" in first.missing, first.missing
    missing = first.cells_in.count.estimate - first.cells_out.count.estimate
    assert missing == pytest.approx(400 * seconds, rel=0.1)
    lost = {(lc.where, lc.metric): lc.count.estimate for lc in first.losses}
    assert lost[("asx200bx-b A4 VC 0/210", "lost_cells")] == pytest.approx(400 * seconds, rel=0.1)
    assert lost[("asx200bx-b A4", "overflow_cells")] == pytest.approx(400 * seconds, rel=0.1)
    assert second.missing == "" and second.link_missing == "", second.findings
    page = client.get("/path/", {"src": "mauchly-atm.ukans", "dst": "houdini.tioc",
                                 "acc_start": lo.isoformat(), "acc_end": hi.isoformat()}).content.decode()
    assert 'id="loss-findings"' in page and "hop 1 (asx200bx-b)" in page
    assert "loss and error counters here" in page


def test_a_line_loss_on_a_fore_trunk_is_found_by_the_counts_alone(polled):
    """houdini -> mauchly loses 900 cells/s on the trunk into asx200bx-b A4: the cells asx200bx sent
    never arrive, and no counter of a FORE port says why; the verdict says so."""
    hops, lo, hi = _account(polled, "houdini.tioc", "mauchly-atm.ukans")
    assert [h.hop.switch.name for h in hops] == ["asx200bx", "asx200bx-b"]
    assert hops[0].findings == [], hops[0].findings
    verdict = hops[1].link_missing
    assert verdict.startswith("link into hop 2: ") and "counts no line errors" in verdict, verdict
    assert "counted in at hop 1" in verdict, verdict
    assert hops[1].missing == ""


def test_a_run_over_the_lossy_path_localises_its_loss(polled, client):
    """The seed's accounting, lossy: an application sends over mauchly -> houdini what the first hop
    counts in (cells x 48 bytes); the run's cells in at hop 1 are consistent with it, and the run
    page, JSON and CSV name hop 1 and the counter of the cells lost there, none elsewhere."""
    import csv
    import io
    from datetime import UTC, datetime

    from collector.runs.models import ExperimentRun
    from tests.support.users import make_user

    lo = datetime.fromtimestamp(polled.polled_at[0] + 1, UTC)
    hi = datetime.fromtimestamp(polled.polled_at[-1] - 1, UTC)
    sent = int(MAUCHLY_TO_HOUDINI * (hi - lo).total_seconds() * 48)
    call_command("run", "add", "sc95-lossy", "--start", lo.isoformat(), "--end", hi.isoformat(),
                 "--src", "mauchly-atm.ukans", "--dst", "houdini.tioc", "--bytes", str(sent))
    run = ExperimentRun.objects.get(name="sc95-lossy")
    client.force_login(make_user("viewer-lossy", "viewer"))
    data = client.get(f"/runs/api/{run.id}").json()
    assert "hops" in data, data
    first, second = data["hops"]
    assert first["in"]["cells"]["verdict"] == "consistent", first["in"]["cells"]
    assert len(first["findings"]) == 1 and first["findings"][0].startswith("hop 1 (asx200bx-b): ")
    assert "asx200bx-b A4 VC 0/210 counted" in first["findings"][0]
    assert second["findings"] == []
    lost = {(x["where"], x["metric"]) for x in first["losses"]}
    assert ("asx200bx-b A4 VC 0/210", "lost_cells") in lost and ("asx200bx-b A4", "overflow_cells") in lost
    page = client.get(f"/runs/{run.id}/").content.decode()
    assert 'id="loss-findings"' in page and "hop 1 (asx200bx-b)" in page
    text = client.get(f"/runs/{run.id}/accounting.csv").content.decode()
    assert "# hop 1 (asx200bx-b): " in text
    rows = list(csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#")))
    assert {(r["port"], r["series"]) for r in rows if r["part"] == "loss" and r["hop"] == "1"} >= \
        {("asx200bx-b A4 VC 0/210", "lost_cells"), ("asx200bx-b A4", "overflow_cells")}


@pytest.mark.parametrize("form, fires_on", [
    # lost cells at the output of any VC of asx200bx-b: 400/s at A4 0/210, nothing anywhere else
    ({"scope": "switch", "switch": "asx200bx-b", "entity": "vc", "metric": "lost_cells"},
     {("asx200bx-b", "A4", "out")}),
    # line errors into atm2sw's interfaces: 250/s at atm1/0/0; a pattern's metric= wins over the rule's
    ({"scope": "pattern", "pattern": "switch=atm2sw metric=errors", "metric": "discards"},
     {("atm2sw", "atm1/0/0", "in")}),
])
def test_alerts_on_loss_counters(polled, form, fires_on):
    """A rate rule on a loss counter watches that counter, not the traffic: it fires where the
    injected loss is and nowhere else, with the counter's rate and unit."""
    from django.utils import timezone

    from collector.alerts import evaluate, rules
    from collector.alerts.models import State

    rule = rules.save({"name": "losses", "kind": "rate", "direction": "both", "unit": "rate", "threshold": "20",
                       "window_minutes": "0", **form}, [])
    evaluate.evaluate_rule(rule, timezone.now(), 1000)
    states = State.objects.filter(rule=rule)
    assert states.exists()
    firing = {}
    for state in states.filter(state="firing"):
        assert state.object_kind == "series", state
        watched = Series.objects.get(pk=state.object_id)
        assert watched.metric == form.get("pattern", "").split("metric=")[-1] if "pattern" in form else form["metric"]
        firing[(watched.switch.name, watched.port.name, watched.direction)] = state
    assert set(firing) == fires_on, firing
    for s in firing.values():
        assert s.unit == "cells/s" and 100 < s.value < 1000, (s.value, s.unit)
