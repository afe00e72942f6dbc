"""Round 37, feedback on broken code: a GBK file whose coding declaration Python ignores, a message the code raised
through a variable, and the files of tests/grading/feedback_corpus_round37.py graded once and read in zh and en.

Found, each said now in both languages with what was seen:
- ``import torch  # 注意力`` saved as GBK above ``# -*- coding: gbk -*-`` was told to declare the encoding on its first
  or second line, where it already was: python3.11 ignores a line-2 declaration below a line of code and refuses the
  file as not UTF-8 (checked by running it); the note says so, with Python's own words in a code span in zh (the
  comment-line-1 refusal had them bare, English in the zh text);
- ``msg = f'...'`` then ``raise ValueError(msg)``: the message was introduced in zh as Python's (PyTorch/Python 报错原文),
  not as the code's own."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grading.inputs import InputError, validate_code
from tests.grading.helpers import english_in_zh

# GBK's 注意力: D7 A2 is also a UTF-8 letter, D2 E2 is the first byte UTF-8 refuses
_GBK_CODE_LINE_1 = "import math  # 注意力\n# -*- coding: gbk -*-\nprint(math.pi)\n".encode("gbk")
_GBK_COMMENT_LINE_1 = "# 注意力\n# -*- coding: gbk -*-\nprint(1)\n".encode("gbk")


def _refusal(data: bytes) -> InputError:
    with pytest.raises(InputError) as caught:
        validate_code("attention.py", data)
    return caught.value


def test_python_refuses_a_gbk_file_whose_declaration_on_line_2_stands_below_code(tmp_path):
    # what the note says is what python3.11 does: the line-2 declaration is ignored, line 1 refused as not UTF-8
    path = tmp_path / "attention.py"
    path.write_bytes(_GBK_CODE_LINE_1)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert "Non-UTF-8 code starting with '\\xd2'" in run.stderr and "on line 1, but no encoding declared" in run.stderr
    said = _refusal(_GBK_CODE_LINE_1)
    assert said.code == "code_not_utf8"
    assert "declares the encoding 'gbk' on line 2, but its line 1 is code, not a comment" in said.en
    assert "Non-UTF-8 code starting with '\\xd2' on line 1, but no encoding declared" in said.en
    assert "Move the declaration to line 1" in said.en and "first or second line" not in said.en
    assert "在第 2 行声明了编码 `gbk`，但第 1 行是代码而不是注释" in said.zh and "请把声明移到第 1 行" in said.zh
    assert english_in_zh(said.zh, frozenset()) == []


def test_an_ignored_declaration_names_the_line_python_refuses_when_line_1_is_ascii():
    data = "import math\n# -*- coding: gbk -*-\nprint('注意力')\n".encode("gbk")
    said = _refusal(data)
    assert "on line 3, but no encoding declared" in said.en and "line 1 is code" in said.en
    # the same file in UTF-8 runs (Python ignores the declaration and reads UTF-8): accepted
    assert validate_code("attention.py", data.decode("gbk").encode("utf-8")).endswith("print('注意力')\n")


def test_a_comment_line_1_refusal_quotes_python_in_a_code_span_in_zh():
    said = _refusal(_GBK_COMMENT_LINE_1)
    assert "declared only on line 2" in said.en
    assert "`SyntaxError: Non-UTF-8 code starting with '\\xd2' on line 1, but no encoding declared`" in said.zh
    assert english_in_zh(said.zh, frozenset()) == []


# ------------------------------------------------------------------ a message raised through a variable
class _Raised(Exception):
    def __init__(self, kind: str, message: str, lineno: int | None):
        super().__init__(message)
        self.kind, self.message, self.lineno = kind, message, lineno


_RAISES_NAME = '''import torch


def check(q, k):
    msg = f"q 和 k 的最后一维必须相同，现在是 {q.size(-1)} 和 {k.size(-1)}"
    other = str(q.shape)
    if q.size(-1) != k.size(-1):
        raise ValueError(msg)
    raise ValueError(other)


def elsewhere(q):
    raise ValueError(msg)
'''


def _line(text: str) -> int:
    return next(n for n, line in enumerate(_RAISES_NAME.splitlines(), 1) if text in line)


def test_a_message_raised_through_a_name_bound_to_the_codes_own_fstring_is_introduced_as_the_codes_own():
    from grading.proxy import ORIGINAL_MESSAGE_ZH, OWN_MESSAGE_ZH, student_error_text

    line = _line("raise ValueError(msg)")
    said = student_error_text("forward", _Raised("ValueError", "q 和 k 的最后一维必须相同，现在是 8 和 16", line),
                              source=_RAISES_NAME)
    assert f"{OWN_MESSAGE_ZH}q 和 k 的最后一维必须相同" in said["zh"] and ORIGINAL_MESSAGE_ZH not in said["zh"]


def test_a_message_raised_through_a_name_is_not_called_the_codes_own_when_it_is_not_what_the_name_holds():
    from grading.proxy import ORIGINAL_MESSAGE_ZH, student_error_text

    # the text does not match the f-string; the name holds str(...) (not written text); the name is bound in
    # another function only
    for text, message in (("raise ValueError(msg)", "too many values to unpack (expected 2)"),
                          ("raise ValueError(other)", "torch.Size([2, 3])")):
        said = student_error_text("forward", _Raised("ValueError", message, _line(text)), source=_RAISES_NAME)
        assert ORIGINAL_MESSAGE_ZH in said["zh"], text
    said = student_error_text("forward", _Raised("ValueError", "q 和 k 的最后一维必须相同，现在是 8 和 16",
                                                 len(_RAISES_NAME.splitlines())), source=_RAISES_NAME)
    assert ORIGINAL_MESSAGE_ZH in said["zh"]


def test_a_message_raised_at_import_through_a_name_bound_to_a_literal_is_the_codes_own():
    from grading.proxy import OWN_MESSAGE_ZH, load_error_text
    from grading.sandbox import StudentError

    src = "import torch\nHINT = '请先安装 einops'\nraise RuntimeError(HINT)\n"
    said = load_error_text(StudentError("RuntimeError", "请先安装 einops", 3), source=src)
    assert f"{OWN_MESSAGE_ZH}请先安装 einops" in said["zh"], said
