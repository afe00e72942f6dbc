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


@pytest.mark.slow   # CLI subprocesses (8-17 s under load): the fast lane stays under 10 minutes
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


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
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


def _zip(path: Path, entries: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return path


def _patched(path: Path, source: Path, edit) -> Path:
    data = bytearray(source.read_bytes())
    edit(data)
    path.write_bytes(bytes(data))
    return path


CODE = b"def f():\n    return 1\n"


def _odd_zips(tmp: Path) -> dict[str, Path]:
    plain = _zip(tmp / "plain.zip", [("alice/attention.py", CODE)], zipfile.ZIP_STORED)
    raw = plain.read_bytes()
    central = raw.find(b"PK\x01\x02")

    def bad_crc(b):
        b[raw.find(b"PK\x03\x04") + 30 + len("alice/attention.py")] ^= 1

    def encrypted(b):
        b[6] |= 1
        b[central + 8] |= 1

    def method_99(b):
        b[8:10] = (99).to_bytes(2, "little")
        b[central + 10:central + 12] = (99).to_bytes(2, "little")

    return {
        "file_then_folder": _zip(tmp / "conflict.zip", [("alice/attention.py", CODE), ("alice/attention.py/x.md", b"x")]),
        "folder_then_file": _zip(tmp / "dirfile.zip", [("alice/x/attention.py", CODE), ("alice/x", b"x")]),
        "entry_named_dot": _zip(tmp / "dot.zip", [("alice/attention.py", CODE), (".", b"x")]),
        "name_too_long": _zip(tmp / "long.zip", [("alice/attention.py", CODE), ("alice/" + "a" * 300 + ".md", b"x")]),
        "bad_crc": _patched(tmp / "badcrc.zip", plain, bad_crc),
        "encrypted": _patched(tmp / "encrypted.zip", plain, encrypted),
        "unknown_compression": _patched(tmp / "method99.zip", plain, method_99),
    }


@pytest.mark.parametrize("kind", ["file_then_folder", "folder_then_file", "entry_named_dot", "name_too_long",
                                  "bad_crc", "encrypted", "unknown_compression"])
def test_an_lms_zip_with_an_unreadable_entry_skips_and_names_it(tmp_path, kind):
    # Each of these ended `autograder grade` in a traceback that graded nobody.
    from autograder.batch import collect

    archive = _odd_zips(tmp_path)[kind]
    notes: list[str] = []
    work = tmp_path / "work"
    work.mkdir()
    found = collect([archive], "attention.py", work, notes)
    assert notes and all(str(archive) in n for n in notes)
    if kind in ("file_then_folder", "folder_then_file", "entry_named_dot", "name_too_long"):
        assert [f.student for f in found] == ["alice"]          # the readable entries are still graded
