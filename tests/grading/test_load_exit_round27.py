"""Round 27: a process that ends while attention.py is imported was said to have "crashed" (导入时进程崩溃),
even when it exited with a status of its own (``os._exit(0)`` at the top level: "crashed ... exited with
code 0") or hit a limit; the student, told to run ``python attention.py`` until it shows no error, saw no
error on their machine. Now the import's end is said as a call's end is ("your code's process stopped"),
and when it exited with a status, the top-level exit call that gives that status is named with its line."""

from __future__ import annotations

import pytest

from grading.proxy import load_error_text
from grading.sandbox import SandboxDied
from tests.grading.helpers import code_names, english_in_zh

EXITED_0 = "the sandboxed process exited with code 0"


def said(reason: str, source: str | None) -> dict[str, str]:
    return load_error_text(SandboxDied(reason), "attention.py", None, source)


@pytest.mark.parametrize("reason", [EXITED_0, "the sandboxed process crashed (SIGSEGV)",
                                    "the sandboxed process was killed by signal 9",
                                    "CPU time limit exceeded (6.1 s CPU, limit 6 s)"])
def test_an_import_that_ends_the_process_is_not_called_a_crash_unless_it_was_one(reason):
    text = said(reason, "x = 1\n")
    assert text["en"].startswith("your code's process stopped while importing attention.py: ")
    assert text["zh"].startswith("导入 attention.py 期间你的代码所在进程终止：")
    assert "crashed while importing" not in text["en"] and "时进程崩溃" not in text["zh"]


@pytest.mark.parametrize(("source", "line", "name"), [
    ("import os\nos._exit(0)\n", 2, "os._exit"),
    ("import sys\nimport torch\nif torch.cuda.is_available() is False:\n    sys.exit()\n", 4, "sys.exit"),
    ("from os import _exit\ntry:\n    import apex\nexcept ImportError:\n    _exit(0)\n", 5, "_exit"),
    ("import os\nx = [os._exit(0)]\n", 2, "os._exit"),
])
def test_the_top_level_exit_call_is_named_with_its_line(source, line, name):
    text = said(EXITED_0, source)
    assert f"Hint: line {line} calls {name}() when the grader imports your file" in text["en"], text["en"]
    assert f"提示：第 {line} 行在评分器导入你的文件时调用 {name}()" in text["zh"], text["zh"]
    assert 'if __name__ == "__main__":' in text["en"] and 'if __name__ == "__main__":' in text["zh"]
    assert english_in_zh(text["zh"], code_names(source)) == []


@pytest.mark.parametrize(("reason", "source"), [
    # another status than the one written
    ("the sandboxed process exited with code 3", "import os\nos._exit(0)\n"),
    # exit calls that do not run at import: in a def, a lambda, a class body's method, under the main guard
    (EXITED_0, "import os\ndef stop():\n    os._exit(0)\nf = lambda: os._exit(0)\n"
               "class A:\n    def m(self):\n        os._exit(0)\nif __name__ == '__main__':\n    os._exit(0)\n"),
    # the process did not exit by itself
    ("the sandboxed process crashed (SIGSEGV)", "import os\nos._exit(0)\n"),
    # no source to check
    (EXITED_0, None),
])
def test_no_exit_hint_without_an_exit_call_that_explains_what_was_seen(reason, source):
    text = said(reason, source)
    assert "Hint" not in text["en"] and "提示" not in text["zh"], text
