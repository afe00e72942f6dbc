"""Round 36 mend M2: feedback notes that named a cause the code did not show (a Linear blamed for another module's
error, a `case` note on a variable named case, `:=` advice where `=` is no better, a `/` inside int(...), the wrong
`+` quoted, Python's or PyTorch's words called the code's own), and names quoted uncapped."""
from __future__ import annotations

import pytest

from grading import load_hints as hints
from tests.grading.test_feedback_round36 import _both, _line_of, _src

MAT = "mat1 and mat2 shapes cannot be multiplied (10x16 and 8x8)"
OUT_LINE = "        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))\n"


def _hint(source: str):
    try:
        compile(source, "attention.py", "exec", dont_inherit=True)
    except SyntaxError as err:
        return hints.load_hint(source, type(err).__name__, err.lineno, err.msg)
    raise AssertionError("compiles")


# ------------------------------------------------------------------ 1. nn.Linear beside another module
@pytest.mark.parametrize("inner", ["self.ffn(out.transpose(1, 2).reshape(B, N, H * D))",
                                   "self.blocks[0](out.transpose(1, 2).reshape(B, N, H * D))",
                                   "ffn(out.transpose(1, 2).reshape(B, N, H * D))"])
def test_the_linear_note_says_nothing_when_another_module_on_the_line_may_have_raised(inner):
    src = _src("out_proj_of_d_model_width").replace(
        "        self.attn = ScaledDotProductAttention()\n",
        "        self.attn = ScaledDotProductAttention()\n        self.ffn = nn.Sequential(nn.Linear(3, 5))\n"
        "        self.blocks = nn.ModuleList([nn.Linear(3, 5)])\n")
    assert OUT_LINE in src
    src = src.replace(OUT_LINE, f"        out = self.out_proj({inner})\n")
    line = _line_of(src, "out = self.out_proj(")
    assert hints.linear_note(src, line, MAT) is None


def test_the_linear_note_still_names_the_layer_beside_a_method_of_the_class():
    src = _src("out_proj_of_d_model_width").replace(
        OUT_LINE, "        out = self.out_proj(self._split(out).reshape(B, N, H * D))\n")
    line = _line_of(src, "out = self.out_proj(")
    assert "to self.out_proj, the nn.Linear(d_model, d_model)" in _both(hints.linear_note(src, line, MAT))["en"]


# ------------------------------------------------------------------ 2, 3. case and match
@pytest.mark.parametrize("source", ["case = torch.randn(2 5 16)\n", "case.x = f(1 2)\n", "case, y = f(1 2), 3\n",
                                    "case += f(1 2)\n"])
def test_a_variable_named_case_gets_the_forgot_a_comma_hint_not_the_case_one(source):
    note = _both(_hint(source))
    assert "`case`" not in note["en"] and "two values side by side" in note["en"], note["en"]


def test_a_case_outside_a_match_is_still_told():
    assert "begins with `case`" in _both(_hint("x = 1\ncase 1:\n    pass\n"))["en"]


def test_a_match_line_with_a_trailing_comment_holds_its_case_lines():
    note = _hint("match x:  # 维度\n    case 1 2:\n        pass\n")
    assert note is None or "no `match ...:` line above" not in note["en"], note


# ------------------------------------------------------------------ 4. := advice only where = is valid
@pytest.mark.parametrize("source", ["for i := 0; i < 3; i++:\n    pass\n", "def f(out):\n    return out := out * 1\n",
                                    "while n := 0\n"])
def test_walrus_advice_is_given_only_where_writing_equals_makes_the_line_valid(source):
    note = _hint(source)
    assert note is None or ":=" not in note["en"], note


def test_a_walrus_statement_is_still_told_to_write_equals():
    assert "assigns with `:=` as a statement of its own" in _both(_hint("x := 5\n"))["en"]


# ------------------------------------------------------------------ 5, 6, 9. plain refusals
SLICE = "slice indices must be integers or None or have an __index__ method"


def test_a_division_inside_int_in_a_slice_is_not_called_a_float_bound():
    assert hints.plain_refusal_note("y = x[:, :int(N / 2)]\n", 1, SLICE) is None
    assert hints.plain_refusal_note("y = x[:, :lens[N / 2]]\n", 1, SLICE) is None
    note = _both(hints.plain_refusal_note("y = x[:, :int(N / 2) + N / 4]\n", 1, SLICE))
    assert "slices with N / 4" in note["en"] and "N / 2" not in note["en"]


CONCAT = 'can only concatenate str (not "int") to str'


def test_the_str_plus_number_note_quotes_the_plus_whose_left_is_a_string_and_right_is_not():
    note = _both(hints.plain_refusal_note("s = 'd_k=' + str(d_k) + d_k\n", 1, CONCAT))
    assert "('d_k=' + str(d_k) + d_k)" in note["en"], note["en"]
    assert hints.plain_refusal_note("s = tag + d_k if d_k else 'none' + ''\n", 1, CONCAT) is None


def test_a_bool_minus_beside_torch_sub_names_no_expression():
    message = "Subtraction, the `-` operator, with a bool tensor is not supported."
    src = "y = torch.sub(scores, additive_mask == 0) * (d_k - 1)\n"
    assert hints.plain_refusal_note(src, 1, message) is None
    assert "computes mask - 1" in _both(hints.plain_refusal_note("y = mask - 1\n", 1, message))["en"]


def test_a_function_call_as_a_for_loop_variable_is_not_said_to_be_left_of_equals():
    note = _both(_hint("for q.size(i) in range(3):\n    pass\n"))
    assert "'='" not in note["en"] and "“=”" not in note["zh"]
    assert "loop variable of `for ... in`" in note["en"] and "循环变量" in note["zh"]


# ------------------------------------------------------------------ 7. the code's own message
@pytest.mark.parametrize(("source", "kind", "message", "line"), [
    ("import torch\ntry:\n    torch.ones(2) @ torch.ones(3)\nexcept RuntimeError as e:\n    raise RuntimeError(str(e))\n",
     "RuntimeError", "inconsistent tensor size", 5),
    ("raise ValueError(f'{int(\"x\")}')\n", "ValueError", "invalid literal for int() with base 10: 'x'", 1),
    ("raise ValueError('%d' % float('nan'))\n", "ValueError", "cannot convert float NaN to integer", 1),
    ("raise ValueError('{}'.format(int('x')))\n", "ValueError", "invalid literal for int() with base 10: 'x'", 1),
])
def test_pythons_or_pytorchs_words_raised_through_a_raise_are_not_called_the_codes_own(source, kind, message, line):
    from grading.proxy import OWN_MESSAGE_ZH, load_error_text
    from grading.sandbox import StudentError

    assert not hints.own_message(source, line, kind)
    said = load_error_text(StudentError(kind, message, line), source=source)
    assert OWN_MESSAGE_ZH not in said["zh"], said["zh"]


@pytest.mark.parametrize("arg", ["'先运行 setup.py'", "f'd_model {d_model} 不能被 {h} 整除'", "'%d 头' % h",
                                 "'{} 头'.format(h)"])
def test_text_written_in_the_raise_is_still_the_codes_own(arg):
    assert hints.own_message(f"h = d_model = 3\nraise ValueError({arg})\n", 2, "ValueError")


# ------------------------------------------------------------------ 8. long names capped
def test_a_long_first_parameter_name_is_capped_in_the_attribute_and_linear_notes():
    long = "t" * 900     # a line of two such names stays within the lines hints read (2000 characters)
    src = _src("out_proj_of_d_model_width")
    body = src[src.index("class MultiHeadAttention"):]
    renamed = src.replace(body, body.replace("(self, ", f"({long}, ").replace("self.", f"{long}."))
    line = _line_of(renamed, f"out = {long}.out_proj(")
    note = _both(hints.linear_note(renamed, line, MAT))
    assert len(note["en"]) < 700 and len(note["zh"]) < 700, len(note["en"])
    line = _line_of(renamed, "return x.view(")
    note = _both(hints.attribute_note(renamed.replace(f"{long}.num_heads = num_heads", f"{long}.n_heads = num_heads"),
                                      line, "'MultiHeadAttention' object has no attribute 'num_heads'"))
    assert len(note["en"]) < 400 and len(note["zh"]) < 400, len(note["en"])


# ------------------------------------------------------------------ in-place change of a tensor the module holds
def test_an_in_place_change_of_a_module_tensor_says_it_requires_grad_and_never_calls_it_a_trained_parameter():
    """PyTorch's words prove only that the tensor requires grad: a buffer or a plain tensor attribute made with
    ``requires_grad=True`` is no parameter autograd trains (review R3's `self.cache[0] = x.sum()`)."""
    from tests.web.test_broken_uploads_round34 import sub
    src = sub("        q = self._split(self.q_proj(x))", "        self.cache[0] = x.sum()\n        q = self._split(self.q_proj(x))")
    line = next(n for n, text in enumerate(src.splitlines(), 1) if "self.cache[0]" in text)
    note = hints.inplace_note(src, line, "a leaf Variable that requires grad is being used in an in-place operation.")
    assert note is not None and "self.cache" in note["en"] and "self.cache" in note["zh"]
    assert "requires grad" in note["en"] and "需要梯度" in note["zh"]
    assert "parameter" not in note["en"] and "参数" not in note["zh"]
