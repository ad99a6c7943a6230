"""Shared by the tests of collector/core/snmp.py (test_snmp.py against a real snmpd,
test_snmp_hostile_agents.py against the in-process FakeAgent): OIDs and columns of the
net-snmp agent, the secrets that must never leak, the (version, backend) combinations,
`run`, `target_for`, `assert_no_secrets`, and the comparison of our results with the
net-snmp command-line tools (`tool_walk`, `flatten`, `compare_with_reference`).  The `agent`
fixture is in conftest.py."""

from __future__ import annotations

import asyncio

from collector.core.snmp_codec import Counter64Value
from collector.core.snmp_types import SnmpTarget
from tests.support.agents import NetSnmpAgent, parse_tool_output

SYS_DESCR = "1.3.6.1.2.1.1.1.0"
SYS_OBJECT_ID = "1.3.6.1.2.1.1.2.0"
SYS_UPTIME = "1.3.6.1.2.1.1.3.0"
IF_TABLE = "1.3.6.1.2.1.2.2.1"
IF_X_TABLE = "1.3.6.1.2.1.31.1.1.1"
HR_SW_INSTALLED = "1.3.6.1.2.1.25.6.3.1"
IP_AD_ENT_ADDR = "1.3.6.1.2.1.4.20.1.1"

IF_COLUMNS = [f"{IF_TABLE}.{i}" for i in range(1, 23)]
IF_X_COLUMNS = [f"{IF_X_TABLE}.{i}" for i in range(1, 20)]
HR_SW_COLUMNS = [f"{HR_SW_INSTALLED}.{i}" for i in range(1, 6)]

# distinctive secrets: must never show up in repr / exceptions
SECRET_COMMUNITY = "c0mmun1ty-S3CRET-x7"
SECRET_AUTH = "authkey-S3CRET-q9w8"
SECRET_PRIV = "privkey-S3CRET-z5t4"
SECRETS = (SECRET_COMMUNITY, SECRET_AUTH, SECRET_PRIV)

KINDS = [  # (name, backend)
    ("v1", "fast"), ("v1", "pysnmp"), ("v2c", "fast"), ("v2c", "pysnmp"),
    ("v3auth", "pysnmp"), ("v3priv", "pysnmp"), ("v3md5des", "pysnmp"),
]
KIND_IDS = [f"{k}-{b}" for k, b in KINDS]
V1V2_BACKENDS = [("1", "fast"), ("1", "pysnmp"), ("2c", "fast"), ("2c", "pysnmp")]
V1V2_IDS = [f"v{v}-{b}" for v, b in V1V2_BACKENDS]


def run(coro):
    return asyncio.run(coro)


def target_for(agent: NetSnmpAgent, kind: str, **kw) -> SnmpTarget:
    if kind in ("v1", "v2c"):
        return SnmpTarget("127.0.0.1", agent.port, version=kind[1:], community=agent.community,
                          **kw)
    u = agent.v3_users[{"v3auth": "authnopriv", "v3priv": "authpriv",
                        "v3md5des": "md5des"}[kind]]
    return SnmpTarget("127.0.0.1", agent.port, version="3", v3_user=u.name,
                      auth_proto=u.auth_proto, auth_key=u.auth_key, priv_proto=u.priv_proto,
                      priv_key=u.priv_key, **kw)


def assert_no_secrets(*objs, secrets=SECRETS):
    for obj in objs:
        texts = [str(obj), repr(obj)]
        if isinstance(obj, BaseException):
            # neither the message nor anything chained to it
            e = obj
            while e is not None:
                texts += [str(e), repr(e), repr(e.args)]
                e = e.__cause__ or e.__context__
        for text in texts:
            for s in secrets:
                assert s not in text, f"secret leaked in {text!r}"


def tool_value(typ: str, text: str):
    """Value of a net-snmp `-On -Ob -Oe -Ox` output line, as collector.core.snmp maps it."""
    if typ == "Counter64":                 # the session keeps the type: a 64-bit counter
        return Counter64Value(int(text.split()[0]))
    if typ in ("INTEGER", "Counter32", "Gauge32", "UInteger32"):
        return int(text.split()[0])
    if typ == "Timeticks":
        return int(text.split(")")[0].lstrip("("))
    if typ == "Hex-STRING":
        return bytes.fromhex(text.replace("\n", " "))
    if typ == '""':
        return b""
    if typ == "STRING":
        return text.strip('"').encode("latin-1")
    if typ == "OID":
        return text.lstrip(".")
    if typ == "IpAddress":
        return text.strip()
    raise AssertionError(f"unexpected tool type {typ!r}")


def tool_walk(agent: NetSnmpAgent, subtree: str) -> dict[str, object]:
    out = agent.run_tool("snmpbulkwalk", subtree, version="2c", extra=("-Cr50",))
    return {oid: tool_value(t, v) for oid, (t, v) in parse_tool_output(out).items()
            if oid.startswith(subtree + ".")}


def flatten(result: dict) -> dict[str, object]:
    return {f"{col}.{'.'.join(map(str, idx))}": v for col, rows in result.items()
            for idx, v in rows.items()}


def compare_with_reference(ours: dict, before: dict, after: dict):
    """Our walk happened between two snmpbulkwalk runs: counters may have moved and other
    tests may add or remove interfaces meanwhile; rows present in both references must be
    in ours, with a value equal to one of them (or between them, for counters)."""
    stable = set(before) & set(after)
    assert stable, "empty reference walk"
    assert stable <= set(ours), sorted(stable - set(ours))[:10]
    assert set(ours) <= set(before) | set(after), sorted(set(ours) - set(before) - set(after))
    for oid in stable:
        v, b, a = ours[oid], before[oid], after[oid]
        assert type(v) is type(b), (oid, v, b)
        if v == b or v == a:
            continue
        assert isinstance(v, int) and b <= v <= a, (oid, b, v, a)
