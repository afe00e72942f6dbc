"""Round 39 mend of brief D (review RD): the multi-head hints' misses the review found.

1. out_proj bound to the first layer of a container (``self.out_proj = self.to_out[0]``) of the wrong size names
   the line that builds the container, quoting the layer itself when the container lists it.
2. Two copies of a sample differing in the weights alone, the same call repeated giving the same results
   (probes/sub/f03_fold_w_only.py), were said to be randomness: the weights are now checked for a fold or an
   exchange of axes, and with the same results repeated randomness is never said.
6. The zh fold texts write every rearrange pattern in backticks.
"""

from __future__ import annotations

import re

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose, folds, source_lines
from tests.grading.helpers import english_in_zh
from tests.grading.probes_round38 import line_of, probe
from tests.grading.test_hints_round39 import _bh_hb, _info, _sum_over
from tests.grading.test_quoted_lines_round31 import quoted_lines

CLS = "MultiHeadAttention"



# ----------------------------------------------------------------------------- 1. out_proj = self.to_out[0]
TO_OUT_0 = probe().replace(
    "self.out_proj = nn.Linear(self.h * self.d_k, d_model)",
    "self.to_out = nn.Sequential(nn.Linear(self.h * self.d_k, self.d_k), nn.Dropout(0.0))\n"
    "        self.out_proj = self.to_out[0]")


def test_an_out_projection_of_the_wrong_size_inside_a_container_names_the_line_that_builds_the_container():
    from grader_tests.attention.drivers import projection_problem

    said = projection_problem(_info(16, 4), 16, 16, source=TO_OUT_0)
    line = line_of(TO_OUT_0, "self.to_out = nn.Sequential(")
    code = "nn.Linear(self.h * self.d_k, self.d_k)"      # the layer out_proj is, not the shortened container
    assert said["en"] == (f"out_proj maps 16 -> 4 features, expected 16 -> 16; line {line} builds self.to_out[0]: "
                          f"{code}"), said
    assert said["zh"].endswith(f"；第 {line} 行构建了 self.to_out[0]：{code}"), said
    assert quoted_lines(said["en"]) == [(line, None, code)]


def test_a_container_layer_the_container_does_not_list_quotes_the_container():
    source = TO_OUT_0.replace("self.to_out[0]", "self.to_out[1]").replace(
        "nn.Sequential(nn.Linear(self.h * self.d_k, self.d_k), nn.Dropout(0.0))", "nn.Sequential(*layers)")
    said = source_lines.projection_build_note(source, CLS, "out_proj")
    assert said is not None and said["en"].endswith("builds self.to_out: nn.Sequential(*layers)"), said


# ----------------------------------------------------------------------------- 2. only the weights moved
class _Kernel:
    """A deterministic ScaledDotProductAttention whose output is right and whose weights are ``move``d."""

    def __init__(self, move):
        self.move = move

    def sdpa(self, q, k, v, mask=None, *, return_weights=False):
        out, w = C.ref_output(q, k, v).float(), C.ref_weights(q, k).float()
        return (out, self.move(w).contiguous()) if return_weights else out



def _copies_said(move) -> dict:
    from grader_tests.attention.test_implementation import _why_copies_differ

    student = _Kernel(move)
    doubled = tuple(torch.cat([t, t]) for t in C.parity_case())
    return _why_copies_differ(student, doubled, student.sdpa(*doubled, return_weights=True))


def test_copies_differing_in_the_weights_alone_say_the_weights_blocks_moved_not_randomness():
    # the doubled parity case has B == H == 4: the fold is then the plain exchange of the axes, and said so
    said = _copies_said(_bh_hb)
    assert said["en"].startswith("each (sample, head) block of the weights is the right result"), said
    assert "the batch and head axes are exchanged somewhere" in said["en"], said
    assert "random" not in said["en"] and "随机" not in said["zh"], said


def test_copies_differing_with_the_same_results_repeated_never_say_randomness():
    # samples rolled, heads kept: no fold and no exchange of axes, and no randomness either
    said = _copies_said(lambda w: w.roll(1, 0))
    assert said is not None and diagnose.FAULTS["dropout"]["en"] not in said["en"], said
    assert "random" not in said["en"] and "随机" not in said["zh"], said
    assert said["en"].startswith("the same call repeated gives the same results"), said
    assert english_in_zh(said["zh"]) == [], said


def test_weights_blocks_exchanged_are_said_of_the_weights():
    q, k, v = (torch.cat([t, t]) for t in C.parity_case())
    w = C.ref_weights(q, k)
    B, H = w.shape[:2]
    moved = w.transpose(0, 1).reshape(B * H, *w.shape[2:]).view(B, H, *w.shape[2:])
    said = diagnose.results_exchanged(moved, q, k, v, weights=True)
    assert said is not None and said["en"].startswith("each (sample, head) block of the weights is the right result")
    assert said["zh"].startswith("权重中每个（样本，head）块"), said


# ----------------------------------------------------------------------------- 6. zh fold texts
def test_the_zh_fold_texts_write_every_pattern_in_backticks():
    for text in folds.FOLDS.values():
        outside = re.sub(r"`[^`]*`", "", text["zh"])
        assert "->" not in outside, outside


# ----------------------------------------------------------------------------- 3. a module folding heads itself
def _module_folding(order: str | None):
    """What a MultiHeadAttention returns that folds the heads into the batch itself around a 3-D kernel and unfolds
    them in the other ``order`` (probes/sub/g03_mha_fold.py), both its output and its weights; right for None."""
    params, x = C.mha_params(30, 16, 4, 4), C.tokens(42, 2, 5, 16)
    q, k, v, mask = C.mha_heads(params, 4, 4, x)
    heads, w = C.ref_output(q, k, v, mask).double(), C.ref_weights(q, k, mask).double()
    if order is not None:
        heads, w = folds.moved(heads, order), folds.moved(w, order)
    return C.mha_merge(params, heads).float(), w.float(), params, x


@pytest.mark.parametrize("order", ["bh_hb", "hb_bh"])
def test_a_module_unfolding_the_heads_in_the_other_order_is_named_from_its_weights_and_from_its_output(order):
    out, w, params, x = _module_folding(order)
    assert diagnose.mha(out, w, params, 4, 4, x) == folds.FOLDS[order]
    assert diagnose.mha(out, None, params, 4, 4, x) == folds.FOLDS[order]


def test_a_module_whose_heads_moved_otherwise_names_no_fold():
    out, w, params, x = _module_folding(None)
    assert diagnose.mha(out, w, params, 4, 4, x) is None
    rolled = C.mha_merge(params, folds.moved(C.ref_output(*C.mha_heads(params, 4, 4, x)).double(), "bh_hb") * 1.01)
    assert diagnose.mha(rolled.float(), None, params, 4, 4, x) is None


# ----------------------------------------------------------------------------- 4. the heads' number unpacked

@pytest.mark.parametrize("pre", ["_, n_heads, _, _ = attn.shape", "b, n_heads, i, j = attn.size()"],
                         ids=["shape", "size"])
def test_a_sum_over_the_heads_divided_by_their_number_unpacked_from_the_shape_is_quoted_as_their_mean(pre):
    source = _sum_over("n_heads", pre)
    said = source_lines.head_mean_note(source, CLS)
    assert said is not None and said["en"].startswith(f"line {line_of(source, 'attn.sum(dim=1')} averages over dim 1")


@pytest.mark.parametrize("pre", ["_, _, n_heads, _ = attn.shape", "_, n_heads = attn.shape[:2]",
                                 "_, n_heads, _, _ = attn.shape\nn_heads = self.d_k"],
                         ids=["query_axis", "sliced", "rebound"])
def test_a_sum_divided_by_another_unpacked_size_is_no_mean(pre):
    assert source_lines.head_mean_note(_sum_over("n_heads", pre), CLS) is None


# ----------------------------------------------------------------------------- 5. two names, two lines
def test_a_projection_applied_under_two_names_on_two_lines_names_where_it_is_built():
    source = probe(proj="y = self.dense(merged)\ny = self.out_proj(y)").replace(
        "self.out_proj = nn.Linear(self.h * self.d_k, d_model)",
        "self.dense = nn.Linear(self.h * self.d_k, d_model)\n        self.out_proj = self.dense")
    said = source_lines.out_proj_twice_note(source, CLS)
    line = line_of(source, "self.dense = nn.Linear(")
    assert said is not None and said["en"].endswith(f"; line {line} builds self.dense: "
                                                    "nn.Linear(self.h * self.d_k, d_model)"), said
    assert said["zh"].endswith(f"；第 {line} 行构建了 self.dense：nn.Linear(self.h * self.d_k, d_model)"), said
