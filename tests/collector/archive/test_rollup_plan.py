"""collector/archive/rollup_plan.py: what the rollup and retention do next, as pure plans."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from collector.archive import rollup_plan, tiers
from collector.archive.rollup_plan import Step
from collector.archive.tiers import TIERS

T = datetime(2026, 1, 1, tzinfo=UTC)


def test_plan_forward_chains_tiers_and_bounds_each_step():
    done = {"1m": T, "15m": T, "1h": T, "1d": T}
    steps = rollup_plan.plan_forward(done, T + timedelta(days=3, minutes=7, seconds=30))
    assert steps[0] == Step("1m", T, T + tiers.FORWARD_STEP)
    # coarser tiers may use what the finer tier's step of this same run will have produced
    assert steps[1] == Step("15m", T, T + timedelta(hours=6))
    assert steps[2] == Step("1h", T, T + timedelta(hours=6))
    assert [s.tier for s in steps] == ["1m", "15m", "1h"]    # no whole day yet for 1d


def test_plan_forward_stops_at_the_horizon_and_whole_buckets():
    done = {"1m": T, "15m": T, "1h": T, "1d": T}
    steps = rollup_plan.plan_forward(done, T + timedelta(minutes=44, seconds=59))
    assert steps == [Step("1m", T, T + timedelta(minutes=44)), Step("15m", T, T + timedelta(minutes=30))]
    assert rollup_plan.plan_forward({"1m": None, "15m": None, "1h": None, "1d": None}, T) == []
    assert rollup_plan.plan_forward(done, T) == []


def test_coalesce_merges_consecutive_buckets():
    m = [T + timedelta(minutes=k) for k in (0, 1, 2, 5, 6, 9)]
    assert rollup_plan.coalesce(m + m[:2], 60) == [(T, T + timedelta(minutes=3)),
                                              (T + timedelta(minutes=5), T + timedelta(minutes=7)),
                                              (T + timedelta(minutes=9), T + timedelta(minutes=10))]


def test_plan_invalidations_respects_watermarks_and_retention():
    late = [(7, T + timedelta(minutes=16)), (7, T + timedelta(minutes=17)), (7, T + timedelta(hours=30)),
            (8, T - timedelta(days=40))]
    done = {"1m": T + timedelta(hours=31), "15m": T + timedelta(hours=30), "1h": T + timedelta(hours=2), "1d": T}
    cut = {"raw": T - timedelta(days=30), "1m": T - timedelta(days=35), "15m": None, "1h": None, "1d": None}
    steps = rollup_plan.plan_invalidations(late, done, cut)
    assert Step("1m", T + timedelta(minutes=16), T + timedelta(minutes=18), 7) in steps
    assert Step("1m", T + timedelta(hours=30), T + timedelta(hours=30, minutes=1), 7) in steps
    assert Step("15m", T + timedelta(minutes=15), T + timedelta(minutes=30), 7) in steps
    # the 15m tier has not passed hour 30 yet: the forward pass will compute it
    assert not any(s.tier == "15m" and s.lo >= T + timedelta(hours=30) for s in steps)
    assert Step("1h", T, T + timedelta(hours=1), 7) in steps
    assert not any(s.tier == "1d" and s.switch_id == 7 for s in steps)   # the 1d tier has not passed T yet
    # switch 8's raw and 1m data are gone (retention): its 1m and 15m buckets are left as they
    # are; coarser ones may be rebuilt from the 15m/1h rows, which are kept (same result)
    assert {s.tier for s in steps if s.switch_id == 8} == {"1h", "1d"}
    order = [s.tier for s in steps]
    assert order == sorted(order, key=[t.name for t in TIERS].index)


def test_plan_retention_never_drops_what_the_next_tier_lacks():
    now = T + timedelta(days=100)
    days = {"raw": 30, "1m": 60, "15m": 0, "1h": 400, "1d": 0, "poll_log": 10}
    done = {"1m": T + timedelta(days=50), "15m": T + timedelta(days=20), "1h": T + timedelta(days=99), "1d": None}
    plan = rollup_plan.plan_retention(now, days, done)
    assert plan["raw"] == T + timedelta(days=50)              # not past what the 1m tier has
    assert plan["1m"] == T + timedelta(days=20)               # 15m lags: keep 1m until it has it
    assert "15m" not in plan and "1d" not in plan             # kept forever
    assert "1h" not in plan                                   # the 1d tier never ran: keep 1h
    assert plan["poll_log"] == now - timedelta(days=10)


def test_plan_recompute_covers_whole_buckets_below_each_watermark():
    done = {"1m": T + timedelta(days=2), "15m": T + timedelta(days=2), "1h": T + timedelta(days=1), "1d": T}
    cut = {"raw": None, "1m": None, "15m": None, "1h": None, "1d": None}
    steps = rollup_plan.plan_recompute(T + timedelta(hours=5, minutes=7), T + timedelta(hours=5, minutes=20), done, cut)
    assert steps == [Step("1m", T + timedelta(hours=5, minutes=7), T + timedelta(hours=5, minutes=20)),
                     Step("15m", T + timedelta(hours=5), T + timedelta(hours=5, minutes=30)),
                     Step("1h", T + timedelta(hours=5), T + timedelta(hours=6))]
