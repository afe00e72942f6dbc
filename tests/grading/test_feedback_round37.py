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
from grading.load_hints import no_self_note

# imported here, not in a test: grading.proxy imports torch, 20 s on a loaded host, paid once at collection
from grading.proxy import ORIGINAL_MESSAGE_ZH, OWN_MESSAGE_ZH, load_error_text, student_error_text
from grading.sandbox import StudentError
from tests.grading.feedback_corpus_round37 import CASES
from tests.grading.helpers import english_in_zh

# GBK's 注意力: D7 A2 is also a UTF-8 letter, D2 E2 is the first byte UTF-8 refuses
_GBK_CODE_LINE_1 = "import math  # 注意力\n# -*- coding: gbk -*-\nprint(math.pi)\n".encode("gbk")
_GBK_COMMENT_LINE_1 = "# 注意力\n# -*- coding: gbk -*-\nprint(1)\n".encode("gbk")


def _refusal(data: bytes) -> InputError:
    with pytest.raises(InputError) as caught:
        validate_code("attention.py", data)
    return caught.value


@pytest.mark.slow
def test_python_refuses_a_gbk_file_whose_declaration_on_line_2_stands_below_code(tmp_path):
    # what the note says is what python3.11 does (a fresh interpreter: 20 s on a loaded host, hence slow)
    path = tmp_path / "attention.py"
    path.write_bytes(_GBK_CODE_LINE_1)
    run = subprocess.run([sys.executable, "-S", str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert "Non-UTF-8 code starting with '\\xd2'" in run.stderr and "on line 1, but no encoding declared" in run.stderr
    assert "Non-UTF-8 code starting with '\\xd2' on line 1, but no encoding declared" in _refusal(_GBK_CODE_LINE_1).en


def test_a_gbk_file_whose_declaration_on_line_2_stands_below_code_is_told_python_ignores_it():
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
    line = _line("raise ValueError(msg)")
    said = student_error_text("forward", _Raised("ValueError", "q 和 k 的最后一维必须相同，现在是 8 和 16", line),
                              source=_RAISES_NAME)
    assert f"{OWN_MESSAGE_ZH}q 和 k 的最后一维必须相同" in said["zh"] and ORIGINAL_MESSAGE_ZH not in said["zh"]


def test_a_message_raised_through_a_name_is_not_called_the_codes_own_when_it_is_not_what_the_name_holds():
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
    src = "import torch\nHINT = '请先安装 einops'\nraise RuntimeError(HINT)\n"
    said = load_error_text(StudentError("RuntimeError", "请先安装 einops", 3), source=src)
    assert f"{OWN_MESSAGE_ZH}请先安装 einops" in said["zh"], said


# ------------------------------------------------------------------ notes found grading the corpus
def _src(name: str) -> str:
    return CASES[name]


def _line_in(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def _run_said(name: str, kind: str, message: str, text: str) -> dict:
    src = _src(name)
    said = student_error_text("MultiHeadAttention.forward", _Raised(kind, message, _line_in(src, text)), source=src)
    assert english_in_zh(said["zh"].split("；", 1)[1], frozenset({"torch.Size", "math.sqrt", "pad", "_split"})) == []
    return said


def test_math_sqrt_of_a_shape_is_told_to_take_one_axis_size():
    said = _run_said("sqrt_of_tensor_shape", "TypeError", "must be real number, not torch.Size", "math.sqrt(q.shape)")
    assert "gives math.sqrt `q.shape`, a torch.Size" in said["en"] and "`q.size(-1)` or `q.shape[-1]`" in said["en"]
    assert "传给 math.sqrt 的是 `q.shape`" in said["zh"] and "`q.size(-1)` 或 `q.shape[-1]`" in said["zh"]


def test_an_integer_mask_filled_with_minus_infinity_is_told_its_dtype_and_the_line_that_made_it():
    src = _src("mask_long_dtype")
    said = _run_said("mask_long_dtype", "RuntimeError", "value cannot be converted to type int64_t without overflow",
                     "pad = pad.masked_fill(")
    made = _line_in(src, "dtype=torch.long")
    assert f"holds integers (int64: `pad`, made on line {made} with an integer dtype)" in said["en"]
    assert "floating dtype" in said["en"] and "-inf" in said["en"]
    assert f"第 {made} 行以整数 dtype 创建了 `pad`" in said["zh"] and "浮点" in said["zh"]


def test_a_method_without_self_called_on_the_object_is_told_to_take_self():
    src = _src("self_missing_in_split")
    said = _run_said("self_missing_in_split", "TypeError",
                     "MultiHeadAttention._split() takes 1 positional argument but 2 were given", "self._split(self.q_proj")
    assert f"line {_line_in(src, 'def _split(x):')} defines `_split(x)` in MultiHeadAttention without `self`" \
        in said["en"] and "write `def _split(self, x):`" in said["en"]
    assert "没有 `self` 参数" in said["zh"] and "`def _split(self, x):`" in said["zh"]
    # a staticmethod, or a method with self whose call passes too many: not this note
    static = src.replace("    def _split(x):", "    @staticmethod\n    def _split(x):")
    assert no_self_note(static, _line_in(static, "self._split(self.q_proj"),
                        "MultiHeadAttention._split() takes 1 positional argument but 2 were given") is None


def test_a_misspelt_torch_submodule_or_a_name_from_the_wrong_torch_module_is_told_where_it_is():
    import torch.nn.functional  # noqa: F401  (the grader's process has it: the hint reads only imported modules)

    packages = ["torch", "numpy", "einops"]
    src = _src("import_typo_functional")
    said = load_error_text(StudentError("ModuleNotFoundError", "No module named 'torch.nn.funtional'",
                                        _line_in(src, "funtional")), source=src, packages=packages)
    assert "torch.nn has no module `funtional`, but it has `functional`: write `torch.nn.functional`." in said["en"]
    assert "torch.nn 中没有名为 `funtional` 的模块，但有 `functional`" in said["zh"]
    assert "numpy" not in said["en"]     # not the list of packages: torch is one of them
    src = _src("softmax_from_torch_nn")
    said = load_error_text(StudentError("ImportError", "cannot import name 'softmax' from 'torch.nn' (/x/torch/nn/"
                                        "__init__.py)", _line_in(src, "import softmax")), source=src, packages=packages)
    assert "torch.nn has no `softmax`, but `torch.nn.functional` and `torch` have it: write " \
           "`from torch.nn.functional import softmax`." in said["en"]
    assert "torch.nn 中没有 `softmax`，`torch.nn.functional` 和 `torch` 中有" in said["zh"]
    # a package the grader does not provide: its list, as before
    said = load_error_text(StudentError("ModuleNotFoundError", "No module named 'tensorflow.keras'", 7),
                           source=src, packages=packages)
    assert "numpy" in said["en"]


# ------------------------------------------------------------------ the corpus, graded once
@pytest.fixture(scope="module")
def graded(executor):
    from grading.runner import GradeInput, grade
    return {name: grade(GradeInput(code=code.encode()), "attention", executor) for name, code in CASES.items()}


@pytest.mark.slow
def test_every_corpus_file_is_told_in_both_languages_what_failed_with_a_checked_note(graded):
    from tests.grading.helpers import code_names

    expected = {"raise_message_variable": "代码自己写的报错信息", "semicolon_fullwidth": "全角分号",
                "import_typo_functional": "但有 `functional`", "softmax_from_torch_nn": "`torch.nn.functional` 和",
                "self_missing_in_split": "没有 `self` 参数", "super_init_missing": "super().__init__()",
                "head_dim_float": "“//”", "assert_divisible_message": "头数太多了",
                "transpose_wrong_axes": ".transpose(-2, -1)", "sqrt_of_tensor_shape": "torch.Size，不是一个数",
                "mask_long_dtype": "以整数 dtype 创建了 `pad`", "cuda_hardcoded": "没有 GPU",
                "reshape_without_transpose": "相乘得", "numpy_softmax": "import numpy as np"}
    for name, result in graded.items():
        assert result["status"] == "graded", (name, result.get("message"))
        said = [result.get("load_error"), result.get("message")] + [t.get("feedback") for t in result["tests"]]
        said = [m for m in said if isinstance(m, dict)]
        assert said, name
        code = code_names(CASES[name]) | frozenset(sys.stdlib_module_names)
        assert [(name, m["zh"], left) for m in said if (left := english_in_zh(m["zh"], code))] == []
        if name in expected:
            assert any(expected[name] in m["zh"] for m in said), (name, [m["zh"] for m in said][:3])


def test_the_codes_own_raise_under_an_if_is_told_the_condition_that_held():
    src = _src("raise_message_variable")
    line = _line_in(src, "raise ValueError(msg)")
    said = student_error_text("ScaledDotProductAttention.forward",
                              _Raised("ValueError", "q 和 k 的最后一维必须相同，现在是 4 和 4", line), source=src)
    cond = "q.size(-1) != k.size(-1) or q.dim() != 3"
    assert f"line {line} (in ScaledDotProductAttention.forward) is a raise written in the file, reached because the " \
           f"condition of line {line - 1} ({cond}) was true for these inputs" in said["en"]
    assert f"因为第 {line - 1} 行的条件（`{cond}`）对这些输入成立" in said["zh"]
    # an exception of another class on that line was not raised by it: no such note
    said = student_error_text("ScaledDotProductAttention.forward", _Raised("TypeError", "bad operand", line), source=src)
    assert "raise written in the file" not in said["en"]
