"""What an SNMP conversation is about, shared by the session and its backends: the target
(an agent and its credentials), the errors, the protocol tables and the per-session counters.

Secrets (community, auth/priv keys) never appear in repr(), in exception messages or in logs.
The protocol tables here are the only list of supported protocols: the inventory's model
choices and both backends are built from them.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from dataclasses import asdict, dataclass, field

from collector.core import snmp_codec as codec

# A decoded value: int (the integer types; Counter64 as snmp_codec.Counter64Value, an int),
# bytes (strings), str (OIDs, IpAddress), None (NULL).
Value = int | bytes | str | None
INT_TYPES = (int, codec.Counter64Value)     # `type(v) in INT_TYPES`: an integer, not a bool


def is_int(v: object) -> bool:
    return type(v) in INT_TYPES

# name -> label. The only lists of supported versions and protocols (inventory choices, CLI,
# validation and the pysnmp backend's tables are checked against them).
SNMP_VERSIONS = {"1": "v1", "2c": "v2c", "3": "v3"}
AUTH_PROTOCOLS = {"MD5": "MD5", "SHA": "SHA", "SHA224": "SHA-224", "SHA256": "SHA-256",
                  "SHA384": "SHA-384", "SHA512": "SHA-512"}
PRIV_PROTOCOLS = {"DES": "DES", "AES": "AES-128", "AES192": "AES-192", "AES256": "AES-256"}


# ---------------------------------------------------------------------------------------
# Public types

@dataclass(frozen=True)
class SnmpTarget:
    host: str
    port: int = 161
    version: str = "2c"          # "1" | "2c" | "3"
    community: str = field(default="public", repr=False)
    v3_user: str = ""
    auth_proto: str = ""         # "" | "MD5" | "SHA" | "SHA224" | "SHA256" | "SHA384" | "SHA512"
    auth_key: str = field(default="", repr=False)
    priv_proto: str = ""         # "" | "DES" | "AES" | "AES192" | "AES256"
    priv_key: str = field(default="", repr=False)
    timeout: float = 2.0         # seconds per request attempt
    retries: int = 1
    max_repetitions: int = 25
    # Where the credentials came from, for messages ("credential set 'campus'"): never a secret.
    credentials: str = ""
    # secrets must never appear in repr/str/logs/exceptions

    @property
    def label(self) -> str:
        """host:port for messages (no secrets)."""
        h = f"[{self.host}]" if ":" in self.host else self.host
        return f"{h}:{self.port}"

    @property
    def security_level(self) -> str:
        if self.version != "3":
            return "community"
        if not self.auth_proto:
            return "noAuthNoPriv"
        return "authPriv" if self.priv_proto else "authNoPriv"


class SnmpError(Exception):
    """Base class of all SNMP failures; messages never contain secrets. `cause` is the kind of
    failure in an operator's terms, one word, the same for every backend (the dashboard groups
    failing switches by it)."""
    cause = "error"


class SnmpTimeout(SnmpError):
    """No (acceptable) response within timeout x (1 + retries)."""
    cause = "timeout"


class SnmpUnreachable(SnmpError):
    """The agent's address cannot be reached from here: no route (ENETUNREACH) or the host does
    not answer on its link (EHOSTUNREACH, ICMP host unreachable). Not a credential problem."""
    cause = "unreachable"


class SnmpRefused(SnmpError):
    """The address answered, but with ICMP port unreachable: no SNMP agent listens on that port."""
    cause = "refused"


class SnmpAuthError(SnmpError):
    """SNMPv3 security failure: unknown user, wrong digest, decryption error, ..."""
    cause = "auth"


class SnmpProtocolError(SnmpError):
    """Malformed or hostile response, error-status from the agent, looping agent."""
    cause = "protocol"


class SnmpConfigError(SnmpError, ValueError):
    """Invalid target or arguments (bad OID, unknown protocol, ...)."""
    cause = "config"


@dataclass
class SnmpStats:
    """Cheap per-session counters for self-reporting."""
    requests: int = 0        # PDUs issued (first transmissions)
    retries: int = 0         # retransmissions (fast backend only; pysnmp retries internally)
    timeouts: int = 0        # requests that ran out of attempts
    responses: int = 0       # accepted responses
    varbinds: int = 0        # varbinds in accepted responses
    error_status: int = 0    # responses with a non-zero error-status (handled or not)
    bytes_sent: int = 0      # fast backend only
    bytes_received: int = 0  # fast backend only
    malformed: int = 0       # undecodable datagrams (fast backend)
    stray: int = 0           # datagrams matching no outstanding request (late duplicates)
    icmp_errors: int = 0     # ICMP errors reported on the socket (e.g. port unreachable)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    def add(self, other: SnmpStats) -> None:
        for k, v in asdict(other).items():
            setattr(self, k, getattr(self, k) + v)


# ---------------------------------------------------------------------------------------
# Validation helpers

def validate_target(t: SnmpTarget) -> None:
    if not isinstance(t.host, str) or not t.host:
        raise SnmpConfigError("target host is empty")
    if not isinstance(t.port, int) or not 0 < t.port < 65536:
        raise SnmpConfigError(f"bad port for {t.host}")
    if t.version not in SNMP_VERSIONS:
        raise SnmpConfigError(f"bad SNMP version {t.version!r} for {t.label}")
    if not (isinstance(t.timeout, (int, float)) and 0 < t.timeout <= 300):
        raise SnmpConfigError(f"bad timeout for {t.label}")
    if not isinstance(t.retries, int) or not 0 <= t.retries <= 20:
        raise SnmpConfigError(f"bad retries for {t.label}")
    if not isinstance(t.max_repetitions, int) or t.max_repetitions < 1:
        raise SnmpConfigError(f"bad max_repetitions for {t.label}")
    if t.version == "3":
        if not t.v3_user:
            raise SnmpConfigError(f"SNMPv3 target {t.label} has no user")
        if t.auth_proto and t.auth_proto not in AUTH_PROTOCOLS:
            raise SnmpConfigError(f"unknown auth protocol {t.auth_proto!r} for {t.label}")
        if t.priv_proto and t.priv_proto not in PRIV_PROTOCOLS:
            raise SnmpConfigError(f"unknown privacy protocol {t.priv_proto!r} for {t.label}")
        if t.priv_proto and not t.auth_proto:
            raise SnmpConfigError(f"privacy without authentication for {t.label}")
        if t.auth_proto and len(t.auth_key) < 8:
            raise SnmpConfigError(f"auth key for {t.label} is shorter than 8 characters")
        if t.priv_proto and len(t.priv_key) < 8:
            raise SnmpConfigError(f"priv key for {t.label} is shorter than 8 characters")
    elif not isinstance(t.community, str):
        raise SnmpConfigError(f"community for {t.label} must be a string")


def raw_oid(oid: str) -> bytes:
    try:
        return codec.oid_to_raw(oid)
    except codec.CodecError as e:
        raise SnmpConfigError(str(e)) from None


def credentials_text(t: SnmpTarget) -> str:
    """Which credentials a message was sent with, in words, never the secret itself."""
    source = f" from {t.credentials}" if t.credentials else ""
    if t.version != "3":
        return f"SNMPv{t.version} community{source}"
    return f"SNMPv3 user {t.v3_user!r} ({t.security_level}){source}"


def timeout_message(t: SnmpTarget) -> str:
    if t.version != "3":
        # An SNMPv1/v2c agent drops a message with a community it does not accept: silence.
        hint = "agent down, filtered, or the community not accepted"
    elif t.priv_proto:
        hint = "agent down, filtered, or a wrong privacy key"   # net-snmp drops undecryptable PDUs
    else:
        hint = "agent down or filtered"
    return (f"no answer from {t.label} after {t.retries + 1} attempt(s) of {t.timeout:g} s "
            f"with {credentials_text(t)} ({hint})")


UNREACHABLE_ERRNOS = {
    errno.ENETUNREACH: "network unreachable: no route to {label}",
    errno.EHOSTUNREACH: "host unreachable: {label} does not answer on its network (no neighbour reply, or ICMP "
                        "host unreachable)",
    errno.EADDRNOTAVAIL: "no local address to reach {label} from"}


def unreachable_from_errno(t: SnmpTarget, code: int | None) -> SnmpError | None:
    """The failure an ICMP or socket error stands for, if it says where the fault is."""
    if code in UNREACHABLE_ERRNOS:
        return SnmpUnreachable(UNREACHABLE_ERRNOS[code].format(label=t.label))
    if code == errno.ECONNREFUSED:
        return SnmpRefused(f"{t.label} answered ICMP port unreachable: no SNMP agent listens on port {t.port}")
    return None


def route_check(t: SnmpTarget, family: int, addr: tuple) -> None:
    """SnmpUnreachable when this host has no route to the agent. A UDP connect() sends nothing:
    it only asks the kernel for a route and a source address."""
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        try:
            s.connect(addr)
        except OSError as e:
            failure = unreachable_from_errno(t, e.errno)
            if failure is not None:
                raise failure from None
            raise SnmpError(f"cannot open UDP socket to {t.label}: {e.strerror or e}") from None


def status_error(label: str, op: str, status: int, culprit: str = "") -> SnmpError:
    """Exception for an error-status we cannot handle."""
    cls = SnmpAuthError if status == 16 else SnmpProtocolError   # authorizationError
    return cls(f"{label} answered {op} with {status_name(status)}{culprit}")


def pick_address(infos: list) -> tuple:
    """First IPv4 result of getaddrinfo, else the first result (e.g. IPv6 only)."""
    for info in infos:
        if info[0] == socket.AF_INET:
            return info
    return infos[0]


async def resolve(t: SnmpTarget) -> tuple[int, tuple]:
    """(address family, socket address) of the agent, IPv4 first; SnmpError when it does not resolve."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(t.host, t.port, type=socket.SOCK_DGRAM, proto=socket.IPPROTO_UDP)
    except (socket.gaierror, UnicodeError, OSError) as e:
        raise SnmpError(f"cannot resolve {t.label}: {e}") from None
    if not infos:
        raise SnmpError(f"cannot resolve {t.label}")
    family, _, _, _, addr = pick_address(infos)
    return family, addr


def status_name(es: int) -> str:
    names = codec.ERROR_STATUS_NAMES
    return f"{names[es]}({es})" if 0 <= es < len(names) else f"error-status {es}"
