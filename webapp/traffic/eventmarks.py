"""Events on plots (collector/events): a thin vertical line at each event that touches the plotted
series and a marker at its foot whose hover says what happened; listed in api/data as "events".
Pure functions of the marks read (collector/events/read.touching), like the burst and run bands."""
from __future__ import annotations

from collector.core.isotime import iso
from collector.events.read import Mark
from webapp.traffic.plots import hhmm, px

# Colours by what happened: red = the agent or a port went wrong, amber = counters, blue = people.
COLOURS = {"reboot": "#b42318", "discontinuity": "#b54708", "wrap": "#98a2b3", "port_state": "#c11574",
           "vp_state": "#c11574", "vc_state": "#c11574", "discovery_added": "#027a48", "discovery_removed": "#7a2e0e",
           "alert_firing": "#d92d20", "alert_resolved": "#039855", "note": "#1570ef", "trap": "#6941c6",
           "unknown_trap": "#6941c6", "trap_rejected": "#667085"}
WORDS = {"reboot": "reboot", "discontinuity": "counter reset", "wrap": "wrap", "port_state": "port state",
         "vp_state": "VP state", "vc_state": "VC state", "discovery_added": "appeared",
         "discovery_removed": "vanished", "alert_firing": "alert", "alert_resolved": "alert resolved",
         "note": "note", "trap": "trap", "unknown_trap": "unknown trap", "trap_rejected": "rejected trap"}


def events_json(marks: list[Mark]) -> list[dict]:
    return [{"id": m.id, "at": iso(m.at), "kind": m.kind, "source": m.source, "message": m.message,
             "switch": m.switch or None, "port": m.port or None} for m in marks]


def _hover(m: Mark) -> str:
    where = " ".join(x for x in (m.switch, m.port) if x)
    text = m.message.replace("<", "&lt;")
    return f"{WORDS.get(m.kind, m.kind)} at {hhmm(m.at)} UTC{(' · ' + where) if where else ''}<br>{text} ({m.source})"


def lines(marks: list[Mark]) -> list[dict]:
    """One dotted vertical line per event (wraps fainter: they are routine)."""
    return [{"type": "line", "xref": "x", "yref": "paper", "x0": px(m.at), "x1": px(m.at), "y0": 0, "y1": 1,
             "layer": "below", "name": f"event {m.kind}", "opacity": 0.35 if m.kind == "wrap" else 0.8,
             "line": {"color": COLOURS.get(m.kind, "#475467"), "width": 1, "dash": "dot"}} for m in marks]


def trace(marks: list[Mark]) -> dict | None:
    """The markers (hover for what happened), at the foot of the lines."""
    if not marks:
        return None
    return {"type": "scatter", "mode": "markers", "name": "events (hover for what)", "x": [px(m.at) for m in marks],
            "y": [0.0] * len(marks), "text": [_hover(m) for m in marks], "hovertemplate": "%{text}<extra></extra>",
            "meta": {"role": "events", "ids": [m.id for m in marks]},
            "marker": {"symbol": "triangle-up", "size": 11, "color": [COLOURS.get(m.kind, "#475467") for m in marks],
                       "line": {"width": 1, "color": "#ffffff"}}}
