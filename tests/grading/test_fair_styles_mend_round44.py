"""Review RB of round 44 (B), mended. (HIGH 1) A standard-library import that no running code reads (``import pdb``
left from debugging, ``import os, pickle``, ``import timeit`` read only by an uncalled ``bench()``) cost 17 points,
with feedback that the file reaches names indirectly; it reaches nothing, so it is no finding. (HIGH 2) The usual
ways to print a caught exception, ``traceback.print_exception(type(e), e, e.__traceback__)``,
``format_exception(*sys.exc_info())`` and ``format_exception_only(type(e), e)``, cost 17 points; they only turn
the traceback into text. (MED 3) ``traceback.format_stack()`` names the grader's frames below the file, so a file
could tell it is graded and hide a fault only then, with no finding: the stack's functions are findings again.
(LOW 4) A helper taking self that the guard calls was skipped even when an uncalled function the review reads
calls it. (LOW 5) ``breakpoint()`` under a module flag ``DEBUG = False`` and ``locale.setlocale`` cost 17 points."""

from __future__ import annotations

from grader_tests.attention.static import hidden_name_uses

KERNEL = """import math
import torch
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
        return (w @ v, w) if return_weights else w @ v
"""
GUARD = '\n\nif __name__ == "__main__":\n'
CAUGHT = "try:\n    ScaledDotProductAttention()(1, 2, 3)\nexcept Exception as e:\n"


def test_a_standard_library_import_no_running_code_reads_is_no_finding():
    for imports, rest in (("import pdb\n", ""), ("import os, pickle\n", ""), ("import os, subprocess\n", ""),
                          ("import ctypes as C\nfrom timeit import timeit\n", ""),
                          # read only by a function nothing names (a benchmark the student runs by hand)
                          ("import timeit\n", "\ndef bench():\n    return timeit.timeit('1', number=10)\n"),
                          # read only by the demo and by a function only the demo calls
                          ("import pickle\n", "\ndef dump(x):\n    return pickle.dumps(x)\n" + GUARD
                           + "    print(dump(1))\n")):
        assert hidden_name_uses(imports + KERNEL + rest) == (), imports + rest


def test_an_unread_import_reached_by_running_code_stays_a_finding():
    for source, finding in (
            ("import subprocess\n" + KERNEL + "def run():\n    return subprocess\nrun()\n", "imports subprocess"),
            ("import ctypes\n" + KERNEL + "lib = globals()['ctypes']\n", "globals"),
            ("import pickle\n" + KERNEL + "p = vars()['pickle']\n", "vars"),
            ("import pickle\nimport sys\n" + KERNEL + "p = sys.modules['pickle']\n", "sys.modules"),
            ("import pickle\nimport typing\n" + KERNEL + "def f(x: 'pickle.loads'):\n    pass\n"
             "h = typing.get_type_hints(f)\n", "typing.get_type_hints"),
            # a default of a function the guard calls is evaluated when the file is imported
            ("import pickle\n" + KERNEL + "def f(x=pickle.dumps(1)):\n    return x\n" + GUARD + "    f()\n",
             "imports pickle")):
        found = hidden_name_uses(source)
        assert any(finding in f for f in found), (source, found)


def test_printing_a_caught_exception_with_its_traceback_is_no_finding():
    for imports, handler in (
            ("import traceback\n", "    traceback.print_exception(type(e), e, e.__traceback__)\n"),
            ("import traceback\nimport sys\n", "    print(''.join(traceback.format_exception(*sys.exc_info())))\n"),
            ("import traceback\n", "    print(traceback.format_exception_only(type(e), e))\n"),
            ("import traceback as tb\n", "    tb.print_tb(e.__traceback__)\n"),
            ("from traceback import format_exception\n",
             "    print(format_exception(type(e), value=e, tb=e.__traceback__))\n")):
        assert hidden_name_uses(imports + KERNEL + CAUGHT + handler) == (), handler


def test_the_traceback_used_otherwise_than_printed_stays_a_finding():
    for imports, handler, finding in (
            ("import traceback\n", "    t = e.__traceback__\n", ".__traceback__"),
            ("import traceback\n", "    traceback.print_exception(type(e), e, e.__traceback__.tb_next)\n",
             ".__traceback__"),
            ("", "    g = e.__traceback__.tb_frame.f_globals\n", "tb_frame"),
            ("import sys\nimport traceback\n", "    traceback.print_tb(sys.exc_info()[2])\n", "sys.exc_info"),
            ("import sys\n", "    print(*sys.exc_info())\n", "sys.exc_info"),
            # a name rebound is no longer known to be traceback's printer
            ("import traceback\n", "    traceback = e\n    traceback.print_exception(e.__traceback__)\n",
             ".__traceback__")):
        found = hidden_name_uses(imports + KERNEL + CAUGHT + handler)
        assert any(finding in f for f in found), (handler, found)


def test_the_stacks_text_is_a_finding_as_it_names_the_graders_frames():
    # review RB's x05 kept the padding mask right only when 'run' + '_jail' was in format_stack(): 85 points
    for call in ("traceback.format_stack()", "traceback.print_stack()", "traceback.extract_stack()",
                 "traceback.walk_stack(None)", "traceback.StackSummary"):
        found = hidden_name_uses("import traceback\n" + KERNEL + f"s = {call}\n")
        assert any(call.split("(")[0] in f for f in found), (call, found)


def test_a_self_helper_the_guard_calls_is_reviewed_when_an_uncalled_function_calls_it_too():
    helper = "\n\ndef show(self):\n    return self._C\n\n\ndef a():\n    return show(torch)\n"
    found = hidden_name_uses(KERNEL + helper + GUARD + "    print(show(ScaledDotProductAttention()))\n")
    assert any("a function outside a class taking self" in f for f in found), found


def test_a_breakpoint_under_a_module_flag_set_false_once_is_no_finding():
    body = KERNEL.replace("        w = torch", "        if DEBUG:\n            breakpoint()\n        w = torch")
    assert hidden_name_uses("DEBUG = False\n" + body) == ()
    # a flag the file sets true, or binds again anywhere, keeps the block reviewed
    for flag in ("DEBUG = True\n", "DEBUG = False\ndef on():\n    global DEBUG\n    DEBUG = True\n"):
        assert any("breakpoint" in f for f in hidden_name_uses(flag + body)), flag


def test_setting_the_locale_at_the_top_is_no_finding():
    assert hidden_name_uses("import locale\nlocale.setlocale(locale.LC_ALL, '')\n" + KERNEL) == ()
