"""The run form and a run over an IP port in Debian's headless chromium: the series are chosen
with the traffic page's picker (their names go into the form), the run page counts octets in
octets and Mb/s of 8-bit octets, and nothing errs in the console (CSP included).
Screenshots: /tmp/cellar-shots/run-form.png, run-ip.png."""
from __future__ import annotations

from datetime import timedelta

import pytest

from collector.core.isotime import iso
from collector.runs.models import ExperimentRun
from tests.support.browser import SHOTS, watched_page
from tests.support.status_network import build_network

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("plain_static")]


def test_a_run_over_an_ip_port_chosen_with_the_picker(browser, live_server):
    net = build_network()
    start = net["now"] - timedelta(seconds=20, milliseconds=-1)     # t1 + 1 ms: a window kept to the millisecond
    ctx, page = watched_page(browser, live_server.url, "operator", "runner", {"width": 1400, "height": 1000})
    try:
        assert page.goto(f"{live_server.url}/runs/").status == 200
        page.fill("#run-picker input[type=search]", "Gi1/0/1 transmit")
        page.click("#run-picker .results button.series >> text=ipsw Gi1/0/1 Transmit")
        # the tree: fore-a's VC 0/100, receive, by name too
        page.click("#run-picker details.switch >> text=fore-a")
        page.click("#run-picker details.port >> text=A1")
        page.click("#run-picker details.vp >> text=VP:0")
        page.click("#run-picker .vc:has(.vcname:text-is('VC:100')) button.series >> text=Receive")
        assert page.input_value("#run-series").splitlines() == ["ipsw Gi1/0/1 Transmit",
                                                                "fore-a A1 Receive VP:0 VC:100"]
        page.click("#run-picker .vc:has(.vcname:text-is('VC:100')) button.series >> text=Receive")   # again: out
        assert page.input_value("#run-series") == "ipsw Gi1/0/1 Transmit"
        page.fill('input[name="name"]', "iperf over Gi1/0/1")
        page.fill('input[name="start"]', iso(start))
        page.fill('input[name="end"]', iso(net["now"] - timedelta(seconds=5)))
        page.fill('input[name="bytes_sent"]', "14,000,000")
        page.fill('input[name="message_size"]', "1448")
        page.fill('input[name="overhead"]', "52")
        page.screenshot(path=str(SHOTS / "run-form.png"), full_page=True)
        with page.expect_navigation():
            page.click("#run-form button[type=submit]")
        run = ExperimentRun.objects.get(name="iperf over Gi1/0/1")
        assert page.url.endswith(f"/runs/{run.id}/") and run.start == start
        summary = page.inner_text("#run-summary")
        assert "ipsw Gi1/0/1 Transmit" in summary
        assert f"{start:%Y-%m-%d %H:%M:%S}.{start.microsecond // 1000:03d}" in summary     # to the millisecond
        assert "octets on Ethernet" in summary and "Ethernet header 14" in summary
        counted = page.inner_text("#series-counts")
        # 15,000,000 octets in the one 15 s poll interval that lies in the window (1 ms shorter)
        assert "octets" in counted and "Mb/s" in counted and "cells" not in counted and "payload" not in counted
        assert "8.000 Mb/s" in counted or "8.001 Mb/s" in counted
        page.screenshot(path=str(SHOTS / "run-ip.png"), full_page=True)
        assert page.errors == [], page.errors
    finally:
        ctx.close()
