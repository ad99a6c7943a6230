"""python manage.py add_switch [NAME] ADDRESS [options]: add a switch and bring it under polling.

One step: the credentials that answer (the site credential sets in turn, or the ones given), the
profile, the inventory row, discovery, link inference and the first poll, each step printed as it
happens (collector/poller/onboard.py). The name defaults to the agent's sysName. When this process
cannot reach the switch's poller group (its worker runs in another network namespace), the work is
a job of that worker, followed here. --no-check only stores the switch (no packet is sent).

Secrets are never taken from the command line: --secrets-file, --secrets-stdin or a prompt
(--community, --auth-key and --priv-key still work, with a warning).
"""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collector.audit.context import command_actor
from collector.core.profiles import profile_names
from collector.core.snmp_types import AUTH_PROTOCOLS, PRIV_PROTOCOLS, SNMP_VERSIONS
from collector.inventory.cli import add_secret_arguments, read_secrets
from collector.inventory.models import CredentialSet, Switch
from collector.poller import jobs, onboard, reach
from collector.poller.models import NetworkJob

FOLLOW_S = 300.0


class Command(BaseCommand):
    help = ("Add a switch by address: credentials tried, profile detected, discovered, linked and polled at once "
            "(secrets from --secrets-file, --secrets-stdin or a prompt; never printed).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("where", nargs="+", metavar="[NAME] ADDRESS",
                            help="the agent's address; a name before it (default: the agent's sysName)")
        parser.add_argument("--port", type=int, default=161)
        parser.add_argument("--credential-set", action="append", default=[], metavar="SET",
                            help="try this site credential set (repeatable, in order); default: every set")
        parser.add_argument("--snmp-version", choices=list(SNMP_VERSIONS), default="",
                            help="give credentials for this switch instead of the site sets")
        parser.add_argument("--v3-user", default="")
        parser.add_argument("--auth-proto", choices=list(AUTH_PROTOCOLS), default="")
        parser.add_argument("--priv-proto", choices=list(PRIV_PROTOCOLS), default="")
        add_secret_arguments(parser, ("community", "auth-key", "priv-key"))
        parser.add_argument("--profile", choices=profile_names(), default="auto")
        parser.add_argument("--interval", type=int, default=settings.CELLAR_DEFAULT_POLL_INTERVAL,
                            help="seconds between polls (default CELLAR_DEFAULT_POLL_INTERVAL)")
        parser.add_argument("--poller-group", default="default")
        parser.add_argument("--time-zone", default="", help="IANA zone of the switch's site (Europe/Paris): bill "
                                                             "days start at midnight there; default UTC")
        parser.add_argument("--timeout", type=float, default=settings.CELLAR_SNMP_TIMEOUT,
                            help="seconds per SNMP request attempt (default CELLAR_SNMP_TIMEOUT)")
        parser.add_argument("--retries", type=int, default=settings.CELLAR_SNMP_RETRIES,
                            help="SNMP retries (default CELLAR_SNMP_RETRIES)")
        parser.add_argument("--no-check", action="store_true",
                            help="only store the switch (no credential check, discovery or poll: nothing is sent)")

    @command_actor
    def handle(self, *args, **o) -> None:
        if len(o["where"]) > 2:
            raise CommandError("give at most a NAME and an ADDRESS")
        name, address = (o["where"] if len(o["where"]) == 2 else ("", o["where"][0]))
        typed = self._typed(o)
        if o["no_check"]:
            return self._store_only(name, address, typed, o)
        req = onboard.AddRequest(
            address=address, name=name, port=o["port"], poller_group=o["poller_group"], interval=o["interval"],
            profile=o["profile"], time_zone=o["time_zone"], timeout=o["timeout"], retries=o["retries"])
        if reach.served_here(o["poller_group"]):
            req.credentials = ([onboard.typed(typed, o["timeout"], o["retries"])] if typed
                               else onboard.from_sets(self._sets(o), o["timeout"], o["retries"]))
            try:
                switch = onboard.add_switch(req, self._show)
            except (onboard.AddFailed, reach.Elsewhere) as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(f"added switch {switch.name}: polled every {switch.poll_interval_s} s by the worker "
                              f"of poller group {switch.poller_group} (queue {switch.queue})")
            return None
        return self._as_job(req, typed, o)

    def _show(self, text: str, state: str = "info") -> None:
        mark = {"ok": "ok ", "fail": "!! "}.get(state, ".. ")
        (self.stderr if state == "fail" else self.stdout).write(f"{mark}{text}")

    def _typed(self, o: dict) -> dict | None:
        """The credentials given for this switch (secrets read safely), or None: use the site sets."""
        flags = {"community": o["community"], "auth-key": o["auth_key"], "priv-key": o["priv_key"]}
        given = (o["snmp_version"] or o["v3_user"] or o["secrets_file"] or o["secrets_stdin"] or any(flags.values()))
        if not given and (o["credential_set"] or CredentialSet.objects.exists()):
            return None
        version = o["snmp_version"] or ("3" if o["v3_user"] else "2c")
        if version == "3":
            if not o["v3_user"]:
                raise CommandError("--snmp-version 3 needs --v3-user")
            if o["priv_proto"] and not o["auth_proto"]:
                raise CommandError("--priv-proto needs --auth-proto")
            needed = (["auth-key"] if o["auth_proto"] else []) + (["priv-key"] if o["priv_proto"] else [])
        else:
            needed = ["community"]
        secrets = read_secrets(needed, flags=flags, file=o["secrets_file"], use_stdin=o["secrets_stdin"],
                               stdin=self._stdin(), warn=lambda m: self.stderr.write(f"warning: {m}"))
        for key in ("auth-key", "priv-key"):
            if key in needed and len(secrets[key]) < 8:
                raise CommandError(f"the {key} must be at least 8 characters (RFC 3414)")
        if version == "3":
            return {"snmp_version": "3", "v3_user": o["v3_user"], "auth_proto": o["auth_proto"],
                    "auth_key": secrets.get("auth-key", ""), "priv_proto": o["priv_proto"],
                    "priv_key": secrets.get("priv-key", "")}
        return {"snmp_version": version, "community": secrets["community"]}

    @staticmethod
    def _stdin():
        import sys

        return sys.stdin

    @staticmethod
    def _sets(o: dict) -> list[CredentialSet]:
        if not o["credential_set"]:
            return list(CredentialSet.objects.all())
        found = {s.name: s for s in CredentialSet.objects.filter(name__in=o["credential_set"])}
        missing = [n for n in o["credential_set"] if n not in found]
        if missing:
            known = ", ".join(CredentialSet.objects.values_list("name", flat=True)) or "none"
            raise CommandError(f"unknown credential set {', '.join(missing)} (known: {known})")
        return [found[n] for n in o["credential_set"]]

    def _store_only(self, name: str, address: str, typed: dict | None, o: dict) -> None:
        if not name:
            raise CommandError("--no-check needs a NAME (there is no agent's sysName to take)")
        if typed is None:
            sets = self._sets(o)
            if len(sets) != 1:
                raise CommandError("--no-check needs the credentials: give them, or exactly one --credential-set")
            fields = sets[0].credentials()
        else:
            fields = {**typed, "credential_set": None}
        if Switch.objects.filter(name=name).exists():
            raise CommandError(f"switch {name!r} already exists (change it in the admin)")
        switch = Switch(name=name, address=address, snmp_port=o["port"], profile=o["profile"],
                        poll_interval_s=o["interval"], poller_group=o["poller_group"], time_zone=o["time_zone"],
                        timeout_s=o["timeout"], retries=o["retries"], **fields)
        try:
            switch.full_clean()
        except ValidationError as exc:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
        switch.save()
        self.stdout.write(f"added switch {switch.name} at {switch.address}:{switch.snmp_port} "
                          f"(SNMPv{switch.snmp_version}, profile {switch.profile}, every {switch.poll_interval_s} s, "
                          f"queue {switch.queue}); next: manage.py discover {switch.name}")

    def _as_job(self, req: onboard.AddRequest, typed: dict | None, o: dict) -> None:
        params = {"address": req.address, "name": req.name, "port": req.port, "interval": req.interval,
                  "profile": req.profile, "time_zone": req.time_zone, "timeout": req.timeout, "retries": req.retries,
                  "credential_sets": [] if typed else [s.id for s in self._sets(o)]}
        job = jobs.create(NetworkJob.Kind.ADD_SWITCH, req.address, req.poller_group, params, credentials=typed)
        self.stdout.write(f"poller group {req.poller_group} is served from another network namespace: job {job.id} "
                          f"on queue {Switch.queue_name(req.poller_group)}")
        job = jobs.follow(job.id, lambda e: self._show(e["text"], e["state"]), FOLLOW_S)
        if job.status == NetworkJob.Status.FAILED:
            raise CommandError(job.error)
        if not job.done:
            raise CommandError(f"job {job.id} did not end within {FOLLOW_S:g} s (status {job.status}); see "
                               f"/onboard/jobs/{job.id}/")
        self.stdout.write(f"added switch {job.result.get('switch')}")
