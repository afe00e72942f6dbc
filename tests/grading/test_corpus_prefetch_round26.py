"""Round 26: the fast lane's structural costs. The sandbox tests' modules share one executor (a zygote
start each cost ~1.5 s of CPU, 40 times), and the corpus is graded on both cores: a second process
grades the files the collected tests will ask for from the end while the test process grades them
from the start (tests/grading/prefetch.py)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from grading.runner import GradeInput, grade
from tests.grading import prefetch
from tests.grading.helpers import SUBMISSIONS
from tests.sandbox.helpers import SharedExecutor, wait_no_leftovers

# Differ from one grading to the next by design: wall seconds, and the log's timings.
TIMED = ("duration_s", "log")


def _untimed(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in TIMED}


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_a_file_graded_by_the_prefetch_process_has_the_result_the_test_process_gives(executor):
    """Both processes run the same grader with the same limits and environment: the tests that read a
    prefetched result see what a serial run gives them (hints and numbers included)."""
    files = [SUBMISSIONS / "faulty" / "mask_after_softmax.py", SUBMISSIONS / "correct" / "reference.py"]
    fetch = prefetch.CorpusPrefetch(files)
    try:
        for path in files:
            theirs = fetch.result(path, claim=False)
            ours = grade(GradeInput(code=path.read_bytes()), "attention", executor)
            assert theirs["status"] == "graded" and theirs["tests"], theirs["message"]
            assert _untimed(theirs) == _untimed(ours), path.name
    finally:
        assert fetch.close() == []          # its executor left nothing running


def test_each_file_is_graded_once_by_the_process_that_claims_it_first(tmp_path):
    """A file the test process claimed is not graded by the prefetch process (None: grade it here),
    and one the prefetch process claimed is not claimed again."""
    folder = tmp_path
    (folder / "claims").mkdir()
    assert prefetch._claim(folder, 3) is True
    assert prefetch._claim(folder, 3) is False
    assert prefetch._claim(folder, 4) is True


def test_the_plan_is_the_corpus_files_the_collected_tests_name_in_their_order(tmp_path, monkeypatch):
    (tmp_path / "faulty").mkdir()
    (tmp_path / "correct").mkdir()
    for name in ("faulty/a.py", "faulty/b.py", "correct/c.py", "correct/b.py"):
        (tmp_path / name).write_text("x = 1\n")
    uses = SimpleNamespace(__name__="tests.grading.test_uses")
    other = SimpleNamespace(__name__="tests.grading.test_other")
    sources = {"tests.grading.test_uses": "graded_corpus_file(executor, path)", "tests.grading.test_other": "grade()"}

    def item(module, **params):
        return SimpleNamespace(module=module, callspec=SimpleNamespace(params=params))

    items = [item(other, path=tmp_path / "faulty" / "a.py"), item(uses, path=tmp_path / "correct" / "c.py"),
             item(uses, name="b", lang="en"), item(uses, path=Path("/elsewhere/x.py")), SimpleNamespace(module=uses),
             item(uses, path=tmp_path / "correct" / "c.py")]
    monkeypatch.setattr(prefetch.inspect, "getsource", lambda module: sources[module.__name__])
    planned = prefetch.planned_files(items, tmp_path)
    # c first (asked first), then both files named b; a only by a module that grades on its own
    assert planned == [tmp_path / "correct" / "c.py", tmp_path / "correct" / "b.py", tmp_path / "faulty" / "b.py"]


@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox needs root")
def test_the_modules_share_one_executor_and_one_whose_zygote_died_is_replaced():
    shared = SharedExecutor()
    try:
        first = shared.get()
        assert shared.get() is first
        os.kill(first.zygote_pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while first.alive and time.monotonic() < deadline:
            time.sleep(0.01)
        second = shared.get()
        assert second is not first and second.alive
        assert wait_no_leftovers(first) == []
    finally:
        shared.close()
    assert shared.current is None
