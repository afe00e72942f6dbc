"""The grading runner: ``grade(GradeInput, assignment, executor) -> result dict`` (docs/contracts.md §2).

Flow of one grading:

1. the code upload is validated (``grading.inputs.validate_code``);
2. ``grading.child.run_suite`` forks a child from this (warm, torch-already-imported) process; the
   child runs the items of ``grader_tests/<assignment>/``, configured and collected once in this
   process (``grading.collected``), through pytest's run loop with a ``grading.plugin.GradingPlugin``
   that provides the ``student`` proxy (``grading.proxy.StudentProxy`` over one sandbox session) and
   collects each test's outcome and feedback; the report comes back as JSON over a pipe; the parent
   enforces a hard wall timeout on the child. The suite state (modules, rubric, checklist, version)
   is ``grading.suite_state``;
3. the rubric (``rubric/<assignment>/rubric.yaml``) turns outcomes into points
   (``rubric.scoring``); the audit is scored by ``rubric.audit.grade_audit`` when available.

Student code never runs in this process nor in the forked child: only in the sandbox.
``status`` is ``"error"`` only for grader/infrastructure failures; a submission that does not load
is ``"graded"`` with the code categories at 0 and an actionable ``message``.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import time
import traceback
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, TypedDict

from autograder import settings
from grading.allowance import Allowance, OutOfCpu, cpu_limit, new_allowance
from grading.child import Budget, reap_children, run_suite
from grading.decode import DecodeBusy
from grading.i18n import NOT_RUN, SEMI, Msg, cat, is_msg, msg
from grading.inputs import InputError, validate_audit, validate_code, validate_figure
from grading.load_hints import parse_source, then
from grading.plugin import GradingPlugin
from grading.proxy import RAN, UNREAD, hide_grader_paths
from grading.review import (
    AUDIT_FAILED,
    BUDGET_SPENT,
    OUTCOME_REVIEW_FAILED,
    REVIEW_FAILED,
    REVIEW_STOPPED,
    Reason,
    reason,
    reason_text,
    stored,
)
from grading.sandbox.client import output_quieted, printed_bytes
from grading.suite import Suite
from grading.suite_state import SuiteState, grader_version, suite_state
from rubric import scoring
from rubric.audit import grade_audit

DEFAULT_WALL_TIMEOUT = settings.GRADING_WALL_S  # hard limit on a whole grading, seconds
LOG_CAP = 200_000                 # characters of instructor log kept


@dataclasses.dataclass
class GradeInput:
    code: bytes
    audit: bytes | None = None
    audit_filename: str | None = None
    figure: bytes | None = None
    figure_filename: str | None = None
    # The audit's text as extracted at upload: used instead of parsing ``audit`` again.
    audit_text: str | None = None
    # The figure passed the upload validator's bounded decoding already (the web did it at upload):
    # it is not decoded again before the checker's own analysis of the validated bytes.
    figure_validated: bool = False


class CategoryScore(TypedDict):
    score: float
    max: float


class GradeResult(TypedDict):
    """The result of one grading: exactly the JSON of ``autograder grade --json`` (contracts §2)."""

    status: str                      # graded | error
    message: Msg | str | None         # student-facing ({"en","zh"}) when graded; English for errors
    total: float
    max_total: float
    categories: dict[str, CategoryScore]
    tests: list[dict[str, Any]]      # rubric/scoring.py score_tests rows
    audit: dict[str, Any] | None
    measurements: dict[str, float]
    example_weights: dict[str, Any]
    grader_version: str
    duration_s: float
    review: list[Reason]             # reasons for an instructor to look (grading/review.py; also ending the log)
    log: str


def _validate_code(filename: str, data: bytes) -> tuple[str | None, Msg | None]:
    """(source, None) or (None, student-facing message)."""
    try:
        return validate_code(filename, data), None
    except InputError as exc:
        return None, msg(exc.en, exc.zh)


def _grade_audit(inp: GradeInput, assignment: str, measured: dict, tests: list,
                 weights: list | None, reference: list | None = None) -> tuple[dict | None, Msg | None]:
    """(audit result, message about unreadable parts).  Raises on a failure of the checker itself.
    ``weights``/``reference``: the lab's example computed by the student's code (None when it did not load or
    run) and by the reference; the figure is checked against either (docs/contracts.md §3)."""
    checklist = suite_state(assignment).checklist
    if checklist is None:
        if inp.audit is None and inp.figure is None:
            return None, None
        return None, msg("this assignment has no written audit: the audit and figure files were not read",
                         "本作业没有审计文字：审计文字和图片均未读取")
    text = figure = None
    notes = []
    if inp.audit_text is not None:
        text = inp.audit_text
    elif inp.audit is not None:
        try:
            text = validate_audit(inp.audit_filename or "audit.md", inp.audit)
        except InputError as exc:
            notes.append(msg(f"audit not read: {exc.en}", f"审计文字未读取：{exc.zh}"))
            text = exc       # the items say why, not "no audit text was submitted"
    if inp.figure is not None:
        try:
            if not inp.figure_validated:
                validate_figure(inp.figure_filename or "figure.png", inp.figure)
            figure = inp.figure  # the checker analyses the validated bytes itself (grid shape)
        except InputError as exc:
            notes.append(msg(f"figure not read: {exc.en}", f"图未读取：{exc.zh}"))
            figure = exc     # the figure item says why, not "no figure was submitted"
    # The student's own test outcomes and example weights let the checker flag audit claims that
    # the student's code refutes (docs/contracts.md §3).
    return (grade_audit(text, figure, dict(measured), checklist, tests=tests, weights=weights, reference=reference),
            cat(*notes, sep=SEMI) if notes else None)


def _error_result(assignment: str, message: str, log: list[str], t0: float, rubric=None) -> GradeResult:
    cats = scoring.zero_categories(rubric) if rubric is not None else {}
    try:
        version = grader_version(assignment)
    except Exception:  # noqa: BLE001
        version = "unknown"
    return {"status": "error", "message": message, "total": 0,
            "max_total": scoring.num(rubric.max_total) if rubric is not None else 100,
            "categories": cats, "tests": [], "audit": None, "measurements": {},
            "example_weights": {"student": None, "reference": None}, "grader_version": version,
            "duration_s": round(time.perf_counter() - t0, 3), "review": [], "log": _cap_log(log)}


REVIEW_LINE_CAP = 2_000          # characters of one REVIEW line in the log (the result's review is whole)


REVIEW_MARK = "REVIEW:"           # begins the log's lines that flag the run for the instructor
QUOTE = "| "                     # begins each line of the log that the student's code wrote


def quoted(text: str) -> str:
    """``text`` (the student's output) with ``QUOTE`` before each of its lines, by every line break a
    page shows as one (CR, form feed, U+2028...): the instructor reads the log, and a printed
    "REVIEW: ..." or "sessions used: 2" line read as the grader's own."""
    return "\n".join(QUOTE + line for line in text.splitlines())


def _one_line(text: str) -> str:
    """``text`` with its line breaks shown as ⏎: a REVIEW line may quote the student's source."""
    return "⏎".join(text.splitlines()) if len(text.splitlines()) > 1 else text


def _reads_as_mark(line: str) -> bool:
    """Whether ``line`` reads as a REVIEW line on a page: after blanks and invisible characters
    (U+200B, U+FEFF...), in any case, full-width letters included."""
    start = line[:40]
    while start and (start[0].isspace() or unicodedata.category(start[0]) in ("Cf", "Cc", "Mn")):
        start = start[1:]
    return unicodedata.normalize("NFKC", start).upper().startswith(REVIEW_MARK)


def _no_marks(text: str) -> str:
    """``text`` with every line that reads as a REVIEW line quoted (the student's words reach the log
    inside the tests' feedback too): only the lines ``_cap_log`` puts last flag the run."""
    lines = text.splitlines()
    if not any(map(_reads_as_mark, lines)):
        return text
    return "\n".join(QUOTE + line if _reads_as_mark(line) else line for line in lines)


def _cap_log(log: list[str], tail: list[str] = ()) -> str:
    """The instructor log, at most about LOG_CAP characters: what is cut is the end of ``log``, never
    ``tail`` (the REVIEW lines). The pages show the log's last 20,000 characters (worker/runs.py), and
    the REVIEW lines there are the instructor's flag: a submission printing 64 KiB in each of its
    sessions made the log longer than LOG_CAP, and cutting its end took the flags with it. No other
    line begins like a REVIEW line, and each of ``tail`` is one line."""
    # Measured as stored: each control character the submission printed is stored as its escape
    # (``_encodable``), 4-6 characters, so a log of terminal escapes capped before that was stored
    # at up to 6 times LOG_CAP (316,000 characters for a stderr flood of ESC [2J).
    end = _encodable("\n".join(_one_line(str(x) if len(str(x)) <= REVIEW_LINE_CAP
                                          else str(x)[:REVIEW_LINE_CAP - 1] + "…") for x in tail))
    text = _encodable(_no_marks("\n".join(str(x) for x in log)))
    room = max(0, LOG_CAP - len(end))
    if len(text) > room:
        text = text[:room] + "\n[log truncated]"
    return "\n".join(part for part in (text, end) if part)


# The runner's own review reasons (grading/review.py): a stable code, the parts the text quotes, and the English
# text stored in result["review"] and the log's REVIEW lines; the instructor pages translate them by code
# (app/review_text.py, whose test builds each reason here).
AUDIT_FAILED_REASON: Reason = reason(
    AUDIT_FAILED, "the audit checker failed on this audit (traceback in the log): grade the audit by hand")


def review_stopped_reason() -> Reason:
    seconds = f"{settings.REVIEW_CPU_S:g}"
    return reason(REVIEW_STOPPED, f"the source review was stopped after {seconds} s of CPU: the submission's "
                  "source checks withheld their points; read it yourself", seconds=seconds)


def budget_reason() -> Reason:
    wall, cpu = f"{settings.GRADING_BUDGET_S:g}", f"{settings.GRADING_CPU_BUDGET_S:g}"
    return reason(BUDGET_SPENT, f"the grading's budget ({wall} s, {cpu} s CPU) ran out; the remaining tests are "
                  "timeout", wall=wall, cpu=cpu)


def _review(suite: Suite, source: str | None) -> list[Reason]:
    """The suite's trusted review of the source: reasons an instructor should look at it. Bounded
    by settings.REVIEW_CPU_S: past it the suite is told to give up on this source."""
    if source is None:
        return []
    try:
        with cpu_limit(settings.REVIEW_CPU_S):
            return [stored(r, suite.review_texts) for r in suite.review(source)]
    except OutOfCpu:
        suite.review_gave_up(source)
        return [review_stopped_reason()]
    except Exception as exc:  # noqa: BLE001 - a review hook failing flags, never fails, the grading
        return [reason(REVIEW_FAILED, f"the source review failed: {exc!r}", error=repr(exc))]


def _outcome_review(suite: Suite, source: str | None, outcomes: dict) -> list[Reason]:
    if source is None:
        return []
    try:
        return [stored(r, suite.review_texts) for r in suite.outcome_review(source, outcomes)]
    except Exception as exc:  # noqa: BLE001 - a review hook failing flags, never fails, the grading
        return [reason(OUTCOME_REVIEW_FAILED, f"the outcome review failed: {exc!r}", error=repr(exc))]


def _advice(allowance: Allowance, hook: Callable[..., Msg | None], *args: Any) -> Msg | None:
    """A suite hook's advice (a note, a message instead of a run) within the grading's allowance, or None: its
    failure must not fail a grading."""
    try:
        return allowance.run(hook, *args)
    except Exception:  # noqa: BLE001 - advice; its failure must not fail a grading
        return None


def _not_run_outcomes(why: Msg, tests: Iterable[str]) -> dict[str, dict]:
    """Every test failed, "not run: " and ``why``: what a file the tests could not use gets."""
    return {tid: {"outcome": "failed", "feedback": cat(NOT_RUN, why)} for tid in tests}


def _nothing_defined(suite: Suite, source: str, allowance: Allowance, log: list[str]) -> Msg | None:
    """The suite's message instead of a run, or None (run the tests). Its hook reads the uploaded source's tree, some of
    it recursively: a tree that parses yet is nested past what a reader recurses through (round 44: an expression of
    1,400 terms raised RecursionError out of grade(), a grader error) runs the tests as any other file."""
    try:
        return allowance.run(suite.nothing_defined, source)
    except Exception as exc:  # noqa: BLE001 - a shortcut past the run; its failure must not fail a grading
        log.append(f"the suite's nothing_defined hook failed, the tests were run: {exc!r}")   # as _review keeps it
        return None


def _display_imports(suite: Suite, source: str | None) -> list[str]:
    """The display packages (``Suite.inert_packages``) the source imports, in order of first import:
    read from the source (trusted), not from the jail."""
    tree = parse_source(source) if source else None
    if tree is None:
        return []
    inert = [p for p in suite.inert_packages if p not in suite.packages]
    found: list[str] = []
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        for name in names:
            top = name.split(".")[0]
            if top in inert and top not in found:
                found.append(top)
    return found


def _display_note(suite: Suite, source: str | None, allowance: Allowance, loaded: bool = True) -> Msg | None:
    """The note on the display packages the source imports. ``loaded``: the file was imported and its tests
    run; when it was not (a load error, or nothing to test), the note never says the code was graded as usual
    (round 43: "No module named 'mpl_toolkits' ... graded as usual" contradicted itself)."""
    names = allowance.run(_display_imports, suite, source, default=[])
    if not names:
        return None
    graded_en, graded_zh = (" and your code is graded as usual", "，代码照常评分") if loaded else ("", "")
    return msg(f"{suite.student_file} imports {', '.join(names)}: in the grader these are inert stand-ins, so "
               f"nothing is drawn or shown{graded_en} (upload the figure separately).",
               f"{suite.student_file} 导入了 {'、'.join(names)}：评分器中它们只是不起作用的替身，不会画图或显示"
               f"{graded_zh}（图请单独上传）。")


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{max(1, round(n / 1024))} KiB"


def _output_note(output: str) -> Msg | None:
    """What the student's code printed, when more than a session keeps (``Limits.output``).

    Round 31, walked in Chromium: a correct file that printed its weights in every call (32 MiB) was
    graded in 20 s instead of 1 s, and the page said nothing about it; printing more makes calls meet
    their time limits, with "did not finish within 5 s" alone. Said as seen: the size, and that the
    grader reads none of it; never that it caused a timeout (not measured per call)."""
    total, dropped = printed_bytes(output)
    if not dropped:
        return None
    # Past half the output limit a session's later printing goes to /dev/null uncounted: "more than".
    more, more_zh = ("more than ", "超过") if output_quieted(output) else ("", "")
    return msg(f"your code printed {more}{_size(total)} while it was graded (print() or other writes to stdout/stderr): "
               "the grader reads none of it, and printing takes time within each test's time limit, so remove "
               "debugging prints before you submit",
               f"评分时你的代码输出了{more_zh} {_size(total)}（print() 或其他写入 stdout/stderr 的操作）：评分器不读取这些输出，"
               "而输出所用的时间计入每个测试的时间限制，所以提交前请删掉调试用的 print")


def _example_reference(suite: Suite) -> list | None:
    try:
        return suite.example_reference()
    except Exception:  # noqa: BLE001 - an illustration; its absence must not fail a grading
        return None


# ============================================================================ public API
def grade(inp: GradeInput, assignment: str = "attention", executor=None, *,
          wall_timeout: float = DEFAULT_WALL_TIMEOUT) -> GradeResult:
    """Grade one submission.  See the module docstring and docs/contracts.md §2."""
    try:
        return _encodable(_paths_hidden(_grade(inp, assignment, executor, wall_timeout)))
    finally:
        reap_children()   # the test process exited while the rubric and the audit were scored


# Characters the submission's text may carry that no reader should get raw: NUL (PostgreSQL text
# refuses it), the other C0/C1 controls (terminal escapes, backspaces, bells) and the bidi
# controls that reorder what a reader sees. Each is shown as its escape; tab and newline stay.
_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0)]}
_CONTROL.update({c: f"\\u{c:04x}" for c in [*range(0x202a, 0x202f), *range(0x2066, 0x206a), 0x200e, 0x200f,
                                              0x061c]})
_NEEDS_CLEANING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069"
                             "\ud800-\udfff]")


def _paths_hidden(value: Any) -> Any:
    """``value`` with every student-facing text (each ``{"en", "zh"}``: feedback, hints, the message) passed
    through ``hide_grader_paths``: a hint may quote the exception's text after it was cut (round 38, review RB:
    "so /srv/.venv/.../torch/prior.pt is not there"), so the one place all of them pass is the result. The log
    and the review reasons are the instructor's and keep their paths."""
    if is_msg(value):
        return {k: hide_grader_paths(v) if isinstance(v, str) else _paths_hidden(v) for k, v in value.items()}
    if type(value) is dict:
        return {k: v if k in ("log", "review") else _paths_hidden(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_paths_hidden(v) for v in value)
    return value


def _encodable(value):
    """``value`` with every string safe to write anywhere: text the submission wrote (its output, its
    exception messages) may hold lone surrogates, NUL or control characters, which would fail the
    JSON line or the database, or rewrite a terminal or a page. The protocol cleans surrogates from
    replies already; this is the last net."""
    if type(value) is str:
        if not _NEEDS_CLEANING.search(value):
            return value
        return value.translate(_CONTROL).encode("utf-8", "replace").decode("utf-8")
    if type(value) is dict:
        return {_encodable(k): _encodable(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_encodable(v) for v in value)
    return value


def _grade(inp: GradeInput, assignment: str, executor, wall_timeout: float) -> GradeResult:
    t0 = time.perf_counter()
    log: list[str] = []
    try:
        state = suite_state(assignment)
        rubric, suite = state.rubric, state.suite
    except Exception as exc:  # noqa: BLE001 - a broken suite or rubric (e.g. a test being edited) is
        # the grader's failure: status error, retried by the worker, never a student's zero
        return _error_result(assignment, f"grader configuration error: {exc!r}", [traceback.format_exc()], t0)

    if executor is None:
        from grading.sandbox import Executor, Limits, SandboxError

        try:
            ex = Executor(Limits())
        except SandboxError as exc:  # SandboxUnavailable: an infrastructure failure, never the student's
            return _error_result(assignment, f"sandbox unavailable: {exc}", [traceback.format_exc()], t0,
                                 rubric)
        with ex:
            return grade(inp, assignment, ex, wall_timeout=wall_timeout)

    source, code_message = _validate_code(suite.student_file, inp.code)
    # The suite's review of the source runs before any session opens: its time is the grader's, not
    # the student's budget, and the forked test process inherits what it cached (the tests read the same
    # analysis), so it is done once per grading.
    review = _review(suite, source)
    # Not run: a refused upload, or a source that defines nothing (told once, as the upload's refusal is)
    # The other trusted readers of the source (shortcuts, notes, the test process's hints) share one allowance
    allowance = new_allowance(source or "")
    not_run = code_message if source is None else _nothing_defined(suite, source, allowance, log)
    budget = Budget.start()
    if not_run is None:
        hidden = frozenset(tid for tid, spec in rubric.tests.items() if spec.hidden)
        child = run_suite(executor, source, assignment, suite, wall_timeout, hidden=hidden, budget=budget)
    else:
        child = {"load_error": not_run, "outcomes": _not_run_outcomes(not_run, rubric.tests)}
    if not_run is None and source is not None and is_msg(child.get("load_error")):
        child["load_error"] = then(child["load_error"], _advice(allowance, suite.load_note, source))
    log.extend(child.get("log") or [])
    if child.get("infra_error"):
        log.append("pytest output:\n" + child.get("pytest_output", ""))
        return _error_result(assignment, f"grader error: {child['infra_error']}", log, t0, rubric)
    collected = child.get("collected")
    if not_run is None and set(collected or []) != set(rubric.tests):
        log.append(f"collected {sorted(collected or [])}")
        return _error_result(assignment, "grader error: the suite and the rubric disagree", log, t0, rubric)

    if not_run is None and source is not None and not child.get("load_error"):
        # Round 33: a file that ran but defines no name the tests look up could be tested no more than one of only
        # imports or helpers, which is not run: it is told the same way, the tests not run (they ran nothing of it)
        not_run = _advice(allowance, suite.nothing_tested, source, child.get("outcomes") or {})
        if not_run is not None:
            # (the instructor's review still reads what the tests saw: ``seen_outcomes``)
            child = {**child, "load_error": not_run, "outcomes": _not_run_outcomes(not_run, rubric.tests),
                     "seen_outcomes": child.get("outcomes")}
    measurements = {k: v for k, v in (child.get("measurements") or {}).items()
                    if isinstance(v, int | float)}
    tests = scoring.score_tests(rubric, child.get("outcomes") or {})
    example = child.get("example_weights") or {"student": None, "reference": _example_reference(suite)}
    audit_failed = False
    try:
        # Code that did not load ran no test: its "failed" rows say so, and refute no claim of the audit.
        ran = [] if child.get("load_error") else tests
        # Round 32: code that gave no weights must not skip the figure check (the same audit scored 15/15 where
        # working code whose weights the figure did not match scored 4/15): the reference weights are evidence too.
        reference = example.get("reference") or _example_reference(suite)
        audit, audit_message = _grade_audit(inp, assignment, measurements, ran, example.get("student"), reference)
    except DecodeBusy as exc:
        # The host was too loaded to decode the figure or PDF: the grader's trouble, not the student's
        # file, so no points are taken for it; the run is an error and is retried.
        return _error_result(assignment, f"grader error: the audit decoder could not run: {exc}", log, t0, rubric)
    except Exception:  # noqa: BLE001 - the checker failed on what this student wrote: a retry would fail
        # the same way, so the code keeps its grade and the audit goes to the instructor (flagged below)
        log.append("audit checker failed:\n" + traceback.format_exc())
        audit, audit_failed = None, True
        audit_message = msg("your audit could not be checked automatically, so it earns no points here; your "
                            "instructor has been asked to grade it by hand",
                            "你的审计未能自动检查，因此这里暂不得分；已请教师人工评分")

    categories = scoring.score_categories(rubric, tests, (audit or {}).get("score"))
    messages = []
    if child.get("load_error"):
        seen = child.get("load_seen") if not_run is None else None     # how far the import went (proxy.load_seen)
        head = (msg(f"{suite.student_file} ran, but its sandbox ended before any test could run: ",
                    f"{suite.student_file} 已运行，但其沙箱在任何测试运行之前就结束了：")
                if seen == RAN else
                msg(f"{suite.student_file} did not load: ", f"{suite.student_file} 无法导入："))
        # a reply to the import that could not be read says so itself: no head of "did not load" or "ran"
        messages.append(cat(head, child["load_error"]) if not_run is None and seen != UNREAD
                        else child["load_error"])
    elif source is not None:
        # e.g. the classes could not be built with the contract's arguments: one summary, not 31 raw errors
        note = _advice(allowance, suite.result_note, source, child.get("outcomes") or {})
        if note:
            messages.append(note)
    if audit_message:
        messages.append(audit_message)
    display_note = _display_note(suite, source, allowance, loaded=not child.get("load_error"))
    if allowance.stopped:
        log.append(f"source readers stopped past their CPU allowance ({settings.HINT_CPU_S:g} s; their notes left "
                   f"out): {', '.join(allowance.stopped)}")
    if display_note:
        messages.append(display_note)
    output_note = _output_note(str(child.get("student_output") or ""))
    if output_note:
        messages.append(output_note)
    log.append(f"sessions used: {child.get('sessions')}")
    if budget.replies is not None:      # what the worker read from the jails, all sessions together
        log.append(f"replies read: {budget.replies.spent} bytes (at most {budget.replies.total} in a grading)")
    if child.get("student_output"):
        log.append(f"student output (each line after {QUOTE!r}):\n" + quoted(child["student_output"]))
    if child.get("pytest_output"):
        log.append("pytest output:\n" + child["pytest_output"])
    review.extend(_outcome_review(suite, source, child.get("seen_outcomes") or child.get("outcomes") or {}))
    if audit_failed:
        review.append(reason(AUDIT_FAILED, AUDIT_FAILED_REASON["text"]))   # a copy: results are not to share it
    if child.get("budget_exhausted"):
        review.append(budget_reason())
    return {
        "status": "graded",
        "message": cat(*messages, sep=SEMI) if messages else None,
        # the load error alone, hint and notes included: the result page shows it whole (cutting the
        # joined message at its first "; " lost the list of allowed packages)
        "load_error": child.get("load_error") or None,
        "total": scoring.total(categories),
        "max_total": scoring.num(rubric.max_total),
        "categories": categories,
        "tests": tests,
        "audit": audit,
        "measurements": measurements,
        "example_weights": example,
        "grader_version": state.version,
        "duration_s": round(time.perf_counter() - t0, 3),
        "review": review,
        # REVIEW lines last, so that the stored tail of the log keeps them, whatever the log's length.
        "log": _cap_log(log, [f"{REVIEW_MARK} {reason_text(r)}" for r in review]),
    }


__all__ = ["GradeInput", "GradeResult", "GradingPlugin", "SuiteState", "grade", "grader_version",
           "suite_state"]

