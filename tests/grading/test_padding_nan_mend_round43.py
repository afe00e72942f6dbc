"""Round 43 mend of B (review RB): NaN from a padding mask, what is said.

MED 1: a module raising on a key_padding_mask marking every key (``if key_padding_mask.all(-1).any(): raise``) lost
       the "0 * -inf" hint: the all-True probe shared the try of the all-False one. A raise there is no evidence.
MED 2: NaN only in the samples without padding (head 0 blocking every key of those rows) was told "an entry False
       becomes NaN, as 0 * -inf does": nothing multiplies, and the padded samples' False entries are finite. What was
       seen is said (the heads, the samples), no cause named.
LOW 4/5: the inverted-mask text says the heads (or nothing) in place of "there"/"在那里", and reads in sentences."""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grading.proxy import Feedback
from tests.grading.helpers import code_score, english_in_zh, failed_tests, grade_stored
from tests.grading.test_padding_fill_round41 import CTX, PAD8, D, H
from tests.grading.test_padding_fill_round42 import ZH, _Module, _Student
from tests.grading.test_padding_fill_round43 import BASE, HEADS, RIGHT, in_heads, variant

ZH_OK = ZH | {"True", "False", "NaN"}


class _Nan(_Module):
    """The padding applied as ``how`` ("times": scores + mask.float() * -inf, "fullrow": every key set to -inf in the
    samples without padding) in the first ``some`` heads (every head when None), right in the others; raises on a mask
    marking every key of a sample when ``guard``."""

    how, guard = "times", False

    def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
        if key_padding_mask is None:
            return super().__call__(x, context, additive_mask, return_weights=return_weights)
        if self.guard and bool(key_padding_mask.all(-1).any()):
            raise Feedback("ValueError: a sample has every key masked")
        m = key_padding_mask[:, None, None, :]
        p, ctx, (B, Nq, _) = self.params, x if context is None else context, x.shape

        def split(name, t):
            y = torch.nn.functional.linear(t, p[f"{name}.weight"], p[f"{name}.bias"])
            return y.view(B, t.shape[1], self.heads, self.head_dim).transpose(1, 2)

        q, k, v = split("q_proj", x), split("k_proj", ctx), split("v_proj", ctx)
        s = q @ k.transpose(-2, -1) / self.head_dim ** 0.5
        right = s.masked_fill(m, float("-inf"))
        if self.how == "times":
            wrong = s + m.float() * float("-inf")
        else:
            wrong = torch.where(~m.any(-1, keepdim=True), torch.full_like(s, float("-inf")), right)
        head = torch.arange(self.heads)[None, :, None, None] < (self.heads if self.n is None else self.n)
        w = torch.softmax(torch.where(head, wrong, right), -1)
        out = torch.nn.functional.linear((w @ v).transpose(1, 2).reshape(B, Nq, -1), p["out_proj.weight"],
                                         p["out_proj.bias"])
        return (out, w) if return_weights else out


def _said(how, n=None, guard=False, weights=True):
    module = type("M", (_Nan,), {"how": how, "guard": guard, "n": n})

    class Student(_Student):
        def mha(self, d_model, num_heads, head_dim=None, params=None):
            return module(params, num_heads, head_dim or d_model // num_heads, "filled", 0.0)

    params = C.mha_params(33, D, H, D // H)
    out, w = module(params, H, D // H, "filled", 0.0)(CTX, key_padding_mask=PAD8, return_weights=True)
    assert not bool(torch.isfinite(w).all())
    return diagnose.mha(out, w if weights else None, params, H, D // H, CTX, None, None, PAD8,
                        student=Student("filled", 0.0))


# ------------------------------------------------------------------ MED 1
@pytest.mark.parametrize("n", [None, 1])
def test_zero_times_inf_is_still_told_when_the_module_raises_on_a_mask_marking_every_key(n):
    said = _said("times", n, guard=True)
    assert said is not None and "as 0 * -inf does" in said["en"] and "正如 0 * -inf 那样" in said["zh"], said


# ------------------------------------------------------------------ MED 2
@pytest.mark.parametrize("n, en, zh", [(1, "the weights in head 0 are NaN", "在 head 0 中，"),
                                       (2, "the weights in heads 0, 1 are NaN", "在 head 0、1 中，"),
                                       (None, "the weights are NaN", "")])
@pytest.mark.parametrize("guard", [False, True])
def test_nan_only_in_the_samples_without_padding_is_described_with_no_cause(n, en, zh, guard):
    said = _said("fullrow", n, guard=guard)
    assert said is not None
    assert "0 * -inf" not in said["en"] and "0 * -inf" not in said["zh"], said
    assert "inverted" not in said["en"] and "极性" not in said["zh"], said
    assert f"{en} in the samples without padding (sample 0) and finite in those with padding" in said["en"], said
    assert f"{zh}没有 padding 的样本（样本 0）的权重为 NaN，有 padding 的样本的权重是有限的" in said["zh"], said
    assert english_in_zh(said["zh"], ZH_OK) == [], said["zh"]


def test_nan_only_in_the_samples_without_padding_is_described_from_the_output_without_weights():
    said = _said("fullrow", 1, weights=False)
    assert said is not None and "0 * -inf" not in said["en"], said
    assert "the results are NaN in the samples without padding (sample 0)" in said["en"], said
    assert "没有 padding 的样本（样本 0）的结果为 NaN" in said["zh"], said


# ------------------------------------------------------------------ LOW 4/5
@pytest.mark.parametrize("some, en, zh", [
    (1, "with padding, this head gives the real keys weight 0. ", "有 padding 时，这个 head 给真实 key 的权重为 0。"),
    (2, "with padding, these heads give the real keys weight 0. ", "有 padding 时，这些 head 给真实 key 的权重为 0。"),
])
def test_the_inverted_nan_text_says_which_heads_give_the_real_keys_no_weight(some, en, zh):
    params = C.mha_params(33, D, H, D // H)
    out, w = _Module(params, H, D // H, "inverted", float("-inf"), some)(CTX, key_padding_mask=PAD8,
                                                                           return_weights=True)
    said = diagnose.mha(out, w, params, H, D // H, CTX, None, None, PAD8,
                        student=_Student("inverted", float("-inf"), some=some))
    assert en in said["en"] and zh in said["zh"], said
    assert " there" not in said["en"] and "在那里" not in said["zh"], said
    assert said["en"].count(": ") <= 1 and said["zh"].count("：") <= 1 + diagnose.FAULTS["pad_inverted"]["zh"].count("："), said


def test_the_inverted_nan_text_for_every_head_points_to_nothing_absent():
    params = C.mha_params(33, D, H, D // H)
    out, w = _Module(params, H, D // H, "inverted", float("-inf"))(CTX, key_padding_mask=PAD8, return_weights=True)
    said = diagnose._inverted_nan(diagnose._MhaCase(out, w, params, H, D // H, CTX, None, None, PAD8), None)
    assert said is not None and "with padding, the real keys get weight 0. " in said["en"], said
    assert "有 padding 时，真实 key 的权重为 0。" in said["zh"], said
    assert " there" not in said["en"] and "在那里" not in said["zh"], said


# ------------------------------------------------------------------ the whole grading (slow)
GUARD = '            if bool(key_padding_mask.all(-1).any()):\n                raise ValueError("a sample has every key masked")\n'
GRADED = {
    "zeroinf_all_guard": (variant(pad=GUARD + '            scores = scores + pm.float() * float("-inf")\n'),
                          "as 0 * -inf does"),
    "zeroinf_h0_guard": (variant(pad=GUARD + in_heads("== 0", 'scores + pm.float() * float("-inf")')),
                         "as 0 * -inf does"),
    "fullrow_h0": (variant(pad=f'            some = {HEADS} == 0\n            scores = torch.where(some & ~pm.any(-1, '
                               f'keepdim=True), scores.masked_fill(torch.ones_like(pm), float("-inf")), {RIGHT})\n'),
                   "in head 0 are NaN in the samples without padding"),
}
assert BASE


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GRADED))
def test_graded_nan_from_a_padding_mask_is_told_what_was_seen(executor, name):
    code, en = GRADED[name]
    result = grade_stored(executor, code)
    assert result["status"] == "graded", result["message"]
    assert code_score(result) < 85
    failed = failed_tests(result)
    assert any(en in fb["en"] for fb in failed.values()), failed
    if name == "fullrow_h0":
        assert not any("0 * -inf" in fb["en"] for fb in failed.values()), failed
