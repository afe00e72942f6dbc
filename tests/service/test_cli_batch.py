"""`autograder grade` on many submissions: folders and LMS zips, one warm sandbox, JSON lines."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from tests.workers import BIN

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORRECT = FIXTURES / "submissions" / "correct" / "reference.py"
FAULTY = FIXTURES / "submissions" / "faulty" / "always_tuple.py"
AUDIT = FIXTURES / "audits" / "en_thorough.md"


def grade(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN), "grade", *args], capture_output=True, text=True, timeout=300)


def lines(res: subprocess.CompletedProcess) -> dict[str, dict]:
    out = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    return {o["student"]: o for o in out}


@pytest.mark.slow   # a cold start of the CLI (torch, zygote): ~15 s
def test_a_canvas_zip_is_graded_one_json_line_per_student(tmp_path):
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(CORRECT, "smithjane_101_9001_attention.py")
        zf.write(AUDIT, "smithjane_101_9002_audit.md")
        zf.write(FAULTY, "leebo_LATE_102_9003_attention.py")
        zf.writestr("wangli_103_9004_notes.txt", "no code here")
        zf.writestr("../escape_104_1_attention.py", "print('never written')")
    res = grade(str(archive))
    assert res.returncode == 0, res.stderr
    by = lines(res)
    assert set(by) == {"smithjane", "leebo", "wangli"}
    assert by["smithjane"]["status"] == "graded" and by["smithjane"]["total"] > 85, "code 85 plus the audit"
    assert by["smithjane"]["files"] == {"code": "smithjane_101_9001_attention.py", "audit": "smithjane_101_9002_audit.md"}
    assert by["leebo"]["status"] == "graded" and by["leebo"]["total"] < 85
    assert by["wangli"]["status"] == "unusable" and "attention.py" in by["wangli"]["message"]
    assert not (tmp_path.parent / "escape_104_1_attention.py").exists()


def test_a_folder_per_student_costs_one_start_plus_warm_gradings(tmp_path):
    students = [f"student{i:02d}" for i in range(6)]
    for name in students:
        (tmp_path / name).mkdir()
        shutil.copy(CORRECT, tmp_path / name / "attention.py")
    t0 = time.monotonic()
    res = grade(str(tmp_path))
    wall = time.monotonic() - t0
    assert res.returncode == 0, res.stderr
    by = lines(res)
    assert sorted(by) == students and all(o["total"] == 85 for o in by.values())
    # Each grading after the first runs on the warm sandbox: its own duration is a fraction of
    # the whole command, which is dominated by the one start.
    warm = sorted(o["duration_s"] for o in by.values())
    assert warm[len(warm) // 2] < wall / 4, (warm, wall)


def test_audit_and_figure_flags_are_refused_in_a_batch(tmp_path):
    res = grade(str(CORRECT), str(FAULTY), "--audit", str(AUDIT))
    assert res.returncode == 2 and res.stderr.startswith("error: ") and "--audit" in res.stderr


@pytest.mark.slow   # a cold start of the CLI (torch, zygote): ~15 s
def test_code_saved_as_py_txt_is_the_code_and_a_notebook_is_named(tmp_path):
    """Browsers and Windows save attention.py as attention.py.txt: it was taken for the audit and the
    real audit ignored. A notebook alone is named, with what to do."""
    (tmp_path / "zhangsan").mkdir()
    shutil.copy(CORRECT, tmp_path / "zhangsan" / "attention.py.txt")
    shutil.copy(AUDIT, tmp_path / "zhangsan" / "审计.md")
    (tmp_path / "lisi").mkdir()
    (tmp_path / "lisi" / "attention.ipynb").write_text('{"cells": [], "nbformat": 4}', encoding="utf-8")
    res = grade(str(tmp_path))
    by = lines(res)
    assert by["zhangsan"]["files"] == {"code": "attention.py.txt", "audit": "审计.md"}
    assert by["zhangsan"]["status"] == "graded" and by["zhangsan"]["total"] > 85
    assert by["lisi"]["status"] == "unusable"
    assert "attention.ipynb is a notebook: export it as attention.py" in by["lisi"]["message"]
