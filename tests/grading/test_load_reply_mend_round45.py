"""Round 45 mend, review RC LOW 5 and LOW 6: what a jail whose wire broke at import is told.

* A reply to the import that the client could not read (``len`` or ``type`` replaced at import: the jail's encoder
  wrote a bad header) was said as "attention.py did not load", though a reply came (the module's code had run).
  Now: "the sandbox's reply to importing attention.py could not be read: <what the client saw>".
* A KeyboardInterrupt in the grader's loop between calls was said as "a SIGINT that arrived between calls, while none
  of your code was running": a built-in the loop calls, replaced to raise it, ends the loop the same way, with no
  signal. Now: "a KeyboardInterrupt (what a SIGINT raises) in the grader's loop between calls".
* A jail that shut the grader's channel and went on running was told "killed by SIGKILL" (of unknown origin): the
  kill was the grader's, 0.25 s after the channel closed, and is said so."""

from __future__ import annotations

import json

import pytest

from grading.proxy import RAN, UNREAD, death_text, load_error_text, load_seen, not_loaded_text
from grading.runner import GradeInput, grade
from grading.sandbox.client import (
    CLOSED_GRACE_S,
    CLOSED_KILLED_TEXT,
    INTERRUPTED_TEXT,
    SandboxDied,
    StudentError,
)
from tests.grading.test_hostile_round31 import CORRECT

LEN_ZERO = CORRECT + "\nimport builtins as _b\n_b.len = lambda o: 0\n"
SHUT_THEN_SPIN = CORRECT + '''
import socket as _so, os as _os
_s = _so.socket(fileno=_os.dup(3)); _s.shutdown(_so.SHUT_RDWR); _s.close()
while True:
    pass
'''


def test_an_unreadable_reply_to_the_import_is_said_as_that_never_as_did_not_load():
    exc = StudentError("InvalidResult", "invalid reply from the sandbox: bad header: ValueError")
    said = load_error_text(exc)
    assert said["en"] == ("the sandbox's reply to importing attention.py could not be read: invalid reply from the "
                          "sandbox: bad header: ValueError")
    assert said["zh"] == ("沙箱对导入 attention.py 的回复无法读取（评分系统的英文说明：invalid reply from the sandbox: "
                          "bad header: ValueError）")
    assert load_seen(exc) == UNREAD
    assert not_loaded_text("attention.py", load_seen(exc)) == {
        "en": "not run: the sandbox's reply to importing attention.py could not be read",
        "zh": "未运行：沙箱对导入 attention.py 的回复无法读取"}
    # a student's own InvalidResult, raised at a line of the file, stays the file's exception
    own = StudentError("InvalidResult", "mine", 3)
    assert load_seen(own) is None and not_loaded_text("attention.py", load_seen(own))["en"] == \
        "not run: attention.py did not load"


def test_a_keyboard_interrupt_in_the_loop_is_not_said_as_a_signal_that_arrived():
    told = death_text(INTERRUPTED_TEXT)
    assert told["en"] == "the process was ended by a KeyboardInterrupt (what a SIGINT raises) in the grader's loop " \
                         "between calls"
    assert told["zh"] == "进程在两次调用之间因评分器循环中的 KeyboardInterrupt（SIGINT 会引发它）而结束"
    assert "arrived" not in told["en"] and load_seen(SandboxDied(INTERRUPTED_TEXT)) == RAN


def test_the_graders_kill_after_the_channel_closed_is_said_as_the_graders():
    told = death_text(CLOSED_KILLED_TEXT.format(grace=CLOSED_GRACE_S))
    assert told["en"] == ("the process closed the grader's channel and went on running: the grader killed it "
                          "(SIGKILL) 0.25 s later")
    assert told["zh"] == "进程关闭了与评分器通信的通道后仍在运行：评分器在 0.25 秒后用 SIGKILL 结束了它"


def _grade(executor, code: str) -> dict:
    return grade(GradeInput(code=code.encode()), "attention", executor)


@pytest.mark.slow
def test_a_file_replacing_len_at_import_is_graded_on_its_code(served):
    """Before round 45: "attention.py did not load: InvalidResult while importing attention.py: invalid reply ...";
    rounds 45-46: 0, "the sandbox's reply to importing attention.py could not be read". Since round 46 the wire and
    the loop look ``len`` up in builtins of their own (tests/sandbox/test_private_builtins_round46.py), so the reply
    is read and the file is graded on its code (68: the static check cannot follow ``builtins.len = ...``); the
    unread reply's words are tested in process above."""
    result = _grade(served, LEN_ZERO)
    assert result["status"] == "graded" and result["total"] == 68, json.dumps(result)[:2000]
    text = json.dumps([result["message"], result["load_error"], result["tests"]])
    assert "did not load" not in text and "could not be read" not in text


@pytest.mark.slow
def test_a_file_shutting_the_channel_then_spinning_is_told_the_grader_killed_it(served):
    """Before: "... stopped while importing attention.py: the process was killed by SIGKILL"."""
    result = _grade(served, SHUT_THEN_SPIN)
    assert result["status"] == "graded" and result["total"] == 0
    assert "the grader killed it (SIGKILL) 0.25 s later" in result["message"]["en"], result["message"]
    assert "评分器在 0.25 秒后用 SIGKILL 结束了它" in result["message"]["zh"], result["message"]
