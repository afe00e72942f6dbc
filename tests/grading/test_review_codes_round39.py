"""Round 39: the grader's review reasons (result["review"]) are stored as {"code", "params", "text"}, built by
their builders (the runner's, the attention suite's, grading/review.py), so the web translates a code, never an
English sentence; a plug-in suite's bare text and its own declared codes are stored too."""

from __future__ import annotations

from grader_tests.attention import static
from grading import runner
from grading.i18n import msg
from grading.review import PLAIN, is_reason, reason_code, reason_text, stored
from grading.suite import Suite

FUSED = {"test_no_fused_attention_static": {"outcome": "passed"},
         "test_no_fused_attention_runtime": {"outcome": "failed", "feedback": {
             "en": static.RUNTIME_FUSED_EN + "torch.nn.functional.scaled_dot_product_attention (2x): write it", "zh": ""}}}


def _raising(source: str, *_outcomes: object) -> list:
    raise ValueError("hook broke")


def builders_reasons() -> list[dict]:
    """One reason of every builder, built by it (also read by tests/web/test_review_reasons_round39.py)."""
    suite = Suite(version="t", student_file="a.py", module_name="a", categories=(), review=_raising,
                  outcome_review=_raising)
    return [
        *static.review_reasons("def f(:\n"),
        *static.review_reasons("x = " + "1 + " * 25000 + "1\n"),
        *static.review_reasons('import torch.nn.functional as F\nname = "soft" + "max"\nf = getattr(F, name)\n'),
        *static.outcome_review("import torch\n", FUSED),
        runner.review_stopped_reason(),
        *runner._review(suite, "x = 1\n"),
        *runner._outcome_review(suite, "x = 1\n", {}),
        runner.AUDIT_FAILED_REASON,
        runner.budget_reason(),
    ]


def test_every_builder_stores_a_reason_with_its_own_code_its_quoted_params_and_its_english_text():
    reasons = builders_reasons()
    assert len(reasons) == 9 and all(is_reason(r) for r in reasons), reasons
    codes = [r["code"] for r in reasons]
    assert len(set(codes)) == 9 and PLAIN not in codes, codes
    for r in reasons:
        assert all(isinstance(v, str) and v in r["text"] for v in r["params"].values()), r
    by_code = {r["code"]: r for r in reasons}
    assert by_code["attention.indirect_names"]["params"] == {"names": "line 3: getattr with a computed name"}
    assert by_code["engine.review_failed"]["params"] == {"error": "ValueError('hook broke')"}
    assert by_code["attention.unreviewable"]["params"] == {"nodes": "20,000", "depth": "100"}


def test_a_suite_hooks_bare_text_is_stored_as_a_plain_reason_of_that_text():
    suite = Suite(version="t", student_file="a.py", module_name="a", categories=(),
                  review=lambda source: ["look at line 3"], outcome_review=lambda source, outcomes: ["and line 4"])
    assert runner._review(suite, "x = 1\n") == [{"code": PLAIN, "params": {}, "text": "look at line 3"}]
    assert runner._outcome_review(suite, "x = 1\n", {}) == [{"code": PLAIN, "params": {}, "text": "and line 4"}]


def test_a_code_a_suite_declares_is_stored_with_its_english_and_its_zh_text():
    suite = Suite(version="t", student_file="a.py", module_name="a", categories=(),
                  review=lambda source: [{"code": "demo.loops", "params": {"n": 3}}],
                  review_texts={"demo.loops": msg("{n} loops the review cannot bound", "{n} 个审阅无法限定的循环")})
    assert runner._review(suite, "x = 1\n") == [{"code": "demo.loops", "params": {"n": "3"},
                                                 "text": "3 loops the review cannot bound",
                                                 "zh": "3 个审阅无法限定的循环"}]


def test_a_declared_text_naming_a_param_the_reason_lacks_stores_no_zh_rather_than_a_wrong_one():
    texts = {"demo.loops": msg("{n} loops", "{n} 个循环")}
    got = stored({"code": "demo.loops", "params": {}, "text": "some loops"}, texts)
    assert got == {"code": "demo.loops", "params": {}, "text": "some loops"}


def test_both_shapes_give_their_english_text_and_only_the_structured_one_a_code():
    old = "the audit checker failed on this audit (traceback in the log): grade the audit by hand"
    assert reason_text(old) == old and reason_code(old) is None
    new = runner.AUDIT_FAILED_REASON
    assert reason_text(new) == old and reason_code(new) == "engine.audit_failed"
