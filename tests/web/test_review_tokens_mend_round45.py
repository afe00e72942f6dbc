"""Round 45 mend, review RC HIGH 1: a source left unparsed by the grader's token gate was given the instructor's
review reason "past what the source review reads (20,000 syntax nodes, 100 levels of nesting)", limits it never
met. It has its own code, attention.too_many_tokens, said in en and zh."""

from __future__ import annotations

from app.review_text import localized
from grader_tests.attention import static
from tests.grading.test_hostile_round31 import CORRECT

PAST_THE_GATE = CORRECT + "\n_X = [" + "1, " * 60000 + "]\n"        # 120,000 tokens, flat: the jail compiles it


def test_a_source_past_the_token_gate_is_reviewed_as_too_many_tokens_in_both_languages(app):
    reasons = static.review_reasons(PAST_THE_GATE)
    assert [r["code"] for r in reasons] == ["attention.too_many_tokens"], reasons
    assert reasons[0]["params"] == {"tokens": "100,000"}
    said = {}
    for lang in ("en", "zh"):
        with app.test_request_context(f"/?lang={lang}"):
            said[lang] = localized(reasons[0])
    assert said["en"] == reasons[0]["text"] and "100,000 tokens" in said["en"] and "nodes" not in said["en"]
    assert said["zh"].startswith("attention.py 超过 100,000 个词法单元") and "节点" not in said["zh"]


def test_a_source_past_the_reviews_own_node_limit_is_still_reviewed_as_unreviewable():
    reasons = static.review_reasons("x = " + "1 + " * 25000 + "1\n")
    assert [r["code"] for r in reasons] == ["attention.unreviewable"]
