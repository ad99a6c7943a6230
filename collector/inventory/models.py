"""The inventory: what Cellar polls and what discovery found on it.

Switches carry their SNMP access and polling parameters; ports, virtual path and channel
endpoints and cross-connects are filled by discovery (collector/inventory/discovery.py) and are never
deleted when they vanish from the agent: `gone_at` is set instead so their history stays
reachable. Hosts and links are what the status pages trace paths over.
"""
from __future__ import annotations

from zoneinfo import available_timezones

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from collector.core import profiles
from collector.core.snmp import SnmpSession
from collector.core.snmp_types import AUTH_PROTOCOLS, PRIV_PROTOCOLS, SNMP_VERSIONS, SnmpTarget
from collector.inventory.secrets import SecretField


# Choices and defaults are callables: a new profile file (collector/core/profiles.py) or another
# default in the environment needs no migration.
def profile_choices() -> list[tuple[str, str]]:
    return profiles.choices()


def snmp_version_choices() -> list[tuple[str, str]]:
    return list(SNMP_VERSIONS.items())


def auth_protocol_choices() -> list[tuple[str, str]]:
    return [("", "none"), *AUTH_PROTOCOLS.items()]


def priv_protocol_choices() -> list[tuple[str, str]]:
    return [("", "none"), *PRIV_PROTOCOLS.items()]


SNMP_INDEX_MAX = 2 ** 32 - 1      # an SNMP index sub-identifier is an unsigned 32-bit value


def default_poll_interval() -> int:
    return settings.CELLAR_DEFAULT_POLL_INTERVAL


def default_snmp_timeout() -> float:
    return settings.CELLAR_SNMP_TIMEOUT


def default_snmp_retries() -> int:
    return settings.CELLAR_SNMP_RETRIES


def poller_group_field() -> models.CharField:
    """The poller group a switch or host belongs to: whose worker sends its packets."""
    return models.CharField(
        max_length=50, default="default",
        help_text="polls and checks go to the Celery queue polls.<group> (default: polls); run a worker for it "
                  "where the group's network is reachable")


def validate_time_zone(name: str) -> None:
    """An IANA time zone name the system's zone database knows (Europe/Paris, America/Chicago)."""
    if name and name not in available_timezones():
        raise ValidationError(f"{name!r} is not an IANA time zone name (e.g. Europe/Paris, America/Chicago, UTC)")


class SnmpCredentials(models.Model):
    """The SNMP credentials a switch is polled with and a credential set offers: one definition.
    Secrets are stored encrypted and never shown again (secrets.py)."""
    snmp_version = models.CharField(max_length=2, choices=snmp_version_choices, default="2c")
    community = SecretField(blank=True, default="")
    v3_user = models.CharField(max_length=64, blank=True, default="")
    auth_proto = models.CharField(max_length=8, choices=auth_protocol_choices, blank=True, default="")
    auth_key = SecretField(blank=True, default="")
    priv_proto = models.CharField(max_length=8, choices=priv_protocol_choices, blank=True, default="")
    priv_key = SecretField(blank=True, default="")

    class Meta:
        abstract = True


class Switch(SnmpCredentials):
    name = models.CharField(max_length=100, unique=True)
    address = models.CharField(max_length=255, help_text="host name or IP address of the agent")
    snmp_port = models.PositiveIntegerField(default=161, validators=[MaxValueValidator(65535)])
    timeout_s = models.FloatField(default=default_snmp_timeout,
                                  validators=[MinValueValidator(0.1), MaxValueValidator(30)])
    retries = models.PositiveSmallIntegerField(default=default_snmp_retries, validators=[MaxValueValidator(5)])

    profile = models.CharField(max_length=16, choices=profile_choices, default="auto")
    detected_profile = models.CharField(max_length=16, blank=True, default="",
                                        help_text="the profile 'auto' resolved to")
    poll_interval_s = models.PositiveIntegerField(
        default=default_poll_interval, validators=[MinValueValidator(1), MaxValueValidator(3600)],
        help_text="seconds between polls; changes take effect without a restart")
    poller_group = poller_group_field()
    credential_set = models.ForeignKey(
        "CredentialSet", on_delete=models.SET_NULL, null=True, blank=True, related_name="switches",
        help_text="the site credential set the switch's credentials were copied from when it was added")
    enabled = models.BooleanField(default=True)
    time_zone = models.CharField(
        max_length=64, blank=True, default="", validators=[validate_time_zone],
        help_text="IANA zone of the switch's site (Europe/Paris): the billing days of bills on its ports start at "
                  "midnight there; empty = UTC")

    # Facts read by discovery.
    sys_object_id = models.CharField(max_length=128, blank=True, default="")
    sys_descr = models.TextField(blank=True, default="")
    sys_name = models.CharField(max_length=255, blank=True, default="")
    switch_type = models.CharField(max_length=64, blank=True, default="")
    software_version = models.CharField(max_length=64, blank=True, default="")
    hardware_version = models.CharField(max_length=64, blank=True, default="")
    port_count = models.PositiveIntegerField(null=True, blank=True)
    uptime_cs = models.BigIntegerField(null=True, blank=True, help_text="agent uptime (1/100 s) at uptime_at")
    uptime_at = models.DateTimeField(null=True, blank=True)
    discovered_at = models.DateTimeField(null=True, blank=True)
    identity = models.JSONField(default=dict, blank=True, help_text=(
        "how neighbours name this switch, as discovery read it: atm_address (FORE SPANS), lldp_chassis, "
        "lldp_sys_name, lldp_port_ids (collector/core/neighbours.py)"))
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "switches"

    def __str__(self) -> str:
        return self.name

    @property
    def effective_profile(self) -> str:
        return self.detected_profile if self.profile == "auto" else self.profile

    @property
    def queue(self) -> str:
        return self.queue_name(self.poller_group)

    @staticmethod
    def queue_name(poller_group: str) -> str:
        """The Celery queue of a poller group's polls: a worker started with -Q <it> polls them."""
        return f"polls.{poller_group}" if poller_group != "default" else "polls"

    def snmp_target(self) -> SnmpTarget:
        """The agent and its credentials, decrypted, for one conversation (never logged)."""
        return SnmpTarget(
            host=self.address, port=self.snmp_port, version=self.snmp_version, community=str(self.community),
            v3_user=self.v3_user, auth_proto=self.auth_proto, auth_key=str(self.auth_key),
            priv_proto=self.priv_proto, priv_key=str(self.priv_key), timeout=self.timeout_s, retries=self.retries,
            credentials=self.credentials_label)

    @property
    def credentials_label(self) -> str:
        """Where the switch's credentials came from, for messages (never the secret). Never a query:
        it is read inside the poller's event loop (load the switch with its credential_set)."""
        if not self.credential_set_id:
            return "the switch's settings"
        if Switch.credential_set.is_cached(self) and self.credential_set is not None:
            return f"credential set {self.credential_set.name!r}"
        return f"credential set #{self.credential_set_id}"

    def snmp_session(self) -> SnmpSession:
        """A session with the backend of CELLAR_SNMP_BACKEND ("auto": fast for v1/v2c, pysnmp for v3)."""
        return SnmpSession(self.snmp_target(), backend=settings.CELLAR_SNMP_BACKEND)


class Host(models.Model):
    CHECK_METHODS = [("auto", "auto (ICMP, then TCP, then SNMP)"), ("icmp", "ICMP echo"),
                     ("tcp", "TCP connect"), ("snmp", "SNMP get")]
    name = models.CharField(max_length=255, unique=True)
    address = models.CharField(max_length=255)
    description = models.CharField(max_length=255, blank=True, default="")
    check_method = models.CharField(max_length=8, choices=CHECK_METHODS, default="auto")
    tcp_port = models.PositiveIntegerField(default=22, validators=[MaxValueValidator(65535)])
    enabled = models.BooleanField(default=True)
    poller_group = poller_group_field()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def queue(self) -> str:
        return Switch.queue_name(self.poller_group)


class CredentialSet(SnmpCredentials):
    """SNMP credentials of a site, tried in turn (by `position`) when a switch is added by address
    or a range is swept; the first that answers is copied into the switch. Secrets are stored
    encrypted and never shown again (secrets.py)."""
    name = models.CharField(max_length=64, unique=True)
    position = models.PositiveSmallIntegerField(default=100, help_text="sets are tried in this order (lowest first)")
    note = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        ordering = ["position", "name"]

    def __str__(self) -> str:
        return self.name

    def snmp_target(self, host: str, port: int = 161, timeout: float | None = None,
                    retries: int | None = None) -> SnmpTarget:
        return SnmpTarget(
            host=host, port=port, version=self.snmp_version, community=str(self.community), v3_user=self.v3_user,
            auth_proto=self.auth_proto, auth_key=str(self.auth_key), priv_proto=self.priv_proto,
            priv_key=str(self.priv_key), timeout=settings.CELLAR_SNMP_TIMEOUT if timeout is None else timeout,
            retries=settings.CELLAR_SNMP_RETRIES if retries is None else retries,
            credentials=f"credential set {self.name!r}")

    def credentials(self) -> dict:
        """The fields a switch copies when these credentials answered."""
        return {"snmp_version": self.snmp_version, "community": self.community, "v3_user": self.v3_user,
                "auth_proto": self.auth_proto, "auth_key": self.auth_key, "priv_proto": self.priv_proto,
                "priv_key": self.priv_key, "credential_set": self}


class DiscoveredQuerySet(models.QuerySet):
    def present(self):
        return self.filter(gone_at__isnull=True)


class Discovered(models.Model):
    """Bookkeeping shared by everything discovery creates."""
    first_seen = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(null=True, blank=True)
    gone_at = models.DateTimeField(null=True, blank=True, help_text="vanished from the agent; history kept")

    objects = DiscoveredQuerySet.as_manager()

    class Meta:
        abstract = True


class Port(Discovered):
    switch = models.ForeignKey(Switch, on_delete=models.CASCADE, related_name="ports")
    key = models.CharField(max_length=64, help_text="the agent's index: FORE portNumber or ifIndex")
    # SNMP indexes are unsigned 32-bit: DSLAMs and firewalls use ifIndex values above 2**31.
    if_index = models.BigIntegerField(null=True, blank=True,
                                      validators=[MinValueValidator(0), MaxValueValidator(SNMP_INDEX_MAX)])
    name = models.CharField(max_length=255, help_text="unique on the switch: the agent's name, or, when "
                            "several ports share it, the name with the ifIndex (or port number)")
    agent_name = models.CharField(max_length=255, blank=True, default="",
                                  help_text="the name as the agent gives it: A1 / 1A1 / ifName / ifDescr")
    label = models.CharField(max_length=255, blank=True, default="", help_text="portName / ifAlias")
    description = models.CharField(max_length=255, blank=True, default="")
    hw_index = models.CharField(max_length=64, blank=True, default="", help_text=(
        "the port's index in the agent's hardware port table (FORE hwPortTable: board.module.port), "
        "where counters of entity hwport are kept"))
    port_type = models.CharField(max_length=64, blank=True, default="", help_text="OC3, DS3, TAXI-100, ethernet ...")
    is_atm = models.BooleanField(default=False)
    speed_bps = models.BigIntegerField(null=True, blank=True)
    capacity_cells = models.BigIntegerField(null=True, blank=True, help_text="maximum cells/s")
    admin_status = models.CharField(max_length=16, blank=True, default="")
    oper_status = models.CharField(max_length=16, blank=True, default="")
    status_since = models.DateTimeField(null=True, blank=True)
    max_bw_in = models.BigIntegerField(null=True, blank=True, help_text="cells/s")
    alloc_bw_in = models.BigIntegerField(null=True, blank=True)
    max_bw_out = models.BigIntegerField(null=True, blank=True)
    alloc_bw_out = models.BigIntegerField(null=True, blank=True)
    max_vpcs = models.IntegerField(null=True, blank=True)
    max_vccs = models.IntegerField(null=True, blank=True)
    neighbor_address = models.CharField(max_length=64, blank=True, default="", help_text="ILMI neighbour IP")
    neighbor_ifname = models.CharField(max_length=128, blank=True, default="")

    class Meta:
        ordering = ["switch", "name"]
        constraints = [
            models.UniqueConstraint(fields=["switch", "key"], name="port_unique_key"),
            # Checked at commit: discovery may swap names within one transaction.
            models.UniqueConstraint(fields=["switch", "name"], name="port_unique_name",
                                    deferrable=models.Deferrable.DEFERRED),
        ]

    def __str__(self) -> str:
        return f"{self.switch.name} {self.name}"


class VirtualPath(Discovered):
    """A VP link endpoint (port, VPI) on a switch."""
    switch = models.ForeignKey(Switch, on_delete=models.CASCADE, related_name="paths")
    port = models.ForeignKey(Port, on_delete=models.CASCADE, related_name="paths")
    vpi = models.IntegerField()
    status = models.CharField(max_length=16, blank=True, default="")
    alloc_bw = models.BigIntegerField(null=True, blank=True, help_text="cells/s")
    max_bw = models.BigIntegerField(null=True, blank=True)
    up_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["port", "vpi"]
        constraints = [models.UniqueConstraint(fields=["port", "vpi"], name="vp_unique_endpoint")]

    def __str__(self) -> str:
        return f"{self.port} VP {self.vpi}"


class VirtualChannel(Discovered):
    """A VC link endpoint (port, VPI, VCI) on a switch."""
    switch = models.ForeignKey(Switch, on_delete=models.CASCADE, related_name="channels")
    port = models.ForeignKey(Port, on_delete=models.CASCADE, related_name="channels")
    vpi = models.IntegerField()
    vci = models.IntegerField()
    status = models.CharField(max_length=16, blank=True, default="")
    service_category = models.CharField(max_length=16, blank=True, default="")
    alloc_bw = models.BigIntegerField(null=True, blank=True, help_text="cells/s")
    aal_type = models.CharField(max_length=16, blank=True, default="")
    up_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["port", "vpi", "vci"]
        constraints = [models.UniqueConstraint(fields=["port", "vpi", "vci"], name="vc_unique_endpoint")]

    def __str__(self) -> str:
        return f"{self.port} {self.vpi}/{self.vci}"


class CrossConnect(Discovered):
    """Cells entering (in_port, in_vpi[, in_vci]) leave on (out_port, out_vpi[, out_vci]).

    One row per direction: FORE route tables list each direction separately, and an ATM-MIB
    cross-connect (low <-> high) becomes two rows.
    """
    KINDS = [("vp", "virtual path"), ("vc", "virtual channel")]
    switch = models.ForeignKey(Switch, on_delete=models.CASCADE, related_name="cross_connects")
    kind = models.CharField(max_length=2, choices=KINDS)
    in_port = models.ForeignKey(Port, on_delete=models.CASCADE, related_name="+")
    in_vpi = models.IntegerField()
    in_vci = models.IntegerField(null=True, blank=True)
    out_port = models.ForeignKey(Port, on_delete=models.CASCADE, related_name="+")
    out_vpi = models.IntegerField()
    out_vci = models.IntegerField(null=True, blank=True)
    name = models.CharField(max_length=128, blank=True, default="")
    status = models.CharField(max_length=16, blank=True, default="")
    up_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["switch", "in_port", "in_vpi", "in_vci"]
        constraints = [models.UniqueConstraint(
            fields=["switch", "kind", "in_port", "in_vpi", "in_vci", "out_port", "out_vpi", "out_vci"],
            name="xc_unique", nulls_distinct=False)]

    def __str__(self) -> str:
        vci_in = f"/{self.in_vci}" if self.in_vci is not None else ""
        vci_out = f"/{self.out_vci}" if self.out_vci is not None else ""
        return (f"{self.switch.name} {self.in_port.name} {self.in_vpi}{vci_in} -> "
                f"{self.out_port.name} {self.out_vpi}{vci_out}")


class Link(models.Model):
    """A cable: switch port to switch port, or switch port to host.

    Entered by hand (state confirmed), or inferred from what the agents say (source "inferred",
    state inferred, with its evidence and confidence: collector/inventory/linkinfer.py). An operator
    confirms an inferred link (kept whatever later evidence says, but a contradiction is shown) or
    rejects it (kept as rejected: inference never proposes it again). `conflict` says why a link is
    contradicted (two links on one port, a far end that vanished, evidence naming another port).
    """
    SOURCES = [("manual", "entered by hand"), ("ilmi", "ILMI neighbour"), ("discovery", "discovery"),
               ("inferred", "inferred from what the agents say")]
    STATES = [("confirmed", "confirmed"), ("inferred", "inferred"), ("rejected", "rejected")]
    a_port = models.ForeignKey(Port, on_delete=models.CASCADE, related_name="links_a")
    b_port = models.ForeignKey(Port, on_delete=models.CASCADE, null=True, blank=True, related_name="links_b")
    b_host = models.ForeignKey(Host, on_delete=models.CASCADE, null=True, blank=True, related_name="links")
    source = models.CharField(max_length=16, choices=SOURCES, default="manual")
    note = models.CharField(max_length=255, blank=True, default="")
    state = models.CharField(max_length=10, choices=STATES, default="confirmed")
    confidence = models.FloatField(null=True, blank=True, help_text="of the last inference, 0..1")
    evidence = models.JSONField(default=list, blank=True,
                                help_text="the evidence of the last inference: [{kind, side, says, weight}]")
    conflict = models.TextField(blank=True, default="", help_text="what contradicts this link (empty: nothing)")
    inferred_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=150, blank=True, default="", help_text="who confirmed or rejected it")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(Q(b_port__isnull=False) & Q(b_host__isnull=True))
                | (Q(b_port__isnull=True) & Q(b_host__isnull=False)),
                name="link_one_far_end"),
            models.UniqueConstraint(fields=["a_port", "b_port"], name="link_port_port"),
            models.UniqueConstraint(fields=["a_port", "b_host"], name="link_port_host"),
            models.CheckConstraint(condition=Q(confidence__isnull=True) | (Q(confidence__gte=0) & Q(confidence__lte=1)),
                                   name="link_confidence_0_1"),
        ]

    def __str__(self) -> str:
        return f"{self.a_port} <-> {self.b_port or self.b_host}"


class LinkEvidence(models.Model):
    """One thing an agent (or the archive) says about what a port is cabled to, kept as said.

    Discovery replaces a switch's rows of the kinds it walks; the inference run resolves `far`
    to an inventory switch and port (far_switch, far_port, or `resolution` says why not) and
    adds the rows it derives itself (port labels naming a switch, cross-connect continuity)."""
    KINDS = [("ilmi", "ILMI neighbour (ATM-MIB)"), ("lldp", "LLDP neighbour (LLDP-MIB)"),
             ("fore-signalling", "FORE signalling path (SPANS)"), ("fore-topology", "FORE SPANS topology"),
             ("port-label", "port name naming a switch"), ("xc-continuity", "cross-connect continuity")]
    switch = models.ForeignKey(Switch, on_delete=models.CASCADE, related_name="link_evidence")
    port = models.ForeignKey(Port, on_delete=models.CASCADE, null=True, blank=True, related_name="link_evidence",
                             help_text="the reporting port (empty: about the switch as a whole)")
    kind = models.CharField(max_length=16, choices=KINDS)
    says = models.CharField(max_length=255, help_text="what was said, in words")
    far = models.JSONField(default=dict, blank=True, help_text="what names the far end, as said")
    far_switch = models.ForeignKey(Switch, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    far_port = models.ForeignKey(Port, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    resolution = models.CharField(max_length=255, blank=True, default="",
                                  help_text="how the far end was matched, or why it was not")
    seen_at = models.DateTimeField()

    class Meta:
        ordering = ["switch", "kind", "port"]
        indexes = [models.Index(fields=["switch", "kind"], name="evidence_switch_kind")]
        verbose_name_plural = "link evidence"

    def __str__(self) -> str:
        return f"{self.switch.name}: {self.says}"


class MapPosition(models.Model):
    """Where the network map draws a node ("switch:<id>" or "host:<id>"), once someone placed it."""
    node = models.CharField(max_length=40, unique=True)
    x = models.FloatField()
    y = models.FloatField()
    moved_by = models.CharField(max_length=150, blank=True, default="")
    moved_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.node} ({self.x:.0f}, {self.y:.0f})"
