"""Links inferred from evidence, in the inventory: store what agents said, run the inference, keep
the links in step with it, and record what operators decide.

- `store_claims`: discovery's claims of one switch become its LinkEvidence rows (kinds it walked);
- `store_continuity`: the archive's cross-connect continuity findings become evidence rows;
- `infer_links`: every claim resolved (collector/inventory/linkinfer.py), inferred links created,
  updated or withdrawn, conflicts written on links and candidates; one run at a time (an advisory
  lock), in one transaction, a handful of queries whatever the size of the network;
- `confirm` / `reject`: an operator's decision, kept (a rejected link is never proposed again).
"""
from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from collector.core.neighbours import NeighbourFacts
from collector.inventory import linkinfer as li
from collector.inventory.models import Link, LinkEvidence, Port, Switch

log = logging.getLogger(__name__)
LOCK_KEY = 0x63656C6C_6C6E6B      # "celllnk": one inference run at a time, across processes
DISCOVERED_KINDS = {"ilmi": "atmInterfaceMyNeighborIpAddress", "lldp": "lldpRemChassisId",
                    "fore-signalling": "sigPathRemoteIpAddress", "fore-topology": "linkCapacity"}


@dataclass
class InferenceReport:
    created: int = 0
    updated: int = 0
    withdrawn: int = 0
    conflicts: int = 0
    links: int = 0
    unresolved: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        text = (f"links: {self.links} inferred ({self.created} new, {self.withdrawn} withdrawn), "
                f"{self.conflicts} in conflict")
        if self.unresolved:
            text += "; claims naming no known switch: " + ", ".join(f"{n} {k}" for k, n in self.unresolved.items())
        return text


def store_claims(switch: Switch, facts: NeighbourFacts, ports_by_key: dict[str, Port],
                 walked: set[str]) -> tuple[int, bool]:
    """Replace the switch's evidence of each kind whose table was walked. Returns (rows stored,
    whether they differ from the stored ones): the same claims again only have seen_at moved, and
    need no inference run (a rediscovery of an unchanged switch, the usual case)."""
    now = timezone.now()
    kinds = [k for k, col in DISCOVERED_KINDS.items() if col in walked]
    rows = [LinkEvidence(switch=switch, port=ports_by_key.get(c.port_key) if c.port_key else None, kind=c.kind,
                         says=c.says[:255], far=c.far, seen_at=now)
            for c in facts.claims if c.kind in kinds and (c.port_key is None or c.port_key in ports_by_key)]
    stored = LinkEvidence.objects.filter(switch=switch, kind__in=kinds)
    before = sorted(map(_claim_key, stored.values_list("port_id", "kind", "says", "far")))
    if before == sorted(_claim_key((r.port_id, r.kind, r.says, r.far)) for r in rows):
        stored.update(seen_at=now)
        return len(rows), False
    with transaction.atomic():
        stored.delete()
        LinkEvidence.objects.bulk_create(rows, batch_size=500)
    return len(rows), True


def _claim_key(row: tuple) -> tuple:
    port_id, kind, says, far = row
    return (port_id or 0, kind, says, json.dumps(far, sort_keys=True))


def store_continuity(findings: Iterable[li.EvidenceRec]) -> int:
    """Replace every cross-connect continuity row by these findings (from the archive)."""
    now = timezone.now()
    rows = [LinkEvidence(switch_id=f.switch_id, port_id=f.port_id, kind="xc-continuity", says=f.says[:255],
                         far={**f.far, "weight": f.weight}, seen_at=now) for f in findings]
    with transaction.atomic():
        LinkEvidence.objects.filter(kind="xc-continuity").delete()
        LinkEvidence.objects.bulk_create(rows, batch_size=500)
    return len(rows)


def network() -> li.Network:
    switches = [li.SwitchRec(i, n, a, sn, ident or {}, en) for i, n, a, sn, ident, en in Switch.objects.values_list(
        "id", "name", "address", "sys_name", "identity", "enabled")]
    ports = [li.PortRec(i, sw, k, n, an, d, lb, gone is not None, pt.upper() == "CTL" or n.upper().endswith("CTL"))
             for i, sw, k, n, an, d, lb, gone, pt in Port.objects.values_list(
                 "id", "switch_id", "key", "name", "agent_name", "description", "label", "gone_at", "port_type")]
    return li.Network(switches, ports)


def _evidence() -> tuple[list[LinkEvidence], list[li.EvidenceRec]]:
    rows = list(LinkEvidence.objects.exclude(kind="port-label"))
    recs = []
    for r in rows:
        far = dict(r.far)
        weight = far.pop("weight", None) if r.kind == "xc-continuity" else None
        recs.append(li.EvidenceRec(r.id, r.switch_id, r.port_id, r.kind, r.says, far, weight=weight))
    return rows, recs


def infer_links() -> InferenceReport:
    """One inference run over the whole inventory (see collector/inventory/linkinfer.py)."""
    report = InferenceReport()
    now = timezone.now()
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])
        net = network()
        rows, recs = _evidence()
        labels = net.label_claims()
        links = list(Link.objects.filter(b_port__isnull=False))
        outcome = li.infer(net, recs + labels, [li.LinkRec(lk.id, lk.a_port_id, lk.b_port_id, lk.b_host_id,
                                                           lk.state) for lk in links])
        for row, rec in zip(rows, recs):          # one record per row, in order (_evidence)
            row.far_switch_id, row.far_port_id = rec.far_switch_id, rec.far_port_id
            row.resolution = rec.resolution[:255]
        LinkEvidence.objects.bulk_update(rows, ["far_switch", "far_port", "resolution"], batch_size=500)
        LinkEvidence.objects.filter(kind="port-label").delete()
        LinkEvidence.objects.bulk_create([LinkEvidence(
            switch_id=e.switch_id, port_id=e.port_id, kind=e.kind, says=e.says[:255], far=e.far,
            far_switch_id=e.far_switch_id, resolution=e.resolution[:255], seen_at=now) for e in labels])
        report.unresolved = outcome.unresolved
        _apply(outcome, links, now, report)
    log.info("link inference: %s", report.summary())
    return report


def _port_pair(lk: Link) -> tuple[int, ...]:
    """The ports of a link between two ports, lower id first (as a candidate names them)."""
    if lk.b_port_id is None:
        raise ValueError(f"link {lk.pk} ends on a host: inference reads links between ports only")
    return tuple(sorted((lk.a_port_id, lk.b_port_id)))


def _apply(outcome: li.Outcome, links: list[Link], now, report: InferenceReport) -> None:
    by_pair = {_port_pair(lk): lk for lk in links}
    wanted = set()
    for cand in outcome.candidates:
        wanted.add(cand.ports)
        evidence = sorted(cand.items.values(), key=lambda i: (-i["weight"], i["kind"], i["side"]))
        conflict = "; ".join(dict.fromkeys(cand.conflict))
        report.conflicts += bool(conflict)
        link = by_pair.get(cand.ports)
        if link is None:
            Link.objects.create(a_port_id=cand.ports[0], b_port_id=cand.ports[1], source="inferred", state="inferred",
                                confidence=cand.confidence, evidence=evidence, conflict=conflict, inferred_at=now)
            report.created += 1
            report.links += 1
            continue
        if link.state == "inferred":
            report.links += 1
        extra = outcome.link_conflicts.get(link.id, "")
        conflict = "; ".join(x for x in dict.fromkeys([conflict, extra]) if x) if link.state != "inferred" else conflict
        if (link.confidence, link.evidence, link.conflict) != (cand.confidence, evidence, conflict):
            link.confidence, link.evidence, link.conflict, link.inferred_at = cand.confidence, evidence, conflict, now
            link.save(update_fields=["confidence", "evidence", "conflict", "inferred_at"])
            report.updated += 1
    for pair, link in by_pair.items():
        if pair in wanted:
            continue
        if link.state == "inferred":
            link.delete()                    # its evidence is gone: withdrawn (recorded by the audit)
            report.withdrawn += 1
        else:
            conflict = outcome.link_conflicts.get(link.id, "")
            if (link.conflict, link.confidence, link.evidence) != (conflict, None, []):
                link.conflict, link.confidence, link.evidence = conflict, None, []
                link.save(update_fields=["conflict", "confidence", "evidence"])
            report.conflicts += bool(conflict)


def decide(link_id: int, state: str, who: str) -> Link:
    """An operator confirms ("confirmed") or rejects ("rejected") a link; kept across inference runs."""
    if state not in ("confirmed", "rejected"):
        raise ValueError(f"a decision is confirmed or rejected, not {state!r}")
    link = Link.objects.get(pk=link_id)
    link.state, link.decided_by, link.decided_at = state, who[:150], timezone.now()
    link.save(update_fields=["state", "decided_by", "decided_at"])
    return link


def evidence_of_port(port: Port) -> list[LinkEvidence]:
    return list(LinkEvidence.objects.filter(Q(port=port) | Q(far_port=port)).select_related(
        "switch", "port", "far_switch", "far_port"))
