"""Round 34b, follow-ups on what a student reads when the code does not load (or loads and then fails in a way
the student cannot trace): each found case checked on the functions that build the text.

Found (each checked on real gradings too): an exit() before a class left the lead saying "does not define
MultiHeadAttention" above a hint saying it is defined at line N (the page contradicted itself), and a `raise SystemExit`
there had no hint at all; `from attention import *` cost 17 points to "Remove the import" of what read as an unknown
module, never said to be the student's own file; a float64 leak showed only PyTorch's "mat1 and mat2 must have the same
dtype" (its dtype test is hidden); in Chinese a quoted English message ending in "." or "?" ran into the next sentence
("Did you mean print(...)?提示：")."""

from __future__ import annotations

import re

import pytest

from grader_tests.attention.drivers import AttentionStudent
from grading.i18n import is_msg
from grading.proxy import Feedback, InheritedSession
from grading.sandbox import StudentError
from tests.grading.helpers import SUBMISSIONS

BASE = (SUBMISSIONS / "correct" / "einsum.py").read_text(encoding="utf-8")
LINES = BASE.splitlines()
MHA = LINES.index("class MultiHeadAttention(nn.Module):") + 1
SCORES = LINES.index('        scores = torch.einsum("bhqd,bhkd->bhqk", q, k)') + 1


def _with_line(n: int, text: str, source: str = BASE) -> str:
    lines = source.splitlines()
    lines.insert(n - 1, text)
    return "\n".join(lines) + "\n"


class _NoClassSession:
    """A sandbox session over ``source`` whose module lacks the class the tests build (as after an exit())."""

    def __init__(self, source: str):
        self.source, self.alive, self.output = source, True, ""

    def load(self):
        return None

    def build(self, name, args=(), kwargs=None, **_):
        raise StudentError("AttributeError", f"module 'attention' has no attribute '{name}'", None)

    def close(self):
        self.alive = False


def _missing_feedback(source: str) -> dict:
    student = AttentionStudent(InheritedSession(_NoClassSession(source)))
    assert student.load()
    with pytest.raises(Feedback) as caught:
        student.instantiate(student.new("MultiHeadAttention", 16, 4))
    text = caught.value.message
    assert is_msg(text), text
    return text


# ------------------------------------------------------------------ 1. an exit() before a class: the lead says so
@pytest.mark.parametrize("call", ["exit()", "quit()", "sys.exit(0)", "sys.exit()", "os._exit(0)"])
def test_the_lead_says_where_the_import_stopped_when_an_exit_comes_before_the_class(call):
    source = BASE.replace("class MultiHeadAttention", f"import os\nimport sys\n{call}\n\n\nclass MultiHeadAttention")
    text = _missing_feedback(source)
    stop = MHA + 2
    assert text["en"].startswith(f"attention.py stopped at line {stop}, before defining MultiHeadAttention. Hint: "), text
    assert text["zh"].startswith(f"attention.py 在第 {stop} 行就结束了，没有执行到 MultiHeadAttention 的定义。提示："), text
    assert "does not define" not in text["en"] and "没有定义" not in text["zh"]


def test_a_class_really_missing_keeps_the_plain_lead():
    head = BASE.split("class MultiHeadAttention", 1)[0]
    for source in (head, head + "exit()\n", BASE + "\nexit()\n"):
        text = _missing_feedback(source if "class Multi" not in source else source.replace(
            "class MultiHeadAttention", "class MultiHeadAttentionX"))
        assert text["en"].startswith("attention.py does not define MultiHeadAttention"), text
        assert text["zh"].startswith("attention.py 没有定义 MultiHeadAttention"), text


# ------------------------------------------------------------------ 4. a quoted English message ending in "."
def test_a_hint_after_quoted_english_ending_in_a_full_stop_is_set_apart_in_chinese():
    from grading.load_hints import hint_sep, then, with_hint
    from grading.proxy import load_error_text

    quoted = {"en": "NameError at line 5: name 'x' is not defined.", "zh": "第 5 行出现 NameError，PyTorch/Python 报错原文：name 'x' is not defined."}
    hint = {"en": "define it.", "zh": "请定义它。"}
    assert with_hint(quoted, hint)["zh"].endswith("is not defined. 提示：请定义它。")
    assert then(quoted, hint)["zh"].endswith("is not defined. 请定义它。")
    for mark in "!?":
        assert hint_sep({"en": "a" + mark, "zh": "甲 a" + mark})["zh"] == " 提示："
    # Chinese text keeps its own full stop and no space; text without a stop gets one
    assert hint_sep({"en": "a.", "zh": "甲。"})["zh"] == "提示：" and hint_sep({"en": "a", "zh": "甲"})["zh"] == "。提示："
    # as a load error reads it: Python's message ends with "." and a hint follows
    source = BASE.replace("from torch import nn\n", "from torch import nn\nimport numpy as np\n"
                                                     "DATA = np.loadtxt('tabpfn_data.csv', delimiter=',')\n")
    text = load_error_text(StudentError("FileNotFoundError", "tabpfn_data.csv not found.", 5), source=source)
    assert "tabpfn_data.csv not found. 提示：第 5 行" in text["zh"], text
    assert ".提示" not in text["zh"] and ".。" not in text["zh"]


# ------------------------------------------------------------------ 2. the file imports itself
@pytest.mark.parametrize("line", ["from attention import *", "import attention",
                                  "from attention import ScaledDotProductAttention", "import attention as A"])
def test_an_import_of_the_file_itself_is_said_to_be_the_students_own_file(line):
    from grader_tests.attention import static
    from grader_tests.attention.suite import SUITE
    from grader_tests.attention.test_implementation import _hidden_names

    assert static.SELF_MODULE == SUITE.module_name == SUITE.student_file.removesuffix(".py")
    source = BASE.replace("from torch import nn\n", f"from torch import nn\n{line}\n")
    text = _hidden_names(source)
    assert text["en"].startswith("attention.py imports attention (line 4), which is attention.py itself: delete that "
                                 "import"), text
    assert text["zh"].startswith("attention.py 导入了 attention（第 4 行），而 attention 就是 attention.py 本身："
                                 "请删掉这个导入"), text
    assert "Remove the import" not in text["en"] and "; " not in text["zh"]


def test_a_self_import_beside_another_unfollowed_import_names_both_and_a_module_of_a_similar_name_is_not_the_file():
    from grader_tests.attention.test_implementation import _hidden_names

    both = BASE.replace("from torch import nn\n", "from torch import nn\nimport attention\nimport attention_utils\n")
    text = _hidden_names(both)
    assert text["en"].startswith("attention.py imports attention (line 4), which is attention.py itself")
    assert "attention_utils (line 5)" in text["en"] and "Remove the import" in text["en"]
    assert "attention_utils（第 5 行）" in text["zh"]
    other = _hidden_names(BASE.replace("from torch import nn\n", "from torch import nn\nimport attention_utils\n"))
    assert "itself" not in other["en"] and "本身" not in other["zh"]


# ------------------------------------------------------------------ 3. two dtypes in one operation
@pytest.mark.parametrize(("message", "first", "second"), [
    ("mat1 and mat2 must have the same dtype, but got Double and Float", "float64", "float32"),
    ("expected m1 and m2 to have the same dtype, but got: double != float", "float64", "float32"),
    ("expected scalar type Float but found Double", "float32", "float64"),
    ("expected scalar type Double but found Half", "float64", "float16"),
    ("self and mat2 must have the same dtype, but got Float and c10::BFloat16", "float32", "bfloat16"),
])
def test_a_dtype_mismatch_names_the_line_the_two_dtypes_as_seen_and_where_float64_is_written(message, first, second):
    from grading.proxy import student_error_text

    maker = "        scale = torch.tensor([q.shape[-1] ** -0.5], dtype=torch.float64)"
    source = _with_line(SCORES, maker)
    text = student_error_text("ScaledDotProductAttention.forward", StudentError("RuntimeError", message, SCORES + 4),
                              source=source)
    names = [w.removeprefix("c10::") for w in re.findall(r"\b(?:c10::)?(?:Double|Float|Half|BFloat16|double|float)\b",
                                                         message)]
    assert f"line {SCORES + 4} combines a {first} tensor with a {second} one (PyTorch's {names[0]} and {names[1]})" \
        in text["en"], text
    assert f"第 {SCORES + 4} 行把 {first} 的 tensor 与 {second} 的 tensor 放在一起运算（PyTorch 称之为 {names[0]} 和 " \
           f"{names[1]}）" in text["zh"], text
    wrote = "float64" in (first, second)
    assert (f"the file writes float64 at line {SCORES} (torch.float64)" in text["en"]) is wrote
    assert (f"而文件在第 {SCORES} 行（torch.float64）写出了 float64" in text["zh"]) is wrote


@pytest.mark.parametrize(("maker", "shown"), [
    ("        v = v.double()", "line {n} (.double())"),
    ("        v = v.type(torch.DoubleTensor)", "line {n} (torch.DoubleTensor)"),
    ("        w = torch.ones(3, dtype=float)", "line {n} (dtype=float)"),
    ("        s = np.float64(q.shape[-1]) ** -0.5", "line {n} (np.float64)"),
    ("        s = torch.from_numpy(np.ones(3))", "line {n} (torch.from_numpy, which keeps the NumPy array's dtype, "
                                               "float64 by default)"),
    ("        s = torch.from_numpy(np.ones(3, dtype=np.float64))", "line {n} (np.float64)"),
])
def test_each_way_of_writing_float64_is_named_and_none_under_the_main_guard_or_in_a_comment(maker, shown):
    from grading.load_hints import dtype_note

    message = "mat1 and mat2 must have the same dtype, but got Double and Float"
    note = dtype_note(_with_line(SCORES, maker), SCORES + 3, message)
    assert f"writes float64 at {shown.format(n=SCORES)}:" in note["en"], note
    quiet = [BASE + '\nif __name__ == "__main__":\n    x = torch.ones(2, dtype=torch.float64)\n',
             _with_line(SCORES, "        # scores = scores.double()")]
    for source in quiet:
        note = dtype_note(source, SCORES, message)
        assert note is not None and "writes float64" not in note["en"] and "写出了 float64" not in note["zh"]
    # another error, one dtype, or a dtype that is not floating on a line without a product: nothing (round 36: an
    # integer tensor in a product is named, tests/grading/test_feedback_round36.py)
    for other in ("mat1 and mat2 shapes cannot be multiplied (6x4 and 5x4)", "expected scalar type Float but found Float"):
        assert dtype_note(BASE, SCORES, other) is None, other
    assert dtype_note(BASE, SCORES + 2, "expected scalar type Long but found Float") is None      # scores + mask
    assert "combines an int64 tensor with a float32 one" in dtype_note(BASE, SCORES, "expected scalar type Long but "
                                                                               "found Float")["en"]


# ------------------------------------------------------------------ 1b. raise SystemExit, as sys.exit() does
@pytest.mark.parametrize("stop", ["raise SystemExit", "raise SystemExit(0)", "raise SystemExit('测试结束')"])
def test_a_raise_of_system_exit_before_the_class_is_named_in_the_lead_and_the_hint(stop):
    from grading.load_hints import missing_name_hint

    source = BASE.replace("class MultiHeadAttention", f"{stop}\n\n\nclass MultiHeadAttention")
    text = _missing_feedback(source)
    assert text["en"].startswith(f"attention.py stopped at line {MHA}, before defining MultiHeadAttention. Hint: "
                                 f"MultiHeadAttention is defined at line {MHA + 3}, but line {MHA} raises SystemExit "
                                 "before it"), text
    assert "delete that raise or put script code" in text["en"]
    assert f"第 {MHA} 行在它之前抛出了 SystemExit，导入就在那里结束了：请删掉这条 raise" in text["zh"], text
    guarded = BASE.replace("class MultiHeadAttention", f'if __name__ == "__main__":\n    {stop}\n\n\n'
                                                       "class MultiHeadAttention")
    assert missing_name_hint(guarded, "MultiHeadAttention") is None


def test_a_raise_of_system_exit_with_the_exit_status_seen_is_named_when_the_process_ended():
    from grading.load_hints import load_hint

    source = BASE + "\nraise SystemExit(3)\n"
    hint = load_hint(source, "SandboxDied", None, "the sandboxed process exited with code 3")
    line = len(BASE.splitlines()) + 2
    assert hint["en"].startswith(f"line {line} raises SystemExit when the grader imports your file"), hint
    assert hint["zh"].startswith(f"第 {line} 行在评分器导入你的文件时抛出 SystemExit，进程因此"), hint
    assert load_hint(source, "SandboxDied", None, "the sandboxed process exited with code 4") is None


def test_an_exit_under_a_condition_is_not_said_to_have_stopped_the_import():
    """Second review of round 34: `if "--help" in sys.argv: sys.exit(0)` above a class under `if USE_MHA:` (False)
    was led by "stopped at line 4", a cause never checked; the lead now says what was seen, and the hint says what
    the exit does when it runs."""
    from grading.load_hints import missing_name_hint, missing_name_lead

    source = ("import sys\nimport torch\nfrom torch import nn\nif '--help' in sys.argv:\n    sys.exit(0)\n"
              "USE_MHA = False\nif USE_MHA:\n    class MultiHeadAttention(nn.Module):\n        pass\n")
    assert missing_name_lead(source, "MultiHeadAttention") == {
        "en": "attention.py does not define MultiHeadAttention", "zh": "attention.py 没有定义 MultiHeadAttention"}
    hint = missing_name_hint(source, "MultiHeadAttention")
    assert "when its condition holds" in hint["en"] and "条件成立时" in hint["zh"], hint
    assert "which ends the import there" not in hint["en"], hint
    # an exit on the module's own level stops the import for certain, even above a class under an if
    certain = source.replace("if '--help' in sys.argv:\n    sys.exit(0)\n", "sys.exit(0)\n")
    assert missing_name_lead(certain, "MultiHeadAttention")["en"].startswith("attention.py stopped at line 4")
