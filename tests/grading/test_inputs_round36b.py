"""Round 36 mend M2: a coding declaration (PEP 263) is accepted exactly where ``python3.11 attention.py`` runs the
file and refused, with Python's reason and never a crash, exactly where it refuses it. Each case is checked against
the interpreter itself."""
from __future__ import annotations

import subprocess
import sys

import pytest

from grading.inputs import InputError, code_text, validate_code

GBK = "查询".encode("gbk")
UTF8 = "查询".encode()

CASES = {
    # codecs Python cannot read source in: not text codecs, no codec, not ASCII-compatible (a crash or an accept)
    "hex_non_ascii": b"# coding: hex\nx = '" + UTF8 + b"'\n",
    "hex_ascii": b"# coding: hex\nx = 1\n",
    "rot13": b"# coding: rot13\nx = 1\n",
    "base64": b"# coding: base64\nx = '" + UTF8 + b"'\n",
    "zlib": b"# coding: zlib\nx = '" + UTF8 + b"'\n",
    "uu": b"# coding: uu\nx = '" + UTF8 + b"'\n",
    "bz2": b"# coding: bz2\nx = '" + UTF8 + b"'\n",
    "undefined": b"# coding: undefined\nx = '" + UTF8 + b"'\n",
    "utf16_ascii": b"# coding: utf-16\nx = 1\n",
    "utf32_ascii": b"# coding: utf-32\nx = 1\n",
    # a line 1 that is not UTF-8 before the declaration on line 2
    "gbk_code_line1": b"x = '" + GBK + b"'\n# -*- coding: gbk -*-\n",
    "gbk_comment_line1": "# 注意力机制作业\n# -*- coding: gbk -*-\nx = '查询'\n".encode("gbk"),
    "gbk_line1_utf8_cookie": b"# " + GBK + b"\n# coding: utf-8\n",
    # runs in Python: CR-only and CRLF lines, a #! line, code on line 1, a cookie line with its own characters
    "cr_only_gbk": b"# -*- coding: gbk -*-\rx = '" + GBK + b"'\rprint(x)\r",
    "crlf_gbk": b"# -*- coding: gbk -*-\r\nx = '" + GBK + b"'\r\nprint(x)\r\n",
    "shebang_gbk": b"#!/usr/bin/env python\n# -*- coding: gbk -*-\nx = '" + GBK + b"'\nprint(x)\n",
    "code_line1_cookie_line2_ignored": b"import os\n# -*- coding: gbk -*-\nx = '" + UTF8 + b"'\nprint(x)\n",
    "gbk_on_cookie_line": b"# coding: gbk " + GBK + b"\nx = '" + GBK + b"'\nprint(x)\n",
    "gbk_on_utf8_cookie_line": "# -*- coding: utf-8 -*- 注意力\n".encode("gbk") + b"x = '" + UTF8 + b"'\nprint(x)\n",
    "gbk_after_utf8_cookie": b"# coding: utf-8\nx = '" + GBK + b"'\n",
    "bom_utf_8_underscore": b"\xef\xbb\xbf# coding: UTF_8\nx = 1\n",
    "latin1_utf8_bytes": b"# coding: latin-1\nx = '" + UTF8 + b"'\nprint(x)\n",
    # refused in Python for other reasons
    "bom_utf8_nodash": b"\xef\xbb\xbf# coding: utf8\nx = 1\n",
    "bom_gbk": b"\xef\xbb\xbf# coding: gbk\nx = 1\n",
    "unknown": b"# coding: utf8x\nx = 1\n",
    "bad_gbk_bytes": b"# coding: gbk\nx = '\x80'\n",
    "ascii_cookie_utf8": b"# coding: ascii\nx = '" + UTF8 + b"'\n",
}


def _python_runs(data: bytes, tmp_path) -> tuple[bool, str]:
    path = tmp_path / "attention.py"
    path.write_bytes(data)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, errors="replace",
                          timeout=30)
    return done.returncode == 0, (done.stderr.strip().splitlines() or [""])[-1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_coding_declaration_is_accepted_exactly_where_python_runs_the_file(name, tmp_path):
    data = CASES[name]
    runs, said = _python_runs(data, tmp_path)
    try:
        text = validate_code("attention.py", data)
    except InputError as err:
        assert not runs, (name, err.en)
        assert "SyntaxError" in said
        return
    assert runs, (name, said)
    # and the text is the one Python ran: what the file printed is in it
    if b"print(x)" in data:
        printed = subprocess.run([sys.executable, "-c", text], capture_output=True, text=True).stdout
        assert printed.strip() and printed.strip() in text


@pytest.mark.parametrize("name", ["hex_non_ascii", "base64", "zlib", "uu", "bz2", "undefined", "rot13",
                                  "utf16_ascii", "utf32_ascii"])
def test_an_encoding_python_cannot_read_source_in_is_refused_with_pythons_reason(name):
    data = CASES[name]
    declared = data.split(b": ", 1)[1].split(b"\n", 1)[0].decode()
    with pytest.raises(InputError) as refused:
        validate_code("attention.py", data)
    err = refused.value
    assert err.code == "code_bad_cookie"
    assert f"SyntaxError: encoding problem: {declared}" in err.en
    assert f"SyntaxError: encoding problem: {declared}" in err.zh
    assert "which Python does not know" not in err.en
    # stored files with such a declaration still show on instructor pages
    assert "x = " in code_text(data)


@pytest.mark.parametrize("name", ["gbk_comment_line1", "gbk_line1_utf8_cookie"])
def test_line_1_not_utf8_before_a_line_2_declaration_is_told_as_python_tells_it(name):
    data = CASES[name]
    with pytest.raises(InputError) as refused:
        validate_code("attention.py", data)
    err = refused.value
    assert "does not know" not in err.en and "不认识" not in err.zh
    assert "on line 1, but no encoding declared" in err.en and "on line 1, but no encoding declared" in err.zh
    # Python names the first byte that is not UTF-8 (注 is D7 A2 in GBK, which UTF-8 reads; 意 starts with D2)
    try:
        data.split(b"\n")[0].decode("utf-8")
    except UnicodeDecodeError as exc:
        assert f"'\\x{data[exc.start]:02x}'" in err.en
    assert "line 2" in err.en and "第 2 行" in err.zh


def test_a_long_declared_name_is_quoted_capped():
    for data in (b"# coding: " + b"a" * 5000 + b"\nx = 1\n", b"# coding: hex" + b"_" * 5000 + b"\nx = 1\n",
                 b"\xef\xbb\xbf# coding: " + b"g" * 5000 + b"\nx = 1\n",
                 b"# " + GBK + b"\n# coding: " + b"b" * 5000 + b"\n",
                 b"# coding: ascii" + b"c" * 5000 + b"\nx = '" + UTF8 + b"'\n"):
        with pytest.raises(InputError) as refused:
            validate_code("attention.py", data)
        assert len(refused.value.en) < 700 and len(refused.value.zh) < 700, refused.value.en


def test_a_bom_with_another_declared_encoding_quotes_pythons_reason_with_its_normal_name():
    with pytest.raises(InputError) as refused:
        validate_code("attention.py", b"\xef\xbb\xbf#!/usr/bin/python\n# coding: latin-1\nx = 1\n")
    assert "SyntaxError: encoding problem: iso-8859-1 with BOM" in refused.value.en
    assert "SyntaxError: encoding problem: iso-8859-1 with BOM" in refused.value.zh
