"""A group plotted (g=): its members stacked with a total line whose every point is the sum of the
members' columns in the CSV of the same selection (averages to the float, volumes exactly)."""
from __future__ import annotations

import csv
import io

import pytest

from collector.groups import edit
from tests.support import traffic_factory as f
from tests.support.traffic_network import RX, TX, VC_RATES

pytestmark = pytest.mark.django_db(transaction=True)


def rows(client, url: str) -> tuple[list[str], list[list[str]]]:
    r = client.get(url)
    assert r.status_code == 200, r.content[:300]
    data = list(csv.reader(io.StringIO(b"".join(r.streaming_content).decode())))
    return data[0], data[1:]


def test_a_groups_total_equals_the_csv_sum_of_its_members(net, client):
    members = [net.rx, net.tx, *net.vcs]
    g = edit.save(edit.spec_from("asx-1 A1", "", "switch=asx-1 port=A1 entity=any"))
    body = client.get(f"/traffic/api/data?g={g.id}&range=24h&res=15m").json()
    assert {s["id"] for s in body["series"]} == {m.id for m in members} and body["stack"] is True
    total = body["group"]["total"]
    assert body["group"]["name"] == "asx-1 A1" and total["members"] == 5 and total["total_unit"] == "cells"
    ids = ",".join(str(s["id"]) for s in body["series"])
    header, lines = rows(client, f"/traffic/export.csv?s={ids}&range=24h&res=15m")
    avg_cols = [i for i, h in enumerate(header) if h.endswith("average [cells/s]")]
    tot_cols = [i for i, h in enumerate(header) if h.endswith(" total [cells]")]
    assert len(avg_cols) == len(tot_cols) == 5
    by_time = {line[0]: line for line in lines}
    points = total["points"]
    assert len(points["t"]) == len(lines)
    for t, avg, tot in zip(points["t"], points["avg"], points["total"]):
        line = by_time[t]
        csv_avg = [float(line[i]) for i in avg_cols if line[i]]
        assert tot == sum(int(line[i]) for i in tot_cols if line[i])               # exact
        assert (avg is None) == (not csv_avg)
        if csv_avg:
            assert avg == pytest.approx(sum(csv_avg), rel=1e-12)
    # the steady rates of the fixture: the full buckets sum to the known total
    full = [a for a in points["avg"] if a is not None and abs(a - (RX + TX + sum(VC_RATES))) < 1]
    assert len(full) > 80
    assert total["average"] == pytest.approx(RX + TX + sum(VC_RATES), rel=1e-9)
    # the group's own CSV ends with the same total columns
    gheader, glines = rows(client, f"/traffic/export.csv?g={g.id}&range=24h&res=15m")
    assert gheader[-2:] == ["group asx-1 A1 total average [cells/s]", "group asx-1 A1 total [cells]"]
    for line in glines:
        assert int(line[-1] or 0) == sum(int(line[i]) for i in tot_cols if line[i])


def test_the_figure_draws_the_total_over_the_stack(net, client):
    g = edit.save(edit.spec_from("two", f"{net.rx.id} {net.tx.id}", ""))
    body = client.get(f"/traffic/api/data?g={g.id}&range=1h&figure=1&points=0").json()
    assert body["resolution"] == "1m"             # never raw samples: the total needs a common grid
    roles = [t.get("meta", {}).get("role") for t in body["figure"]["data"]]
    assert roles.count("total") == 1 and roles.count("average") == 2
    assert all(t.get("stackgroup") == "stack" for t in body["figure"]["data"] if t.get("meta", {}).get("role") ==
               "average")
    page = client.get(f"/traffic/?g={g.id}")
    assert page.status_code == 200 and '"group": {"id": ' in page.content.decode()


@pytest.mark.parametrize("query, message", [
    ("g=abc", "is not a group id"),
    ("g=987654", "no group 987654"),
    ("g={gid}&s={sid}", "not both"),
    ("g={gid}&res=raw", "1-minute or coarser buckets"),
])
def test_bad_group_requests(net, client, query, message):
    g = edit.save(edit.spec_from("one", f"{net.rx.id}", ""))
    r = client.get("/traffic/api/data?" + query.format(gid=g.id, sid=net.tx.id))
    assert r.status_code == 400 and message in r.json()["error"]


def test_a_group_too_big_to_stack_names_the_limit_and_an_empty_one_says_why(net, client):
    port = f.port(net.switch, "C1")
    for i in range(51):
        f.series(port, "in", channel=f.vc(port, 1, 200 + i))
    big = edit.save(edit.spec_from("many", "", "switch=asx-1 port=C1 entity=vc"))
    r = client.get(f"/traffic/api/data?g={big.id}")
    assert r.status_code == 400 and "has 51 member series; a plot stacks at most 50" in r.json()["error"]
    emptied = edit.save(edit.spec_from("emptied", f"{net.rx.id}", ""))
    net.port.gone_at = net.end           # its only member's port vanished from the agent since
    net.port.save()
    r = client.get(f"/traffic/api/data?g={emptied.id}")
    assert r.status_code == 400 and "has no members" in r.json()["error"]
