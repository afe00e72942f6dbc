"""Decoding hostile audit files in a child process with hard limits.

PDF text extraction and image decoding run here, never in a web thread or a grading worker
itself: each file is decoded in a process forked from a `multiprocessing` fork server (a clean,
single-threaded interpreter that has pypdf and Pillow imported once), which sets its own CPU and
address-space rlimits before touching the bytes; the caller kills it at a wall timeout. A refused
or too costly file gets an ``InputError`` in both languages.

A file's cost is the CPU time its decode uses (``RLIMIT_CPU``), never the wall time: on a loaded
host the child waits for a CPU, and that wait is no fault of the file. The wall limit counts only
the time the child was not waiting for a CPU (``/proc/<pid>/schedstat``); a decode starved for
longer than ``DECODE_BUSY_WALL_S`` is given up with ``DecodeBusy``.

Each process runs at most ``DECODE_SLOTS`` decodes at once, and lets at most ``DECODE_QUEUE``
more wait ``DECODE_SLOT_WAIT_S`` for one: the web's threads (waiting on a child's pipe) cannot all
be taken by uploads of costly files, so the other pages keep answering. An upload that gets no
slot is refused with ``DecodeBusy``: the server's state, not the file's, so the web answers 503
with Retry-After and stores nothing.
"""

from __future__ import annotations

import contextvars
import multiprocessing
import os
import resource
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing import spawn
from multiprocessing.connection import Connection

from autograder import settings
from grading.forking import cpu_seconds

_ctx_lock = threading.Lock()
_ctx = None
_ctx_pid: int | None = None


# What a decoding child imports: loaded once by the fork server, so that a child pays for its file
# only. rubric.audit.figure (numpy) and rubric.audit.text (yaml, opencc) were imported by each child,
# 0.14-0.19 s of its CPU for a file whose decode costs 0.01 s.
_PRELOAD = ["grading.inputs", "pypdf", "pypdf.filters", "pypdf._codecs._codecs", "PIL.Image",
            "PIL.PngImagePlugin", "PIL.JpegImagePlugin", "rubric.audit.figure", "rubric.audit.text"]

# The name of every decoding child (multiprocessing's Process name): its preparation data leaves out
# the parent's __main__ (see _without_main).
_CHILD_NAME = "grading-decode"


def _without_main(prepare: Callable[[str], dict]) -> Callable[[str], dict]:
    """``spawn.get_preparation_data`` for a decoding child without the parent's ``__main__``.

    multiprocessing runs the parent's main module again in each child it starts (as ``__mp_main__``),
    for targets defined there. A decoding child's target is ``_child`` of this module: running the
    main again only cost it CPU inside its own limit, 0.5 s for ``autograder`` (the worker runs
    ``-m autograder.cli``, the CLI its script: Flask, SQLAlchemy, Celery), about 35 times a figure's
    decode, so that an honest file took 1 s of a busy host's wall time."""

    def prepared(name: str) -> dict:
        data = prepare(name)
        if name == _CHILD_NAME:
            data.pop("init_main_from_name", None)
            data.pop("init_main_from_path", None)
        return data

    prepared.__wrapped__ = prepare  # type: ignore[attr-defined]
    return prepared


def _context():
    """The fork server context, started on first use (one per process, shared by its threads).

    A process forked after its parent started the server cannot use it (multiprocessing tracks
    the server as its starter's child): web and pool processes start their own on first use."""
    global _ctx, _ctx_pid
    with _ctx_lock:
        if _ctx is not None and _ctx_pid != os.getpid():
            raise RuntimeError("grading.decode: the fork server was started by the parent of this "
                               "forked process; decode in a process that did not inherit it")
        if _ctx is None:
            _ctx_pid = os.getpid()
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(_PRELOAD)
            if not hasattr(spawn.get_preparation_data, "__wrapped__"):
                # popen_forkserver looks it up in spawn at each start: every start sees the wrapper
                spawn.get_preparation_data = _without_main(spawn.get_preparation_data)
            _ctx = ctx
        return _ctx


def warm() -> None:
    """Start the fork server now (about a second, once per process) rather than in the first upload."""
    from multiprocessing import forkserver

    _context()
    forkserver.ensure_running()


class DecodeBusy(Exception):
    """The server could not decode the file now (every decode slot taken, or the CPU too shared to
    finish in time): not the file's fault. Nothing was stored; the client should retry after
    ``retry_after`` seconds. ``en``/``zh`` are shown to the student."""

    def __init__(self, en: str, zh: str, retry_after: int) -> None:
        super().__init__(en)
        self.en, self.zh, self.retry_after = en, zh, retry_after


def _busy(kind: str, why_en: str, why_zh: str) -> DecodeBusy:
    what_en, what_zh = ("audit PDF", "审计 PDF") if kind == "audit" else ("figure", "图片")
    retry = max(1, round(settings.DECODE_BUSY_RETRY_S))
    return DecodeBusy(
        f"The server is busy ({why_en}), so your {what_en} could not be checked now. This upload was not "
        f"stored; your earlier attempts are unchanged. Please submit again in {retry} seconds or so.",
        f"服务器正忙（{why_zh}），暂时无法检查你的{what_zh}。本次上传没有保存；之前的提交不受影响。"
        f"请在约 {retry} 秒后重新提交。",
        retry,
    )


class _Slots:
    """At most ``size`` holders at once, at most ``queue`` more waiting for a place."""

    def __init__(self, size: int, queue: int) -> None:
        self.size, self.queue = size, queue
        self.running = self.waiting = 0
        self._cond = threading.Condition()

    @contextmanager
    def held(self, kind: str, wait_s: float) -> Iterator[None]:
        with self._cond:
            if self.running >= self.size:
                if self.waiting >= self.queue:
                    raise _busy(kind, "every decoding slot is taken and others are waiting",
                                "所有解码名额都在使用中，且已有其他上传在排队")
                self.waiting += 1
                try:
                    free = self._cond.wait_for(lambda: self.running < self.size, timeout=wait_s)
                finally:
                    self.waiting -= 1
                if not free:
                    raise _busy(kind, "other uploads are being decoded", "正在解码其他上传的文件")
            self.running += 1
        try:
            yield
        finally:
            with self._cond:
                self.running -= 1
                self._cond.notify()


_slots_lock = threading.Lock()
_slots: _Slots | None = None


def _reset_slots_after_fork() -> None:
    # A forked process (a gunicorn or Celery worker) runs none of its parent's decodes.
    global _slots, _slots_lock
    _slots, _slots_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_reset_slots_after_fork)


def slots() -> _Slots:
    """This process's decode slots, sized from the settings (re-made when they change)."""
    global _slots
    size, queue = max(1, int(settings.DECODE_SLOTS)), max(0, int(settings.DECODE_QUEUE))
    with _slots_lock:
        if _slots is None or (_slots.size, _slots.queue) != (size, queue):
            _slots = _Slots(size, queue)
        return _slots


def _cpu_wait_s(pid: int) -> float | None:
    """Seconds the process ``pid`` has spent runnable but waiting for a CPU, or None if unknown.

    From ``/proc/<pid>/schedstat``: on-CPU ns, run-queue wait ns, time slices."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def _outcome_wait(receive: Connection, pid: int, kind: str) -> dict | None:
    """The child's reply, or None when it died (its CPU limit) or ran past DECODE_WALL_S of time
    not spent waiting for a CPU. Raises DecodeBusy when the CPU is so shared that the decode is
    still not done after DECODE_BUSY_WALL_S."""
    start = time.monotonic()
    limit, busy_limit = settings.DECODE_WALL_S, settings.DECODE_BUSY_WALL_S
    # No need to look at the child before its whole wall limit has passed.
    ready = receive.poll(limit)
    while not ready:
        elapsed = time.monotonic() - start
        waited = _cpu_wait_s(pid)
        if waited is None:  # no schedstat: count all the wall time not spent on a CPU as waiting
            used = cpu_seconds(pid)
            waited = elapsed - used if used is not None else 0.0
        if elapsed - waited > limit:
            return None
        if elapsed > busy_limit:
            raise _busy(kind, "too many processes share the CPU to finish checking it in time",
                        "共享 CPU 的进程过多，未能及时完成检查")
        ready = receive.poll(min(0.1, max(0.01, busy_limit - elapsed)))
    try:
        return receive.recv()
    except EOFError:        # the child died (CPU limit: SIGXCPU/SIGKILL, or out of memory)
        return None


def _too_costly(kind: str, what: str) -> Exception:
    from grading.inputs import InputError

    zh = "耗时过长" if "long" in what else ("无法在此进程中安全完成" if "safely" in what else "所需内存过多")
    if kind == "figure":
        return InputError(
            "figure_too_costly",
            f"Decoding this image {what}. Save it again as a plain PNG (plt.savefig('attention.png')).",
            f"解码这张图片{zh}。请重新保存为普通 PNG（plt.savefig('attention.png')）。",
        )
    return InputError(
        "audit_too_costly",
        f"Extracting the text of this PDF {what}. Upload the text as .md or .txt instead.",
        f"提取这个 PDF 的文字{zh}。请改为上传 .md 或 .txt。",
    )


def _child(conn: Connection, kind: str, filename: str | None, data: bytes, cpu: float, memory: int) -> None:
    """In the forked child: limit this process, decode, send one reply."""
    seconds = max(1, int(cpu))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    from grading import inputs

    try:
        if kind == "audit":
            reply: dict = {"ok": True, "value": inputs.extract_audit(filename, data)}
        else:
            reply = {"ok": True, "value": inputs.decode_figure(filename, data).to_dict()}
    except inputs.InputError as exc:
        reply = {"ok": False, "code": exc.code, "en": exc.en, "zh": exc.zh}
    except MemoryError:
        reply = {"ok": False, "memory": True}
    usage = resource.getrusage(resource.RUSAGE_SELF)
    reply["cpu"] = usage.ru_utime + usage.ru_stime
    conn.send(reply)
    conn.close()


# The CPU seconds of the decodes run inside cpu_meter(), for a caller that charges them to whoever
# sent the files (app/submitting.py: a per-user decode budget).
_meter: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar("decode_cpu_meter", default=None)


@contextmanager
def cpu_meter() -> Iterator[list[float]]:
    """Add up, in the one-element list it yields, the CPU seconds used by the decoding children
    started inside it (in this thread): what a child reports, else what /proc says it used when it
    was stopped, else DECODE_CPU_S (it died at its CPU or memory limit)."""
    spent = [0.0]
    token = _meter.set(spent)
    try:
        yield spent
    finally:
        _meter.reset(token)


def _charge(reply: dict | None, used: float | None) -> None:
    spent = _meter.get()
    if spent is None:
        return
    cpu = reply.get("cpu") if reply else None
    spent[0] += float(cpu if isinstance(cpu, int | float) else used if used is not None else settings.DECODE_CPU_S)


def run_bounded(kind: str, filename: str | None, data: bytes) -> object:
    """Run ``grading.inputs`` decoding of ``kind`` (``audit`` | ``figure``) on ``data`` in a
    limited child; return its value (the audit text, or the figure's info as a dict) or raise
    ``InputError`` (the file) or ``DecodeBusy`` (the server: no slot, or no CPU to finish)."""
    with slots().held(kind, settings.DECODE_SLOT_WAIT_S):
        return _run_child(kind, filename, data)


def _run_child(kind: str, filename: str | None, data: bytes) -> object:
    from grading.inputs import InputError

    ctx = _context()
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, kind, filename, data, settings.DECODE_CPU_S,
                                            settings.DECODE_MEMORY_BYTES), daemon=True, name=_CHILD_NAME)
    # A Celery pool process is marked daemonic, and multiprocessing refuses children to daemonic
    # processes so that none outlives its parent. This child cannot: it is killed at the wall
    # timeout and joined below before we return. Lift the mark for this start only.
    config = multiprocessing.current_process()._config
    daemonic = config.pop("daemon", None)
    try:
        proc.start()
    except (TypeError, AssertionError) as exc:
        # A process multiprocessing cannot start children from (e.g. a Celery pool process, whose
        # authkey cannot be sent to the fork server): refuse to decode rather than decode unbounded.
        send.close()
        receive.close()
        raise _too_costly(kind, f"cannot be done safely in this process ({exc.__class__.__name__})") from exc
    finally:
        if daemonic is not None:
            config["daemon"] = daemonic
    send.close()
    reply = used = None
    try:
        reply = _outcome_wait(receive, proc.pid, kind)
    finally:
        receive.close()
        if proc.is_alive():
            used = cpu_seconds(proc.pid)  # stopped at its wall limit, or given up as busy
            proc.kill()
        proc.join()
        _charge(reply, used)
    if reply is None:
        raise _too_costly(kind, "takes too long")
    if reply.get("memory"):
        raise _too_costly(kind, "needs too much memory")
    if not reply.get("ok"):
        raise InputError(str(reply.get("code")), str(reply.get("en")), str(reply.get("zh")))
    return reply.get("value")
