"""Round 21: when attention.py does not load, no test ran, so nothing the student's tests did can
contradict a claim of the audit. Before this round the result page said "your own code fails
test_blocked_key_gets_zero_weight" (zh 你的代码没有通过 ...) beside "none of the 32 tests were run"."""

from __future__ import annotations

import pytest

from grading.runner import GradeInput, grade

# Claims every test claim of the checklist looks for: mask before softmax, rows sum to 1, padding.
AUDIT = ("把 k1 设为 -inf 后，所有 query 对 k1 的权重都变成 0，说明 mask 是在 softmax 之前加上的。"
         "每一行的权重之和为 1。padding key 的权重为 0。\n").encode()

NOT_LOADING = {
    "syntax": "import torch\n\ndef scaled_dot_product_attention(q, k, v, mask=None:\n    return q\n",
    "indentation": "import torch\n\ndef f(q):\n    s = q\n      return s\n",
    "import": "import torch\nimport einopsx\n",
    "raises": "import torch\nraise RuntimeError('boom at import')\n",
}


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
@pytest.mark.parametrize("kind", sorted(NOT_LOADING))
def test_code_that_does_not_load_gets_no_audit_flag_citing_tests_that_did_not_run(executor, kind):
    result = grade(GradeInput(code=NOT_LOADING[kind].encode(), audit=AUDIT, audit_filename="audit.md"),
                   "attention", executor)
    assert result["status"] == "graded"
    assert result["load_error"]
    flags = result["audit"]["flags"]
    assert [f for f in flags if f["kind"] == "claim_vs_tests"] == [], flags


def test_tests_that_timed_out_refute_no_audit_claim_but_failed_ones_do():
    from grading.suite_state import suite_state
    from rubric.audit import grade_audit

    checklist = suite_state("attention").checklist
    text = AUDIT.decode()
    timed_out = {"test_blocked_key_gets_zero_weight": "timeout", "test_row_sums_are_one": "timeout",
                 "test_padding_keys_get_zero_weight": "timeout", "test_additive_mask_parity": "timeout"}
    assert [f for f in grade_audit(text, None, {}, checklist, tests=timed_out)["flags"]
            if f["kind"] == "claim_vs_tests"] == []
    failed = dict(timed_out, test_row_sums_are_one="failed")
    flags = [f for f in grade_audit(text, None, {}, checklist, tests=failed)["flags"] if f["kind"] == "claim_vs_tests"]
    assert len(flags) == 1 and "test_row_sums_are_one" in flags[0]["message"]["en"]
    assert "test_row_sums_are_one" in flags[0]["message"]["zh"]
