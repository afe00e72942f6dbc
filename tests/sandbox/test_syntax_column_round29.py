"""Round 29: the sandbox's error reply carries a SyntaxError's column (Python's ``offset``), the one the
result page names and marks; a column that is not the error's own line's is dropped, and the trusted side
accepts only a plausible integer (the reply is written by code that can forge it)."""

from __future__ import annotations

import pytest

from grading.sandbox.runtime import Runtime

FILE = "attention.py"


def _error_of(source: str) -> SyntaxError:
    try:
        compile(source, FILE, "exec")
    except SyntaxError as e:
        return e
    raise AssertionError("the source compiles")


@pytest.mark.parametrize(("source", "where"), [
    ("import torch\ndef f(x)\n    return x\n", (2, 9)),
    ("import torch\ndef f():\n    a = 1\n\tb = 2\n", (4, 1)),
    ("x = 中文 + 1 1\n", (1, 12)),
], ids=["missing-colon", "tab", "cjk-characters"])
def test_a_syntax_error_of_the_students_file_is_replied_with_its_line_and_column(source, where):
    rt = Runtime()
    rt.filename = FILE
    info = rt.error_info(_error_of(source))
    assert (info["lineno"], info["offset"]) == where


def test_a_syntax_error_of_other_text_or_of_a_frame_line_gives_no_column():
    rt = Runtime()
    rt.filename = FILE
    other = SyntaxError("invalid syntax", ("<string>", 1, 5, "1 +* 2\n"))
    assert rt.error_info(other)["offset"] is None            # not the student's file: no line, no column
    # code of the student's file compiling more text under its own name: the traceback's line is the
    # compile() call's, and the inner error's column would be marked on the wrong line
    src = "import torch\n\ncompile('x = (', 'attention.py', 'exec')\n"
    try:
        exec(compile(src, FILE, "exec"), {})
    except SyntaxError as e:
        info = rt.error_info(e)
    assert info["lineno"] == 3 and info["offset"] is None
    assert rt.error_info(ValueError("x"))["offset"] is None


@pytest.mark.slow
def test_the_jail_replies_the_column_and_the_trusted_side_keeps_only_a_plausible_one(executor):
    from grading.sandbox import StudentError

    src = "import torch\n\nx = 1\ndef f(x)\n    pass\n"
    with executor.session(src, "attention.py", "attention") as s:
        with pytest.raises(StudentError) as ei:
            s.load()
    assert (ei.value.kind, ei.value.lineno, ei.value.offset) == ("SyntaxError", 4, 9)
    # the student's code can raise a SyntaxError of its own, naming its file, with any column
    forged = "raise SyntaxError('x', ('attention.py', 1, 10 ** 9, 'raise'))\n"
    with executor.session(forged, "attention.py", "attention") as s:
        with pytest.raises(StudentError) as ei:
            s.load()
    assert ei.value.lineno == 1 and ei.value.offset is None
