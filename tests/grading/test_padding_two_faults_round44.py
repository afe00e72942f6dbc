"""Round 44 (builder D, item 1): two heads wrong in two different ways with a key_padding_mask.

Before, a fill of 0 in head 0 and the mask inverted in head 1 (any two different finite fills) were told nothing:
``_fill_seen`` fits one fill to every wrong head; and with one head giving NaN (the mask inverted with -inf, or
``key_padding_mask * -inf``), the NaN was told and the other head's fill was not. Now each wrong head is read off its
own weights (the output mixes the heads), each fill said with its heads in en and zh, the fills checked together
against the output and on the module's second case; a head that shows no one fill is said only as not right. The
output alone (no weights) cannot tell the heads apart: nothing more is said then."""

from __future__ import annotations

import math

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from tests.grading.helpers import english_in_zh
from tests.grading.test_padding_fill_round41 import CTX, PAD8, D, H
from tests.grading.test_padding_fill_round42 import ZH, _Student

ZH_OK = ZH | {"True", "False", "NaN"}


def _scores_with(s, m, fault):
    kind = fault[0]
    if kind == "right":
        return s.masked_fill(m, -math.inf)
    if kind == "filled":
        return s.masked_fill(m, fault[1])
    if kind == "inverted":
        return s.masked_fill(~m, fault[1])
    if kind == "added":
        return s + m.to(s.dtype) * fault[1]
    assert kind == "times"
    return s + m.to(s.dtype) * -math.inf          # 0 * -inf: NaN on the real keys


class _PerHead:
    """A MultiHeadAttention applying the padding mask per head as ``faults[h]`` (right where not given)."""

    def __init__(self, params, heads, head_dim, faults):
        self.params, self.heads, self.head_dim, self.faults = params, heads, head_dim, faults

    def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
        p, ctx, (B, Nq, _) = self.params, x if context is None else context, x.shape

        def split(name, t):
            y = torch.nn.functional.linear(t, p[f"{name}.weight"], p[f"{name}.bias"])
            return y.view(B, t.shape[1], self.heads, self.head_dim).transpose(1, 2)

        q, k, v = split("q_proj", x), split("k_proj", ctx), split("v_proj", ctx)
        s = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        if key_padding_mask is not None:
            m = key_padding_mask[:, None, None, :]
            s = torch.cat([_scores_with(s[:, h:h + 1], m, self.faults.get(h, ("right",))) for h in range(self.heads)], 1)
        w = torch.softmax(s, -1)
        out = torch.nn.functional.linear((w @ v).transpose(1, 2).reshape(B, Nq, -1), p["out_proj.weight"],
                                         p["out_proj.bias"])
        return (out, w) if return_weights else out


class _Builder(_Student):
    def __init__(self, faults):
        super().__init__("filled", 0.0)
        self.faults = faults

    def mha(self, d_model, num_heads, head_dim=None, params=None):
        return _PerHead(params, num_heads, head_dim or d_model // num_heads, self.faults)


def _said(faults, weights=True):
    params = C.mha_params(33, D, H, D // H)
    out, w = _PerHead(params, H, D // H, faults)(CTX, key_padding_mask=PAD8, return_weights=True)
    return diagnose.mha(out, w if weights else None, params, H, D // H, CTX, None, None, PAD8,
                        student=_Builder(faults))


FILL0 = ("the padding keys' scores set to about 0 (scores.masked_fill(key_padding_mask, 0))",
         "padding key 的 score 设为约 0 的结果一致（`scores.masked_fill(key_padding_mask, 0)`）")
INVERTED = ("the real keys blocked and the padding keys read: the padding mask acts inverted",
            "真实 key 被屏蔽、padding key 被读取的结果一致")
IGNORED = ("the padding keys' scores left as they are", "padding key 的 score 保持不变的结果一致")
# name: (faults per head, [(heads said in en, heads said in zh, (en, zh) of that fault)])
FINITE_PAIRS = {
    "fill0_h0_inverted_minus5_h1": ({0: ("filled", 0.0), 1: ("inverted", -5.0)}, [
        ("in head 0,", "head 0 中", FILL0),
        ("in head 1,", "head 1 中", ("the real keys' scores set to about -5 (scores.masked_fill(~key_padding_mask, -5))",
                                    "把真实 key 的 score 设为约 -5"))]),
    "fill0_h0_added_minus3_h1": ({0: ("filled", 0.0), 1: ("added", -3.0)}, [
        ("in head 0,", "head 0 中", FILL0),
        ("in head 1,", "head 1 中", ("the padding keys' scores lowered by only about 3 (scores + key_padding_mask * -3)",
                                    "只降低约 3"))]),
    "fill_minus5_h0_fill0_h1": ({0: ("filled", -5.0), 1: ("filled", 0.0)}, [
        ("in head 0,", "head 0 中", ("set to about -5 (scores.masked_fill(key_padding_mask, -5))", "设为约 -5")),
        ("in head 1,", "head 1 中", FILL0)]),
    "ignored_h0_inverted_1e4_h1": ({0: ("added", 0.0), 1: ("inverted", -1e4)}, [
        ("in head 0,", "head 0 中", IGNORED), ("in head 1,", "head 1 中", INVERTED)]),
    "lifted5_h0_fill0_h1": ({0: ("added", 5.0), 1: ("filled", 0.0)}, [
        ("in head 0,", "head 0 中", ("the padding keys' scores raised by about 5", "被抬高约 5")),
        ("in head 1,", "head 1 中", FILL0)]),
    "fill0_h0_h1_inverted_1e4_h2": ({0: ("filled", 0.0), 1: ("filled", 0.0), 2: ("inverted", -1e4)}, [
        ("in heads 0, 1,", "head 0、1 中", FILL0), ("in head 2,", "head 2 中", INVERTED)]),
}


@pytest.mark.parametrize("name", sorted(FINITE_PAIRS))
def test_two_finite_padding_faults_in_two_heads_are_each_told_with_their_heads(name):
    faults, told = FINITE_PAIRS[name]
    said = _said(faults)
    assert said is not None, name
    assert said["en"].startswith("the heads are wrong in different ways: "), said["en"]
    for en_heads, zh_heads, (en, zh) in told:
        assert f"match, {en_heads} {en}" in said["en"] or f"match, {en_heads} the" in said["en"] and en in said["en"], \
            said["en"]
        assert zh_heads in said["zh"] and zh in said["zh"], said["zh"]
    assert said["en"].count("block the padding keys with -inf") == 1, said["en"]       # the fix said once
    assert "the other heads block" not in said["en"], said["en"]       # they do not: they are wrong too
    assert english_in_zh(said["zh"], ZH_OK) == [], said["zh"]


@pytest.mark.parametrize("name", sorted(FINITE_PAIRS))
def test_two_finite_padding_faults_seen_in_the_output_alone_name_no_fault(name):
    # out_proj mixes the heads: which head does what is not seen, so nothing is guessed
    assert _said(FINITE_PAIRS[name][0], weights=False) is None


NAN_PAIRS = {   # a head giving NaN, the other head's fill
    "inverted_inf_h0_fill0_h1": ({0: ("inverted", -math.inf), 1: ("filled", 0.0)}, "the padding mask acts inverted",
                                 "padding mask 的极性反了", FILL0),
    "times_h0_ignored_h1": ({0: ("times",), 1: ("added", 0.0)}, "as 0 * -inf does", "正如 0 * -inf 那样", IGNORED),
    "times_h0_fill_minus2_h1": ({0: ("times",), 1: ("filled", -2.0)}, "as 0 * -inf does", "正如 0 * -inf 那样",
                                ("the padding keys' scores set to about -2", "设为约 -2")),
}


@pytest.mark.parametrize("name", sorted(NAN_PAIRS))
def test_a_nan_head_and_another_heads_fill_are_both_told(name):
    faults, nan_en, nan_zh, (en, zh) = NAN_PAIRS[name]
    said = _said(faults)
    assert said is not None
    assert nan_en in said["en"] and nan_zh in said["zh"], said
    # the other head's fill, read off its weights alone (the output holds the NaN)
    assert f"the weights match, in head 1, {en}" in said["en"], said["en"]
    assert "权重与 head 1 中" in said["zh"] and zh in said["zh"], said["zh"]
    assert english_in_zh(said["zh"], ZH_OK) == [], said["zh"]


def test_a_nan_head_and_a_head_showing_no_one_fill_say_only_that_its_weights_are_wrong():
    # head 1 both inverted and scaled: no fill model gives it; its weights are seen wrong, nothing more is named
    class Odd(_PerHead):
        def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
            out, w = super().__call__(x, context, additive_mask, key_padding_mask=key_padding_mask,
                                      return_weights=True)
            if key_padding_mask is not None:
                w = w.clone()
                w[:, 1] = torch.softmax(w[:, 1] * 3.0, -1)
            return (out, w) if return_weights else out

    class Builder(_Builder):
        def mha(self, d_model, num_heads, head_dim=None, params=None):
            return Odd(params, num_heads, head_dim or d_model // num_heads, self.faults)

    faults = {0: ("inverted", -math.inf)}
    params = C.mha_params(33, D, H, D // H)
    out, w = Odd(params, H, D // H, faults)(CTX, key_padding_mask=PAD8, return_weights=True)
    said = diagnose.mha(out, w, params, H, D // H, CTX, None, None, PAD8, student=Builder(faults))
    assert said is not None
    assert said["en"].endswith("the weights of head 1, finite, are not the right ones either"), said["en"]
    assert said["zh"].endswith("head 1 的权重是有限的，但也不正确"), said["zh"]


def test_a_right_per_head_module_gets_no_hint():
    assert _said({}) is None
