"""Round 35: hints that say what the code did.

1. ``raise SystemExit(3)`` at the top level: the load message quoted only "3" ("SystemExit at line 3: 3"), and
   ``sys.exit("3")``, which exits with 1 after printing "3", read the same. The sandbox's runtime now states the
   exit status as Python would end ``python attention.py`` (grading.sandbox.runtime._exit_status), and the load
   message says "the file raised SystemExit (exit code 3) at line 3", in both languages; the top-level hint says
   a ``raise SystemExit`` ends the import, as it said of sys.exit().
"""

from __future__ import annotations

import pytest

from grading.proxy import load_error_text
from grading.sandbox import StudentError
from tests.grading.helpers import code_names, english_in_zh, grade_stored


# ----------------------------------------------------------------------------- 1. SystemExit at import
@pytest.mark.parametrize(("code", "said"), [
    (3, "exit code 3"), (None, "exit code 0"), (True, "exit code 1"), (-2, "exit code -2"),
    ("bye", "exit code 1, message: bye"), ("3", "exit code 1, message: 3"),     # a string exits with 1
])
def test_the_runtime_states_the_exit_status_python_would_give(code, said):
    from grading.sandbox.runtime import _exit_status

    assert _exit_status(SystemExit(code)) == said


def test_an_exit_whose_code_cannot_be_read_is_quoted_as_it_prints():
    from grading.sandbox.runtime import _exit_status

    class Odd(SystemExit):
        @property
        def code(self):
            raise RuntimeError("no")

        def __str__(self):
            return "odd"

    assert _exit_status(Odd()) == "odd"


@pytest.mark.parametrize(("message", "en", "zh"), [
    ("exit code 3", "the file raised SystemExit (exit code 3) at line 4",
     "文件在第 4 行抛出了 SystemExit（退出码 3）"),
    ("exit code 1, message: bye", 'the file raised SystemExit (exit code 1, with the message: "bye") at line 4',
     '文件在第 4 行抛出了 SystemExit（退出码 1，附带消息："bye"）'),
])
def test_the_load_message_says_the_file_raised_systemexit_with_its_exit_code(message, en, zh):
    source = "import torch\nfrom torch import nn\n\nraise SystemExit(3)\n"
    text = load_error_text(StudentError("SystemExit", message, 4), source=source)
    assert text["en"].startswith(en + ". Hint: line 4 runs when the grader imports your file (it ends the import)"), \
        text["en"]
    assert text["zh"].startswith(zh + "。提示：第 4 行在评分器导入你的文件时就会运行（它会结束导入）"), text["zh"]
    assert english_in_zh(text["zh"], code_names(source)) == []


def test_a_systemexit_message_the_runtime_did_not_write_is_quoted_as_before():
    text = load_error_text(StudentError("SystemExit", "3", 4), source="raise SystemExit(3)\n")
    assert text["en"].startswith("SystemExit at line 4: 3"), text["en"]


@pytest.mark.parametrize(("statement", "status"), [
    ("raise SystemExit(3)", "exit code 3"), ("sys.exit(3)", "exit code 3"),
    ("sys.exit('3')", 'exit code 1, with the message: "3"'),
])
def test_a_graded_file_that_exits_at_import_is_told_its_exit_code_and_line(executor, statement, status):
    """Before: "attention.py did not load: SystemExit at line 4: 3" for all three."""
    result = grade_stored(executor, f"import sys\nimport torch\n\n{statement}\n")
    assert result["status"] == "graded"
    assert f"the file raised SystemExit ({status}) at line 4." in result["message"]["en"], result["message"]
    assert "退出码" in result["message"]["zh"] and "第 4 行抛出了 SystemExit" in result["message"]["zh"]
