"""Round 34b, follow-ups on what a student reads when the code does not load (or loads and then fails in a way
the student cannot trace): each found case checked on the functions that build the text.

Found (each checked on real gradings too): an exit() before a class left the lead saying "does not define
MultiHeadAttention" above a hint saying it is defined at line N (the page contradicted itself), and a `raise SystemExit`
there had no hint at all; `from attention import *` cost 17 points to "Remove the import" of what read as an unknown
module, never said to be the student's own file; a float64 leak showed only PyTorch's "mat1 and mat2 must have the same
dtype" (its dtype test is hidden); in Chinese a quoted English message ending in "." or "?" ran into the next sentence
("Did you mean print(...)?提示：")."""

from __future__ import annotations

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
