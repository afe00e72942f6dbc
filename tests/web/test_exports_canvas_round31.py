"""Round 31: the Canvas export read back the way Canvas's gradebook importer reads a CSV.

`canvas_reads` follows canvas-lms's GradebookImporter (app/models/gradebook_importer.rb) and
Assignment.title_and_id: the header is checked by position (Student, ID, then SIS User ID and SIS
Login ID side by side, Integration ID and Root Account when present, then Section); columns whose
name contains a total column's name are dropped; a column named "title (digits)" is the title of
the assignment with that Canvas id; the "Points Possible" row gives the points; a row's student is
found by ID, then SIS Login ID (the login, exactly), then by the Student cell's name, else Canvas
shows it as a student it does not know.

Our column names and their order were already Canvas's. Two things were not read as written:
an assignment title ending in a number in brackets ("Attention lab (2)" became an assignment
"Attention lab") or containing a total column's name ("… Final Score": the column was dropped), and,
in a course whose Canvas login is not the email, two students with the same name were both given
to whichever Canvas student has that name."""

from __future__ import annotations

import csv
import io
import re

import pytest

from app.assignments import ensure_assignment
from app.extensions import db
from tests.web.helpers import realistic_result

TOTALS = ("Current Score", "Current Points", "Current Grade", "Final Score", "Final Points", "Final Grade",
          "Override Score", "Override Grade", "Override Status")


def canvas_reads(body: bytes, logins: dict[str, str], names: dict[str, str]) -> dict:
    """{"assignments": [(title, canvas id or None, points)], "grades": {student: [grade, ...]}} as
    Canvas's importer reads `body`, for a course whose students have these `logins` (login -> student)
    and `names` (student -> name). A row Canvas cannot match is keyed ("unknown", its Student cell)."""
    text = body.decode("utf-8")  # read as UTF-8, a leading BOM left in the first cell as Ruby's CSV does
    rows = [row for row in csv.reader(io.StringIO(text)) if not re.fullmatch(r"[;, ]*", ",".join(row))]
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1], header
    columns, login = 3, None
    if re.search(r"SIS\s+Login\s+ID", header[2]):
        columns, login = 4, 2
    elif re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]):
        extra = 1 if re.search(r"Integration\s+ID", header[4]) else 0
        columns, login = 5 + extra, 3
        if re.search(r"Root\s+Account", header[4 + extra]):
            columns += 1
    assert "Section" in header[columns - 1], f"Canvas: Invalid header row {header}"
    totals = re.compile("|".join(TOTALS))
    wanted = [(i, name) for i, name in enumerate(header) if i >= columns and not totals.search(name)]
    assignments = []
    for _, name in wanted:
        # Assignment.title_and_id; Ruby's \s is ASCII whitespace only.
        m = re.fullmatch(r"(.*)[ \t\r\n\f\v]\((\d+)\)", name)
        assignments.append([m.group(1), int(m.group(2)), None] if m else [name, None, None])
    grades: dict[object, list[str]] = {}
    for row in rows[1:]:
        if "Points Possible" in row[0]:
            for k, (i, _) in enumerate(wanted):
                assignments[k][2] = row[i]
            continue
        if all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in row if c):
            continue
        student = logins.get(row[login]) if login is not None and row[login] else None
        if student is None:
            student = next((sid for sid, name in names.items() if name == row[0]), ("unknown", row[0]))
        grades[student] = [row[i].strip() for i, _ in wanted]
    return {"assignments": [tuple(a) for a in assignments], "grades": grades}


def export(client) -> bytes:
    resp = client.get("/instructor/gradebook.csv?a=attention&format=canvas")
    assert resp.status_code == 200
    return resp.data


@pytest.fixture
def graded_class(client, web, course, factory):
    a = course["assignment"]
    web.grade(web.submit(course["alice"], a, audit=False, figure=False), realistic_result())
    web.login(client, course["teacher"])
    return a


def test_canvas_finds_every_student_by_login_with_the_points_and_scores(client, course, graded_class):
    read = canvas_reads(export(client), {"alice@example.edu": "alice", "bob@example.edu": "bob"}, {})
    (title, canvas_id, points), = read["assignments"]
    assert (title, canvas_id) == (graded_class.title, None) and float(points) > 0
    assert read["grades"]["bob"] == [""]                    # no graded attempt: Canvas leaves it unchanged
    assert float(read["grades"]["alice"][0]) > 0


def test_an_assignment_title_comes_back_from_canvas_as_written(client, graded_class):
    for title in ("Attention lab (2)", "Lab 3 Final Score", "注意力 (2025)", "Attention (v2)"):
        ensure_assignment("attention", title, "attention")
        db.session.commit()
        read = canvas_reads(export(client), {"alice@example.edu": "alice"}, {})
        assert len(read["assignments"]) == 1, f"Canvas dropped the column {title!r}"
        (name, canvas_id, _), = read["assignments"]
        # a no-break space where Canvas's patterns need a space: the same title to the eye
        assert canvas_id is None and name.replace("\u00a0", " ") == title, title


def test_students_sharing_a_name_are_not_given_to_one_canvas_student(client, web, course, factory, graded_class):
    a = graded_class
    twins = [factory.student(email=f"wangwei{i}@example.edu", name="王伟") for i in (1, 2)]
    for twin in twins:
        web.grade(web.submit(twin, a, audit=False, figure=False), realistic_result())
    # A course whose Canvas login is a student number, not the email: Canvas falls back to names.
    canvas_students = {"w1": "王伟", "alice": "Alice Wang"}
    read = canvas_reads(export(client), {}, canvas_students)
    assert "w1" not in read["grades"], "both 王伟 rows were matched to Canvas's one 王伟"
    assert {("unknown", t.email) for t in twins} <= set(read["grades"])  # listed as unknown in the preview
    assert "alice" in read["grades"]                    # a name no one else has still matches
