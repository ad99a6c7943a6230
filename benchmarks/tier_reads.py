"""Figure 18, second half: the tiers settled into blocks by Cellar's settle run, what they take on
disk, and what the readers of the tiers take before and after, in one run.

Data: figure 18's (figure 5's switches, a week, rolled up). The rollup is first carried (empty
steps) past the end of the longest block span holding the data, so that every settled tier's spans
are final; then the readers are timed on rows (before), `collector/archive/settle.run` moves the
settled tiers' buckets (1-minute and 15-minute; the hourly tier stays rows) into blocks, and the
same readers are timed again on the blocks (after). Each reader is the view a page calls (Django's
RequestFactory, no HTTP), the median of REPS calls per run; the ratio is after / before, goal ≤ 1.2
(the issue: reads no slower than today by more than 20 %). The answers must be equal before and
after (else the figure fails).

- 18f: bytes on disk per settled counter-bucket: the two block tables (hypertable_detailed_size:
  heap, TOAST, indexes) over the buckets they hold, against the rows those buckets took.
- 18g-18k: a day of one port at 1 minute (plot data), the week of 48 ports at 15 minutes, the 95th
  percentile of one port over the week (1-minute rates), the CSV of 48 ports over a day at 1 minute,
  the top talkers of a day.
"""
from __future__ import annotations

import json
import math
import statistics
import time
from datetime import UTC, datetime, timedelta

from benchmarks.core import Context, Measure

REPS = 5
GOAL = 1.2


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _call(view, path: str, query: dict) -> tuple[float, bytes]:
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    request = RequestFactory().get(path, query)
    request.user = AnonymousUser()
    t0 = time.perf_counter()
    response = view(request)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    wall = time.perf_counter() - t0
    if response.status_code != 200:
        raise RuntimeError(f"{path} answered {response.status_code}: {body[:300]!r}")
    return wall, body


def _stable(body: bytes) -> bytes:
    """The answer without what changes from call to call (the time of the call, its duration)."""
    try:
        doc = json.loads(body)
    except ValueError:
        return body
    if isinstance(doc, dict):
        for key in ("now", "server_ms", "notes"):
            doc.pop(key, None)
    return json.dumps(doc, sort_keys=True).encode()


def _same(a: bytes, b: bytes) -> bool:
    """Equal answers: CSV byte for byte; JSON with its floats to 1e-12 relative (a sum of float
    averages over rows in another order, the talkers' totals, differs in its last bits)."""
    if a == b:
        return True
    try:
        x, y = json.loads(a), json.loads(b)
    except ValueError:
        return False

    def close(p, q) -> bool:
        if isinstance(p, float) and isinstance(q, float):
            return math.isclose(p, q, rel_tol=1e-12)
        if isinstance(p, dict) and isinstance(q, dict):
            return p.keys() == q.keys() and all(close(p[k], q[k]) for k in p)
        if isinstance(p, list) and isinstance(q, list):
            return len(p) == len(q) and all(close(u, v) for u, v in zip(p, q, strict=True))
        return p == q
    return close(x, y)


def _difference(a: bytes, b: bytes) -> str:
    """Where two answers first differ, with some context."""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"at byte {at}: {a[max(0, at - 120):at + 80]!r} against {b[max(0, at - 120):at + 80]!r}"


def readers(start: datetime, days: int) -> list[tuple[str, str, object, str, dict]]:
    """(key, title, view, path, query) of each reader timed."""
    from collector.archive.models import Series
    from webapp.talkers import views as talkers
    from webapp.traffic import views as traffic

    ids = {(s.switch.name, s.object_name, s.index): s.id for s in Series.objects.select_related("switch")
           .filter(switch__name="bench-store-ip48", object_name__in=("ifHCInOctets", "ifHCOutOctets"))}
    port = f"{ids[('bench-store-ip48', 'ifHCInOctets', '1')]},{ids[('bench-store-ip48', 'ifHCOutOctets', '1')]}"
    ports = ",".join(str(ids[("bench-store-ip48", "ifHCInOctets", str(n))]) for n in range(1, 49))
    day = start + timedelta(days=max(0, days - 2))
    week = {"start": _iso(start), "end": _iso(start + timedelta(days=days))}
    one_day = {"start": _iso(day), "end": _iso(day + timedelta(days=1))}
    return [
        ("18g", "Plot data of one port over a day at 1 minute", traffic.data, "/traffic/api/data",
         {"s": port, **one_day, "res": "1m", "figure": "1", "points": "0", "p95": "0"}),
        ("18h", "Plot data of 48 ports over the data at 15 minutes", traffic.data, "/traffic/api/data",
         {"s": ports, **week, "res": "15m", "figure": "1", "points": "0", "p95": "0"}),
        ("18i", "95th percentile of one port over the data", traffic.p95, "/traffic/api/p95", {"s": port, **week}),
        ("18j", "CSV of 48 ports over a day at 1 minute", traffic.export, "/traffic/export.csv",
         {"s": ports, **one_day, "res": "1m"}),
        ("18k", "Top talkers of a day", talkers.api, "/talkers/api", {**one_day, "n": "20", "entity": "any"}),
    ]


def _time_all(ctx: Context, cases) -> tuple[dict[str, list[float]], dict[str, bytes]]:
    walls: dict[str, list[float]] = {key: [] for key, *_ in cases}
    answers: dict[str, bytes] = {}
    for key, _, view, path, query in cases:
        answers[key] = _stable(_call(view, path, query)[1])        # warm-up, and the answer
    for _ in range(ctx.runs):
        for key, _, view, path, query in cases:
            walls[key].append(statistics.median(_call(view, path, query)[0] * 1000 for _ in range(REPS)))
    return walls, answers


def _sizes(cur) -> tuple[int, int]:
    cur.execute("SELECT coalesce((SELECT total_bytes FROM hypertable_detailed_size('traffic_settled_tier')), 0) "
                "+ coalesce((SELECT total_bytes FROM hypertable_detailed_size('traffic_settled_tier_series')), 0), "
                "(SELECT coalesce(sum(buckets), 0) FROM traffic_settled_tier)")
    return cur.fetchone()


def run(ctx: Context, data_start: datetime, days: int) -> list[Measure]:
    """Carry the rollup past the data's spans, time the readers, settle, time them again."""
    from django.db import connection

    from collector.archive import rollup, settle
    from collector.archive.tiers import SETTLED_TIERS, TIER

    span_end = datetime.fromtimestamp(TIER["1h"].block_start(int(data_start.timestamp())), UTC) + TIER["1h"].block
    until = span_end + timedelta(days=1, minutes=5)
    for _ in range(1000):
        lag = int((rollup.db_now() - until).total_seconds())
        if rollup.run(budget_s=600, lag_s=lag).caught_up:
            break
    with connection.cursor() as cur:
        sizes = {}
        for tier in SETTLED_TIERS:
            cur.execute(f"SELECT total_bytes FROM hypertable_detailed_size('{tier.table}')")
            sizes[tier.name] = cur.fetchone()[0] or 0
        cur.execute("SELECT " + " + ".join(f"(SELECT count(*) FROM {TIER[n].table})" for n in sizes))
        buckets_rows = cur.fetchone()[0]
    cases = readers(data_start, days)
    before, answers = _time_all(ctx, cases)
    t0 = time.monotonic()
    for _ in range(100):
        if settle.run(budget_s=600, now=until + timedelta(days=3)).caught_up:
            break
    settle_s = time.monotonic() - t0
    with connection.cursor() as cur:
        stored, buckets = _sizes(cur)
        cur.execute("SELECT t.tier, sum(octet_length(t.block)) + coalesce((SELECT sum(octet_length(c.block)) "
                    "FROM traffic_settled_tier_series c WHERE c.tier = t.tier), 0), sum(t.buckets) "
                    "FROM traffic_settled_tier t GROUP BY t.tier ORDER BY 1")
        per_tier = {name: size / n for name, size, n in cur.fetchall()}
    if buckets != buckets_rows:
        raise RuntimeError(f"settled {buckets} buckets of {buckets_rows}")
    after, again = _time_all(ctx, cases)
    for key in answers:
        if not _same(again[key], answers[key]):
            raise RuntimeError(f"{key}: the answer read from blocks differs from the answer read from rows: "
                               f"{_difference(answers[key], again[key])}")
    rows_b = sum(sizes.values()) / buckets
    names = " and ".join(sizes)
    out = [Measure("18f", f"The {names} tiers settled by Cellar's settle run: {buckets:,} buckets stored as "
                          "blocks (both block tables: heap, TOAST, indexes)", "bytes / counter-bucket",
                   [stored / buckets] * ctx.runs, [rows_b] * ctx.runs, "the same buckets as rows",
                   [stored / buckets / rows_b] * ctx.runs, "blocks / rows", "≤ 4 bytes",
                   met=stored / buckets <= 4.0, higher_is_better=False)]
    out[0].notes.append(f"settling took {settle_s:.1f} s ({settle_s / buckets * 1e6:.1f} us a bucket, raw days "
                        "included); the blocks alone, bytes a bucket: "
                        + ", ".join(f"{name} {b:.2f}" for name, b in per_tier.items()))
    for key, title, *_ in cases:
        ratio = [a / b for a, b in zip(after[key], before[key], strict=True)]
        out.append(Measure(key, f"{title}, read from settled blocks", "ms", after[key], before[key],
                           "the same view on the same buckets as rows, same run", ratio, "blocks / rows",
                           f"ratio ≤ {GOAL:g}", met=statistics.median(ratio) <= GOAL, higher_is_better=False))
    return out
