"""Mend round 45 (review RD): how a padding fill's number is said.

HIGH 1: a constant applied before the 1/sqrt(d_k) scale (``scores = (q @ k^T + key_padding_mask * -5) / sqrt(d_k)``)
shows -2.5 on the case (head_dim 4) and -2.24 on the probe (head_dim 5); no one c fit every check and it was told
"c changes with the inputs instead of being a constant", a false cause. Now one c divided by each check's
sqrt(head_dim) is tried too and, when it fits all three checks, said as a constant applied before the scale; a fill
that fits neither (-sqrt(Nk), a fill of the sizes alone) is told that the number differs from check to check, with no
cause. MED 2: ``diagnose.mha`` without a student crashed on heads wrong in different ways. LOW 6: the third case ran
for every check, and for fills the case and the probe already showed to vary."""

from __future__ import annotations

import math

import pytest
import torch

from grader_tests.attention import diagnose
from tests.grading.helpers import english_in_zh
from tests.grading.test_padding_fill_round41 import CTX, PAD8, D, H
from tests.grading.test_padding_fill_round42 import ZH
from tests.grading.test_padding_fill_round45 import (
    PARAMS,
    VARIES,
    VARIES_ZH,
    _apply,
    _Module,
    _said,
    _Student,
)

OLD_CAUSE, OLD_CAUSE_ZH = "changes with the inputs", "随输入而变"


class _PreScale(_Module):
    """``_Module`` with the padding applied to q @ k^T before the division by sqrt(head_dim)."""

    def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
        p, ctx, (B, Nq, _) = {n: t.float() for n, t in self.params.items()}, x if context is None else context, x.shape

        def split(name, t):
            y = torch.nn.functional.linear(t.float(), p[f"{name}.weight"], p[f"{name}.bias"])
            return y.view(B, t.shape[1], self.heads, self.head_dim).transpose(1, 2)

        q, k, v = split("q_proj", x), split("k_proj", ctx), split("v_proj", ctx)
        s = _apply(q @ k.transpose(-2, -1), key_padding_mask[:, None, None, :], *self.faults[None])
        w = torch.softmax(s / math.sqrt(self.head_dim), -1)
        out = torch.nn.functional.linear((w @ v).transpose(1, 2).reshape(B, Nq, -1), p["out_proj.weight"],
                                         p["out_proj.bias"])
        return (out, w) if return_weights else out


class _PreScaleStudent(_Student):
    def mha(self, d_model, num_heads, head_dim=None, params=None):
        self.built = getattr(self, "built", 0) + 1
        return _PreScale(params, num_heads, head_dim or d_model // num_heads, self.faults)


class _Counting(_Student):
    def mha(self, d_model, num_heads, head_dim=None, params=None):
        self.built = getattr(self, "built", 0) + 1
        return super().mha(d_model, num_heads, head_dim, params)


def _said_pre(kind, c, weights=True):
    student = _PreScaleStudent({None: (kind, c)})
    out, w = _PreScale(PARAMS, H, D // H, student.faults)(CTX, key_padding_mask=PAD8, return_weights=True)
    return diagnose.mha(out, w if weights else None, PARAMS, H, D // H, CTX, None, None, PAD8, student=student)


@pytest.mark.parametrize("kind, c, en, zh", [
    ("filled", -5.0, "the padding keys' scores set to about -5 before the 1/sqrt(d_k) scale "
     "(scores.masked_fill(key_padding_mask, -5) on q @ k^T, then divided by sqrt(d_k))", "设为约 -5"),
    ("filled", -3.0, "set to about -3 before the 1/sqrt(d_k) scale", "设为约 -3"),
    ("filled", -10.0, "set to about -10 before the 1/sqrt(d_k) scale", "设为约 -10"),
    ("added", -5.0, "-5 added to the padding keys' scores before the 1/sqrt(d_k) scale "
     "(scores + key_padding_mask * -5 on q @ k^T", "加上约 -5"),
    ("filled", 2.0, "set to about 2 before the 1/sqrt(d_k) scale", "padding key 被抬高而不是被屏蔽"),
])
def test_a_constant_applied_before_the_scale_is_named_so_and_not_told_it_changes_with_the_inputs(kind, c, en, zh):
    for weights in (True, False):
        said = _said_pre(kind, c, weights)
        assert said is not None, (kind, c, weights)
        assert OLD_CAUSE not in said["en"] and OLD_CAUSE_ZH not in said["zh"], said["en"]
        assert en in said["en"] and "a constant applied before the scale" in said["en"], said["en"]
        assert zh in said["zh"] and "在除以 `sqrt(d_k)` 之前" in said["zh"], said["zh"]
        assert english_in_zh(said["zh"], ZH) == [], said["zh"]


def test_a_fill_of_the_sizes_alone_is_said_to_differ_from_check_to_check_without_a_cause():
    # -sqrt(Nk): -2.83 on the case (8 keys), -2.45 on the probe (6 keys): a number of the sizes, not of the inputs
    said = _said({None: ("added", lambda s: -math.sqrt(s.shape[-1]))})
    assert said is not None
    assert OLD_CAUSE not in said["en"] and OLD_CAUSE_ZH not in said["zh"], said["en"]
    assert VARIES in said["en"] and VARIES_ZH in said["zh"], said["en"]
    assert "before the 1/sqrt(d_k) scale" not in said["en"] and "about -2" not in said["en"]


def test_a_fill_of_the_scores_mean_is_still_said_without_a_number_or_a_cause():
    said = _said({None: ("filled", lambda s: s.mean())})
    assert said is not None
    assert VARIES in said["en"] and OLD_CAUSE not in said["en"] and OLD_CAUSE_ZH not in said["zh"], said["en"]


def test_heads_wrong_in_different_ways_are_told_without_a_student():
    faults = {0: ("filled", 0.0), 1: ("added", -5.0)}
    out, w = _Module(PARAMS, H, D // H, faults)(CTX, key_padding_mask=PAD8, return_weights=True)
    said = diagnose.mha(out, w, PARAMS, H, D // H, CTX, None, None, PAD8)    # UnboundLocalError 'varies' before
    assert said is not None
    assert "in head 0, the padding keys' scores set to about 0" in said["en"], said["en"]
    assert "in head 1, the padding keys' scores lowered by only about 5" in said["en"], said["en"]


def _built(faults) -> list[int]:
    """How many modules the student built on each of two diagnoses of the same case."""
    student, counts = _Counting(faults), []
    out, w = _Module(PARAMS, H, D // H, faults)(CTX, key_padding_mask=PAD8, return_weights=True)
    for _ in range(2):
        student.built = 0
        assert diagnose.mha(out, w, PARAMS, H, D // H, CTX, None, None, PAD8, student=student) is not None
        counts.append(student.built)
    return counts


def test_the_third_case_runs_once_per_student_and_probe():
    # a constant: the probe and the third case on the first diagnosis, the probe alone on the second
    assert _built({None: ("added", -5.0)}) == [2, 1]


def test_the_third_case_is_not_run_for_a_fill_the_case_and_the_probe_show_to_vary():
    assert _built({None: ("added", lambda s: -math.sqrt(s.shape[-1]))}) == [1, 1]


def test_the_third_case_is_not_run_when_no_number_would_be_said():
    assert _built({None: ("inverted", -1e9)}) == [1, 1]


def test_two_heads_with_fills_of_one_kind_said_without_a_number_are_said_together_not_twice():
    said = _said({0: ("filled", lambda s: s.mean()), 1: ("filled", lambda s: s.min() - 1)})
    assert said is not None
    assert "different ways" not in said["en"] and said["en"].count(VARIES) == 1, said["en"]
    assert "in heads 0, 1 only (the other heads block the padding keys as -inf does)" in said["en"], said["en"]
    assert english_in_zh(said["zh"], ZH) == [], said["zh"]


def test_every_head_with_a_fill_of_one_kind_said_without_a_number_names_no_heads():
    said = _said({h: ("filled", (lambda k: lambda s: s.mean() * (k + 1) - k)(h)) for h in range(H)})
    assert said is not None
    assert "head" not in said["en"] and said["en"].count(VARIES) == 1, said["en"]
