"""Round 44 mend (review RA of brief A): a doubt, a reported view or a supposition around a claim claims nothing.

A doubt paired with a negation asserts the claim only when the negation negates the claim itself (k2 不是输出的原因,
"k2 isn't the cause"); a negation that only says what was not done (没做消融, "nobody has ablated it") is the doubt's
reason, and the doubt still denies the claim (HIGH 1).
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import OPENER_EN, OPENER_ZH, items, kinds
from tests.audit.helpers import grade_example as _grade


def _reading(sentence: str) -> tuple[float, float, bool]:
    zh = any("\u4e00" <= c <= "\u9fff" for c in sentence)
    r = _grade((OPENER_ZH if zh else OPENER_EN) + sentence + "\n")
    return r["score"], items(r)["limits"]["points"], "overclaim" in kinds(r)


@pytest.mark.parametrize("sentence", [
    "很难相信没做消融的热力图能证明 k2 导致了 q1 的输出。",
    "很难相信一个没做消融的热力图能证明 k2 导致了输出。",
    "很难想象没有做干预就能说 k2 是输出的原因。",
    "难以相信仅凭一个没有干预的实验就能说明 k2 导致了 q1 的输出。",
    "很难想象不做消融就能证明 k2 是 q1 输出的原因。",
    "我不相信没有消融就能断定 k2 决定了输出。",
    "It is hard to imagine that k2 causes the output when nobody has ablated it.",
    "It is hard to believe that k2 causes the output when no one has removed it.",
])
def test_a_doubt_with_what_was_not_done_as_its_reason_still_denies_the_claim(sentence):
    """Before the mend the doubt and the qualifier's negation cancelled as a pair and the claim was read as asserted
    (a flag; 12.0 -> 8.5 in a full audit). The qualifier says why the claim cannot be believed."""
    score, limits, flagged = _reading(sentence)
    assert not flagged
    assert limits > 0


@pytest.mark.parametrize("sentence", [
    "很难想象 k2 不是输出的原因。",
    "It is hard to believe that k2 isn't the cause of the output.",
])
def test_a_doubt_paired_with_a_negation_of_the_claim_still_asserts_it(sentence):
    assert _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "有人觉得很难想象 k2 不是输出的原因，但热力图不能说明因果。",
    "有同学说很难想象 k2 不是输出的原因，但热力图不能说明因果。",
    "有同学认为很难相信 k2 不是输出的原因，但热力图不能说明因果。",
    "老师说很难想象 k2 不是输出的原因，但她马上补充说热力图不能证明因果。",
    "有人觉得 k2 是输出的原因，但热力图不能说明因果。",
    "Some say it is hard to imagine that k2 is not the cause of the output, but the heatmap cannot show causation.",
    "Some say that k2 is the cause of the output, but the heatmap cannot show causation.",
])
def test_a_view_reported_and_then_rebutted_is_no_claim(sentence):
    """HIGH 2: flagged (12 -> 10 in a full audit; the last two also on main). The writer rebuts the view they report."""
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "Some say k2 is the cause of the output, and I agree.",
    "有人说 k2 是输出的原因，我也这么认为。",
])
def test_a_reported_view_the_writer_does_not_rebut_is_still_a_claim(sentence):
    assert _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "If k2 explains most of q1's output, removing it would change the output, which I did not test.",
    "If k2 probably causes q1's output, an ablation would show it.",
    "Suppose k2 explains most of q1's output: removing it would change the output, which I did not test.",
    "If k2 causes q1's output, an ablation would show it.",
    "热力图不能说明因果，如果 k2 真的导致了输出，也要靠消融才能知道。",
])
def test_a_claim_only_supposed_in_a_conditional_is_no_claim(sentence):
    """HIGH 3: flagged (12 -> 10, 11.2 -> 10.2 in full audits; the fourth and fifth also on main)."""
    assert not _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "If anything, k2 causes q1's output.",
    "If you ask me, k2 causes the output.",
    "如果去掉 k2，输出一定会崩。",
    "If k2 causes the output, as it obviously does, the heatmap still cannot prove it.",
])
def test_a_conditional_whose_consequent_asserts_or_that_asserts_what_it_supposes_is_a_claim(sentence):
    assert _reading(sentence)[2]


@pytest.mark.parametrize("sentence", [
    "很难想象有比 k2 更重要的 key，它的权重最高。",
    "很难相信还有哪个 key 比 k2 更重要。",
    "It is hard to imagine any other key driving the output.",
    "It is difficult to accept that anything other than k2 matters most.",
])
def test_doubting_a_rival_of_a_key_asserts_its_primacy(sentence):
    """MED 1: these earned the importance caveat (2.5) with no flag; main flags them (0.0 and a flag)."""
    score, limits, flagged = _reading(sentence)
    assert flagged and limits == 0


@pytest.mark.parametrize(("sentence", "limits"), [
    ("It is hard to imagine a key more important than k2.", 0.0),
    ("It is difficult to conceive of another cause of the output than k2.", 0.0),
    ("It is hard to accept any explanation of the output except that k2 causes it.", 1.5),
])
def test_doubting_a_rival_of_a_key_earns_no_caveat_for_the_doubt(sentence, limits):
    """MED 1: 1.5, 1.5 and 2.5 before the mend, the doubt read as the importance caveat; main's points (the last
    one's 'explanation of the output' earns as on main) are all they earn."""
    assert _reading(sentence)[1] == limits


@pytest.mark.parametrize("sentence", [
    "The heatmap cannot, even if k2 causes the output as it obviously does, prove it.",
    "The heatmap cannot, even if k2 causes the output, which it clearly does, prove it.",
    "热力图不能，哪怕 k2 就是输出的原因（它就是），证明这一点。",
])
def test_a_supposing_aside_that_also_asserts_is_a_claim(sentence):
    """MED 2: the aside was read as only supposing, and the sentence earned the caveat (2.5)."""
    assert _reading(sentence)[2]


def test_a_key_accounting_for_most_of_the_output_row_is_a_reading():
    """LOW 1: 'output row' is the weights' row, as 'output weight' is (flagged before)."""
    assert not _reading("k2 accounts for most of q1's output row.")[2]
    assert _reading("k2 accounts for most of q1's output.")[2]
