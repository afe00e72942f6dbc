"""Round 43 mend (review RA of brief A).

Item 2 of the brief ("a double negation asserts") is reverted as a class: "you can't say k0 isn't the cause just from
its 0.09 weight" is the lab's most natural honest caveat, and denials of both sides in any wording were flagged. Double
negations are read as main read them: the guards below hold main's score for each (review HIGH 1, HIGH 2).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _zh(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def _graded(sentence: str) -> dict:
    return _grade((OPENER_ZH if _zh(sentence) else OPENER_EN) + sentence + "\n")


def _reading(sentence: str) -> tuple[float, float, bool]:
    r = _graded(sentence)
    return r["score"], items(r)["limits"]["points"], "overclaim" in kinds(r)


# (sentence, (score, caveat points, flagged)) as main grades them
DOUBLE_NEGATIONS_AS_MAIN = [
    ("You can't say k0 isn't the cause of the output just from its 0.09 weight.", (4.5, 1.5, False)),
    ("You can't say k2 doesn't cause the output.", (4.5, 1.5, False)),
    ("We can't say k2 isn't the cause of the output.", (4.5, 1.5, False)),
    ("You can't say that k2 doesn't cause the output.", (3.0, 0.0, False)),
    ("One cannot say that k2 is not the cause of the output.", (3.0, 0.0, False)),
    ("It is not the case that k2 doesn't cause the output.", (3.0, 0.0, False)),
    ("We cannot say k2 doesn't cause the output, and we cannot say it does either; only an ablation can tell.",
     (4.5, 1.5, False)),
    ("Nobody can say k2 doesn't cause the output without an ablation, and nobody can say it does.", (4.5, 1.5, False)),
    ("You can't say k2 doesn't cause the output, but you can't say it does either.", (4.5, 1.5, False)),
    ("We cannot say k2 doesn't cause the output, nor can we say that it causes it.", (4.5, 1.5, False)),
    ("We cannot conclude k2 doesn't cause the output, nor that it does.", (4.5, 1.5, False)),
    ("We can't say k2 causes the output, and we can't say it doesn't.", (4.5, 1.5, False)),
    ("A low weight does not mean k0 is not the cause of the output.", (4.5, 1.5, False)),
    ("The heatmap cannot show that k2 is not the cause of the output.", (4.5, 1.5, False)),
    ("不能说 k0 不是输出的原因，因为注意力权重不等于因果效应。", (4.5, 1.5, False)),
    ("不能说 k2 不是输出的原因，也不能说 k2 是输出的原因。", (4.5, 1.5, False)),
    ("既不能说 k2 是输出的原因，也不能说它不是。", (4.5, 1.5, False)),
    ("不能说 k2 不是输出的原因。", (3.0, 0.0, False)),
    ("我们不能说 k2 不是 q1 输出的原因。", (3.0, 0.0, False)),
    ("不能说 k2 不是输出的原因，也不能说它是。", (3.0, 0.0, False)),
    ("低权重不代表 k0 不是输出的原因。", (3.0, 0.0, False)),
    ("不能否认 k2 导致了输出。", (2.0, 0.0, True)),
]


@pytest.mark.parametrize(("sentence", "expected"), DOUBLE_NEGATIONS_AS_MAIN)
def test_a_double_negation_is_read_as_main_reads_it(sentence, expected):
    assert _reading(sentence) == expected


VALIDATION = Path(__file__).resolve().parent / "validation"


@pytest.mark.parametrize(("name", "caveat"), [
    ("en_excellent_prose.md", "A low weight is not evidence either: we can't say k0 isn't the cause of the output just "
                              "from its 0.09 weight."),
    ("en_excellent_prose.md", "We cannot say k2 doesn't cause the output, and we cannot say it does either; only an "
                              "ablation can tell."),
    ("zh_excellent_prose.md", "低权重也不是证据：不能说 k0 不是输出的原因，因为注意力权重不等于因果效应。"),
])
def test_an_excellent_audit_keeps_its_score_with_a_caveat_in_double_negation(name, caveat):
    """Review HIGH 1: the caveat added to an excellent audit cost it 2 points (15.0 -> 13.0) and a flag."""
    base = (VALIDATION / name).read_text(encoding="utf-8")
    plain, added = _grade(base), _grade(base + "\n" + caveat + "\n")
    assert added["score"] == plain["score"] and "overclaim" not in kinds(added), (plain["score"], added["score"])
