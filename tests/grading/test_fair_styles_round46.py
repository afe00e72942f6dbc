"""Round 46 (B): correct files in the styles of famous public code (The Annotated Transformer, nanoGPT, minGPT,
Hugging Face BERT/GPT-2, timm, fairseq, x-transformers, d2l, PyTorch tutorials, Keras ports, einops layers,
``__slots__``, properties, staticmethods, registries, ``typing.Protocol``, ``torch.jit.script``...), graded through the
real grader, each with a faulty twin. Five lost the 17 points that rest on the review: (1) d2l's
``save_hyperparameters()`` (``inspect.currentframe().f_back`` read for the caller's arguments); (2) ``self.cfg =
vars(args)`` of an ``argparse.Namespace`` the method made; (3) ``{f.name: getattr(self, f.name) for f in
dataclasses.fields(self)}`` of the file's own dataclass, and ``inspect.signature(fn)`` in a ``functools.wraps``
decorator the file only applies with ``@``; (4) ``d = {...}; self.__dict__.update(d)``, a bare ``.__dict__`` finding,
now read as ``self.name = value`` for each written key (torch as a value is "kept as an attribute", as a direct
assignment is), which also closed a hole: a setattr loop over such a dict's ``items()`` was no finding at all.
``atexit.register`` stays a finding: the registered function runs after the grading, where nothing checks it."""

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
TWINS = {"r46_abc_base": "r46_abc_base_softmax_over_queries",
         "r46_annotated_clones": "r46_annotated_clones_padding_inverted",
         "r46_argparse_namespace_vars": "r46_argparse_namespace_vars_softmax_over_queries",
         "r46_argparse_vars_namespace_kwargs": "r46_argparse_vars_namespace_kwargs_padding_inverted",
         "r46_attributedict_hparams": "r46_attributedict_hparams_softmax_over_queries",
         "r46_autocast_finfo": "r46_autocast_finfo_padding_inverted",
         "r46_baddbmm_megatron": "r46_baddbmm_megatron_softmax_over_queries",
         "r46_buffer_old_super": "r46_buffer_old_super_padding_inverted",
         "r46_d2l_save_hyperparameters": "r46_d2l_save_hyperparameters_softmax_over_queries",
         "r46_d2l_transpose_qkv": "r46_d2l_transpose_qkv_padding_inverted",
         "r46_dataclass_fields_getattr": "r46_dataclass_fields_getattr_softmax_over_queries",
         "r46_dict_update_local_dict": "r46_dict_update_local_dict_padding_inverted",
         "r46_einops_rearrange_layers": "r46_einops_rearrange_layers_softmax_over_queries",
         "r46_extra_repr_warnings": "r46_extra_repr_warnings_padding_inverted",
         "r46_fairseq_bmm": "r46_fairseq_bmm_padding_inverted",
         "r46_frozen_dataclass_replace": "r46_frozen_dataclass_replace_padding_inverted",
         "r46_functools_partial_lru": "r46_functools_partial_lru_softmax_over_queries",
         "r46_hf_bert_transpose_for_scores": "r46_hf_bert_transpose_for_scores_padding_inverted",
         "r46_hf_gpt2_split_merge": "r46_hf_gpt2_split_merge_softmax_over_queries",
         "r46_hf_init_weights": "r46_hf_init_weights_padding_inverted",
         "r46_init_subclass_mixin": "r46_init_subclass_mixin_softmax_over_queries",
         "r46_jit_ignore_method": "r46_jit_ignore_method_padding_inverted",
         "r46_jit_script_helper": "r46_jit_script_helper_softmax_over_queries",
         "r46_keras_call_build": "r46_keras_call_build_padding_inverted",
         "r46_mingpt_cfgnode": "r46_mingpt_cfgnode_softmax_over_queries",
         "r46_moduledict_aliases": "r46_moduledict_aliases_padding_inverted",
         "r46_namedtuple_enum": "r46_namedtuple_enum_softmax_over_queries",
         "r46_nanogpt_config": "r46_nanogpt_config_padding_inverted",
         "r46_properties_scale": "r46_properties_scale_padding_inverted",
         "r46_registry_decorator": "r46_registry_decorator_padding_inverted",
         "r46_setattr_loop_dict_items": "r46_setattr_loop_dict_items_softmax_over_queries",
         "r46_simplenamespace_locals": "r46_simplenamespace_locals_padding_inverted",
         "r46_slots_config": "r46_slots_config_softmax_over_queries",
         "r46_staticmethod_shape": "r46_staticmethod_shape_padding_inverted",
         "r46_timm_final_scale": "r46_timm_final_scale_softmax_over_queries",
         "r46_tutorial_matmul": "r46_tutorial_matmul_padding_inverted",
         "r46_typing_overload": "r46_typing_overload_softmax_over_queries",
         "r46_typing_protocol": "r46_typing_protocol_padding_inverted",
         "r46_wraps_signature_decorator": "r46_wraps_signature_decorator_softmax_over_queries",
         "r46_xtransformers_einops": "r46_xtransformers_einops_padding_inverted"}
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
D2L = """import inspect
""" + KERNEL + """

class HyperParameters:
    def save_hyperparameters(self, ignore=[]):
        frame = inspect.currentframe().f_back
        _, _, _, local_vars = inspect.getargvalues(frame)
        self.hparams = {k: v for k, v in local_vars.items() if k not in set(ignore + ['self'])}
        for k, v in self.hparams.items():
            setattr(self, k, v)


class M(nn.Module, HyperParameters):
    def __init__(self, d_model, heads=2):
        super().__init__()
        self.save_hyperparameters()
"""


@pytest.mark.parametrize("source", [
    D2L, D2L.replace("_, _, _, local_vars = inspect.getargvalues(frame)", "local_vars = frame.f_locals"),
    D2L.replace("self.save_hyperparameters()", "scale = d_model ** -0.5\n        self.save_hyperparameters(ignore=['scale'])")])
def test_d2l_save_hyperparameters_called_by_the_files_own_method_is_no_finding(source):
    assert hidden_name_uses(source) == ()


@pytest.mark.parametrize("change", [
    ("self.save_hyperparameters()", "t = torch\n        self.save_hyperparameters()"),        # torch among the locals
    ("self.save_hyperparameters()", "self.save_hyperparameters()\n        s = self.save_hyperparameters"),
    ("local_vars = inspect.getargvalues(frame)", "local_vars = inspect.getargvalues(frame.f_back)"),
    ("_, _, _, local_vars = inspect.getargvalues(frame)", "local_vars = frame.f_globals"),
    ("def save_hyperparameters", "def forward"),                  # a name PyTorch calls: the caller is torch's
    ("        self.save_hyperparameters()", "        def f():\n            self.save_hyperparameters()\n        f()")])
def test_a_caller_frame_read_any_other_way_or_by_an_unknown_caller_stays_a_finding(change):
    found = hidden_name_uses(D2L.replace(*change))
    assert any("f_back" in f or "currentframe" in f for f in found), (change, found)


@pytest.mark.parametrize("maker", ["argparse.Namespace(d=d_model, h=heads)", "types.SimpleNamespace(d=d_model)"])
def test_vars_of_a_namespace_the_method_made_is_no_finding(maker):
    source = "import argparse\nimport types\n" + KERNEL + INIT + f"        args = {maker}\n        self.cfg = vars(args)\n"
    assert hidden_name_uses(source) == ()


@pytest.mark.parametrize("body", ["args = torch\n        self.cfg = vars(args)",
                                  "args = argparse.Namespace()\n        args = torch\n        self.cfg = vars(args)",
                                  "self.cfg = vars(self.x)"])
def test_vars_of_anything_else_stays_a_finding(body):
    found = hidden_name_uses("import argparse\n" + KERNEL + INIT + "        " + body + "\n")
    assert any(f.endswith(": vars") for f in found), found
    shadowed = "import argparse\nimport types\n" + KERNEL + "Namespace = lambda: torch\n" + INIT \
        + "        args = Namespace()\n        self.cfg = vars(args)\n"
    assert any(f.endswith("vars") for f in hidden_name_uses(shadowed))


DATACLASS = "import dataclasses\n" + KERNEL + """

@dataclasses.dataclass
class Config:
    d_model: int = 8
    heads: int = 2

    def as_dict(self):
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
"""


def test_getattr_by_the_field_names_of_the_files_own_dataclass_is_judged_as_those_names():
    assert hidden_name_uses(DATACLASS) == ()
    assert hidden_name_uses(DATACLASS + "CFG = Config()\nD = {f.name: getattr(CFG, f.name) for f in dataclasses.fields(CFG)}\n") == ()
    private = hidden_name_uses(DATACLASS.replace("heads: int = 2", "_C: int = 2"))
    assert any("getattr(self, '_C')" in f for f in private), private


@pytest.mark.parametrize("change", [("fields(self)", "fields(torch)"), ("getattr(self, f.name)", "getattr(self, f)"),
                                    ("class Config:", "class Config(Foreign):")])
def test_fields_of_anything_but_the_files_own_dataclass_stay_a_computed_name(change):
    source = DATACLASS.replace(*change).replace("import dataclasses\n", "import dataclasses\nForeign = object\n")
    assert any("computed name" in f for f in hidden_name_uses(source)), change


WRAPS = "import functools\nimport inspect\n" + KERNEL + """

def logged(fn):
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def inner(*args, **kwargs):
        sig.bind(*args, **kwargs)
        return fn(*args, **kwargs)
    return inner


class M(nn.Module):
    @logged
    def forward(self, x):
        return x
"""


def test_signature_of_what_a_decorator_the_file_only_applies_with_at_is_given_is_no_finding():
    assert hidden_name_uses(WRAPS) == ()
    for extra in ("logged(F.softmax)\n", "x = logged\n"):
        assert any("inspect.signature" in f for f in hidden_name_uses(WRAPS + extra)), extra


@pytest.mark.parametrize("body, finding", [
    ('d = {"t": torch}\n        self.__dict__.update(d)', "line 15: torch kept as an attribute"),
    ('d = dict(t=F)\n        vars(self).update(d)', "line 15: F kept as an attribute"),
    ('d = {"t": F}\n        for k, v in d.items():\n            setattr(self, k, v)', "line 16: F kept as an attribute"),
    ('for k, v in {"t": torch}.items():\n            setattr(self, k, v)', "line 15: torch kept as an attribute"),
    ('d = {}\n        d["t"] = torch\n        self.__dict__.update(d)', "line 16: .__dict__"),
    ('d = {"_C": 1}\n        self.__dict__.update(d)', "line 15: .__dict__")])
def test_a_local_dict_given_to_self_is_read_as_its_written_names_and_values(body, finding):
    found = hidden_name_uses(KERNEL + INIT + "        " + body + "\n")
    assert finding in found, found


def test_a_setattr_loop_over_a_local_dicts_keys_reads_the_dicts_values():
    loop = 'd = {"t": F}\n        for k in d:\n            setattr(self, k, d[k])'
    assert "line 16: F kept as an attribute" in hidden_name_uses(KERNEL + INIT + "        " + loop + "\n")
    plain = loop.replace('{"t": F}', '{"n": heads, "s": 0.5}')
    assert hidden_name_uses(KERNEL + INIT + "        " + plain + "\n") == ()


def test_a_local_dict_of_plain_values_given_to_self_is_no_finding():
    for body in ('d = {"n": heads, "scale": d_model ** -0.5}\n        self.__dict__.update(d)',
                 'd = dict(n=heads)\n        vars(self).update(d)'):
        assert hidden_name_uses(KERNEL + INIT + "        " + body + "\n") == (), body


def test_atexit_registration_stays_a_finding():
    source = "import atexit\n" + KERNEL + "atexit.register(print, 'done')\n"
    assert any("atexit" in f for f in hidden_name_uses(source))


def test_every_twin_differs_from_its_style_by_its_declared_fault_only():
    assert sorted(TWINS) == sorted(p.stem for p in CORRECT.glob("r46_*.py"))
    for name, twin in TWINS.items():
        assert_twin_differs_by_one_declared_fault(name, twin)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TWINS))
def test_each_round46_style_gets_full_marks_with_no_review_finding(executor, name):
    result = graded_corpus_file(executor, CORRECT / f"{name}.py")
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and result["review"] == [], (failed_tests(result), result["review"])
    assert code_score(result) == 85


@pytest.mark.slow
@pytest.mark.parametrize("twin", sorted(TWINS.values()))
def test_each_round46_twin_loses_points_in_its_category_and_is_named(executor, twin):
    assert_twin_loses_points_and_is_named_as_declared(executor, twin)
