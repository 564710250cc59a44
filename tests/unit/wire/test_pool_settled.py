"""BrokerPool.settled: one task per broker, in threads (at most MAX_THREADS), each task's
result or exception, in the order given; an interrupt of the waiting thread leaves at once and
no task starts after it."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from kgroup.core.config import ClusterConfig
from kgroup.core.models import BrokerNode
from kgroup.core.wire.pool import MAX_THREADS, BrokerPool

NODES = [BrokerNode(i, f"b{i}", 9092) for i in range(3 * MAX_THREADS)]


def new_pool() -> BrokerPool:
    return BrokerPool(ClusterConfig("127.0.0.1:9", timeout_s=5))  # never connects here


def test_every_task_runs_once_and_outcomes_keep_the_given_order() -> None:
    running, most = 0, 0
    lock = threading.Lock()

    def task(i: int):
        def run() -> int:
            nonlocal running, most
            with lock:
                running += 1
                most = max(most, running)
            time.sleep(0.01)
            with lock:
                running -= 1
            if i % 5 == 0:
                raise ValueError(f"broker {i} failed")
            return i * 10

        return run

    outcomes = new_pool().settled({node: task(node.id) for node in NODES})
    assert list(outcomes) == NODES
    for node, outcome in outcomes.items():
        if node.id % 5 == 0:
            assert isinstance(outcome, ValueError) and str(outcome) == f"broker {node.id} failed"
        else:
            assert outcome == node.id * 10
    assert 1 < most <= MAX_THREADS


def test_one_task_runs_in_the_calling_thread() -> None:
    outcome = new_pool().settled({NODES[0]: lambda: threading.current_thread().name})
    assert outcome == {NODES[0]: threading.current_thread().name}


def test_an_interrupt_leaves_at_once_and_starts_no_more_tasks() -> None:
    main = threading.main_thread()
    assert threading.current_thread() is main
    gate = threading.Event()
    started: list[int] = []

    def task(i: int):
        def run() -> int:
            started.append(i)
            if i == 0:
                signal.pthread_kill(main.ident, signal.SIGINT)  # Ctrl-C while the pool waits
            gate.wait(10)
            return i

        return run

    began = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        new_pool().settled({node: task(node.id) for node in NODES})
    assert time.monotonic() - began < 5  # did not wait for the tasks under way
    under_way = len(started)
    gate.set()  # the tasks under way end; none is taken after them
    deadline = time.monotonic() + 10
    while any(t.name == "kgroup-wire" for t in threading.enumerate()):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert len(started) == under_way <= MAX_THREADS < len(NODES)
