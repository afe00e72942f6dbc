"""Round 48 (B): what round 47 left open in the review of famous-code styles. (1) d2l's ``save_hyperparameters``
given a function of torch (``act=F.gelu``, ``from torch.nn.functional import gelu``) is no finding: the function is
resolved through the file's imports in the grader's torch, so a module (``M(torch.nn)``, ``M(F)``) keeps the
finding round 47 gave it. (2) ``getattr(logging, level.upper())`` reads one of logging's upper-case names while the
file never names ``upper`` otherwise and ``logging`` is only imported. (3) nanoGPT's
``hasattr(F, "scaled_dot_product_attention")`` only tests: the string is no lookup; a fused call written in the file
still counts (static) and one made at run time is counted (runtime). (4) 27 more correct styles, each with a faulty
twin."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader_tests.attention import static
from grader_tests.attention.static import hidden_name_uses
from tests.grading.helpers import (
    SUBMISSIONS,
    assert_style_gets_full_marks_with_no_review_finding,
    assert_twin_loses_points_and_is_named_as_declared,
    assert_twins_cover_the_rounds_styles,
    failed_tests,
    graded_mutant,
)
from tests.grading.test_fair_styles_round47 import D2L, KERNEL

CORRECT = SUBMISSIONS / "correct"
TWINS = {"r48_chinese_identifiers": "r48_chinese_identifiers_softmax_over_queries",
         "r48_classmethod_from_config_staticmethod_split":
             "r48_classmethod_from_config_staticmethod_split_merge_no_transpose",
         "r48_closure_helpers_in_forward": "r48_closure_helpers_in_forward_merge_no_transpose",
         "r48_d2l_hparams_activation_function": "r48_d2l_hparams_activation_function_padding_inverted",
         "r48_dataclass_output_iter": "r48_dataclass_output_iter_softmax_over_queries",
         "r48_dropout_or_identity": "r48_dropout_or_identity_no_scale",
         "r48_enum_flag_options": "r48_enum_flag_options_no_scale",
         "r48_functional_dropout_training_flag": "r48_functional_dropout_training_flag_softmax_over_queries",
         "r48_is_tensor_checks_fstring_errors": "r48_is_tensor_checks_fstring_errors_softmax_over_queries",
         "r48_lambda_module_attributes": "r48_lambda_module_attributes_softmax_over_queries",
         "r48_logging_getattr_level_upper": "r48_logging_getattr_level_upper_no_scale",
         "r48_match_class_pattern_guard": "r48_match_class_pattern_guard_padding_inverted",
         "r48_modulelist_projections_unpacked": "r48_modulelist_projections_unpacked_softmax_over_queries",
         "r48_movedim_keys": "r48_movedim_keys_no_scale",
         "r48_nanogpt_hasattr_flash_warning": "r48_nanogpt_hasattr_flash_warning_softmax_over_queries",
         "r48_optional_scale_argument": "r48_optional_scale_argument_no_scale",
         "r48_partial_softmax_attribute": "r48_partial_softmax_attribute_softmax_over_queries",
         "r48_property_setter_heads": "r48_property_setter_heads_merge_no_transpose",
         "r48_reduce_operator_add_masks": "r48_reduce_operator_add_masks_padding_inverted",
         "r48_runtime_checkable_protocol": "r48_runtime_checkable_protocol_softmax_over_queries",
         "r48_singledispatch_mask_bias": "r48_singledispatch_mask_bias_padding_inverted",
         "r48_swapaxes_numpy_habit": "r48_swapaxes_numpy_habit_softmax_over_queries",
         "r48_tensor_split_stack_heads": "r48_tensor_split_stack_heads_merge_no_transpose",
         "r48_type_alias_tensor_linear": "r48_type_alias_tensor_linear_no_scale",
         "r48_typing_annotated_shapes": "r48_typing_annotated_shapes_no_scale",
         "r48_unflatten_movedim_heads": "r48_unflatten_movedim_heads_merge_no_transpose",
         "r48_zip_strict_projections_walrus_check": "r48_zip_strict_projections_walrus_check_merge_no_transpose"}

D2L_ACT = D2L.replace("lib=None", "lib=None, act=None")
D2L_IMPORTED = D2L_ACT.replace("import inspect\n", "import inspect\nfrom torch.nn.functional import gelu\n"
                                                   "from torch import tanh as th, nn as NN\n")


@pytest.mark.parametrize("source, tail", [
    (D2L_ACT, "m = M(act=F.gelu)\n"), (D2L_ACT, "m = M(None, 8, 2, F.relu)\n"), (D2L_ACT, "m = M(lib=torch.tanh)\n"),
    (D2L_ACT, "m = M(act=torch.nn.functional.silu)\n"), (D2L_IMPORTED, "m = M(act=gelu)\n"),
    (D2L_IMPORTED, "m = M(act=th)\n"), (D2L_ACT.replace("act=None", "act=F.gelu"), ""),
])
def test_a_function_of_torch_handed_to_the_caller_of_save_hyperparameters_is_no_finding(source, tail):
    assert hidden_name_uses(source + "\n\n" + tail) == ()


@pytest.mark.parametrize("source, tail", [
    (D2L_ACT, "m = M(lib=F)\n"), (D2L_ACT, "m = M(nn.functional)\n"), (D2L_ACT, "m = M(lib=torch.linalg)\n"),
    (D2L_ACT, "m = M(lib=torch.nn.init)\n"), (D2L_ACT, "m = M(lib=torch.classes)\n"),
    (D2L_ACT, "m = M(lib=F.no_such_function)\n"),                         # not in torch: not known to be a function
    (D2L_ACT, "F = torch\nm = M(act=F.nn)\n"),                              # F bound twice: not read through imports
    (D2L_IMPORTED, "m = M(NN)\n"), (D2L_IMPORTED, "gelu = torch\nm = M(gelu)\n"),
    (D2L_ACT.replace("act=None", "act=torch.nn.functional"), ""),
])
def test_a_module_of_torch_or_a_name_not_resolved_to_a_function_keeps_the_frame_finding(source, tail):
    found = hidden_name_uses(source + "\n\n" + tail)
    assert any("f_back" in f for f in found), (tail, found)


LOG = "import logging\n" + KERNEL + """

def setup_logging(level="info"):
    logging.basicConfig(level=getattr(logging, level.upper()), format="%(levelname)s %(message)s")
    return logging.getLogger(__name__)


logger = setup_logging()
"""


@pytest.mark.parametrize("change", [
    ("", ""), ("getattr(logging, level.upper())", "getattr(logging, level.upper(), logging.INFO)"),
    ("setup_logging()", "setup_logging('DEBUG')"),
    ("getattr(logging, level.upper())", "getattr(logging, str(level).strip().upper())"),
])
def test_getattr_of_logging_with_an_upper_cased_level_name_is_no_finding(change):
    assert hidden_name_uses(LOG.replace(*change)) == ()


@pytest.mark.parametrize("change", [
    ("getattr(logging, level.upper())", "getattr(logging, level)"),                  # any name: logging.sys
    ("getattr(logging, level.upper())", "getattr(torch, level.upper())"),
    ("getattr(logging, level.upper())", "getattr(logging, level.upper)"),
    ("def setup_logging", "class Up:\n    def upper(self):\n        return 'sys'\n\n\ndef setup_logging"),
    ("setup_logging()", "setup_logging(type('L', (), {'upper': lambda self: 'sys'})())"),
    ("setup_logging()", "setup_logging(SimpleNamespace(upper=lambda: 'sys'))"),
    ("def setup_logging", "str.upper = str.lower\n\n\ndef setup_logging"),
    ("def setup_logging", "logging = torch\n\n\ndef setup_logging"),
    ("import logging\n", "import logging as logging\n"),
])
def test_getattr_of_logging_stays_a_finding_when_upper_may_be_the_files_own_or_logging_anything(change):
    # (a level the source does not write: with the written "info" every one of these reads a known name, round 48
    # mend H1)
    found = hidden_name_uses(LOG.replace("import logging\n", "import logging\nSimpleNamespace = dict\n")
                             .replace(*change).replace("setup_logging()", "setup_logging(input())"))
    assert found != (), change


FLASH = KERNEL.replace("class ScaledDot", """class Flash(nn.Module):
    def __init__(self):
        super().__init__()
        self.flash = hasattr(torch.nn.functional, "scaled_dot_product_attention")
        if not hasattr(F, 'scaled_dot_product_attention'):
            print("WARNING: using slow attention")


class ScaledDot""")


def test_hasattr_testing_for_the_fused_kernel_is_no_finding():
    assert hidden_name_uses(FLASH) == ()


@pytest.mark.parametrize("change, finding", [
    (("hasattr(torch.nn.functional,", "getattr(torch.nn.functional,"), "scaled_dot_product_attention"),
    (("        self.flash = hasattr", "        hasattr = getattr\n        self.flash = hasattr"),
     "scaled_dot_product_attention"),
    (("self.flash = hasattr(torch.nn.functional, \"scaled_dot_product_attention\")",
      "n = 'scaled_dot_product_attention'\n        self.flash = hasattr(F, n)"), "scaled_dot_product_attention"),
    (("hasattr(F, 'scaled_dot_product_attention')", "hasattr(torch, '_C')"), "_C"),
])
def test_a_lookup_of_the_fused_kernels_name_other_than_hasattrs_test_stays_a_finding(change, finding):
    found = hidden_name_uses(FLASH.replace(*change))
    assert any(finding in f for f in found), (change, found)


def test_the_fused_call_behind_a_hasattr_switch_still_counts_as_using_it():
    source = FLASH.replace("        w = torch.softmax", "        if Flash().flash:\n"
                           "            return F.scaled_dot_product_attention(q, k, v)\n        w = torch.softmax")
    assert hidden_name_uses(source) == ()
    assert any("scaled_dot_product_attention" in f for f in static.fused_attention_uses(source))


def test_every_round48_twin_differs_from_its_style_by_its_declared_fault_only():
    assert_twins_cover_the_rounds_styles("r48_", TWINS)


@pytest.mark.parametrize("name", ["r48_d2l_hparams_activation_function", "r48_logging_getattr_level_upper",
                                  "r48_nanogpt_hasattr_flash_warning"])
def test_the_round48_styles_the_review_flagged_before_have_no_finding(name):
    # (each cost 17 points before: 68 of 85; the other 24 styles were clean already, graded below)
    assert hidden_name_uses((CORRECT / f"{name}.py").read_text(encoding="utf-8")) == ()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TWINS))
def test_each_round48_style_gets_full_marks_with_no_review_finding(executor, name):
    assert_style_gets_full_marks_with_no_review_finding(executor, name)


@pytest.mark.slow
@pytest.mark.parametrize("twin", sorted(TWINS.values()))
def test_each_round48_twin_loses_points_in_its_category_and_is_named(executor, twin):
    assert_twin_loses_points_and_is_named_as_declared(executor, twin)


SWITCHED = FLASH.replace("        w = torch.softmax", "        if self.flash:\n"
                         "            return F.scaled_dot_product_attention(q, k, v)\n        w = torch.softmax")


def test_the_branch_a_fused_call_sits_in_is_named_as_written():
    line = next(i for i, t in enumerate(SWITCHED.splitlines(), 1) if "F.scaled_dot_product_attention" in t)
    assert static.branch_conditions(SWITCHED, [line]) == [f"line {line - 1}: `if self.flash`"]
    assert static.branch_conditions(KERNEL, [9]) == []


@pytest.mark.slow
def test_a_fused_call_behind_a_flash_switch_that_is_off_is_said_to_count_from_the_source(executor):
    # nanoGPT's switch set False with the fused call kept in its branch: no call at run time, the source's counts
    result = graded_mutant(executor, CORRECT / "r48_nanogpt_hasattr_flash_warning.py",
                           "        # manual implementation of attention (the lesson asks for it by hand)\n",
                           "        self.flash = False\n        if self.flash:\n"
                           "            return F.scaled_dot_product_attention(q, k, v, attn_mask=additive_mask)\n")
    failed = failed_tests(result)
    assert set(failed) == {"test_no_fused_attention_static"}, failed
    assert "(line 30: F.scaled_dot_product_attention) (in the branch of line 29: `if self.flash`" in failed["test_no_fused_attention_static"]["en"]
    assert "whether or not that branch runs" in failed["test_no_fused_attention_static"]["en"]
    assert "第 29 行：`if self.flash`" in failed["test_no_fused_attention_static"]["zh"]


@pytest.mark.slow   # a fresh interpreter importing torch: 8 s
def test_resolving_a_function_of_torch_imports_nothing_for_the_file():
    # the grader reads only what torch has loaded: a submodule the file names stays unloaded (and the read a finding)
    code = ("import sys\nimport torch\nfrom grader_tests.attention.static import hidden_name_uses\n"
            "from tests.grading.test_fair_styles_round47 import D2L\n"
            "source = D2L.replace('import inspect\\n', 'import inspect\\nimport torch.utils.benchmark as tb\\n')"
            " + '\\n\\nm = M(tb.Timer.timeit)\\nn = M(tb.timer)\\n'\n"
            "found = hidden_name_uses(source)\n"
            "assert 'torch.utils.benchmark' not in sys.modules, 'imported'\n"
            "assert any('f_back' in f for f in found), found\n")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
