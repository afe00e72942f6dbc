"""The forked grading child: pytest runs the suite against one sandbox session owned by the parent.

``run_suite`` forks one child per sandbox session (a fresh session after a lost one, skipping the
tests already finished) and merges their reports. The child sends its report back as JSON over a
pipe; the parent enforces a hard wall timeout on it. Student code never runs here: only in the
sandbox, reached through the suite's driver (a ``grading.proxy.StudentProxy``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import select
import signal
import sys
import tempfile
import time
import traceback
from typing import Any, TypedDict

from autograder import settings
from grading.collected import CollectedSuite, collected_suite, run_collected
from grading.forking import end_with_parent, name_process
from grading.i18n import Msg, msg
from grading.plugin import GradingPlugin
from grading.proxy import Feedback, InfrastructureError, InheritedSession, StudentProxy, gave_up_text
from grading.sandbox.client import Limits, ReplyAllowance
from grading.suite import Suite

MAX_REOPENS = 2                   # fresh sessions after a lost one
MIN_SESSION_WALL_S = 0.5          # less budget than this left: the remaining tests are `timeout`
MIN_SESSION_CPU_S = 0.5


def suite_watch(suite: Suite) -> dict:
    """What the jail watches: counted and forbidden calls, and the importable packages (the
    student's own ``import`` statements are limited to the standard library and these, plus the
    display packages that import as inert stand-ins)."""
    inert = [p for p in suite.inert_packages if p not in suite.packages]
    return {**suite.watch, "imports": list(suite.packages), "inert": inert}


class BudgetExhausted(Feedback):
    """The grading's wall or CPU budget is used up: this test is not run (outcome ``timeout``)."""

    outcome = "timeout"


@dataclasses.dataclass
class Budget:
    """One wall and CPU budget for everything the student's code does in one grading.

    Every session gets limits cut to what is left (its CPU limit is reserved until it ends, then
    only what it really used is kept), so per-call and per-session limits always fit inside it.
    A forked child works on a copy and reports the CPU its own sessions used."""

    deadline: float        # time.monotonic() at which the student's time is up
    cpu_left: float        # CPU seconds neither spent nor reserved by an open session
    wall_total: float
    cpu_total: float
    # What the jail's replies may still come to in this grading, all its sessions together: set at
    # the first ``reserve`` from that session's ``max_received``.
    replies: ReplyAllowance | None = None
    # Seconds host load took from the ended sessions' jails (their run-queue wait, at most their time off a
    # CPU: the zygote's status "credit", forking.load_credit), given back to the wall budget up to
    # GRADING_LOAD_CREDIT_S: at load average 13-20 an honest visible session's seconds of CPU took several
    # times as long, and the hidden tests' session found the budget spent.
    credit: float = 0.0

    @classmethod
    def start(cls, wall: float | None = None, cpu: float | None = None) -> Budget:
        wall = settings.GRADING_BUDGET_S if wall is None else wall
        cpu = settings.GRADING_CPU_BUDGET_S if cpu is None else cpu
        return cls(time.monotonic() + wall, cpu, wall, cpu)

    def wall_left(self) -> float:
        return self.deadline + min(self.credit, settings.GRADING_LOAD_CREDIT_S) - time.monotonic()

    @property
    def exhausted(self) -> bool:
        return self.wall_left() < MIN_SESSION_WALL_S or self.cpu_left < MIN_SESSION_CPU_S

    def why(self) -> Msg:
        """Which budget is spent, as measured now. No guess at what spent it (a loop, sleeps, slow
        code): the earlier tests' own rows say what was seen. CPU is "taken": an open session's
        reservation counts until it ends."""
        if self.wall_left() < MIN_SESSION_WALL_S:
            # What host load took is given back (``credit``), so the seconds said are those the code had.
            total = f"{round(self.wall_total + min(self.credit, settings.GRADING_LOAD_CREDIT_S), 1):g}"
            return msg(f"not run: the {total} s of wall time this grading gives your code were used "
                       "up by earlier checks",
                       f"未运行：本次评分给你的代码的 {total} 秒运行时间已被前面的检查用完")
        return msg(f"not run: the {self.cpu_total:g} s of CPU time this grading gives your code were taken by "
                   "earlier checks",
                   f"未运行：本次评分给你的代码的 {self.cpu_total:g} 秒 CPU 时间已被前面的检查占用")

    def reserve(self, base: Limits, share: float = 1.0) -> Limits:
        """``base`` cut to what is left; ``share`` of the CPU left is reserved for the session."""
        if self.exhausted:
            raise BudgetExhausted(self.why())
        if self.replies is None:
            self.replies = ReplyAllowance(base.max_received, base.idle_total)
        wall = min(base.wall, self.wall_left())
        cpu = min(base.cpu, max(MIN_SESSION_CPU_S, self.cpu_left * share))
        self.cpu_left -= cpu
        # The zygote moves a session's wall limit on by what host load took from its jail, up to the backstop: never
        # past what the grading may still give back (GRADING_LOAD_CREDIT_S less what it gave already). With the
        # backstop alone (3 times the wall) a grading at load 5-9 took 71-72 s against its 40 + 15 (round 48).
        room = max(0.0, settings.GRADING_LOAD_CREDIT_S - min(self.credit, settings.GRADING_LOAD_CREDIT_S))
        hard = self.wall_left() + room
        if base.wall_hard is not None:
            hard = min(hard, base.wall_hard)
        return dataclasses.replace(base, wall=wall, cpu=cpu, import_timeout=min(base.import_timeout, wall),
                                   call_timeout=min(base.call_timeout, wall), wall_hard=max(wall, hard))

    def settle(self, limits: Limits, used: float | None, credit: float | None = None) -> float:
        """A session reserved with ``limits`` has ended having used ``used`` CPU seconds (all of
        its reservation when unknown), host load having taken ``credit`` seconds from it. Returns the
        CPU counted."""
        spent = limits.cpu if used is None else min(float(used), limits.cpu + 1.0)
        self.cpu_left += limits.cpu - spent
        self.credit += credit or 0.0
        return spent


def _session_cpu(session, reported: object = None, key: str = "cpu") -> float | None:
    """CPU seconds the session's jail used (``key`` "credit": the seconds host load took from it), from
    the zygote's status of its end. The status pipe is
    read once, by whichever process saw the end first: when the grading child saw the jail die
    (a crash, an exit), the parent's copy of the session finds the pipe empty and uses the status
    the child ``reported`` (without it, the whole reservation was charged: two crashes used up
    30 s of CPU budget in 1 s, and every later test was `timeout`)."""
    st = getattr(session, "status", None)
    if not isinstance(st, dict):
        st = reported
    cpu = st.get(key) if isinstance(st, dict) else None
    return float(cpu) if isinstance(cpu, int | float) and math.isfinite(cpu) and cpu >= 0 else None


def _settled(budget: Budget, limits: Limits, session, reported: object = None) -> float:
    """``budget.settle`` of an ended session, from the zygote's status of its end (``_session_cpu``)."""
    return budget.settle(limits, _session_cpu(session, reported), _session_cpu(session, reported, "credit"))


class OwnSessions:
    """Sessions a grading child opens itself, within its copy of the budget: the hidden tests'
    session and fresh sessions for comparisons. Killed with this child if it dies (the child holds
    their only lifeline); closed, counted and their output kept here otherwise."""

    def __init__(self, executor, source: str, suite: Suite, budget: Budget, log):
        self._ex, self._source, self._suite, self._budget, self._log = executor, source, suite, budget, log
        self._open: dict[int, tuple[object, Limits]] = {}
        self.cpu_spent = 0.0
        self.output: list[str] = []
        self.count = 0

    def proxy(self, share: float = 1.0) -> StudentProxy:
        """A driver on a new session nothing has called yet (not loaded)."""
        limits = self._budget.reserve(self._ex.limits, share)
        try:
            session = self._ex.session(self._source, filename=self._suite.student_file,
                                       module_name=self._suite.module_name, watch=suite_watch(self._suite),
                                       limits=limits, replies=self._budget.replies)
        except Exception as exc:
            self._budget.settle(limits, 0.0)
            raise InfrastructureError(f"could not open a sandbox session: {exc!r}") from exc
        self.count += 1
        proxy = self._suite.driver(InheritedSession(session), filename=self._suite.student_file, log=self._log,
                                   packages=self._suite.packages)
        self._open[id(proxy)] = (session, limits)
        return proxy

    def close(self, proxy: StudentProxy) -> None:
        session, limits = self._open.pop(id(proxy), (None, None))
        if session is None:
            return
        try:
            session.close()
        except Exception as exc:  # noqa: BLE001
            self._log(f"closing a session failed: {exc!r}")
        self.cpu_spent += _settled(self._budget, limits, session)
        try:
            self.output.append(session.output)
        except Exception:  # noqa: BLE001
            pass

    def close_all(self) -> None:
        for key in list(self._open):
            session, limits = self._open.pop(key)
            try:
                session.close()
            except Exception:  # noqa: BLE001
                pass
            self.cpu_spent += _settled(self._budget, limits, session)
            try:
                self.output.append(session.output)
            except Exception:  # noqa: BLE001
                pass


class TestOutcome(TypedDict):
    """One test's outcome as the child saw it (feedback is the full text; hiding is the rubric's)."""

    outcome: str            # passed | failed | error | timeout
    feedback: str | None


class ChildReport(TypedDict, total=False):
    """What one grading child reports (JSON over the pipe), and what ``run_suite`` merges them into."""

    outcomes: dict[str, TestOutcome]
    measurements: dict[str, float]
    example_weights: dict[str, Any] | None
    collected: list[str] | None
    collect_errors: list[str]
    infra_error: str | None          # a grader failure: the grading ends `error`
    load_error: str | None           # the student's file did not load: graded, code categories 0
    load_seen: str | None            # how far that import went (grading.proxy.load_seen: RAN, UNREAD or None)
    log: list[str]                   # instructor log lines
    session_lost: bool
    last_death: str | None
    lost_causes: list[str]           # how the sessions were lost (grading.proxy.LOST_CAUSES)
    pytest_exit: int
    child_seconds: float
    pytest_output: str
    student_output: str              # the student's captured output (the child: its own sessions)
    sessions: int                    # sandbox sessions used (the child: those it opened itself)
    cpu_spent: float                 # CPU seconds the student's sessions used (ditto)
    replies_read: int                # bytes of the jail's replies read (the child: in all its sessions)
    idle_spent: float                # the child: seconds its jails sat idle while a call was pending
    load_credit: float               # the child: seconds host load took from the jails of its own sessions
    budget_exhausted: bool           # merged only: the grading's budget ran out
    session_status: dict | None      # the child only: the zygote's status of the parent's session, if read there
    fixed: list                      # the child only: recipes of fixed references it computed (grading/fixed.py)


def _child_main(executor, session, source: str, collected: CollectedSuite, suite: Suite,
                skip: frozenset[str], hidden: frozenset[str], budget: Budget) -> ChildReport:
    import gc

    import torch

    # A short-lived child: collecting would walk (and copy-on-write) the parent's whole heap.
    gc.disable()
    torch.set_num_threads(1)  # cheap tensors; avoids OpenMP pools inherited over fork
    t0 = time.perf_counter()
    replies_before = budget.replies.spent if budget.replies is not None else 0
    idle_before = budget.replies.idle_spent if budget.replies is not None else 0.0
    credit_before = budget.credit
    plugin_log: list[str] = []
    own = OwnSessions(executor, source, suite, budget, plugin_log.append)
    proxy = suite.driver(InheritedSession(session), filename=suite.student_file, log=plugin_log.append,
                         packages=suite.packages)
    # The registered plugin instance is bound to this grading: its fixtures are bound methods of
    # it, parsed when the parent registered it (see grading.collected).
    plugin = collected.plugin
    GradingPlugin.__init__(plugin, proxy, source, suite.student_file, skip, hidden=hidden, sessions=own)
    if suite.fixed is not None:
        suite.fixed.start()
    try:
        code = run_collected(collected)
    finally:
        own.close_all()
    res = plugin.results()
    res["log"] = plugin_log + res["log"]
    res["pytest_exit"] = int(code)
    res["child_seconds"] = time.perf_counter() - t0
    res["cpu_spent"] = own.cpu_spent
    res["sessions"] = own.count
    res["replies_read"] = (budget.replies.spent if budget.replies is not None else 0) - replies_before
    res["idle_spent"] = (budget.replies.idle_spent if budget.replies is not None else 0.0) - idle_before
    res["load_credit"] = budget.credit - credit_before
    # The zygote's status of the parent's session, if its end was seen (and its pipe read) here.
    status = getattr(session, "status", None)
    res["session_status"] = status if isinstance(status, dict) else None
    res["student_output"] = "".join(own.output)
    res["fixed"] = suite.fixed.new_recipes() if suite.fixed is not None else []
    return res


def finite_json(value: Any) -> Any:
    """``value`` with every NaN/inf float replaced by None: a student's NaN is data, and must never
    make the report unserialisable (that would turn a grade into a grader error)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(v) for v in value]
    return value


_unreaped: list[int] = []        # children that have reported and closed their pipe, still exiting


def reap_children() -> None:
    """Wait for the grading children that have sent their report and are still exiting (tearing
    down a torch-sized address space takes a few ms). ``grading.runner.grade`` calls this once its
    result is complete, so the teardown overlaps the rubric and the audit instead of delaying them,
    and each child is reaped (its CPU counted in RUSAGE_CHILDREN) before its grading ends."""
    while _unreaped:
        pid = _unreaped.pop()
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _fork_child(executor, session, source: str, collected: CollectedSuite, suite: Suite,
                skip: frozenset[str], hidden: frozenset[str], budget: Budget, wall_timeout: float) -> ChildReport:
    """Fork, run the suite in the child against ``session`` (owned by this process), and return the
    child's JSON results (or an ``infra_error``).  The child never touches the Executor: sessions
    are opened, closed and killed here, so a hung child costs at most ``wall_timeout``."""
    reap_children()
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:  # noqa: BLE001
            pass
    out_file = tempfile.TemporaryFile()
    r, w = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # ------------------------------------------------------------ child
        status = 0
        try:
            end_with_parent(parent)
            os.close(r)
            name_process("ag-tests")
            os.setpgid(0, 0)
            os.dup2(out_file.fileno(), 1)
            os.dup2(out_file.fileno(), 2)
            # The parent's sys.stdout may be a capture object of an outer pytest (or anything):
            # give the child plain streams on the redirected fds, so nothing leaks outwards.
            sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", errors="replace", closefd=False)
            sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", errors="replace", closefd=False)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                payload = _child_main(executor, session, source, collected, suite, skip, hidden, budget)
            except BaseException:  # noqa: BLE001
                payload = {"infra_error": "grading child failed", "log": [traceback.format_exc()]}
            for f in (sys.stdout, sys.stderr):
                f.flush()
            data = json.dumps(finite_json(payload), allow_nan=False, default=str).encode()
            view = memoryview(data)
            while view:
                n = os.write(w, view)
                view = view[n:]
            os.close(w)      # the parent has the whole report now, before this process's teardown
        except BaseException:  # noqa: BLE001
            status = 70
        finally:
            os._exit(status)
    # --------------------------------------------------------------------------- parent
    os.close(w)
    chunks: list[bytes] = []
    deadline = time.monotonic() + wall_timeout
    timed_out = False
    read_all = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            chunk = os.read(r, 1 << 16)
            if not chunk:
                read_all = True
                break
            chunks.append(chunk)
    finally:
        os.close(r)
        if timed_out:
            for target in (-pid, pid):
                try:
                    os.kill(target, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if not read_all:
            os.waitpid(pid, 0)
    out_file.seek(0)
    pytest_output = out_file.read()[-50_000:].decode("utf-8", "replace")
    out_file.close()
    if timed_out:
        return {"infra_error": f"grading exceeded the hard wall timeout of {wall_timeout:g} s",
                "log": [], "pytest_output": pytest_output}
    try:
        payload = json.loads(b"".join(chunks).decode())
        if not isinstance(payload, dict):
            raise ValueError("not an object")
    except ValueError:
        _, wstatus = os.waitpid(pid, 0)
        return {"infra_error": f"the grading child ended without a result (wait status {wstatus})",
                "log": [], "pytest_output": pytest_output}
    _unreaped.append(pid)
    payload["pytest_output"] = pytest_output
    return payload


def run_suite(executor, source: str, assignment: str, suite: Suite, wall_timeout: float,
              max_reopens: int = MAX_REOPENS, *, hidden: frozenset[str] = frozenset(),
              budget: Budget | None = None) -> ChildReport:
    """Run the suite: visible tests first, then the ``hidden`` ones in a fresh session of their own.

    Re-forks with a fresh session (skipping finished tests) after a session was lost, at most
    ``max_reopens`` times; then the remaining tests fail fast. Everything the student's code does
    shares one ``budget``: once it is used up the remaining tests are ``timeout``. ``wall_timeout``
    is the trusted side's own hard limit (a hung grader: ``infra_error``)."""
    deadline = time.monotonic() + wall_timeout
    budget = budget or Budget.start()
    try:
        collected = collected_suite(assignment, suite)   # once per suite version, in this process
    except Exception:  # noqa: BLE001 - a suite that pytest cannot configure is the grader's failure
        return {"infra_error": "the test suite could not be collected", "log": [traceback.format_exc()]}
    merged: ChildReport = {"outcomes": {}, "measurements": {}, "example_weights": None, "log": [],
                           "collected": None, "load_error": None, "student_output": "", "sessions": 0,
                           "cpu_spent": 0.0, "budget_exhausted": False}
    attempt = 0
    kind = "failed"
    causes: list[str] = []
    while True:
        attempt += 1
        done = frozenset(merged["outcomes"])
        remaining = [t for t in merged["collected"] or [] if t not in done]
        if merged["collected"] is not None and budget.exhausted:
            merged["budget_exhausted"] = True
            for tid in remaining:
                merged["outcomes"][tid] = {"outcome": "timeout", "feedback": budget.why()}
            return merged
        # The first session serves the visible tests; the hidden ones get a later one (opened by
        # the child), so it is lent the CPU share of the visible tests only.
        todo_visible = [t for t in remaining if t not in hidden] if remaining else None
        share = 1.0
        if hidden - done and (todo_visible is None or todo_visible):
            n_vis = len(todo_visible) if todo_visible is not None else None
            share = 0.75 if n_vis is None else max(0.2, n_vis / max(1, len(remaining)))
        try:
            limits = budget.reserve(executor.limits, share)
            session = executor.session(source, filename=suite.student_file, module_name=suite.module_name,
                                       watch=suite_watch(suite), limits=limits, replies=budget.replies)
        except Feedback:   # the budget ran out before anything was collected (cannot happen at start)
            merged["infra_error"] = "the grading budget is smaller than one session"
            return merged
        except Exception as exc:  # noqa: BLE001 - SandboxUnavailable and friends
            merged["infra_error"] = f"could not open a sandbox session: {exc!r}"
            return merged
        merged["sessions"] += 1
        child: ChildReport = {}
        try:
            child = _fork_child(executor, session, source, collected, suite, done, hidden, budget,
                                max(1.0, deadline - time.monotonic()))
        finally:
            try:
                session.close()
            except Exception as exc:  # noqa: BLE001
                merged["log"].append(f"closing the session failed: {exc!r}")
            used = _settled(budget, limits, session, child.get("session_status"))
            merged["cpu_spent"] += used
            try:
                merged["student_output"] += session.output
            except Exception:  # noqa: BLE001
                pass
        if suite.fixed is not None and child.get("fixed"):
            suite.fixed.learn(child["fixed"])   # computed once here, inherited by the next children
        own_cpu = float(child.get("cpu_spent") or 0.0)
        budget.cpu_left -= own_cpu       # the child's sessions were counted on its copy
        credit = child.get("load_credit")   # and what host load took from their jails
        budget.credit += float(credit) if isinstance(credit, int | float) and math.isfinite(credit) and credit > 0 else 0.0
        if budget.replies is not None:   # and the replies it read, the parent's session's included
            budget.replies.take(int(child.get("replies_read") or 0))
            idle = child.get("idle_spent")   # and the seconds its jails sat idle in a pending call
            budget.replies.idle_spent += float(idle) if isinstance(idle, int | float) and math.isfinite(idle) else 0.0
        merged["cpu_spent"] += own_cpu
        merged["sessions"] += int(child.get("sessions") or 0)
        merged["student_output"] += str(child.get("student_output") or "")
        merged["log"].extend(child.get("log") or [])
        merged["log"].append(f"child {attempt}: {child.get('child_seconds', 0):.3f} s, "
                             f"pytest exit {child.get('pytest_exit')}; budget left "
                             f"{max(0.0, budget.wall_left()):.1f} s wall, {budget.cpu_left:.1f} s CPU")
        if child.get("pytest_output"):
            merged["pytest_output"] = child["pytest_output"]
        if child.get("infra_error"):
            merged["infra_error"] = child["infra_error"]
            return merged
        merged["collected"] = merged["collected"] or child.get("collected")
        merged["measurements"].update(child.get("measurements") or {})
        if child.get("example_weights") is not None:
            merged["example_weights"] = child["example_weights"]
        if child.get("load_error"):
            if attempt == 1:
                merged["load_error"], merged["load_seen"] = child["load_error"], child.get("load_seen")
                merged["outcomes"].update(child.get("outcomes") or {})
            else:
                for tid in child.get("outcomes") or {}:
                    merged["outcomes"].setdefault(tid, {
                        "outcome": "failed",
                        "feedback": msg(f"not run: {suite.student_file} failed to load again after a crash",
                                        f"未运行：崩溃后 {suite.student_file} 再次导入失败")})
            return merged
        merged["outcomes"].update(child.get("outcomes") or {})
        if not child.get("session_lost"):
            return merged
        kind = child.get("last_death") or kind
        causes.extend(str(c) for c in child.get("lost_causes") or [])
        remaining = [t for t in merged["collected"] or [] if t not in merged["outcomes"]]
        if not remaining:
            return merged
        if budget.exhausted:
            continue        # the top of the loop marks the rest `timeout`
        if attempt > max_reopens:
            for tid in remaining:
                merged["outcomes"][tid] = {
                    "outcome": "timeout" if kind == "timeout" else "failed",
                    "feedback": gave_up_text(suite.student_file, attempt, causes)}
            return merged
