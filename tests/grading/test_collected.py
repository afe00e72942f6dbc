"""The suite is configured and collected once in the long-lived process; each grading's forked
child only runs it, and the warm processes are prepared for cheap forks (issue 14)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import grading.collected
import grading.runner
from grading.collected import collected_suite
from grading.runner import GradeInput, grade
from grading.suite_state import suite_state
from tests.grading.helpers import SUBMISSIONS

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_bytes()
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_gradings_reuse_one_collected_session_that_the_parent_never_runs(executor):
    first = grade(GradeInput(code=CORRECT), "attention", executor)
    collected = collected_suite("attention", suite_state("attention").suite)
    second = grade(GradeInput(code=CORRECT), "attention", executor)
    assert first["status"] == second["status"] == "graded"
    assert first["total"] == second["total"] == 85
    assert collected_suite("attention", suite_state("attention").suite) is collected
    # Only forked children bind the plugin and run items: nothing of a grading stays here.
    assert collected.plugin.proxy is None and collected.plugin.outcomes == {}
    assert collected.session.testsfailed == 0
    assert {t["id"] for t in second["tests"]} == {getattr(i, "originalname", i.name) for i in collected.items}


def test_a_grading_configures_no_pytest_of_its_own(executor, monkeypatch):
    collected_suite("attention", suite_state("attention").suite)

    def refuse(*args, **kwargs):
        raise AssertionError("pytest configured again during a grading")

    monkeypatch.setattr(grading.collected, "_prepareconfig", refuse)   # inherited by the forked child
    monkeypatch.setattr(pytest, "main", refuse)
    result = grade(GradeInput(code=CORRECT), "attention", executor)
    assert result["status"] == "graded", result["message"]
    assert result["total"] == 85


def _my_children() -> list[int]:
    """Every child of this process, running or a zombie not yet waited for."""
    kids = []
    for task in Path("/proc/self/task").iterdir():
        kids += [int(p) for p in (task / "children").read_text().split()]
    return kids


def test_the_test_process_is_waited_for_once_the_result_is_complete_and_never_left_behind(executor, monkeypatch):
    import grading.child

    before = set(_my_children())
    pending: list[list[int]] = []
    real_reap = grading.child.reap_children

    def reap_and_note() -> None:
        pending.append(list(grading.child._unreaped))
        real_reap()

    monkeypatch.setattr(grading.runner, "reap_children", reap_and_note)
    result = grade(GradeInput(code=CORRECT), "attention", executor)
    assert result["status"] == "graded" and result["total"] == 85
    assert len(pending) == 1 and len(pending[0]) == 1       # still to be waited for when scoring ended
    assert set(_my_children()) - before == set()            # reaped before grade() returned


def _thp_enabled() -> bool:
    try:
        return "[never]" not in Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        return False


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
@pytest.mark.skipif(not _thp_enabled(), reason="transparent huge pages are off on this host")
def test_a_warm_process_is_backed_by_huge_pages_after_prepare_for_forks():
    script = (
        "import torch, re\n"
        "from grading.forking import prepare_for_forks\n"
        "def huge():\n"
        "    t = open('/proc/self/smaps_rollup').read()\n"
        "    return int(re.search(r'AnonHugePages:\\s+(\\d+)', t).group(1))\n"
        "before = huge()\n"
        "asked = prepare_for_forks()\n"
        "after = huge()\n"
        # a control: can the kernel give 2 MiB pages at all right now? (a fresh, touched 8 MiB region)
        "import mmap, ctypes\n"
        "from grading.forking import MADV_COLLAPSE, HUGE\n"
        "m = mmap.mmap(-1, 5 * HUGE)\n"
        "m.write(b'x' * len(m))\n"
        "base = ctypes.addressof(ctypes.c_char.from_buffer(m))\n"
        "lo = (base + HUGE - 1) // HUGE * HUGE\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]\n"
        "control = libc.madvise(lo, 4 * HUGE, MADV_COLLAPSE) == 0\n"
        "print(before, after, asked, int(control))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    before, after, asked, control = (int(x) for x in out.stdout.split())
    assert asked >= 32 << 20          # torch's heap alone is far larger
    if after < before + 16 * 1024 and not control:
        # MADV_COLLAPSE is best effort: with memory fragmented (CI beside other work) the kernel has no free
        # 2 MiB pages even for a fresh region, which says nothing about prepare_for_forks
        pytest.skip("the kernel could not collapse even a fresh region into huge pages just now")
    assert after >= before + 16 * 1024, out.stdout   # kB: at least 16 MiB now in 2 MiB pages
