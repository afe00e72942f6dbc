"""Round 44 (B): 53 correct files written in the habits of students from other courses, graded through the real grader.
Two lost the 17 points that rest on the review for code the grader never runs, the demo under
``if __name__ == "__main__":``: (1) a standard-library module imported at the top for that demo only (``import
traceback``, ``pickle``, ``shutil``, ``tempfile``, ``timeit``) was an unfollowable import wherever it was read; (2)
``inspect.signature(MultiHeadAttention.forward)`` in the demo was "used without self", a check that ignored where
the code stands; and (3), found while checking that class, a helper ``def show(self)`` outside a class that only
the demo calls was "a function outside a class taking self" though its body never runs. Each of (1), (2) and (4) is a
style in correct/ (r44_*) with a faulty twin in faulty/. ``traceback.print_exc()`` where code runs (a debugging
``except``, (4)) is now followed attribute by attribute as the other everyday standard-library modules are."""

from __future__ import annotations

import pytest

from grader_tests.attention.static import hidden_name_uses
from tests.grading.helpers import (
    SUBMISSIONS,
    assert_twin_differs_by_one_declared_fault,
    assert_twin_loses_points_and_is_named_as_declared,
    code_score,
    failed_tests,
    graded_corpus_file,
)

CORRECT = SUBMISSIONS / "correct"
TWINS = {"r44_stdlib_imports_for_main_demo": "r44_stdlib_imports_softmax_over_queries",
         "r44_signature_of_own_methods_in_main_demo": "r44_signature_demo_scale_forgotten",
         "r44_traceback_print_exc_in_forward": "r44_traceback_padding_inverted"}
KERNEL = """import math
import torch
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
        return (w @ v, w) if return_weights else w @ v
"""
GUARD = '\n\nif __name__ == "__main__":\n'


def test_stdlib_modules_imported_for_the_main_guard_demo_only_are_no_finding():
    source = ("import pickle\nimport traceback\nimport timeit as ti\nfrom shutil import rmtree\nimport tempfile, os\n"
              + KERNEL + GUARD + "    try:\n        d = tempfile.mkdtemp()\n        print(ti.timeit('1'), pickle.dumps(1))\n"
              "        rmtree(d)\n    except Exception:\n        traceback.print_exc()\n")
    assert hidden_name_uses(source) == ()


def test_the_same_imports_read_by_code_that_runs_stay_findings():
    for source, finding in (
            ("import pickle\n" + KERNEL + "pickle.dumps(1)\n", "line 1: imports pickle"),
            # a function the grader may call reads it
            ("from pickle import loads\n" + KERNEL + "def load(b):\n    return loads(b)\nload(b'')\n",
             "line 1: from pickle import loads"),
            # handed on as a value, rebound by a global statement, or read through globals()
            ("import pickle\n" + KERNEL + "codec = pickle\n", "line 1: imports pickle"),
            ("import pickle\n" + KERNEL + "def f():\n    global pickle\nf()\n", "line 1: imports pickle"),
            ("import pickle\n" + KERNEL + "x = globals()['pickle']\n", "globals"),
            # one module of the statement read by running code: that module is judged, the unread one is not
            ("import shutil, pickle\n" + KERNEL + "shutil.which('ls')\n", "line 1: imports shutil")):
        found = hidden_name_uses(source)
        assert any(f.startswith(finding) or f.endswith(finding) for f in found), (source, found)
    assert not any("pickle" in f for f in hidden_name_uses("import shutil, pickle\n" + KERNEL
                                                           + "shutil.which('ls')\n" + GUARD
                                                           + "    print(pickle.dumps(1))\n"))


def test_imports_that_do_something_when_imported_stay_findings_even_unread():
    # a submodule or a private module may run a program on import (idlelib.idle opens IDLE), so do this and
    # antigravity; a star import binds names the source does not show
    for line in ("import idlelib.idle", "import this", "import antigravity", "import _thread",
                 "from unittest import __main__", "from pickle import *"):
        assert hidden_name_uses(line + "\n" + KERNEL), line


def test_a_signature_of_the_files_own_method_in_the_main_guard_is_no_finding():
    source = "import inspect\n" + KERNEL + GUARD + "    print(inspect.signature(ScaledDotProductAttention.forward))\n"
    assert hidden_name_uses(source) == ()
    # the same method taken off the class where code runs stays a finding (called later with another self)
    kept = KERNEL + "kernel = ScaledDotProductAttention.forward\n"
    assert any("ScaledDotProductAttention.forward used without self" in f for f in hidden_name_uses(kept))


def test_every_twin_differs_from_its_style_by_its_declared_fault_only():
    assert sorted(TWINS) == sorted(p.stem for p in CORRECT.glob("r44_*.py"))
    for name, twin in TWINS.items():
        assert_twin_differs_by_one_declared_fault(name, twin)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TWINS))
def test_each_round44_style_gets_full_marks_with_no_review_finding(executor, name):
    result = graded_corpus_file(executor, CORRECT / f"{name}.py")
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and result["review"] == [], (failed_tests(result), result["review"])
    assert code_score(result) == 85


@pytest.mark.slow
@pytest.mark.parametrize("twin", sorted(TWINS.values()))
def test_each_round44_twin_loses_points_in_its_category_and_is_named(executor, twin):
    assert_twin_loses_points_and_is_named_as_declared(executor, twin)


def test_a_helper_taking_self_that_only_the_main_guard_calls_is_no_finding():
    helper = "\n\ndef show_heads(self):\n    return self._modules\n"
    demo = GUARD + "    print(show_heads(ScaledDotProductAttention()))\n"
    assert hidden_name_uses(KERNEL + helper + demo) == ()
    # called where code runs, or named by nothing (kept for a way the source does not show), it stays a finding
    for rest in ("\nshow_heads(torch)\n", ""):
        assert any("a function outside a class taking self" in f for f in hidden_name_uses(KERNEL + helper + rest))


def test_traceback_printing_where_code_runs_is_followed_attribute_by_attribute():
    source = "import traceback\n" + KERNEL + "try:\n    ScaledDotProductAttention()\nexcept RuntimeError:\n" \
        "    traceback.print_exc()\n    print(traceback.format_exc())\n"
    assert hidden_name_uses(source) == ()
    # the frames it could hand out stay findings
    walked = "import traceback\n" + KERNEL + "frames = traceback.extract_stack()\n"
    assert "line 11: traceback.extract_stack" in hidden_name_uses(walked)
