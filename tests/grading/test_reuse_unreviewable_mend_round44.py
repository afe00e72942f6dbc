"""Round 44, review RC MED 2: a correct file whose example matrix under the main guard (100x100, 20.8k syntax nodes)
put it past the review's limits got 68/85, and test_mha_reuses_sdpa told it "MultiHeadAttention never refers to
ScaledDotProductAttention", a claim of absence the review never checked. It now says the source could not be read,
as test_no_fused_attention_static does."""
from __future__ import annotations

import pytest

from grader_tests.attention import static
from grader_tests.attention import test_implementation as impl
from grading.proxy import Feedback
from tests.grading.test_hostile_round31 import CORRECT

MATRIX = "[\n" + ",\n".join("    [" + ", ".join("-0.125" for _ in range(100)) + "]" for _ in range(100)) + "\n]"
PAST_THE_REVIEW = CORRECT + '\n\nif __name__ == "__main__":\n    expected = ' + MATRIX.replace("\n", "\n    ") + \
    "\n    print(len(expected))\n"


def test_a_source_past_the_reviews_limits_is_not_told_it_never_refers_to_the_single_head_module():
    assert static.hidden_name_uses(PAST_THE_REVIEW) == (static.UNREVIEWABLE,)
    with pytest.raises(Feedback) as told:
        impl.test_mha_reuses_sdpa(None, PAST_THE_REVIEW)     # decided from the source alone: no session is asked
    text = told.value.message
    assert "never refers" not in text["en"] and "从未引用" not in text["zh"]
    assert "too large or too deeply nested for the check that MultiHeadAttention reuses" in text["en"]
    assert "检查 MultiHeadAttention 是否复用 ScaledDotProductAttention 时无法读取" in text["zh"]
