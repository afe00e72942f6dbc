"""Decoding hostile audit files in a child process with hard limits.

PDF text extraction and image decoding run here, never in a web thread or a grading worker
itself: each file is decoded in a process forked from a `multiprocessing` fork server (a clean,
single-threaded interpreter that has pypdf and Pillow imported once), which sets its own CPU and
address-space rlimits before touching the bytes; the caller kills it at a wall timeout. A refused
or too costly file gets an ``InputError`` in both languages.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import threading
from multiprocessing.connection import Connection

from autograder import settings

_ctx_lock = threading.Lock()
_ctx = None
_ctx_pid: int | None = None


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
            ctx.set_forkserver_preload(["grading.inputs", "pypdf", "PIL.Image", "PIL.PngImagePlugin",
                                        "PIL.JpegImagePlugin"])
            _ctx = ctx
        return _ctx


def warm() -> None:
    """Start the fork server now (about a second, once per process) rather than in the first upload."""
    from multiprocessing import forkserver

    _context()
    forkserver.ensure_running()


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
    conn.send(reply)
    conn.close()


def run_bounded(kind: str, filename: str | None, data: bytes) -> object:
    """Run ``grading.inputs`` decoding of ``kind`` (``audit`` | ``figure``) on ``data`` in a
    limited child; return its value (the audit text, or the figure's info as a dict) or raise
    ``InputError``."""
    from grading.inputs import InputError

    ctx = _context()
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, kind, filename, data, settings.DECODE_CPU_S,
                                            settings.DECODE_MEMORY_BYTES), daemon=True)
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
    try:
        reply = receive.recv() if receive.poll(settings.DECODE_WALL_S) else None
    except EOFError:        # the child died (CPU limit: SIGXCPU/SIGKILL, or out of memory)
        reply = None
    finally:
        receive.close()
        if proc.is_alive():
            proc.kill()
        proc.join()
    if reply is None:
        raise _too_costly(kind, "takes too long")
    if reply.get("memory"):
        raise _too_costly(kind, "needs too much memory")
    if not reply.get("ok"):
        raise InputError(str(reply.get("code")), str(reply.get("en")), str(reply.get("zh")))
    return reply.get("value")
