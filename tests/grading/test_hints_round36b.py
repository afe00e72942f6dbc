"""Round 36b (mend M1): the dropout the randomness hint quotes.

R1's probe: a helper calls ``torch.dropout(w, dropout_p, True)`` and forward passes it
``dropout_p=0.1 if self.training else 0.``, then returns ``nn.Dropout(0.1)(out)``. The hint said the helper's line
"drops values whatever the mode", a line that drops nothing in eval; the module built per call, which did draw, was
named only when no such call existed. A dropout call whose probability the source shows to be 0 in eval mode is
no longer "always on" (diagnose.dropout_always_on), and a cause the source shows for certain comes first.
"""
from __future__ import annotations

import pytest

from grader_tests.attention.diagnose import dropout_always_on, randomness

HELPER = '''import torch
import torch.nn as nn


def pyimpl(q, k, v, dropout_p=0.):
    w = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
    w = torch.dropout(w, dropout_p, True)
    return w @ v


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v):
        out = pyimpl(q, k, v, {passed})
        return nn.Dropout(0.1)(out)
'''


def _said(source: str) -> dict:
    class Student:
        pass
    Student.source = source
    return randomness(Student(), "ScaledDotProductAttention")


@pytest.mark.parametrize("passed", ["dropout_p=0.1 if self.training else 0.", "0.1 if self.training else 0.",
                                    "dropout_p=0. if not self.training else 0.1"])
def test_the_hint_names_the_module_built_per_call_not_a_helper_given_probability_0_in_eval(passed):
    """Before: "line 7 (in pyimpl) calls torch.dropout(w, dropout_p, True), which drops values whatever the mode"."""
    said = _said(HELPER.format(passed=passed))
    assert "line 14 builds and calls nn.Dropout(0.1)(out)" in said["en"], said
    assert "第 14 行在同一处构建并调用了 nn.Dropout(0.1)(out)" in said["zh"], said
    assert "torch.dropout(w" not in said["en"] + said["zh"], said


def test_a_helper_dropout_whose_probability_is_0_in_eval_is_not_always_on():
    """Before: [(7, 'torch.dropout(w, dropout_p, True)')]."""
    assert dropout_always_on(HELPER.format(passed="dropout_p=0.1 if self.training else 0.")) == []


@pytest.mark.parametrize("body", ["return F.dropout(w, 0.1 if self.training else 0.0)",
                                  "p = self.p if self.training else 0.\n        return F.dropout(w, p)"])
def test_a_dropout_whose_probability_is_a_conditional_on_training_is_not_always_on(body):
    source = ("import torch.nn as nn\nimport torch.nn.functional as F\n\n\nclass A(nn.Module):\n"
              f"    def forward(self, w):\n        {body}\n")
    assert dropout_always_on(source) == []


def test_a_helper_dropout_given_a_probability_that_is_not_0_in_eval_is_still_listed():
    """What the source does not show as 0 in eval stays listed (the hint then says the certain cause first)."""
    source = HELPER.format(passed="dropout_p=self.p")
    assert [n for n, _ in dropout_always_on(source)] == [7]
    said = _said(source)
    assert "line 14 builds and calls nn.Dropout(0.1)(out)" in said["en"], said


def test_a_helper_dropout_alone_is_still_quoted_when_its_probability_is_not_shown_0_in_eval():
    source = HELPER.format(passed="dropout_p=self.p").replace("return nn.Dropout(0.1)(out)", "return out")
    said = _said(source)
    assert "line 7 (in pyimpl) calls torch.dropout(w, dropout_p, True)" in said["en"], said
