"""The worker's start-up hooks (collector.poller.celery_app)."""
from __future__ import annotations

import gc
import weakref

from celery.signals import worker_process_init, worker_ready

from collector.poller import celery_app  # noqa: F401  (connects the start-up hooks)


class _Node:
    me: object = None


def test_worker_start_freezes_the_startup_heap():
    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        worker_ready.send(sender=None)        # what a starting worker sends once it has started
        frozen = gc.get_freeze_count()
        assert frozen > 10_000                # Django, Celery and the modules, out of the collector's reach
        # Objects made later are still collected: a cycle created now is freed by gc.collect().
        node = _Node()
        node.me = node
        alive = weakref.ref(node)
        del node
        gc.collect()
        assert alive() is None
    finally:
        gc.set_threshold(700, 10, 10)
        gc.unfreeze()


def test_worker_start_raises_the_collector_thresholds_and_young_cycles_are_still_freed_on_their_own():
    before = gc.get_threshold()
    gc.unfreeze()
    try:
        worker_ready.send(sender=None)
        assert gc.get_threshold() == celery_app.GC_THRESHOLDS
        node = _Node()
        node.me = node
        alive = weakref.ref(node)
        del node
        # No gc.collect(): the allocations of polling (more than the young threshold, kept alive)
        # set off a young collection, which frees the cycle.
        kept = [(i,) for i in range(celery_app.GC_THRESHOLDS[0] + 10_000)]
        assert alive() is None and len(kept) > celery_app.GC_THRESHOLDS[0]
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def test_prefork_children_freeze_too():
    gc.unfreeze()
    try:
        worker_process_init.send(sender=None)
        assert gc.get_freeze_count() > 10_000
    finally:
        gc.set_threshold(700, 10, 10)
        gc.unfreeze()
