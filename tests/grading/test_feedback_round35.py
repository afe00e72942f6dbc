"""Round 35, feedback a student can act on: the files of tests/grading/feedback_corpus_round35.py (runtime errors
inside forward and import-time problems round 34's corpus did not try), graded, and read in zh and en.

Found, each said now in both languages with the line it is about:
- an AttributeError a class's own __init__ raised ("'MultiHeadAttention' object has no attribute 'd_model'", or
  nn.Module's words for a ScaledDotProductAttention whose __init__ never called super().__init__()) was told
  "attention.py does not define" the class the file defines;
- ``return [out]`` was "it returned a tuple (Tensor)", a NumPy array "a ndarray", and the Chinese read "实际返回了 元组";
- a forward that returns nothing (or prints its result) was "it returned None" and nothing on why;
- super().__init__(self) and an __init__ that returns self were summed up as "the grader builds
  ScaledDotProductAttention() (no arguments)...", which reads as the signature's fault; super(C).__init__() without
  self, a method without self, self.x read but never assigned, additive_mask made keyword-only and passed by position,
  torch.sqrt(int), F.softmax(axis=), x.max(dim=) used as a tensor, torch.bmm on 4-D tensors, masked_fill with a float
  mask, an __getattr__ that calls itself, xrange: Python's or PyTorch's English alone;
- at import: from __future__ after code, √ and ² in code, Python 2's ``except E, e:`` and ``raise E, "text"``, a return
  indented out of forward, and a forward indented into __init__: Python's English alone;
- a `raise NotImplementedError` left in forward and the file's own assert read like the grader's complaint;
- a .view of the wrong sizes and a matrix product whose operands do not fit were PyTorch's numbers alone: now with each
  written size beside its value, and the product's two operands as written."""

from __future__ import annotations

import pytest

from grading import load_hints as hints
from grading.i18n import is_msg
from tests.grading.feedback_corpus_round35 import CASES
from tests.web.test_broken_uploads_round34 import BASE


def _src(name: str) -> str:
    return CASES[name].decode("utf-8-sig")


def _line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def _both(note) -> dict:
    assert is_msg(note), note
    assert any("\u4e00" <= c <= "\u9fff" for c in note["zh"]) and "; " not in note["en"]
    return note


def syntax_error_of(source: str) -> tuple[str | None, int | None, str]:
    """What the sandbox reports for a source Python does not compile (compile(), not ast.parse: a from __future__
    import below other code parses): (kind, line, Python's msg); (None, None, "") when it compiles."""
    try:
        compile(source, "attention.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return type(exc).__name__, exc.lineno, exc.msg
    return None, None, ""


def _graded(executor, name: str) -> dict:
    from grading.runner import GradeInput, grade

    result = grade(GradeInput(code=CASES[name]), "attention", executor)
    assert result["status"] == "graded", result.get("message")
    return result


def _failed(result: dict) -> list[dict]:
    return [t["feedback"] for t in result["tests"] if t["outcome"] == "failed" and is_msg(t.get("feedback"))]


# ------------------------------------------------------------------ an AttributeError of the class's own code
@pytest.mark.parametrize("name", ["sdpa_no_super_init", "self_attr_before_set"])
def test_an_attribute_error_raised_in_a_defined_class_is_not_said_to_be_a_missing_class(executor, name):
    said = _failed(_graded(executor, name))
    assert said
    for fb in said:
        assert "does not define" not in fb["en"] and "没有定义" not in fb["zh"], fb
    assert any("object has no attribute" in fb["en"] for fb in said)


def test_a_class_the_file_lacks_is_still_said_to_be_missing(executor):
    from grading.runner import GradeInput, grade

    code = BASE.replace("class MultiHeadAttention(nn.Module):", "class MultiHeadAttn(nn.Module):").encode()
    said = _failed(grade(GradeInput(code=code), "attention", executor))
    assert any("attention.py does not define MultiHeadAttention" in fb["en"]
               and "attention.py 没有定义 MultiHeadAttention" in fb["zh"] for fb in said)


def test_an_attribute_read_before_it_is_assigned_or_never_assigned_is_named():
    src = _src("self_attr_before_set")
    line = _line_of(src, "inner = self.d_model")
    note = _both(hints.attribute_note(src, line, "'MultiHeadAttention' object has no attribute 'd_model'"))
    assert f"line {line} reads self.d_model, which no method of MultiHeadAttention assigns: d_model is a parameter " \
           "of __init__, use it as `d_model`" in note["en"]
    assert f"第 {line} 行读取了 self.d_model，但 MultiHeadAttention 的任何方法都没有给它赋值" in note["zh"]
    head_dim = "        self.head_dim = head_dim if head_dim is not None else d_model // num_heads\n"
    inner = "        inner = num_heads * self.head_dim\n"
    late = BASE.replace(head_dim + inner, inner + head_dim)
    used = _line_of(late, inner.strip())
    note = _both(hints.attribute_note(late, used, "'MultiHeadAttention' object has no attribute 'head_dim'"))
    assert f"line {used} reads self.head_dim before line {used + 1} assigns it" in note["en"]
    buffered = src.replace("        inner = self.d_model", "        self.register_buffer('d_model', None)\n"
                           "        inner = self.d_model")
    assert hints.attribute_note(buffered, line + 1, "'MultiHeadAttention' object has no attribute 'd_model'") is None
    # an attribute the class assigns before the line, or another class's: nothing said
    assert hints.attribute_note(BASE, used, "'MultiHeadAttention' object has no attribute 'head_dim'") is None
    assert hints.attribute_note(src, line, "'Linear' object has no attribute 'd_model'") is None


def test_a_method_without_self_is_named_where_the_module_is_read_as_its_first_argument():
    src = _src("forward_missing_self")
    line = _line_of(src, "d_k = q.size(-1)")
    note = _both(hints.attribute_note(src, line, "'ScaledDotProductAttention' object has no attribute 'size'"))
    assert "ScaledDotProductAttention.forward (line 16) has no self parameter" in note["en"]
    assert "add self before it, `def forward(self, q, ...)`" in note["en"]
    assert "ScaledDotProductAttention.forward（第 16 行）没有 self 参数" in note["zh"]


# ------------------------------------------------------------------ what forward returned
@pytest.mark.parametrize(("value", "en", "zh"), [
    ([1], "a list [int]", "实际返回了列表 [int]"),
    ((1, 2), "a tuple (int, int)", "实际返回了元组 (int, int)"),
    (None, "it returned None", "实际返回了 None"),
    ("x", "a value of type str", "实际返回了 `str` 类型的值"),
])
def test_what_forward_returned_is_named_as_it_was(value, en, zh):
    from grader_tests.attention.drivers import normalise_result
    from grading.proxy import Feedback

    with pytest.raises(Feedback) as raised:
        normalise_result(value, "ScaledDotProductAttention", False, True)
    assert en in raised.value.message["en"] and zh in raised.value.message["zh"], raised.value.message


def test_a_numpy_array_returned_is_named_with_what_to_return():
    import numpy as np
    import torch

    from grader_tests.attention.drivers import normalise_result
    from grading.proxy import Feedback

    for value, flag in ((np.zeros(2), False), ((np.zeros(2), torch.zeros(2)), True)):
        with pytest.raises(Feedback) as raised:
            normalise_result(value, "ScaledDotProductAttention", flag, True)
        said = raised.value.message
        assert "a NumPy array (numpy.ndarray) is not a torch.Tensor, return the tensor itself" in said["en"]
        assert "NumPy 数组（numpy.ndarray）不是 torch.Tensor，请直接返回 tensor 本身" in said["zh"]


def test_a_forward_without_return_or_with_a_path_that_falls_off_its_end_is_named():
    note = _both(hints.no_return_note(_src("mha_forgets_return"), "MultiHeadAttention"))
    assert "MultiHeadAttention.forward (line 47) has no return statement" in note["en"]
    assert "MultiHeadAttention.forward（第 47 行）中没有 `return` 语句" in note["zh"]
    printed = _src("print_instead_of_return")
    note = _both(hints.no_return_note(printed, "ScaledDotProductAttention"))
    assert f"Line {_line_of(printed, 'print(out)')} prints a value, and print only shows it" in note["en"]
    half = _src("mha_forgets_return").replace("        self.weights = weights\n",
                                              "        if return_weights:\n            return out, weights\n")
    note = _both(hints.no_return_note(half, "MultiHeadAttention"))
    assert f"can reach its end (line {len(half.splitlines())}) without a return" in note["en"]
    # every path returns (the None came from elsewhere), or a loop the source does not settle: nothing said
    assert hints.no_return_note(BASE, "MultiHeadAttention") is None
    looped = BASE.replace("        if return_weights:\n            return out, weights\n        return out\n",
                          "        for _ in range(1):\n            return out\n", 1)
    assert hints.no_return_note(looped, "ScaledDotProductAttention") is None


def test_a_forward_returning_none_in_the_real_jail_says_where(executor):
    said = _failed(_graded(executor, "print_instead_of_return"))
    assert any("it returned None" in fb["en"] and "has no return statement" in fb["en"]
               and "中没有 `return` 语句" in fb["zh"] for fb in said)


# ------------------------------------------------------------------ __init__ and super()
def test_super_init_given_self_is_explained_and_not_summed_up_as_the_signature(executor):
    src = _src("super_init_given_self")
    note = _both(hints.call_shape_note(src, 14, "ScaledDotProductAttention.__init__() takes 1 positional argument but 2 "
                                          "were given"))
    assert "line 14 passes arguments to nn.Module's __init__ (super().__init__(self)), which takes none" in note["en"]
    assert "第 14 行给 nn.Module 的 __init__ 传了参数（super().__init__(self)）" in note["zh"]
    # the student's own __init__ refusing the grader's arguments (no line of the file) is not this
    assert hints.call_shape_note(src, None, "ScaledDotProductAttention.__init__() takes 1 positional argument but 2 "
                                      "were given") is None
    result = _graded(executor, "super_init_given_self")
    assert "the grader builds" not in (result.get("message") or {}).get("en", "")


def test_an_init_that_returns_a_value_is_named_with_its_line(executor):
    src = _src("init_returns_self")
    note = _both(hints.call_shape_note(src, None, "__init__() should return None, not 'MultiHeadAttention'"))
    assert f"MultiHeadAttention.__init__ returns a value at line {_line_of(src, 'return self')}" in note["en"]
    result = _graded(executor, "init_returns_self")
    assert "the grader builds" not in (result.get("message") or {}).get("en", "")
    assert any("returns a value at line" in fb["en"] for fb in _failed(result))


def test_a_signature_error_still_gets_the_constructor_summary(executor):
    from grading.runner import GradeInput, grade

    code = BASE.replace("def __init__(self, d_model, num_heads, head_dim=None):",
                        "def __init__(self, d_model, num_heads, head_dim, dropout):").encode()
    result = grade(GradeInput(code=code), "attention", executor)
    assert "with the contract's arguments raised TypeError" in result["message"]["en"]


def test_super_with_the_class_and_without_self_is_named():
    src = _src("super_without_self")
    line = _line_of(src, "super(MultiHeadAttention).__init__()")
    note = _both(hints.no_super_init_note(src, line + 4, "cannot assign module before Module.__init__() call"))
    assert f"line {line} calls super(MultiHeadAttention).__init__() without self" in note["en"]
    assert f"第 {line} 行调用 super(MultiHeadAttention).__init__() 时没有传入 self" in note["zh"]
    bound = src.replace("super(MultiHeadAttention).__init__()", "super(MultiHeadAttention, self).__init__()")
    assert hints.no_super_init_note(bound, line + 4, "cannot assign module before Module.__init__() call") is None


def test_a_keyword_only_mask_passed_by_position_names_the_star():
    src = _src("sdpa_mask_keyword_only")
    line = _line_of(src, "self.attn(q, k, v, mask, return_weights=True)")
    note = _both(hints.call_shape_note(src, line, "ScaledDotProductAttention.forward() takes 4 positional arguments but 5 "
                                            "positional arguments (and 1 keyword-only argument) were given"))
    assert "ScaledDotProductAttention.forward (line 16) takes 3 arguments by position (q, k, v) and additive_mask, " \
           f"return_weights only by keyword (they come after *), and line {line} passes 4 arguments by position" \
           in note["en"]
    assert "只能按关键字传入" in note["zh"]
    # a forward without keyword-only parameters: Python's words say it all
    assert hints.call_shape_note(BASE, line, "ScaledDotProductAttention.forward() takes 6 positional arguments but 7 "
                                       "were given") is None


# ------------------------------------------------------------------ PyTorch's words on a call it cannot take
@pytest.mark.parametrize(("name", "text", "message", "en", "zh"), [
    ("torch_sqrt_of_int", "torch.sqrt(d_k)", "sqrt(): argument 'input' (position 1) must be Tensor, not int",
     "gives torch.sqrt a Python int (not a tensor), and torch.sqrt takes only tensors: for a plain number use "
     "math.sqrt(...)", "对普通数字请用 math.sqrt(...)"),
    ("softmax_axis_keyword", "axis=-1", "softmax() got an unexpected keyword argument 'axis'",
     "passes axis=, NumPy's name for it: PyTorch calls it dim=", "PyTorch 中它叫 dim="),
    ("max_namedtuple", "scores.max(dim=-1", "unsupported operand type(s) for -: 'Tensor' and 'torch.return_types.max'",
     ".max(dim=...) returns a pair (values, indices) (torch.return_types.max), not a tensor: take its .values",
     "请取它的 `.values`"),
    ("bmm_on_4d", "torch.bmm(", "batch1 must be a 3D tensor", "calls torch.bmm, which multiplies only 3-D tensors",
     "torch.bmm，它只接受三维 tensor"),
    ("masked_fill_float_mask", "masked_fill(additive_mask", "masked_fill_ only supports boolean masks, but got mask "
     "with dtype float", "gives masked_fill a float mask, and masked_fill takes a bool mask",
     "masked_fill 只接受 `bool` 类型的 mask"),
])
def test_pytorchs_words_on_a_call_are_explained_from_the_line(name, text, message, en, zh):
    src = _src(name)
    line = _line_of(src, text)
    note = _both(hints.torch_call_note(src, line, message))
    assert en in note["en"] and zh in note["zh"], note
    assert f"line {line}" in note["en"] and f"第 {line} 行" in note["zh"]
    # the same words for a line that does not show the call: nothing said
    assert hints.torch_call_note(src, line - 1, message) is None


def test_an_getattr_that_calls_itself_is_named():
    src = _src("getattr_recursion")
    line = _line_of(src, "return getattr(self, name)")
    note = _both(hints.getattr_recursion_note(src, line, "maximum recursion depth exceeded"))
    assert f"line {line} in MultiHeadAttention.__getattr__ reads an attribute of self" in note["en"]
    assert "`return super().__getattr__(name)`" in note["en"] and "nn.Module 已经有一个" in note["zh"]
    assert hints.getattr_recursion_note(src, line - 5, "maximum recursion depth exceeded") is None


def test_a_python2_name_is_named_with_its_python3_name():
    src = _src("py2_xrange")
    line = _line_of(src, "xrange(1)")
    note = _both(hints.name_note(src, line, "name 'xrange' is not defined"))
    assert f"line {line} uses `xrange`, a Python 2 name that Python 3 does not have: use range" in note["en"]


# ------------------------------------------------------------------ sizes that do not fit
def test_a_reshape_of_the_wrong_size_shows_each_written_size_with_its_value():
    src = _src("cross_uses_query_length")
    line = _line_of(src, "v = self.v_proj(context).view(")
    note = _both(hints.shape_note(src, line, "shape '[2, 5, 4, 4]' is invalid for input of size 224"))
    assert f"line {line} gives .view the sizes (`x.size(0)` = 2, `x.size(1)` = 5, `self.num_heads` = 4, " \
           "`self.head_dim` = 4) for a tensor of 224 elements: they multiply to 160, not 224" in note["en"]
    assert "而 tensor 共有 224 个元素：它们相乘得 160，而不是 224" in note["zh"]
    minus = src.replace("x.size(1), self.num_heads", "-1, self.num_heads")
    note = _both(hints.shape_note(minus, line, "shape '[2, -1, 4, 4]' is invalid for input of size 100"))
    assert "the sizes other than -1 multiply to 32, which does not divide 100" in note["en"]
    # the sizes written apart from the call (a shape variable), or no reshape on the line: nothing said
    apart = src.replace("self.v_proj(context).view(x.size(0), x.size(1), self.num_heads, self.head_dim)",
                        "self.v_proj(context).view(*shape)")
    assert hints.shape_note(apart, line, "shape '[2, 5, 4, 4]' is invalid for input of size 224") is None
    assert hints.shape_note(src, line - 1, "shape '[2, 5, 4, 4]' is invalid for input of size 224") is None


def test_a_product_of_sizes_that_do_not_fit_names_its_two_operands():
    src = _src("matmul_v_transposed")
    line = _line_of(src, "out = torch.matmul(weights, v.transpose(-2, -1))")
    message = "Expected size for first two dimensions of batch2 tensor to be: [1, 3] but got: [1, 4]."
    note = _both(hints.shape_note(src, line, message))
    assert f"line {line} multiplies weights by v.transpose(-2, -1): in a matrix product the last axis of the first " \
           "(weights: 3) must have the size of the second-to-last axis of the second (v.transpose(-2, -1): 4)" \
           in note["en"]
    assert "矩阵乘法要求第一个的最后一维（weights：3）等于第二个的倒数第二维（v.transpose(-2, -1)：4）" in note["zh"]
    at = src.replace("torch.matmul(weights, v.transpose(-2, -1))", "weights @ v.transpose(-2, -1)")
    assert "multiplies weights by v.transpose(-2, -1)" in hints.shape_note(at, line, message)["en"]
    two = src.replace("out = torch.matmul(weights, v.transpose(-2, -1))",
                      "out = torch.matmul(weights, v.transpose(-2, -1)) + torch.matmul(weights, v)")
    assert hints.shape_note(two, line, message) is None     # which product raised is not known


def test_a_product_failing_with_other_sizes_in_every_test_is_explained_in_every_test():
    """Each test's sizes differ (15 messages for one line in the corpus file): the note must not stop after the first
    few questions the hints may ask of one source (grading.load_hints.MAX_ANALYSES)."""
    src = _src("matmul_v_transposed")
    line = _line_of(src, "out = torch.matmul(weights, v.transpose(-2, -1))")
    for n in range(2, 2 + 3 * hints.MAX_ANALYSES):
        message = f"Expected size for first two dimensions of batch2 tensor to be: [{n}, 3] but got: [{n}, 4]."
        assert hints.shape_note(src, line, message) is not None, n
    assert hints.no_forward_note(_src("forward_nested_in_init"), None, 'Module [ScaledDotProductAttention] is '
                                 'missing the required "forward" function') is not None


# ------------------------------------------------------------------ the file's own raise or assert
def test_a_placeholder_raise_and_an_own_assert_are_said_to_be_the_files_own():
    stub = _src("not_implemented_stub")
    line = _line_of(stub, "raise NotImplementedError")
    note = _both(hints.own_raise_note(stub, line, ""))
    assert f"line {line} (in ScaledDotProductAttention.forward) is a `raise NotImplementedError` written in the " \
           "file, a placeholder" in note["en"]
    asserted = _src("assert_same_length")
    line = _line_of(asserted, "assert q.shape == k.shape")
    note = _both(hints.own_raise_note(asserted, line, "q 和 k 形状不一致"))
    assert "is an assert written in the file, and its condition (q.shape == k.shape) is false for these inputs" \
        in note["en"]
    assert "它的条件（`q.shape == k.shape`）对这些输入不成立" in note["zh"]
    # another raise (the file's ValueError says what it checks), or a line with no raise: nothing said
    valued = stub.replace("raise NotImplementedError  # TODO", "raise ValueError('q must be 4-D')")
    assert hints.own_raise_note(valued, line, "q must be 4-D") is None
    assert hints.own_raise_note(stub, line + 1, "") is None


# ------------------------------------------------------------------ at import
@pytest.mark.parametrize(("name", "en", "zh"), [
    ("future_after_code", "line 4 imports from __future__ after other code (line 3)", "请把它移到文件开头"),
    ("sqrt_sign_identifier", "has a square root sign √ (U+221A), a math sign that Python does not read: write "
     "math.sqrt(x) (or x ** 0.5) instead.", "请改写为 math.sqrt(x)（或 x ** 0.5）。"),
    ("superscript_identifier", "has a superscript two ² (U+00B2), a math sign that Python does not read: write x ** 2",
     "上标 ²（U+00B2），这是数学符号"),
    ("py2_except_comma", "writes `except Exception, e:`, as Python 2 did: Python 3 writes `except Exception as e:`",
     "Python 3 中应写作 `except Exception as e:`"),
    ("py2_raise_comma", "writes `raise ValueError, ...`, as Python 2 did", "raise ValueError(...)"),
    ("return_outside_function", "line 26's return is indented 4 spaces, as much as `def forward` (line 16), so it is "
     "not inside that function", "第 26 行的 return 缩进了 4 个空格，与 `def forward`（第 16 行）相同"),
])
def test_an_import_time_syntax_error_gets_its_hint(name, en, zh):
    src = _src(name)
    hint = _both(hints.load_hint(src, *syntax_error_of(src)))
    assert en in hint["en"] and zh in hint["zh"], hint
    assert hint["en"].endswith(".") and hint["zh"].endswith("。")


def test_a_future_import_after_the_docstring_only_is_fine_and_none_is_guessed():
    ok = '"""doc."""\n# a comment\nfrom __future__ import annotations\nimport torch\n'
    assert syntax_error_of(ok)[0] is None
    no_def = "x = 1\nif x:\n    return x\n"
    hint = hints.load_hint(no_def, *syntax_error_of(no_def))
    assert hint is None or "indented" not in hint["en"]


def test_a_forward_indented_into_init_is_named():
    src = _src("forward_nested_in_init")
    note = _both(hints.no_forward_note(src, None, 'Module [ScaledDotProductAttention] is missing the required "forward" '
                                            'function'))
    assert "the forward at line 16 is defined inside __init__ (line 13), as a local function of it" in note["en"]
    assert "move it 4 columns to the left" in note["en"] and "整体向左移 4 列" in note["zh"]


# ------------------------------------------------------------------ the corpus, graded
# What each file's reader must be told (a part of a failed test's feedback, or of the load error), per language.
EXPECTED: dict[str, tuple[str, str]] = {
    "matmul_v_transposed": ("ine 23 multiplies weights by v.transpose(-2, -1)", "第 23 行计算 weights 乘以 v.transpose(-2, -1)"),
    "cross_uses_query_length": ("`x.size(1)` = 5", "它们相乘得 160，而不是 224"),
    "class_attribute_heads": ("`self.num_heads` = 4, `self.head_dim` = 16", "它们相乘得 512，而不是 128"),
    "not_implemented_stub": ("is a `raise NotImplementedError` written in the file, a placeholder",
                             "是文件中自己写的 `raise NotImplementedError`"),
    "property_raises": ("line 18 (in ScaledDotProductAttention.scale) is a `raise NotImplementedError`",
                        "第 18 行（在 ScaledDotProductAttention.scale 中）"),
    "assert_same_length": ("its condition (q.shape == k.shape) is false for these inputs",
                           "它的条件（`q.shape == k.shape`）对这些输入不成立"),
    "weights_before_softmax": ("the returned weights are the scaled scores, not the softmax probabilities",
                               "返回的权重是缩放后的 score，而不是 softmax 概率"),
    "mask_inverted_nan": ("the mask acts inverted", "mask 的作用反了"),
    "k_dot_T_4d": ("multiplies by k.T, which reverses the order of all the axes", "它会反转所有维度的顺序"),
    "view_non_contiguous": ("use .reshape(...) on line 62", "请在第 62 行改用 .reshape(...)"),
    "true_division_head_dim": ("compute head_dim with '//' (integer division)", "请用“//”（整除）计算 head_dim"),
    "masked_fill_float_mask": ("line 21 gives masked_fill a float mask", "第 21 行给 masked_fill 传入了 float 类型的 mask"),
    "inplace_on_input": ("line 18 changes q in place", "第 18 行原地（in-place）修改了 q"),
    "returns_list": ("it returned a list [Tensor]", "实际返回了列表 [Tensor]"),
    "returns_numpy": ("a NumPy array (numpy.ndarray) is not a torch.Tensor", "NumPy 数组（numpy.ndarray）不是 torch.Tensor"),
    "float64_scale_tensor": ("the file writes float64 at line 19", "而文件在第 19 行（torch.float64）写出了 float64"),
    "mha_forgets_return": ("MultiHeadAttention.forward (line 47) has no return statement",
                           "MultiHeadAttention.forward（第 47 行）中没有 `return` 语句"),
    "print_instead_of_return": ("Line 24 prints a value, and print only shows it", "第 24 行只是用 print 打印了结果"),
    "getattr_recursion": ("line 44 in MultiHeadAttention.__getattr__ reads an attribute of self",
                          "第 44 行在 MultiHeadAttention.__getattr__ 中读取了 self 的属性"),
    "sdpa_foward_typo": ("rename `foward` to forward", "请把 `foward` 改名为 forward"),
    "sdpa_no_super_init": ("ScaledDotProductAttention.__init__ (line 13) never calls super().__init__()",
                           "ScaledDotProductAttention.__init__（第 13 行）没有调用 super().__init__()"),
    "init_args_swapped": ("takes num_heads before d_model", "把 num_heads 放在 d_model 前面"),
    "sdpa_mask_keyword_only": ("only by keyword (they come after *), and line 60 passes 4 arguments by position",
                               "第 60 行却按位置传了 4 个参数"),
    "forward_missing_self": ("ScaledDotProductAttention.forward (line 16) has no self parameter",
                             "ScaledDotProductAttention.forward（第 16 行）没有 self 参数"),
    "super_without_self": ("line 33 calls super(MultiHeadAttention).__init__() without self",
                           "第 33 行调用 super(MultiHeadAttention).__init__() 时没有传入 self"),
    "super_init_given_self": ("line 14 passes arguments to nn.Module's __init__", "第 14 行给 nn.Module 的 __init__ 传了参数"),
    "init_returns_self": ("MultiHeadAttention.__init__ returns a value at line 42",
                          "MultiHeadAttention.__init__ 在第 42 行返回了一个值"),
    "torch_sqrt_of_int": ("line 19 gives torch.sqrt a Python int", "第 19 行给 torch.sqrt 传入的是 Python 的 `int`"),
    "softmax_axis_keyword": ("PyTorch calls it dim=", "PyTorch 中它叫 dim="),
    "max_namedtuple": ("take its .values", "请取它的 `.values`"),
    "bmm_on_4d": ("line 19 calls torch.bmm, which multiplies only 3-D tensors", "第 19 行调用了 torch.bmm"),
    "self_attr_before_set": ("line 36 reads self.d_model, which no method of MultiHeadAttention assigns",
                             "第 36 行读取了 self.d_model"),
    "no_grad_forward": ("line 16: torch.no_grad()", "第 16 行：torch.no_grad()"),
    "future_after_code": ("imports from __future__ after other code (line 3)", "出现在其他代码（第 3 行）之后"),
    "sqrt_sign_identifier": ("a math sign that Python does not read: write math.sqrt(x)", "请改写为 math.sqrt(x)"),
    "superscript_identifier": ("write x ** 2 instead", "请改写为 x ** 2"),
    "py2_except_comma": ("Python 3 writes `except Exception as e:`", "`except Exception as e:`"),
    "py2_raise_comma": ("Python 3 puts the message in parentheses", "Python 3 要把消息放在括号里"),
    "py2_xrange": ("a Python 2 name that Python 3 does not have: use range", "请改用 `range`"),
    "return_outside_function": ("so it is not inside that function", "所以它不在这个函数里面"),
    "forward_dedented_to_module": ("is defined at the top level of the file, outside class ScaledDotProductAttention",
                                   "定义在文件的最外层"),
    "forward_nested_in_init": ("is defined inside __init__ (line 13), as a local function of it",
                               "定义在 __init__（第 13 行）里面，是它的局部函数"),
}
# Correct code however it is written down: full marks, nothing to tell.
LOADS = {"ipython_export", "mha_mask_renamed"}
# Round 36: a coding declaration Python refuses is refused (it loaded in the grader, where Python refuses the file).
EXPECTED.update({
    "coding_gbk_on_utf8": ("is saved as UTF-8, but line 1 declares the encoding 'gbk'", "但第 1 行声明的编码是 `gbk`"),
    "coding_unknown": ("declares on line 1 the encoding 'utf8mb4', which Python does not know",
                       "在第 1 行声明的编码 `utf8mb4` 是 Python 不认识的"),
    "bom_with_coding_gbk": ("begins with a UTF-8 BOM (byte order mark) but line 1 declares the encoding 'gbk'",
                            "但第 1 行声明的编码是 `gbk`"),
})


def test_the_corpus_has_40_new_files_each_with_its_words():
    assert len(CASES) >= 40
    assert set(CASES) == set(EXPECTED) | LOADS


@pytest.fixture(scope="module")
def corpus(executor):
    from grading.runner import GradeInput, grade

    return {name: grade(GradeInput(code=code), "attention", executor) for name, code in CASES.items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_corpus_file_is_told_in_both_languages_what_to_fix(corpus, name):
    from tests.grading.helpers import code_names, english_in_zh

    result = corpus[name]
    assert result["status"] == "graded", result.get("message")
    assert not [t["id"] for t in result["tests"] if t["outcome"] == "error"], name   # no grader fault
    if name in LOADS:
        assert result["total"] == 85 and not result.get("load_error"), (name, result["total"])
        return
    said = [m for m in [result.get("load_error"), result.get("message")] + [t.get("feedback") for t in result["tests"]
            if t["outcome"] == "failed" and not t.get("hidden")] if is_msg(m)]
    # a hidden test's feedback is the instructor's (the student reads pass or fail): checked for its words too
    hidden = [t["feedback"] for t in result["tests"] if t["outcome"] == "failed" and t.get("hidden")
              and is_msg(t.get("feedback"))]
    assert said or hidden, name
    code = code_names(CASES[name].decode("utf-8-sig"))
    for m in said:
        assert m["en"] != m["zh"] and "提示" not in m["en"] and "Hint:" not in m["zh"], m
        assert not english_in_zh(m["zh"], code | {"numpy", "ndarray"}), (name, m["zh"])
        assert "does not define" not in m["en"] or name not in EXPECTED, (name, m["en"])
    if name in EXPECTED:
        en, zh = EXPECTED[name]
        assert any(en in m["en"] and zh in m["zh"] for m in said + hidden), (name, [m["en"][:400] for m in said][:3])
