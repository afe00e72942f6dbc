"""Round 46 mend: where a file that is not UTF-8 is said to break, for every start the review found wrong.

The byte-order mark is no column on line 1; a GBK part after a UTF-8 head that holds no Chinese ("1/√d_k", "café",
a BOM) is located where the GBK part starts; a whole GBK file is located at its first Chinese character, also when
a level-2 hanzi and a level-1 one read as one UTF-8 CJK character (round 33's rule, which round 46 dropped there).
"""

from __future__ import annotations

import codecs
import io
import zipfile

import pytest

from grading.inputs import InputError, validate_audit, validate_code, wrong_extension_advice

GBK_COMMENT = "# 掩码在 softmax 之前\n".encode("gbk")   # at line 3, column 3 below


def _where(fn, name: str, data: bytes) -> tuple[str, str]:
    with pytest.raises(InputError) as refused:
        fn(name, data)
    return refused.value.en, refused.value.zh


def test_a_bad_byte_on_line_1_of_a_file_with_a_bom_is_at_the_column_the_student_sees():
    en, zh = _where(validate_code, "attention.py", codecs.BOM_UTF8 + b"x = 1  # \xff\n")
    assert "line 1, column 10)" in en, en
    assert "第 1 行第 10 列" in zh, zh


@pytest.mark.parametrize("head", [
    codecs.BOM_UTF8 + b"import torch\nx = 1\n",
    "# 1/√d_k\nx = 1\n".encode(),
    "# café\nx = 1\n".encode(),
], ids=["bom", "sqrt", "cafe"])
def test_a_code_file_with_a_utf8_head_without_chinese_is_located_where_its_gbk_comment_starts(head):
    en, zh = _where(validate_code, "attention.py", head + GBK_COMMENT)
    assert "line 3, column 3)" in en and "GBK/GB18030" in en, en
    assert "第 3 行第 3 列" in zh, zh


def test_an_audit_with_a_sqrt_title_and_a_gbk_paragraph_is_located_at_the_paragraph():
    en, _ = _where(validate_audit, "audit.md", "# 1/√d_k scaling\n\n".encode() + "热力图不能证明因果关系。\n".encode("gbk"))
    assert "line 3, column 1)" in en, en


def _level2_then_level1() -> list[str]:
    """Level-2 hanzi (GBK lead E3-E9, trail A1-BF): with a level-1 hanzi after them, one UTF-8 CJK character."""
    found = []
    for lead in range(0xE3, 0xEA):
        for trail in range(0xA1, 0xC0):
            try:
                found.append(bytes([lead, trail]).decode("gbk"))
            except UnicodeDecodeError:
                pass
    return found


def test_a_whole_gbk_file_is_located_at_its_first_chinese_character_when_its_bytes_read_as_utf8_cjk():
    hanzi = _level2_then_level1()
    assert len(hanzi) > 200
    for x in hanzi:
        en, _ = _where(validate_code, "attention.py", f"import torch\n# {x}的值\nx = 1\n".encode("gbk"))
        assert "line 2, column 3)" in en, (x, en)


@pytest.mark.parametrize("text", ["# 注 x\n# 注意力权重\n", "# 为什么\n# 掩码\n", "# α 的值\n"])
def test_a_whole_gbk_file_whose_first_chinese_reads_as_utf8_letters_is_located_at_that_character(text):
    # 注 (D7 A2) is a Hebrew letter in UTF-8, 为什么 three letters: the UTF-8 reader stumbles on a later line
    en, _ = _where(validate_code, "attention.py", ("import torch\n" + text + "y = 2\n").encode("gbk"))
    assert "line 2, column 3)" in en, en


# ------------------------------------------------------------------ document type names: the form's samples, real files

def _zip(members: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as f:
        for name, body in members.items():
            f.writestr(name, body)
    return buf.getvalue()


# the members such files hold (an .odt names its type first, in "mimetype"; Pages since 2013 keeps Index/*.iwa)
REAL = {
    ".odt": _zip({"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": "<office:document-content/>",
                  "META-INF/manifest.xml": "<manifest/>"}),
    ".pages": _zip({"Index/Document.iwa": "x", "Index/ViewState.iwa": "x", "Metadata/Properties.plist": "x",
                    "preview.jpg": "x"}),
}


def _refusal(fn, name: str, data: bytes) -> dict[str, str]:
    with pytest.raises(InputError) as refused:
        fn(name, data)
    return {"en": refused.value.en, "zh": refused.value.zh}


@pytest.mark.parametrize("field,ext", [("audit", ".odt"), ("code", ".odt"), ("audit", ".pages"), ("code", ".pages")])
def test_the_upload_forms_advice_for_a_document_is_the_refusal_a_real_one_gets(field, ext):
    fn = validate_audit if field == "audit" else validate_code
    assert wrong_extension_advice()[field].get(ext) == _refusal(fn, f"x{ext}", REAL[ext])


def test_a_pages_file_picked_as_the_code_is_told_it_is_an_apple_document_not_a_zip_to_unzip():
    said = _refusal(validate_code, "attention.pages", REAL[".pages"])
    assert "Apple iWork" in said["en"] and "Apple iWork 文档" in said["zh"], said
    assert "unzip" not in said["en"] and "解压" not in said["zh"], said


def test_an_odt_audit_is_named_the_same_by_its_content_and_by_its_name():
    assert "OpenDocument（.odt）文档" in _refusal(validate_audit, "audit.odt", b"x")["zh"]
    assert "OpenDocument（.odt）文档" in _refusal(validate_audit, "audit.odt", REAL[".odt"])["zh"]
