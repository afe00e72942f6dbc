"""Red-team round 18 on hints for faulty code: class names that abbreviate the contract's (``MHA``,
``SDPA``, ``ScaledDotAttention``, ``MultiHeadSelfAttention``, ``Attention`` by its signatures) are named as
the missing class, and unrelated helpers are not; a file whose top-level demo raised is told so once, with the
line, and what it defines instead of the contract classes; then new faulty files of common student mistakes,
each graded, its hints read and pinned (``tests/fixtures/submissions/faulty/`` and ``faulty/unloadable/``)."""

from __future__ import annotations

import pytest

from grader_tests.attention.signature_note import load_note, no_contract_class
from grading.i18n import is_msg
from grading.load_hints import abbreviates, load_hint, missing_name_hint
from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS, english_in_zh, fault_texts, graded_corpus_file, syntax_error_of

BASE = (SUBMISSIONS / "correct" / "einsum.py").read_text(encoding="utf-8")
MHA, SDPA = "MultiHeadAttention", "ScaledDotProductAttention"


def _ok(note, *, semicolon: bool = False) -> dict:
    """Bilingual, no "; " (a load hint: old result pages cut there; ``semicolon``: an upload's refusal, whole
    on every page), and Chinese apart from code and the error Python raised (a load error's first sentence
    quotes it as Python wrote it)."""
    assert is_msg(note) and note["en"] and note["zh"] and (semicolon or "; " not in note["en"]), note
    zh = note["zh"].split("。", 1)[1] if "行出现" in note["zh"].split("。", 1)[0] else note["zh"]
    assert english_in_zh(zh, frozenset({"forward", "__init__", "class", "coding", "gbk"})) == [], note["zh"]
    return note


def _renamed(source: str, old: str, new: str) -> str:
    return source.replace(f"class {old}", f"class {new}").replace(f"{old}()", f"{new}()")


def _grade(executor, code: str) -> dict:
    return grade(GradeInput(code=code.encode()), "attention", executor)


# ----------------------------------------------------------------------------- 1. abbreviated class names
STAND_INS = [("MHA", MHA), ("MHSA", MHA), ("MultiHeadSelfAttention", MHA), ("MultiHeadAttn", MHA),
             ("MultiHeadAttentionLayer", MHA), ("MyMHA", MHA), ("MHA2", MHA),
             ("SDPA", SDPA), ("ScaledDotAttention", SDPA), ("DotProductAttention", SDPA), ("SDPAttention", SDPA),
             ("ScaledDotProductAttn", SDPA), ("ScaledAttention", SDPA)]
# Helpers students write beside the contract classes, and other modules: never said to be one of them.
NOT_STAND_INS = ["AttentionHead", "Head", "CrossAttention", "MultiQueryAttention", "PositionalEncoding",
                 "FeedForward", "TransformerBlock", "LayerNorm", "Attention",
                 "SelfAttention", "Scaled", "AttentionPooling", "HeadSplitter"]


@pytest.mark.parametrize("name, contract", STAND_INS, ids=[n for n, _ in STAND_INS])
def test_an_abbreviated_or_alternative_class_name_is_named_where_the_contract_class_is_missing(name, contract):
    source = _renamed(BASE, contract, name)
    assert f"class {contract}(" not in source
    hint = _ok(missing_name_hint(source, contract))
    assert hint["en"].startswith(f"attention.py defines {name} (line "), hint
    assert f"not {contract}: the tests look for the exact name {contract}" in hint["en"], hint
    assert f"定义的是 {name}（第 " in hint["zh"], hint


@pytest.mark.parametrize("name", NOT_STAND_INS)
def test_an_unrelated_helper_class_is_never_named_as_either_contract_class(name):
    assert not abbreviates(name, MHA) and not abbreviates(name, SDPA)
    helper = f"import torch\n\n\nclass {name}(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
    assert missing_name_hint(BASE.split("class MultiHeadAttention", 1)[0] + "\n\n" + helper, MHA) is None
    note = _ok(no_contract_class(helper, ("torch",)))
    assert "where the class" not in note["en"] and f"It defines only class {name}." in note["en"], note


def test_a_file_of_abbreviated_classes_only_is_told_which_class_stands_for_which():
    """(The suite's one message, not run: the same path as ScaledDotProductAttn / MultiheadAttention, graded
    end to end in test_load_hints.)"""
    from grader_tests.attention.suite import SUITE

    m = _ok(SUITE.nothing_defined(_renamed(_renamed(BASE, SDPA, "SDPA"), MHA, "MHA")))
    expected = {"en": "It defines SDPA (class, line 6) where the class ScaledDotProductAttention is expected, and MHA "
                      "(class, line 17) where the class MultiHeadAttention is expected: the tests look up these exact "
                      "names. Rename them.",
                "zh": "文件定义的是类 SDPA（第 6 行），而应为类 ScaledDotProductAttention，以及类 MHA（第 17 行），而应为类 "
                      "MultiHeadAttention：测试按确切的名字查找。请改名。"}
    assert all(m[lang].endswith(expected[lang]) for lang in expected), m


GENERIC_MHA = ("import torch\n\n\nclass {name}(torch.nn.Module):\n    def __init__(self, d_model, num_heads):\n"
               "        super().__init__()\n        self.qkv = torch.nn.Linear(d_model, 3 * d_model)\n\n"
               "    def forward(self, x, mask=None):\n        return x\n")
GENERIC_SDPA = ("import torch\n\n\nclass {name}(torch.nn.Module):\n    def forward(self, q, k, v, mask=None):\n"
                "        return v\n")


@pytest.mark.parametrize("name", ["Attention", "SelfAttention", "CausalSelfAttention", "MyAttention"])
def test_a_class_named_only_attention_is_named_by_the_contract_its_signatures_match(name):
    mha = _ok(no_contract_class(GENERIC_MHA.format(name=name), ("torch",)))
    assert (f"It defines {name} (class, line 4, with the signatures __init__(d_model, num_heads) and forward(x, "
            "mask)) where the class MultiHeadAttention is expected") in mha["en"], mha
    assert f"类 {name}（第 4 行，签名为 __init__(d_model, num_heads) 和 forward(x, mask)），而应为类 MultiHeadAttention" \
        in mha["zh"], mha
    sdpa = _ok(no_contract_class(GENERIC_SDPA.format(name=name), ("torch",)))
    assert f"{name} (class, line 4, with the signatures forward(q, k, v, mask)) where the class " \
           "ScaledDotProductAttention is expected" in sdpa["en"], sdpa
    # signatures of neither (no constructor sizes, one input): what it defines, no stand-in
    neither = _ok(no_contract_class(GENERIC_SDPA.format(name=name).replace("q, k, v, mask=None", "x"), ("torch",)))
    assert "where the class" not in neither["en"] and f"It defines only class {name}." in neither["en"]


def test_two_equally_likely_stand_ins_for_one_contract_class_are_not_guessed_between():
    source = "import torch\n\n\nclass MHA(torch.nn.Module):\n    pass\n\n\nclass MHSA(torch.nn.Module):\n    pass\n"
    note = _ok(no_contract_class(source, ("torch",)))
    assert "where the class" not in note["en"] and "class MHA, class MHSA" in note["en"], note


# ----------------------------------------------------------------------------- 2. a demo at import that raised
DEMO = ("import torch\nfrom torch import nn\n\n\nclass Attention(nn.Module):\n    def __init__(self, d_model, num_heads):\n"
        "        super().__init__()\n        self.qkv = nn.Linear(d_model, 3 * d_model)\n        self.h = num_heads\n\n"
        "    def forward(self, x):\n        q, k, v = self.qkv(x).chunk(3, dim=-1)\n"
        "        w = torch.softmax(q @ k.transpose(-2, -1) / (q.shape[-1] // self.h) ** 0.5, dim=-1)\n"
        "        return w @ v\n\n\n# quick demo\nx = torch.randn(2, 5, 16)\nprint(Attention(16, 4)(x, x).shape)\n")
DEMO_LINE = 19


def test_a_top_level_demo_that_raised_is_told_to_move_under_the_main_guard():
    hint = _ok(load_hint(DEMO, "TypeError", DEMO_LINE, "Attention.forward() takes 2 positional arguments but 3 were given"))
    assert hint["en"].startswith(f"line {DEMO_LINE} runs when the grader imports your file: put script code"), hint
    assert f"第 {DEMO_LINE} 行在评分器导入你的文件时就会运行" in hint["zh"], hint


def test_a_top_level_name_only_a_method_parameter_shares_is_script_code():
    """``x = torch.randn(...)`` at the top level and ``forward(self, x)``: the method reads its own x."""
    source = DEMO.replace("print(Attention(16, 4)(x, x).shape)", "y = Attention(16, 4)(x, x)")
    assert "line 19 runs when the grader imports your file" in _ok(load_hint(source, "TypeError", 19, "takes 2"))["en"]
    uses = source.replace("        return w @ v\n", "        return w @ v + y\n")        # forward reads the global y
    assert load_hint(uses, "TypeError", 19, "takes 2") is None


def test_a_failing_top_level_line_the_classes_read_or_a_line_inside_a_method_gets_no_main_guard_advice():
    # D_K is the module's own definition: moving it under the main guard would break the class
    defining = "import torch\n\nD_K = 16 // H\n\n\nclass A(torch.nn.Module):\n    scale = D_K ** -0.5\n"
    assert load_hint(defining, "NameError", 3, "name 'H' is not defined") is None
    # a `raise` at the top level is meant (a version check), not a demo
    assert load_hint("import torch\n\nraise RuntimeError('needs torch 2')\n", "RuntimeError", 3, "needs torch 2") is None
    # a line inside a method: not itself script code (the demo that called it is named instead, section 4)
    in_method = DEMO.splitlines().index("        q, k, v = self.qkv(x).chunk(3, dim=-1)") + 1
    inside = _ok(load_hint(DEMO, "ValueError", in_method, "not enough values to unpack"))
    assert f"line {in_method} runs when" not in inside["en"] and f"line {in_method} is inside a function" in inside["en"]
    guarded = DEMO.replace("# quick demo\n", 'if __name__ == "__main__":\n').replace("\nx = torch", "\n    x = torch") \
        .replace("\nprint(", "\n    print(")
    assert load_hint(guarded, "TypeError", DEMO_LINE, "takes 2 positional arguments") is None


def test_the_contract_note_after_a_load_error_is_given_only_when_the_source_defines_neither_class():
    note = _ok(load_note(DEMO))
    assert note["en"].startswith("Besides, attention.py defines neither ScaledDotProductAttention nor "
                                 "MultiHeadAttention. It defines Attention (class, line 5"), note
    assert note["zh"].startswith("此外，attention.py 既没有定义 ScaledDotProductAttention，也没有定义 MultiHeadAttention"), note
    assert load_note(BASE + "\nprint(1 / 0)\n") is None                           # the classes are there
    assert load_note(DEMO + "from helpers import *\n") is None                    # a star import may bind them
    assert load_note(DEMO + "globals()['MultiHead' + 'Attention'] = Attention\n") is None


def test_a_file_whose_demo_raised_at_import_says_once_the_line_the_fix_and_that_no_contract_class_is_defined(executor):
    result = _grade(executor, DEMO)
    assert result["status"] == "graded" and result["total"] == 0
    m = _ok(result["load_error"])
    assert m["en"].startswith(f"TypeError at line {DEMO_LINE}: Attention.forward() takes 2 positional arguments"), m
    assert f"Hint: line {DEMO_LINE} runs when the grader imports your file" in m["en"], m
    assert "It defines Attention (class, line 5, with the signatures __init__(d_model, num_heads) and forward(x)) " \
           "where the class MultiHeadAttention is expected" in m["en"], m
    assert f"第 {DEMO_LINE} 行出现 TypeError" in m["zh"] and "提示：第 19 行在评分器导入你的文件时就会运行" in m["zh"], m
    assert "此外，attention.py 既没有定义" in m["zh"], m
    # said once: each test says only that the file did not load
    assert {t["feedback"]["en"] for t in result["tests"]} == {"not run: attention.py did not load"}
    assert result["message"]["en"].count("defines neither") == 1


# ----------------------------------------------------------------------------- 3. precision named by coincidence
def test_simple_values_exact_in_every_format_are_never_named_as_half_or_bfloat16_precision():
    """A mask multiplied into the scores makes them all 0 without a mask: uniform weights 1/4, exact in
    bfloat16, were named "the computation runs in bfloat16" (mask_multiplied.py). Values of at most
    SIMPLE_BITS significant bits are no evidence; values rounded to the format's full precision still are."""
    import torch

    from grader_tests.attention import cases as C
    from grader_tests.attention import diagnose

    q, k, v = C.qkv(**{**C.PARITY, "Nk": 8})
    for simple in (torch.full((2, 4, 7, 8), 1 / 8), torch.full((2, 4, 7, 8), 0.375), torch.eye(8)[:7].expand(2, 4, 7, 8) / 2):
        assert not diagnose.bfloat16_precision(simple) and not diagnose.half_precision(simple)
        assert diagnose.sdpa_weights(simple.contiguous(), q, k, v) not in (diagnose.FAULTS["bfloat16"],
                                                                           diagnose.FAULTS["float16"])
    w = C.ref_weights(q, k).float()
    assert diagnose.sdpa_weights(w.bfloat16().float(), q, k, v) == diagnose.FAULTS["bfloat16"]
    assert diagnose.sdpa_weights(w.half().float(), q, k, v) == diagnose.FAULTS["float16"]


# ----------------------------------------------------------------------------- 4. files that do not load
UNLOADABLE = SUBMISSIONS / "faulty" / "unloadable"
# file -> what its load error must say, in English and in Chinese (the error, its line, the checked hint)
LOAD_ERRORS = {
    "syntax_error_last_line": (
        ["SyntaxError at line 60, column 10: '(' was never closed", "Hint: line 60 opens 3 '(' and closes 2 ')': add the missing ')'"],
        ["第 60 行第 10 列出现 SyntaxError", "第 60 行有 3 个“(”，却只有 2 个“)”：请在表达式结束处补上缺少的“)”"]),
    "indentation_error": (
        ["IndentationError at line 19, column 7", "line 19 is indented by 6 spaces and line 18 before it by 12"],
        ["第 19 行第 7 列出现 IndentationError", "第 19 行缩进了 6 个空格"]),
    "tabs_spaces_mixed": (
        ["TabError at line 20, column 1", "line 20 is indented with tabs where the lines around it use the other"],
        ["第 20 行第 1 列出现 TabError", "第 20 行用制表符（Tab）缩进"]),
    "gbk_chinese_comments": (
        ["not valid UTF-8 (first bad byte at line 9, column 3)", "GBK/GB18030"],
        ["第 9 行第 3 列", "GBK/GB18030 编码"]),
    "demo_at_import_alt_names": (
        ["RuntimeError at line 45: mat1 and mat2 shapes cannot be multiplied",
         "Hint: line 45 is inside a function, which ran while the grader imported your file because top-level code "
         "called it: lines 58, 59, 60 (script code) run at import. Put script code",
         "It defines SDPA (class, line 9) where the class ScaledDotProductAttention is expected, and MHA (class, "
         "line 24) where the class MultiHeadAttention is expected"],
        ["第 45 行出现 RuntimeError", "第 45 行在函数内部，它在评分器导入你的文件时就运行了，因为顶层代码调用了它：第 58、59、60 行",
         "文件定义的是类 SDPA（第 9 行），而应为类 ScaledDotProductAttention，以及类 MHA（第 24 行）"]),
    # round 21 (tests/grading/test_hints_round21.py)
    "nameerror_nn_not_imported": (
        ["NameError at line 9: name 'nn' is not defined", "Hint: line 9 uses `nn`, which nothing in attention.py "
         "imports, assigns or defines: add `from torch import nn` at the top of the file."],
        ["第 9 行出现 NameError", "提示：第 9 行用到了 `nn`，而 attention.py 中没有任何地方导入、赋值或定义它：请在文件开头加上 "
         "`from torch import nn`。"]),
    "empty_method_body": (
        ["IndentationError at line 39, column 5", "Hint: line 36 ends with ':' and opens a block, but no code follows it (line 37 "
         "holds only a comment, and a comment is not code): line 39, the next line of code, starts with `def`"],
        ["第 39 行第 5 列出现 IndentationError", "第 36 行以“:”结尾，开始了一个代码块，但它下面没有代码（第 37 行只有注释，注释不算代码）"]),
    "toplevel_int_input": (
        ["ValueError at line 58: invalid literal for int() with base 10: ''", "Hint: line 58 runs when the grader "
         "imports your file (input() gets no keyboard input there)"],
        ["第 58 行出现 ValueError", "评分器中 input() 读不到键盘输入"]),
    "cp1252_smart_quotes": (
        ["not valid UTF-8 (first bad byte at line 9, column 3)"], ["第 9 行第 3 列"]),
}


def test_every_unloadable_corpus_file_has_its_expected_load_error():
    assert {p.stem for p in UNLOADABLE.glob("*.py")} == set(LOAD_ERRORS)


@pytest.mark.parametrize("name", sorted(LOAD_ERRORS))
def test_a_file_that_does_not_load_is_graded_zero_with_its_line_and_checked_hint_in_both_languages(executor, name):
    result = graded_corpus_file(executor, UNLOADABLE / f"{name}.py")     # the session's one grading of it
    assert result["status"] == "graded" and result["total"] == 0, result["message"]
    shown = _ok(result["load_error"], semicolon=name == "gbk_chinese_comments")
    en, zh = LOAD_ERRORS[name]
    assert all(s in shown["en"] for s in en), shown["en"]
    assert all(s in shown["zh"] for s in zh), shown["zh"]
    assert all(t["outcome"] == "failed" and t["feedback"]["en"].startswith("not run") for t in result["tests"])


@pytest.mark.parametrize("head", [b"", b"#!/usr/bin/env python\n"], ids=["first_line", "after_a_shebang"])
def test_a_gbk_file_with_a_coding_cookie_on_its_first_or_second_line_loads_and_is_graded(executor, head):
    """The refusal says the cookie may stand on the first or the second line (PEP 263): it said "first line"."""
    code = head + b"# -*- coding: gbk -*-\n" + (UNLOADABLE / "gbk_chinese_comments.py").read_bytes()
    result = grade(GradeInput(code=code), "attention", executor)
    assert sum(result["categories"][c]["score"] for c in ("formula_shape", "implementation", "mask_parity")) == 85
    refused = graded_corpus_file(executor, UNLOADABLE / "gbk_chinese_comments.py")
    m = refused["message"]
    assert "'# -*- coding: gbk -*-' on its first or second line" in m["en"] and "第一行或第二行写上" in m["zh"], m


def test_an_unclosed_bracket_is_counted_only_on_the_line_python_names_and_outside_strings_and_comments():
    assert "opens 1 '(' and closes 0 ')'" in _ok(load_hint('x = f("(", 1  # )\n', "SyntaxError", 1,
                                                           "'(' was never closed"))["en"]
    assert "opens 2 '[' and closes 1 ']'" in _ok(load_hint("x = [[1]\n", "SyntaxError", 1, "'[' was never closed"))["en"]
    # the brackets of the line balance: Python's line is not where the bracket is, say nothing
    assert load_hint("x = f(1)\ny = (\n", "SyntaxError", 1, "'(' was never closed") is None


DEMO_IN_METHOD = UNLOADABLE / "demo_at_import_alt_names.py"


def test_an_error_inside_a_function_names_the_top_level_script_lines_only_when_nothing_else_calls_at_import():
    source = DEMO_IN_METHOD.read_text(encoding="utf-8")
    hint = _ok(load_hint(source, "RuntimeError", 45, "mat1 and mat2 shapes cannot be multiplied"))
    assert "top-level code called it: lines 58, 59, 60 (script code)" in hint["en"], hint
    # other code that calls at import could be what ran the function: no lines named
    for other in ("D_MODEL = int('16')\n\n\nclass Config:\n    d = D_MODEL\n",     # a name the classes read
                  "class Cached:\n    table = torch.ones(3)\n",                   # a class body calling torch
                  "if torch.cuda.is_available():\n    pass\n"):                  # a test that calls
        assert load_hint(source.replace("x = torch.randn", other + "x = torch.randn"), "RuntimeError", 45, "m") is None
    # the same error with the demo under the main guard: not at import, nothing to name
    guarded = source.replace("x = torch.randn(2, 5, 16)\nattn = MHA(16, 4)\nprint(",
                             "if __name__ == '__main__':\n    x = torch.randn(2, 5, 16)\n    attn = MHA(16, 4)\n    print(")
    assert guarded != source and load_hint(guarded, "RuntimeError", 45, "m") is None


# ----------------------------------------------------------------------------- 5. new faulty files, their hints pinned
FAULTY = SUBMISSIONS / "faulty"
# file -> test -> what its feedback must say (en, zh): what was seen, and a cause only where the code confirms it.
# (Every file of faulty/ is also graded by test_grading.py, points lost in its '# expect:' category, and by
# test_fair_corpus.py: its '# diagnosis:' named in both languages and nothing else, Chinese text Chinese.)
PINNED = {
    "scale_precedence": {"test_scale_experiment_a": (
        "the scores are scaled by about 0.0625 instead of 1/sqrt(dk) = 0.3536", "score 大约被乘以 0.0625，而不是 1/sqrt(dk) = 0.3536")},
    "merge_view_non_contiguous": {"test_mha_self_attention_parity": (
        "raised RuntimeError at attention.py line 54: view size is not compatible", "（attention.py 第 54 行）")},
    "mha_ignores_head_dim": {"test_mha_custom_head_dim": (
        "with head_dim=8 (num_heads * head_dim = 24): q_proj maps 12 -> 12 features, expected 12 -> 24",
        "head_dim=8（num_heads * head_dim = 24）时：q_proj 把 12 维映射到 12 维，应为 12 -> 24")},
    "scale_in_place_on_input": {"test_gradients_match_reference": (
        "raised RuntimeError at attention.py line 16: a leaf Variable that requires grad is being used in an in-place "
        "operation", "抛出 RuntimeError（attention.py 第 16 行）")},
    "mha_caches_keys": {"test_mha_additive_mask": (
        "MultiHeadAttention.forward raised AssertionError at attention.py line 18", "抛出 AssertionError（attention.py 第 18 行）")},
    "mask_filled_with_zero": {"test_blocked_key_gets_zero_weight": (
        "blocked positions get weight up to 0.239 (expected 0)", "被屏蔽位置的权重最大为 0.239（应为 0）")},
    "padding_mask_unsqueezed_once": {"test_padding_keys_get_zero_weight": (
        "raised RuntimeError at attention.py line 19: The size of tensor a (4) must match the size of tensor b (2)",
        "（attention.py 第 19 行）")},
    "softmax_batch_axis": {
        "test_row_sums_are_one": ("softmax over dim=0", "softmax 沿 dim=0"),
        # one sample (B=1): every weight is 1 whatever the axis of size 1, so the hand example names no axis of its
        # own, only what was seen; the axis is said as a second case of other sizes shows it (round 39)
        "test_hand_example": ("hand-example weights are [[1.0000, 1.0000, 1.0000], [1.0000, 1.0000, 1.0000]]",
                              "手算例子的权重为 [[1.0000, 1.0000, 1.0000], [1.0000, 1.0000, 1.0000]]")},
    "mask_multiplied": {"test_mha_single_head": ("the mistake is in ScaledDotProductAttention", "错误在 ScaledDotProductAttention 中")},
    # sqrt(H * dk): 1/dk where H == dk; never named "divided by dk" (section 7); named sqrt(H * dk) since round 24
    "scale_by_d_model": {"test_scale_experiment_a": ("the weights equal softmax(QK^T / sqrt(H * dk))",
                                                     "权重等于 softmax(QK^T / sqrt(H * dk))")},
    "softmax_float32_not_cast_back": {"test_dtype_preserved": (
        "raised RuntimeError at attention.py line 21: expected scalar type Float but found Double",
        "抛出 RuntimeError（attention.py 第 21 行）")},
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_new_faulty_file_gets_the_pinned_feedback_in_both_languages(executor, name):
    tests = {t["id"]: t for t in graded_corpus_file(executor, FAULTY / f"{name}.py")["tests"]}
    for tid, (en, zh) in PINNED[name].items():
        fb = tests[tid]["feedback"]
        assert tests[tid]["outcome"] == "failed" and en in fb["en"] and zh in fb["zh"], (tid, fb)
    if name == "softmax_batch_axis":
        hand = tests["test_hand_example"]["feedback"]["en"]
        seen, axis = hand.index("the rows do not sum to 1 over the 3 keys"), hand.index("softmax over dim=0")
        assert seen < hand.index("on a second case of [B, H, Nq, Nk]") < axis
    if name == "mask_multiplied":        # uniform weights 1/4: no precision named (section 3)
        assert not any("bfloat16" in t["feedback"]["en"] or "float16" in t["feedback"]["en"] for t in tests.values()
                       if t["outcome"] != "passed")


RAISES = sorted((FAULTY / "raises").glob("*.py"))


@pytest.mark.parametrize("path", RAISES, ids=[p.stem for p in RAISES])
def test_a_fault_that_raises_in_most_tests_is_told_by_its_line_and_pytorchs_message_and_named_as_nothing_else(executor,
                                                                                                          path):
    """k.T on a 4-D tensor, weights applied transposed with bmm: most tests raise (so these files keep fewer than
    the 20 points test_grading asks of faulty/). Each failure says where it raised, in both languages; no fault
    model is named (the numbers that do come back are described, or blamed on ScaledDotProductAttention)."""
    from grading.proxy import ORIGINAL_MESSAGE_ZH

    result = graded_corpus_file(executor, path)     # planned: graded once a session, on the other core if it can
    assert result["status"] == "graded" and result["total"] < 85
    raised = [t["feedback"] for t in result["tests"] if t["outcome"] != "passed" and "raised" in t["feedback"]["en"]]
    assert len(raised) >= 10
    marker = {"k_T_on_4d": "k.T)", "weights_applied_transposed": "torch.bmm(",
              "k_transpose_1_2_on_4d": "k.transpose(1, 2))", "softmax_sum_without_keepdim": "e.sum(dim=-1)"}[path.stem]
    line = next(n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if marker in text)
    for fb in raised:
        assert f"at attention.py line {line}: " in fb["en"] and f"attention.py 第 {line} 行" in fb["zh"], fb
        assert ORIGINAL_MESSAGE_ZH in fb["zh"], fb
    assert not [t["id"] for t in result["tests"] if t["outcome"] != "passed"
                for _, text in fault_texts() if text["en"] in t["feedback"]["en"]]


# ----------------------------------------------------------------------------- 6. Python's English-only syntax errors
_parsed_error = syntax_error_of


BASE_FAULTY = (FAULTY / "mha_no_out_proj.py").read_text(encoding="utf-8")
SLIPS = {   # name: (the slip, what the hint must say in English, in Chinese)
    "def without colon": (("return_weights=False):", "return_weights=False)"),
                          "starts a block with `def` but does not end with ':'", "以 `def` 开始一个代码块，但行末没有“:”"),
    "if without colon": (("        if additive_mask is not None:\n            mask",
                          "        if additive_mask is not None  # add it\n            mask"),
                         "starts a block with `if` but does not end with ':'", "以 `if` 开始一个代码块"),
    "else if": (("        if key_padding_mask is not None:", "        else if key_padding_mask is not None:"),
                "writes `else if`: Python writes `elif`", "应写作 `elif`"),
    "string left open": (('float("-inf")', 'float("-inf)'),
                         "opens a string with \" and does not close it on that line", "开始了一个字符串，但这一行中没有把它闭合"),
    "extra bracket": (("        b, nq, _ = x.shape\n", "        b, nq, _ = x.shape)\n"),
                      "closes 1 ')' but opens 0 '('", "有 1 个“)”，却只有 0 个“(”"),
    "body not indented": (("        super().__init__()\n", "super().__init__()\n"),
                          "is indented by 0 spaces, no more than line 26 (4 spaces), whose block it should hold: indent "
                          "the block's lines by 8 spaces", "请把这个代码块的各行缩进 8 个空格"),
}


@pytest.mark.parametrize("name", SLIPS)
def test_pythons_english_only_syntax_errors_get_a_bilingual_hint_from_what_the_line_shows(name):
    (old, new), en, zh = SLIPS[name]
    assert old in BASE_FAULTY
    source = BASE_FAULTY.replace(old, new, 1)
    hint = _ok(load_hint(source, *_parsed_error(source)))
    assert en in hint["en"] and zh in hint["zh"], hint


@pytest.mark.parametrize("source", [
    "x = f(a b)\n",                         # expected ':'? no: another message, no hint
    "d = {'a': 1 'b': 2}\n",
    "x = '''open\n",                        # a triple-quoted string: not the one-line slip
    "x = [1,\n2)]\n",                       # a ")" closing a "[": another message
])
def test_a_syntax_error_the_line_does_not_explain_gets_no_new_hint(source):
    kind, line, message = _parsed_error(source)
    hint = load_hint(source, kind, line, message)
    # (round 34: a triple-quoted string nothing closes has its own hint, never the one-line string's)
    assert hint is None or not any(w in hint["en"] for w in ("starts a block", "`else if`", "must end on the line",
                                                             "but opens")), (message, hint)


def test_a_file_that_loads_but_defines_neither_class_gets_one_summary_of_what_it_defines(executor):
    """Its demo at the top level runs fine (so the file is run, not refused as defining nothing): 31 tests each
    said which class was missing, and nothing said it once."""
    from grader_tests.attention.signature_note import names_note

    source = DEMO_IN_METHOD.read_text(encoding="utf-8").replace("print(attn(x, x[:, :3, :8]).shape)",
                                                                 "print(attn(x).shape)")
    result = _grade(executor, source)
    assert result["total"] == 0 and {t["outcome"] for t in result["tests"]} == {"failed"}
    m = _ok(result["message"])
    # (round 33: said as a file of only imports is, "could run", and the tests not run: tests/web/test_load_errors_round33.py)
    assert m["en"].startswith("attention.py defines neither ScaledDotProductAttention nor MultiHeadAttention, so no "
                              "test could run. It defines SDPA (class, line 9) where the class ScaledDotProductAttention "
                              "is expected, and MHA (class, line 24)"), m
    assert m["zh"].startswith("attention.py 既没有定义 ScaledDotProductAttention，也没有定义 MultiHeadAttention，因此没有"
                              "一项测试能够运行。文件定义的是类 SDPA（第 9 行）"), m
    some_passed = {"test_a": {"outcome": "failed"}, "test_b": {"outcome": "passed"}}
    assert names_note(source, some_passed) is None
    assert names_note(BASE, {"test_a": {"outcome": "failed"}}) is None          # the classes are defined


# ----------------------------------------------------------------------------- 7. a coincidence the probe kept
class _ScaleByDModel:
    """A student's ScaledDotProductAttention dividing the scores by sqrt(H * dk) (its "d_model")."""

    def sdpa(self, q, k, v, mask=None, *, return_weights=False):
        import math

        import torch

        scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[1] * q.shape[-1])
        w = torch.softmax(scores if mask is None else scores + mask, -1)
        return (w @ v.double(), w) if return_weights else w @ v.double()


def test_a_scale_by_sqrt_d_model_is_not_named_one_over_dk_where_heads_equal_dk_on_both_cases():
    """H == dk == 4: sqrt(H * dk) = dk, and the probe kept H == dk, so "divided by dk" was confirmed and named
    for code that divides by sqrt(d_model) (scale_by_d_model.py, 5 tests). Scale and axis mistakes are now
    confirmed on a probe whose sizes all differ; Q/K swaps keep their Nq == Nk probe."""
    import torch

    from grader_tests.attention import diagnose

    q = torch.randn(2, 4, 5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    k = torch.randn(2, 4, 6, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    v = torch.randn(2, 4, 6, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    student = _ScaleByDModel()
    _, w = student.sdpa(q, k, v, return_weights=True)
    assert diagnose.sdpa_weights(w, q, k, v) == diagnose.FAULTS["scale_dk"]            # one case: it matches
    assert diagnose.sdpa_weights(w, q, k, v, student=student) == diagnose.FAULTS["scale_heads_dk"]  # the probe tells
    pq, pk, pv, _ = diagnose.probe_case(q, k, v, None, distinct=True)
    sizes = [*pq.shape[:2], pq.shape[-2], pk.shape[-2], pq.shape[-1], pv.shape[-1]]
    assert len(set(sizes)) == len(sizes)
    square = diagnose.probe_case(q, q, v[..., :5, :], None)                             # Nq == Nk kept equal
    assert square[0].shape[-2] == square[1].shape[-2]



def test_a_multi_head_class_named_attention_is_named_once_by_its_signatures_where_the_tests_missed_it(executor):
    """ScaledDotProductAttention defined, the multi-head module named Attention: the tests said "does not
    define MultiHeadAttention" with no hint (the engine's hint reads names, not signatures); one note now
    names Attention by the signatures it has. A class of no contract signature is not named."""
    from grader_tests.attention.signature_note import missing_class_note

    base = (FAULTY / "mha_no_out_proj.py").read_text(encoding="utf-8")
    result = _grade(executor, base.replace("class MultiHeadAttention(", "class Attention("))
    m = _ok(result["message"])
    assert m["en"].startswith("attention.py does not define MultiHeadAttention, so the tests that use it failed. It "
                              "defines Attention (class, line 25, with the signatures __init__(d_model, num_heads, "
                              "head_dim) and forward(x, context, additive_mask, key_padding_mask, return_weights)) "
                              "where the class MultiHeadAttention is expected"), m
    assert "文件定义的是类 Attention（第 25 行，签名为 __init__(d_model, num_heads, head_dim) 和" in m["zh"], m
    outcomes = {"a": {"outcome": "passed"}, "b": {"outcome": "failed", "feedback": {
        "en": "attention.py does not define MultiHeadAttention", "zh": "attention.py 没有定义 MultiHeadAttention"}}}
    helper = base.split("class MultiHeadAttention", 1)[0] + "class Attention:\n    def forward(self, x):\n        return x\n"
    assert missing_class_note(helper, outcomes) is None
    assert missing_class_note(base, {"a": {"outcome": "passed"}}) is None             # nothing missing
