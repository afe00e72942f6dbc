"""Fairness round 21, cheats: the functions that read or set attributes by the names they are handed
(functools.wraps's ``assigned``, argparse's ``namespace``) were judged only when called by their own name with
their own arguments, so an alias, a starred argument, functools.partial or map handed them a computed name
unseen, and ``wraps(F, (n,), ())(self)`` put F.scaled_dot_product_attention under the name of the student's
own method (``self.scaled_dot_product_attention(q, k, v)``, which the review trusts). The same for methods that
set attributes on whatever self they are given: ``argparse.Namespace.__init__(torch, **{n: f})`` replaced
torch.no_grad, under which a method's ``self`` was F; so did the action ``parser.add_argument('--x', dest=n)``
returns, called by hand on torch, and ``super(type(torch), torch).__setattr__`` (super() is trusted to bind
self). The round's other cheats
were caught already and are kept here so that they stay caught.

Correct code: 22 files in public styles the corpus did not hold (CLIP, BLIP, detectron2's ViTDet, Swin's window
attention without its bias table, MAE, torchtext's container, torchaudio's wav2vec2, XLM, GPT-J, tensor2tensor,
Sockeye, dm-haiku, fairscale, DeepSpeed, OpenMMLab, SpeechBrain, Performer's exact path, Lightning, JAX-style
pure functions, __slots__, no_grad/contextlib helpers, a log-domain softmax) are in
tests/fixtures/submissions/correct/, graded end to end by test_grading.test_correct_styles_get_full_code_marks.
Two of them stay as public code wrote them minus one line the review flags by design: DeepSpeed's
``config.__dict__[key] = value`` (a write with a computed name; the file uses PretrainedConfig.update's
``setattr(self, key, value)``) and ``functools.singledispatchmethod`` (test_static_review flags singledispatch:
register() evaluates string annotations; slots_head_layout_classmethod keeps the rest of that file's style).

Fairness: Lightning-style code lost 13 points: ``try: import lightning.pytorch as pl; _Base = pl.LightningModule``
/ ``except ImportError: _Base = nn.Module`` then ``class Model(_Base)``. The code after a failing optional import
never runs, and a name bound only to torch classes one may derive from (``Base = nn.Module``) is one. So did
model-parallel code asking ``torch.distributed`` how many processes there are (fairscale, Megatron, DeepSpeed:
``dist.is_initialized()``, ``dist.get_world_size()``), now followed as torch.utils.data's classes are, and an
import for the type checker only (``if TYPE_CHECKING: from transformers import PretrainedConfig``), never run."""

from __future__ import annotations

import ast

import pytest
import torch

from grader_tests.attention import static
from tests.grading.helpers import SUBMISSIONS

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


# ------------------------------------------------------------------ code that never runs after a failing import
LIGHTNING = ("try:\n    import lightning.pytorch as pl\n    Base = pl.LightningModule\nexcept ImportError:\n"
             "    pl = None\n    Base = nn.Module\nclass Model(Base):\n    pass\n")


def test_a_base_chosen_after_an_optional_import_that_fails_is_no_finding():
    assert _found(HEADER + LIGHTNING) == ()


def test_a_name_bound_only_to_a_torch_class_one_may_derive_from_is_a_plain_base():
    assert _found(HEADER + "Base = nn.Module\nclass Model(Base):\n    pass\n") == ()


BIAS = "torch.nn.attention.bias.CausalBias"
FOREIGN_BASES = {
    "after_an_import_that_succeeds": f"try:\n    import numpy as np\n    B = {BIAS}\nexcept ImportError:\n"
    "    B = nn.Module\nclass C(B):\n    pass\n",
    "in_the_handler_of_a_failing_import": "try:\n    import lightning_absent as pl\n    B = nn.Module\n"
    f"except ImportError:\n    B = {BIAS}\nclass C(B):\n    pass\n",
    "after_the_try": "try:\n    import lightning_absent as pl\nexcept ImportError:\n    pass\nelse:\n    B = 1\n"
    f"B = {BIAS}\nclass C(B):\n    pass\n",
    "rebound_in_a_function": f"B = nn.Module\ndef f():\n    global B\n    B = {BIAS}\nclass C(B):\n    pass\n",
    "rebound_by_a_loop": f"B = nn.Module\nfor B in [{BIAS}]:\n    pass\nclass C(B):\n    pass\n",
    "an_attention_package_after_its_import": "try:\n    import flash_attn\n    B = nn.Module\nexcept ImportError:\n"
    f"    B = nn.Module\nB2 = {BIAS}\nclass C(B2):\n    pass\n",
}


@pytest.mark.parametrize("code", FOREIGN_BASES.values(), ids=FOREIGN_BASES.keys())
def test_a_base_that_may_be_another_torch_class_is_still_flagged(code):
    assert any("derives from" in f for f in static.hidden_name_uses(HEADER + code))


def test_the_parsers_cached_tree_is_not_cut():
    from grading.parsing import parsed

    source = HEADER + LIGHTNING
    static.hidden_name_uses(source)
    tree, _ = parsed(source)
    assert any(isinstance(n, ast.Try) and len(n.body) == 2 for n in ast.walk(tree))


# ------------------------------------------------------------------ torch.distributed's questions
DISTRIBUTED_OK = {
    "aliased": "import torch.distributed as dist\nn = dist.get_world_size() if dist.is_available() "
    "and dist.is_initialized() else 1\n",
    "imported": "import torch.distributed\nn = torch.distributed.get_rank() if torch.distributed.is_initialized() else 0\n",
    "from_imported": "from torch.distributed import get_world_size, is_initialized\n"
    "n = get_world_size() if is_initialized() else 1\n",
    "through_torch": "n = torch.distributed.get_world_size() if torch.distributed.is_initialized() else 1\n",
}
DISTRIBUTED_BAD = {
    "rpc_off_the_alias": "import torch.distributed as dist\ndist.rpc.rpc_sync('w', print)\n",
    "c10d_internals": "import torch.distributed as dist\nx = dist.distributed_c10d._get_default_group()\n",
    "the_module_as_a_value": "import torch.distributed as dist\nd = dist\n",
    "rpc_imported": "from torch.distributed import rpc\n",
    "rpc_through_torch": "x = torch.distributed.rpc\n",
    "a_collective": "import torch.distributed\nx = torch.distributed.broadcast_object_list\n",
}


@pytest.mark.parametrize("code", DISTRIBUTED_OK.values(), ids=DISTRIBUTED_OK.keys())
def test_asking_torch_distributed_for_the_world_size_is_no_finding(code):
    assert _found(HEADER + code) == ()


@pytest.mark.parametrize("code", DISTRIBUTED_BAD.values(), ids=DISTRIBUTED_BAD.keys())
def test_the_rest_of_torch_distributed_stays_flagged(code):
    assert static.hidden_name_uses(HEADER + code)


# ------------------------------------------------------------------ the round's correct files
NEW_CORRECT = ("blip_med_bert_attention", "clip_lnd_attention", "deepspeed_config_layer_counter",
               "detectron2_vitdet_attention", "fairscale_model_parallel_ws1", "gptj_scale_attn_tensor", "haiku_mha_port",
               "jax_pure_functions_params", "lightning_module_optional", "logsumexp_log_domain_softmax",
               "mae_vit_block_partial", "mmengine_basemodule_cfg", "no_grad_helpers_contextlib",
               "performer_exact_softmax_path", "slots_head_layout_classmethod", "sockeye_dot_attention_cell",
               "speechbrain_doctest_docstrings", "swin_window_attention_no_rpb", "t2t_common_attention_port",
               "torchaudio_wav2vec2_selfattention", "torchtext_container_subclass", "xlm_shape_unshape_counter",
               "hf_type_checking_imports")


@pytest.mark.parametrize("name", NEW_CORRECT)
def test_the_rounds_correct_files_have_no_review_finding(name):
    source = (SUBMISSIONS / "correct" / f"{name}.py").read_text(encoding="utf-8")
    assert static.review_reasons(source) == [] and not static.fused_attention_uses(source)


# ------------------------------------------------------------------ the round's other cheats
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



# ------------------------------------------------------------------ a method run with torch as its self
# ``argparse.Namespace.__init__(torch, **{n: deco})`` is ``setattr(torch, n, deco)`` for a computed n: with n
# "no_grad", a method under @torch.no_grad() ran with F as self and its ``self.scaled_dot_product_attention`` was
# F's. Nothing was flagged.
SWAP = "n = ''.join(reversed('darg_on'))\nfake = lambda: (lambda fn: (lambda self, *a: fn(F, *a)))\n"
UNDER_NO_GRAD = ("class ScaledDotProductAttention(nn.Module):\n    def scaled_dot_product_attention(self, q, k, v):\n"
                 "        return q\n    @torch.no_grad()\n    def forward(self, q, k, v):\n"
                 "        return self.scaled_dot_product_attention(q, k, v)\n")
RUN_WITH_ANOTHER_SELF = {
    "namespace_init_on_torch": "argparse.Namespace.__init__(torch, **{n: fake})\n",
    "kept_under_another_name": "init = argparse.Namespace.__init__\ninit(torch, **{n: fake})\n",
    "self_given_by_keyword": "argparse.Namespace.__init__(**{'self': torch, n: fake})\n",
    "imported_by_name": "from argparse import Namespace\nNamespace.__init__(torch, **{n: fake})\n",
    "inherited_by_an_own_class": "class NS(argparse.Namespace):\n    pass\nNS.__init__(torch, **{n: fake})\n",
    "through_self_class": "class NS(argparse.Namespace):\n    def put(self):\n        self.__class__.__init__(torch, **{n: fake})\n"
    "NS().put()\n",
}


@pytest.mark.parametrize("swap", RUN_WITH_ANOTHER_SELF.values(), ids=RUN_WITH_ANOTHER_SELF.keys())
def test_a_library_method_run_with_another_object_as_self_is_flagged(swap):
    found = static.hidden_name_uses(HEADER + "import argparse\n" + SWAP + swap + UNDER_NO_GRAD)
    assert any("called with another self" in f for f in found), found


def test_the_namespace_cheat_really_runs_the_fused_kernel():
    source = HEADER + "import argparse\n" + SWAP + RUN_WITH_ANOTHER_SELF["namespace_init_on_torch"] + UNDER_NO_GRAD
    namespace: dict = {}
    no_grad = torch.no_grad
    try:
        exec(compile(source, "attention.py", "exec"), namespace)
        q = torch.randn(1, 1, 3, 4)
        out = namespace["ScaledDotProductAttention"]()(q, q, q)
    finally:
        torch.no_grad = no_grad
    assert torch.allclose(out, torch.nn.functional.scaled_dot_product_attention(q, q, q))


ON_ITS_OWN_SELF = {
    "a_base_init": "class B(nn.Module):\n    def __init__(self):\n        nn.Module.__init__(self)\n",
    "super_with_arguments": "class B(nn.Module):\n    def __init__(self):\n        super(B, self).__init__()\n",
    "a_bound_init_without_a_self": "import argparse\nns = argparse.Namespace()\nns.__init__(a=1)\n",
}


@pytest.mark.parametrize("code", ON_ITS_OWN_SELF.values(), ids=ON_ITS_OWN_SELF.keys())
def test_an_init_run_on_its_own_object_is_no_finding(code):
    assert _found(HEADER + code) == ()


# ------------------------------------------------------------------ argparse's actions called by hand
# The action ``parser.add_argument('--x', dest=n)`` returns sets ``namespace.<n>`` on whatever it is called with:
# ``action(parser, torch, deco)`` replaced torch.no_grad by a computed name, with no finding.
PARSER_HEAD = "import argparse\nparser = argparse.ArgumentParser()\n"
ACTIONS_BY_HAND = {
    "the_action_add_argument_returns": "action = parser.add_argument('--x', dest=n)\naction(parser, torch, fake)\n",
    "kept_in_a_list": "actions = [parser.add_argument('--x', dest=n)]\nactions[0](parser, torch, fake)\n",
    "of_an_argument_group": "g = parser.add_argument_group('g')\ng.add_argument('--x', dest=n)(parser, torch, fake)\n",
    "built_from_the_module": "argparse.BooleanOptionalAction(['--x'], n)(parser, torch, None, '--x')\n",
    "kept_under_another_name": "B = argparse.BooleanOptionalAction\nB(['--x'], n)(parser, torch, None, '--x')\n",
    "imported_under_another_name": "from argparse import BooleanOptionalAction as B\n"
    "B(['--x'], n)(parser, torch, None, '--x')\n",
    "an_own_subclass_built": "class B(argparse.BooleanOptionalAction):\n    pass\nclass C(B):\n    pass\n"
    "C(['--x'], n)(parser, torch, None, '--x')\n",
}


@pytest.mark.parametrize("code", ACTIONS_BY_HAND.values(), ids=ACTIONS_BY_HAND.keys())
def test_an_argparse_action_kept_or_built_by_hand_is_flagged(code):
    found = static.hidden_name_uses(HEADER + PARSER_HEAD + SWAP + code + UNDER_NO_GRAD)
    assert any("argparse action" in f for f in found), found


def test_the_action_cheat_really_runs_the_fused_kernel():
    source = HEADER + PARSER_HEAD + SWAP + ACTIONS_BY_HAND["the_action_add_argument_returns"] + UNDER_NO_GRAD
    namespace: dict = {}
    no_grad = torch.no_grad
    try:
        exec(compile(source, "attention.py", "exec"), namespace)
        q = torch.randn(1, 1, 3, 4)
        out = namespace["ScaledDotProductAttention"]()(q, q, q)
    finally:
        torch.no_grad = no_grad
    assert torch.allclose(out, torch.nn.functional.scaled_dot_product_attention(q, q, q))


ORDINARY_CLI = {
    "arguments_and_a_boolean_action": "parser.add_argument('--y', type=int, default=3)\n"
    "parser.add_argument('--z', action=argparse.BooleanOptionalAction)\nargs = parser.parse_args([])\n",
    "an_own_action_class_passed": "class B(argparse.BooleanOptionalAction):\n    pass\n"
    "parser.add_argument('--z', action=B)\n",
    "an_own_class_named_action": "import enum\nclass Action(enum.Enum):\n    MOVE = 1\nx = Action.MOVE\ny = Action(1)\n",
}


@pytest.mark.parametrize("code", ORDINARY_CLI.values(), ids=ORDINARY_CLI.keys())
def test_ordinary_argparse_code_is_no_finding(code):
    assert _found(HEADER + PARSER_HEAD + code) == ()


# ------------------------------------------------------------------ super() bound to torch
# The review trusts super() (it binds self): ``super(type(torch), torch).__setattr__(n, deco)`` is
# object.__setattr__(torch, n, deco), and a computed (or written-out) no_grad was replaced unseen.
SUPER_ON_TORCH = {
    "computed_name": "super(type(torch), torch).__setattr__(n, fake)\n",
    "written_out_name": "super(object, torch).__setattr__('no_grad', fake)\n",
    "in_a_method": "class K(nn.Module):\n    def put(self):\n        super(K, torch).__setattr__(n, fake)\nK().put()\n",
}


@pytest.mark.parametrize("code", SUPER_ON_TORCH.values(), ids=SUPER_ON_TORCH.keys())
def test_super_bound_to_something_other_than_self_is_flagged(code):
    found = static.hidden_name_uses(HEADER + SWAP + code + UNDER_NO_GRAD)
    assert any("super() bound to something other than self" in f for f in found), found


def test_the_super_cheat_really_runs_the_fused_kernel():
    source = HEADER + SWAP + SUPER_ON_TORCH["computed_name"] + UNDER_NO_GRAD
    namespace: dict = {}
    no_grad = torch.no_grad
    try:
        exec(compile(source, "attention.py", "exec"), namespace)
        q = torch.randn(1, 1, 3, 4)
        out = namespace["ScaledDotProductAttention"]()(q, q, q)
    finally:
        torch.no_grad = no_grad
    assert torch.allclose(out, torch.nn.functional.scaled_dot_product_attention(q, q, q))


@pytest.mark.parametrize("call", ["super().__init__()", "super(K, self).__init__()"])
def test_super_of_the_object_itself_is_no_finding(call):
    assert _found(HEADER + f"class K(nn.Module):\n    def __init__(self):\n        {call}\n") == ()


# ------------------------------------------------------------------ imports for the type checker only
# ``if TYPE_CHECKING: from transformers import PretrainedConfig`` (HF ports) never runs; it cost 13 points as an
# import the review cannot follow. The block is skipped as the main guard is, unless the file touches the flag.
TYPE_CHECKING_ONLY = {
    "flag_imported_by_name": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from transformers import PretrainedConfig\n",
    "flag_read_off_typing": "import typing\nif typing.TYPE_CHECKING:\n    from transformers.configuration_utils import "
    "PretrainedConfig\n",
}
TYPE_CHECKING_RUNS = {
    "the_else_branch": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    pass\nelse:\n    import transformers\n",
    "flag_set_on_typing": "import typing\ntyping.TYPE_CHECKING = True\nif typing.TYPE_CHECKING:\n    import transformers\n",
    "flag_set_by_setattr": "import typing\nsetattr(typing, 'TYPE_CHECKING', True)\nif typing.TYPE_CHECKING:\n"
    "    import transformers\n",
    "flag_name_rebound": "from typing import TYPE_CHECKING\nTYPE_CHECKING = True\nif TYPE_CHECKING:\n    import transformers\n",
    "own_flag": "TYPE_CHECKING = True\nif TYPE_CHECKING:\n    import transformers\n",
    "negated": "from typing import TYPE_CHECKING\nif not TYPE_CHECKING:\n    import transformers\n",
}


@pytest.mark.parametrize("code", TYPE_CHECKING_ONLY.values(), ids=TYPE_CHECKING_ONLY.keys())
def test_an_import_only_the_type_checker_runs_is_no_finding(code):
    assert _found(HEADER + code) == ()


@pytest.mark.parametrize("code", TYPE_CHECKING_RUNS.values(), ids=TYPE_CHECKING_RUNS.keys())
def test_an_import_that_runs_beside_type_checking_is_still_flagged(code):
    assert any("imports transformers" in f for f in static.hidden_name_uses(HEADER + code))


def test_the_fused_kernel_under_a_flag_the_file_sets_is_still_found():
    code = HEADER + "import typing\ntyping.TYPE_CHECKING = 1\nif typing.TYPE_CHECKING:\n    f = F.scaled_dot_product_attention\n"
    assert static.fused_attention_uses(code)
