"""What the audit records: one line per model (called from AuditConfig.ready()).

Models are named by label: the audit sits below the apps it watches and imports none of them.
Fields that discovery or the poller rewrite on their own (facts read from the agent, last-seen
times) are left out, so a discovery run records nothing unless someone's setting changed.
A later model (alert rules) is one more line: track("alerts.AlertRule").
"""
from __future__ import annotations

from collector.audit.capture import track

# Discovery rewrites ports and channel endpoints every few minutes (in bulk, or through
# update_or_create for VCs): only edits by hand, in the admin or the API, are recorded.
BY_HAND = ("admin", "api")
DISCOVERED = ("first_seen", "last_seen", "gone_at")


def register() -> None:
    track("inventory.Switch", exclude=("detected_profile", "sys_object_id", "sys_descr", "sys_name", "switch_type",
                                       "software_version", "hardware_version", "port_count", "uptime_cs",
                                       "uptime_at", "discovered_at"))
    track("inventory.Host")
    track("inventory.CredentialSet")
    # Inference rewrites a link's evidence, confidence and conflict at every run: what is recorded is a link
    # appearing, going, and a person (or inference) changing its state.
    track("inventory.Link", exclude=("evidence", "confidence", "conflict", "inferred_at"))
    track("inventory.Port", only=("name", "label", "description"), actions=("update",), sources=BY_HAND)
    track("inventory.VirtualChannel", exclude=(*DISCOVERED, "up_since"), actions=("update",), sources=BY_HAND)
    track("runs.ExperimentRun")
    # An import creates the series (and may change its source or description); the cached extent
    # (first, last, n_points) is rewritten by every import and is not an edit.
    track("external.ExternalSeries", exclude=("first", "last", "n_points"))
    # Groups (their rule lines and tags with them: what a group means) and bills (money).
    track("groups.Group")
    track("groups.Rule")
    track("groups.Tag")
    track("billing.Bill")
