"""Round 31: an idle worker on the embedded broker (SQLite through kombu's SQLAlchemy transport,
what `autograder run` uses) read Celery's stop only between two 2-second waits for the queue, and
each process of `run` then spent 0.5-1.3 s tearing its interpreter down: an idle `run` took 8-9 s
to stop. The wait now ends when Celery's stop signal is sent (worker/polling.py), and processes
with nothing left to finish exit without the teardown (autograder/exiting.py). The whole stop is
timed end to end in tests/reliability/test_clean_stop_round31.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from celery import signals
from kombu import Connection, Consumer, Exchange, Producer, Queue

from worker import polling


@pytest.fixture
def broker(tmp_path) -> Iterator[Connection]:
    polling.install()   # what worker/entry.py does in the worker process
    polling.STOP.clear()
    with Connection(f"sqla+sqlite:///{tmp_path / 'broker.sqlite'}") as conn:
        yield conn
    polling.STOP.clear()


def test_a_quiet_queue_wait_ends_when_celery_sends_its_stop_signal(broker):
    queue = Queue("grading", Exchange("grading", type="direct"), routing_key="grading")
    got: list[object] = []
    with Consumer(broker, [queue], callbacks=[lambda body, message: (got.append(body), message.ack())]):
        # A message is still taken from the queue as before.
        Producer(broker).publish({"run": 1}, exchange=queue.exchange, routing_key="grading", declare=[queue])
        broker.drain_events(timeout=2.0)
        assert got == [{"run": 1}]
        # Celery sends worker_shutting_down from its SIGTERM/SIGINT handler; the synloop's wait
        # (timeout 2.0, celery.worker.loops) now ends then instead of running its course.
        timer = threading.Timer(0.2, lambda: signals.worker_shutting_down.send(sender="test", sig="SIGTERM",
                                                                               how="Warm", exitcode=0))
        timer.start()
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            broker.drain_events(timeout=2.0)
        assert time.monotonic() - started < 1.0
        timer.join()


def test_a_gunicorn_worker_asked_to_stop_exits_at_once_and_a_failed_boot_as_gunicorn_decides(monkeypatch):
    from autograder import exiting, gunicorn_conf

    exits: list[int] = []

    def fake_exit(code: int) -> None:
        exits.append(code)

    monkeypatch.setattr(exiting.os, "_exit", fake_exit)

    class Worker:
        def __init__(self, booted: bool, alive: bool) -> None:
            self.booted, self.alive = booted, alive

    gunicorn_conf.worker_exit(None, Worker(booted=True, alive=False))    # SIGTERM: requests answered
    assert exits == [0]
    gunicorn_conf.worker_exit(None, Worker(booted=False, alive=True))    # boot error: exit code 3 stays
    assert exits == [0]
