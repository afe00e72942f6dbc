"""Round 46: the zh note on an audit claim that the student's own tests contradict lists the failed tests as a
zh list (a、b), as every other zh list of names; it joined them with an English comma ("a, b")."""

from __future__ import annotations

from rubric.audit.grade import grade_audit
from tests.audit.test_audit_round22 import CLAIM


def test_the_zh_note_lists_the_failed_tests_with_the_zh_enumeration_comma(checklist):
    tests = {"test_blocked_key_gets_zero_weight": "failed", "test_additive_mask_parity": "failed"}
    flags = [f for f in grade_audit(CLAIM, None, {}, checklist, tests=tests)["flags"] if f["kind"] == "claim_vs_tests"]
    assert len(flags) == 1
    zh, en = flags[0]["message"]["zh"], flags[0]["message"]["en"]
    assert "test_blocked_key_gets_zero_weight、test_additive_mask_parity" in zh, zh
    assert ", " not in zh, zh
    assert "test_blocked_key_gets_zero_weight, test_additive_mask_parity" in en, en
