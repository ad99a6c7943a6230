"""Prometheus metrics of the poller itself (served by the worker when CELLAR_METRICS_PORT is set)."""
from __future__ import annotations

from prometheus_client import Counter, Histogram

POLLS = Counter("cellar_polls_total", "Poll attempts by switch and outcome", ["switch", "status"])
POLL_SECONDS = Histogram("cellar_poll_duration_seconds", "Wall time of a poll (SNMP only)", ["switch"],
                         buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30))
VARBINDS = Counter("cellar_varbinds_total", "Varbinds received", ["switch"])
SAMPLES = Counter("cellar_samples_total", "Counter readings stored", ["switch"])
SKIPPED = Counter("cellar_polls_skipped_total", "Polls dropped: late or already running", ["switch", "reason"])
VALUE_NOTES = Counter("cellar_value_notes_total", "Counter values read by a rule or not used, by reason",
                      ["switch", "reason", "used"])
SPOOLED = Counter("cellar_polls_spooled_total", "Polls spooled to disk while the database was down", ["switch"])


def observe_poll(switch: str, status: str, seconds: float, varbinds: int, samples: int) -> None:
    POLLS.labels(switch, status).inc()
    POLL_SECONDS.labels(switch).observe(seconds)
    VARBINDS.labels(switch).inc(varbinds)
    SAMPLES.labels(switch).inc(samples)


def observe_notes(switch: str, notes: list) -> None:
    counts: dict[tuple[str, bool], int] = {}
    for n in notes:
        counts[(n.reason, n.used)] = counts.get((n.reason, n.used), 0) + 1
    for (reason, used), n in counts.items():
        VALUE_NOTES.labels(switch, reason, "yes" if used else "no").inc(n)
