"""Load hints (grading/load_hints.py): one checked, bilingual hint when attention.py does not load,
named only when the source shows the cause; and one summary when the classes cannot be built with
the contract's arguments. Unit tests of the pure functions, then a few gradings end to end."""

from __future__ import annotations

import ast
import time

import pytest

from grader_tests.attention.signature_note import constructor_note
from grading.i18n import is_msg
from grading.load_hints import load_hint, with_hint
from grading.proxy import load_error_text
from grading.runner import GradeInput, grade
from grading.sandbox import StudentError, StudentTimeout
from tests.grading.helpers import SUBMISSIONS, graded_corpus_file, syntax_error_of

BASE = (SUBMISSIONS / "correct" / "einsum.py").read_text(encoding="utf-8")
SDPA_LINE = BASE.splitlines().index("        weights = scores.softmax(-1)") + 1


_syntax = syntax_error_of


def _hint(source: str):
    return load_hint(source, *_syntax(source))


def _ok(hint) -> dict:
    """Every hint is bilingual, has Chinese text of its own, and never holds "; " (the result page
    keeps the load error up to the first one)."""
    assert is_msg(hint)
    assert "; " not in hint["en"] and "; " not in hint["zh"]
    assert any("\u4e00" <= c <= "\u9fff" for c in hint["zh"])
    return hint


def _replace_line(n: int, text: str) -> str:
    lines = BASE.splitlines()
    lines[n - 1] = text
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ 1. notebook commands
class TestNotebookCommands:
    def test_a_magic_on_the_first_line_is_named(self):
        hint = _ok(_hint("%matplotlib inline\n" + BASE))
        assert "line 1 is a notebook command" in hint["en"] and "comment" in hint["en"]
        assert "第 1 行是 Notebook 命令" in hint["zh"]

    def test_every_command_the_parser_would_stop_at_is_listed(self):
        source = "%matplotlib inline\n" + BASE + "!pip install einops\n"
        hint = _ok(_hint(source))
        last = len(source.splitlines())
        assert f"lines 1, {last} are notebook commands" in hint["en"]

    def test_a_bang_line_inside_a_class(self):
        source = BASE.replace("class MultiHeadAttention", "!pip install torch\nclass MultiHeadAttention")
        assert "is a notebook command" in _ok(_hint(source))["en"]

    def test_no_hint_when_the_error_line_is_not_a_command(self):
        # (round 18: an unclosed bracket gets its own hint, counting the line's brackets; never a notebook one)
        unclosed = _ok(_hint(_replace_line(SDPA_LINE, "        weights = scores.softmax(-1")))
        assert "notebook" not in unclosed["en"] and "opens 1 '('" in unclosed["en"], unclosed
        # "!=" at the start of a continuation line is Python, not a shell command
        assert load_hint("x = (1\n!= 2\n", "SyntaxError", 2, "invalid syntax") is None


# ------------------------------------------------------------------ 2. Python 3.12 syntax
class TestPython312:
    def test_type_alias(self):
        hint = _ok(_hint("from torch import Tensor\ntype MaybeTensor = Tensor | None\n" + BASE))
        assert "line 2" in hint["en"] and "PEP 695" in hint["en"] and "Python 3.11" in hint["en"]
        assert "Python 3.11" in hint["zh"] and "类型别名" in hint["zh"]

    def test_generic_function_and_class(self):
        for line in ("def first[T](xs: list[T]) -> T:\n    return xs[0]\n", "class Box[T]:\n    pass\n"):
            hint = _ok(_hint(BASE + line))
            assert "type parameters" in hint["en"] and "3.11" in hint["zh"]

    def test_fstring_reusing_its_quotes(self):
        hint = _ok(_hint(BASE + 'names = ["a"]\nMSG = f"heads: {", ".join(names)}"\n'))
        assert "PEP 701" in hint["en"] and "f-string" in hint["zh"]

    def test_an_ordinary_fstring_error_is_not_called_3_12(self):
        # (round 33: it gets the f-string hint, which names no Python version here)
        hint = _ok(_hint(BASE + 'MSG = f"heads: {names"\n'))
        assert "3.12" not in hint["en"] and "PEP" not in hint["en"] and "a '{' in it is never closed" in hint["en"]

    def test_type_as_a_name_is_not_an_alias(self):
        # "type = 3" is valid Python 3.11; an error on another line is not blamed on it
        assert load_hint("type = 3\nx = (\n", "SyntaxError", 1, "invalid syntax") is None


# ------------------------------------------------------------------ 3. copied characters
class TestCopiedCharacters:
    @pytest.mark.parametrize("char, en, zh, fix_zh", [
        ("\u00a0", "no-break space", "不换行空格", "普通空格"),
        ("\u200b", "zero-width space", "零宽空格", "删除"),
        ("\u3000", "full-width space", "全角空格", "普通空格"),
    ])
    def test_invisible_characters(self, char, en, zh, fix_zh):
        source = _replace_line(SDPA_LINE, f"        weights = scores.softmax({char}-1)")
        hint = _ok(_hint(source))
        col = f"        weights = scores.softmax({char}".index(char) + 1
        assert f"line {SDPA_LINE}, column {col}" in hint["en"] and en in hint["en"]
        assert f"第 {SDPA_LINE} 行第 {col} 列" in hint["zh"] and zh in hint["zh"] and fix_zh in hint["zh"]

    @pytest.mark.parametrize("text, zh, ascii_", [
        ("        weights = scores.softmax(-1，)", "全角逗号", ","),
        ("        weights = scores.softmax（-1)", "全角左括号", "("),
        ('        weights = scores.softmax(dim=int(“-1”))', "中文双引号", '"'),
    ])
    def test_full_width_punctuation(self, text, zh, ascii_):
        hint = _ok(_hint(_replace_line(SDPA_LINE, text)))
        assert zh in hint["zh"] and f"“{ascii_}”" in hint["zh"] and f"'{ascii_}'" in hint["en"]

    def test_full_width_colon_and_count(self):
        source = BASE.replace("if additive_mask is not None:", "if additive_mask is not None：")
        hint = _ok(_hint(source))
        assert "全角冒号" in hint["zh"] and "U+FF1A" in hint["en"]
        assert f"the file has {source.count('：')} of them" in hint["en"]

    def test_a_full_width_space_in_the_indentation(self):
        source = _replace_line(SDPA_LINE, "      \u3000weights = scores.softmax(-1)")
        kind, line, _ = _syntax(source)
        assert kind == "IndentationError"
        assert "全角空格" in _ok(_hint(source))["zh"]

    def test_tabs_mixed_with_spaces_are_named_with_how_to_convert(self):
        source = _replace_line(SDPA_LINE, "\t    weights = scores.softmax(-1)")
        kind, line, _ = _syntax(source)
        assert kind == "TabError"
        hint = _ok(_hint(source))
        assert f"line {line} is indented with tabs" in hint["en"] and "Convert Indentation to Spaces" in hint["en"]
        assert "制表符" in hint["zh"]

    def test_no_hint_when_the_line_does_not_hold_the_character(self):
        source = _replace_line(SDPA_LINE, "        weights = scores.softmax(-1，)")
        assert load_hint(source, "SyntaxError", 1, "invalid character '，' (U+FF0C)") is None
        assert load_hint(source, "SyntaxError", SDPA_LINE, "invalid character '⊕' (U+2295)") is None


# ------------------------------------------------------------------ 4. top-level script code
class TestTopLevelCode:
    def test_sys_exit_at_the_end(self):
        source = BASE + "import sys\nsys.exit(0)\n"
        line = len(source.splitlines())
        hint = _ok(load_hint(source, "SystemExit", line, "0"))
        assert f"line {line} runs when the grader imports your file" in hint["en"]
        assert '__name__ == "__main__"' in hint["en"] and '__name__ == "__main__"' in hint["zh"]

    def test_input_and_argparse_name_their_cause(self):
        source = BASE + "_n = input('按回车继续...')\n"
        hint = _ok(load_hint(source, "EOFError", len(source.splitlines()), "EOF when reading a line"))
        assert "input()" in hint["en"] and "键盘" in hint["zh"]
        source = "import argparse\np = argparse.ArgumentParser()\nargs = p.parse_args()\n" + BASE
        assert "command-line" in _ok(load_hint(source, "SystemExit", 3, "2"))["en"]

    def test_file_access_at_top_level(self):
        source = "import torch\nW = torch.load('weights.pt')\n" + BASE
        assert "line 2 runs" in _ok(load_hint(source, "FileNotFoundError", 2, "No such file"))["en"]

    def test_no_hint_inside_a_function_or_under_the_main_guard(self):
        source = BASE + "def main():\n    input()\n\nif __name__ == '__main__':\n    main()\n"
        inside = source.splitlines().index("    input()") + 1
        assert load_hint(source, "EOFError", inside, "EOF") is None
        assert load_hint(source, "EOFError", len(source.splitlines()), "EOF") is None
        assert load_hint(BASE, "SystemExit", SDPA_LINE, "0") is None        # a method body

    def test_a_timeout_points_to_top_level_loops_and_calls(self):
        source = BASE + "import time\nprint('自测开始')\nfor _ in range(10**9):\n    pass\n"
        first = source.splitlines().index("print('自测开始')") + 1
        hint = _ok(load_hint(source, "StudentTimeout", None, ""))
        assert f"lines {first}, {first + 1} (loops and calls)" in hint["en"]
        assert "loops and calls" in hint["en"] and "循环" in hint["zh"]

    def test_a_timeout_with_no_top_level_code_gets_no_hint(self):
        assert load_hint(BASE + "if __name__ == '__main__':\n    while True:\n        pass\n",
                         "StudentTimeout", None, "") is None


# ------------------------------------------------------------------ 5. own helper modules
class TestOwnModule:
    def test_an_unknown_module_the_source_imports(self):
        source = "from utils import masked_fill_inf\n" + BASE
        hint = _ok(load_hint(source, "ModuleNotFoundError", 1, "No module named 'utils' in the grader"))
        assert "if `utils` is a file of your own" in hint["en"] and "utils.py" in hint["zh"]

    @pytest.mark.parametrize("name", ["scipy", "d2l", "json", "torch"])
    def test_packages_and_the_standard_library_are_not_called_your_own(self, name):
        source = f"import {name}\n" + BASE
        assert load_hint(source, "ModuleNotFoundError", 1, f"No module named '{name}'") is None

    def test_a_module_the_source_does_not_import_is_not_named(self):
        assert load_hint(BASE, "ModuleNotFoundError", 2, "No module named 'utils'") is None


# ------------------------------------------------------------------ the load error text
class TestLoadErrorText:
    def test_the_hint_follows_the_error_as_a_sentence_before_the_packages_note(self):
        source = "from utils import f\n" + BASE
        exc = StudentError("ModuleNotFoundError", "No module named 'utils' in the grader", 1)
        text = load_error_text(exc, packages=["torch"], source=source)
        head_en, _, note_en = text["en"].partition("; ")
        assert "Hint: only attention.py is uploaded" in head_en and "standard library" in note_en
        head_zh = text["zh"].split("; ")[0]
        assert "提示：评分器只收到 attention.py" in head_zh
        assert ".; " not in text["en"] and "。; " not in text["zh"]

    def test_without_source_or_cause_the_text_is_unchanged(self):
        exc = StudentError("SyntaxError", "invalid syntax", 3)
        assert load_error_text(exc) == load_error_text(exc, source="x = (\n")
        assert load_error_text(exc)["en"] == "SyntaxError at line 3: invalid syntax"

    def test_a_timeout(self):
        exc = StudentTimeout(10, "import")
        text = load_error_text(exc, source=BASE + "import time\ntime.sleep(12)\n")
        assert text["en"].startswith("timed out after 10 s of wall-clock time while importing attention.py. Hint: ")
        assert "提示：导入你的文件会运行顶层代码" in text["zh"]

    def test_with_hint_keeps_punctuation(self):
        t = with_hint({"en": "a.", "zh": "甲。"}, {"en": "b", "zh": "乙"})
        assert t == {"en": "a. Hint: b", "zh": "甲。提示：乙"}

    def test_pathological_sources_give_no_hint_and_no_error(self):
        deep = "x = " + "(" * 300 + ")" * 300 + "\n"
        assert load_hint(deep, "SystemExit", 1, "0") is None
        assert load_hint("", "SyntaxError", 1, "invalid syntax") is None
        assert load_hint(BASE, "SyntaxError", 10_000, "invalid syntax") is None


# ------------------------------------------------------------------ 6. constructor signatures
D2L_MHA = """import torch
from torch import nn

class DotProductAttention(nn.Module):
    def __init__(self, dropout, **kwargs):
        super().__init__(**kwargs)

ScaledDotProductAttention = DotProductAttention

class MultiHeadAttention(nn.Module):
    def __init__(self, key_size, query_size, value_size, num_hiddens,
                 num_heads, dropout, bias=False, **kwargs):
        super().__init__(**kwargs)
"""


def _outcomes(*feedback: str) -> dict:
    return {f"t{i}": {"outcome": "failed", "feedback": {"en": fb, "zh": fb}} for i, fb in enumerate(feedback)}


MHA_TYPEERROR = ("creating MultiHeadAttention(16, 4) raised TypeError: MultiHeadAttention.__init__() missing "
                 "4 required positional arguments")
SDPA_TYPEERROR = ("with Nq=3: creating ScaledDotProductAttention() raised TypeError: "
                  "DotProductAttention.__init__() missing 1 required positional argument: 'dropout'")


class TestConstructorNote:
    def test_d2l_signature_is_named_with_what_to_rename_and_default(self):
        note = _ok(constructor_note(D2L_MHA, _outcomes(MHA_TYPEERROR, SDPA_TYPEERROR, SDPA_TYPEERROR)))
        assert "raised TypeError in 3 tests" in note["en"]
        assert "MultiHeadAttention(d_model, num_heads, head_dim=None)" in note["en"]
        assert "d2l.ai" in note["en"] and "key_size, query_size, value_size, num_hiddens" in note["en"]
        assert "dropout=0.0" in note["en"] and "《动手学深度学习》" in note["zh"]
        assert "ScaledDotProductAttention 构造时不带参数" in note["zh"]

    def test_swapped_arguments_are_named_without_a_typeerror(self):
        source = BASE.replace("def __init__(self, d_model, num_heads, head_dim=None)",
                              "def __init__(self, num_heads, d_model, head_dim=None)")
        note = _ok(constructor_note(source, _outcomes("the output has shape [2,5,4], expected [2,5,16]")))
        assert "num_heads before d_model" in note["en"] and "交换" in note["zh"]

    def test_a_missing_head_dim_parameter(self):
        source = BASE.replace("def __init__(self, d_model, num_heads, head_dim=None)",
                              "def __init__(self, d_model, n_head)")
        note = _ok(constructor_note(source, _outcomes(
            "creating MultiHeadAttention(16, 4, head_dim=8) raised TypeError: got an unexpected keyword")))
        assert "add head_dim=None" in note["en"] and "in 1 test:" in note["en"]

    def test_nothing_when_every_class_was_built(self):
        assert constructor_note(BASE, _outcomes("the output differs")) is None
        assert constructor_note(BASE, {}) is None
        assert constructor_note(None, _outcomes("the output differs")) is None

    def test_unparsed_source_still_states_the_contract(self):
        note = _ok(constructor_note("class (", _outcomes(MHA_TYPEERROR)))
        assert "the grader builds ScaledDotProductAttention()" in note["en"]


# ------------------------------------------------------------------ end to end
def _grade(executor, code: str) -> dict:
    return grade(GradeInput(code=code.encode()), "attention", executor)


def _shown(message: dict, lang: str) -> str:
    """What the result page shows of a load error (app/student.py keeps it up to the first "; ")."""
    return message[lang].split("; ")[0]


class TestEndToEnd:
    def test_a_notebook_command(self, executor):
        result = _grade(executor, "%matplotlib inline\n" + BASE)
        assert result["status"] == "graded" and result["total"] == 0
        assert "Hint: line 1 is a notebook command" in _shown(result["message"], "en")
        assert "提示：第 1 行是 Notebook 命令" in _shown(result["message"], "zh")

    def test_a_no_break_space(self, executor):
        result = _grade(executor, _replace_line(SDPA_LINE, "        weights = scores.softmax(\u00a0-1)"))
        assert f"第 {SDPA_LINE} 行第 34 列有一个不换行空格" in _shown(result["message"], "zh")

    def test_top_level_exit_and_own_module(self, executor):
        result = _grade(executor, BASE + "import sys\nsys.exit(1)\n")
        assert "runs when the grader imports your file" in _shown(result["message"], "en")
        ended = _grade(executor, BASE + "import sys\nsys.exit(0)\n")    # a script's clean end is a load
        assert ended["message"] is None and not any("not run" in str(t["feedback"]) for t in ended["tests"])
        result = _grade(executor, "from utils import helper\n" + BASE)
        assert "if `utils` is a file of your own" in _shown(result["message"], "en")
        assert "standard library" in result["message"]["en"]     # the packages note is kept

    def test_d2l_constructor_summary_once(self, executor):
        source = D2L_MHA + "    def forward(self, q, k, v, valid_lens=None):\n        return q\n"
        result = _grade(executor, source)
        assert result["status"] == "graded"
        message = result["message"]
        assert message["en"].count("d2l.ai") == 1 and "《动手学深度学习》" in message["zh"]
        assert not any("d2l.ai" in t["feedback"]["en"] for t in result["tests"] if is_msg(t.get("feedback")))


def test_a_blog_style_forward_gets_one_summary_of_what_the_grader_calls():
    """forward(q, k, v, mask) in both classes (CSDN-style code): 21 tests each showed a raw TypeError."""
    from grader_tests.attention.signature_note import result_note

    source = ("import torch\nfrom torch import nn\n\nclass ScaledDotProductAttention(nn.Module):\n"
              "    def forward(self, q, k, v, mask=None):\n        return q\n\n"
              "class MultiHeadAttention(nn.Module):\n    def __init__(self, d_model, num_heads, head_dim=None):\n"
              "        super().__init__()\n\n    def forward(self, q, k, v, mask=None):\n        return q\n")
    raw = {"en": "ScaledDotProductAttention.forward raised TypeError: ScaledDotProductAttention.forward() got an "
                 "unexpected keyword argument 'return_weights'", "zh": "…"}
    mha = {"en": "MultiHeadAttention.forward raised TypeError: MultiHeadAttention.forward() missing 2 required "
                 "positional arguments: 'k' and 'v'", "zh": "…"}
    note = _ok(result_note(source, {"a": {"feedback": raw}, "b": {"feedback": raw}, "c": {"feedback": mha}}))
    assert "raised TypeError in 3 tests" in note["en"]
    assert "ScaledDotProductAttention.forward(q, k, v, mask) has no additive_mask, return_weights" in note["en"]
    assert "MultiHeadAttention.forward(q, k, v, mask) requires 3 inputs (q, k, v) where the grader passes 1" in note["en"]
    assert "评分器调用的是 forward(x, context=None" in note["zh"]
    assert result_note(source, {"a": {"feedback": {"en": "the output differs", "zh": "输出不同"}}}) is None


@pytest.mark.parametrize("tail", ["X = f'{" + " f'{" * 30_000, "\n".join(["!pip install einops"] * 21)],
                         ids=["nested_fstring_starts", "many_notebook_commands"])
def test_hints_on_a_large_file_take_bounded_time(tail):
    source = "\n".join(f"v{i} = {i}" for i in range(3_500)) + "\n" + tail + "\n"
    try:
        ast.parse(source)
    except SyntaxError as err:
        lineno, text = err.lineno, err.msg
    started = time.process_time()
    load_hint(source, "SyntaxError", lineno, text)
    assert time.process_time() - started < 1.5      # 8 s and 116 s before


# ------------------------------------------------------------------ round 13: script code the error does not name
@pytest.mark.parametrize(("tail", "kind", "message"), [
    ('\ndevice = torch.device("cuda")\nx = torch.zeros(2, device=device)\n', "AssertionError",
     "Torch not compiled with CUDA enabled"),
    ("\nmodel = MultiHeadAttention(8, 2).cuda()\n", "AssertionError", "Torch not compiled with CUDA enabled"),
], ids=["cuda_device", "module_cuda"])
def test_asking_for_a_gpu_at_import_is_told_the_grader_has_only_the_cpu(tail, kind, message):
    source = BASE + tail
    hint = _ok(load_hint(source, kind, len(source.splitlines()), message))
    assert "no GPU" in hint["en"] and "torch.cuda.is_available()" in hint["en"]
    assert "没有 GPU" in hint["zh"] and "__main__" in hint["en"]


def test_input_at_import_is_named_whatever_error_the_empty_answer_causes():
    # the jail's input() reads an empty line: int("") is the ValueError the student sees
    source = BASE + '\nd_model = int(input("d_model? "))\n'
    line = len(source.splitlines())
    hint = _ok(load_hint(source, "ValueError", line, "invalid literal for int() with base 10: ''"))
    assert f"line {line} runs when the grader imports your file (input() gets no keyboard input" in hint["en"]
    assert "input() 读不到键盘输入" in hint["zh"]
    # the same error on a line that reads no input, or inside a function, gets no such hint
    # (round 18: a top-level line the classes do not read is script code, and gets the main guard's hint alone)
    other = _ok(load_hint(BASE + "\nx = int('')\n", "ValueError", line, "invalid literal"))
    assert "input()" not in other["en"] and "input()" not in other["zh"], other
    inside = BASE + '\ndef ask():\n    return int(input("d? "))\n'
    assert load_hint(inside, "ValueError", len(inside.splitlines()), "invalid literal") is None


def test_a_gpu_error_in_the_real_jail_reaches_the_load_error_with_its_hint(executor):
    source = BASE + "\nmodel = MultiHeadAttention(8, 2).cuda()\n"
    result = grade(GradeInput(code=source.encode()), "attention", executor)
    assert "Torch not compiled with CUDA enabled" in result["load_error"]["en"]
    assert "no GPU" in result["load_error"]["en"] and "没有 GPU" in result["load_error"]["zh"]


# ------------------------------------------------------------------ a GPU asked for while the tests run
def test_a_gpu_asked_for_at_run_time_is_told_the_grader_has_only_the_cpu():
    from grading.proxy import student_error_text
    exc = StudentError("AssertionError", "Torch not compiled with CUDA enabled", 38)
    text = student_error_text("MultiHeadAttention.forward", exc)
    assert text["en"].startswith("MultiHeadAttention.forward raised AssertionError at attention.py line 38: "
                                 "Torch not compiled with CUDA enabled; the grader runs on the CPU and has no GPU")
    assert "torch.cuda.is_available()" in text["en"]
    assert "没有 GPU" in text["zh"] and "torch.cuda.is_available()" in text["zh"]
    # no script-code advice: the line is inside forward, not at the top level
    assert "__main__" not in text["en"] and "__main__" not in text["zh"]
    # any other error gets no word about GPUs
    other = student_error_text("MultiHeadAttention.forward",
                               StudentError("RuntimeError", "Expected all tensors to be on the same device", 38))
    assert "GPU" not in other["en"] and "GPU" not in other["zh"]


def test_a_gpu_asked_for_inside_forward_in_the_real_jail_gets_the_cpu_hint_in_every_failed_test(executor):
    source = (SUBMISSIONS / "faulty" / "mha_moves_input_to_cuda.py").read_text(encoding="utf-8")
    failed = [t for t in grade(GradeInput(code=source.encode()), "attention", executor)["tests"]
              if t["outcome"] != "passed"]
    assert failed and all("MultiHeadAttention.forward" in t["feedback"]["en"] for t in failed), failed
    for t in failed:
        assert "CUDA" in t["feedback"]["en"] and "has no GPU" in t["feedback"]["en"], t
        assert "没有 GPU" in t["feedback"]["zh"], t


# ------------------------------------------------------------------ a class the tests cannot find
def test_a_class_name_a_typo_away_is_named_with_its_line():
    from grading.load_hints import missing_name_hint
    source = BASE.replace("class MultiHeadAttention", "class MultiheadAttention")
    line = source.splitlines().index(next(x for x in source.splitlines() if x.startswith("class Multihead"))) + 1
    hint = _ok(missing_name_hint(source, "MultiHeadAttention"))
    assert hint["en"] == (f"attention.py defines MultiheadAttention (line {line}), not MultiHeadAttention: the tests "
                          "look for the exact name MultiHeadAttention (Python names are case-sensitive). Rename it.")
    assert f"MultiheadAttention（第 {line} 行）" in hint["zh"] and "区分大小写" in hint["zh"]
    typo = _ok(missing_name_hint(BASE.replace("ScaledDotProductAttention", "ScaledDotProductionAttention"),
                                 "ScaledDotProductAttention"))
    assert "defines ScaledDotProductionAttention" in typo["en"] and "case-sensitive" not in typo["en"]
    assert "大小写" not in typo["zh"]


def test_a_class_defined_where_import_does_not_reach_is_said_to_be_there():
    from grading.load_hints import missing_name_hint
    head, tail = BASE.split("class MultiHeadAttention", 1)
    indented = "".join("    " + x if x.strip() else x for x in ("class MultiHeadAttention" + tail).splitlines(True))
    guarded = _ok(missing_name_hint(head + 'if __name__ == "__main__":\n' + indented, "MultiHeadAttention"))
    assert "under `if __name__ == \"__main__\":`" in guarded["en"] and "之下" in guarded["zh"]
    nested = _ok(missing_name_hint(head + "def build():\n" + indented, "MultiHeadAttention"))
    assert "inside another function or class" in nested["en"] and "内部" in nested["zh"]


def test_no_class_hint_without_a_class_of_that_name_or_a_near_one_in_the_source():
    from grading.load_hints import missing_name_hint
    head = BASE.split("class MultiHeadAttention", 1)[0]
    assert missing_name_hint(head, "MultiHeadAttention") is None                      # simply missing
    assert missing_name_hint(head + "class CrossAttention:\n    pass\n", "MultiHeadAttention") is None
    assert missing_name_hint(BASE, "MultiHeadAttention") is None                      # defined: nothing to say
    assert missing_name_hint("def f(:\n", "MultiHeadAttention") is None               # does not parse
    # two near names: which one was meant is not known, so neither is named
    two = head + "class MultiheadAttention:\n    pass\n\nclass MultiHeadAtention:\n    pass\n"
    assert missing_name_hint(two, "MultiHeadAttention") is None


def test_a_misnamed_class_in_the_real_jail_gets_its_hint_in_every_test_that_builds_it(executor):
    path = SUBMISSIONS / "faulty" / "mha_class_name_case.py"
    result = graded_corpus_file(executor, path)     # the session's one grading of it (test_grading.py's too)
    missing = [t["feedback"] for t in result["tests"]
               if t["outcome"] != "passed" and "does not define MultiHeadAttention" in t["feedback"]["en"]]
    assert len(missing) >= 5, result["tests"]
    for fb in missing:
        assert "defines MultiheadAttention (line 20), not MultiHeadAttention" in fb["en"], fb
        assert "定义的是 MultiheadAttention（第 20 行），不是 MultiHeadAttention" in fb["zh"], fb


# ------------------------------------------------------------------ indentation Python words in terms of blocks
def test_an_unindent_that_matches_no_block_is_told_the_widths_of_the_line_and_the_one_before():
    sdpa_line = "        weights = scores.softmax(-1)"
    source = BASE.replace(sdpa_line, " " + sdpa_line, 1)                  # one space too many
    kind, line, text = _syntax(source)
    assert kind == "IndentationError" and text.startswith("unindent does not match")
    hint = _ok(load_hint(source, kind, line, text))
    assert line == SDPA_LINE      # dedented from the if-body's 12 spaces to 9, a width no open block has
    assert hint["en"] == (f"line {line} is indented by 9 spaces and line {line - 1} before it by 12: no enclosing "
                          "block starts at 9 spaces. Give every line of a block the same indentation, 4 spaces "
                          "per level.")
    assert f"第 {line} 行缩进了 9 个空格，它前面的第 {line - 1} 行缩进了 12 个" in hint["zh"]


def test_an_unexpected_indent_is_told_the_line_before_opens_no_block():
    source = "import torch\n  x = 1\n"
    hint = _ok(_hint(source))
    assert hint["en"].startswith("line 2 is indented by 2 spaces, more than line 1 before it (0 spaces), which does "
                                 "not end with ':'")
    assert "第 1 行不以“:”结尾" in hint["zh"]
    # a line before that does open something, or tabs, or another IndentationError: no such hint
    assert load_hint("x = [\n    1,\n]\n", "IndentationError", 2, "unexpected indent") is None
    assert load_hint("import torch\n\tx = 1\n", "IndentationError", 2, "unexpected indent") is None
    # expected an indented block: (round 18) its own hint, the block's width, never "opens no block"
    block = _ok(load_hint("if x:\npass\n", *_syntax("if x:\npass\n")))
    assert "opens no block" not in block["en"] and "indent the block's lines by 4 spaces" in block["en"], block


def test_a_python2_print_statement_is_explained_in_both_languages():
    source = BASE + '\nprint "attention loaded"\n'
    hint = _ok(_hint(source))
    line = len(source.splitlines())
    assert hint["en"].startswith(f"line {line} uses print as a statement, as Python 2 did")
    assert f"第 {line} 行把 print 当作语句使用" in hint["zh"] and "print(...)" in hint["zh"]
    # the message without a print statement on its line (a line number off): no hint
    assert load_hint(BASE + "\nx = 1\n", "SyntaxError", line, "Missing parentheses in call to 'print'. Did you "
                     "mean print(...)?") is None


def test_the_api_and_cli_give_the_load_error_in_the_language_asked_for():
    """``localized`` (API, ``autograder grade --json --lang``) made message and feedback strings but
    left load_error an {"en", "zh"} dict in both languages."""
    from grading.i18n import localized
    from grading.proxy import load_error_text
    source = "import torch\n  x = 1\n"
    error = load_error_text(StudentError("IndentationError", "unexpected indent", 2), source=source)
    result = {"status": "graded", "message": error, "load_error": error, "tests": []}
    zh, en = localized(result, "zh"), localized(result, "en")
    assert zh["load_error"] == error["zh"] and zh["load_error"].startswith("第 2 行出现 IndentationError")
    assert en["load_error"] == error["en"] and "Hint: line 2 is indented by 2 spaces" in en["load_error"]
    assert localized({"status": "graded", "load_error": None, "tests": []}, "zh")["load_error"] is None


# ------------------------------------------------------------------ a file that defines nothing
NOTHING_DEFINED = {
    "comments only": "# attention.py\n# TODO: write the attention here\n",
    "a docstring only": '"""Scaled dot-product attention, lab 3."""\n',
    "imports only": "import torch\nimport torch.nn as nn\nfrom torch import Tensor\n",
    "a docstring, comments, imports and pass": '"""lab"""\n# later\nimport math\npass\n...\n',
}


@pytest.mark.parametrize("source", NOTHING_DEFINED.values(), ids=NOTHING_DEFINED.keys())
def test_a_file_that_defines_nothing_is_told_so_once_in_both_languages(source):
    from grader_tests.attention.suite import SUITE
    note = _ok(SUITE.nothing_defined(source))
    assert note["en"].startswith("attention.py defines nothing: expected classes ScaledDotProductAttention "
                                 "and MultiHeadAttention"), note
    assert note["zh"].startswith("attention.py 没有定义任何内容：应定义类 ScaledDotProductAttention 和 "
                                 "MultiHeadAttention"), note
    assert "no test was run" in note["en"] and "没有运行任何测试" in note["zh"]


def test_a_file_that_defines_or_binds_anything_is_graded_as_usual():
    from grader_tests.attention.signature_note import nothing_defined
    head = BASE.split("class MultiHeadAttention", 1)[0]
    for source in (BASE, head, "x = 1\n", "def helper():\n    pass\n", "from torch.nn import *\n",
                   "from torch.nn import MultiheadAttention as MultiHeadAttention\n",
                   'if __name__ == "__main__":\n    print(1)\n', "print('hello')\n", "def f(:\n"):
        assert nothing_defined(source) is None, source


def test_imports_that_may_fail_are_run_so_that_their_load_error_is_told():
    """A package the jail lacks or a module of the student's own fails to import, and the load error
    and its hint say more than "defines nothing"."""
    from grader_tests.attention.suite import SUITE
    for source in ("import torch\nimport scipy\n", "from utils import helper\n", "from . import helper\n",
                   "import torch, sklearn.linear_model\n"):
        assert SUITE.nothing_defined(source) is None, source
    assert SUITE.nothing_defined("import torch, numpy as np, einops, math, matplotlib.pyplot as plt\n") is not None


def test_neither_contract_class_defined_earns_no_point_for_avoiding_fused_attention(executor):
    """A file without the classes has no attention code to check: the static fused-attention check
    does not pass by default (it gave 3/100 to a file of comments or helpers only)."""
    result = _grade(executor, "import torch\n\ndef helper(x):\n    return x\n")
    assert result["status"] == "graded" and result["total"] == 0, [
        (t["id"], t["outcome"]) for t in result["tests"] if t["outcome"] == "passed"]


@pytest.mark.parametrize("source", ["# only a comment\n", '"""only a docstring"""\n', "import torch\n"],
                         ids=["comments", "docstring", "import torch"])
def test_a_file_that_defines_nothing_scores_0_with_one_message_and_no_test_run(executor, source):
    result = _grade(executor, source)
    assert result["status"] == "graded" and result["total"] == 0
    message = result["message"]
    assert message["en"].startswith("attention.py defines nothing: expected classes"), message
    assert message["zh"].startswith("attention.py 没有定义任何内容："), message
    assert "did not load" not in message["en"] and "无法" not in message["zh"]
    for t in result["tests"]:
        assert t["outcome"] == "failed" and t["feedback"]["en"].startswith("not run: attention.py defines nothing"), t
        assert t["feedback"]["zh"].startswith("未运行：attention.py 没有定义任何内容"), t


# ------------------------------------------------------------------ code, but neither contract class
HELPERS_ONLY = {
    "helper functions": "import torch\n\n\ndef softmax(x):\n    return torch.softmax(x, -1)\n\n\n"
                        "def attention(q, k, v):\n    return softmax(q @ k.transpose(-2, -1)) @ v\n",
    "assignments": "import math\n\nD_MODEL = 16\nSCALE = 1 / D_MODEL ** 0.5\nPI = math.pi\n",
    "a helper class": "from torch import nn\n\n\nclass Block(nn.Module):\n    pass\n",
}


@pytest.mark.parametrize("source", HELPERS_ONLY.values(), ids=HELPERS_ONLY.keys())
def test_a_file_of_helpers_without_the_classes_is_told_so_once_and_not_run(executor, source):
    """Every test said "does not define ScaledDotProductAttention" (31 times, score 0): now one
    message, in both languages, names what the file defines and the two classes the lab asks for."""
    result = _grade(executor, source)
    assert result["status"] == "graded" and result["total"] == 0
    message = _ok(result["message"])
    assert message["en"].startswith("attention.py defines neither ScaledDotProductAttention nor MultiHeadAttention, "
                                    "so no test was run. It defines only "), message
    assert message["zh"].startswith("attention.py 既没有定义 ScaledDotProductAttention，也没有定义 MultiHeadAttention，"
                                    "因此没有运行任何测试。文件中只定义了"), message
    assert "class ScaledDotProductAttention(nn.Module) and class MultiHeadAttention(nn.Module)" in message["en"]
    for t in result["tests"]:
        assert t["outcome"] == "failed" and t["feedback"]["en"] == "not run: " + message["en"], t
        assert t["feedback"]["zh"] == "未运行：" + message["zh"], t


def test_a_file_defining_both_classes_under_near_names_is_told_the_names_it_found(executor):
    """ScaledDotProductAttn (a shortening) and MultiheadAttention (case): named with their lines as
    the classes the tests could not find, instead of 31 "does not define" failures."""
    source = (BASE.replace("class ScaledDotProductAttention", "class ScaledDotProductAttn")
              .replace("ScaledDotProductAttention()", "ScaledDotProductAttn()")
              .replace("class MultiHeadAttention", "class MultiheadAttention"))
    result = _grade(executor, source)
    assert result["status"] == "graded" and result["total"] == 0
    message = _ok(result["message"])
    assert ("It defines ScaledDotProductAttn (class, line 6) where the class ScaledDotProductAttention is expected, and "
            "MultiheadAttention (class, line 17) where the class MultiHeadAttention is expected: the tests look up these "
            "exact names (Python names are case-sensitive). Rename them.") in message["en"], message
    assert "类 ScaledDotProductAttn（第 6 行），而应为类 ScaledDotProductAttention，以及类 MultiheadAttention（第 17 行）" \
        in message["zh"], message
    fn = _ok(SUITE_NOTE("def scaled_dot_product_attention(q, k, v):\n    return q\n"))
    assert "scaled_dot_product_attention (function, line 1) where the class ScaledDotProductAttention" in fn["en"]
    assert "write a class (nn.Module), not a function" in fn["en"] and "写成类（nn.Module）而不是函数" in fn["zh"]


def SUITE_NOTE(source: str):
    from grader_tests.attention.suite import SUITE
    return SUITE.nothing_defined(source)


@pytest.mark.parametrize("source", [
    BASE,                                                   # the classes
    BASE.split("class MultiHeadAttention", 1)[0],           # one of them: the suite says which is missing
    (SUBMISSIONS / "faulty" / "mha_class_name_case.py").read_text(encoding="utf-8"),
    "import torch\n\ndef f():\n    pass\n\nprint(f())\n",  # a top-level call: its load error may say more
    "import scipy\n\ndef f():\n    pass\n",                # an import that may fail
    "def f():\n    pass\n\nglobals()['ScaledDot' + 'ProductAttention'] = f\n",
    "def __getattr__(name):\n    return name\n",         # a module __getattr__ answers any name
    "def f():\n    pass\n\n\nsetattr(__import__(__name__), 'X', f)\n",
    "# ScaledDotProductAttention is not written yet\n\ndef f():\n    pass\n\nx = 'MultiHeadAttention'\n",
    "try:\n    import torch\nexcept ImportError:\n    torch = None\n",
    "import torch\n\nW = torch.load('weights.pt')\n",      # a call at import: its load error and hint say more
    "d_model = int(input('d_model? '))\n\n\ndef f():\n    pass\n",
    "import torch\n\n\nclass Block(torch.nn.Module):\n    device = torch.device('cuda')\n",
    "import functools\n\n\n@functools.lru_cache()\ndef f():\n    pass\n",
])
def test_a_file_that_may_define_the_classes_or_runs_code_at_import_is_run_as_usual(source):
    assert SUITE_NOTE(source) is None, source


def test_a_class_name_shortened_by_a_few_letters_is_named_as_the_missing_class():
    """ScaledDotProductAttn (5 letters short) got no hint: a typo allowed 3 letters at most."""
    from grading.load_hints import missing_name_hint
    source = BASE.replace("class ScaledDotProductAttention", "class ScaledDotProductAttn").replace(
        "ScaledDotProductAttention()", "ScaledDotProductAttn()")
    hint = _ok(missing_name_hint(source, "ScaledDotProductAttention"))
    assert hint["en"].startswith("attention.py defines ScaledDotProductAttn (line 6), not ScaledDotProductAttention")
    assert "case-sensitive" not in hint["en"] and "定义的是 ScaledDotProductAttn（第 6 行）" in hint["zh"]
    # 7 letters short is no typo, but round 18 names the words of the contract's name dropped (test_hints_round18)
    assert "defines ScaledDotAttention (line 6)" in _ok(missing_name_hint(
        source.replace("ScaledDotProductAttn", "ScaledDotAttention"), "ScaledDotProductAttention"))["en"]
    assert missing_name_hint(source.replace("ScaledDotProductAttn", "QueryKeyAttention"),
                             "ScaledDotProductAttention") is None      # other words: not said to be it
