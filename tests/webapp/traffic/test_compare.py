"""Period comparison through the archive: samples with a daily shape and a ripple that differs
day to day, rolled up; the compare line of the API and the compare columns of the CSV must equal
the earlier period's own CSV (the reviewer's check), and bad offsets say their limit."""
from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta

import pytest

from collector.archive import rollup
from collector.archive.rollup import floor_time
from tests.support import traffic_factory as f

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def varied(transactional_db):
    """Three days of 15 s samples of two series whose values differ from day to day, rolled up."""
    now = rollup.db_now()
    end = floor_time(now, 60) - timedelta(minutes=2)
    start = end - timedelta(days=3)
    sw = f.switch("asx-c")
    p = f.port(sw, "A1")
    rx, tx = f.series(p, "in"), f.series(p, "out")
    lay = f.layout(sw, [rx, tx])
    f.generate(sw, lay, start, end, 15, [40_000, 25_000])
    rollup.run(budget_s=300)
    return {"rx": rx, "tx": tx, "start": start, "end": end}


def rows(client, query: str) -> list[list[str]]:
    r = client.get(f"/traffic/export.csv?{query}")
    assert r.status_code == 200, r.content[:300]
    return list(csv.reader(io.StringIO(b"".join(r.streaming_content).decode())))


def iso(t) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_compare_line_equals_the_earlier_periods_csv(client, varied):
    rx = varied["rx"]
    hi = floor_time(varied["end"], 900)
    lo = hi - timedelta(hours=12)
    q = f"s={rx.id}&start={iso(lo)}&end={iso(hi)}&res=15m"
    body = client.get(f"/traffic/api/data?{q}&compare=1d&figure=1").json()
    (line,) = body["compare"]
    assert line["series"] == rx.id and line["offset"] == "1d" and "1 day earlier" in line["label"]
    earlier = rows(client, f"s={rx.id}&start={iso(lo - timedelta(days=1))}&end={iso(hi - timedelta(days=1))}&res=15m")
    by_time = {r[0]: float(r[1]) for r in earlier[1:] if r[1]}
    got = dict(zip(line["points"]["t"], line["points"]["avg"]))
    assert len(by_time) == 48 and set(got) == set(by_time)
    for t, v in by_time.items():
        assert got[t] == pytest.approx(v, rel=1e-12), t
    # ... and it is not the later period's line (the data differs from day to day)
    now_line = body["series"][0]["points"]["avg"]
    assert any(abs(a - b) > 1 for a, b in zip(now_line, line["points"]["avg"]))
    # the figure draws it dashed, in the series' colour, with its own legend entry, moved a day on
    traces = [t for t in body["figure"]["data"] if (t.get("meta") or {}).get("role") == "compare"]
    (tr,) = traces
    main = next(t for t in body["figure"]["data"] if (t.get("meta") or {}).get("role") == "average")
    assert tr["line"]["dash"] == "dash" and tr["line"]["color"] == main["line"]["color"] and tr["showlegend"]
    assert tr["name"] == line["label"]
    xs = [x for x in f.decode(tr["x"]) if x is not None]
    assert min(xs) == pytest.approx(lo.timestamp() * 1000)
    ys = [y for y in f.decode(tr["y"]) if y is not None]
    assert ys[0] == pytest.approx(by_time[iso(lo - timedelta(days=1))], rel=1e-6)


def test_the_csv_carries_the_compare_columns_at_the_later_times(client, varied):
    rx, tx = varied["rx"], varied["tx"]
    hi = floor_time(varied["end"], 60)
    lo = hi - timedelta(hours=2)
    q = f"s={rx.id},{tx.id}&start={iso(lo)}&end={iso(hi)}&res=1m"
    both = rows(client, q + f"&compare={tx.id}:1d")
    head = both[0]
    tx_label = head[7].removesuffix(" average [cells/s]")
    assert head[13] == f"{tx_label} (1 day earlier) average [cells/s]" and len(head) == 1 + 6 * 3
    earlier = rows(client, f"s={tx.id}&start={iso(lo - timedelta(days=1))}&end={iso(hi - timedelta(days=1))}&res=1m")
    want = {r[0]: r[1:] for r in earlier[1:]}
    assert len(both) - 1 == len(want) == 120
    for r in both[1:]:
        t = datetime.fromisoformat(r[0].replace("Z", "+00:00")) - timedelta(days=1)
        assert r[13:19] == want[iso(t)], r[0]
    # the plot's own columns are the plain CSV's
    plain = rows(client, q)
    assert [r[:13] for r in both] == [r[:13] for r in plain][:1] + [r[:13] for r in plain[1:]]


@pytest.mark.parametrize("compare, says", [
    ("30d", "before the archive's first data"),
    ("2x", "give an offset such as 1d"),
    ("0d", "more than zero"),
    ("999:1d", "series 999 is not in the plot"),
    ("1d,2d,3d,4d,5d", "compares at most 4"),
])
def test_bad_compare_says_why_and_the_limit(client, varied, compare, says):
    r = client.get(f"/traffic/api/data?s={varied['rx'].id}&range=24h&compare={compare}")
    assert r.status_code == 400 and says in r.json()["error"], r.json()
    if compare == "30d":
        assert "an offset of at most 3 days" in r.json()["error"]
    c = client.get(f"/traffic/export.csv?s={varied['rx'].id}&range=24h&compare={compare}")
    assert c.status_code == 400 and says in c.content.decode()


def test_compare_partly_before_the_archive_draws_what_exists(client, varied):
    body = client.get(f"/traffic/api/data?s={varied['rx'].id}&range=7d&compare=1d").json()
    (line,) = body["compare"]
    assert 0 < line["stats"]["coverage"] < 1
