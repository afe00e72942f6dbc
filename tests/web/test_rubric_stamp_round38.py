"""The rubric stamp (long polls, the rubric cache) is a hash of the file's content, read again only when the
file's stat changed or is too recent to vouch for it (round 38, brief F item 4)."""

from __future__ import annotations

import os
import shutil

import pytest

import rubric.loader
from app import coursework


@pytest.fixture
def rubric_copy(tmp_path, monkeypatch):
    root = tmp_path / "rubric"
    shutil.copytree(rubric.loader.RUBRIC_ROOT, root)
    monkeypatch.setattr(rubric.loader, "RUBRIC_ROOT", root)
    return root


def _same_size_edit_same_mtime(path) -> None:
    """Rewrite the file with other bytes of the same length and put its mtime back: an edit within one
    timestamp tick of a coarse file system."""
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    assert '{en: "Implementation"' in text
    path.write_text(text.replace('{en: "Implementation"', '{en: "IMPLEMENTATION"'), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)


def test_a_second_edit_within_the_first_ones_tick_keeping_the_size_changes_the_stamp_and_the_rubric(rubric_copy):
    path = rubric.loader.rubric_path("attention")
    path.write_bytes(path.read_bytes())  # the instructor's first edit: the file's mtime is now
    before, view = coursework.rubric_stamp("attention"), coursework.rubric_for("attention")
    _same_size_edit_same_mtime(path)
    assert coursework.rubric_stamp("attention") != before
    assert coursework.rubric_for("attention") is not view
    assert coursework.rubric_for("attention").label("implementation", "en") == "IMPLEMENTATION"


def test_an_old_unchanged_file_is_stat_only_and_not_read_again(rubric_copy, monkeypatch):
    path = rubric.loader.rubric_path("attention")
    old = path.stat().st_mtime_ns - 3 * coursework.RACY_NS
    os.utime(path, ns=(old, old))
    first = coursework.rubric_stamp("attention")
    reads = []
    monkeypatch.setattr(coursework.hashlib, "sha256", lambda data: reads.append(data) or pytest.fail("read again"))
    assert coursework.rubric_stamp("attention") == first
    assert reads == []


def test_the_stamp_is_empty_for_a_missing_or_invalid_suite(rubric_copy):
    assert coursework.rubric_stamp("no_such_suite") == ""
    assert coursework.rubric_stamp("../etc") == ""
