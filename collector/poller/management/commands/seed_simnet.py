"""python manage.py seed_simnet [--manifest state/simnet/manifest.json]: register the simulated network.

Idempotent: `make run` calls it on every start. Switches are added with profile "auto" (so
detection is exercised) and discovered; hosts are added. Both go to the poller group
--poller-group (make run: "simnet", served by its own worker); run inside a network namespace, the
command records that the group lives there, so no process outside sends its packets
(collector/poller/reach.py). No link is typed by hand: the links
between switches are inferred from what the agents say (docs/topology.md), the hosts' attachments
from the port names. `--manual-links` enters the manifest's links as an operator would (to compare).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.audit.context import command_actor
from collector.core import netns
from collector.inventory.models import Host, Link, Port, Switch
from collector.poller import actions, reach


def _port(switch: str, name_or_index: str) -> Port | None:
    ports = Port.objects.filter(switch__name=switch)
    return ports.filter(name=name_or_index).first() or ports.filter(key=str(name_or_index)).first()


class Command(BaseCommand):
    help = "Add the simulated switches and hosts of `python -m simnet up` to the inventory."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--manifest", default=str(Path(settings.BASE_DIR) / "state" / "simnet" / "manifest.json"))
        parser.add_argument("--interval", type=int, default=15)
        parser.add_argument("--wait", type=float, default=20.0, help="seconds to wait for each agent")
        parser.add_argument("--poller-group", default="default",
                            help="the poller group of the simulated switches and hosts (make run: simnet)")
        parser.add_argument("--manual-links", action="store_true",
                            help="also enter the simulated links and host attachments by hand")

    @command_actor
    def handle(self, *args, **o) -> None:
        path = Path(o["manifest"])
        if not path.exists():
            raise CommandError(f"no simnet manifest at {path}: start it with `python -m simnet up`")
        manifest = json.loads(path.read_text())
        group = o["poller_group"]
        here = netns.current()
        reach.bind(group, here if here not in (None, netns.ROOT) else None)
        for sw in manifest["switches"]:
            switch, created = Switch.objects.get_or_create(name=sw["name"], defaults={
                "address": sw.get("mgmt_address") or sw["address"], "snmp_port": sw["port"],
                "community": sw["community"], "profile": "auto", "poll_interval_s": o["interval"],
                "timeout_s": 1.0, "retries": 1, "poller_group": group})
            if not created:   # the port may change between runs of simnet
                Switch.objects.filter(pk=switch.pk).update(
                    address=sw.get("mgmt_address") or sw["address"], snmp_port=sw["port"], poller_group=group)
            self._discover(switch.name, o["wait"])
        for h in manifest.get("hosts", []):
            if not h.get("address"):
                continue
            Host.objects.update_or_create(name=h["name"], defaults={
                "address": h["address"], "description": h.get("description", "")[:255],
                "tcp_port": h.get("tcp_port") or 22, "poller_group": group})
        if o["manual_links"]:
            self._manual_links(manifest)
        self.stdout.write(actions.infer_links().summary())
        self.stdout.write(f"simnet: {Switch.objects.count()} switches, {Host.objects.count()} hosts, "
                          f"{Link.objects.count()} links; poller group {group} "
                          f"({'namespace ' + here if here not in (None, netns.ROOT) else 'served from anywhere'})")

    @staticmethod
    def _manual_links(manifest: dict) -> None:
        for link in manifest.get("links", []):
            a = _port(link["a_switch"], link["a_port"])
            b = _port(link["b_switch"], link["b_port"])
            if a and b and not Link.objects.filter(a_port=b, b_port=a).exists():
                Link.objects.get_or_create(a_port=a, b_port=b, defaults={"source": "manual", "note": link["kind"]})
        for pvc in manifest.get("pvc_paths", []):
            for host_name, hop, side in ((pvc["source"], pvc["hops"][0], "in"),
                                         (pvc["destination"], pvc["hops"][-1], "out")):
                host = Host.objects.filter(name=host_name).first()
                port = Port.objects.filter(switch__name=hop["switch"], name=hop[side][0]).first()
                if host and port:
                    Link.objects.get_or_create(a_port=port, b_host=host, defaults={"source": "manual"})

    def _discover(self, name: str, wait: float) -> None:
        switch = Switch.objects.get(name=name)
        deadline = time.monotonic() + wait
        while True:
            try:
                self.stdout.write(actions.discover(switch.id).summary())
                return
            except actions.DISCOVERY_ERRORS as exc:
                if time.monotonic() > deadline:
                    self.stderr.write(f"{name}: not discovered yet ({exc}); the next scheduled discovery retries")
                    return
                time.sleep(1)
