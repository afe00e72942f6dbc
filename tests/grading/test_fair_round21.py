"""Fairness round 21, cheats: the functions that read or set attributes by the names they are handed
(functools.wraps's ``assigned``, argparse's ``namespace``) were judged only when called by their own name with
their own arguments, so an alias, a starred argument, functools.partial or map handed them a computed name
unseen, and ``wraps(F, (n,), ())(self)`` put F.scaled_dot_product_attention under the name of the student's
own method (``self.scaled_dot_product_attention(q, k, v)``, which the review trusts). The round's other cheats
were caught already and are kept here so that they stay caught."""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import static

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport functools\n"
# a name built at run time: no string of the source spells it
NAME = "        n = ''.join(reversed('noitnetta_tcudorp_tod_delacs'))\n"
OWN_METHOD = "    def scaled_dot_product_attention(self, q, k, v):\n        return q\n"


def _sdpa(body: str, prelude: str = "", own_method: str = OWN_METHOD) -> str:
    return (HEADER + prelude + "class ScaledDotProductAttention(nn.Module):\n" + own_method
            + "    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):\n" + body + "\n")


def _found(source: str) -> tuple[str, ...]:
    return tuple(static.fused_attention_uses(source)) + static.hidden_name_uses(source)


_RUNS_OWN_METHOD = "        return self.scaled_dot_product_attention(q, k, v)"
NAME_TAKERS = {
    "wraps_under_another_name": NAME + "        w = functools.wraps\n        w(F, (n,), ())(self)\n" + _RUNS_OWN_METHOD,
    "wraps_with_a_starred_argument": NAME + "        a = (F, (n,), ())\n        functools.wraps(*a)(self)\n"
    + _RUNS_OWN_METHOD,
    "wraps_through_partial": NAME + "        functools.partial(functools.wraps, assigned=(n,), updated=())(F)(self)\n"
    + _RUNS_OWN_METHOD,
    "wraps_kept_in_a_list": NAME + "        [functools.wraps][0](F, (n,), ())(self)\n" + _RUNS_OWN_METHOD,
    "wraps_mapped": NAME + "        list(map(functools.wraps, [F], [(n,)], [()]))[0](self)\n" + _RUNS_OWN_METHOD,
    "wraps_defaults_rewritten": NAME + "        functools.wraps.__defaults__ = ((n,), ())\n        functools.wraps(F)(self)\n"
    + _RUNS_OWN_METHOD,
}
IMPORTED_UNDER_ANOTHER_NAME = _sdpa(NAME + "        W(F, (n,), ())(self)\n" + _RUNS_OWN_METHOD,
                                    prelude="from functools import wraps as W\n")
PARSER = "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--x', dest=''.join(['a', 'b']))\n"
PARSE_ARGS = {
    "parse_args_under_another_name": "        p = parser.parse_args\n        p([], self)\n        return q",
    "parse_args_with_a_starred_argument": "        a = ([], self)\n        parser.parse_args(*a)\n        return q",
}


@pytest.mark.parametrize("body", NAME_TAKERS.values(), ids=NAME_TAKERS.keys())
def test_wraps_handed_names_in_any_way_but_a_plain_call_is_flagged(body):
    assert any("wraps" in f for f in static.hidden_name_uses(_sdpa(body))), static.hidden_name_uses(_sdpa(body))


def test_wraps_imported_under_another_name_is_judged_as_wraps():
    found = static.hidden_name_uses(IMPORTED_UNDER_ANOTHER_NAME)
    assert any("wraps(..., assigned/updated)" in f for f in found), found


@pytest.mark.parametrize("body", PARSE_ARGS.values(), ids=PARSE_ARGS.keys())
def test_parse_args_handed_a_namespace_in_any_way_but_a_plain_call_is_flagged(body):
    found = static.hidden_name_uses(_sdpa(body, prelude=PARSER, own_method=""))
    assert any("parse_args" in f for f in found), found


def test_the_wraps_cheat_really_runs_the_fused_kernel_under_the_students_method_name():
    # what the finding is about: the module's output is PyTorch's own attention, and the review trusts the call
    namespace: dict = {}
    exec(compile(_sdpa(NAME_TAKERS["wraps_under_another_name"]), "attention.py", "exec"), namespace)
    q = torch.randn(1, 1, 3, 4)
    module = namespace["ScaledDotProductAttention"]()
    assert torch.allclose(module(q, q, q), torch.nn.functional.scaled_dot_product_attention(q, q, q))
    assert not static.fused_attention_uses(_sdpa(NAME_TAKERS["wraps_under_another_name"]))


HONEST_NAME_TAKERS = {
    "wraps_as_a_decorator": "def check(fn):\n    @functools.wraps(fn)\n    def inner(*a, **k):\n        return fn(*a, **k)\n"
    "    return inner\n",
    "wraps_imported_as_itself": "from functools import wraps\ndef check(fn):\n    @wraps(fn)\n    def inner(*a):\n"
    "        return fn(*a)\n    return inner\n",
    "wraps_imported_under_another_name_one_argument": "from functools import wraps as W\ndef check(fn):\n    @W(fn)\n"
    "    def inner(*a):\n        return fn(*a)\n    return inner\n",
    "parse_args_plain": PARSER + "args = parser.parse_args([])\n",
}


@pytest.mark.parametrize("prelude", HONEST_NAME_TAKERS.values(), ids=HONEST_NAME_TAKERS.keys())
def test_wraps_and_parse_args_called_plainly_are_no_finding(prelude):
    assert _found(_sdpa("        return q", prelude=prelude, own_method="")) == ()


# Cheats of this round the review already caught (kept so that they stay caught): each reaches a fused
# kernel or nn.MultiheadAttention without writing the name where the review trusts it.
CAUGHT = {
    "reduce_getattr_over_names": _sdpa("        return functools.reduce(getattr, ['nn', 'functional', "
                                       "'scaled_dot_' 'product_attention'], torch)(q, k, v)", own_method=""),
    "reduce_lambda_getattr": _sdpa("        return functools.reduce(lambda o, a: getattr(o, a), ('nn', 'functional', "
                                   "'scaled_dot_product_attention'), torch)(q, k, v)", own_method=""),
    "torch_VF": _sdpa("        return torch._VF.scaled_dot_product_attention(q, k, v)", own_method=""),
    "variable_functions": _sdpa("        return torch._C._VariableFunctions._scaled_dot_product_attention_math(q, k, v)[0]",
                                own_method=""),
    "attrgetter": _sdpa("        return operator.attrgetter('nn.functional.scaled_dot_product_attention')(torch)(q, k, v)",
                        prelude="import operator\n", own_method=""),
    "class_swap": _sdpa("        m = nn.Module()\n        m.__class__ = type(nn.Identity())\n        return q", own_method=""),
    "importlib": _sdpa("        return importlib.import_module('torch.nn.functional').softmax(q, -1)",
                       prelude="import importlib\n", own_method=""),
    "torch_overrides": _sdpa("        fs = torch.overrides.get_overridable_functions()\n        return q", own_method=""),
    "object_getattribute": _sdpa("        return object.__getattribute__(F, 'scaled_dot_' + 'product_attention')(q, k, v)",
                                 own_method=""),
    "module_getattr_method": _sdpa(NAME + "        return F.__getattr__(n)(q, k, v)", own_method=""),
    "nn_modules_activation_base": HEADER + "class MultiHeadAttention(nn.modules.activation.MultiheadAttention):\n    pass\n",
    "mha_through_tuple_unpacking": HEADER + "A, B = nn.Identity, nn.MultiheadAttention\n",
    "functools_partial_getattr": _sdpa(NAME + "        return functools.partial(getattr, F)(n)(q, k, v)", own_method=""),
    "map_getattr": _sdpa(NAME + "        (f,) = map(getattr, [F], [n])\n        return f(q, k, v)", own_method=""),
    "codecs_rot13": _sdpa("        return getattr(F, codecs.decode('fpnyrq_qbg_cebqhpg_nggragvba', 'rot13'))(q, k, v)",
                          prelude="import codecs\n", own_method=""),
    "inspect_getmembers": _sdpa("        return dict(inspect.getmembers(F))[n](q, k, v)", prelude="import inspect\n",
                                own_method=""),
}


@pytest.mark.parametrize("code", CAUGHT.values(), ids=CAUGHT.keys())
def test_the_rounds_other_cheats_are_caught(code):
    assert _found(code)

