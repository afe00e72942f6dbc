"""Round 39, brief D: the multi-head hints' open misses.

1. The output projection applied twice is quoted with the line of __init__ that builds it (``self.to_out =
   nn.Linear(...)``), and so are its wrong sizes (test_mha_structure's "out_proj maps a -> b features").
2. Weights returned as the heads' mean ([B, 1, Nq, Nk] or [B, Nq, Nk]: drivers.validate_weights) quote the line
   that averages them, when the source shows one whose operand is the attention weights; none otherwise.
3. Heads folded and unfolded in different orders are named when the numbers show it (folds.py).
4. ``w.sum(dim=1) / X`` is a mean over the heads only when X is the number of heads.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose, source_lines
from grader_tests.attention.drivers import validate_weights
from grading.proxy import Feedback
from tests.grading.probes_round38 import line_of, probe

CLS = "MultiHeadAttention"
PARAMS = C.mha_params(30, 16, 4, 4)
X = C.tokens(42, 2, 5, 16)


def _ref_weights():
    return C.ref_mha(PARAMS, 4, 4, X)[1]


def _headless_feedback(source: str | None, keepdim: bool = True) -> dict:
    w = _ref_weights().mean(1, keepdim=keepdim).float()
    with pytest.raises(Feedback) as got:
        validate_weights(w, [2, 4, 5, 5], CLS, None, _ref_weights, source)
    return got.value.message


# ----------------------------------------------------------------------------- 2. the heads' mean returned
RETURNED_MEAN = probe(proj="y = self.out_proj(merged)\nattn = attn.mean(dim=1, keepdim=True)")


@pytest.mark.parametrize("keepdim", [True, False], ids=["B1NN", "BNN"])
def test_weights_returned_as_the_heads_mean_quote_the_line_that_averages_them(keepdim):
    said = _headless_feedback(RETURNED_MEAN, keepdim)
    line = line_of(RETURNED_MEAN, "attn = attn.mean(dim=1, keepdim=True)")
    assert diagnose.FAULTS["weights_head_mean_values"]["en"] in said["en"]
    assert f"line {line} averages over dim 1, the heads of [B, H, Nq, Nk]: attn.mean(dim=1, keepdim=True)" \
        in said["en"], said["en"]
    assert f"第 {line} 行沿 dim 1 取平均" in said["zh"], said["zh"]


@pytest.mark.parametrize("source", [
    None,
    # a mean over dim 1 of the tokens, not of the weights: no line
    probe(pre="token_mean = x.mean(dim=1)\nq = q + 0 * token_mean[:, None, None, :4]"),
    # a sum over the heads divided by a scale, not by the number of heads: no mean at all (4.)
    probe(proj="y = self.out_proj(merged)\nattn = attn.sum(1, keepdim=True) / math.sqrt(self.d_k)"),
], ids=["no_source", "token_mean", "sum_over_scale"])
def test_weights_returned_as_the_heads_mean_quote_no_line_the_source_does_not_show(source):
    said = _headless_feedback(source)
    assert diagnose.FAULTS["weights_head_mean_values"]["en"] in said["en"]
    assert "averages over dim" not in said["en"] and "取平均" not in said["zh"], said


# ----------------------------------------------------------------------------- 4. sum / X is a mean when X is H
def _sum_over(divisor: str, pre: str = "") -> str:
    return probe(post=f"{pre}\nout = torch.matmul(attn.sum(dim=1, keepdim=True) / {divisor}, v)".strip("\n"))


@pytest.mark.parametrize("source", [_sum_over("self.h"), _sum_over("attn.size(1)"), _sum_over("attn.shape[-3]"),
                                    _sum_over("n_heads", "n_heads = attn.shape[1]")],
                         ids=["init_attr", "size_1", "shape_minus_3", "local_from_shape"])
def test_a_sum_over_the_heads_divided_by_their_number_is_quoted_as_their_mean(source):
    said = source_lines.head_mean_note(source, CLS)
    assert said is not None and said["en"].startswith(f"line {line_of(source, 'attn.sum(dim=1')} averages over dim 1")


@pytest.mark.parametrize("source", [_sum_over("self.d_k"), _sum_over("4"), _sum_over("math.sqrt(self.d_k)"),
                                    _sum_over("attn.size(-1)"),
                                    _sum_over("n_heads", "n_heads = attn.shape[1]\nn_heads = self.d_k")],
                         ids=["head_dim", "constant", "scale", "key_count", "rebound"])
def test_a_sum_over_the_heads_divided_by_another_number_is_no_mean(source):
    assert source_lines.head_mean_note(source, CLS) is None
