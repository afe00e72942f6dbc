"""Round 24: a reply refused for arriving in small pieces (grading.sandbox.protocol.Trickled) is said
in both languages, as the grader's own words, the Chinese with no English sentence in it."""

from __future__ import annotations

from grading.proxy import SANDBOX_ENGLISH_ZH, student_error_text
from grading.sandbox import StudentError, protocol
from tests.grading.helpers import english_in_zh


def test_a_reply_refused_for_arriving_a_few_bytes_at_a_time_is_said_in_chinese_too():
    reason = (f"a reply came in more than {protocol.TRICKLE_READS} pieces of less than {protocol.TRICKLE_BYTES} "
              "bytes: code in the sandbox wrote on the grader's channel a few bytes at a time")   # client.Session
    text = student_error_text("ScaledDotProductAttention.forward", StudentError("InvalidResult", reason))
    assert text["en"].endswith(f": {reason}")
    assert "?" not in text["en"]                        # says what was seen, guesses nothing
    assert SANDBOX_ENGLISH_ZH not in text["zh"], text["zh"]
    assert english_in_zh(text["zh"]) == [], text["zh"]
    assert f"{protocol.TRICKLE_READS} 段" in text["zh"] and f"{protocol.TRICKLE_BYTES} 字节" in text["zh"]
