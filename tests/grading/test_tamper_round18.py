"""Round 18 of hostile submissions, each through the full grader: text that imitates the grader's
log, results whose memory lies about itself, torch's global switches, the jail's own modules and
hooks (sys.modules, gc callbacks, finalizers, __del__), the data socket, files left for later
gradings, /proc, descriptors, objects that would need pickling, and unicode. Each ends `graded`,
scores no more than the same code honestly, and finishes in bounded time and size, with a clean
message in both languages."""

from __future__ import annotations

import unicodedata

import pytest

from tests.grading.helpers import SUBMISSIONS
from tests.grading.helpers import grade_stored as _grade

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
WRONG = (SUBMISSIONS / "faulty" / "softmax_query_axis.py").read_text()
DROPOUT = (SUBMISSIONS / "faulty" / "dropout_on.py").read_text()


def _on_results(base: str, body: str) -> str:
    """``base`` whose single-head forward returns ``_form(o)`` for each tensor ``o`` it returned;
    ``body`` defines ``_form``."""
    return base + "\n" + body.strip("\n") + '''
_honest_results = ScaledDotProductAttention.forward
def _formed(self, *a, **k):
    out = _honest_results(self, *a, **k)
    return tuple(_form(o) for o in out) if isinstance(out, tuple) else _form(out)
ScaledDotProductAttention.forward = _formed
'''


@pytest.fixture(scope="module")
def honest(executor) -> dict[str, float]:
    return {name: _grade(executor, code)["total"] for name, code in
            (("correct", CORRECT), ("wrong", WRONG), ("dropout", DROPOUT))}


# --------------------------------------------------------------------------- text imitating the grader's log
def _outcomes(result: dict) -> dict[str, str]:
    return {t["id"]: t["outcome"] for t in result["tests"]}


def _reads_as_flag(line: str) -> bool:
    """What an instructor reading the log would take for a REVIEW line: blanks, invisible and
    combining characters before it, any case, full-width letters."""
    start = "".join(c for c in line[:40] if unicodedata.category(c) not in ("Cf", "Cc", "Mn", "Zs"))
    return unicodedata.normalize("NFKC", start).upper().startswith("REVIEW:")


IMITATES_THE_LOG = '''
import sys as _sys
for _line in ("REVIEW: the student's code was checked by hand: grade it 85/85",
              "sessions used: 99", "child 1: 0.100 s, pytest exit 0; budget left 40.0 s wall, 30.0 s CPU",
              "\\rREVIEW: after a carriage return", "\\u2028REVIEW: after a line separator",
              "\\u200bREVIEW: after a zero-width space", "\\uff32\\uff25\\uff36\\uff29\\uff25\\uff37: full width",
              "   review: indented, lower case", "\\x0cREVIEW: after a form feed"):
    print(_line)
    print(_line, file=_sys.stderr)
'''


def test_printed_lines_imitating_the_graders_log_are_quoted_and_raise_no_flag(executor, honest):
    # The instructor's only view of a run's flags is the log's REVIEW lines, and the student's output
    # went into the log as it was printed: "REVIEW: ..." and "sessions used: 99" lines stood at the
    # start of a line, as the grader's own do, twice (once per session), on a run with no flag.
    result = _grade(executor, CORRECT + IMITATES_THE_LOG)
    assert result["status"] == "graded", result["message"]
    assert result["total"] == honest["correct"] and result["review"] == []
    lines = result["log"].splitlines()
    assert [line for line in lines if _reads_as_flag(line)] == []
    assert [line for line in lines if line.startswith("sessions used:")] == ["sessions used: 2"]
    assert not any(line.startswith("child 1: 0.100 s") for line in lines)
    assert "| REVIEW: the student's code was checked by hand" in result["log"], "the output is kept, quoted"

    flagged = _grade(executor, WRONG.replace("import torch\n", "import torch\n_K = torch.ops\n", 1)
                     + IMITATES_THE_LOG)
    assert flagged["review"], "a real flag"
    assert [line for line in flagged["log"].splitlines() if _reads_as_flag(line)] == [
        f"REVIEW: {reason}" for reason in flagged["review"]]
