"""Figure 15: a network-wide bulk export of a day of raw samples, as long CSV and as Parquet, rows/s and
bytes against psql's COPY of the same rows, and the exporting process's peak memory.

Data (--smoke: 2 switches, 1 hour): 40 switches of 50 Counter64 series (25 ports, in and out), a day of
15 s polls of each (Layout of 50, every reading and delta distinct): 11.5 million readings.
Cellar: collector/exports/bulkfiles.write of the whole network (collector/reader/bulk.py reads it a piece of
at most 200,000 rows per statement) into /dev/null, in this process: long CSV (15a) and Parquet (15b);
wall. Rows: the readings written.
Reference: Debian's `psql` running `COPY (the same rows: every reading of every counter series in the
window, with its switch, port, VPI, VCI, direction, metric, unit, object, id, counter, delta, drawn rate,
interval and flag word) TO STDOUT (FORMAT csv)`, its output to /dev/null; wall, process start included.
15c: bytes per row of the Parquet file against psql's CSV. 15d: peak RSS of `manage.py export --all
--format parquet` (a process of its own: Django, pyarrow and the batches) against the same command for
one switch: the memory an export holds does not grow with its size.
Goals: 15a and 15b at least a quarter of psql's rows/s; 15c Parquet under a quarter of the CSV's bytes;
15d under 1.5x the one-switch export's peak.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from benchmarks import db
from benchmarks.core import Context, Measure

ROOT = Path(__file__).resolve().parent.parent
PER_SWITCH = 50
GOAL_RATE, GOAL_BYTES, GOAL_RSS = 0.25, 0.25, 1.5
PSQL = next((p for p in ("/usr/bin/psql", "/usr/lib/postgresql/15/bin/psql") if os.path.exists(p)), "psql")


def build(ctx: Context):
    from django.db import connection

    from collector.archive.models import Layout, Series
    from collector.inventory.models import Port, Switch

    n_switches, hours = ctx.size(2, 40), ctx.size(1, 24)
    t0 = time.monotonic()
    Switch.objects.bulk_create([Switch(name=f"bx-{i:03d}", address="127.0.0.1", community="bench",
                                       profile="if-mib", poll_interval_s=15) for i in range(n_switches)])
    switches = list(Switch.objects.filter(name__startswith="bx-"))
    Port.objects.bulk_create([Port(switch=sw, key=str(i), if_index=i, name=f"Gi1/0/{i}", is_atm=False,
                                   port_type="ethernet", speed_bps=1_000_000_000, oper_status="up")
                              for sw in switches for i in range(1, PER_SWITCH // 2 + 1)])
    ports = {(p.switch_id, p.key): p.id for p in Port.objects.filter(switch__in=switches)}
    Series.objects.bulk_create([
        Series(switch=sw, port_id=ports[(sw.id, str(k // 2 + 1))], object_name="ifHCInOctets" if k % 2
               else "ifHCOutOctets", index=str(k // 2 + 1), kind="counter", direction="in" if k % 2 else "out",
               metric="octets", unit="octets", width=64, capacity_per_s=125_000_000)
        for sw in switches for k in range(PER_SWITCH)])
    by_switch: dict[int, list[int]] = {}
    for sid, swid in Series.objects.filter(switch__in=switches).order_by("id").values_list("id", "switch_id"):
        by_switch.setdefault(swid, []).append(sid)
    Layout.objects.bulk_create([Layout(switch_id=swid, series_ids=ids, digest=f"bx-{swid}")
                                for swid, ids in by_switch.items()])
    with connection.cursor() as cur:
        cur.execute("SELECT date_trunc('hour', now()) - interval '2 hours'")
        end = cur.fetchone()[0]
        start = end - timedelta(hours=hours)
        # Series k at poll g: a delta of (k + 1) x 15,000 + g mod 977, a reading of g x (k + 1) x 15,000 + g.
        cur.execute(f"""
INSERT INTO traffic_sample (time, uptime_cs, switch_id, layout_id, interval_ms, raw, delta, flags)
SELECT %(start)s::timestamptz + make_interval(secs => g * 15), g * 1500, l.switch_id, l.id, 15000,
       ARRAY(SELECT g * (k + 1) * 15000 + g FROM generate_series(0::bigint, {PER_SWITCH - 1}) k),
       ARRAY(SELECT (k + 1) * 15000 + g %% 977 FROM generate_series(0::bigint, {PER_SWITCH - 1}) k),
       array_fill(0::smallint, ARRAY[{PER_SWITCH}])
  FROM traffic_layout l CROSS JOIN generate_series(0::bigint, %(polls)s - 1) g
 WHERE l.digest LIKE 'bx-%%'""", {"start": start, "polls": hours * 240})
        rows = cur.rowcount
        cur.execute("ANALYZE traffic_sample")
    ctx.log(f"  bulk data: {n_switches} switches, {rows:,} sample rows in {time.monotonic() - t0:.0f} s")
    return start, end, switches[0].name


REFERENCE_SQL = """
SELECT s.time, sw.name, coalesce(p.name, t.index), coalesce(vc.vpi, vp.vpi), vc.vci, t.direction, t.metric, t.unit,
       t.object_name, u.sid, u.r, u.d,
       CASE WHEN u.d IS NOT NULL AND u.f & 8 = 0 AND s.interval_ms > 0 THEN u.d::float8 * 1000 / s.interval_ms END,
       s.interval_ms / 1000.0, nullif(u.f, 0)
  FROM traffic_sample s
  JOIN traffic_layout l ON l.id = s.layout_id
 CROSS JOIN LATERAL unnest(l.series_ids, s.raw, s.delta, s.flags) AS u(sid, r, d, f)
  JOIN traffic_series t ON t.id = u.sid AND t.kind = 'counter'
  JOIN inventory_switch sw ON sw.id = t.switch_id
  LEFT JOIN inventory_port p ON p.id = t.port_id
  LEFT JOIN inventory_virtualpath vp ON vp.id = t.vp_id
  LEFT JOIN inventory_virtualchannel vc ON vc.id = t.vc_id
 WHERE s.time >= '{lo}' AND s.time < '{hi}'"""


def _psql_env(url: str) -> tuple[str, dict]:
    """The URL without its password (never on a command line) and the environment carrying it."""
    parts = urlsplit(url)
    netloc = parts.netloc.split("@", 1)
    user = netloc[0].split(":", 1) if len(netloc) == 2 else [""]
    bare = urlunsplit((parts.scheme, (user[0] + "@" if user[0] else "") + netloc[-1], parts.path, "", ""))
    return bare, {**os.environ, "PGPASSWORD": unquote(user[1]) if len(user) == 2 else ""}


def reference(ctx: Context, start, end) -> tuple[float, int, int]:
    url, env = _psql_env(ctx.db_url)
    sql = REFERENCE_SQL.format(lo=start.isoformat(), hi=end.isoformat())
    lines = size = 0
    t0 = time.perf_counter()
    with subprocess.Popen([PSQL, "-X", "-q", url, "-c", f"COPY ({sql}) TO STDOUT (FORMAT csv)"], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        assert p.stdout is not None and p.stderr is not None
        while chunk := p.stdout.read(1 << 20):      # counted as it comes (a day is over a gigabyte)
            lines += chunk.count(b"\n")
            size += len(chunk)
        err = p.stderr.read()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"psql failed: {err.decode()[-500:]}")
    return wall, lines, size


def cellar(plan, fmt: str) -> tuple[float, int, int]:
    from collector.exports import bulkfiles

    t0 = time.perf_counter()
    with open(os.devnull, "wb") as out:
        rows, size = bulkfiles.write(plan, fmt, out)
    return time.perf_counter() - t0, rows, size


def _hwm_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0


def peak_rss(ctx: Context, start, end, *scope: str) -> tuple[float, int]:
    """(peak RSS in MB, rows) of `manage.py export ... --format parquet` in a process of its own: its
    VmHWM (the kernel's high-water mark of its resident memory), read until it exits. Not ru_maxrss:
    that counts the memory of this process at the fork, which can be gigabytes here."""
    out, err_path = ctx.work / "bulk.parquet", ctx.work / "bulk.err"
    env = {**os.environ, "DATABASE_URL": ctx.db_url}
    peak = 0
    with open(err_path, "wb") as err:
        p = subprocess.Popen([sys.executable, "manage.py", "export", *scope, "--start", start.isoformat(),
                              "--end", end.isoformat(), "--format", "parquet", "-o", str(out)], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=err)
        while p.poll() is None:
            peak = max(peak, _hwm_kb(p.pid))
            time.sleep(0.02)
    text = err_path.read_text()
    if p.returncode != 0:
        raise RuntimeError(f"manage.py export failed: {text[-800:]}")
    rows = int(text.rsplit(" rows of ", 1)[0].split()[-1].replace(",", ""))
    out.unlink(missing_ok=True)
    return peak / 1024, rows


def run(ctx: Context) -> list[Measure]:
    from collector.reader import bulk, bulkscope
    from collector.reader.bulkscope import Scope

    db.empty_traffic()
    start, end, one = build(ctx)
    series = bulkscope.series_of(Scope(all=True), start, 10**6)
    plan = bulk.plan(series, start, end, "raw", max_rows=10**10)
    reference(ctx, start, end)
    out: dict[str, list] = {"csv": [], "parquet": [], "ref": [], "rc": [], "rp": [], "bytes": []}
    rows = ref_rows = ref_bytes = 0
    sizes: dict[str, int] = {}
    for r in range(ctx.runs):
        rwall, ref_rows, ref_bytes = reference(ctx, start, end)
        out["ref"].append(ref_rows / rwall)
        for fmt in ("csv", "parquet"):
            wall, rows, sizes[fmt] = cellar(plan, fmt)
            if rows != ref_rows:
                raise RuntimeError(f"{fmt}: {rows:,} rows, psql COPY {ref_rows:,}")
            out[fmt].append(rows / wall)
        out["rc"].append(out["csv"][-1] / out["ref"][-1])
        out["rp"].append(out["parquet"][-1] / out["ref"][-1])
        ctx.log(f"  15 run {r + 1}: psql COPY {ref_rows / rwall:,.0f} rows/s, CSV {out['csv'][-1]:,.0f}, "
                f"Parquet {out['parquet'][-1]:,.0f}")
    what = f"{len(series):,} series, {rows:,} rows"
    a = Measure("15a", f"Bulk export, long CSV, whole network, a day of raw samples: {what}, "
                       f"{sizes['csv'] / 1e6:.0f} MB", "rows/s", out["csv"], out["ref"], "psql COPY (same rows) csv",
                out["rc"], "Cellar / psql COPY", f"ratio ≥ {GOAL_RATE}", met=statistics.median(out["rc"]) >= GOAL_RATE)
    b = Measure("15b", f"Bulk export, Parquet, same rows: {sizes['parquet'] / 1e6:.0f} MB", "rows/s",
                out["parquet"], out["ref"], "psql COPY (same rows) csv", out["rp"], "Cellar / psql COPY",
                f"ratio ≥ {GOAL_RATE}", met=statistics.median(out["rp"]) >= GOAL_RATE)
    per = [sizes["parquet"] / rows]
    c = Measure("15c", "Bulk export, Parquet bytes per row", "bytes/row", per, [ref_bytes / ref_rows],
                "psql COPY csv bytes/row", [per[0] / (ref_bytes / ref_rows)], "Parquet / CSV",
                f"ratio < {GOAL_BYTES}", met=per[0] / (ref_bytes / ref_rows) < GOAL_BYTES, higher_is_better=False)
    big, big_rows = peak_rss(ctx, start, end, "--all")
    small, _ = peak_rss(ctx, start, end, "--switch", one)
    d = Measure("15d", f"Peak RSS of manage.py export --all --format parquet ({big_rows:,} rows)", "MB", [big],
                [small], "the same command for one switch", [big / small], "whole network / one switch",
                f"ratio < {GOAL_RSS}", met=big / small < GOAL_RSS, higher_is_better=False)
    ctx.info["15"] = {"series": len(series), "rows": rows, "csv_bytes": sizes["csv"],
                      "parquet_bytes": sizes["parquet"], "psql_bytes": ref_bytes, "rss_mb": big, "rss_one_mb": small}
    return [a, b, c, d]
