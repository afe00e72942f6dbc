"""Round 46: where a file that is UTF-8 up to a GBK part is said to break.

Round 33 locates a GBK file at its first non-ASCII character, since GBK bytes can read as UTF-8 letters before a
UTF-8 reader stumbles ("# 注意力": 注 is D7 A2). An audit or code file written in UTF-8 and then added to in a GBK
editor (a paragraph pasted from an old .txt) was located the same way: at its first Chinese character, in the
UTF-8 title the student's editor shows correctly ("第 1 行第 3 列" for "# 审计"), not where the GBK part starts.
"""

from __future__ import annotations

import pytest

from grading.inputs import InputError, validate_audit, validate_code

# The whole file also decodes as GB18030 (as "# 审计报告" does), so the refusal says it looks like GBK: the case
# the first-non-ASCII rule applied to.
UTF8_HEAD = "# 审计报告\n\n".encode()
GBK_TAIL = "热力图不能证明因果关系。\n".encode("gbk")


def test_a_utf8_audit_with_a_gbk_paragraph_is_located_where_the_gbk_part_starts():
    with pytest.raises(InputError) as refused:
        validate_audit("audit.md", UTF8_HEAD + GBK_TAIL)
    (UTF8_HEAD + GBK_TAIL).decode("gb18030")   # the case of the GBK hint
    assert "line 3, column 1" in refused.value.en and "GBK/GB18030" in refused.value.en, refused.value.en
    assert "第 3 行第 1 列" in refused.value.zh, refused.value.zh


def test_a_utf8_code_file_with_a_gbk_comment_is_located_at_the_comment():
    code = "import torch\n# 审计报告\nx = 1\n".encode() + "# 掩码在 softmax 之前\n".encode("gbk")
    code.decode("gb18030")
    with pytest.raises(InputError) as refused:
        validate_code("attention.py", code)
    assert "line 4, column 3" in refused.value.en, refused.value.en


def test_a_whole_gbk_file_is_still_located_at_its_first_chinese_character():
    with pytest.raises(InputError) as refused:
        validate_code("attention.py", "import torch\n# 注意力机制\nx = 1\n".encode("gbk"))
    assert "line 2, column 3" in refused.value.en and "GBK/GB18030" in refused.value.en


def test_a_file_saved_with_a_byte_order_mark_is_located_where_its_bad_byte_is():
    """utf-8-sig counts the error's offset after the mark: Notepad's "UTF-8 with BOM" was located 3 bytes early."""
    with pytest.raises(InputError) as refused:
        validate_code("attention.py", b"\xef\xbb\xbfimport torch\nx = 1  # \xff\n")
    assert "line 2, column 10" in refused.value.en, refused.value.en
    with pytest.raises(InputError) as refused:
        validate_audit("audit.md", b"\xef\xbb\xbf" + UTF8_HEAD + GBK_TAIL)
    assert "line 3, column 1" in refused.value.en, refused.value.en


def test_the_forms_advice_for_a_word_document_picked_as_code_is_the_servers_refusal_of_one():
    """The upload form refuses a picked file by its extension with the server's own refusal of a sample
    (wrong_extension_advice). The .docx sample was a bare ZIP: a student who picked their Word document as the
    code was told to unzip it and upload the attention.py inside."""
    import io
    import zipfile

    from grading.inputs import wrong_extension_advice

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", "<w:document/>")
    with pytest.raises(InputError) as real:
        validate_code("实验报告.docx", buf.getvalue())
    advice = wrong_extension_advice()["code"][".docx"]
    assert advice == {"en": real.value.en, "zh": real.value.zh}
    assert "Word" in advice["zh"] and "解压" not in advice["zh"] and "unzip" not in advice["en"].lower()
    # the audit's advice too is what a real .docx gets ("a Word (.docx) document", not "a Word document")
    with pytest.raises(InputError) as real:
        validate_audit("审计.docx", buf.getvalue())
    assert wrong_extension_advice()["audit"][".docx"] == {"en": real.value.en, "zh": real.value.zh}


def test_the_zh_refusal_of_a_document_as_the_audit_names_it_with_full_width_brackets():
    from grading.inputs import wrong_extension_advice

    advice = wrong_extension_advice()["audit"]
    for ext in (".docx", ".doc", ".odt"):
        zh = advice[ext]["zh"]
        kind = zh.split("这是 ", 1)[1].split("文档", 1)[0]
        assert "(" not in kind and ")" not in kind, (ext, zh)
    assert "这是 Word（.docx）文档。" in advice[".docx"]["zh"]
    assert "这是 Pages 文档。" in advice[".pages"]["zh"]
