"""collector/groups: rule lines, resolve() against the real schema, saving and deleting with checks."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from collector.groups import edit, rules, tags
from collector.groups.models import Group
from collector.groups.resolve import EmptyGroup, GroupError, GroupNotFound, Spec, TooManyMembers, resolve
from collector.inventory.models import Host, Link
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db
NOW = datetime.now(UTC)


@pytest.fixture
def inv():
    """An ATM switch (two ports, VCs on VPI 0 and 5, a VP series) and an IP switch at another site."""
    asx = f.switch("asx-1")
    a1 = f.port(asx, "A1")
    b2 = f.port(asx, "B2")
    s = {"a1_in": f.series(a1, "in"), "a1_out": f.series(a1, "out"),
         "b2_in": f.series(b2, "in"), "b2_out": f.series(b2, "out"),
         "a1_octets_in": f.series(a1, "in", metric="octets", unit="octets", object_name="ifInOctets"),
         "vc0": f.series(a1, "in", channel=f.vc(a1, 0, 100)),
         "vc5": f.series(a1, "in", channel=f.vc(a1, 5, 32)),
         "vc5b": f.series(b2, "in", channel=f.vc(b2, 5, 33))}
    vp = a1.paths.get(vpi=5)
    s["vp5"] = f.series(a1, "in", path=vp)
    ip = f.switch("router-edc", profile="if-mib")
    ip.poller_group = "edc"
    ip.save()
    eth = f.port(ip, "Gi1/0/1", is_atm=False, capacity_cells=None, speed_bps=10**9)
    s["eth_in"] = f.series(eth, "in", metric="octets", unit="octets", width=64)
    s["eth_err"] = f.series(eth, "in", metric="errors", unit="packets", object_name="ifInErrors")
    s["eth2_in"] = f.series(f.port(ip, "Gi1/0/2", is_atm=False, capacity_cells=None, speed_bps=10**9), "in",
                            metric="octets", unit="octets", width=64)
    host = Host.objects.create(name="merlin.edc", address="192.0.2.9")
    Link.objects.create(a_port=b2, b_host=host)
    return {k: v.id for k, v in s.items()} | {"a1": a1, "b2": b2, "asx": asx, "ip": ip}


def ids(*rule_lines: str, series=()) -> set[int]:
    return set(resolve(Spec("t", tuple(series), rule_lines)).series_ids)


def test_rules_select_by_switch_port_entity_vpi_direction_and_metric(inv):
    assert ids("switch=asx*") == {inv["a1_in"], inv["a1_out"], inv["b2_in"], inv["b2_out"]}
    assert ids("switch=ASX-1 port=a*") == {inv["a1_in"], inv["a1_out"]}       # patterns ignore case
    assert ids("switch=asx-1 direction=out") == {inv["a1_out"], inv["b2_out"]}
    assert ids("switch=asx-1 entity=vc") == {inv["vc0"], inv["vc5"], inv["vc5b"]}
    assert ids("switch=asx-1 vpi=5") == {inv["vc5"], inv["vc5b"], inv["vp5"]}
    assert ids("switch=asx-1 vpi=1-9 entity=vp") == {inv["vp5"]}
    assert ids("port=A1 metric=octets") == {inv["a1_octets_in"]}
    # traffic: cells where the entity has them (A1's octets counter is not its traffic), else octets
    assert ids("poller_group=edc") == {inv["eth_in"], inv["eth2_in"]}
    assert ids("switch=router-* metric=errors") == {inv["eth_err"]}
    assert ids("port=Gi1/0/?") == {inv["eth_in"], inv["eth2_in"]}


def test_attached_host_and_tags(inv):
    assert ids("host=merlin.edc") == {inv["b2_in"], inv["b2_out"]}
    assert ids("host=merlin.edc entity=vc") == {inv["vc5b"]}
    tags.add("transit", "asx-1", "A1")
    assert ids("tag=transit") == {inv["a1_in"], inv["a1_out"]}
    assert ids("tag=transit entity=any metric=cells") == {inv["a1_in"], inv["a1_out"], inv["vc0"], inv["vc5"],
                                                         inv["vp5"]}
    tags.add("vp5", "asx-1", "A1", vpi="5")
    assert ids("tag=vp5 entity=any") == {inv["vp5"], inv["vc5"]}            # a tagged VP counts its VCs
    tags.add("edc", "router-edc")
    assert ids("tag=edc") == {inv["eth_in"], inv["eth2_in"]}
    with pytest.raises(GroupError, match="tagged already"):
        tags.add("edc", "router-edc")
    with pytest.raises(GroupError, match="no VC 0/999"):
        tags.add("x", "asx-1", "A1", vpi="0", vci="999")


def test_static_members_and_rules_together_in_member_order(inv):
    m = resolve(Spec("mixed", (inv["eth_in"],), ("switch=asx-1 port=B2",)))
    assert m.series_ids == [inv["b2_in"], inv["b2_out"], inv["eth_in"]]
    assert m.static_count == 1 and m.rule_counts == (2,)
    assert [o.kind for o in m.objects] == ["port", "port"] and m.switch_ids == sorted({inv["asx"].id, inv["ip"].id})


def test_a_saved_group_resolves_by_object_id_and_name(inv):
    g = edit.save(edit.spec_from("transit", f"{inv['a1_in']}, {inv['a1_out']}", "port=B2 direction=in"))
    for ref in (g, g.id, "transit", str(g.id)):
        assert set(resolve(ref).series_ids) == {inv["a1_in"], inv["a1_out"], inv["b2_in"]}
    with pytest.raises(GroupNotFound, match="no group 'nope'"):
        resolve("nope")


def test_at_a_time_leaves_out_what_was_gone(inv):
    a1 = inv["a1"]
    a1.gone_at = NOW - timedelta(days=2)
    a1.save()
    spec = Spec("t", (), ("switch=asx-1",))
    assert set(resolve(spec).series_ids) == {inv["b2_in"], inv["b2_out"]}
    # a window starting before it vanished still counts it
    assert inv["a1_in"] in resolve(spec, at=NOW - timedelta(days=3)).series_ids


def test_no_members_says_which_rule_matched_nothing(inv):
    with pytest.raises(EmptyGroup, match=r"rule 2 \('port=Z\*'\) matches no series"):
        resolve(Spec("empty", (), ("switch=none*", "port=Z*")))
    with pytest.raises(EmptyGroup, match="choose series or write a rule"):
        resolve(Spec("nothing"))
    assert resolve(Spec("nothing"), allow_empty=True).series == ()


def test_too_many_members_names_the_limit(inv):
    with pytest.raises(TooManyMembers, match=r"has 4 member series; a group holds at most 3"):
        resolve(Spec("big", (), ("switch=asx-1",)), limit=3)


@pytest.mark.parametrize("line, message", [
    ("switch", "is not key=value"),
    ("colour=red", "unknown key 'colour'"),
    ("switch=a switch=b", "switch= is given twice"),
    ("direction=in", "selects nothing by itself"),
    ("switch=a vpi=9-2", "the range goes down"),
    ("switch=a vpi=x", "give a VPI"),
    ("switch=a vpi=1 entity=port", "entity=port has none"),
    ("switch=a entity=trunk", "entity='trunk'"),
    ("switch=a direction=up", "use in, out or both"),
    ("switch=a metric=Bad-Name", "metric='bad-name'"),
])
def test_bad_rule_lines_say_what_is_wrong(line, message):
    with pytest.raises(rules.RuleError, match=message):
        rules.parse(line)


def test_like_keeps_percent_and_underscore_plain():
    assert rules.like("a_b%c*?") == "a\\_b\\%c%_"


def test_save_checks_name_members_and_unknown_series(inv):
    edit.save(edit.spec_from("a", [inv["a1_in"]], []))
    with pytest.raises(GroupError, match="exists already"):
        edit.save(edit.spec_from("a", [inv["a1_in"]], []))
    with pytest.raises(GroupError, match="unknown counter series id 987654"):
        edit.save(edit.spec_from("b", "987654", ""))
    with pytest.raises(GroupError, match="not a number"):
        edit.spec_from("b", "12, x", "")
    with pytest.raises(GroupError, match="name"):
        edit.save(edit.spec_from("-bad", [inv["a1_in"]], []))
    with pytest.raises(EmptyGroup):
        edit.save(edit.spec_from("c", "", "switch=none"))
    assert list(Group.objects.values_list("name", flat=True)) == ["a"]


def test_a_group_in_use_is_not_deleted(inv):
    from collector.billing.models import Bill

    g = edit.save(edit.spec_from("billed", "", "switch=asx-1"))
    Bill.objects.create(name="acme", group=g, starts=NOW.date())
    assert [app for app, _ in edit.users_of(g)] == ["billing"]
    with pytest.raises(GroupError, match="used by bill acme"):
        edit.delete(g)
    assert Group.objects.filter(pk=g.pk).exists()


def test_ten_thousand_and_one_series_are_refused_naming_the_limit(inv):
    from collector.archive.models import Series
    from collector.groups.resolve import MAX_MEMBERS

    port = inv["b2"]
    Series.objects.bulk_create([Series(switch=inv["asx"], object_name="chanCells", index=f"B2.9.{i}", kind="counter",
                                       port=port, direction="in", metric="cells", unit="cells")
                                for i in range(MAX_MEMBERS + 1)], batch_size=5000)
    with pytest.raises(TooManyMembers, match=r"has 10,00[0-9] member series; a group holds at most 10,000 "
                                             r"\(collector/groups MAX_MEMBERS\)"):
        edit.save(edit.spec_from("huge", "", "switch=asx-1 port=B2 direction=in"))
    assert not Group.objects.filter(name="huge").exists()
