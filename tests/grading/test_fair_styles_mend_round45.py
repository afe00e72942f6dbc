"""Round 45 mend (MB) of B's ``locals()`` allowance, from review RB: a method inside a function also holds the free
names it reads of the enclosing one in ``locals()`` (H1); a ``locals()`` snapshot handed on (a setattr loop,
``self.cfg = locals()``, a dict changed after it) keeps main's finding when the function takes torch as a value
(M1); ``vars(self).update(locals())``, the filtered ``{k: v for k, v in locals().items() if ...}`` and bindings
made after a ``self.__dict__.update(locals())`` (a loop, a tuple) are no finding (M2); each method is read once,
not once per call (L3); a name rebound in the function that reads a module-level object stays a finding (L4)."""

from __future__ import annotations

import time

import pytest

from grader_tests.attention import static
from grader_tests.attention.static import hidden_name_uses

KERNEL = """import math
import torch
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v):
        return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v
"""
INIT = "class M(nn.Module):\n    def __init__(self, d_model=8, heads=2):\n        super().__init__()\n"
USE = "    def forward(self, q):\n        return self.t.softmax(q, -1)\n"


def subjects(source: str) -> list[str]:
    return [s.split(": ", 1)[1] for s in hidden_name_uses(source)]


@pytest.mark.parametrize("outer", ["def make():\n    t = torch\n", "def make(t=torch):\n"])
def test_update_of_locals_in_a_method_inside_a_function_keeps_mains_finding(outer):
    source = KERNEL + outer + "    class M(nn.Module):\n        def __init__(self):\n            super().__init__()\n" \
        "            t\n            self.__dict__.update(locals())\n    return M\n"
    assert {".__dict__", "locals"} <= set(subjects(source))


@pytest.mark.parametrize("body", [
    "        t = torch\n        for k, v in list(locals().items()):\n            setattr(self, k, v)\n",
    "        t = torch\n        self.cfg = locals()\n        for k in list(self.cfg):\n            setattr(self, k, self.cfg[k])\n",
    "        d = locals()\n        d['t'] = torch\n        self.__dict__.update(d)\n",
    "        d = locals()\n        t = torch\n        for k, v in d.items():\n            setattr(self, k, v)\n",
])
def test_a_locals_snapshot_handed_on_in_a_function_holding_torch_keeps_mains_finding(body):
    assert "locals" in subjects(KERNEL + INIT + body + USE)


def test_a_setattr_loop_over_plain_locals_is_no_finding():
    body = "        for key, value in list(locals().items()):\n            if key != 'self':\n" \
           "                setattr(self, key, value)\n"
    assert subjects(KERNEL + INIT + body) == []


@pytest.mark.parametrize("body", [
    "        vars(self).update(locals())\n",
    "        self.__dict__.update({k: v for k, v in locals().items() if k != 'self'})\n",
    "        self.__dict__.update(locals())\n        self.proj = nn.Linear(d_model, d_model)\n"
    "        for p in self.parameters():\n            nn.init.zeros_(p)\n",
    "        self.__dict__.update(locals())\n        d_k, d_v = d_model // heads, d_model // heads\n",
])
def test_the_methods_arguments_copied_onto_self_in_common_spellings_are_no_finding(body):
    assert subjects(KERNEL + INIT + body) == []


@pytest.mark.parametrize("body, finding", [
    ("        t = torch\n        vars(self).update(locals())\n", "torch kept as an attribute"),
    ("        t = torch\n        self.__dict__.update({k: v for k, v in locals().items() if k != 'self'})\n",
     "torch kept as an attribute"),
    ("        for i in range(2):\n            self.__dict__.update(locals())\n            t = torch\n", ".__dict__"),
])
def test_torch_reaching_self_through_those_spellings_stays_a_finding(body, finding):
    assert finding in subjects(KERNEL + INIT + body + USE)


def test_many_update_of_locals_calls_read_the_method_once():
    body = "".join(f"        a{i} = {i}\n        self.__dict__.update(locals())\n" for i in range(300))
    started = time.process_time()
    hidden_name_uses(KERNEL + INIT + body)
    assert time.process_time() - started < 3.0


SIGNATURE = ("import inspect\n" + KERNEL + "class Ops(nn.Module):\n    def kernel(self, x):\n"
             "        return inspect.signature(self.forward)\n\n\nm = Ops()\n")


@pytest.mark.parametrize("show", ["def show(m):\n    return m.kernel(1)\n",
                                  "def show(n):\n    m = n\n    return m.kernel(1)\n",
                                  "def show(n):\n    for m in n:\n        m.kernel(1)\n"])
def test_a_module_level_objects_name_rebound_in_the_reading_function_stays_a_finding(show):
    assert any("inspect.signature" in f for f in hidden_name_uses(SIGNATURE + show + "show(torch)\n")), show


def test_a_source_whose_review_ran_out_of_time_is_told_so_not_that_it_is_past_the_size_limits():
    from grader_tests.attention import test_implementation as impl
    from grading.proxy import Feedback
    # The suite's modules as the tests module sees them now: an earlier test may have reloaded the suite
    # (grading/suite_state.py), and this file's own `static` would then be the copy from before the reload.
    reviewed = impl.static
    source = KERNEL + INIT + "        self.__dict__.update(locals())\n# stopped review, mend round 45\n"
    reviewed.give_up(source)
    assert reviewed.hidden_name_uses(source) == (reviewed.UNREVIEWABLE,)
    for told in (impl._hidden_names(source),):
        assert "ran out of its CPU time" in told["en"] and "syntax nodes" not in told["en"]
        assert "用完了计算时间" in told["zh"] and "语法节点" not in told["zh"]
    with pytest.raises(Feedback) as raised:
        impl.test_mha_reuses_sdpa(None, source)
    assert "ran out of its CPU time" in raised.value.message["en"]
    assert "syntax nodes" not in raised.value.message["en"]


def test_the_assignment_page_describes_the_update_of_locals_allowance_in_both_languages():
    from pathlib import Path
    folder = Path(static.__file__).parent
    for lang in ("en", "zh"):
        text = (folder / f"ASSIGNMENT.{lang}.md").read_text(encoding="utf-8")
        assert "`self.__dict__.update(locals())`" in text and "`vars(self).update(locals())`" in text, lang


def test_the_source_given_up_last_is_kept_when_earlier_ones_are_dropped():
    for i in range(40):
        newest = f"# given up {i}, mend round 45\n"
        static.give_up(newest)
        assert static.review_stopped(newest), i


@pytest.mark.parametrize("use, finding", [
    ("r = weakref.ref(m, print)\n", "weakref.ref"), ("r = weakref.ref(m, callback=print)\n", "weakref.ref"),
    ("make = weakref.ref\nr = make(m, print)\n", "weakref.ref"), ("r = weakref.ref(m)\n", None),
    ("def parent(r: weakref.ref) -> None:\n    return None\n", None)])
def test_a_weak_reference_with_a_callback_is_a_finding_as_finalize_is(use, finding):
    found = hidden_name_uses("import weakref\n" + KERNEL + "m = ScaledDotProductAttention()\n" + use)
    assert (any(finding in f for f in found) if finding else found == ()), found
