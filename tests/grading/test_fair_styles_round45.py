"""Round 45 (B): 95 correct files written in config-saving, typing-heavy, functools, torch-decorator and
standard-library habits, graded through the real grader. 22 lost the 17 points that rest on the review: (1)
``locals()`` or ``vars()`` read in a method to save the constructor's arguments (``self.config = dict(locals())``,
``self.hparams = locals()``, ``save_hparams(locals())``, ``self.__dict__.update(locals())``): 10 files; (2)
``inspect.signature(self.forward)`` in a method the file calls as ``MultiHeadAttention(8, 2).forward_args`` or
through ``m = MultiHeadAttention(8, 2)`` at module level, where a method reached off an object of the file's own
class was taken for one reached off anything; (3) ``inspect.getfullargspec`` of the file's own ``__init__``, the
older spelling of ``inspect.signature``; (4) everyday standard-library helpers where code runs: ``hashlib.sha1``
for a config fingerprint, ``string.Template`` for a message, a ``threading.Lock`` around a call counter,
``weakref.ref`` to a parent module (4 files). Each is a style in correct/ (r45_*) with a faulty twin in faulty/.
Six stay findings by design: ``atexit.register`` (runs code after grading), a descriptor's ``getattr(obj,
self.name)`` (a computed name), ``typing.get_type_hints`` (evaluates annotation strings), d2l's and a
Lightning-like ``save_hyperparameters`` (``inspect.currentframe().f_back``: the caller's frame, which may be the
grader's) and ``super().__getstate__()`` (the object's live ``__dict__``)."""

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
TWINS = {"r45_config_dict_of_locals": "r45_config_locals_padding_inverted",
         "r45_save_hparams_helper_locals": "r45_hparams_helper_scale_forgotten",
         "r45_vars_noarg_config": "r45_vars_config_softmax_over_queries",
         "r45_inspect_signature_self_forward": "r45_signature_property_padding_inverted",
         "r45_getfullargspec_config": "r45_getfullargspec_scale_forgotten",
         "r45_hashlib_fingerprint": "r45_hashlib_softmax_over_queries",
         "r45_string_template_msg": "r45_template_padding_inverted",
         "r45_threading_lock_counter": "r45_lock_scale_forgotten",
         "r45_weakref_parent": "r45_weakref_softmax_over_queries",
         "r45_dict_update_locals": "r45_dict_update_locals_softmax_over_queries"}
KERNEL = """import math
import torch
from torch import nn
import torch.nn.functional as F


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
        return (w @ v, w) if return_weights else w @ v
"""
INIT = "class M(nn.Module):\n    def __init__(self, d_model, heads=2):\n        super().__init__()\n"


@pytest.mark.parametrize("line", ["self.config = dict(locals())", "self.hparams = locals()",
                                  "self.cfg = {k: v for k, v in locals().items() if k != 'self'}",
                                  "self.cfg = dict(vars())", "self.hp = save(locals())", "print(locals())"])
def test_locals_or_vars_in_a_method_body_saving_the_arguments_is_no_finding(line):
    helper = "def save(d):\n    return {k: v for k, v in d.items() if k != 'self'}\n\n\n"
    assert hidden_name_uses(KERNEL + helper + INIT + "        " + line + "\n") == ()


@pytest.mark.parametrize("source", [
    "cfg = locals()\n",                                   # the module's globals
    "x = locals()['torch']\n",
    "class A:\n    locals()['t'] = torch\n",            # a class body's namespace, written
    "def f(d=locals()):\n    return d\n",               # a default runs at module level
    "g = lambda d=vars(): d\n",
    "def outer():\n    @locals().get('x')\n    def f():\n        pass\n",
    "def f():\n    return dict(globals())\n",
    "def f(o):\n    return vars(o)\n"])
def test_locals_or_vars_of_a_module_or_class_namespace_stay_findings(source):
    assert any(f.endswith(("locals", "vars", "globals")) for f in hidden_name_uses(KERNEL + source)), source


def test_the_methods_plain_arguments_and_values_copied_onto_self_are_no_finding():
    for body in ("self.__dict__.update(locals())", "scale = d_model ** -0.5\n        self.__dict__.update(locals())",
                 "n: int\n        self.__dict__.update(locals())"):
        assert hidden_name_uses(KERNEL + INIT + "        " + body + "\n") == (), body


@pytest.mark.parametrize("body, finding", [
    # torch's names as values become ``self.t``, which the review would take for the student's own
    ("t = torch", "line 15: torch kept as an attribute"), ("t = F", "line 15: F kept as an attribute"),
    # values not written where the name is bound, a name the review looks for, or a locals of the file's own
    ("for t in (torch,):\n            pass", "line 16: .__dict__"), ("a, b = torch, 1", "line 15: .__dict__"),
    ("import torch.nn.functional as G", "line 15: .__dict__"), ("_C = 1", "line 15: .__dict__"),
    ("with open('x') as t:\n            pass", "line 16: .__dict__")])
def test_locals_copied_onto_self_with_values_the_review_cannot_see_stays_a_finding(body, finding):
    source = KERNEL + INIT + "        " + body + "\n        self.__dict__.update(locals())\n"
    assert finding in hidden_name_uses(source), hidden_name_uses(source)
    shadowed = KERNEL + INIT + "        self.__dict__.update(locals())\ndef locals():\n    return {'t': torch}\n"
    assert "line 14: .__dict__" in hidden_name_uses(shadowed)
    frames = KERNEL + "import inspect\ndef save():\n    return inspect.currentframe().f_back.f_locals\n"
    assert any("f_locals" in f for f in hidden_name_uses(frames))
    frames = KERNEL + "import inspect\ndef save():\n    return inspect.currentframe().f_back.f_locals\n"
    assert any("f_locals" in f for f in hidden_name_uses(frames))


SIGNATURE = ("import inspect\n" + KERNEL + "class Ops(nn.Module):\n    def kernel(self, x):\n"
             "        return inspect.signature(self.forward)\n\n\n")


@pytest.mark.parametrize("use", ["Ops().kernel(1)\n", "m = Ops()\nm.kernel(1)\n",
                                 "m = Ops()\ndef show():\n    return m.kernel(1)\nshow()\n"])
def test_a_method_called_on_a_new_object_of_the_files_class_keeps_its_own_self(use):
    assert hidden_name_uses(SIGNATURE + use) == ()


@pytest.mark.parametrize("use", ["Ops.kernel(torch, 1)\n", "m = Ops()\ntype(m).kernel(torch, 1)\n",
                                 "m = Ops()\nm = torch\nm.kernel(1)\n",
                                 "m = Ops()\ndef g():\n    global m\n    m = torch\ng()\nm.kernel(1)\n"])
def test_a_method_reached_off_another_object_or_a_rebound_name_stays_a_finding(use):
    assert any("inspect.signature" in f for f in hidden_name_uses(SIGNATURE + use)), use


@pytest.mark.parametrize("use, finding", [
    ("m = Ops()\nm._modules['t'] = torch\n", "m._modules"), ("m = Ops()\nm._buffers.update(t=torch)\n", "m._buffers"),
    ("m = Ops()\nm._forward_hooks[0] = print\n", "m._forward_hooks"), ("Ops()._modules['t'] = F\n", "_modules")])
def test_private_parts_of_a_module_level_object_of_the_files_class_stay_judged_as_anythings(use, finding):
    # only the methods called on it get their own self; what is written into it could be read as self.t later
    assert any(finding in f for f in hidden_name_uses(SIGNATURE + use)), use


def test_getfullargspec_of_the_files_own_callable_is_read_as_its_signature():
    own = "import inspect\n" + KERNEL + "ARGS = inspect.getfullargspec(ScaledDotProductAttention.forward).args\n"
    assert hidden_name_uses(own) == ()
    foreign = "import inspect\n" + KERNEL + "ARGS = inspect.getfullargspec(F.softmax).args\n"
    assert any("inspect.getfullargspec" in f for f in hidden_name_uses(foreign))


def test_everyday_hashlib_string_threading_weakref_names_are_followed_and_the_others_stay_findings():
    fine = ("import hashlib, string, threading, weakref\n" + KERNEL
            + "LOCK = threading.Lock()\nDIGEST = hashlib.sha1(b'cfg').hexdigest()\n"
              "MSG = string.Template('got $n').substitute(n=1)\nPARENT = weakref.ref(LOCK)\n")
    assert hidden_name_uses(fine) == ()
    for line, finding in (("x = weakref.proxy(torch)", "weakref.proxy"), ("threading.Thread(target=print)", "threading.Thread"),
                          ("hashlib.new('md5')", "hashlib.new"), ("w = weakref.ref(torch)()\nw._C", "w._C")):
        source = "import hashlib, threading, weakref\n" + KERNEL + line + "\n"
        assert any(finding in f for f in hidden_name_uses(source)), (line, hidden_name_uses(source))


def test_every_twin_differs_from_its_style_by_its_declared_fault_only():
    assert sorted(TWINS) == sorted(p.stem for p in CORRECT.glob("r45_*.py"))
    for name, twin in TWINS.items():
        assert_twin_differs_by_one_declared_fault(name, twin)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TWINS))
def test_each_round45_style_gets_full_marks_with_no_review_finding(executor, name):
    result = graded_corpus_file(executor, CORRECT / f"{name}.py")
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and result["review"] == [], (failed_tests(result), result["review"])
    assert code_score(result) == 85


@pytest.mark.slow
@pytest.mark.parametrize("twin", sorted(TWINS.values()))
def test_each_round45_twin_loses_points_in_its_category_and_is_named(executor, twin):
    assert_twin_loses_points_and_is_named_as_declared(executor, twin)
