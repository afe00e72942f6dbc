"""Typed layer between the trusted acceptance suite and a sandbox ``Session``.

The suite never touches student objects: it calls :class:`StudentProxy` methods with plain tensors
and gets plain tensors back.  Everything that can go wrong on the student's side is turned into a
:class:`Feedback` exception whose message is meant for the student:

* ``StudentError``    -> ``Feedback({"en": "forward raised RuntimeError at attention.py line 17: ...", "zh": ...})``
* ``StudentTimeout``  -> :class:`StudentTimedOut` (test outcome ``timeout``), session dead
* ``SandboxDied``     -> ``Feedback("... stopped ...")``, session dead

A proxy has one session (:class:`InheritedSession`, owned by the grading child's parent): once it
dies, every later call fails with :class:`SessionLost` and the parent continues in a fresh child
(grading/child.py).  ``SandboxUnavailable`` (and anything else unexpected from the sandbox itself)
is an infrastructure failure and propagates as :class:`InfrastructureError`.
"""

from __future__ import annotations

import functools
import marshal
import os
import re
import site
import sys
import sysconfig
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from torch import Tensor

from grading.allowance import source_allowance
from grading.i18n import IDLE_SEEN, SEMI, Msg, Text, as_msg, cat, msg
from grading.load_hints import (
    attribute_note,
    call_shape_note,
    class_not_instance_note,
    dtype_note,
    fill_overflow_note,
    float_size_note,
    generator_note,
    getattr_recursion_note,
    gpu_note,
    inplace_backward_note,
    inplace_note,
    linear_note,
    load_hint,
    missing_name_hint,
    missing_name_lead,
    name_note,
    no_forward_note,
    no_self_note,
    no_super_init_note,
    own_import,
    own_message,
    own_raise_note,
    package_name_hint,
    plain_refusal_note,
    python_lines,
    runtime_file_note,
    script_define_note,
    shape_note,
    size_number_note,
    torch_call_note,
    transpose_note,
    unpack_note,
    view_note,
    with_hint,
)
from grading.sandbox import SandboxDied, SandboxUnavailable, StudentError, StudentIdle, StudentTimeout
from grading.sandbox.client import (
    CPU_LIMIT_TEXT,
    EXITED_TEXT,
    FAULT_TEXT,
    FILE_SIZE_TEXT,
    INTERRUPTED_TEXT,
    OUTPUT_LIMIT_TEXT,
    SERVE_FAILED_TEXT,
)
from grading.sandbox.protocol import MAX_DIMS, MAX_ITEMS, MAX_TENSORS

MAX_MESSAGE = 300
# How Chinese feedback introduces an exception's own (English) message, kept as PyTorch or Python
# wrote it: the reader can search for it, and translating it could change its meaning.
ORIGINAL_MESSAGE_ZH = "PyTorch/Python 报错原文："
# Introduces, in Chinese, a message the code wrote itself (``raise ValueError("...")`` or ``assert c, "..."`` on the
# failing line): neither PyTorch's nor Python's words.
OWN_MESSAGE_ZH = "代码自己写的报错信息："
# The same in English, after "raised Kind at file line N" (round 46 review RC MED 3: an English reader was not told
# that the quoted words, a forged verdict among them, were the file's own).
OWN_MESSAGE_EN = ", with the code's own message: "
# Introduces, in Chinese, the sandbox's own English words about a reply it could not carry (up to "）").
SANDBOX_ENGLISH_ZH = "评分系统的英文说明："
# The kind the sandbox gives a reply it could not encode or the client could not decode: the grader's
# words, not PyTorch's (grading/sandbox/runtime.py, client.py).
INVALID_RESULT = "InvalidResult"


# --------------------------------------------------------------------------- feedback exceptions
class Feedback(AssertionError):
    """A check failed; ``message`` (``{"en", "zh"}``) is shown to the student (for visible tests).

    ``str(exc)`` is the English text (logs, instructors)."""

    outcome = "failed"

    def __init__(self, message: Text, outcome: str | None = None):
        self.message: Msg = as_msg(message)
        super().__init__(self.message["en"])
        if outcome is not None:
            self.outcome = outcome


class StudentTimedOut(Feedback):
    outcome = "timeout"


class NotLoaded(Feedback):
    """attention.py did not load, so nothing can be run against it."""


class InfrastructureError(RuntimeError):
    """The sandbox could not do its job; never the student's fault (grading status ``error``)."""


def expect(condition: Any, message: Text | Callable[[], Text]) -> None:
    """``assert`` for graders: raise :class:`Feedback` with an actionable message. A message that
    costs work to write (a diagnosis reading the source, a measured difference) is given as a
    function, called only when the check fails: a passing check pays nothing for its feedback."""
    if not condition:
        raise Feedback(message() if callable(message) else message)


# --------------------------------------------------------------------------- sandbox error kinds
def _kind_of(exc: BaseException) -> str | None:
    """The sandbox exception class an error belongs to, by name, or None for anything else."""
    for cls in (StudentError, StudentTimeout, SandboxDied, SandboxUnavailable):
        if isinstance(exc, cls):
            return cls.__name__
    return None


def _module_lacks(exc: BaseException, name: str) -> bool:
    """Whether ``exc`` is the lookup of ``name`` (a dotted name: its last part) on the student's module failing,
    Python's "module 'attention' has no attribute 'Name'": not an AttributeError the student's code raised in a
    method of that class, whose words name it too (round 35: "'MultiHeadAttention' object has no attribute
    'd_model'" in __init__, and a ScaledDotProductAttention whose __init__ never called nn.Module's, were told
    "attention.py does not define" the class they define)."""
    if _kind_of(exc) != "StudentError" or getattr(exc, "kind", "") != "AttributeError" \
            or getattr(exc, "lineno", None) is not None:
        return False
    said = str(getattr(exc, "message", None) or exc)
    return re.match(rf"module '[^']*' has no attribute '{re.escape(name.rsplit('.', 1)[-1])}'", said) is not None


def _clip(text: Any, limit: int = MAX_MESSAGE) -> str:
    text = hide_grader_paths(" ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Round 38: Python's ImportError quotes the file it looked in, "cannot import name 'rearange' from 'einops'
# (/srv/autograder/.venv/lib/python3.11/site-packages/einops/__init__.py)": the grader's own folders reached the
# student. A path under a folder the grader's Python imports from keeps what follows that folder (the module's own
# path, einops/__init__.py) behind "…/"; one in the jail's working folder (grading/sandbox/runtime.py WORKDIR, not
# imported here: that module patches the process it is imported in) is the student's own file, said by its name;
# one in the grader's project folder keeps its name alone. Any other path (the student's own, as written in the
# code: /content/drive/data.npy) is left as it is.
SANDBOX_WORKDIR = "/tmp/work"
_PROJECT = str(Path(__file__).resolve().parent.parent)
_PATH = re.compile(r"(?<![\w.~])/[^\s'\"()<>,;:]+")


@functools.lru_cache(maxsize=1)
def _grader_roots() -> tuple[tuple[str, bool], ...]:
    """(folder, keep the rest of the path) for each folder of the grader a message may name, longest first: those
    its Python imports from, the interpreter's own prefixes (the venv's and the Python it was made from: bin/,
    include/, lib/python311.zip) and site-packages (round 38, review RB), and the project."""
    paths = sysconfig.get_paths()
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    venvs = {p for p in prefixes if os.path.isfile(os.path.join(p, "pyvenv.cfg"))}
    return grader_roots_of((*sys.path, *site.getsitepackages(), *venvs, paths["stdlib"], paths["platstdlib"],
                            paths["purelib"], paths["platlib"], paths["include"], paths["platinclude"]),
                           prefixes - venvs, _PROJECT)


def grader_roots_of(imported: Iterable[str], prefixes: Iterable[str], project: str) -> tuple[tuple[str, bool], ...]:
    """``_grader_roots`` of given folders: those Python imports from (a venv's folder is wholly the grader's), the
    interpreter's installation prefixes and the project. Round 39: an installation prefix is no root itself, only
    its bin/, include/ and lib/pythonX.Y folders are: a two-folder prefix (/usr/local) hid the student's own
    /usr/local/x/attention.py. A one-folder folder (/usr) is never a root: it would hide the student's
    /usr/share/... too (its lib/pythonX.Y is in sys.path)."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    under = (f"{prefix}/{folder}" for prefix in prefixes if isinstance(prefix, str)
             for folder in ("bin", "include", "lib/" + version, f"lib/python{sys.version_info[0]}{sys.version_info[1]}"
                            ".zip"))
    folders = {os.path.normpath(p) for p in (*imported, *under) if isinstance(p, str) and p.startswith("/")}
    bare = {os.path.normpath(p) for p in prefixes if isinstance(p, str)}
    roots = {p: True for p in folders - bare if p.count("/") > 1} | {project: False}
    return tuple(sorted(roots.items(), key=lambda item: -len(item[0])))


def hide_grader_paths(text: str) -> str:
    """``text`` with the grader's own file paths made neutral (see above); the student's paths are kept. A path
    that is one of those folders itself becomes "…", one in a file:// URL is read without the URL's slashes, and a
    sentence's full stop after a path is not part of it (round 38, review RB)."""
    def neutral(m: re.Match[str]) -> str:
        whole = m.group(0)
        core = "/" + whole.lstrip("/")            # file:///srv/x: the path is /srv/x
        lead, tail = whole[: len(whole) - len(core)], ""
        while core.endswith(".") and len(core) > 1:
            core, tail = core[:-1], tail + "."
        # the jail's folder itself is no grader path (the student's os.getcwd()): kept; a file in it is the
        # student's own, said by its name, which is also its path from that folder (round 39)
        if core.startswith(SANDBOX_WORKDIR + "/") and core != SANDBOX_WORKDIR + "/":
            return core[len(SANDBOX_WORKDIR) + 1:] + tail
        for root, keep in _grader_roots():
            if core == root:
                return lead + "…" + tail
            if core.startswith(root + "/"):
                rest = core[len(root) + 1:]
                return lead + "…/" + (rest if keep else rest.rsplit("/", 1)[-1]) + tail
        return whole
    return _PATH.sub(neutral, text) if "/" in text else text


# What can end a jail by a signal other than the grader's SIGKILL (round 41), each said as a choice, never as the
# cause: the kernel raising it for a fault of the code (which it logged for none of the jail's threads: else the end is
# "crashed"), a timer or limit the process set, or a kill() of its own. _FAULTED: the first half for a fault signal.
# _OWN_SEND: a signal no one outside the process sent is raised by the process itself, by a send or by the kernel for
# something the process asked of it (mend 41, MED 2: a seccomp filter of its own raises SIGSYS under NO_NEW_PRIVS, a
# POSIX timer any signal it names; neither is a send, tests/sandbox/test_deaths_mend_round41).
_OWN_SEND_EN = ("code in your process (yours or a library's) raised it: by a send (`os.kill`, `signal.raise_signal`, "
                "`signal.pthread_kill`) or by something it asked the kernel for (a timer, a seccomp filter, ...)")
_OWN_SEND_ZH = ("你的进程中的代码（你的或某个库的）引发了它：或是发送了它（`os.kill`、`signal.raise_signal`、`signal.pthread_kill`），"
                "或是向内核请求了会引发它的东西（定时器、`seccomp` 过滤器等）")
_SENT_EN = "the grader sends no such signal and no other submission's process can reach yours: " + _OWN_SEND_EN
_SENT_ZH = "评分器不发送这个信号，其他提交的进程也无法触及你的进程：" + _OWN_SEND_ZH
_FAULTED_EN = ("either your code or a library it called {what}, or " + _OWN_SEND_EN
               + "; run your file locally with `python -X faulthandler` to see the line where it happens")
_FAULTED_ZH = "可能是你的代码或它调用的库{what}，也可能是" + _OWN_SEND_ZH + "；在本地用 `python -X faulthandler` 运行你的文件，可以看到出错的那一行"
_SIGNAL_CAUSES: tuple[tuple[str, str, str], ...] = (
    *((sig, _FAULTED_EN.format(what=en), _FAULTED_ZH.format(what=zh)) for sig, en, zh in (
        ("SIGSEGV", "accessed memory it may not use (for example a bad pointer through `ctypes` or a C extension, or "
                    "a stack overflowed by deep recursion in C code)",
         "访问了不允许访问的内存（例如经由 `ctypes` 或 C 扩展使用了错误的指针，或 C 代码中过深的递归用尽了栈）"),
        # both seen in a jail (tests/sandbox/test_deaths_round41): a file truncated under its mapping, and a sparse
        # file in the jail's /tmp (a tmpfs of Limits.tmp bytes) written through its mapping past what /tmp holds
        ("SIGBUS", "touched a memory-mapped file where it has no storage (past the end of a file truncated under its "
                   "mapping, or in `/tmp` once that size-limited folder was full)",
         "访问了内存映射文件中没有存储空间的部分（文件在映射之后被截短，或大小受限的 `/tmp` 已满）"),
        ("SIGILL", "ran an instruction the processor cannot execute (machine code built for another processor, or a "
                   "jump into data)", "执行了处理器无法执行的指令（例如为别的处理器编译的机器码，或跳转到了数据上）"),
        ("SIGFPE", "hit an arithmetic fault in machine code (for example an integer division by zero or of the "
                   "smallest integer by -1, or a floating-point trap a library turned on; Python's own division "
                   "raises `ZeroDivisionError` instead)",
         "在机器码中遇到了算术错误（例如除数为零的整数除法、最小整数除以 -1，或某个库开启的浮点异常陷阱；"
         "`/`、`//` 或 `%` 的除数为零时会改为抛出 `ZeroDivisionError`）"),
        ("SIGTRAP", "ran a breakpoint instruction with no debugger attached", "在没有调试器的情况下执行了断点指令"))),
    ("SIGALRM", "a timer your process set (`signal.alarm`, `signal.setitimer`) ran out with no handler for it, or "
                + _OWN_SEND_EN,
     "你的进程设置的定时器（`signal.alarm`、`signal.setitimer`）到时而没有处理函数，或者" + _OWN_SEND_ZH),
    *((sig, f"a timer your process set (`signal.setitimer` with `{timer}`) ran out with no handler for it, or "
            + _OWN_SEND_EN,
       f"你的进程设置的定时器（`signal.setitimer` 配合 `{timer}`）到时而没有处理函数，或者" + _OWN_SEND_ZH)
      for sig, timer in (("SIGVTALRM", "signal.ITIMER_VIRTUAL"), ("SIGPROF", "signal.ITIMER_PROF"))),
    ("SIGPIPE", "it wrote to a pipe or socket whose reading end was closed after code in it had put back SIGPIPE's "
                "default action (Python ignores SIGPIPE and raises `BrokenPipeError` instead), or " + _OWN_SEND_EN,
     "它的代码先恢复了 SIGPIPE 的默认动作（解释器默认忽略 SIGPIPE，改为抛出 `BrokenPipeError`），然后向读端已关闭的管道或套接字写入，或者"
     + _OWN_SEND_ZH),
    ("SIGXCPU", "it ended before the grader's CPU time limit, so it passed a lower limit that code in it set "
                "(`resource.setrlimit` with `resource.RLIMIT_CPU`), or " + _OWN_SEND_EN,
     "它在评分器的 CPU 时间上限之前就结束了，所以是超过了它的代码自己设置的更低上限（`resource.setrlimit` 配合 `resource.RLIMIT_CPU`），或者"
     + _OWN_SEND_ZH),
    ("SIGIO", "a descriptor it set for signal-driven input and output (`fcntl` with `O_ASYNC`) became ready, or "
              + _OWN_SEND_EN,
     "它设置为信号驱动输入输出的描述符（`fcntl` 配合 `O_ASYNC`）已就绪，或者" + _OWN_SEND_ZH),
)

# How the sandbox says a jail ended (grading.sandbox.client._describe_status), in both languages.
_DEATHS: tuple[tuple[re.Pattern[str], str, str], ...] = tuple((re.compile(p), en, zh) for p, en, zh in (
    (r"CPU time limit exceeded \((?P<used>[^ ]+) s CPU, limit (?P<limit>[^ ]+) s\)",
     "CPU time limit exceeded ({used} s CPU, limit {limit} s)", "超出 CPU 时间上限（已用 {used} 秒 CPU，上限 {limit} 秒）"),
    (r"file size limit exceeded \(SIGXFSZ\)", "file size limit exceeded (SIGXFSZ)", "写入的文件超出大小上限（SIGXFSZ）"),
    (r"the sandboxed process crashed \(SIGSEGV\)", "the process crashed (SIGSEGV, a segmentation fault)",
     "进程崩溃（SIGSEGV，段错误）"),
    # Round 38: a fault the kernel logged for the jail's own pid (zygote.kernel_end), never a signal it sent itself.
    *((rf"the sandboxed process crashed \({sig}\): the kernel logged a fault of its code",
       f"the process crashed ({sig}): the kernel logged {en} in its code", f"进程崩溃（{sig}）：内核记录到它的代码发生了{zh}")
      for sig, en, zh in (("SIGSEGV", "a segmentation fault (an access to memory it may not use)", "段错误（访问了不允许访问的内存）"),
                          ("SIGBUS", "a bus error", "总线错误"), ("SIGILL", "an illegal instruction", "非法指令"),
                          ("SIGFPE", "an arithmetic fault", "算术异常"))),
    (r"the sandboxed process was killed by SIGKILL from the kernel's out-of-memory killer: the machine ran out of "
     r"memory", "the process was killed by SIGKILL from the kernel's out-of-memory killer: the machine ran out of memory",
     "进程被内核在内存耗尽时以 SIGKILL 终止：机器的内存已用尽"),
    (r"the sandboxed process was killed by SIGKILL from the kernel's out-of-memory killer: the memory limit of its "
     r"cgroup was reached", "the process was killed by SIGKILL from the kernel's out-of-memory killer: the memory "
     "limit of its cgroup was reached", "进程被内核在内存耗尽时以 SIGKILL 终止：它所在控制组的内存上限已达到"),
    # SIGABRT: what abort() raises, said as such, without claiming abort() was called (os.kill sends it too).
    (r"the sandboxed process was ended by SIGABRT, the signal's default action",
     "the process was ended by SIGABRT, the signal's default action (abort() raises it, as C and C++ code does when "
     "an assertion fails or an exception is not caught)",
     "进程被信号 SIGABRT 结束，这是该信号的默认动作（abort() 会发出这个信号，C 或 C++ 代码在断言失败或异常未被捕获时会这样做）"),
    # Round 41: a signal the kernel logged no fault for (client.RECEIVED_TEXT), said with what can raise it. Only what
    # the code checks is said as fact: the grader sends a jail no signal but SIGKILL (zygote.Jail.kill; SIGCONT to one
    # that stopped itself) and no other submission's process can reach it (its own pid namespace); which of the
    # possible causes it was is not known (a wait status does not tell a fault from a kill(); the kernel does not log
    # a SIGBUS or SIGTRAP fault, nor one its rate limit or a deployment without /dev/kmsg kept from the zygote).
    *((rf"the sandboxed process was ended by {sig}, the signal's default action",
       f"the process was ended by {sig}, the signal's default action; the grader never sends it: {en}",
       f"进程被信号 {sig} 结束，这是该信号的默认动作；评分器从不发送这个信号：{zh}")
      for sig, en, zh in _SIGNAL_CAUSES),
    (r"the sandboxed process was ended by (?P<sig>SIG[A-Z0-9+]+), the signal's default action",
     "the process was ended by {sig}, the signal's default action; " + _SENT_EN,
     "进程被信号 {sig} 结束，这是该信号的默认动作；" + _SENT_ZH),
    (r"the sandboxed process was ended by a KeyboardInterrupt \(what a SIGINT raises\) in the grader's loop between "
     r"calls",
     "the process was ended by a KeyboardInterrupt (what a SIGINT raises) in the grader's loop between calls",
     "进程在两次调用之间因评分器循环中的 KeyboardInterrupt（SIGINT 会引发它）而结束"),
    # Round 41: what can send it, as a choice (no per-jail record tells which: client.UNSENT_KILL_TEXT). The kernel's
    # out-of-memory killer is one (mend 41, HIGH 1): every jail is its first choice (zygote._prefer_for_oom_kill), so an
    # honest jail dies when another process exhausts the memory, and without /dev/kmsg (compose) nothing tells that
    # kill from the others. Never said as the jail's memory use (review R1, test_sandbox_round35).
    (r"the sandboxed process was killed by SIGKILL, which the grader did not send",
     "the process was killed by SIGKILL, which the grader did not send; it can come from code in the process sending "
     "it (`os.kill`), from a CPU time limit that code set (`resource.setrlimit`), which the kernel enforces with "
     "SIGKILL at its hard limit, or from the kernel's out-of-memory killer, which ends sandboxed processes first when "
     "the machine runs short of memory, whichever process used it",
     "进程被信号 SIGKILL 终止，这个信号不是评分器发出的；它可能来自进程中的代码发送的信号（`os.kill`），"
     "可能来自代码设置的 CPU 时间上限（`resource.setrlimit`，内核在到达其硬上限时以 SIGKILL 结束进程），"
     "也可能来自内核在整台机器内存不足时结束进程的机制：它优先结束沙箱中的进程，不论内存是被哪个进程用掉的"),
    (r"the sandboxed process closed the grader's channel and went on running: the grader killed it \(SIGKILL\) "
     r"(?P<s>[\d.]+) s later",
     "the process closed the grader's channel and went on running: the grader killed it (SIGKILL) {s} s later",
     "进程关闭了与评分器通信的通道后仍在运行：评分器在 {s} 秒后用 SIGKILL 结束了它"),
    (r"the sandboxed process was killed by signal (?P<n>\d+)", "the process was killed by signal {n}",
     "进程被信号 {n} 终止"),
    (r"the sandboxed process was killed by (?P<sig>[A-Za-z0-9 ]+)", "the process was killed by {sig}",
     "进程被信号 {sig} 终止"),
    (r"after your code had run, the sandbox stopped answering the grader: the loop that reads its requests and "
     r"writes its replies failed \(exit code (?P<code>\d+)\)",
     "after your code had run, the sandbox stopped answering the grader: the loop that reads its requests and "
     "writes its replies failed (exit code {code})",
     "你的代码运行完之后，沙箱不再回应评分器：沙箱中读取请求、写回结果的循环出错（退出码 {code}）"),
    # Round 41: the grader's own loop's exits are told otherwise (client.SERVE_FAILED_TEXT, INTERRUPTED_TEXT, marked
    # on the jail's end page; a setup failure is the sandbox's), so an exit said here is the process's own.
    (r"the sandboxed process exited with code (?P<code>-?\d+)",
     # not sys.exit: the runtime catches SystemExit wherever the code runs (mend 41, MED 3: in forward, at import, in
     # a signal handler between calls), tests/sandbox/test_deaths_mend_round41
     "the process exited with code {code}: code in it (yours or a library's) ended the process, as "
     "`os._exit({code})` or C's `exit({code})` do",
     "进程以退出码 {code} 退出：其中的代码（你的或某个库的）结束了进程，`os._exit({code})` 或 C 语言的 `exit({code})` "
     "都会这样做"),
    (r"the sandboxed process ended \((?P<status>\w+)\)", "the process ended ({status})", "进程已结束（状态 `{status}`）"),
    (r"the session was closed", "the session was closed", "会话已关闭"),
    (r"the sandboxed process ended without a status \(the executor was closed or its zygote died\)",
     "the process ended without a status (the executor was closed or its zygote died)",
     "进程结束时没有留下状态（评分器的执行器已关闭，或其母进程已退出）"),
    (r"the jail could not be set up: (?P<why>.+)", "the jail could not be set up: {why}",
     "无法建立沙箱（" + SANDBOX_ENGLISH_ZH + "{why}）"),
    (r"output limit exceeded \(more than (?P<mib>[\d.]+) MiB printed\)",
     "it printed more than {mib} MiB (print() or other writes to stdout/stderr), and the grader stops code "
     "that prints that much", "它输出了超过 {mib} MiB 的内容（print() 或其他写入 stdout/stderr 的操作），评分器会终止输出这么多内容的代码"),
))


# Why a reply could not be carried to the tests, as the trusted side (grading.sandbox.client) says
# it: its own words, so said in Chinese too. Other reasons come from inside the jail (its encoder,
# which the submission can rewrite) and stay quoted as the sandbox's English.
_NOT_CARRIED: tuple[tuple[re.Pattern[str], str, str], ...] = tuple((re.compile(p), en, zh) for p, en, zh in (
    (r"its results came to more than (?P<mib>\d+) MiB in all \(each tensor counting (?P<kib>\d+) KiB more than "
     r"its data\), far more than the tests' inputs call for",
     "its results came to more than {mib} MiB in all (each tensor counting {kib} KiB more than its data), far "
     "more than the tests' inputs call for", "它返回的结果总计超过 {mib} MiB（每个 tensor 在数据之外另计 {kib} KiB），"
     "远多于测试的输入所需"),
    (r"a reply out of sequence: code in the sandbox wrote on the grader's channel",
     "a reply out of sequence: code in the sandbox wrote on the grader's channel",
     "收到顺序错乱的回复：沙箱中的代码向评分器的通道写入了数据"),
    (r"a reply came in more than (?P<reads>\d+) pieces of less than (?P<size>\d+) bytes: code in the sandbox wrote "
     r"on the grader's channel a few bytes at a time",
     "a reply came in more than {reads} pieces of less than {size} bytes: code in the sandbox wrote on the "
     "grader's channel a few bytes at a time",
     "回复被拆成了超过 {reads} 段、每段不足 {size} 字节：沙箱中的代码每次只向评分器的通道写入几个字节"),
    (r"a tensor on the meta device, which has a shape but no values",
     "a tensor on the meta device, which has a shape but no values", "一个 `meta` 设备上的 tensor：它只有 shape，没有数值"),
    (r"a nested tensor \(torch.nested\), which has no single shape",
     "a nested tensor (torch.nested), which has no single shape", "一个嵌套 tensor（torch.nested）：它没有统一的 shape"),
    (r"a tensor of shape (?P<shape>\[[0-9,]*\]), whose values take (?P<n>\d+) bytes: larger than the (?P<cap>\d+) "
     r"bytes a reply may carry",
     "a tensor of shape {shape}, whose values take {n} bytes: larger than the {cap} bytes a reply may carry",
     "一个 shape 为 {shape} 的 tensor：其数值占 {n} 字节，超过一次回复可携带的 {cap} 字节"),
    (r"an array of shape (?P<shape>\[[0-9,]*\]), whose values take (?P<n>\d+) bytes: larger than the (?P<cap>\d+) "
     r"bytes a reply may carry",
     "an array of shape {shape}, whose values take {n} bytes: larger than the {cap} bytes a reply may carry",
     "一个 shape 为 {shape} 的数组：其数值占 {n} 字节，超过一次回复可携带的 {cap} 字节"),
    # The encoder's refusals (grading/sandbox/protocol.py ``encode``), what the jail could not send back
    # a dimension past what the reader takes (protocol.MAX_DIM), named before NumPy's "array is too big" (round 48)
    *((rf"{en} of shape (?P<shape>\[[0-9^, ]*\]): its dimension of (?P<dim>[0-9^]+) is more than the (?P<cap>[0-9^]+) "
       r"a reply may carry",
       en + " of shape {shape}: its dimension of {dim} is more than the {cap} a reply may carry",
       "一个 shape 为 {shape} 的" + zh + "：其中一维为 {dim}，超过一次回复可携带的上限 {cap}")
      for en, zh in (("a tensor", " tensor"), ("an array", "数组"))),
    (r"tensor dtype (?P<dt>[\w.]+) is not allowed", "tensor dtype {dt} is not allowed",
     "tensor 的 dtype {dt} 无法传回（可传回的只有 float32、float64、float16、bfloat16、int64、int32 和 `bool`）"),
    (r"array dtype (?P<dt>[\w.]+) is not allowed", "array dtype {dt} is not allowed",
     "数组的 dtype {dt} 无法传回（可传回的只有 float32、float64、float16、int64、int32 和 `bool`）"),
    (r"(?P<what>tensor|array) has too many dimensions", "{what} has too many dimensions",
     "它的维数过多（最多 " + str(MAX_DIMS) + " 维）"),
    (r"too many tensors", "too many tensors", "tensor 数量过多（一次回复最多 " + str(MAX_TENSORS) + " 个）"),
    (r"message header larger than (?P<cap>\d+) bytes", "message header larger than {cap} bytes",
     "结果中 tensor 以外的部分超过一次回复可携带的 {cap} 字节"),
    (r"message body larger than (?P<cap>\d+) bytes \(each tensor or array counting (?P<kib>\d+) KiB besides its data\)",
     "message body larger than {cap} bytes (each tensor or array counting {kib} KiB besides its data)",
     "结果的数据超过一次回复可携带的 {cap} 字节（每个 tensor 或数组在数据之外另计 {kib} KiB）"),
    (r"message body larger than (?P<cap>\d+) bytes", "message body larger than {cap} bytes",
     "结果的数据超过一次回复可携带的 {cap} 字节"),
    (r"too many values", "too many values", "值的数量过多（一次回复最多 " + str(MAX_ITEMS) + " 个）"),
    (r"value nested too deeply", "value nested too deeply", "嵌套层数过深"),
    (r"dict keys must be str", "dict keys must be str", "`dict` 的键必须是 `str`"),
    (r"malformed reply from the sandbox", "malformed reply from the sandbox", "沙箱的回复格式不正确"),
    (r"malformed error reply", "malformed error reply", "沙箱报告错误的回复格式不正确"),
    (r"malformed handle", "malformed handle", "沙箱返回的对象编号格式不正确"),
    (r"malformed (?P<op>describe|grad|stats) reply", "malformed {op} reply", "沙箱对 `{op}` 请求的回复格式不正确"),
    (r"invalid reply from the sandbox: (?P<why>.+)", "invalid reply from the sandbox: {why}",
     "沙箱的回复无效（" + SANDBOX_ENGLISH_ZH + "{why}）"),
))


def _said(text: str, table: tuple[tuple[re.Pattern[str], str, str], ...]) -> Msg | None:
    """``text`` in both languages when one of ``table``'s patterns is the whole of it."""
    for pattern, en, zh in table:
        m = pattern.fullmatch(text)
        if m:
            return msg(en.format(**m.groupdict()), zh.format(**m.groupdict()))
    return None


def death_text(reason: Any) -> Msg:
    """Why the student's process ended, in English and Chinese; a reason of another shape is the
    sandbox's English, introduced as such in Chinese."""
    text = _clip(reason)
    return _said(text, _DEATHS) or msg(text, f"进程已结束（{SANDBOX_ENGLISH_ZH}{text}）")


def packages_text(packages: Sequence[str]) -> Msg:
    """The importable set, named for students (the Suite's packages plus the standard library)."""
    names = ", ".join(packages)
    names_zh = "、".join(packages)     # a Chinese list takes 、 (round 33: "torch, numpy, einops" in Chinese text)
    return msg(f"the grader offers only the Python standard library and {names}" if names else
               "the grader offers only the Python standard library",
               f"评分环境只提供 Python 标准库和 {names_zh}" if names else "评分环境只提供 Python 标准库")


def _import_note(exc: BaseException, packages: Sequence[str] | None) -> Msg | None:
    if packages is None or getattr(exc, "kind", None) not in ("ModuleNotFoundError", "ImportError"):
        return None
    return cat(packages_text(packages), msg(" (see the assignment page).", "（见作业页面）。"))


def _bytes_text(n: int) -> str:
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{max(1, round(n / (1 << 20)))} MiB"


def _sized(exc: BaseException) -> bool:
    """Whether the sandbox checked a refused request of known size (not only Python's sizeless MemoryError)."""
    seen = getattr(exc, "memory", None)
    return isinstance(seen, dict) and "asked" in seen


# The memory rlimits code in a jail may lower (client.lowered_memory_limits), as a student reads them.
_LIMIT_NAMES = {"RLIMIT_AS": ("address-space limit", "地址空间上限"), "RLIMIT_DATA": ("data-segment limit", "数据段上限"),
                "RLIMIT_STACK": ("stack-size limit", "栈大小上限")}


def lowered_limits_note(lowered: Sequence[tuple[str, int, int]]) -> Msg | None:
    """What the grader read of the process's memory rlimits that code in it lowered under the sandbox's (round 48: a
    file that cut RLIMIT_DATA at import lost 17 tests to failed allocations and its process's end, told no cause). Only
    what was read: the limit, its value and the sandbox's; that an allocation past a limit fails is the kernel's rule."""
    if not lowered:
        return None
    def size(n: int, zh: bool) -> str:
        if n < 0 or n >= 1 << 62:
            return "无上限" if zh else "unlimited"
        shown = f"{n >> 10} KiB" if n < 1 << 20 else _bytes_text(n)    # a 64 KiB stack is no "1 MiB"
        return f" {shown}" if zh else shown       # zh: a space before a number only, none before 无上限
    en = ", ".join(f"its {_LIMIT_NAMES[n][0]} ({n}) to {size(v, False)} (the sandbox's: {size(g, False)})"
                   for n, v, g in lowered if n in _LIMIT_NAMES)
    zh = "，".join(f"把{_LIMIT_NAMES[n][1]}（`{n}`）降到了{size(v, True)}（沙箱设定的是{size(g, True)}）"
                  for n, v, g in lowered if n in _LIMIT_NAMES)
    if not en:
        return None
    # What was read, no cause: that this limit refused what failed is not measured (mend round 48, review RC HIGH-1)
    return msg(f"code in your process had lowered {en}", f"你的进程中的代码{zh}")


# What a refused allocation says, as the student's error: torch's allocator, strerror(ENOMEM) ("[Errno 12] Cannot
# allocate memory", torch's "Error code 12 (Cannot allocate memory)"), C++'s std::bad_alloc.
_REFUSED_ALLOCATION = re.compile(r"can't allocate memory|Cannot allocate memory|std::bad_alloc")
# A stack fault: SIGSEGV, as the kernel logged it or as the wait status said it (client.FAULT_TEXT, RECEIVED_TEXT).
_STACK_FAULT = re.compile(r"the sandboxed process (crashed \(SIGSEGV\)|was ended by SIGSEGV)")


def _memory_failure_seen(exc: BaseException) -> bool:
    """Whether the student's error ``exc`` is a refused allocation, by its class or its words."""
    return _kind_of(exc) == "StudentError" and (
        getattr(exc, "kind", None) in ("MemoryError", "_ArrayMemoryError")
        or _REFUSED_ALLOCATION.search(str(getattr(exc, "message", "") or "")) is not None)


def memory_failure_limits(exc: BaseException, lowered: Sequence[tuple[str, int, int]],
                          own: bool = False) -> list[tuple[str, int, int]]:
    """Of the memory rlimits the jail's code had ``lowered``, those that could have stopped what ``exc`` shows, and
    only where a memory failure was seen (mend round 48, review RC HIGH-1: a file's own ``raise ValueError`` was
    followed by its lowered limits and "the kernel refuses memory past such a limit"). A refused allocation (a
    MemoryError, ENOMEM, torch's allocator), not raised by the failing line in its own words (``own``), or the
    grader's loop ending on one: RLIMIT_AS and RLIMIT_DATA (client.lowered_memory_limits keeps a data limit only
    under the address space). A SIGSEGV death: RLIMIT_STACK and RLIMIT_AS (a stack grows into the address space).
    Nothing for any other error or end: a CPU or wall stop, an exit, a signal."""
    if _kind_of(exc) == "SandboxDied":
        reason = str(getattr(exc, "reason", exc))
        names = ("RLIMIT_AS", "RLIMIT_DATA") if getattr(exc, "out_of_memory", False) is True \
            else ("RLIMIT_AS", "RLIMIT_STACK") if _STACK_FAULT.match(reason) else ()
    elif not own and _memory_failure_seen(exc):
        names = ("RLIMIT_AS", "RLIMIT_DATA")
    else:
        names = ()
    return [row for row in lowered if row[0] in names]


def _lowered_limits(session: Any, read: bool = False) -> list[tuple[str, int, int]]:
    """The memory rlimits ``session``'s jail had lowered (client.Session.note_memory_limits), read again now when
    ``read`` and it lives; as last read otherwise (a jail that ended is gone from /proc)."""
    if read and callable(getattr(session, "note_memory_limits", None)):
        return session.note_memory_limits()
    lowered = getattr(session, "lowered_limits", None)
    return lowered if isinstance(lowered, list) else []


def memory_limit_note(exc: BaseException, own: bool = False) -> Msg | None:
    """For a MemoryError or refused allocation under the sandbox's address-space limit (RLIMIT_AS), as the sandbox
    checked it (client.Session._memory_limit_hit: the limit it set; a request of known size passed it with what was
    in use): with the request's size, that the code hit the limit; without it (Python's own MemoryError names none),
    the limit and what the process took of it, no claim on the request. None for any other error, or when the failing
    line raised the error itself with its own words (``own``: load_hints.own_message): then it is the code's say."""
    seen = getattr(exc, "memory", None)
    if not isinstance(seen, dict) or own:
        return None
    limit, in_use = _bytes_text(seen["limit"]), _bytes_text(seen["in_use"])
    if "asked" not in seen:
        return msg(f"the sandbox limits the address space to {limit} (RLIMIT_AS), about {in_use} of it already taken "
                   "by the process, PyTorch included",
                   f"沙箱把地址空间限制为 {limit}（`RLIMIT_AS`），其中约 {in_use} 已被进程占用（包括 PyTorch）")
    asked = _bytes_text(seen["asked"])
    return msg(f"the request for {asked} does not fit in the sandbox's memory limit of {limit} (address space, "
               f"RLIMIT_AS; {in_use} of it already taken by the process, PyTorch included): your code hit that limit",
               f"申请的 {asked} 超出了沙箱内存上限 {limit} 的剩余空间（地址空间，`RLIMIT_AS`；其中 {in_use} 已被进程占用，"
               "包括 PyTorch）：你的代码触及了这个上限")


def _both(what: str | Msg) -> Msg:
    """A description of a step in both languages (code such as ``MultiHeadAttention.forward`` is
    the same in both)."""
    return msg(what, what) if isinstance(what, str) else what


def inputs_text(args: Sequence[Any], kwargs: dict[str, Any] | None = None) -> Msg | None:
    """The shapes (and a dtype other than float32) of the tensors a call was given, in order, keyword ones by
    name: " (inputs [2, 4, 5, 64], [2, 4, 7, 64], additive_mask [5, 7])". None when no tensor was given.

    Round 31, walked in Chromium: a call stopped at its time limit said "ScaledDotProductAttention.forward did
    not finish within 5 s", and the page asked to "run that call on your computer with the sizes the test
    names": no size was named anywhere (it was d_k = 64 of experiment A)."""
    def one(t: Tensor) -> str:
        dtype = "" if t.dtype.is_floating_point and t.dtype.itemsize == 4 else f" {str(t.dtype).removeprefix('torch.')}"
        return f"[{', '.join(map(str, t.shape))}]{dtype}"
    parts = [one(a) for a in args if isinstance(a, Tensor)]
    parts += [f"{k} {one(v)}" for k, v in (kwargs or {}).items() if isinstance(v, Tensor)]
    if not parts:
        return None
    return msg(f" (inputs {', '.join(parts)})", f"（输入 {'，'.join(parts)}）")


def _hinted(source: str | None, reader: Callable[..., Any], *args, default: Any = None) -> Any:
    """``reader(*args)`` within the grading's CPU allowance for reading ``source`` (grading/allowance.py): the
    hints run in the trusted test process for every failing test, and a file can be built to make them slow."""
    return reader(*args) if source is None else source_allowance(source).run(reader, *args, default=default)


def _source_note(source: str | None, line: int | None, said: str, kind: str, filename: str) -> Msg | None:
    """The first checked note that applies (each reads the failing line of the source and the message)."""
    return next(
        (n for note_of in (inplace_note, float_size_note, dtype_note, view_note, transpose_note, linear_note,
                           fill_overflow_note, size_number_note, no_self_note,
                           class_not_instance_note, script_define_note, no_forward_note,
                           no_super_init_note, attribute_note, call_shape_note, torch_call_note,
                           getattr_recursion_note, generator_note, plain_refusal_note, unpack_note,
                           shape_note, functools.partial(own_raise_note, kind=kind))
         if (n := note_of(source, line, said))), None) or runtime_file_note(source, line, said, filename) \
        or name_note(source, line, said, filename)


def student_error_text(what: str | Msg, exc: BaseException, filename: str = "attention.py",
                       packages: Sequence[str] | None = None, source: str | None = None) -> Msg:
    """``what raised Kind at file line N: message``. PyTorch's (or Python's) own text stays inside,
    untranslated; the Chinese sentence introduces it as that original message, so that a zh reader
    is told why an English sentence follows."""
    what = _both(what)
    kind = getattr(exc, "kind", None) or "Exception"
    message = getattr(exc, "message", None)
    if message is None:
        message = str(exc)
    lineno = getattr(exc, "lineno", None)
    where_en = f" at {filename} line {lineno}" if lineno else ""
    where_zh = f"（{filename} 第 {lineno} 行）" if lineno else ""
    detail = _clip(message)
    if kind == INVALID_RESULT and lineno is None:
        # Not an exception of the student's code: the sandbox (its encoder, or the client checking a
        # reply) could not carry what the code returned back to the tests, and said why in English.
        # Those never have a line; a class of the student's named InvalidResult raised in its file
        # has one, and reads as what it is (it read as the grader's own word: "returned something
        # the grader could not carry out of the sandbox: <the student's text>").
        said = _said(detail, _NOT_CARRIED)
        return msg(f"{what['en']} returned something the grader could not carry out of the sandbox"
                   + (f": {detail}" if detail else ""),
                   f"{what['zh']} 返回的内容无法从沙箱传回评分系统"
                   + (f"：{said['zh']}" if said else f"（{SANDBOX_ENGLISH_ZH}{detail}）" if detail else ""))
    if kind == "SystemExit" and (status := _exit_status_text(detail)) is not None:
        # as the import's (load_error_text): the runtime's words in both languages, not quoted as Python's own
        return msg(f"{what['en']} raised SystemExit ({status['en']}){where_en}",
                   f"{what['zh']} {f'在 {filename} 第 {lineno} 行' if lineno else ''}抛出了 SystemExit（{status['zh']}）")
    said = _said(detail, _GRADER_SAID)
    own = _hinted(source, own_message, source, lineno if isinstance(lineno, int) else None, kind, str(message),
                  default=False)
    text = msg(f"{what['en']} raised {kind}{where_en}" + (f"{_intro_en(own)}{detail}" if detail else ""),
               f"{what['zh']} 抛出 {kind}{where_zh}" + (f"：{said['zh']}" if said else
                                                       f"，{_intro_zh(own)}{detail}" if detail else ""))
    # The first checked note that applies (each reads the failing line of the source and the message).
    line, said = (lineno if isinstance(lineno, int) else None), str(message)
    # a refused request of known size is checked, so its note comes first; Python's own MemoryError (no size) is only
    # a fallback after every checked note: the parser's MemoryError on a deep expression is not the address space
    note = (memory_limit_note(exc, own) if _sized(exc) else None) or _import_note(exc, packages) or gpu_note(said) \
        or _hinted(source, _source_note, source, line, said, kind, filename) or memory_limit_note(exc, own)
    return cat(text, note, sep=SEMI)


# The exceptions the sandbox's runtime raises in the student's code (grading/sandbox/runtime.py): the
# grader's words, not PyTorch's or Python's, so said in Chinese too (as (pattern, en, zh) for _said).
_GRADER_SAID: tuple[tuple[re.Pattern[str], str, str], ...] = tuple((re.compile(p), en, zh) for p, en, zh in (
    # runtime.result: a value the tests cannot read (round 36: a forward with yield, quoted as Python's words)
    (r"(?P<what>\w+) returned (?P<tname>\w+), expected a Tensor or an array",
     "{what} returned {tname}, expected a Tensor or an array", "{what} 返回了 `{tname}` 类型的值，而应返回 Tensor 或数组"),
    (r"No module named '(?P<name>[^']+)' in the grader", "No module named '{name}' in the grader",
     "评分环境中没有模块 `{name}`"),
    (r"module '(?P<name>[^']+)' comes from a file written at run time; the grader imports only the standard "
     r"library and the allowed packages",
     "module '{name}' comes from a file written at run time; the grader imports only the standard library and "
     "the allowed packages", "模块 `{name}` 来自运行时写入的文件；评分器只导入标准库和允许的包"),
    (r"input\(\) was called more than (?P<n>\d+) times, but the grader has no keyboard: put code that asks for "
     r"input under if __name__ == '__main__':",
     "input() was called more than {n} times, but the grader has no keyboard: put code that asks for input "
     "under if __name__ == '__main__':",
     "input() 被调用了超过 {n} 次，但评分器没有键盘输入：请把需要输入的代码放到 `if __name__ == '__main__':` 之下"),
    # runtime._load_reparametrized: a projection whose weight is computed from other tensors
    (r"the reference weights cannot be loaded into (?P<name>[\w.]+): a parametrization \((?P<kinds>[\w, ]+)\) "
     r"computes it and cannot be set",
     "the reference weights cannot be loaded into {name}: a parametrization ({kinds}) computes it and cannot be set",
     "参考权重无法载入 {name}：它由参数化（{kinds}）计算得出，无法设为参考权重"),
    (r"the reference weights cannot be loaded into (?P<name>[\w.]+): the parametrization \((?P<kinds>[\w, ]+)\) "
     r"that computes it does not give them back",
     "the reference weights cannot be loaded into {name}: the parametrization ({kinds}) that computes it does not "
     "give them back", "参考权重无法载入 {name}：计算它的参数化（{kinds}）设入参考权重后得不到原值"),
    (r"the reference weights cannot be loaded into (?P<name>[\w.]+): it is pruned \((?P<n>\d+) of (?P<m>\d+) "
     r"entries masked to zero\)",
     "the reference weights cannot be loaded into {name}: it is pruned ({n} of {m} entries masked to zero)",
     "参考权重无法载入 {name}：它已被剪枝（{m} 个元素中有 {n} 个被置零）"),
))


def _intro_zh(own: bool) -> str:
    return OWN_MESSAGE_ZH if own else ORIGINAL_MESSAGE_ZH


def _intro_en(own: bool) -> str:
    return OWN_MESSAGE_EN if own else ": "


def _load_detail_zh(kind: str, lineno: Any, detail: str, own: bool = False) -> str:
    """The Chinese of a load error's message, with its leading separator: the grader's own words
    (a module it lacks, a reply it could not carry) translated, Python's or PyTorch's introduced as
    their original text (a zh reader is told why English follows)."""
    if not detail:
        return ""
    if said := _said(detail, _GRADER_SAID):
        return f"：{said['zh']}"
    if kind == INVALID_RESULT and lineno is None:
        said = _said(detail, _NOT_CARRIED)
        return f"：{said['zh']}" if said else f"（{SANDBOX_ENGLISH_ZH}{detail}）"
    return f"，{_intro_zh(own)}{detail}"


# How the sandbox's runtime states a SystemExit (grading.sandbox.runtime._exit_status): its exit code, and the text
# Python prints before exiting with 1 when the code is not an integer (sys.exit("bye")).
_EXIT_STATUS = re.compile(r"exit code (?P<code>-?\d+)(?:, message: (?P<text>.*))?", re.S)


def _exit_status_text(message: str) -> Msg | None:
    """``"exit code 3"`` or ``"exit code 1, with the message: "bye""`` in both languages, from the runtime's words; None
    for a message it did not write (round 35: the load error said only "SystemExit at line 3: 3")."""
    seen = _EXIT_STATUS.fullmatch(message)
    if seen is None:
        return None
    code, text = seen["code"], seen["text"]
    if text is None:
        return msg(f"exit code {code}", f"退出码 {code}")
    return msg(f'exit code {code}, with the message: "{text}"', f'退出码 {code}，附带消息："{text}"')


def _indent_end(source: str | None, lineno: int | None) -> int | None:
    """The column (1-based) of the first character after line ``lineno``'s indentation; None when unknown."""
    lines = python_lines(source) if isinstance(source, str) and lineno else []
    if not lineno or not 1 <= lineno <= len(lines) or not lines[lineno - 1].strip():
        return None
    text = lines[lineno - 1]
    return len(text) - len(text.lstrip(" \t\f")) + 1


def load_error_text(exc: BaseException, filename: str = "attention.py",
                    packages: Sequence[str] | None = None, source: str | None = None) -> Msg:
    """The load error for the student; with ``source`` (the submitted text, never executed here),
    followed by one checked hint (grading/load_hints.py) as a new sentence, then any note (the
    allowed packages): the result page shows the whole of it (the runner stores it as ``load_error``)."""
    kind = _kind_of(exc)
    if kind == "StudentError":
        k = getattr(exc, "kind", None) or "Exception"
        lineno = getattr(exc, "lineno", None)
        raw = getattr(exc, "message", None) or str(exc)
        m = _clip(raw)
        own = _hinted(source, own_message, source, lineno, k, str(raw), default=False)
        m_zh = _load_detail_zh(k, lineno, m, own)
        # A SyntaxError's column, as Python's caret shows it: the result page marks it in the line.
        column = getattr(exc, "offset", None) if lineno else None
        if column and k == "IndentationError" and str(raw).startswith("unindent does not match"):
            # Python's caret stands one past the line's end, where nothing is wrong: the place is where the
            # line's indentation ends (its first character), whose width the hint states (round 33)
            column = _indent_end(source, lineno)
        where = msg(f"line {lineno}, column {column}", f"第 {lineno} 行第 {column} 列") if column else \
            msg(f"line {lineno}", f"第 {lineno} 行")
        # a message of whitespace alone (round 44, review RC: one of 200,000 newlines, cut to its start) is said as
        # blank, not as "ValueError at line 55: " with nothing after the colon
        said_en, m_zh = (f"{_intro_en(own)}{m}", m_zh) if m else (" with a blank message", "（消息为空白）")
        text = (msg(f"{k} at {where['en']}{said_en}", f"{where['zh']}出现 {k}{m_zh}") if lineno else
                msg(f"{k} while importing {filename}{said_en}", f"导入 {filename} 时出现 {k}{m_zh}"))
        if load_seen(exc) == UNREAD:
            # the client could not read the jail's reply to the import (a reply came: what broke is not known, e.g.
            # a built-in the wire's loop calls replaced at import): never "did not load" (round 45 review RC LOW 5)
            text = msg(_UNREAD_REPLY_EN.format(filename=filename) + said_en,
                       _UNREAD_REPLY_ZH.format(filename=filename) + (f"（{SANDBOX_ENGLISH_ZH}{m}）" if m else ""))
        if k == "SystemExit" and (status := _exit_status_text(m)) is not None:
            text = (msg(f"the file raised SystemExit ({status['en']}) at {where['en']}",
                        f"文件在{where['zh']}抛出了 SystemExit（{status['zh']}）") if lineno else
                    msg(f"the file raised SystemExit ({status['en']}) while {filename} was imported",
                        f"导入 {filename} 时文件抛出了 SystemExit（{status['zh']}）"))
        hint = _hinted(source, load_hint, source, k, lineno, str(raw), filename)
        # a checked hint (an expression too deep for Python's parser raises MemoryError too) wins over the sizeless note
        limit_note = memory_limit_note(exc, own) if hint is None or _sized(exc) else None
        # the limit said with the error, then the hint (where the line runs: top-level code at import) still follows
        hinted = with_hint(cat(text, limit_note, sep=SEMI) if limit_note else text, hint)
        # an import of the file itself or relative to a package, or a name a provided package lacks, is no missing
        # package: the hint says what it is
        note = None if _hinted(source, own_import, source, lineno, filename) or package_name_hint(str(raw)) else \
            _import_note(exc, packages)
        if note is not None and hinted is not text:    # "...hint; note", not "...hint.; note"
            hinted = {lang: hinted[lang].rstrip(".。") for lang in ("en", "zh")}  # type: ignore[assignment]
        return cat(hinted, note, sep=SEMI)
    if isinstance(exc, StudentIdle):
        return idle_text(msg(f"importing {filename}", f"导入 {filename}"), exc)
    if kind == "StudentTimeout":
        if getattr(exc, "clock", "wall") == "cpu":
            text = msg(f"stopped after using {_seconds(exc)} s of CPU time, the limit, while importing {filename}",
                       f"导入 {filename} 时用完了 {_seconds(exc)} 秒的 CPU 时间上限，已被终止")
        else:
            text = msg(f"timed out after {_seconds(exc)} s of wall-clock time while importing {filename}",
                       f"导入 {filename} 超时（实际经过 {_seconds(exc)} 秒）")
        return with_hint(text, _hinted(source, load_hint, source, "StudentTimeout", None, "", filename))
    if kind == "SandboxDied":
        raw = str(getattr(exc, "reason", exc))
        reason = death_text(raw)
        if load_seen(exc) == RAN:
            # The module's top level had returned (or raised) when the loop failed: no crash of the import.
            return reason
        # Said as a call's end is (StudentProxy.call): "crashed" was a guess, false for an exit code or a
        # limit; the reason says how it ended, and a checked hint names the line that ended it.
        text = msg(f"your code's process stopped while importing {filename}: {reason['en']}",
                   f"导入 {filename} 期间你的代码所在进程终止：{reason['zh']}")
        return with_hint(text, _hinted(source, load_hint, source, "SandboxDied", None, raw, filename))
    return msg(f"{filename} could not be imported", f"{filename} 无法导入")


def source_of(session) -> str | None:
    """The text a sandbox session loaded (trusted: the parent handed it over), for load hints."""
    source = getattr(session, "source", None)
    if not isinstance(source, str):
        source = getattr(session, "_source", None)   # grading.sandbox.client.Session keeps it here
    return source if isinstance(source, str) else None


def not_loaded_text(filename: str, seen: str | None = None) -> Msg:
    """What a test not run because the module did not load says; ``seen``: how far the import went, as ``load_seen``
    tells it (said otherwise when the module had run and the jail's loop ended after it, or when the jail's reply to
    the import could not be read)."""
    if seen == RAN:
        return msg(f"not run: {filename} ran, then its sandbox ended before any test could run",
                   f"未运行：{filename} 运行之后，其沙箱在任何测试运行之前就结束了")
    if seen == UNREAD:
        return msg("not run: " + _UNREAD_REPLY_EN.format(filename=filename),
                   "未运行：" + _UNREAD_REPLY_ZH.format(filename=filename))
    return msg(f"not run: {filename} did not load", f"未运行：{filename} 无法导入")


# How far a failed import went (``load_seen``), carried beside its load error (round 46: the error's English words
# were matched, a prefix and a set of texts): the module's top level had run and the jail's own loop ended after it
# (client.SERVE_FAILED_TEXT: a descriptor replaced, the loop's functions patched; INTERRUPTED_TEXT), where "did not
# load" was said (round 45), which the student could not square with a file that imports cleanly; or the jail's
# reply to the import could not be read.
RAN = "ran"
UNREAD = "unread"


def load_seen(exc: BaseException) -> str | None:
    """``RAN``, ``UNREAD`` or None (the module did not load) for the exception a session's import raised."""
    kind = _kind_of(exc)
    if kind == "StudentError":
        unread = (getattr(exc, "kind", None) or "Exception") == INVALID_RESULT and not getattr(exc, "lineno", None)
        return UNREAD if unread else None
    if kind == "SandboxDied":
        return RAN if getattr(exc, "reason", None) in (SERVE_FAILED_TEXT, INTERRUPTED_TEXT) else None
    return None


# A load error of a reply to the import the client could not read (load_error_text): what was seen, neither that
# the module did not load nor that it ran to its end (junk written to the channel mid-import reads the same).
_UNREAD_REPLY_EN = "the sandbox's reply to importing {filename} could not be read"
_UNREAD_REPLY_ZH = "沙箱对导入 {filename} 的回复无法读取"


# How a session was lost (StudentProxy.causes), as the checks that could not run then say it: a reply
# the grader refused (more than the reply cap, forged) was called a hang or a crash.
# A session stopped at its CPU limit was computing all along (a loop that does not end): "hung" was said of it as
# of one stopped by the wall clock, and the student could not tell a spin from a wait (round 34).
LOST_CAUSES = {"hung": ("hung", "卡死"), "over_cpu": ("used up its CPU time limit", "用完了 CPU 时间上限"),
               "crashed": ("crashed", "崩溃"),
               # a jail ended by a signal's default action (SIGTERM sent to itself: not a crash) or by a SIGKILL the
               # grader did not send was said to have crashed in every check skipped after it (round 35); no cause
               # of such a SIGKILL is named (none is known for the jail: client.UNSENT_KILL_TEXT)
               "signalled": ("was ended by a signal", "被信号结束"),
               # the jail's loop that answers the grader failed after the code had run (exit code 71: a descriptor
               # closed, builtins rewritten): it exited, no crash was seen (round 36 said "crashed" of it)
               "stopped_answering": ("stopped answering the grader", "不再回应评分器"),
               "idle": ("sat idle while the grader waited", "在评分器等待时空闲不动"),
               "not_carried": ("returned what the grader could not carry out of the sandbox",
                               "返回了无法从沙箱传回评分系统的内容"),
               # Mend 47: each end below was counted as "crashed" ("not run: attention.py crashed 3 times already"
               # after three "exited with code 0" from a finalizer's os._exit(0)): an exit, a limit passed, or an
               # end the sandbox's words do not name, none a crash that was seen
               "exited": ("exited", "退出"),
               "over_output": ("printed more than the output limit", "输出超出上限"),
               "over_file_size": ("wrote a file over the file size limit", "写入超出大小上限的文件"),
               "ended": ("ended", "结束")}


def _death_cause(reason: Any) -> str:
    """The LOST_CAUSES key of how a jail died, from the sandbox's words (grading.sandbox.client._describe_status)."""
    text = str(reason)
    if text.startswith(("the sandboxed process was ended by ", "the sandboxed process was killed by SIG")):
        return "signalled"
    if text == SERVE_FAILED_TEXT:
        return "stopped_answering"
    # stopped at its session's CPU limit, as a call at its own limit is: computing all along, no crash was seen (a
    # file recursing a million deep was told it "crashed 3 times" after three such stops, round 47)
    if text.startswith(CPU_LIMIT_TEXT):
        return "over_cpu"
    for said, cause in ((EXITED_TEXT, "exited"), (OUTPUT_LIMIT_TEXT, "over_output"), (FILE_SIZE_TEXT, "over_file_size"),
                        (FAULT_TEXT, "crashed")):
        if text.startswith(said.split("{", 1)[0]):
            return cause
    return "ended"      # no crash was seen: a crash is said only of a fault (client.FAULT_TEXT)


def _lost(causes: Sequence[str]) -> Msg:
    """The ``causes`` seen, in both languages (unknown: "hung or crashed")."""
    seen = [c for c in LOST_CAUSES if c in causes] or ["hung", "crashed"]
    return msg(" or ".join(LOST_CAUSES[c][0] for c in seen), "或".join(LOST_CAUSES[c][1] for c in seen))


def gave_up_text(filename: str, times: int, causes: Sequence[str] = ()) -> Msg:
    lost = _lost(causes)
    return msg(f"not run: {filename} {lost['en']} {times} times already, so the remaining checks "
               "were skipped", f"未运行：{filename} 已{lost['zh']} {times} 次，其余检查被跳过")


def _gap(zh: str) -> str:
    """The blank between ``zh`` and the clause that follows it: none after a full-width bracket."""
    return "" if zh.endswith("）") else " "


def idle_text(what: Msg, exc: BaseException) -> Msg:
    """What was seen of a call the sandbox stopped as idle (client.StudentIdle): how long the jail
    used (almost) no CPU while the grader waited, and that no reply came. No guess at the cause."""
    secs = f"{float(getattr(exc, 'seconds', 0.0)):.1f}"
    cpu = f"{float(getattr(exc, 'cpu', 0.0)):.2f}"
    seen = IDLE_SEEN  # a page tells an idle stop from a time limit by these words (i18n.stopped_idle)
    # A reply that had begun to arrive and then stalled (written a few bytes at a time) is told as such.
    partial = getattr(exc, "partial", False) is True
    if getattr(exc, "total", False):
        return msg(f"{what['en']} was stopped: your code sat idle (no CPU used, nothing running) {seen['en']}, "
                   f"{secs} s in all in this grading, the most it allows; "
                   + ("only part of this call's reply arrived" if partial else "nothing this call computed arrived"),
                   f"{what['zh']}{_gap(what['zh'])}被终止：{seen['zh']}时你的代码处于空闲（不占用 CPU，没有任何计算在运行），本次评分中累计 "
                   f"{secs} 秒，已达上限；" + ("这次调用的回复只传回了一部分" if partial else "这次调用没有返回任何结果"))
    return msg(f"{what['en']} used {cpu} s of CPU in {secs} s {seen['en']} (nothing "
               "was running), so the grader stopped it; "
               + ("only part of its reply arrived" if partial else "nothing it computed arrived"),
               f"{what['zh']}{_gap(what['zh'])}在{seen['zh']}的 {secs} 秒内只用了 {cpu} 秒 CPU（没有任何计算在运行），评分器因此终止了它；"
               + ("它的回复只传回了一部分" if partial else "它没有返回任何结果"))


def _seconds(exc: BaseException) -> str:
    """The limit a timeout met, as a student reads it: at most two decimals. A call's limit is cut
    to what is left of the grading's budget, which is no round number ("within 9.93107 s")."""
    s = getattr(exc, "seconds", None)
    if not isinstance(s, int | float) or s != s:
        return "?"
    return f"{s:.2f}".rstrip("0").rstrip(".")


# --------------------------------------------------------------------------- the proxy
class Handle:
    """A student object described by a recipe; re-created in a fresh session when needed."""

    def __init__(self, proxy: StudentProxy, cls_name: str, args: tuple, kwargs: dict,
                 params: dict[str, Tensor] | None, label: str, eval_mode: bool = True):
        self._proxy, self.cls_name, self.args, self.kwargs = proxy, cls_name, args, kwargs
        self.params, self.label, self.eval_mode = params, label, eval_mode
        self._gen = -1
        self._id: Any = None
        # describe() replies of this object as built, by attributes asked: the layout tests and every
        # weight loading read the same object's layout (13 round trips per grading, 4 of them distinct).
        # Dropped when the object is rebuilt or called (a forward may change it: lazy modules).
        self.described: dict[tuple[str, ...], dict] = {}
        # Calls this object served in session generation ``calls_gen`` (a driver's record: an object
        # rebuilt in a new session starts with none).
        self.calls, self.calls_gen = 0, -1

    def id(self, session, layout: tuple[str, ...] | None = None) -> Any:
        """The object's handle in ``session``, built when needed; with ``layout`` (attributes), a build
        also brings back the describe reply for them (client.Session.build), which a describe made
        next reads without a round trip."""
        if self._gen != self._proxy.generation:
            self._id = None
            self.described = {}
            # One round trip: the object, its parameters and eval() (each was its own before).
            extra = {} if layout is None else {"describe": layout}
            self._id = session.build(self.cls_name, self.args, self.kwargs, params=self.params or None,
                                     eval_mode=self.eval_mode, **extra)
            self._gen = self._proxy.generation
        return self._id


class InheritedSession:
    """Session provider for a forked grading child: exactly one session, opened and owned (closed,
    killed, its output read) by the parent process.  A second ``open`` means the first one died;
    the child then stops and the parent continues in a fresh child with a fresh session."""

    def __init__(self, session):
        self._session = session

    def open(self):
        session, self._session = self._session, None
        if session is None:
            raise SessionLost(msg("the sandbox session was lost", "沙箱会话已丢失"))
        return session

    def close(self, session) -> None:
        """Never closed here: the parent closes it once this child has exited."""


class SessionLost(Feedback):
    """The session died and this process cannot open another one (see :class:`InheritedSession`)."""


class StudentProxy:
    def __init__(self, sessions: InheritedSession, *, filename: str = "attention.py",
                 log: Callable[[str], None] | None = None, packages: Sequence[str] | None = None):
        self._sessions = sessions
        self.filename = filename
        # Third-party packages the jail offers (named in import-error feedback); None: not stated.
        self.packages = packages
        self._log = log or (lambda msg: None)
        self._session = None
        self.generation = 0
        self.deaths = 0
        self.last_death = "failed"
        self.causes: list[str] = []          # how each lost session was lost (LOST_CAUSES)
        self.loaded = False
        self.load_error: Msg | None = None
        self.load_seen: str | None = None    # how far the failed import went (``load_seen``)
        self._handles: dict[Any, Handle] = {}
        # (class name, method, [positions and keyword names]) of each call that changed its tensor arguments
        # in place, as the jail reported it (its inputs are copies: the grader's own tensors never change).
        self.changed_inputs: list[tuple[str, str, list[int | str]]] = []
        # What the last gradient call changed in place (``grad``): the entries it added to changed_inputs.
        self.grad_changed: list[tuple[str, str, list[int | str]]] = []

    # ---------------------------------------------------------------- session management
    def _open(self):
        try:
            session = self._sessions.open()
        except SessionLost:
            raise
        except Exception as exc:  # the sandbox could not even start a session
            raise InfrastructureError(f"could not open a sandbox session: {exc!r}") from exc
        self._session = session
        self.generation += 1
        return session

    def _close_session(self) -> None:
        session, self._session = self._session, None
        if session is None:
            return
        try:
            self._sessions.close(session)
        except Exception as exc:  # noqa: BLE001
            self._log(f"closing a sandbox session failed: {exc!r}")

    def close(self) -> None:
        self._close_session()

    def load(self) -> bool:
        """Open the first session and run the module's top level.  Returns ``True`` when loaded;
        otherwise ``load_error`` holds an actionable message.  Infrastructure failures raise."""
        t0 = time.perf_counter()
        session = self._open()
        try:
            session.load()
        except Exception as exc:
            kind = _kind_of(exc)
            if kind in (None, "SandboxUnavailable"):
                self._close_session()
                raise InfrastructureError(f"loading the submission failed in the sandbox: {exc!r}") from exc
            self.load_error = load_error_text(exc, self.filename, self.packages, source_of(session))
            self.load_seen = load_seen(exc)
            self._log(f"load failed: {self.load_error['en']}")
            self._close_session()
            return False
        self.loaded = True
        self._log(f"loaded {self.filename} in {time.perf_counter() - t0:.3f} s")
        return True

    def _ensure_session(self):
        if not self.loaded:
            raise NotLoaded(not_loaded_text(self.filename, self.load_seen))
        if self._session is not None:
            return self._session
        lost = _lost(self.causes[-1:])
        raise SessionLost(msg(f"not run: {self.filename} {lost['en']} in an earlier call",
                              f"未运行：{self.filename} 在之前的调用中{lost['zh']}"), self.last_death)

    def _dead(self, kind: str, cause: str) -> None:
        self.deaths += 1
        self.last_death = kind
        self.causes.append(cause)
        self._close_session()

    def _run(self, what: str | Msg, fn: Callable[[Any], Any],
             inputs: Msg | Callable[[], Msg | None] | None = None) -> Any:
        """``fn(session)``; its failures as the student's feedback. ``inputs`` (inputs_text, or what makes it:
        made only when told) is told when the call was stopped: the sizes to run it with at home."""
        session = self._ensure_session()
        both = _both(what)
        try:
            return fn(session)
        except Feedback:
            raise
        except Exception as exc:
            kind = _kind_of(exc)
            if kind == "StudentError":
                if getattr(session, "alive", True) is False:  # a reply it refused (forged, over the cap)
                    self._dead("failed", "not_carried")
                source, line = source_of(session), getattr(exc, "lineno", None)
                own = _hinted(source, own_message, source, line if isinstance(line, int) else None,
                              getattr(exc, "kind", None) or "Exception", str(getattr(exc, "message", "")),
                              default=False) if _memory_failure_seen(exc) else False
                raise Feedback(cat(student_error_text(what, exc, self.filename, self.packages, source),
                                   lowered_limits_note(memory_failure_limits(
                                       exc, _lowered_limits(session, read=True), own)), sep=SEMI)) from None
            if callable(inputs):
                inputs = inputs()
            if isinstance(exc, StudentIdle):
                self._dead("timeout", "idle")
                raise StudentTimedOut(idle_text(cat(both, inputs), exc)) from None
            if kind == "StudentTimeout":
                over_cpu = getattr(exc, "clock", "wall") == "cpu"
                self._dead("timeout", "over_cpu" if over_cpu else "hung")
                called = cat(both, inputs)
                gap = _gap(called["zh"])
                if over_cpu:
                    raise StudentTimedOut(msg(
                        f"{called['en']} did not finish within {_seconds(exc)} s of CPU time",
                        f"{called['zh']}{gap}未在 {_seconds(exc)} 秒的 CPU 时间内结束")) from None
                raise StudentTimedOut(msg(f"{called['en']} did not finish within {_seconds(exc)} s of wall-clock time",
                                          f"{called['zh']}{gap}未在实际经过的 {_seconds(exc)} 秒内结束")) from None
            if kind == "SandboxDied":
                self._dead("failed", _death_cause(getattr(exc, "reason", exc)))
                reason = death_text(getattr(exc, "reason", exc))
                raise Feedback(cat(msg(f"your code's process stopped during {both['en']}: {reason['en']}",
                                       f"{both['zh']} 期间你的代码所在进程终止：{reason['zh']}"),
                                   lowered_limits_note(memory_failure_limits(exc, _lowered_limits(session))),
                                   sep=SEMI)) from None
            raise InfrastructureError(f"sandbox failure during {both['en']}: {exc!r}") from exc

    # ---------------------------------------------------------------- generic access
    def new(self, cls_name: str, *args, params: dict[str, Tensor] | None = None, eval_mode: bool = True,
            **kwargs) -> Handle:
        """A (lazily created) handle on ``cls_name(*args, **kwargs)``.  By default the object is put
        in ``eval()`` mode (parity is checked at inference); ``eval_mode=False`` keeps the state a
        fresh module has (training), as the determinism check needs."""
        key = (cls_name, args, tuple(sorted(kwargs.items())), eval_mode)
        handle = self._handles.get(key) if params is None else None
        if handle is None:
            shown = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
            handle = Handle(self, cls_name, args, kwargs, params, f"{cls_name}({shown})", eval_mode)
            if params is None:
                self._handles[key] = handle
        return handle

    def instantiate(self, handle: Handle, layout: tuple[str, ...] | None = None) -> None:
        """Create the object now (so constructor errors surface with a clear message); ``layout``:
        see :meth:`Handle.id`."""
        if handle._gen == self.generation and self._session is not None:
            # Built in this session already: nothing to run. Each call, describe and gradient of an object
            # came here first, and made a label, a message in both languages and a step of its own.
            return
        def make(session):
            try:
                return handle.id(session, layout)
            except Exception as exc:
                if _module_lacks(exc, handle.cls_name):
                    source = source_of(session)
                    raise Feedback(with_hint(missing_name_lead(source, handle.cls_name, self.filename),
                                             missing_name_hint(source, handle.cls_name, self.filename))) from None
                raise
        self._run(msg(f"creating {handle.label}", f"创建 {handle.label}"), make)

    def describe(self, handle: Handle, attributes: Sequence[str] = ()) -> dict:
        key = tuple(attributes)
        # An object not built yet in this session is built with this layout: the describe below is
        # then answered from the build's reply (issue 14: one round trip instead of two).
        self.instantiate(handle, key)
        if key not in handle.described:
            info = self._run(msg(f"describing {handle.label}", f"读取 {handle.label} 的结构"),
                             lambda s: s.describe(handle.id(s), key))
            handle.described[key] = info
        # Callers may edit what they are given. A describe reply is plain JSON (dicts, lists, str,
        # int, bool, None: client._is_describe_reply), which marshal copies in C: 8 µs against
        # copy.deepcopy's 48 for a MultiHeadAttention's layout, 16 times a grading.
        return marshal.loads(marshal.dumps(handle.described[key]))

    def call(self, handle: Handle, method: str, *args, **kwargs) -> Any:
        self.instantiate(handle)
        handle.described = {}
        what = f"{handle.cls_name}.forward" if method == "__call__" else f"{handle.cls_name}.{method}"

        def call(session):
            out = session.call(handle.id(session), method, *args, **kwargs)
            if changed := list(getattr(session, "changed_inputs", None) or ()):
                self.changed_inputs.append((handle.cls_name, method, changed))
            return out
        return self._run(what, call, lambda: inputs_text(args, kwargs))

    def function(self, name: str, *args, **kwargs) -> Any:
        """``name(*args, **kwargs)`` for a module-level function of the student's file (tensors,
        NumPy arrays and plain values cross the boundary; see grading/sandbox/protocol.py)."""
        def call(session):
            try:
                return session.call_function(name, *args, **kwargs)
            except Exception as exc:
                if _module_lacks(exc, name):
                    source = source_of(session)
                    raise Feedback(with_hint(missing_name_lead(source, name, self.filename),
                                             missing_name_hint(source, name, self.filename))) from None
                raise
        return self._run(f"{name}()", call)

    def grad(self, handle: Handle, args: Sequence, kwargs: dict, grad_output: Tensor,
             wrt: Sequence[int], missing_ok: bool = False) -> list[Tensor | None]:
        """The gradients of ``sum(forward(*args) * grad_output)`` with respect to ``args[i]`` for i in
        ``wrt``; one that did not reach its input is a Feedback, or None with ``missing_ok`` (a caller that
        knows the inputs' names says which)."""
        self.instantiate(handle)
        handle.described = {}
        what = msg(f"backward through {handle.cls_name}.forward", f"对 {handle.cls_name}.forward 反向传播")

        def grad(session):
            try:
                out = session.grad(handle.id(session), list(args), dict(kwargs), grad_output, wrt=list(wrt))
            except Exception as exc:
                # backward's error has no line of the student's: when it says a saved tensor was changed in
                # place, the lines of the class that change a tensor in place are where to look
                said = str(getattr(exc, "message", None) or exc)
                if _kind_of(exc) != "StudentError" or getattr(session, "alive", True) is False or not (
                        note := inplace_backward_note(source_of(session), handle.cls_name, said)):
                    raise
                raise Feedback(cat(student_error_text(what, exc, self.filename, self.packages, source_of(session)),
                                   note, sep=SEMI)) from None
            # Inputs the forward changed in place during this call (runtime.op_grad), as ``call`` records them.
            if changed := list(getattr(session, "changed_inputs", None) or ()):
                self.changed_inputs.append((handle.cls_name, "__call__", changed))
            return out
        seen = len(self.changed_inputs)
        res = self._run(what, grad, lambda: inputs_text(args, kwargs))
        self.grad_changed = self.changed_inputs[seen:]
        grads = list(res) if isinstance(res, list | tuple) else [res]
        if len(grads) != len(wrt):
            raise Feedback(msg(f"expected {len(wrt)} gradients, got {len(grads)}",
                               f"应得到 {len(wrt)} 个梯度，实际为 {len(grads)} 个"))
        for i, g in zip(wrt, grads, strict=True):
            if not isinstance(g, Tensor) and not missing_ok:
                raise Feedback(msg(f"no gradient reached input {i}: the output does not depend on it "
                                   "differentiably",
                                   f"梯度没有传到第 {i} 个输入：输出对它不可微（与它断开了）"))
        return [g if isinstance(g, Tensor) else None for g in grads]

    def stats(self) -> dict:
        return self._run(msg("reading the call counters", "读取调用计数"), lambda s: s.stats())


__all__ = ["Feedback", "StudentTimedOut", "NotLoaded", "SessionLost", "InfrastructureError",
           "expect", "StudentProxy", "InheritedSession", "student_error_text", "load_error_text", "death_text",
           "not_loaded_text", "load_seen", "RAN", "UNREAD", "gave_up_text", "packages_text", "source_of"]
