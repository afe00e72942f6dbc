"""An empty upload says what was seen and what to do, in both languages. "The code file is empty." told a
student nothing to do; the same words stood for a file of 0 bytes and one of only spaces. No cause is
guessed: an unsaved editor, a cloud drive's placeholder and the wrong file all arrive as the same bytes."""

from __future__ import annotations

import pytest

from grading.inputs import validate_audit, validate_code, validate_figure
from tests.audit.test_audit_inputs import rejects

CASES = [
    (validate_code, "attention.py", b"", "code_empty", "code file is empty (0 bytes)", "代码文件是空的（0 字节）"),
    (validate_code, "attention.py", b" \n\t\r\n", "code_empty", "code file holds only whitespace",
     "代码文件只有空白字符"),
    (validate_audit, "audit.md", b"", "audit_empty", "audit file is empty (0 bytes)", "审计文件是空的（0 字节）"),
    (validate_audit, "audit.md", "\u3000\n \n".encode(), "audit_empty", "audit file holds only whitespace",
     "审计文件只有空白字符"),
    (validate_figure, "heatmap.png", b"", "figure_empty", "figure file is empty (0 bytes)", "图文件是空的（0 字节）"),
]


@pytest.mark.parametrize("fn, name, data, code, seen_en, seen_zh", CASES,
                         ids=["code_0_bytes", "code_blank", "audit_0_bytes", "audit_blank", "figure_0_bytes"])
def test_an_empty_upload_says_what_was_seen_and_what_to_do_in_both_languages(fn, name, data, code, seen_en, seen_zh):
    err = rejects(fn, name, data, code)
    assert seen_en in err.en, err.en
    assert "save it, and upload it again" in err.en, err.en
    assert seen_zh in err.zh, err.zh
    assert "保存后重新上传。" in err.zh, err.zh
