"""Adding a device = its MIB texts and one profile file, no code: a vendor module Cellar does not
ship (CISCO-ATM-EXT-MIB, tests/data/mibs/, from netdisco-mibs) is compiled by the documented
command, a profile names its objects as MODULE::object, and an agent built by code from the
compiled module answers them. The switch is recognised by its sysObjectID, discovered, polled;
the vendor's per-VC OAM counters are archived at their known rates on the right VCs, plotted by
the JSON API and exported as CSV.
"""
from __future__ import annotations

import csv
import io
import textwrap
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from collector.archive.models import Series
from collector.core import profiles
from collector.inventory.models import Switch, VirtualChannel
from collector.poller import runner
from simnet import recording, vendor
from simnet.atm_model import AtmIf, AtmSwitch, AtmVcXc
from simnet.serve import RecordingServer
from tests.support.simnet_lab import make_state_dir

ROOT = Path(__file__).resolve().parents[3]
MIB = ROOT / "tests" / "data" / "mibs" / "CISCO-ATM-EXT-MIB.my"
SYS_OID = "1.3.6.1.4.1.9.1.4242"          # a Cisco-registered arc (9.1): a product Cellar knows nothing of
PROFILE = textwrap.dedent(f"""\
    # A Cisco ATM switch answering CISCO-ATM-EXT-MIB: per-VC OAM cells (tests only).
    name: cisco-atm-oam
    title: Cisco ATM (OAM cells)
    description: exists only in tests/integration/simnet/test_vendor_mib.py
    detect: {{sys_object_ids: [{SYS_OID}], probe: CISCO-ATM-EXT-MIB::catmxVclOamCellsReceived, probe_order: 15}}
    uptime: [SNMPv2-MIB::sysUpTime]
    entities: {{port: 1, vp: 2, vc: 3}}
    counters:
      - {{object: ATM2-MIB::atmVclStatTotalCellIns, entity: vc, direction: in, metric: cells, unit: cells}}
      - {{object: ATM2-MIB::atmVclStatTotalCellOuts, entity: vc, direction: out, metric: cells, unit: cells}}
      - {{object: CISCO-ATM-EXT-MIB::catmxVclOamCellsReceived, entity: vc, direction: in, metric: oam_cells,
          unit: cells}}
      - {{object: CISCO-ATM-EXT-MIB::catmxVclOamCellsSent, entity: vc, direction: out, metric: oam_cells, unit: cells}}
      - {{object: CISCO-ATM-EXT-MIB::catmxVclOamCellsDropped, entity: vc, direction: in, metric: oam_dropped,
          unit: cells}}
    discovery:
      parser: atm2
      columns: [IF-MIB::ifDescr, IF-MIB::ifType, IF-MIB::ifSpeed, IF-MIB::ifAdminStatus, IF-MIB::ifOperStatus,
                IF-MIB::ifName, ATM-MIB::atmVclOperStatus, ATM-MIB::atmVcCrossConnectL2HOperStatus,
                ATM-MIB::atmVcCrossConnectH2LOperStatus]
    """)
OAM = {"catmxVclOamCellsReceived": 40, "catmxVclOamCellsSent": 30, "catmxVclOamCellsDropped": 3}


def oam_rate(name: str, index: tuple[int, ...]) -> int:
    """Cells/s of each vendor counter, different per VCL (ifIndex, VPI, VCI): the truth."""
    return OAM.get(name, 1) + index[0]


def switch() -> AtmSwitch:
    return AtmSwitch(
        name="vendorsw", sys_name="ls1010.example", sys_descr="Cisco LightStream 1010 (simulated)",
        sys_location="lab", mgmt_address="127.0.0.1", uptime_ticks=360000,
        interfaces=(AtmIf(1, "ATM0/0/0", "oc3"), AtmIf(2, "ATM0/0/1", "oc3")),
        vc_xcs=(AtmVcXc(1, 1, 0, 100, 2, 0, 100, 5000, 2000, 10_000, 20_000),
                AtmVcXc(2, 1, 0, 101, 2, 0, 101, 700, 300, 30_000, 40_000)),
        vp_xcs=(), terminated=(), traffic_descrs=(), sys_object_id=SYS_OID, profile="cisco-atm-oam")


@pytest.fixture
def site(tmp_path):
    """The operator's profile directory (CELLAR_PROFILE_DIRS): the vendor module compiled into it by
    `manage.py mib add --into`, and the profile beside it. mibs/ itself is left as shipped."""
    directory = tmp_path / "site"
    directory.mkdir()
    out = io.StringIO()
    call_command("mib", "add", str(MIB), "--into", str(directory), stdout=out)
    assert "CISCO-ATM-EXT-MIB: 28 objects" in out.getvalue()
    (directory / "cisco-atm-oam.yaml").write_text(PROFILE)
    profiles.use_directories([directory])       # what start-up does with CELLAR_PROFILE_DIRS
    yield directory
    profiles.use_directories([])


@pytest.mark.timeout(600)
@pytest.mark.django_db(transaction=True)
def test_a_vendor_mib_added_by_the_command_is_polled_archived_plotted_and_exported(site, client, tmp_path):
    sw = switch()
    vcls = [(v.ifindex, v.vpi, v.vci) for v in sw.vcls()]
    state = make_state_dir("vendor")
    data = state / "data"
    data.mkdir()
    records = recording.switch_records(sw) + vendor.records("CISCO-ATM-EXT-MIB", {3: vcls}, rate=oam_rate)
    records.sort(key=lambda r: r.oid)
    (data / "vendorsw.snmprec").write_text(recording.render(records, int(time.time())))
    with RecordingServer(data, state / "cache") as server:
        call_command("add_switch", "--no-check", "vendorsw", "127.0.0.1", "--port", str(server.port), "--community",
                     "vendorsw", "--profile", "auto", "--interval", "2", stdout=io.StringIO())
        call_command("discover", "vendorsw", stdout=io.StringIO())
        switch_row = Switch.objects.get(name="vendorsw")
        assert switch_row.effective_profile == "cisco-atm-oam"            # by its sysObjectID
        assert VirtualChannel.objects.filter(switch=switch_row).count() == len(vcls)
        first = runner.poll_once(switch_row.id)
        time.sleep(4)
        second = runner.poll_once(switch_row.id)
        assert first.status == second.status == "ok", (first, second)
    dropped = Series.objects.filter(switch=switch_row, object_name="catmxVclOamCellsDropped").select_related("vc")
    assert {(s.vc.port.if_index, s.vc.vpi, s.vc.vci) for s in dropped} == set(vcls)   # on the right VCs
    assert {s.metric for s in Series.objects.filter(switch=switch_row)} >= {"oam_cells", "oam_dropped", "cells"}
    for s in dropped:
        body = client.get(f"/traffic/api/data?s={s.id}&range=1h&res=raw").json()
        [line] = body["series"]
        rates = [r for r in line["points"]["avg"] if r is not None]
        truth = oam_rate("catmxVclOamCellsDropped", (s.vc.port.if_index, s.vc.vpi, s.vc.vci))
        assert rates and all(abs(r - truth) <= 0.25 * truth for r in rates), (rates, truth)
        assert line["label"].endswith("oam_dropped") and line["object_name"] == "catmxVclOamCellsDropped"
    out = tmp_path / "vc.csv"
    call_command("export_csv", "--switch", "vendorsw", "--port", "ATM0/0/0", "--vpi", "0", "--vci", "101",
                 "--metric", "oam_dropped", "--resolution", "raw", "--output", str(out))
    rows = list(csv.reader(out.open()))
    assert len(rows) >= 2 and "oam_dropped" in ",".join(rows[0]), rows[0]
