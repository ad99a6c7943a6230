"""Plot images through the archive and the real renderer (kaleido driving Debian's chromium):
the PNG's pixels show the plot (two constant-rate lines where they must be), the SVG carries the
title, range and units; limits say their number; cache; saved views and image links."""
from __future__ import annotations

import io
import time
from datetime import timedelta

import numpy as np
import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from PIL import Image

from tests.support.traffic_network import RX, TX
from tests.support.users import make_user
from webapp.personal import links
from webapp.traffic import plots

pytestmark = pytest.mark.django_db(transaction=True)


def rgb(hex_colour: str) -> np.ndarray:
    return np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)])


def rows_of(img: np.ndarray, colour: str, tol: int = 40) -> np.ndarray:
    """Row index of every pixel near `colour`."""
    near = np.abs(img[:, :, :3].astype(int) - rgb(colour)).sum(axis=2) < tol
    return np.nonzero(near)[0], np.nonzero(near)[1]


def test_the_png_shows_the_plot(client, net):
    r = client.get(f"/traffic/plot.png?s={net.rx.id},{net.tx.id}&range=3h&w=900&h=450")
    assert r.status_code == 200 and r["Content-Type"] == "image/png", r.content[:200]
    img = np.asarray(Image.open(io.BytesIO(r.content)).convert("RGB"))
    assert img.shape == (450, 900, 3)
    rx_rows, rx_cols = rows_of(img, plots.PALETTE[0])
    tx_rows, tx_cols = rows_of(img, plots.PALETTE[1])
    # each constant rate is a horizontal line across most of the plot's width...
    for cols in (rx_cols, tx_cols):
        assert cols.max() - cols.min() > 600
    rx_line = np.median(rx_rows[(rx_cols > 300) & (rx_cols < 700)])
    tx_line = np.median(tx_rows[(tx_cols > 300) & (tx_cols < 700)])
    # ... at its height: y from 0 (bottom of the plot) up; transmit (50,000/s) half of receive's
    # height above the x axis. The axis (the lowest gridline) is found as the zero of the scale.
    assert TX == RX / 2 and tx_line > rx_line + 50
    white = (img > 245).all(axis=2).mean()
    assert 0.5 < white < 0.99          # a plot on white, not a blank or black image
    # A range ending now is cached for its period (CELLAR_IMAGE_CACHE_S): two requests within one
    # period share the image. A render slower than what was left of the period (a loaded machine)
    # moves into the next one: then the pair is asked again (bounded), never judged across periods.
    url = f"/traffic/plot.png?s={net.rx.id},{net.tx.id}&range=3h&w=900&h=450"
    period = settings.CELLAR_IMAGE_CACHE_S
    for _ in range(3):
        before = int(time.time()) // period
        first, again = client.get(url), client.get(url)
        if int(time.time()) // period == before:
            break
    assert again["X-Cellar-Cache"] == "hit" and again.content == first.content


def test_the_svg_has_title_range_and_units(client, net):
    r = client.get(f"/traffic/plot.svg?s={net.rx.id}&range=24h&unit=mbps_cells&tz=Europe/Berlin")
    assert r.status_code == 200 and r["Content-Type"] == "image/svg+xml"
    text = r.content.decode()
    assert "asx-1 A1 Receive" in text and "Mb/s of 53-byte cells" in text
    assert "CET" in text or "CEST" in text            # the range in the zone asked for
    assert "time (Europe/Berlin)" in text


@pytest.mark.parametrize("query, says", [
    ("s=" + ",".join(str(i) for i in range(1, 10_001)), "one plot shows at most 50"),
    ("s={rx}&w=5000", "the image width is 300 to 2400 pixels"),
    ("s={rx}&range=1y&res=raw", "a plot shows at most 100,000"),
])
def test_too_big_images_name_the_limit(client, net, query, says):
    r = client.get("/traffic/plot.png?" + query.format(rx=net.rx.id))
    assert r.status_code == 400 and says in r.content.decode(), r.content[:300]


def test_all_renders_busy_answers_429(client, net, settings, monkeypatch):
    from webapp.traffic import images

    settings.CELLAR_IMAGE_WAIT_S = 0
    settings.CELLAR_IMAGE_RENDERS = 1
    held = images.streamslots.acquire((images.PREFIX + "all",), (1,), 30)
    try:
        r = client.get(f"/traffic/plot.png?s={net.rx.id}&range=1h&w=640")
        assert r.status_code == 429 and "1 plot images are being rendered now" in r.content.decode()
        assert int(r["Retry-After"]) >= 1
    finally:
        held.release()


def test_saved_view_short_url_and_its_forms(client, net):
    r = client.post("/traffic/api/views", {"query": f"s={net.rx.id}&range=7d&unit=bps&compare=1d"})
    assert r.status_code == 201
    code = r.json()["code"]
    again = client.post("/traffic/api/views", {"query": f"s={net.rx.id}&range=7d&unit=bps&compare=1d"})
    assert again.json()["code"] == code              # one code per view
    page = client.get(f"/v/{code}")
    assert page.status_code == 302 and page.url.startswith("/traffic/?") and "compare=1d" in page.url
    for fmt, target in (("png", "/traffic/plot.png?"), ("csv", "/traffic/export.csv?"),
                        ("json", "/traffic/api/data?")):
        form = client.get(f"/v/{code}.{fmt}")
        assert form.status_code == 302 and form.url.startswith(target) and "unit=bps" in form.url
    assert client.get("/v/nosuchcode").status_code == 404
    bad = client.post("/traffic/api/views", {"query": "s=1&range=5y"})
    assert bad.status_code == 400 and "unknown range" in bad.json()["error"]


def test_an_image_link_shows_one_image_without_login_until_revoked_or_expired(client, net):
    r = client.post("/traffic/api/image-links", {"query": f"s={net.rx.id}&range=3h", "days": "2"})
    assert r.status_code == 201
    png = r.json()["png"].split("testserver", 1)[-1]
    anonymous = Client()
    shown = anonymous.get(png)
    assert shown.status_code == 200 and shown.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert "public" in shown["Cache-Control"]
    # the link shows its own selection only: a query string added to it changes nothing
    assert anonymous.get(png + f"?s={net.tx.id}").content == shown.content
    link = links.ImageLink.objects.get()
    assert link.query.endswith("&tz=UTC") and link.digest != png       # only a digest is kept
    # the owner loses the viewer role: the link stops
    from webapp.access import roles
    roles.grant(link.owner, None)
    assert anonymous.get(png).status_code == 410
    roles.grant(link.owner, "operator")
    link.expires = timezone.now() - timedelta(seconds=1)
    link.save()
    gone = anonymous.get(png)
    assert gone.status_code == 410 and "expired" in gone.content.decode()
    link.expires = timezone.now() + timedelta(days=1)
    link.save()
    links.revoke(link)
    assert anonymous.get(png).status_code == 410
    assert anonymous.get("/i/img_nothing.png").status_code == 404


def test_a_viewer_may_not_mint_links(net):
    c = Client()
    c.force_login(make_user("just-a-viewer", "viewer"))
    r = c.post("/traffic/api/image-links", {"query": f"s={net.rx.id}"})
    assert r.status_code == 403 and "operator" in r.json()["error"]
    assert c.get(f"/traffic/plot.png?s={net.rx.id}&range=1h&w=400&h=300").status_code == 200
