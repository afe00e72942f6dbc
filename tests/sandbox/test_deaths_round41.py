"""Round 41 (E): what a student is told when the process ends by a signal of its own making or its own exit.

The kernel logs no SIGBUS fault (a file truncated under its mapping, a full /tmp written through a mapping) and no
SIGTRAP; a signal the code sends itself logs nothing either. Those ends read "ended by SIGBUS, the signal's default
action" and nothing more: true, but no help. Each is now told with what can raise that signal, as a choice (which one
it was is not known), and what the code checks: the grader never sends it. An exit the grader's own loop did not make
is told as the process's own exit (os._exit, C's exit). Each hostile submission is graded on the student's side
(test_hostile_round39's check: bilingual feedback, the next grading unharmed).
"""

from __future__ import annotations

import re
import signal

import pytest

from grading.proxy import death_text
from grading.sandbox.client import Limits, _describe_status
from tests.sandbox import test_hostile_round39
from tests.sandbox.test_hostile_round39 import fwd, grade_hostile

reference_total = test_hostile_round39.reference_total

LIBC = "import ctypes\n_libc = ctypes.CDLL(None, use_errno=True)\n"


def _told(status: dict) -> dict:
    return death_text(_describe_status(status, Limits()))


def _ending_signals() -> list[signal.Signals]:
    """The named signals that end a jail by their default action and are said as such (client.RECEIVED_TEXT): not
    SIGKILL (the grader's or not), SIGXFSZ (the file size limit), SIGABRT (abort()'s own text), nor the ignored ones."""
    ignored = {signal.SIGCHLD, signal.SIGCONT, signal.SIGURG, signal.SIGWINCH, signal.SIGSTOP, signal.SIGTSTP,
               signal.SIGTTIN, signal.SIGTTOU}
    return [s for s in signal.Signals if s not in ignored | {signal.SIGKILL, signal.SIGXFSZ, signal.SIGABRT}
            and s.name == signal.Signals(s.value).name]


@pytest.mark.parametrize("sig", _ending_signals(), ids=lambda s: s.name)
def test_an_end_by_a_signal_is_told_with_what_sends_it_not_the_bare_default_action(sig):
    told = _told({"status": "exited", "signal": int(sig), "cpu": 0.1})
    assert told["en"].startswith(f"the process was ended by {sig.name}, the signal's default action; "), told
    assert told["zh"].startswith(f"进程被信号 {sig.name} 结束，这是该信号的默认动作；"), told
    # what the code checks: the grader sends a jail no signal but SIGKILL
    assert "the grader" in told["en"] and "评分器" in told["zh"], told
    assert "os.kill" in told["en"] and "os.kill" in told["zh"], told


@pytest.mark.parametrize("sig", ["SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGTRAP"])
def test_a_fault_signal_the_kernel_logged_nothing_for_is_told_as_either_a_fault_or_a_send_with_how_to_find_it(sig):
    told = _told({"status": "exited", "signal": int(signal.Signals[sig]), "cpu": 0.1})
    assert "either your code or a library it called" in told["en"] and ", or code in your process" in told["en"], told
    assert "python -X faulthandler" in told["en"] and "python -X faulthandler" in told["zh"], told
    assert "可能是" in told["zh"] and "也可能是" in told["zh"], told


def test_a_bus_error_names_a_truncated_mapping_and_a_full_tmp():
    told = _told({"status": "exited", "signal": int(signal.SIGBUS), "cpu": 0.1})
    assert "truncated" in told["en"] and "`/tmp`" in told["en"], told
    assert "截短" in told["zh"] and "`/tmp` 已满" in told["zh"], told


def test_an_exit_of_the_process_own_is_told_as_os_exit_with_its_code():
    told = _told({"status": "exited", "exit_code": 3})
    assert told["en"].startswith("the process exited with code 3: ") and "`os._exit(3)`" in told["en"], told
    assert told["zh"].startswith("进程以退出码 3 退出：") and "`os._exit(3)`" in told["zh"], told


def test_a_sigkill_the_grader_did_not_send_is_told_with_who_else_sends_it():
    told = _told({"status": "exited", "signal": int(signal.SIGKILL), "cpu": 0.1})
    assert told["en"].startswith("the process was killed by SIGKILL, which the grader did not send; "), told
    assert "`os.kill`" in told["en"] and "`resource.setrlimit`" in told["en"], told
    assert "`os.kill`" in told["zh"] and "`resource.setrlimit`" in told["zh"], told
    # never the jail's memory use: no per-jail record says so (review R1, test_sandbox_round35); the out-of-memory
    # killer is named as a possible sender since mend 41 (test_deaths_mend_round41)
    assert not re.search(r"ran out of memory|memory limit|used too much", told["en"]), told
    assert "内存上限" not in told["zh"] and "内存已用尽" not in told["zh"], told


_CODE = re.compile(r"`[^`]*`")
_SIG = re.compile(r"\bSIG[A-Z0-9]+(?:\+\d+)?\b")


@pytest.mark.parametrize("status", [{"status": "exited", "signal": int(s), "cpu": 0.1} for s in _ending_signals()]
                         + [{"status": "exited", "exit_code": 3}, {"status": "exited", "signal": 9, "cpu": 0.1}],
                         ids=lambda st: str(st.get("signal", st.get("exit_code"))))
def test_the_chinese_text_uses_chinese_punctuation_and_no_english_words(status):
    zh = death_text(_describe_status(status, Limits()))["zh"]
    bare = _SIG.sub("", _CODE.sub("", zh)).replace("CPU", "")   # as the CPU limit is said (超出 CPU 时间上限)
    assert not re.search(r"[,;:()]", bare), zh
    # "C" is the language's name in Chinese too (C 语言, C 扩展)
    assert not re.search(r"[A-Za-z]{2,}|[A-BD-Za-z]", bare), zh


# Graded whole: each ends on the student's side, and the failed tests say what the end was.
HOSTILE = {
    # the main thread reads a mapped file truncated under its mapping: a SIGBUS the kernel does not log
    "mmap_truncated_under_the_main_thread": (
        fwd("import mmap, os, tempfile\n_fd, _p = tempfile.mkstemp()\nos.ftruncate(_fd, 8192)\n"
            "_m = mmap.mmap(_fd, 8192)\nos.ftruncate(_fd, 0)\n_m[4096]"),
        "SIGBUS, the signal's default action; the grader never sends it", "进程被信号 SIGBUS 结束"),
    # sparse files in the jail's size-limited /tmp written through their mappings past what /tmp holds: SIGBUS
    "tmp_filled_through_mappings": (
        fwd("import mmap, os, tempfile\n_fs = []\nfor _i in range(6):\n    _fd, _p = tempfile.mkstemp()\n"
            "    os.ftruncate(_fd, 15 << 20)\n    _fs.append(mmap.mmap(_fd, 15 << 20))\n"
            "for _m in _fs:\n    for _o in range(0, 15 << 20, 4096):\n        _m[_o] = 1"),
        "SIGBUS, the signal's default action; the grader never sends it", "进程被信号 SIGBUS 结束"),
    # a breakpoint instruction run from a page it mapped executable: SIGTRAP, which the kernel does not log
    "int3_from_an_exec_page": (
        fwd(LIBC + "import mmap\n_m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
            "_m.write(b'\\xcc')\n_buf = (ctypes.c_char * 1).from_buffer(_m)\n"
            "ctypes.CFUNCTYPE(None)(ctypes.addressof(_buf))()"),
        "ran a breakpoint instruction", "断点指令"),
    "raise_sigsys": (fwd("import signal\nsignal.raise_signal(signal.SIGSYS)"),
                     "SIGSYS, the signal's default action; the grader sends no such signal", "评分器不发送这个信号"),
    "kill_itself_with_sigbus": (fwd("import os, signal\nos.kill(os.getpid(), signal.SIGBUS)"),
                                "or code in your process (yours or a library's) raised it", "也可能是你的进程中的代码"),
    "alarm_without_a_handler": (fwd("import signal, time\nsignal.alarm(1)\ntime.sleep(3)"),
                                "a timer your process set", "你的进程设置的定时器"),
    "os_exit_3": (fwd("import os\nos._exit(3)"), "exited with code 3: code in it", "`os._exit(3)`"),
    "os_exit_0_from_a_thread": (fwd("import os, threading, time\nthreading.Thread(target=os._exit, args=(0,)).start()\n"
                                    "time.sleep(1)"), "exited with code 0: code in it", "`os._exit(0)`"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_death_of_its_own_making_is_graded_on_the_students_side_and_told_with_its_possible_causes(
        executor, reference_total, name):
    code, en, zh = HOSTILE[name]
    result = grade_hostile(executor, code, reference_total, name)
    failed = [t for t in result["tests"] if t["outcome"] != "passed"]
    assert any(en in t["feedback"]["en"] for t in failed), [t["feedback"]["en"] for t in failed]
    assert any(zh in t["feedback"]["zh"] for t in failed), [t["feedback"]["zh"] for t in failed]
