"""Specification of how stored code bytes are turned into text wherever they are shown or compared
(instructor code views, the student's load-error excerpt, the similarity check): by the upload
validator's rules (``grading.inputs.code_text``), so an accepted UTF-16 or GBK-with-cookie upload is
shown as its text and compared as its text, and old rows never fail to display."""

from __future__ import annotations

import pytest

from grading.inputs import code_text, validate_code

SOURCE = "# 注意力机制\nclass MultiHeadAttention:\n    label = '查询'\n"


@pytest.mark.parametrize("data", [
    SOURCE.encode("utf-8"),
    b"\xef\xbb\xbf" + SOURCE.encode("utf-8"),
    SOURCE.encode("utf-16"),                                   # with a BOM
    ("# -*- coding: gbk -*-\n" + SOURCE).encode("gbk"),
    ("# coding: gb18030\n" + SOURCE).encode("gb18030"),
])
def test_stored_code_is_decoded_by_the_same_rules_as_the_upload(data):
    text = code_text(data)
    assert "注意力机制" in text and "查询" in text and "\ufffd" not in text
    assert text.replace("\r\n", "\n") == validate_code("attention.py", data)


def test_stored_bytes_the_upload_rules_refuse_are_shown_as_utf8_with_replacement_characters():
    assert code_text(b"x = 1\n# \xb2\xe9\n\x00") == "x = 1\n# \ufffd\ufffd\n\x00"


def test_the_views_and_the_similarity_check_all_decode_with_code_text():
    import app.instructor
    import app.student
    import worker.similarity

    for module in (app.instructor, app.student, worker.similarity):
        assert module.code_text is code_text

