"""collector/poller/sweep.py: only allow-listed networks, at most so many addresses, at a bounded rate."""
from __future__ import annotations

import asyncio
import time

import pytest

from collector.poller import sweep

ALLOWED = ["192.0.2.0/24", "198.51.100.0/25", "2001:db8::/120"]
# network asked, CELLAR_SWEEP_MAX_ADDRESSES, the refusal (None: allowed)
CASES = {
    "inside": ("192.0.2.0/28", 4096, None),
    "the whole allowed network": ("198.51.100.0/25", 4096, None),
    "one address": ("192.0.2.7/32", 4096, None),
    "IPv6 inside": ("2001:db8::/124", 4096, None),
    "outside": ("10.0.0.0/24", 4096, "10.0.0.0/24 is not inside the networks that may be swept (192.0.2.0/24, "),
    "overlapping but larger": ("192.0.2.0/23", 4096, "is not inside"),
    "too many addresses": ("192.0.2.0/24", 100, "holds 254 addresses; a sweep probes at most 100"),
    "not a network": ("192.0.2.0/33", 4096, "is not a network"),
}


@pytest.mark.parametrize("text, most, error", list(CASES.values()), ids=list(CASES))
def test_which_networks_may_be_swept(settings, text, most, error):
    settings.CELLAR_SWEEP_NETWORKS = ALLOWED
    settings.CELLAR_SWEEP_MAX_ADDRESSES = most
    if error is None:
        assert str(sweep.check_network(text)) == text
    else:
        with pytest.raises(sweep.SweepRefused) as refused:
            sweep.check_network(text)
        assert error in str(refused.value)


def test_sweeping_is_off_without_an_allow_list(settings):
    settings.CELLAR_SWEEP_NETWORKS = []
    with pytest.raises(sweep.SweepRefused, match="sweeping is off"):
        sweep.check_network("192.0.2.0/24")


def test_the_pacer_spaces_probes_at_the_rate():
    async def main() -> float:
        pacer = sweep.Pacer(50.0)
        t0 = time.monotonic()
        await asyncio.gather(*(pacer.wait() for _ in range(26)))
        return time.monotonic() - t0
    elapsed = asyncio.run(main())
    assert 0.49 <= elapsed < 0.7        # 26 probes at 50 a second: the last one 25/50 s after the first
