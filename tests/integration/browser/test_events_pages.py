"""Events in Debian's headless chromium: a plot with a reboot, a port's state change and a note
drawn as markers whose hover says what happened, and the events list with a rejected trap.
Screenshots: /tmp/cellar-shots/events-*.png (and CELLAR_SHOTS_DIR when set)."""
from __future__ import annotations

import os
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from collector.archive import rollup
from collector.events.record import record_event
from tests.support import traffic_factory as f
from tests.support.browser import SHOTS, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shot(pg, name: str) -> None:
    path = SHOTS / f"events-{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    extra = os.environ.get("CELLAR_SHOTS_DIR")
    if extra:
        shutil.copy(path, Path(extra) / path.name)


def test_markers_on_the_plot_and_the_events_list(browser, live_server, transactional_db):
    now = rollup.db_now()
    sw = f.switch("asx-events")
    a1 = f.port(sw, "A1")
    a1.oper_status = "down"
    a1.save()
    rx = f.series(a1, "in")
    f.generate(sw, f.layout(sw, [rx]), now - timedelta(hours=3), now, 15, [40_000])
    record_event("reboot", at=now - timedelta(minutes=100), switch_id=sw.id, source="poll",
                 message="agent restarted: uptime went back (up 12 s: restarted about then); 34 counters began again")
    record_event("port_state", at=now - timedelta(minutes=60), switch_id=sw.id, port_id=a1.id, source="trap",
                 message="port A1 up -> down (linkDown trap)", data={"from": "up", "to": "down"})
    record_event("note", at=now - timedelta(minutes=30), switch_id=sw.id, port_id=a1.id, source="user",
                 message="fibre to merlin swapped")
    record_event("trap_rejected", at=now - timedelta(minutes=20), source="trap",
                 message="linkUp from 127.0.0.99 rejected: unknown agent 127.0.0.99 (no switch has this address)",
                 data={"agent": "127.0.0.99", "reason": "unknown agent 127.0.0.99"})
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    log_in(ctx, live_server.url, "operator", "events-op")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(f"{live_server.url}/traffic/?s={rx.id}&range=3h")
    pg.wait_for_function("() => document.getElementById('status').textContent.includes('points per series')",
                         timeout=30000)
    marks = pg.evaluate("() => (document.getElementById('plot')._fullData || [])"
                        ".filter(t => t.meta && t.meta.role === 'events').map(t => Array.from(t.text))")
    assert len(marks) == 1 and len(marks[0]) == 3, marks
    assert any("agent restarted" in m for m in marks[0]) and any("fibre to merlin" in m for m in marks[0])
    lines = pg.evaluate("() => document.getElementById('plot').layout.shapes"
                        ".filter(s => (s.name || '').startsWith('event ')).length")
    assert lines == 3
    # hover the reboot marker: its text shows
    box = pg.locator("#plot .scatterlayer .trace:last-child .point").first.bounding_box()
    pg.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    pg.wait_for_timeout(300)
    shot(pg, "plot-markers")
    pg.goto(f"{live_server.url}/events/")
    text = pg.inner_text("#events")
    assert "fibre to merlin swapped" in text and "unknown agent 127.0.0.99" in text and "port A1 up -> down" in text
    assert pg.locator("#note-form").count() == 1
    shot(pg, "list")
    pg.goto(f"{live_server.url}/switches/asx-events/ports/A1/")
    assert "port A1 up -> down" in pg.inner_text("#events")
    assert "state from a trap at" in pg.inner_text("#port-summary")
    shot(pg, "port-page")
    assert not errors, errors
    ctx.close()
