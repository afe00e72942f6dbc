"""Mend round 47: a whole GBK file whose first Chinese character reads as a UTF-8 Latin letter after an ASCII letter.

GBK's 30 hanzi C3 A1-BF (but ÷) are UTF-8's "á".."ÿ": written right after an ASCII letter ("x茅" is "xé") the UTF-8
reader goes on to the next Chinese text it cannot read, lines below. The message says where the file first reads as
GBK (the line of "x茅", in both languages) and where the GBK part starts if that text was meant as UTF-8.
"""

from __future__ import annotations

import pytest

from grading.inputs import InputError, validate_code


def _latin_hanzi() -> list[str]:
    """GBK hanzi whose two bytes are one UTF-8 Latin letter (C3 A1-BF, the letters only)."""
    found = []
    for trail in range(0xA1, 0xC0):
        pair = bytes([0xC3, trail])
        if pair.decode("utf-8").isalpha():
            found.append(pair.decode("gbk"))
    return found


def _refused(fn, name: str, data: bytes) -> InputError:
    with pytest.raises(InputError) as refused:
        fn(name, data)
    return refused.value


def test_a_whole_gbk_file_with_a_hanzi_after_a_letter_names_that_hanzi_line_in_both_languages():
    hanzi = _latin_hanzi()
    assert len(hanzi) == 30
    for h in hanzi:
        data = f"import torch\n# x{h} y\nx = 1\n# 注意力权重\n".encode("gbk")
        err = _refused(validate_code, "attention.py", data)
        assert "line 2, column 4" in err.en and "GBK/GB18030" in err.en, (h, err.en)
        assert "第 2 行第 4 列" in err.zh and "GBK/GB18030" in err.zh, (h, err.zh)
        # the later place stays said, as the place a UTF-8 head would end
        assert "line 4, column 3" in err.en and "第 4 行第 3 列" in err.zh, (h, err.en)


def test_a_utf8_file_with_a_sqrt_before_its_gbk_part_is_located_at_the_gbk_part_only():
    # "√" is not GB2312: the head is UTF-8 for sure, no "reads as GBK from line 1" is said
    data = "# café √\nx = 1\n".encode() + "# 掩码\n".encode("gbk")
    err = _refused(validate_code, "attention.py", data)
    assert "first bad byte at line 3, column 3)" in err.en, err.en
    assert "column 6" not in err.en, err.en
