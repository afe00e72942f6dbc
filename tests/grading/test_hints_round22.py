"""Red-team round 22 on hints for faulty code: a cause is named only when the grader has checked it.

Left open by round 21, each now a checked hint for its whole class: NaN weights from arithmetic on the mask
(``mask * -1e9`` on a 0/-inf mask, ``0 * -inf`` on a padding mask), a projection used for another role
(``v = self.k_proj(context)``, any of the 24 wrong assignments of q_proj/k_proj/v_proj to Q, K, V), ``[N, B, d]``
read for ``[B, N, d]``, and heads split without the transpose but merged with it. Found while writing 22 new faulty
files: NaN in both copies of a sample was told as randomness, float32 inputs giving float64 results kept full marks
in ScaledDotProductAttention (and failed in MultiHeadAttention with PyTorch's words only), and PyTorch's "value
cannot be converted to type c10::Half without overflow" (``masked_fill(..., -1e9)`` on float16) had no hint.
"""

from __future__ import annotations

import math

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose, drivers
from grading.proxy import Feedback
from tests.grading.helpers import SUBMISSIONS, english_in_zh, graded_corpus_file

FAULTY = SUBMISSIONS / "faulty"
pytestmark = pytest.mark.slow      # about 25 s on this host: ten files graded, the 24 role models probed
NEG_INF = float("-inf")


def _failed(executor, name: str) -> dict:
    return {t["id"]: t["feedback"] for t in graded_corpus_file(executor, FAULTY / f"{name}.py")["tests"]
            if t["outcome"] != "passed"}


class Student:
    """A stand-in ScaledDotProductAttention: ``scores(q, k, mask)`` gives the pre-softmax scores."""

    source = None

    def __init__(self, scores):
        self.scores = scores

    def sdpa(self, q, k, v, mask=None, *, return_weights=False, **_):
        s = self.scores(q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1]),
                        None if mask is None else mask.double())
        w = torch.softmax(s, -1)
        out, w = (w @ v.double()).to(q.dtype), w.to(q.dtype)
        return (out, w) if return_weights else out


def _times_neg_1e9(s, m):          # the additive mask read as a 0/1 mask
    return s if m is None else s + m * -1e9


def _mean_centred(s, m):           # "stable" scores centred by their row mean: -inf - (-inf) is NaN
    s = s if m is None else s + m
    return s - s.mean(-1, keepdim=True)


def _zero_times_inf(s, m):         # (mask == -inf).float() * -inf: 0 * -inf on every allowed key
    return s if m is None else s + (m == NEG_INF).double() * NEG_INF


def _inverted(s, m):               # torch.where(mask.bool(), scores, -inf): the blocked keys kept
    return s if m is None else torch.where(m.bool(), s, torch.full_like(s, NEG_INF))


def _query_axis(s, m):             # another mistake that gives NaN with a blocked column: none of the above
    return s if m is None else torch.softmax(s + m, -2).log()


def _case():
    q, k, v = C.qkv(81, 2, 3, 5, 8, 8, 6)
    return q, k, v, C.random_block_mask(82, (2, 3, 5, 8))


def _seen(student, q, k, v, mask):
    out, w = student.sdpa(q, k, v, mask, return_weights=True)
    return w, out


@pytest.mark.parametrize("scores, said", [(_times_neg_1e9, "reads additive_mask as a 0/1 mask"),
                                          (_mean_centred, "the NaN come from the mask's -inf entries themselves"),
                                          (_zero_times_inf, "an entry 0.0 (a key to read) becomes NaN")],
                         ids=["times_neg_1e9", "mean_centred", "zero_times_inf"])
def test_nan_weights_from_arithmetic_on_the_mask_are_told_by_what_the_probes_show(scores, said):
    student = Student(scores)
    q, k, v, mask = _case()
    w, out = _seen(student, q, k, v, mask)
    assert not bool(torch.isfinite(w).all())
    hint = diagnose.mask_nan(student, q, k, v, mask, w, out)
    assert hint is not None and said in hint["en"], hint
    assert english_in_zh(hint["zh"], frozenset({"additive_mask", "float", "mask", "mean"})) == [], hint["zh"]


@pytest.mark.parametrize("scores", [_inverted, _query_axis, lambda s, m: s if m is None else s + m],
                         ids=["inverted", "query_axis", "correct"])
def test_nan_of_another_mistake_and_correct_weights_get_no_mask_arithmetic_hint(scores):
    student = Student(scores)
    q, k, v, mask = _case()
    mask[..., 1:] = NEG_INF if scores is _query_axis else mask[..., 1:]     # whole columns blocked: NaN over queries
    assert diagnose.mask_nan(student, q, k, v, mask, *_seen(student, q, k, v, mask)) is None


def test_the_mask_file_multiplied_by_neg_1e9_is_told_it_reads_the_mask_as_zero_one(executor):
    failed = _failed(executor, "additive_mask_times_neg_1e9")
    for tid in ("test_blocked_key_gets_zero_weight", "test_additive_mask_parity", "test_mask_broadcasts_over_batch_and_heads",
                "test_dtype_preserved", "test_mha_additive_mask"):
        assert "reads additive_mask as a 0/1 mask (1 = blocked), as scores + mask * -1e9 does" in failed[tid]["en"], tid
        assert "代码把 additive_mask 当作 0/1 mask" in failed[tid]["zh"], tid


def test_nan_gradients_say_the_forward_pass_with_the_mask_is_not_finite_and_why_when_checked(executor):
    """'the gradient with respect to q differs from the reference by inf' alone, where the forward pass with
    the test's mask already gave NaN."""
    fb = _failed(executor, "additive_mask_times_neg_1e9")["test_gradients_match_reference"]
    # mend round 47 (review RD, MED 2): the NaN gradient is said by its count of non-finite values, not "by inf"
    assert "differs from the reference (the gradient holds " in fb["en"] \
        and "(allowed 1e-4); the forward pass with this mask already gives " \
           in fb["en"] and "reads additive_mask as a 0/1 mask" in fb["en"], fb
    assert "前向计算就已得到" in fb["zh"], fb
    fb = _failed(executor, "mask_where_bool_inverted")["test_gradients_match_reference"]
    assert "the forward pass with this mask already gives" in fb["en"] and "becomes NaN" not in fb["en"], fb


def test_a_wrapper_that_multiplies_the_additive_mask_by_neg_1e9_is_told_so_too(executor):
    """The same mistake in MultiHeadAttention (its ScaledDotProductAttention correct): re-run with the mask
    written as 0/1, the module's results are right, here and on a second case of other sizes."""
    failed = _failed(executor, "mha_additive_mask_times_neg_1e9")
    assert set(failed) == {"test_mha_additive_mask", "test_mha_single_head"}, failed
    for fb in failed.values():
        assert "reads additive_mask as a 0/1 mask (1 = blocked)" in fb["en"] and "0/1 mask（1 表示屏蔽）" in fb["zh"], fb
        assert "the mistake is in ScaledDotProductAttention" not in fb["en"], fb


def test_a_padding_mask_multiplied_by_neg_inf_is_told_with_the_probe_and_its_line(executor):
    failed = _failed(executor, "padding_times_neg_inf")
    for tid in ("test_padding_keys_get_zero_weight", "test_mha_additive_mask", "test_mha_single_head"):
        fb = failed[tid]
        assert "with a key_padding_mask that marks no key (all False) the results hold NaN too" in fb["en"], (tid, fb)
        assert "line 52 multiplies by -inf" in fb["en"] and "第 52 行乘以了 -inf" in fb["zh"], (tid, fb)


def test_a_zero_one_mask_times_neg_inf_in_sdpa_is_told_an_allowed_entry_becomes_nan(executor):
    failed = _failed(executor, "mask_bool_times_neg_inf")
    for tid in ("test_blocked_key_gets_zero_weight", "test_additive_mask_parity"):
        assert "an entry 0.0 (a key to read) becomes NaN" in failed[tid]["en"], failed[tid]
        assert "line 19 multiplies by -inf" in failed[tid]["en"], failed[tid]


def test_an_inverted_mask_that_blocks_whole_rows_is_not_told_zero_times_inf(executor):
    for fb in _failed(executor, "mask_where_bool_inverted").values():
        assert "becomes NaN" not in fb["en"] and "the NaN come from" not in fb["en"], fb


# ----------------------------------------------------------------------------- a projection in another role
# (round 34: the line is the file's own, no longer a guessed "(v = self.k_proj(...))")
ROLE_FILES = {"v_from_k_proj": ("roles_qkk", "line 47 computes V with k_proj: v = self._split(self.k_proj(context))"),
              "mha_k_from_q_proj": ("roles_qqv", "line 46 computes K with q_proj: k = self._split(self.q_proj(context))"),
              "mha_v_from_q_proj": ("roles_qkq", "line 47 computes V with q_proj: v = self._split(self.q_proj(context))")}


@pytest.mark.parametrize("name", sorted(ROLE_FILES))
def test_a_projection_used_for_another_role_is_named_with_the_role_in_every_multi_head_test(executor, name):
    key, said = ROLE_FILES[name]
    failed = _failed(executor, name)
    mha = {tid: fb for tid, fb in failed.items() if tid.startswith("test_mha") or tid.startswith("test_padding_keys")}
    assert len(mha) >= 5, failed
    for tid, fb in mha.items():
        assert diagnose.FAULTS[key]["en"] in fb["en"] and diagnose.FAULTS[key]["zh"] in fb["zh"], (tid, fb)
        assert said in fb["en"], (tid, fb)


def test_every_wrong_assignment_of_projections_to_roles_is_its_own_named_model():
    params, x, ctx = C.mha_params(30, 16, 4, 4), C.tokens(43, 2, 3, 16), C.tokens(44, 2, 7, 16)
    seen = {}
    for fault in C.PROJECTION_ROLE_FAULTS:
        out, w = C.mha_variant(params, 4, 4, x, ctx, fault=fault)
        assert diagnose.mha(out.float(), w.float(), params, 4, 4, x, ctx) == diagnose.FAULTS[fault], fault
        seen[fault] = out
        zh = diagnose.FAULTS[fault]["zh"]
        assert english_in_zh(zh, frozenset({"context", "self"})) == [], zh
    assert len(C.PROJECTION_ROLE_FAULTS) == 24 and "roles_qkv" not in seen
    # q and k swapped in self-attention transpose the scores: that is the Q/K swap, named as such
    out, w = C.mha_variant(params, 4, 4, x, fault="qk_swapped")
    assert C.mha_variant(params, 4, 4, x, fault="roles_kqv") is None
    assert diagnose.mha(out.float(), w.float(), params, 4, 4, x) == diagnose.FAULTS["qk_swapped"]


def test_q_and_k_projections_swapped_are_named_as_such_in_cross_attention(executor):
    failed = _failed(executor, "mha_qk_projections_swapped")
    fb = failed["test_mha_cross_attention_parity"]
    assert "Q projected with k_proj, K projected with q_proj" in fb["en"], fb


# ----------------------------------------------------------------------------- [N, B, d] read for [B, N, d]
def test_inputs_read_sequence_first_are_named_and_their_weights_shape_explained(executor):
    failed = _failed(executor, "mha_seq_first")
    for tid in ("test_mha_self_attention_parity", "test_mha_custom_head_dim"):
        assert diagnose.FAULTS["seq_first"]["en"] in failed[tid]["en"], failed[tid]
        assert diagnose.FAULTS["seq_first"]["zh"] in failed[tid]["zh"], failed[tid]
    assert "that is [N, H, B, B], the shape of attention over the batch axis" in \
        failed["test_mha_single_head"]["en"], failed["test_mha_single_head"]
    with pytest.raises(Feedback) as exc:            # a shape that only looks like it: nothing said
        drivers.validate(torch.zeros(4, 1, 2, 3), [2, 1, 4, 4], "MultiHeadAttention", "weights")
    assert "batch axis" not in exc.value.message["en"]


# ----------------------------------------------------------------------------- heads split without the transpose
def test_heads_split_without_the_transpose_and_merged_with_it_are_named_so(executor):
    failed = _failed(executor, "split_reshape_merge_transpose")
    for tid in ("test_mha_self_attention_parity", "test_mha_cross_attention_parity", "test_mha_custom_head_dim"):
        assert diagnose.FAULTS["split_no_transpose_only"]["en"] in failed[tid]["en"], failed[tid]
        assert diagnose.FAULTS["split_no_transpose"]["en"] not in failed[tid]["en"], failed[tid]


# ----------------------------------------------------------------------------- found while writing the corpus
def test_nan_in_both_copies_of_a_sample_is_not_told_as_randomness(executor):
    """A causal mask with triu(diagonal=0) blocks every key of query 0: NaN, the same in both copies of a sample;
    max_err counts NaN as infinitely far, and the determinism test named randomness."""
    failed = _failed(executor, "causal_mask_diagonal_blocked")
    assert "test_deterministic" not in failed, failed.get("test_deterministic")
    assert not [tid for tid, fb in failed.items() if diagnose.FAULTS["dropout"]["en"] in fb["en"]]


def test_float32_inputs_that_give_float64_results_lose_the_dtype_test(executor):
    failed = _failed(executor, "softmax_dtype_float64")
    fb = failed["test_dtype_preserved"]
    assert fb["en"].startswith("float32 inputs gave a float64 output: keep the dtype of q"), fb
    assert fb["zh"].startswith("float32 输入得到了 float64 的输出"), fb


def test_a_fill_value_past_the_dtype_is_told_with_the_dtype_range_and_the_constant(executor):
    from grading.load_hints import fill_overflow_note

    fb = _failed(executor, "mask_fill_neg_1e9_half")["test_half_precision_large_logits"]
    assert "value cannot be converted to type c10::Half without overflow; the value given does not fit in float16, " \
           "whose largest magnitude is 65504 (line 19: -1e9)" in fb["en"], fb
    assert "（第 19 行：-1e9）" in fb["zh"], fb
    assert fill_overflow_note("x = 1\n", 1, "shape '[2]' is invalid for input of size 4") is None
    note = fill_overflow_note("s.masked_fill(m, -1e40)\n", 1, "value cannot be converted to type float without overflow")
    assert "float32, whose largest magnitude is 3.4e38 (line 1: -1e40)" in note["en"], note
