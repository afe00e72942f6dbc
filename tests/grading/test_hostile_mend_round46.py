"""Mend of round 46 (review RC), graded in the real sandbox.

MED 1: a walk of every package on sys.path at a file's top level (``pkgutil.walk_packages()``, or pydoc's module scan
put back from a fresh copy of pydoc) imported every package in each session: 0 (timed out after 30 s) or 58 (the
hidden session's CPU limit) as the host's load went. The jail's walk now reads each package's folders from its spec.
MED 2: the loop called ``sys.stdout.flush`` of whatever the file put there after every op: a flush that sleeps was
"did not load ... 0.00 s of CPU", one that ended the process "exited with code 0", though the import had finished.
MED 3: a forged verdict raised by the file is introduced as the code's own message, and stands only inside it.
(68 of 85 is what the honest code earns when it imports a module the static check cannot follow: pkgutil, pydoc,
os._exit.)"""

from __future__ import annotations

import json
import time

import pytest

from grading.proxy import OWN_MESSAGE_EN, OWN_MESSAGE_ZH
from grading.runner import GradeInput, grade
from tests.grading.hostile_attacks_round46 import ATTACKS
from tests.grading.test_hostile_round31 import CORRECT

_WALKS = {
    "walk_packages": (CORRECT + "\nimport pkgutil as _p\n_n = sum(1 for _ in _p.walk_packages(onerror=lambda n: None))\n"
                      "assert _n > 1000 and 'torch.nn.functional' in {m.name for m in _p.walk_packages()}\n"),
    "pydoc_scanner_restored_from_a_fresh_pydoc": CORRECT + """
import pydoc as _pd, importlib.util as _il
_fresh = _il.module_from_spec(_il.find_spec('pydoc'))
_fresh.__spec__.loader.exec_module(_fresh)
_pd.ModuleScanner.run = _fresh.ModuleScanner.run
help('modules')
_pd.apropos('attention')
""",
}

_OUT = """
class _Out:
    def write(self, s):
        return len(s)
    def flush(self):
        {flush}
_s.stdout = _Out()
"""
_STREAMS = {
    "a_stdout_whose_flush_sleeps": (CORRECT + "\nimport sys as _s, time as _t\n"
                                    + _OUT.format(flush="_t.sleep(100)"), 85),
    "a_stdout_whose_flush_ends_the_process": (CORRECT + "\nimport sys as _s, os as _o\n"
                                              + _OUT.format(flush="_o._exit(0)"), 68),
    "an_honest_tee_on_stdout": (CORRECT + """
import sys
class Tee:
    def __init__(self, *streams):
        self.streams = streams
    def write(self, s):
        for st in self.streams:
            st.write(s)
        return len(s)
    def flush(self):
        for st in self.streams:
            st.flush()
sys.stdout = Tee(sys.stdout, open("log.txt", "w"))
print("loaded")
""", 85),
    "stdout_rewrapped_as_utf8": (CORRECT + "\nimport io, sys\nsys.stdout = io.TextIOWrapper(sys.stdout.buffer, "
                                 "encoding='utf-8')\nprint('载入')\n", 85),
}


def _grade(executor, code: str) -> tuple[dict, float]:
    started = time.monotonic()
    result = grade(GradeInput(code=code.encode()), "attention", executor)
    return result, time.monotonic() - started


@pytest.mark.slow
@pytest.mark.parametrize("walk", list(_WALKS))
def test_a_walk_of_every_package_at_import_is_graded_the_same_each_time_and_costs_little(served, walk):
    _grade(served, CORRECT)     # a fresh executor's first grading takes 8-10 s whatever the file (measured)
    for _ in range(2):
        result, wall = _grade(served, _WALKS[walk])
        assert result["status"] == "graded" and result["total"] == 68, json.dumps(result)[:2000]
        assert wall < 10, f"{wall:.1f} s"


@pytest.mark.slow
@pytest.mark.parametrize("stream", list(_STREAMS))
def test_a_stream_the_file_put_on_sys_stdout_is_not_flushed_by_the_loop_and_the_file_is_graded_on_its_code(
        served, stream):
    code, total = _STREAMS[stream]
    result, wall = _grade(served, code)
    text = json.dumps(result)
    assert result["status"] == "graded" and result["total"] == total, text[:2000]
    assert "did not load" not in text and "exited with code" not in text and wall < 10, (wall, text[:2000])


@pytest.mark.slow
@pytest.mark.parametrize("attack", ["an_exception_class_named_like_a_passing_verdict_in_both_languages",
                                    "markup_ansi_escapes_and_nul_bytes_in_every_message_and_print"])
def test_a_forged_message_is_said_as_the_codes_own_and_only_inside_the_quote(served, attack):
    result, _ = _grade(served, ATTACKS[attack])
    quoted = [t["feedback"] for t in result["tests"] if "alert(1)" in json.dumps(t.get("feedback"))]
    assert quoted, json.dumps(result)[:2000]
    for feedback in quoted:
        for lang, intro in (("en", OWN_MESSAGE_EN), ("zh", OWN_MESSAGE_ZH)):
            head, sep, _ = feedback[lang].partition(intro)
            assert sep, feedback[lang]
            for forged in ("alert(1)", "PASS", "passed: 85", "通过"):
                assert forged not in head, (forged, feedback[lang])
