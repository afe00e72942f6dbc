"""The hostile-submission tests' measure of what a grading costs the worker (tests/grading/helpers.worker_cost):
the caller's CPU and the threads the grading starts, not threads other tests left running. CI's slow lane
measured 0.65-0.77 s for two round-33 attacks that cost 0.15-0.18 s run alone, over a bound of 0.62 s."""
from __future__ import annotations

import threading
import time

from tests.grading.helpers import worker_cost


def _spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_thread_already_running_elsewhere_in_the_process_is_not_charged_to_the_grading():
    stop = threading.Event()

    def background() -> None:        # as an earlier test's listener thread, busy meanwhile
        while not stop.is_set():
            _spin(0.01)

    t = threading.Thread(target=background, daemon=True)
    t.start()
    try:
        _, cpu, wall = worker_cost(time.sleep, 0.6)
    finally:
        stop.set()
        t.join()
    assert wall >= 0.6
    assert cpu < 0.1, f"{cpu:.2f} s charged for a grading that slept"


def test_a_thread_the_grading_starts_is_charged_even_once_it_has_ended():
    def grade() -> str:             # as a session's output reader: started by the grading, ended with it
        t = threading.Thread(target=_spin, args=(0.3,))
        t.start()
        t.join()
        return "graded"

    result, cpu, _ = worker_cost(grade)
    assert result == "graded"
    assert cpu >= 0.25, f"{cpu:.2f} s: the grading's own thread was not counted"


def test_the_callers_own_cpu_is_charged():
    _, cpu, _ = worker_cost(_spin, 0.3)
    assert cpu >= 0.25, f"{cpu:.2f} s"
