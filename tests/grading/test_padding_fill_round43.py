"""Round 43 (brief B): padding-mask diagnoses in some heads, and a class hunt over per-head padding and causal masks.

1. The heads said once: test_padding_keys_get_zero_weight's own reading names the heads giving the padding keys
   weight ("in heads 0, 1 only (heads 2, 3 give them 0)"); its hint named them again ("match, in heads 0, 1 only (the
   other heads block ...)"). The hint now says "in those heads" there (``diagnose.mha(..., heads_told=...)``); a test
   without that reading (test_mha_additive_mask) still names them in the hint. Blocked positions read in some heads
   only (a kernel leaving the mask out of head 0) are said with those heads, as the padding test says its heads.
2. A mask read inverted with -inf in some heads (``masked_fill(~key_padding_mask, -inf)`` in head 0) gives NaN in a
   sample without padding; it was told "an entry False becomes NaN, as 0 * -inf does", a cause not seen (nothing is
   multiplied). Now told inverted, with the heads, when a key_padding_mask marking no key gives NaN in those heads,
   one marking every key does not, and the case's weights give the real keys of padded samples no weight there.
3. The hunt (slow): 19 faulty and 14 correct variants of the mask per head in the student's own
   ScaledDotProductAttention. Correct ones keep 85/85 and no hint; faulty ones lose points, and their hints name in
   zh the same heads as in en, each feedback names a head list at most once in the reading and once in a hint."""

from __future__ import annotations

import math
import re

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grader_tests.attention import test_mask_parity as parity
from grading.proxy import Feedback
from tests.grading.helpers import code_score, english_in_zh, failed_tests, grade_stored
from tests.grading.test_padding_fill_round41 import CTX, PAD8, D, H
from tests.grading.test_padding_fill_round42 import ZH, _Module, _Student


def _padding_test_says(kind, c, some):
    """What test_padding_keys_get_zero_weight says of a module applying the padding as ``kind`` with ``c`` in its
    first ``some`` heads."""
    with pytest.raises(Feedback) as exc:
        parity.test_padding_keys_get_zero_weight(_Student(kind, c, some=some))
    return exc.value.message


# ------------------------------------------------------------------ 1. the heads said once
@pytest.mark.parametrize("kind, c, some, en_heads, zh_heads", [
    ("inverted", -1e4, 2, "heads 0, 1", "head 0、1"),       # brief item 1: masked_fill(~mask, -1e4) in heads 0, 1
    ("filled", 0.0, 2, "heads 0, 1", "head 0、1"),          # brief item 2: fills of 0 in 2 and 3 heads
    ("filled", 0.0, 3, "heads 0, 1, 2", "head 0、1、2"),
    ("added", 0.0, 1, "head 0", "head 0"),
    ("filled", -5.0, 2, "heads 0, 1", "head 0、1"),
])
def test_the_padding_tests_reading_and_its_hint_name_the_heads_once(kind, c, some, en_heads, zh_heads):
    said = _padding_test_says(kind, c, some)
    assert said["en"].count(en_heads) == 1 and "padding keys get weight up to" in said["en"], said["en"]
    assert said["zh"].count(zh_heads) == 1, said["zh"]
    assert "the weights and the output match, in those heads," in said["en"], said["en"]
    assert "权重和输出与这些 head 中" in said["zh"], said["zh"]
    assert english_in_zh(said["zh"], ZH) == [], said["zh"]


def test_a_large_inverted_fill_in_half_the_heads_names_only_the_inversion_with_the_heads():
    said = _padding_test_says("inverted", -1e4, 2)
    assert "in heads 0, 1 only (heads 2, 3 give them 0)" in said["en"]
    assert "the real keys blocked and the padding keys read: " + diagnose.FAULTS["pad_inverted"]["en"] in said["en"]
    assert "finite" not in said["en"] and "有限" not in said["zh"], said
    assert "真实 key 被屏蔽、padding key 被读取的结果一致：" + diagnose.FAULTS["pad_inverted"]["zh"] in said["zh"]


def test_fills_of_0_in_some_heads_say_one_kind_with_no_number_beyond_0():
    for some in (2, 3):
        said = _padding_test_says("filled", 0.0, some)
        assert "set to about 0 (scores.masked_fill(key_padding_mask, 0))" in said["en"], said["en"]
        assert "lowered" not in said["en"] and "inverted" not in said["en"], said["en"]
    said = _padding_test_says("added", 0.0, 2)
    assert "left as they are: the padding mask had no effect there" in said["en"] and "about" not in said["en"]


def test_a_hint_whose_heads_no_reading_named_still_names_them():
    params = C.mha_params(33, D, H, D // H)
    out, w = _Module(params, H, D // H, "filled", -5.0, 2)(CTX, key_padding_mask=PAD8, return_weights=True)
    args = (out, w, params, H, D // H, CTX, None, None, PAD8)
    student = _Student("filled", -5.0, some=2)
    assert "match, in heads 0, 1 only (the other heads" in diagnose.mha(*args, student=student)["en"]
    # told other heads than the fill's: the hint's own heads are said
    said = diagnose.mha(*args, student=student, heads_told=(0,))
    assert "match, in heads 0, 1 only (the other heads" in said["en"] and "those heads" not in said["en"]
    said = diagnose.mha(*args, student=student, heads_told=(0, 1))
    assert "heads 0, 1" not in said["en"] and "head 0、1" not in said["zh"], said


# ------------------------------------------------------------------ 2. NaN from a mask inverted with -inf in some heads
@pytest.mark.parametrize("some, en_heads, zh_heads", [(1, " in head 0 ", "在 head 0 中"),
                                                      (2, " in heads 0, 1 ", "在 head 0、1 中"),
                                                      (None, " ", "")])
def test_nan_from_a_mask_inverted_with_minus_inf_is_told_inverted_not_zero_times_inf(some, en_heads, zh_heads):
    params = C.mha_params(33, D, H, D // H)
    out, w = _Module(params, H, D // H, "inverted", float("-inf"), some)(CTX, key_padding_mask=PAD8,
                                                                           return_weights=True)
    assert not bool(torch.isfinite(w).all())
    said = diagnose.mha(out, w, params, H, D // H, CTX, None, None, PAD8,
                        student=_Student("inverted", float("-inf"), some=some))
    if some is None:       # every head: round 35's model of the inverted mask names it first
        assert said is not None and diagnose.FAULTS["pad_inverted"]["en"] in said["en"], said
        return
    assert said is not None
    assert "0 * -inf" not in said["en"] and "0 * -inf" not in said["zh"], said
    assert f"with a key_padding_mask that marks no key (all False) the weights{en_heads}are NaN, with one that " \
           "marks every key (all True) they are finite" in said["en"], said["en"]
    assert said["en"].endswith(diagnose.FAULTS["pad_inverted"]["en"])
    assert f"key_padding_mask 不标记任何 key（全为 False）时，{zh_heads}权重为 NaN" in said["zh"], said["zh"]
    assert said["zh"].endswith(diagnose.FAULTS["pad_inverted"]["zh"])
    assert english_in_zh(said["zh"], ZH | {"True", "False", "NaN"}) == [], said["zh"]


def test_nan_from_zero_times_minus_inf_is_still_told_so():
    class Times(_Module):          # scores + key_padding_mask.float() * -inf: every real key 0 * -inf = NaN
        def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
            if key_padding_mask is None:
                return super().__call__(x, context, additive_mask, return_weights=return_weights)
            self.kind, self.c = "added", float("-inf")
            return super().__call__(x, context, additive_mask, key_padding_mask=key_padding_mask,
                                    return_weights=return_weights)

    class TimesStudent(_Student):
        def mha(self, d_model, num_heads, head_dim=None, params=None):
            return Times(params, num_heads, head_dim or d_model // num_heads, "added", float("-inf"))

    params = C.mha_params(33, D, H, D // H)
    out, w = Times(params, H, D // H, "added", float("-inf"))(CTX, key_padding_mask=PAD8, return_weights=True)
    said = diagnose.mha(out, w, params, H, D // H, CTX, None, None, PAD8, student=TimesStudent("added", 0.0))
    assert said is not None and "as 0 * -inf does" in said["en"], said

# ------------------------------------------------------------------ 2b. different fills per head: nothing guessed
class _PerHead(_Module):
    """The padding keys' scores set to ``FILLS[h]`` in head h (None: -inf)."""

    FILLS: tuple = ()

    def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
        p, ctx, (B, Nq, _) = self.params, x if context is None else context, x.shape

        def split(name, t):
            y = torch.nn.functional.linear(t, p[f"{name}.weight"], p[f"{name}.bias"])
            return y.view(B, t.shape[1], self.heads, self.head_dim).transpose(1, 2)

        q, k, v = split("q_proj", x), split("k_proj", ctx), split("v_proj", ctx)
        s = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        if additive_mask is not None:
            s = s + (additive_mask.unsqueeze(1) if additive_mask.dim() == 3 else additive_mask)
        if key_padding_mask is not None:
            fills = torch.tensor([-math.inf if f is None else f for f in (self.FILLS * self.heads)[:self.heads]])
            s = torch.where(key_padding_mask[:, None, None, :], fills[None, :, None, None], s)
        w = torch.softmax(s, -1)
        out = torch.nn.functional.linear((w @ v).transpose(1, 2).reshape(B, Nq, -1), p["out_proj.weight"],
                                         p["out_proj.bias"])
        return (out, w) if return_weights else out


def _per_head_said(fills):
    module = type("Fills", (_PerHead,), {"FILLS": tuple(fills)})

    class Student(_Student):
        def mha(self, d_model, num_heads, head_dim=None, params=None):
            return module(params, num_heads, head_dim or d_model // num_heads, "filled", 0.0)

    params = C.mha_params(33, D, H, D // H)
    out, w = module(params, H, D // H, "filled", 0.0)(CTX, key_padding_mask=PAD8, return_weights=True)
    return diagnose.mha(out, w, params, H, D // H, CTX, None, None, PAD8, student=Student("filled", 0.0))


@pytest.mark.parametrize("fills", [(-3.0, -5.0, None, None), (5.0, -5.0, None, None)])
def test_different_fills_in_different_heads_name_each_heads_own_fill(fills):
    # no one number fits those heads: none is guessed for both (round 44: each head's own, read off its weights)
    said = _per_head_said(fills)
    assert said is not None
    for h in (0, 1):
        n = round(fills[h])
        assert f"in head {h}, the padding keys' scores set to about {n} " in said["en"], said["en"]
        assert f"head {h} 中把 padding key 的 score 设为约 {n} 的结果一致" in said["zh"], said["zh"]
    assert "heads 0, 1" not in said["en"]


@pytest.mark.parametrize("fills, en, zh", [
    ((-3.0, None, -3.0, None), "in heads 0, 2 only", "仅在 head 0、2 中"),
    ((None, 0.0, None, 0.0), "in heads 1, 3 only", "仅在 head 1、3 中"),
    ((-1e9, -2.0, None, None), "in head 1 only", "仅在 head 1 中"),    # -1e9 blocks as -inf does
])
def test_one_fill_in_heads_apart_is_said_with_exactly_those_heads(fills, en, zh):
    said = _per_head_said(fills)
    assert said is not None and en in said["en"] and zh in said["zh"], said


# ------------------------------------------------------------------ 2c. a mask applied in some heads of the kernel
class _MaskLeftOut(_Student):
    """A ScaledDotProductAttention that leaves the mask out of ``heads``."""

    def __init__(self, heads):
        super().__init__("filled", 0.0)
        self.left_out = heads

    def sdpa(self, q, k, v, mask=None, *, return_weights=False):
        if mask is not None:
            mask = mask.expand(*q.shape[:2], q.shape[2], k.shape[2]).clone()
            mask[:, self.left_out] = 0.0
        return C.ref_output(q, k, v, mask), C.ref_weights(q, k, mask)


@pytest.mark.parametrize("test, heads, en, zh", [
    (parity.test_blocked_key_gets_zero_weight, [0], "(expected 0) in head 0 only (head 1 gives them 0)",
     "（只出现在 head 0 中；head 1 给它们的权重为 0；应为 0）"),
    (parity.test_additive_mask_parity, [0, 1], "(expected 0) in heads 0, 1 only (head 2 gives them 0)",
     "（只出现在 head 0、1 中；head 2 给它们的权重为 0；应为 0）"),
])
def test_blocked_positions_read_in_some_heads_only_are_said_with_those_heads(test, heads, en, zh):
    with pytest.raises(Feedback) as exc:
        test(_MaskLeftOut(heads))
    said = exc.value.message
    assert en in said["en"] and zh in said["zh"], said
    assert english_in_zh(said["zh"], ZH) == [], said["zh"]


def test_blocked_positions_read_in_every_head_name_no_heads():
    with pytest.raises(Feedback) as exc:
        parity.test_blocked_key_gets_zero_weight(_MaskLeftOut([0, 1]))
    assert "head" not in exc.value.message["en"] and "head" not in exc.value.message["zh"], exc.value.message


# ------------------------------------------------------------------ 3. the hunt: per-head padding and causal masks
BASE = '''import math

import torch
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False, key_padding_mask=None):
        h = q.shape[1]
        b = q.shape[0]
        scores = torch.matmul(q, k.transpose(-2, -1))
        scores = scores / math.sqrt(q.shape[-1])
        if additive_mask is not None:
            scores = scores + additive_mask
        if key_padding_mask is not None:
            pm = key_padding_mask[:, None, None, :]
            scores = scores.masked_fill(pm, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        output = torch.matmul(weights, v)
        return (output, weights) if return_weights else output


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, head_dim=None):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = head_dim or d_model // num_heads
        inner = num_heads * self.head_dim
        self.q_proj = nn.Linear(d_model, inner)
        self.k_proj = nn.Linear(d_model, inner)
        self.v_proj = nn.Linear(d_model, inner)
        self.out_proj = nn.Linear(inner, d_model)
        self.attention = ScaledDotProductAttention()

    def _split(self, t):
        b, n, _ = t.shape
        return t.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
        context = x if context is None else context
        b, nq, _ = x.shape
        q = self._split(self.q_proj(x))
        k = self._split(self.k_proj(context))
        v = self._split(self.v_proj(context))
        if additive_mask is not None and additive_mask.dim() == 3:
            additive_mask = additive_mask.unsqueeze(1)
        out, weights = self.attention(q, k, v, additive_mask, return_weights=True, key_padding_mask=key_padding_mask)
        out = out.transpose(1, 2).reshape(b, nq, self.num_heads * self.head_dim)
        out = self.out_proj(out)
        return (out, weights) if return_weights else out
'''
SPOTS = {
    "pad": '            scores = scores.masked_fill(pm, float("-inf"))\n',
    "add": '            scores = scores + additive_mask\n',
    "soft": '        weights = torch.softmax(scores, dim=-1)\n',
    "scale": '        scores = scores / math.sqrt(q.shape[-1])\n',
}


def variant(**repl: str) -> str:
    s = BASE
    for spot, new in repl.items():
        old = SPOTS[spot]
        assert s.count(old) == 1, spot
        s = s.replace(old, new)
    return s


HEADS = "torch.arange(h)[None, :, None, None]"
RIGHT = 'scores.masked_fill(pm, float("-inf"))'


def in_heads(test: str, wrong: str) -> str:
    """The padding applied as ``wrong`` in the heads where ``test`` holds, right in the others."""
    return f'            some = {HEADS} {test}\n            scores = torch.where(some, {wrong}, {RIGHT})\n'


FAULTY = {
    "inv_1e4_heads01": variant(pad=in_heads("< h // 2", "scores.masked_fill(~pm, -1e4)")),
    "fill0_heads23": variant(pad=in_heads(">= h // 2", "scores.masked_fill(pm, 0.0)")),
    "fill0_heads123": variant(pad=in_heads(">= 1", "scores.masked_fill(pm, 0.0)")),
    "fill_m3_head0": variant(pad=in_heads("== 0", "scores.masked_fill(pm, -3.0)")),
    "added_m2_head1": variant(pad=in_heads("== 1", "scores + pm.to(scores.dtype) * -2.0")),
    "inverted_ninf_head0": variant(pad=in_heads("== 0", 'scores.masked_fill(~pm, float("-inf"))')),
    "skipped_head0": variant(pad=in_heads("== 0", "scores")),
    "fill_per_batch_row": variant(pad='            fill = torch.full((b, 1, 1, 1), -2.0)\n'
                                      '            fill[0] = float("-inf")\n'
                                      '            scores = torch.where(pm, fill, scores)\n'),
    "pad_query_axis": variant(pad='            scores = scores.masked_fill(key_padding_mask[:, None, :, None], float("-inf"))'
                                  ' if scores.shape[-2] == scores.shape[-1] else scores.masked_fill(pm, float("-inf"))\n'),
    "pad_head_axis": variant(pad='            scores = scores.masked_fill(key_padding_mask[:, :, None, None], float("-inf"))'
                                 ' if key_padding_mask.shape[1] == h else scores.masked_fill(pm, float("-inf"))\n'),
    "after_softmax_no_renorm": variant(pad='            pass\n',
                                       soft='        weights = torch.softmax(scores, dim=-1)\n'
                                            '        if key_padding_mask is not None:\n'
                                            '            weights = weights.masked_fill(pm, 0.0)\n'),
    "pad_added_01": variant(pad='            scores = scores + pm.float()\n'),
    "pad_subtracted_01": variant(pad='            scores = scores - pm.float()\n'),
    "pad_keep_multiplied": variant(pad='            scores = scores * (~pm).float()\n'),
    "pad_multiplied": variant(pad='            scores = scores * pm.float()\n'),
    "fill_m5_every_head": variant(pad='            scores = scores.masked_fill(pm, -5.0)\n'),
    "causal_as_01": variant(add='            scores = scores + (additive_mask != 0).float()\n'),
    "causal_multiplied": variant(add='            scores = scores * (additive_mask == 0).float()\n'),
    "causal_half_heads": variant(add=f'            some = {HEADS} < h // 2\n'
                                     '            scores = torch.where(some, scores, scores + additive_mask)\n'),
}

CORRECT = {
    "fill_m1e9": variant(pad='            scores = scores.masked_fill(pm, -1e9)\n'),
    "fill_finfo_min": variant(pad='            scores = scores.masked_fill(pm, torch.finfo(scores.dtype).min)\n'),
    "fill_m1e4": variant(pad='            scores = scores.masked_fill(pm, -1e4)\n'),
    "fill_m65504": variant(pad='            scores = scores.masked_fill(pm, -65504.0)\n'),
    "fill_before_scale": variant(pad='            pass\n',
                                 scale='        if key_padding_mask is not None:\n'
                                       '            scores = scores.masked_fill(key_padding_mask[:, None, None, :], -1e9)\n'
                                       '        scores = scores / math.sqrt(q.shape[-1])\n'),
    "ninf_before_scale": variant(pad='            pass\n',
                                 scale='        if key_padding_mask is not None:\n'
                                       '            scores = scores.masked_fill(key_padding_mask[:, None, None, :], '
                                       'float("-inf"))\n'
                                       '        scores = scores / math.sqrt(q.shape[-1])\n'),
    "additive_float_ninf": variant(pad='            scores = scores + torch.zeros(pm.shape, dtype=scores.dtype)'
                                      '.masked_fill(pm, float("-inf"))\n'),
    "additive_m1e9": variant(pad='            scores = scores + pm.to(scores.dtype) * -1e9\n'),
    "where_ninf": variant(pad='            scores = torch.where(pm, torch.tensor(float("-inf")), scores)\n'),
    "per_head_loop": variant(pad='            scores = torch.cat([scores[:, i:i + 1].masked_fill(pm, float("-inf")) '
                                 'for i in range(h)], dim=1)\n'),
    "expanded_to_heads": variant(pad='            scores = scores.masked_fill(pm.expand(-1, h, scores.shape[2], -1), '
                                     'float("-inf"))\n'),
    "keep_mask_inverted_twice": variant(pad='            keep = ~pm\n'
                                            '            scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)\n'),
    "after_softmax_renorm": variant(pad='            pass\n',
                                    soft='        weights = torch.softmax(scores, dim=-1)\n'
                                         '        if key_padding_mask is not None:\n'
                                         '            weights = weights.masked_fill(pm, 0.0)\n'
                                         '            weights = weights / weights.sum(-1, keepdim=True)\n'),
    "per_head_fills_all_large": variant(pad=in_heads("< h // 2", "scores.masked_fill(pm, -1e9)")),
}

# what each faulty variant's feedback must say (en, zh), beside the checks every one gets
SAID = {
    "inv_1e4_heads01": ("the real keys blocked and the padding keys read: the padding mask acts inverted",
                        "padding mask 的极性反了"),
    "fill0_heads23": ("in heads 2, 3 only (heads 0, 1 give them 0)", "只出现在 head 2、3 中"),
    "fill0_heads123": ("in heads 1, 2, 3 only (head 0 gives them 0)", "只出现在 head 1、2、3 中"),
    "fill_m3_head0": ("set to about -3 (scores.masked_fill(key_padding_mask, -3))", "设为约 -3"),
    "added_m2_head1": ("lowered by only about 2 (scores + key_padding_mask * -2)", "只降低约 2"),
    "inverted_ninf_head0": ("the weights in head 0 are NaN, with one that marks every key (all True) they are finite",
                            "在 head 0 中权重为 NaN"),
    "skipped_head0": ("the padding mask had no effect there", "padding mask 在那里没有起作用"),
    "pad_query_axis": ("the padding mask is applied to the query axis", "query"),
    "after_softmax_no_renorm": ("the blocked positions are zeroed after the softmax", "softmax"),
    "pad_added_01": ("the padding keys are lifted instead of blocked", "padding key 被抬高而不是被屏蔽"),
    "pad_subtracted_01": ("lowered by only about 1", "只降低约 1"),
    "pad_multiplied": ("the mask is read inverted", "mask 的极性反了"),
    "fill_m5_every_head": ("set to about -5", "设为约 -5"),
    "causal_half_heads": ("(expected 0) in head 0 only (head 1 gives them 0)", "只出现在 head 0 中"),
    "causal_as_01": ("the mistake is in ScaledDotProductAttention, not in the multi-head wrapper", "ScaledDotProductAttention"),
    # mend round 43 (review RB LOW 6): what the last four are said as, or that nothing is guessed
    "pad_keep_multiplied": ("set to about 0 (scores.masked_fill(key_padding_mask, 0))", "设为约 0"),
    "causal_multiplied": ("the mistake is in ScaledDotProductAttention, not in the multi-head wrapper",
                          "错误在 ScaledDotProductAttention 中"),
}
# no one kind fits these (a fill of -inf in sample 0 and -2 in sample 1; the mask on the head axis when Nk == H): the
# feedback names none
NOT_SAID = {
    "fill_per_batch_row": ("set to about", "lowered by", "inverted", "0 * -inf", "had no effect"),
    "pad_head_axis": ("0 * -inf", "inverted", "set to about", "query axis", "no padding"),
}
_EN_HEADS = re.compile(r"\bheads? (\d+(?:, \d+)*)\b(?! apart)")
_ZH_HEADS = re.compile(r"head (\d+(?:、\d+)*)")


def _heads_in(text: str, pattern: re.Pattern) -> list[str]:
    return sorted(re.sub(r"[、,] ?", ",", m) for m in pattern.findall(text))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CORRECT))
def test_a_right_mask_per_head_keeps_every_point_and_gets_no_hint(executor, name):
    result = grade_stored(executor, CORRECT[name])
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and code_score(result) == 85, failed_tests(result)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FAULTY))
def test_a_wrong_mask_per_head_loses_points_with_hints_naming_the_same_heads_in_en_and_zh(executor, name):
    result = grade_stored(executor, FAULTY[name])
    assert result["status"] == "graded", result["message"]
    assert code_score(result) < 85
    failed = failed_tests(result)
    for test, fb in failed.items():
        assert _heads_in(fb["en"], _EN_HEADS) == _heads_in(fb["zh"], _ZH_HEADS), (test, fb)
        assert english_in_zh(fb["zh"], ZH | {"True", "False", "NaN"}) == [], (test, fb["zh"])
        for reading in re.findall(r"in heads? [\d, ]+ only", fb["en"]):     # a head list said once (item 3)
            assert fb["en"].count(reading) == 1, (test, fb["en"])
        if "(heads" in fb["en"] and "give them 0)" in fb["en"]:
            assert "(the other heads block" not in fb["en"], (test, fb["en"])
    if name in ("inverted_ninf_head0", "pad_query_axis", "inv_1e4_heads01"):
        assert not any("0 * -inf" in fb["en"] for fb in failed.values()), failed
    if name in SAID:
        en, zh = SAID[name]
        assert any(en in fb["en"] and zh in fb["zh"] for fb in failed.values()), failed
    for wrong in NOT_SAID.get(name, ()):
        assert not any(wrong in fb["en"] for fb in failed.values()), (wrong, failed)
