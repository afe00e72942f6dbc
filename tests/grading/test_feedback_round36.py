"""Round 36, feedback on code that does not load or fails at run time: the files of
tests/grading/feedback_corpus_round36.py (kinds rounds 34 and 35 did not try), graded and read in zh and en, and the
five defects round 35 left open.

Found, each said now in both languages with the line it is about:
- a message the code raised itself (``raise ValueError("...")``, ``assert c, "..."``) was introduced in zh as
  "PyTorch/Python 报错原文" (Python's words): now "代码自己写的报错信息";
- attributes a method assigns through ``this.x`` (its first parameter not named self) were not counted: a read
  before the assignment was "which no method assigns", a misspelt name got no close name;
- "mat1 and mat2 shapes cannot be multiplied (10x16 and 8x8)" from a layer was PyTorch's numbers alone: now the
  layer as the file makes it (nn.Linear(d_model, d_model), line 40) and the widths it takes and is given;
- PyTorch's reshape words raised inside a library call on the line (F.multi_head_attention_forward, an
  nn.MultiheadAttention) were said to be the sizes of the line's .view when its written sizes could not be checked;
- a UTF-8 file that declares ``# coding: gbk`` (or an encoding Python does not know, or a BOM with another
  encoding) loaded in the grader, where Python refuses it: refused now as Python refuses it, with the line;
- Python's English alone for `:=` as a statement or on an attribute, a keyword as a name, ``elif`` after ``else``,
  ``case`` outside ``match``, a ``match`` line without ':', "Perhaps you forgot a comma?", an assignment to a call,
  a parameter without a default after one with; an HTML page uploaded as attention.py was "invalid syntax" at line 1;
- the sandbox's own "forward returned generator" was quoted as Python's words, with nothing on the ``yield``;
  "expected scalar type Float but found Long" and an in-place change of a layer's weight: PyTorch's English alone."""

from __future__ import annotations

import pytest

from grading import load_hints as hints
from grading.i18n import is_msg
from tests.grading.feedback_corpus_round36 import CASES
from tests.web.test_broken_uploads_round34 import BASE


def _src(name: str) -> str:
    return CASES[name].decode("utf-8-sig")


def _line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def _both(note) -> dict:
    assert is_msg(note), note
    assert any("\u4e00" <= c <= "\u9fff" for c in note["zh"]) and "; " not in note["en"]
    return note


class _Raised(Exception):
    def __init__(self, kind: str, message: str, lineno: int | None):
        super().__init__(message)
        self.kind, self.message, self.lineno = kind, message, lineno


# ------------------------------------------------------------------ the code's own message
def test_a_message_the_code_raised_itself_is_introduced_in_zh_as_the_codes_own():
    from grading.proxy import ORIGINAL_MESSAGE_ZH, OWN_MESSAGE_ZH, student_error_text

    src = _src("raise_own_value_error")
    line = _line_of(src, "raise ValueError(")
    said = student_error_text("forward", _Raised("ValueError", "q 应该是三维的 [B, N, d]", line), source=src)
    assert f"{OWN_MESSAGE_ZH}q 应该是三维的 [B, N, d]" in said["zh"] and ORIGINAL_MESSAGE_ZH not in said["zh"]
    # an assert with its message, the code's own too; Python's words on another line (or of another kind) are not
    asserted = src.replace("raise ValueError('q 应该是三维的 [B, N, d]')", "assert q.dim() == 3, 'q 应该是三维的'")
    said = student_error_text("forward", _Raised("AssertionError", "q 应该是三维的", line), source=asserted)
    assert f"{OWN_MESSAGE_ZH}q 应该是三维的" in said["zh"]
    said = student_error_text("forward", _Raised("TypeError", "bad operand", line), source=src)
    assert ORIGINAL_MESSAGE_ZH in said["zh"]
    said = student_error_text("forward", _Raised("ValueError", "too many values", line - 2), source=src)
    assert ORIGINAL_MESSAGE_ZH in said["zh"]


def test_a_message_the_file_raised_at_import_is_introduced_in_zh_as_the_codes_own():
    from grading.proxy import OWN_MESSAGE_ZH, load_error_text
    from grading.sandbox import StudentError

    src = "import torch\nraise RuntimeError('先运行 setup.py')\n"
    said = load_error_text(StudentError("RuntimeError", "先运行 setup.py", 2), source=src)
    assert f"第 2 行出现 RuntimeError，{OWN_MESSAGE_ZH}先运行 setup.py" in said["zh"], said


# ------------------------------------------------------------------ this.x
def _this_init(source: str) -> str:
    head, rest = source.split("    def __init__(self, d_model, num_heads, head_dim=None):", 1)
    init, tail = rest.split("    def _split", 1)
    return head + "    def __init__(this, d_model, num_heads, head_dim=None):" + init.replace("self.", "this.") \
        + "    def _split" + tail


def test_attributes_assigned_through_a_first_parameter_not_named_self_are_counted():
    src = _this_init(BASE)
    late = src.replace("        this.head_dim = head_dim if head_dim is not None else d_model // num_heads\n"
                       "        inner = num_heads * this.head_dim\n",
                       "        inner = num_heads * this.head_dim\n"
                       "        this.head_dim = head_dim if head_dim is not None else d_model // num_heads\n")
    line = _line_of(late, "inner = num_heads * this.head_dim")
    note = _both(hints.attribute_note(late, line, "'MultiHeadAttention' object has no attribute 'head_dim'"))
    assert f"line {line} reads this.head_dim before line {line + 1} assigns it" in note["en"]
    assert f"第 {line} 行读取 this.head_dim 时，第 {line + 1} 行还没有给它赋值" in note["zh"]
    typo = src.replace("this.num_heads = num_heads", "this.n_heads = num_heads")
    line = _line_of(typo, "return x.view(B, N, self.num_heads")
    note = _both(hints.attribute_note(typo, line, "'MultiHeadAttention' object has no attribute 'num_heads'"))
    assert "It assigns this.n_heads (line 34), a close name" in note["en"]
    assert "它在第 34 行赋值的是名字相近的 this.n_heads" in note["zh"]


# ------------------------------------------------------------------ nn.Linear of another width
def test_a_linear_layer_given_another_width_is_named_with_its_written_sizes():
    src = _src("out_proj_of_d_model_width")
    line = _line_of(src, "out = self.out_proj(")
    message = "mat1 and mat2 shapes cannot be multiplied (10x16 and 8x8)"
    note = _both(hints.linear_note(src, line, message))
    assert f"line {line} passes out.transpose(1, 2).reshape(B, N, H * D) to self.out_proj, the nn.Linear(d_model, " \
           "d_model) of line 40: that layer takes inputs whose last axis has d_model = 8 features, and the last axis " \
           "of out.transpose(1, 2).reshape(B, N, H * D) has 16" in note["en"]
    assert "这一层要求输入的最后一维有 d_model = 8 个特征" in note["zh"] and "的最后一维是 16" in note["zh"]
    # a written size that disagrees with PyTorch's, another line, a product beside it: nothing said
    assert hints.linear_note(src.replace("nn.Linear(d_model, d_model)", "nn.Linear(4, 8)"), line, message) is None
    assert hints.linear_note(src, line - 1, message) is None
    both = src.replace("out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))",
                       "out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D)) @ torch.eye(8)")
    assert hints.linear_note(both, line, message) is None


def test_the_linear_note_reaches_the_student_through_student_error_text():
    from grading.proxy import student_error_text

    src = _src("out_proj_of_d_model_width")
    line = _line_of(src, "out = self.out_proj(")
    said = student_error_text("forward", _Raised("RuntimeError", "mat1 and mat2 shapes cannot be multiplied "
                                                 "(10x16 and 8x8)", line), source=src)
    assert "the nn.Linear(d_model, d_model) of line 40" in said["en"] and "第 40 行创建的" in said["zh"]


# ------------------------------------------------------------------ a resize inside a library call
def test_a_view_beside_a_library_call_that_may_reshape_is_not_blamed_for_its_sizes():
    from tests.grading.feedback_corpus_round35 import CASES as C35

    src = C35["cross_uses_query_length"].decode()
    line = _line_of(src, "v = self.v_proj(context).view(")
    message = "shape '[2, 5, 4, 4]' is invalid for input of size 224"
    assert hints.shape_note(src, line, message) is not None       # nn.Linear beside it: the view's sizes
    view = "self.v_proj(context).view(x.size(0), x.size(1), self.num_heads, self.head_dim).transpose(1, 2)"
    lib = src.replace(view, "F.multi_head_attention_forward(context.view(x.size(0), x.size(1), self.num_heads, "
                            "self.head_dim))")
    assert hints.shape_note(lib, line, message) is None
    layer = src.replace("        self.attn = ScaledDotProductAttention()",
                        "        self.attn = ScaledDotProductAttention()\n"
                        "        self.mha = nn.MultiheadAttention(d_model, num_heads)")
    layer = layer.replace(view, "self.mha(context, context, context.view(x.size(0), x.size(1), self.num_heads, "
                                "self.head_dim))")
    assert hints.shape_note(layer, line + 1, message) is None
    # C++ functions of torch and the file's own methods beside it raise at their own place: the view is named
    plain = src.replace(view, "F.softmax(torch.sqrt(context).view(x.size(0), x.size(1), self.num_heads, "
                              "self.head_dim), dim=-1)")
    assert hints.shape_note(plain, line, message) is not None
    own = src.replace(view, "self._split(context.view(x.size(0), x.size(1), self.num_heads, self.head_dim))")
    assert hints.shape_note(own, line, message) is not None


# ------------------------------------------------------------------ coding declarations
@pytest.mark.parametrize(("data", "code", "line"), [
    ("# -*- coding: gbk -*-\n# 注意力\nx = '查询'\n".encode(), "code_cookie_mismatch", 1),
    ("#!/usr/bin/env python\n# coding: ascii\n# é\n".encode(), "code_cookie_mismatch", 2),
    (b"# coding: utf8mb4\nx = 1\n", "code_bad_cookie", 1),
    (b"\xef\xbb\xbf# coding: gbk\nx = 1\n", "code_bad_cookie", 1),
])
def test_a_coding_declaration_python_refuses_is_refused_as_python_refuses_it(data, code, line):
    from grading.inputs import InputError, validate_code

    with pytest.raises(SyntaxError):
        compile(data, "attention.py", "exec")
    with pytest.raises(InputError) as refused:
        validate_code("attention.py", data)
    err = refused.value
    assert err.code == code
    assert f"line {line}" in err.en and f"第 {line} 行" in err.zh, (err.en, err.zh)
    assert "the grader does the same" in err.en and "评分系统也一样" in err.zh


@pytest.mark.parametrize("data", [
    "# coding: latin-1\nx = 'é'\n".encode(),          # Python reads UTF-8 bytes as Latin-1: so does the grader
    "# -*- coding: gbk -*-\nx = '查询'\n".encode("gbk"),
    b"# coding: gbk\nx = 1\n",
    "# -*- coding: utf-8 -*-\nx = '查询'\n".encode(),
])
def test_a_coding_declaration_python_accepts_is_read_as_python_reads_it(data):
    from grading.inputs import validate_code

    seen = {}
    exec(compile(data, "attention.py", "exec"), seen)
    text = validate_code("attention.py", data)
    assert f"x = {seen['x']!r}" in text.replace('"', "'")


def _message(err) -> tuple[str, str]:
    return err.en, err.zh


def test_a_web_page_uploaded_as_the_code_is_refused_as_html():
    from grading.inputs import InputError, validate_code

    with pytest.raises(InputError) as refused:
        validate_code("attention.py", CASES["html_saved_page"])
    en, zh = _message(refused.value)
    assert refused.value.code == "code_is_html" and "This is a web page (HTML" in en and "这是网页（HTML" in zh
    # a Python file with a comparison, or an HTML string inside it, is code
    assert validate_code("attention.py", b"x = 1 < 2\nPAGE = '<html></html>'\n")


# ------------------------------------------------------------------ syntax errors said in both languages
SYNTAX_WORDS = {
    "walrus_as_statement": ("assigns with `:=` as a statement of its own", "把 `:=` 单独当作一条语句来赋值"),
    "walrus_on_attribute": ("uses `:=` on an attribute or an item", "对属性或元素使用了 `:=`"),
    "match_without_colon": ("starts a block with `match` but does not end with ':'", "以 `match` 开始一个代码块"),
    "case_outside_match": ("begins with `case`, but no `match ...:` line above holds it", "以 `case` 开头"),
    "keyword_as_name": ("uses `lambda` as a variable name", "把 `lambda` 当作变量名"),
    "elif_after_else": ("has an `elif` after the `else` of line 50", "写在了第 50 行的 `else` 之后"),
    "missing_comma_in_call": ("has two values side by side with nothing between them", "有两个值挨在一起"),
    "assign_to_call": ("has a function call on the left of '='", "“=”的左边是函数调用"),
    "default_before_plain_parameter": ("lists a parameter without a default value after one with a default",
                                       "没有默认值的参数写在了有默认值的参数"),
}


def _compiled(name: str) -> SyntaxError:
    with pytest.raises(SyntaxError) as raised:
        compile(CASES[name], "attention.py", "exec", dont_inherit=True)
    return raised.value


@pytest.mark.parametrize("name", sorted(SYNTAX_WORDS))
def test_pythons_english_only_syntax_words_get_a_hint_in_both_languages(name):
    err = _compiled(name)
    note = _both(hints.load_hint(_src(name), type(err).__name__, err.lineno, err.msg))
    en, zh = SYNTAX_WORDS[name]
    assert note["en"].startswith(f"line {err.lineno} ") and en in note["en"], note["en"]
    assert note["zh"].startswith(f"第 {err.lineno} 行") and zh in note["zh"], note["zh"]


def test_the_syntax_hints_say_nothing_where_the_line_does_not_show_their_cause():
    # `:=` in a condition, a keyword used well, an elif after an if, a case inside a match: no hint of these
    for source, line in (("if (n := 3) > 2:\n    pass\nx y\n", 3), ("x = lambda: 0\nx y\n", 2),
                         ("if a:\n    pass\nelif b:\n    x y\n", 4),
                         ("match a:\n    case 1:\n        x y\n", 3)):
        err = pytest.raises(SyntaxError, compile, source, "a.py", "exec").value
        assert err.lineno == line
        assert hints.load_hint(source, "SyntaxError", err.lineno, err.msg) is None, source


# ------------------------------------------------------------------ run-time notes
def test_a_forward_with_yield_is_named_and_the_sandboxs_words_are_not_quoted_as_pythons():
    from grading.proxy import ORIGINAL_MESSAGE_ZH, student_error_text

    src = _src("yield_in_forward")
    line = _line_of(src, "yield out")
    said = student_error_text("ScaledDotProductAttention.forward", _Raised(
        "TypeError", "forward returned generator, expected a Tensor or an array", None), source=src)
    assert f"line {line} in forward (line 16) is a `yield`, which makes forward a generator function" in said["en"]
    assert "forward 返回了 `generator` 类型的值，而应返回 Tensor 或数组" in said["zh"] and ORIGINAL_MESSAGE_ZH not in said["zh"]
    assert f"forward（第 16 行）中第 {line} 行是 `yield`" in said["zh"]
    assert hints.generator_note(BASE, None, "forward returned generator, expected a Tensor or an array") is None


def test_an_integer_tensor_in_a_float_product_is_named_with_both_dtypes():
    src = _src("long_value_matmul")
    line = _line_of(src, "v.long()")
    note = _both(hints.dtype_note(src, line, "expected scalar type Float but found Long"))
    assert f"line {line} combines a float32 tensor with an int64 one (PyTorch's Float and Long)" in note["en"]
    assert "把 float32 的 tensor 与 int64 的 tensor 放在一起运算" in note["zh"]


def test_an_in_place_change_of_a_layers_weight_is_named_with_the_way_out():
    src = _src("inplace_on_layer_weight")
    line = _line_of(src, "self.q_proj.weight.mul_(1.0)")
    note = _both(hints.inplace_note(src, line, "a leaf Variable that requires grad is being used in an in-place "
                                               "operation."))
    assert f"line {line} changes self.q_proj.weight in place, a tensor the module holds that requires grad" \
           in note["en"] and "with torch.no_grad():" in note["en"]
    assert f"第 {line} 行原地（in-place）修改了 self.q_proj.weight" in note["zh"]


@pytest.mark.parametrize(("name", "message", "en", "zh"), [
    ("bool_mask_subtracted", "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
     "to invert a mask, use the `~` or `logical_not()` operator instead.",
     "computes 1 - (additive_mask == 0) with `-`, and one of its tensors is bool", "用 `-` 计算 `1 - (additive_mask == 0)`"),
    ("float_slice_index", "slice indices must be integers or None or have an __index__ method",
     "slices with N / 1, and `/` always gives a float", "用 `N / 1` 作切片的下标"),
    ("str_plus_int_message", 'can only concatenate str (not "int") to str',
     "joins a string and an int with `+` ('d_k=' + d_k)", "用 `+` 把字符串和 `int` 连在一起"),
])
def test_a_plain_refusal_is_said_with_the_expression_that_caused_it(name, message, en, zh):
    src = _src(name)
    line = {"bool_mask_subtracted": "(1 - (additive_mask == 0))", "float_slice_index": "x[:, :N / 1]",
            "str_plus_int_message": "'d_k=' + d_k"}[name]
    lineno = _line_of(src, line)
    note = _both(hints.plain_refusal_note(src, lineno, message))
    assert note["en"].startswith(f"line {lineno} {en}") and note["zh"].startswith(f"第 {lineno} 行{zh}"), note
    assert hints.plain_refusal_note(src, lineno - 1, message) is None      # the line shows nothing of it


def test_a_linear_mismatch_failing_with_other_sizes_in_every_test_is_explained_in_every_test():
    src = _src("out_proj_of_d_model_width")
    line = _line_of(src, "out = self.out_proj(")
    for n in range(2, 2 + 3 * hints.MAX_ANALYSES):
        assert hints.linear_note(src, line, f"mat1 and mat2 shapes cannot be multiplied ({n}x16 and 8x8)") is not None, n


def test_methods_that_call_each_other_in_a_circle_are_named_with_each_call():
    src = _src("mutual_recursion")
    split, merge = _line_of(src, "return self._merge(x)"), _line_of(src, "return self._split(x)")
    note = _both(hints.runtime_file_note(src, split, "maximum recursion depth exceeded while calling a Python object"))
    assert f"MultiHeadAttention._split calls MultiHeadAttention._merge (line {split}), which calls " \
           f"MultiHeadAttention._split (line {merge})" in note["en"]
    assert f"MultiHeadAttention._split 调用 MultiHeadAttention._merge（第 {split} 行），它又调用 " \
           f"MultiHeadAttention._split（第 {merge} 行）" in note["zh"]
    # no circle of the class's methods (the correct file, or another error): nothing said
    assert hints.runtime_file_note(BASE, _line_of(BASE, "return x.view("), "maximum recursion depth exceeded") is None
    assert hints.runtime_file_note(src, split, "index out of range") is None


def test_an_integer_tensor_where_no_product_is_gets_no_dtype_advice():
    """An op that needs an integer tensor (indices, targets) refuses a float one with the same words: keeping q's
    dtype is no remedy there, so the note is given only on a line that multiplies."""
    src = _src("long_value_matmul")
    line = _line_of(src, "weights = F.softmax(scores, dim=-1)")
    assert hints.dtype_note(src, line, "expected scalar type Long but found Float") is None
    assert hints.dtype_note(src, line, "expected scalar type Float but found Double") is not None   # floats: as before


def test_bytes_that_are_not_utf8_and_declare_nothing_are_refused_as_not_utf8_not_as_a_declaration():
    from grading.inputs import InputError, validate_code

    with pytest.raises(InputError) as refused:
        validate_code("attention.py", "# 注意力机制\nx = 1\n".encode("gbk"))
    assert refused.value.code == "code_not_utf8"
