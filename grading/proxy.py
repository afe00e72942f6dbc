"""Typed layer between the trusted acceptance suite and a sandbox ``Session``.

The suite never touches student objects: it calls :class:`StudentProxy` methods with plain tensors
and gets plain tensors back.  Everything that can go wrong on the student's side is turned into a
:class:`Feedback` exception whose message is meant for the student:

* ``StudentError``    -> ``Feedback("forward raised RuntimeError at attention.py line 17: ...")``
* ``StudentTimeout``  -> :class:`StudentTimedOut` (test outcome ``timeout``), session dead
* ``SandboxDied``     -> ``Feedback("... stopped ...")``, session dead

A dead session is replaced by a fresh one (module re-loaded, handles re-created lazily) at most
``max_reopens`` times; after that every call fails immediately (:class:`GiveUp`) so that a submission
that always hangs costs bounded time.  ``SandboxUnavailable`` (and anything else unexpected from the
sandbox itself) is an infrastructure failure and propagates as :class:`InfrastructureError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from torch import Tensor

from grading.sandbox import SandboxDied, SandboxUnavailable, StudentError, StudentTimeout

MAX_MESSAGE = 300


# --------------------------------------------------------------------------- feedback exceptions
class Feedback(AssertionError):
    """A check failed; ``str(exc)`` is shown to the student (for visible tests)."""

    outcome = "failed"


class StudentTimedOut(Feedback):
    outcome = "timeout"


class GiveUp(Feedback):
    """The submission died too often: remaining checks are skipped quickly."""

    def __init__(self, message: str, outcome: str = "failed"):
        super().__init__(message)
        self.outcome = outcome


class NotLoaded(Feedback):
    """attention.py did not load, so nothing can be run against it."""


class InfrastructureError(RuntimeError):
    """The sandbox could not do its job; never the student's fault (grading status ``error``)."""


def expect(condition: Any, message: str) -> None:
    """``assert`` for graders: raise :class:`Feedback` with an actionable message."""
    if not condition:
        raise Feedback(message)


# --------------------------------------------------------------------------- sandbox error kinds
def _kind_of(exc: BaseException) -> str | None:
    """The sandbox exception class an error belongs to, by name, or None for anything else."""
    for cls in (StudentError, StudentTimeout, SandboxDied, SandboxUnavailable):
        if isinstance(exc, cls):
            return cls.__name__
    return None


def _clip(text: Any, limit: int = MAX_MESSAGE) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def student_error_text(what: str, exc: BaseException, filename: str = "attention.py") -> str:
    kind = getattr(exc, "kind", None) or "an exception"
    message = getattr(exc, "message", None)
    if message is None:
        message = str(exc)
    lineno = getattr(exc, "lineno", None)
    where = f" at {filename} line {lineno}" if lineno else ""
    return f"{what} raised {kind}{where}: {_clip(message)}"


def load_error_text(exc: BaseException, filename: str = "attention.py") -> str:
    kind = _kind_of(exc)
    if kind == "StudentError":
        k = getattr(exc, "kind", None) or "an exception"
        lineno = getattr(exc, "lineno", None)
        msg = _clip(getattr(exc, "message", None) or str(exc))
        if lineno:
            return f"{k} at line {lineno}: {msg}"
        return f"{k} while importing {filename}: {msg}"
    if kind == "StudentTimeout":
        return f"timed out after {_seconds(exc)} s while importing {filename}"
    if kind == "SandboxDied":
        return f"{filename} crashed while importing: {_clip(getattr(exc, 'reason', exc))}"
    return f"{filename} could not be imported"


def _seconds(exc: BaseException) -> str:
    s = getattr(exc, "seconds", None)
    return f"{s:g}" if isinstance(s, int | float) else "?"


# --------------------------------------------------------------------------- the proxy
class Handle:
    """A student object described by a recipe; re-created in a fresh session when needed."""

    def __init__(self, proxy: StudentProxy, cls_name: str, args: tuple, kwargs: dict,
                 params: dict[str, Tensor] | None, label: str, eval_mode: bool = True):
        self._proxy, self.cls_name, self.args, self.kwargs = proxy, cls_name, args, kwargs
        self.params, self.label, self.eval_mode = params, label, eval_mode
        self._gen = -1
        self._id: Any = None

    def id(self, session) -> Any:
        if self._gen != self._proxy.generation:
            self._id = None
            self._id = session.new(self.cls_name, *self.args, **self.kwargs)
            if self.params:
                session.set_params(self._id, self.params)
            if self.eval_mode:
                session.call(self._id, "eval")
            self._gen = self._proxy.generation
        return self._id


class ExecutorSessions:
    """Session provider that opens a fresh session of ``executor`` each time (direct use)."""

    reopen = True

    def __init__(self, executor, source: str, *, filename: str = "attention.py",
                 module_name: str = "attention", watch: dict | None = None):
        self._ex, self._source = executor, source
        self._kw = {"filename": filename, "module_name": module_name, "watch": watch}

    def open(self):
        return self._ex.session(self._source, **self._kw)

    def close(self, session) -> None:
        session.close()


class InheritedSession:
    """Session provider for a forked grading child: exactly one session, opened and owned (closed,
    killed, its output read) by the parent process.  A second ``open`` means the first one died;
    the child then stops and the parent continues in a fresh child with a fresh session."""

    reopen = False

    def __init__(self, session):
        self._session = session

    def open(self):
        session, self._session = self._session, None
        if session is None:
            raise SessionLost("the sandbox session was lost")
        return session

    def close(self, session) -> None:
        """Never closed here: the parent closes it once this child has exited."""


class SessionLost(Feedback):
    """The session died and this process cannot open another one (see :class:`InheritedSession`)."""

    def __init__(self, message: str, outcome: str = "failed"):
        super().__init__(message)
        self.outcome = outcome


class StudentProxy:
    def __init__(self, sessions, *, filename: str = "attention.py", max_reopens: int = 2,
                 log: Callable[[str], None] | None = None):
        self._sessions = sessions
        self.filename = filename
        self.max_reopens = max_reopens
        self._log = log or (lambda msg: None)
        self._session = None
        self.generation = 0
        self.deaths = 0
        self.last_death = "failed"
        self.loaded = False
        self.load_error: str | None = None
        self._outputs: list[str] = []
        self._handles: dict[Any, Handle] = {}

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
        if self._sessions.reopen:
            try:
                out = session.output
                if out:
                    self._outputs.append(out)
            except Exception:  # noqa: BLE001 - the output is best effort
                pass
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
            self.load_error = load_error_text(exc, self.filename)
            self._log(f"load failed: {self.load_error}")
            self._close_session()
            return False
        self.loaded = True
        self._log(f"loaded {self.filename} in {time.perf_counter() - t0:.3f} s")
        return True

    def _ensure_session(self):
        if not self.loaded:
            raise NotLoaded(f"not run: {self.filename} did not load")
        if self._session is not None:
            return self._session
        if not self._sessions.reopen:
            raise SessionLost(f"not run: {self.filename} hung or crashed in an earlier call",
                              self.last_death)
        if self.deaths > self.max_reopens:
            raise GiveUp(f"not run: {self.filename} hung or crashed {self.deaths} times already, "
                         "so the remaining checks were skipped", self.last_death)
        session = self._open()
        try:
            session.load()
        except Exception as exc:
            self._close_session()
            if _kind_of(exc) in (None, "SandboxUnavailable"):
                raise InfrastructureError(f"re-loading the submission failed: {exc!r}") from exc
            self.deaths += 1
            raise GiveUp(f"not run: {self.filename} failed to load again after a crash "
                         f"({load_error_text(exc, self.filename)})") from None
        self._log(f"re-opened a fresh session (generation {self.generation})")
        return session

    def _dead(self, kind: str) -> None:
        self.deaths += 1
        self.last_death = kind
        self._close_session()

    def _run(self, what: str, fn: Callable[[Any], Any]) -> Any:
        session = self._ensure_session()
        try:
            return fn(session)
        except Feedback:
            raise
        except Exception as exc:
            kind = _kind_of(exc)
            if kind == "StudentError":
                if getattr(session, "alive", True) is False:  # e.g. a forged reply killed it
                    self._dead("failed")
                raise Feedback(student_error_text(what, exc, self.filename)) from None
            if kind == "StudentTimeout":
                self._dead("timeout")
                raise StudentTimedOut(f"{what} did not finish within {_seconds(exc)} s "
                                      "(endless loop or far too much work?)") from None
            if kind == "SandboxDied":
                self._dead("failed")
                raise Feedback(f"the sandbox process stopped during {what}: "
                               f"{_clip(getattr(exc, 'reason', exc))}") from None
            raise InfrastructureError(f"sandbox failure during {what}: {exc!r}") from exc

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

    def instantiate(self, handle: Handle) -> None:
        """Create the object now (so constructor errors surface with a clear message)."""
        def make(session):
            try:
                return handle.id(session)
            except Exception as exc:
                if _kind_of(exc) == "StudentError" and getattr(exc, "kind", "") == "AttributeError" \
                        and handle.cls_name in str(getattr(exc, "message", exc)):
                    raise Feedback(f"{self.filename} does not define {handle.cls_name}") from None
                raise
        self._run(f"creating {handle.label}", make)

    def describe(self, handle: Handle) -> dict:
        self.instantiate(handle)
        return self._run(f"describing {handle.label}", lambda s: s.describe(handle.id(s)))

    def call(self, handle: Handle, method: str, *args, **kwargs) -> Any:
        self.instantiate(handle)
        what = f"{handle.cls_name}.forward" if method == "__call__" else f"{handle.cls_name}.{method}"
        return self._run(what, lambda s: s.call(handle.id(s), method, *args, **kwargs))

    def function(self, name: str, *args, **kwargs) -> Any:
        """``name(*args, **kwargs)`` for a module-level function of the student's file (tensors,
        NumPy arrays and plain values cross the boundary; see grading/sandbox/protocol.py)."""
        def call(session):
            try:
                return session.call_function(name, *args, **kwargs)
            except Exception as exc:
                if _kind_of(exc) == "StudentError" and getattr(exc, "kind", "") == "AttributeError" \
                        and getattr(exc, "lineno", None) is None and name in str(getattr(exc, "message", exc)):
                    raise Feedback(f"{self.filename} does not define {name}") from None
                raise
        return self._run(f"{name}()", call)

    def grad(self, handle: Handle, args: Sequence, kwargs: dict, grad_output: Tensor,
             wrt: Sequence[int]) -> list[Tensor]:
        self.instantiate(handle)
        res = self._run(f"backward through {handle.cls_name}.forward",
                        lambda s: s.grad(handle.id(s), list(args), dict(kwargs), grad_output, wrt=list(wrt)))
        grads = list(res) if isinstance(res, list | tuple) else [res]
        if len(grads) != len(wrt):
            raise Feedback(f"expected {len(wrt)} gradients, got {len(grads)}")
        for i, g in zip(wrt, grads, strict=True):
            if not isinstance(g, Tensor):
                raise Feedback(f"no gradient reached input {i}: the output is detached from it "
                               "(.detach(), torch.no_grad() or a non-differentiable operation?)")
        return grads

    def stats(self) -> dict:
        return self._run("reading the call counters", lambda s: s.stats())

    @property
    def output(self) -> str:
        parts = list(self._outputs)
        if self._session is not None:
            try:
                parts.append(self._session.output)
            except Exception:  # noqa: BLE001
                pass
        return "".join(p for p in parts if p)


__all__ = ["Feedback", "StudentTimedOut", "GiveUp", "NotLoaded", "SessionLost", "InfrastructureError",
           "expect", "StudentProxy", "ExecutorSessions", "InheritedSession", "student_error_text", "load_error_text"]
