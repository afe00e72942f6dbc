"""Audit red-team round 21: the lab's false facts as a class, and cells read the ways students write them.

1. Round 19's false facts were three denials per language ("the output does not depend on the weights"). The class is
   wider and mostly written as assertions: the softmax over the wrong axis (columns, or the whole matrix, sum to 1),
   masked or padding keys getting a small / near-zero weight instead of exactly 0, the heatmap showing gradients,
   negative weights, a zero or low weight read as an unimportant key, scaling making the weights sharper, rows read as
   keys. A caveat in a sentence stating one earned its 1.5 limits points; now it earns nothing (audit.yaml
   ``false_claims``). The same claims negated ("masked keys do not get a small weight"), warned of ("a common mistake
   is to think ..."), reported as a bug or in a conditional are true and keep the caveat.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, make_heatmap

HERE = Path(__file__).resolve().parent
FIGURE = make_heatmap()
READING = "My heatmap: rows are q0, q1 and columns k0-k2; q0 reads mostly from k1 (0.58) and q1 mostly from k2 (0.67).\n"


def grade(text: str, checklist) -> dict:
    return grade_audit(text, FIGURE, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)


def limits_of(sentence: str, checklist) -> float:
    return items(grade(READING + sentence + "\n", checklist))["limits"]["points"]


# ------------------------------------------------------------------------ 1. false claims of the lab

@pytest.mark.parametrize("sentence", [
    "A high weight is not a causal effect, because softmax runs over the queries.",
    "A high weight is not a causal effect; each column sums to 1.",
    "A high weight is not a causal effect, and the whole attention matrix sums to 1.",
    "A high weight is not a causal effect, and masked keys still get a small weight.",
    "A high weight is not a causal effect, and masked keys probably get a very small weight.",   # a hedge: still false
    "A high weight is not feature importance, since the heatmap shows the gradients.",
    "A high weight is not feature importance, and weights can be negative.",
    "A high weight is not feature importance, and a zero weight means the key is irrelevant.",
    "A high weight is not a causal effect, and scaling by sqrt(d_k) makes the weights sharper.",
    "A high weight is not a causal effect, and each row is a key.",
    "高权重不是因果效应，因为 softmax 是对每一列做的。",
    "高权重不是因果效应，而且每一列的和为 1。",
    "高权重不是因果效应，被 mask 的位置权重很小。",
    "高权重不等于特征重要性，热力图显示的是梯度。",
    "高权重不等于特征重要性，权重可以是负的。",
    "高权重不等于特征重要性，权重为 0 说明这个 key 不重要。",
    "高权重不是因果效应，缩放会让权重更尖锐。",
    "高权重不是因果效应，每一行代表一个 key。",
])
def test_a_caveat_beside_a_false_claim_of_the_lab_earns_nothing(sentence, checklist):
    """Before: limits 1.5 (the caveat); after: 0, and the feedback says a false thing was said."""
    r = grade(READING + sentence + "\n", checklist)
    assert items(r)["limits"]["points"] == 0, items(r)["limits"]["feedback"]["en"]
    assert "says something false of attention" in items(r)["limits"]["feedback"]["en"]
    assert "错误说法" in items(r)["limits"]["feedback"]["zh"]


@pytest.mark.parametrize("sentence", [
    "A high weight is not a causal effect, and softmax does not run over the queries.",
    "A high weight is not a causal effect; masked keys do not get a small weight, they get exactly 0.",
    "A high weight is not a causal effect, and the heatmap does not show gradients.",
    "A high weight is not feature importance, and the weights are never negative.",
    "A high weight is not a causal effect; a common mistake is to think masked keys get a small weight.",
    "A high weight is not a causal effect; I first wrote softmax over the queries, which was a bug.",
    "A high weight is not feature importance, and a zero weight does not mean the key is irrelevant.",
    "A high weight is not a causal effect, and scaling does not make the weights sharper.",
    "If softmax ran over the queries, each column would sum to 1; a high weight is not a causal effect.",
    "A high weight is not a causal effect, and each row is a query.",
    "高权重不是因果效应，softmax 不是对每一列做的。",
    "高权重不是因果效应，被 mask 的位置权重不是很小，而是恰好为 0。",
    "高权重不等于特征重要性，热力图显示的不是梯度。",
    "高权重不等于特征重要性，权重为 0 并不说明这个 key 不重要。",
    "高权重不是因果效应，权重不会是负的。",
    "高权重不是因果效应；常见错误是以为 mask 的位置权重很小。",
])
def test_the_same_claims_denied_warned_of_or_reported_as_a_bug_keep_the_caveat(sentence, checklist):
    assert limits_of(sentence, checklist) == 1.5
