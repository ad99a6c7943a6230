"""python manage.py sweep NETWORK [--poller-group G] [--credential-set SET ...]: probe a range for SNMP
agents (only inside CELLAR_SWEEP_NETWORKS, at most CELLAR_SWEEP_RATE probes a second); what answers
becomes a candidate (the Add switches page). Run here when this process reaches the group, else as a
job of the group's worker, followed here."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.audit.context import command_actor
from collector.inventory.models import CredentialSet
from collector.poller import jobs, reach, sweep
from collector.poller.models import NetworkJob

FOLLOW_S = 3600.0


class Command(BaseCommand):
    help = "Sweep an allow-listed network for SNMP agents with the site credential sets; list what answered."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("network", help="e.g. 192.0.2.0/24 (inside CELLAR_SWEEP_NETWORKS)")
        parser.add_argument("--poller-group", default="default")
        parser.add_argument("--credential-set", action="append", default=[], metavar="SET",
                            help="try only these sets (repeatable); default: every set")

    @command_actor
    def handle(self, *args, **o) -> None:
        try:
            sweep.check_network(o["network"])
        except sweep.SweepRefused as exc:
            raise CommandError(str(exc)) from None
        sets = list(CredentialSet.objects.filter(name__in=o["credential_set"])) if o["credential_set"] else []
        if len(sets) != len(set(o["credential_set"])):
            raise CommandError(f"unknown credential set among {', '.join(o['credential_set'])}")
        here = reach.served_here(o["poller_group"])
        job = jobs.create(NetworkJob.Kind.SWEEP, o["network"], o["poller_group"],
                          {"network": o["network"], "credential_sets": [s.id for s in sets]}, queue=not here)
        if here:
            jobs.run(job.id, echo=self._show)
            job.refresh_from_db()
        else:
            self.stdout.write(f"poller group {o['poller_group']} is served elsewhere: job {job.id} on its queue")
            job = jobs.follow(job.id, lambda e: self._show(e["text"], e["state"]), FOLLOW_S)
        if job.status == NetworkJob.Status.FAILED:
            raise CommandError(job.error)

    def _show(self, text: str, state: str = "info") -> None:
        (self.stderr if state == "fail" else self.stdout).write(text)
