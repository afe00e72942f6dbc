"""Round 47 (B): the leftovers of round 46's famous-code styles. (1) a decorator factory (``@logged("info")``
returning a ``functools.wraps`` wrapper that reads ``inspect.signature(fn)``) applied only to the file's own defs
is read as round 46's plain decorator is; (2) ``vars(parser.parse_args([]))`` of an ``argparse.ArgumentParser``
whose every argument is written out is a dict of those defaults; (3) a HOLE closed: d2l's
``save_hyperparameters`` called from a method with parameters reads what its callers pass, so ``M(torch)``
anywhere in the file keeps the frame-reading finding (the honest style, which hands torch to nothing, stays
clean)."""

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
# each correct style -> its faulty twin (one declared fault: scale, softmax axis, mask or padding polarity, heads)
TWINS = {"r47_annotated_attention_function": "r47_annotated_attention_function_softmax_over_queries",
         "r47_argparse_parse_args_defaults": "r47_argparse_parse_args_defaults_padding_inverted",
         "r47_bool_from_additive_masked_fill": "r47_bool_from_additive_masked_fill_mask_inverted",
         "r47_cached_property_dims": "r47_cached_property_dims_merge_no_transpose",
         "r47_class_decorator_update_wrapper": "r47_class_decorator_update_wrapper_softmax_over_queries",
         "r47_contextlib_helpers": "r47_contextlib_helpers_softmax_over_queries",
         "r47_cooperative_kwargs_mixin": "r47_cooperative_kwargs_mixin_merge_no_transpose",
         "r47_dataclass_asdict_kwargs": "r47_dataclass_asdict_kwargs_padding_inverted",
         "r47_dataclass_post_init": "r47_dataclass_post_init_padding_inverted",
         "r47_decorator_factory_logged": "r47_decorator_factory_logged_softmax_over_queries",
         "r47_diffusers_from_config_signature": "r47_diffusers_from_config_signature_padding_inverted",
         "r47_einsum_only": "r47_einsum_only_softmax_over_queries",
         "r47_enum_str_mode": "r47_enum_str_mode_padding_inverted",
         "r47_espnet_forward_attention": "r47_espnet_forward_attention_padding_inverted",
         "r47_fairseq_scaling_bmm": "r47_fairseq_scaling_bmm_no_scale",
         "r47_gpt2_split_merge_where": "r47_gpt2_split_merge_where_softmax_over_queries",
         "r47_hf_bert_extended_mask": "r47_hf_bert_extended_mask_padding_inverted",
         "r47_hf_eager_attention_interface": "r47_hf_eager_attention_interface_no_scale",
         "r47_jaxtyping_guarded": "r47_jaxtyping_guarded_no_scale",
         "r47_jit_unused_export": "r47_jit_unused_export_no_scale",
         "r47_json_config_namespace": "r47_json_config_namespace_padding_inverted",
         "r47_keras_einsum_equations": "r47_keras_einsum_equations_softmax_over_queries",
         "r47_ldm_crossattention_aliases": "r47_ldm_crossattention_aliases_split_heads_first",
         "r47_llama_repeat_kv": "r47_llama_repeat_kv_softmax_over_queries",
         "r47_logger_debug_shapes": "r47_logger_debug_shapes_padding_inverted",
         "r47_lucidrains_exists_default": "r47_lucidrains_exists_default_no_scale",
         "r47_math_inf_mask_cache": "r47_math_inf_mask_cache_padding_inverted",
         "r47_mmcv_register_module": "r47_mmcv_register_module_softmax_over_queries",
         "r47_namedtuple_output": "r47_namedtuple_output_softmax_over_queries",
         "r47_nanogpt_flash_off": "r47_nanogpt_flash_off_padding_inverted",
         "r47_opennmt_shape_unshape": "r47_opennmt_shape_unshape_no_scale",
         "r47_perceiver_max_neg_value": "r47_perceiver_max_neg_value_padding_inverted",
         "r47_register_buffer_tril": "r47_register_buffer_tril_padding_inverted",
         "r47_timm_stack_unbind": "r47_timm_stack_unbind_softmax_over_queries",
         "r47_typing_generic_final": "r47_typing_generic_final_softmax_over_queries",
         "r47_visualization_attn_map": "r47_visualization_attn_map_softmax_over_queries",
         "r47_vit_pytorch_attend_map": "r47_vit_pytorch_attend_map_softmax_over_queries",
         "r47_warnings_kwargs_alias": "r47_warnings_kwargs_alias_softmax_over_queries",
         "r47_whisper_quarter_scale": "r47_whisper_quarter_scale_no_scale"}

KERNEL = """import math
import torch
from torch import nn
import torch.nn.functional as F


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
        return (w @ v, w) if return_weights else w @ v
"""
FACTORY = "import functools\nimport inspect\n" + KERNEL + """

def logged(level):
    def deco(fn):
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def inner(*args, **kwargs):
            sig.bind(*args, **kwargs)
            return fn(*args, **kwargs)
        return inner
    return deco


class M(nn.Module):
    @logged('info')
    def forward(self, x):
        return x

    @staticmethod
    @logged(level='debug')
    def helper(x):
        return x
"""


def test_a_decorator_factory_applied_with_at_to_the_files_own_defs_reads_their_own_signature():
    assert hidden_name_uses(FACTORY) == ()


@pytest.mark.parametrize("change", [
    ("    return deco\n", "    return F.softmax\n"),                        # the factory hands back something else
    ("    return deco\n", "    return deco if level else F.softmax\n"),
    ("    @logged('info')\n", "    @logged('info')(F.softmax)\n"),       # its decorator given torch's function
    ("class M(nn.Module):", "x = logged('info')\n\n\nclass M(nn.Module):"),  # the factory's result kept
    ("    def deco(fn):", "    def deco(fn, other=F.softmax):"),
    ("            return fn(*args, **kwargs)\n        return inner\n",
     "            return fn(*args, **kwargs)\n        return inner\n    deco = logged\n"),
])
def test_a_decorator_factory_that_may_hand_its_decorator_anything_else_keeps_the_signature_finding(change):
    found = hidden_name_uses(FACTORY.replace(*change))
    assert any("inspect.signature" in f for f in found), (change, found)


PARSER = "import argparse\n" + KERNEL + """

def get_parser():
    parser = argparse.ArgumentParser(description='attention')
    parser.add_argument('--d_model', type=int, default=8)
    parser.add_argument('--heads', type=int, default=2, choices=[1, 2, 4])
    parser.add_argument('--scale', type=float, default=-1.0)
    parser.add_argument('--causal', action=argparse.BooleanOptionalAction, default=False)
    parser.set_defaults(name='mha')
    return parser


class M(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = vars(get_parser().parse_args([]))
        self.heads = cfg['heads']
"""
MODULE_PARSER = "import argparse\n" + KERNEL + """
parser = argparse.ArgumentParser()
parser.add_argument('--d_model', type=int, default=8)
args = parser.parse_args([])
CONFIG = vars(args)
HEADS = CONFIG.get('heads', 2)
"""


@pytest.mark.parametrize("source", [PARSER, MODULE_PARSER, MODULE_PARSER.replace("parse_args([])", "parse_args()")])
def test_vars_of_parsed_written_out_argparse_defaults_is_no_finding(source):
    assert hidden_name_uses(source) == ()


@pytest.mark.parametrize("source, change", [
    (PARSER, ("default=8)", "default=torch)")),                          # torch as a default
    (PARSER, ("parser.set_defaults(name='mha')", "parser.set_defaults(t=F)")),
    (PARSER, ("type=float", "type=lambda s: torch")),                     # a converter of the file's own
    (PARSER, ("parse_args([])", "parse_args([], namespace=torch)")),
    (PARSER, ("argparse.ArgumentParser(description='attention')", "Parser()")),
    (PARSER, ("self.heads = cfg['heads']", "self.heads = cfg['heads']\n        cfg['t'] = torch")),
    (PARSER, ("parser.set_defaults(name='mha')", "parser.set_defaults(**{'t': 1})")),
    (MODULE_PARSER, ("CONFIG = vars(args)", "CONFIG = vars(args)\nCONFIG['t'] = torch")),
    (MODULE_PARSER, ("args = parser.parse_args([])", "args = parser.parse_args([])\nargs = torch")),
    (MODULE_PARSER, ("CONFIG = vars(args)", "vars(args).update(t=1)\nCONFIG = vars(args)")),
    (MODULE_PARSER, ("import argparse\n", "import argparse\nclass P:\n    def parse_args(self, a):\n        return a\n")),
])
def test_vars_of_a_parser_fed_anything_but_written_out_values_stays_a_finding(source, change):
    found = hidden_name_uses(source.replace("import argparse\n", "import argparse\nParser = object\n")
                             .replace(*change))
    assert any(f.endswith("vars") for f in found), (change, found)


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
    def __init__(self, lib=None, d_model=8, heads=2):
        super().__init__()
        self.save_hyperparameters()
"""


@pytest.mark.parametrize("tail", ["m = M(torch)\n", "m = M(lib=torch)\n", "m = M(*[F])\n", "m = M(**{'lib': nn})\n",
                                  "LIB = torch\nm = M(LIB)\n", "def make():\n    return M(torch)\n"])
def test_torch_handed_to_the_caller_of_save_hyperparameters_keeps_the_frame_finding(tail):
    found = hidden_name_uses(D2L + "\n\n" + tail)
    assert any("f_back" in f for f in found), (tail, found)


@pytest.mark.parametrize("tail", ["", "m = M(None, 16, heads=4)\n", "m = M(d_model=torch.zeros(1).numel())\n"])
def test_save_hyperparameters_given_plain_arguments_is_no_finding(tail):
    assert hidden_name_uses(D2L + "\n\n" + tail) == ()


TIMED = "import functools\nimport time\n" + KERNEL + """

class timed:
    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn

    def __get__(self, obj, objtype=None):
        return functools.partial(self.__call__, obj)

    def __call__(self, *args, **kwargs):
        start = time.perf_counter()
        out = self.fn(*args, **kwargs)
        self.elapsed = time.perf_counter() - start
        return out


class M(nn.Module):
    @timed
    def forward(self, x):
        return x
"""


def test_a_class_based_decorator_copying_its_defs_metadata_and_binding_its_own_call_is_no_finding():
    assert hidden_name_uses(TIMED) == ()


@pytest.mark.parametrize("change, finding", [
    (("update_wrapper(self, fn)", "update_wrapper(self, fn, assigned=('x',))"), "functools.update_wrapper"),
    (("update_wrapper(self, fn)", "update_wrapper(self, *[fn])"), "functools.update_wrapper"),
    (("        functools.update_wrapper(self, fn)\n", "        u = functools.update_wrapper\n        u(self, fn)\n"),
     "functools.update_wrapper"),
    (("partial(self.__call__, obj)", "partial(obj.__call__, obj)"), ".__call__"),
    (("partial(self.__call__, obj)", "partial(nn.Module.__call__, obj)"), ".__call__"),
])
def test_update_wrapper_given_names_and_a_dunder_of_another_object_stay_findings(change, finding):
    found = hidden_name_uses(TIMED.replace(*change))
    assert any(finding in f for f in found), (change, found)


def test_every_round47_twin_differs_from_its_style_by_its_declared_fault_only():
    assert sorted(TWINS) == sorted(p.stem for p in CORRECT.glob("r47_*.py"))
    for name, twin in TWINS.items():
        assert_twin_differs_by_one_declared_fault(name, twin)


@pytest.mark.parametrize("name", ["r47_decorator_factory_logged", "r47_argparse_parse_args_defaults",
                                  "r47_class_decorator_update_wrapper"])
def test_the_round47_styles_the_review_flagged_before_have_no_finding(name):
    # the others were clean before this round too; the slow test below grades every style
    assert hidden_name_uses((CORRECT / f"{name}.py").read_text(encoding="utf-8")) == ()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TWINS))
def test_each_round47_style_gets_full_marks_with_no_review_finding(executor, name):
    result = graded_corpus_file(executor, CORRECT / f"{name}.py")
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and result["review"] == [], (failed_tests(result), result["review"])
    assert code_score(result) == 85


@pytest.mark.slow
@pytest.mark.parametrize("twin", sorted(TWINS.values()))
def test_each_round47_twin_loses_points_in_its_category_and_is_named(executor, twin):
    assert_twin_loses_points_and_is_named_as_declared(executor, twin)
