"""Round 34, broken uploads as Chinese-speaking students make them (the corpus is graded end to end in
tests/web/test_broken_uploads_round34.py): the hints each finding added, checked on the pure functions.

Found: a Markdown fence or a console prompt pasted with the code, a line of Chinese prose without its '#', and a
docstring closed by a Chinese quote were Python's English words and nothing else (the prose line was told to replace
its comma); an exit() between the classes was "does not define MultiHeadAttention"; a second, empty class of the same
name and a forgotten super().__init__() were PyTorch's words only; torch.set_default_device('cuda') had no line; the
constructor summary showed every first parameter's default as ``=0.0`` (``head_dim=0.0``)."""

from __future__ import annotations

import pytest

from grader_tests.attention.signature_note import constructor_note
from grading.i18n import is_msg
from grading.load_hints import load_hint, missing_name_hint, no_forward_note, no_super_init_note
from tests.grading.helpers import SUBMISSIONS, syntax_error_of

BASE = (SUBMISSIONS / "correct" / "einsum.py").read_text(encoding="utf-8")
LINES = BASE.splitlines()
SCORES = LINES.index('        scores = torch.einsum("bhqd,bhkd->bhqk", q, k)') + 1
MHA = LINES.index("class MultiHeadAttention(nn.Module):") + 1


def _hint(source: str) -> dict:
    hint = load_hint(source, *syntax_error_of(source))
    assert is_msg(hint), hint
    assert "; " not in hint["en"] and "; " not in hint["zh"]
    assert any("\u4e00" <= c <= "\u9fff" for c in hint["zh"])
    return hint


def _with_line(n: int, text: str, source: str = BASE) -> str:
    lines = source.splitlines()
    lines.insert(n - 1, text)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ text pasted around the code
@pytest.mark.parametrize("fence", ["```python", "```", "~~~", "  ```python3"])
def test_a_markdown_fence_is_named_with_every_fence_line(fence):
    # (``~~~py`` alone is Python, ~(~(~py)): the error is then at the closing fence, named the same way)
    source = fence + "\n" + BASE + fence.strip()[:3] + "\n"
    hint = _hint(source)
    last = len(source.splitlines())
    assert f"line 1 is a Markdown code fence ({fence.strip()[:3]}), which is not Python" in hint["en"]
    assert f"delete the fence lines (lines 1, {last})" in hint["en"]
    assert f"第 1 行是 Markdown 代码块标记（{fence.strip()[:3]}），不是 Python 代码：请删掉这些标记行（第 1、{last} 行）" \
        in hint["zh"]


def test_one_fence_line_is_told_to_be_deleted():
    hint = _hint("```python\n" + BASE)
    assert hint["en"].endswith("which is not Python: delete it.") and hint["zh"].endswith("请删掉这一行。")


def test_console_prompts_are_named_and_the_code_after_them_kept():
    one = _hint(BASE.replace('        scores = torch', '        >>> scores = torch'))
    assert f"line {SCORES} starts with `>>>`, the prompt of the interactive Python console" in one["en"]
    assert "delete the prompt and keep the code after it" in one["en"]
    assert f"第 {SCORES} 行以 `>>>` 开头，这是 Python 交互式控制台的提示符" in one["zh"]
    session = ">>> import torch\n>>> x = torch.ones(2,\n...               3)\n>>> print(x)\n"
    many = _hint(session)
    assert "delete the prompts (`>>> `, `... `) on lines 1, 2, 3, 4" in many["en"]
    assert "请删掉第 1、2、3、4 行的提示符" in many["zh"]


def test_an_ellipsis_statement_is_not_a_prompt():
    # `...` alone is Python (a body left for later): an error elsewhere gets no prompt hint
    source = "def f():\n    ...\n\nx = (1 2)\n"
    assert load_hint(source, *syntax_error_of(source)) is None or "prompt" not in load_hint(
        source, *syntax_error_of(source))["en"]


@pytest.mark.parametrize("prose", ["计算注意力分数，然后除以根号 d_k", "计算注意力分数 然后 softmax",
                                   "注意：这里要转置。"])
def test_a_line_of_chinese_prose_is_told_to_be_a_comment(prose):
    hint = _hint(_with_line(SCORES, "        " + prose))
    assert f"line {SCORES} is Chinese text (" in hint["en"] and "start it with # to make it a comment" in hint["en"]
    assert f"第 {SCORES} 行是中文文字（" in hint["zh"] and "请在行首加 # 改成注释" in hint["zh"]


def test_a_full_width_comma_in_code_is_still_the_characters_hint():
    """Code that names a Chinese identifier and then a full-width comma is code, not prose."""
    for line in ("        scores = torch.einsum(\"bhqd,bhkd->bhqk\"，q, k)", "        分数 = f(q，k)"):
        hint = _hint(BASE.replace('        scores = torch.einsum("bhqd,bhkd->bhqk", q, k)', line))
        assert "full-width comma" in hint["en"] and "Chinese text" not in hint["en"], hint


def test_a_docstring_closed_by_a_chinese_quote_names_the_quote():
    source = BASE.replace('"""einsum everywhere; scale applied to q before the product."""',
                          '"""einsum everywhere，缩放。”')
    hint = _hint(source)
    end = len(source.splitlines())
    assert f'line 1 opens a string with """ and nothing closes it before the end of the file (line {end})' \
        in hint["en"]
    assert "column 25 of that line has a Chinese quote ” (U+201D), which does not close it" in hint["en"]
    assert '该行第 25 列是中文引号 ”（U+201D），它不能闭合字符串。请在那里改成英文的 """' in hint["zh"]


def test_a_docstring_left_open_says_where_it_opens():
    source = BASE.replace('"""einsum everywhere; scale applied to q before the product."""', '"""einsum everywhere')
    hint = _hint(source)
    assert hint["en"].startswith('line 1 opens a string with """ and nothing closes it')
    assert 'add the closing """' in hint["en"] and '请在字符串应当结束的地方补上 """' in hint["zh"]


# ------------------------------------------------------------------ an exit() before a class
@pytest.mark.parametrize("call", ["exit()", "quit()", "sys.exit(0)", "sys.exit()"])
def test_an_exit_before_a_class_is_named_where_the_class_is_said_missing(call):
    source = BASE.replace("class MultiHeadAttention", f"import sys\n{call}\n\n\nclass MultiHeadAttention")
    hint = missing_name_hint(source, "MultiHeadAttention")
    defined = source.splitlines().index("class MultiHeadAttention(nn.Module):") + 1
    assert is_msg(hint), hint
    assert f"MultiHeadAttention is defined at line {defined}, but line {MHA + 1} calls {call.split('(')[0]}() " \
           "before it" in hint["en"]
    assert f"第 {MHA + 1} 行在它之前调用了 {call.split('(')[0]}()，导入就在那里结束了" in hint["zh"]


def test_an_exit_after_the_class_or_under_the_main_guard_is_not_blamed():
    after = BASE + "\nexit()\n"
    guarded = BASE.replace("class MultiHeadAttention", 'if __name__ == "__main__":\n    exit()\n\n\n'
                                                       "class MultiHeadAttention")
    for source in (after, guarded):
        assert missing_name_hint(source, "MultiHeadAttention") is None


# ------------------------------------------------------------------ a class defined twice
def test_a_second_class_of_the_same_name_without_forward_is_named():
    source = BASE + '\n\nclass ScaledDotProductAttention(nn.Module):\n    """TODO"""\n    pass\n'
    second = len(BASE.splitlines()) + 3
    for message in ('Module [ScaledDotProductAttention] is missing the required "forward" function',
                    "_forward_unimplemented() got an unexpected keyword argument 'return_weights'"):
        note = no_forward_note(source, None, message)
        assert is_msg(note), message
        assert f"class ScaledDotProductAttention is defined at line 6 with a forward and again at line {second} " \
               "without one: Python keeps the last definition" in note["en"]
        assert f"类 ScaledDotProductAttention 在第 6 行定义过（有 forward），又在第 {second} 行重新定义（没有 forward）" \
            in note["zh"]


# ------------------------------------------------------------------ super().__init__() forgotten
@pytest.mark.parametrize(("message", "lineno"), [
    ("cannot assign module before Module.__init__() call", "q_proj"),
    ("cannot assign parameters before Module.__init__() call", "q_proj"),
    ("'MultiHeadAttention' object has no attribute '_modules'", None),
])
def test_a_forgotten_super_init_is_named_with_the_init_line(message, lineno):
    source = BASE.replace("        super().__init__()\n        self.heads", "        self.heads")
    lines = source.splitlines()
    init = lines.index("    def __init__(self, d_model, num_heads, head_dim=None):") + 1
    line = next(n for n, t in enumerate(lines, 1) if "self.q_proj, self.k_proj =" in t) if lineno else None
    note = no_super_init_note(source, line, message)
    assert is_msg(note), message
    assert f"MultiHeadAttention.__init__ (line {init}) never calls super().__init__()" in note["en"]
    assert f"MultiHeadAttention.__init__（第 {init} 行）没有调用 super().__init__()" in note["zh"]


def test_a_super_init_called_late_is_told_to_move_and_one_called_first_gets_no_note():
    late = BASE.replace("        super().__init__()\n        self.heads = num_heads\n",
                        "        self.heads = num_heads\n        self.sdpa0 = ScaledDotProductAttention()\n"
                        "        super().__init__()\n")
    lines = late.splitlines()
    failing = lines.index("        self.sdpa0 = ScaledDotProductAttention()") + 1
    note = no_super_init_note(late, failing, "cannot assign module before Module.__init__() call")
    assert f"calls super().__init__() at line {failing + 1}, after line {failing} assigns to self" in note["en"]
    assert f"在第 {failing + 1} 行才调用 super().__init__()，晚于第 {failing} 行对 self 的赋值" in note["zh"]
    # the right file, or another message: nothing
    assert no_super_init_note(BASE, MHA + 2, "cannot assign module before Module.__init__() call") is None
    assert no_super_init_note(late, failing, "mat1 and mat2 shapes cannot be multiplied") is None


# ------------------------------------------------------------------ a GPU made the default device
@pytest.mark.parametrize("call", ["torch.set_default_device('cuda')", 'torch.set_default_device("cuda:0")',
                                  "torch.set_default_device(torch.device('cuda'))",
                                  "torch.set_default_tensor_type(torch.cuda.FloatTensor)"])
def test_a_gpu_default_device_is_named_by_its_line_when_the_error_has_none(call):
    source = BASE.replace("from torch import nn\n", f"from torch import nn\n{call}\n")
    hint = load_hint(source, "AssertionError", None, "Torch not compiled with CUDA enabled")
    assert "the grader runs on the CPU and has no GPU" in hint["en"]
    assert f"Line 4 makes the GPU the default device ({call})" in hint["en"] and "delete that line" in hint["en"]
    assert f"第 4 行把 GPU 设为默认设备（{call}）" in hint["zh"]
    commented = BASE.replace("from torch import nn\n", f"from torch import nn\n# {call}\n")
    assert "default device" not in load_hint(commented, "AssertionError", None,
                                             "Torch not compiled with CUDA enabled")["en"]


# ------------------------------------------------------------------ the constructor summary's defaults
def test_the_constructor_summary_shows_the_contracts_default_for_head_dim_and_none_it_cannot_know():
    source = BASE.replace("def __init__(self, d_model, num_heads, head_dim=None):",
                          "def __init__(self, d_model, num_heads, head_dim, dropout, scale_mode):")
    outcomes = {f"t{i}": {"outcome": "failed", "feedback": {
        "en": "creating MultiHeadAttention(16, 4) raised TypeError: MultiHeadAttention.__init__() missing 3 "
              "required positional arguments: 'head_dim', 'dropout', and 'scale_mode'",
        "zh": "x"}} for i in range(3)}
    note = constructor_note(source, outcomes)
    assert "give head_dim, dropout, scale_mode a default (head_dim=None, dropout=0.0)" in note["en"], note
    assert "给 head_dim、dropout、scale_mode 设默认值（head_dim=None, dropout=0.0）" in note["zh"]
    assert "head_dim=0.0" not in note["en"] and "scale_mode=" not in note["en"]


# ------------------------------------------------------------------ a name spelled apart from the one assigned
def test_a_name_differing_only_in_underscores_from_one_the_function_assigns_is_named():
    from grading.load_hints import name_note

    source = BASE.replace("        weights = scores.softmax(-1)", "        d_k = q.shape[-1]\n"
                                                                   "        weights = (scores / dk).softmax(-1)")
    line = source.splitlines().index("        weights = (scores / dk).softmax(-1)") + 1
    note = name_note(source, line, "name 'dk' is not defined")
    assert note == {"en": f"line {line} uses `dk`, which nothing in the file gives a value, but `d_k` (line {line - 1}) "
                          "differs from it only in case or underscores: write the same name in both places",
                    "zh": f"第 {line} 行用到了 `dk`，文件中没有任何地方给它赋值，而第 {line - 1} 行的 `d_k` 与它只差"
                          "大小写或下划线：请两处写成同一个名字"}


def test_no_name_is_offered_when_none_or_two_are_that_close_or_the_only_one_is_in_another_function():
    from grading.load_hints import name_note

    assert name_note(BASE, SCORES, "name 'dk' is not defined") is None                 # nothing close
    two = "d_k = 1\nD_K = 2\nx = dk\n"
    assert name_note(two, 3, "name 'dk' is not defined") is None                       # which one is meant?
    other = "def f():\n    NumHeads = 4\n\nx = num_heads * 2\n"
    assert name_note(other, 4, "name 'num_heads' is not defined") is None              # f's local, not the module's
    assert name_note("d_k = 1\nx = dkk\n", 2, "name 'dkk' is not defined") is None     # a typo, not case/underscores


# ------------------------------------------------------------------ a data file read at import
@pytest.mark.parametrize("read", ["DATA = np.loadtxt('tabpfn_data.csv', delimiter=',')",
                                  "with open('config.json') as f:\n    CFG = f.read()"])
def test_a_file_read_at_import_says_the_grader_runs_attention_py_without_the_students_other_files(read):
    source = BASE.replace("from torch import nn\n", "from torch import nn\nimport numpy as np\n" + read + "\n")
    hint = load_hint(source, "FileNotFoundError", 5, "[Errno 2] No such file or directory")
    assert hint == {"en": "line 5 runs when the grader imports your file (the grader runs attention.py alone, in a "
                          "folder without your other files): put script code (self-tests, argument parsing, training, "
                          'plots) under `if __name__ == "__main__":`, which the grader does not run.',
                    "zh": "第 5 行在评分器导入你的文件时就会运行（评分器在一个没有你其他文件的文件夹里单独运行 attention.py）："
                          "请把脚本代码（自测、参数解析、训练、画图）放到 `if __name__ == \"__main__\":` 下面，评分器不会"
                          "运行那里的代码。"}
    # another error on such a line keeps the plain hint
    assert "other files" not in load_hint(source, "ValueError", 5, "bad")["en"]


def test_a_chinese_quote_inside_the_text_of_an_open_docstring_is_not_blamed():
    source = BASE.replace('"""einsum everywhere; scale applied to q before the product."""',
                          '"""他说“缩放”很重要，然后')
    hint = _hint(source)
    assert "Chinese quote" not in hint["en"] and 'add the closing """' in hint["en"]
    closed_by_three = BASE.replace('"""einsum everywhere; scale applied to q before the product."""',
                                   '"""einsum everywhere”””')
    assert "column 21 of that line has a Chinese quote ” (U+201D)" in _hint(closed_by_three)["en"]


# ------------------------------------------------------------------ while the tests call the code
def test_a_forward_that_calls_its_own_module_is_named_when_python_gave_up_on_the_depth():
    from grading.load_hints import runtime_file_note

    lines = BASE.splitlines()
    at = lines.index("        out = self.out_proj(torch.einsum(\"bhqd->bqhd\", out).flatten(2))")
    for call, shown in (("self(x)", "self(...)"), ("self.forward(x, context)", "self.forward(...)")):
        source = "\n".join(lines[:at] + [f"        {call}"] + lines[at:]) + "\n"
        note = runtime_file_note(source, 9, "maximum recursion depth exceeded while calling a Python object")
        assert note["en"].startswith(f"line {at + 1} in MultiHeadAttention.forward calls the module itself ({shown})")
        assert note["zh"].startswith(f"第 {at + 1} 行在 MultiHeadAttention.forward 中调用了模块自身（{shown}）")
    # no such call, or another error: nothing
    assert runtime_file_note(BASE, 9, "maximum recursion depth exceeded") is None
    assert runtime_file_note(BASE, 9, "mat1 and mat2 shapes cannot be multiplied") is None


def test_a_file_opened_while_the_tests_run_says_the_grader_runs_attention_py_without_the_students_files():
    from grading.load_hints import runtime_file_note

    note = runtime_file_note(BASE, 20, "[Errno 2] No such file or directory: 'weights/mha.pt'")
    assert note == {"en": "the grader runs attention.py alone, in a folder without your other files, so weights/mha.pt "
                          "is not there: build everything the module needs in code (the tests load the weights they "
                          "compare)",
                    "zh": "评分器在一个没有你其他文件的文件夹里单独运行 attention.py，所以那里没有 weights/mha.pt：请在代码中"
                          "构建模块需要的一切（测试会自己载入要比较的权重）"}


def test_the_missing_file_note_names_the_file_the_grader_ran_not_always_attention_py():
    """Review of round 34: the note said "runs attention.py alone" whatever the suite's file was (the NumPy
    lab's, or a student file graded under another name)."""
    from grading.load_hints import runtime_file_note

    source = BASE.replace("from torch import nn\n", "from torch import nn\nDATA = open('w.bin').read()\n")
    at_import = load_hint(source, "FileNotFoundError", 4, "[Errno 2] No such file or directory", "attention_np.py")
    at_call = runtime_file_note(BASE, 9, "[Errno 2] No such file or directory: 'w.pt'", "attention_np.py")
    for note in (at_import, at_call):
        assert "runs attention_np.py alone" in note["en"] and "单独运行 attention_np.py" in note["zh"], note
