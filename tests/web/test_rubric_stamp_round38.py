"""The rubric stamp (long polls, the rubric cache) is a hash of the file's content, read again only when the
file's stat changed or is too recent to vouch for it (round 38, brief F item 4)."""

from __future__ import annotations

import os
import shutil
import time
from types import SimpleNamespace

import pytest

import rubric.loader
from app import coursework


@pytest.fixture
def rubric_copy(tmp_path, monkeypatch):
    root = tmp_path / "rubric"
    shutil.copytree(rubric.loader.RUBRIC_ROOT, root)
    monkeypatch.setattr(rubric.loader, "RUBRIC_ROOT", root)
    return root


def later(monkeypatch, ns: int) -> None:
    """The stamp's clock reads `ns` later than the real one (negative: earlier, a clock set back): a file
    changed now reads as changed that long ago, without waiting."""
    monkeypatch.setattr(coursework, "time", SimpleNamespace(time_ns=lambda: time.time_ns() + ns))


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
    # Hashed well after its last change (its ctime, which utime just set): round 38 dates the change by ctime.
    later(monkeypatch, 3 * coursework.RACY_NS)
    first = coursework.rubric_stamp("attention")
    reads = []
    monkeypatch.setattr(coursework.hashlib, "sha256", lambda data: reads.append(data) or pytest.fail("read again"))
    assert coursework.rubric_stamp("attention") == first
    assert reads == []


def test_the_stamp_is_empty_for_a_missing_or_invalid_suite(rubric_copy):
    assert coursework.rubric_stamp("no_such_suite") == ""
    assert coursework.rubric_stamp("../etc") == ""


def _reads(monkeypatch) -> list[bytes]:
    reads: list[bytes] = []
    real = coursework.hashlib.sha256
    monkeypatch.setattr(coursework.hashlib, "sha256", lambda data: reads.append(data) or real(data))
    return reads


def test_an_in_place_same_size_edit_whose_mtime_was_set_back_changes_the_stamp(rubric_copy, monkeypatch):
    """The file's mtime, size and inode stay; its ctime does not (review RF, round 38)."""
    path = rubric.loader.rubric_path("attention")
    old = path.stat().st_mtime_ns - 100 * coursework.RACY_NS
    os.utime(path, ns=(old, old))
    later(monkeypatch, 3 * coursework.RACY_NS)  # hashed long after its last change: the stat is trusted
    before = coursework.rubric_stamp("attention")
    assert coursework.rubric_stamp("attention") == before
    time.sleep(0.01)  # the edit's ctime is another tick than the utime's above
    _same_size_edit_same_mtime(path)
    assert coursework.rubric_stamp("attention") != before
    assert coursework.rubric_for("attention").label("implementation", "en") == "IMPLEMENTATION"


def test_a_file_whose_mtime_is_in_the_future_is_hashed_once_not_at_every_call(rubric_copy, monkeypatch):
    path = rubric.loader.rubric_path("attention")
    future = time.time_ns() + 3600 * 10**9
    os.utime(path, ns=(future, future))
    later(monkeypatch, 3 * coursework.RACY_NS)
    first = coursework.rubric_stamp("attention")
    reads = _reads(monkeypatch)
    assert [coursework.rubric_stamp("attention") for _ in range(5)] == [first] * 5
    assert reads == []


def test_a_file_changed_after_the_clock_was_set_back_is_hashed_once(rubric_copy, monkeypatch):
    """Its ctime is ahead of the clock: a change since the hash would have an earlier ctime of its own."""
    path = rubric.loader.rubric_path("attention")
    path.write_bytes(path.read_bytes())  # changed now: its ctime and mtime are the real clock's
    later(monkeypatch, -3 * coursework.RACY_NS)
    first = coursework.rubric_stamp("attention")
    reads = _reads(monkeypatch)
    assert coursework.rubric_stamp("attention") == first
    assert reads == []


def test_a_recent_file_is_hashed_again_until_its_change_is_a_tick_old(rubric_copy, monkeypatch):
    """git's racy rule kept: a change in the hash's own tick keeps every stat field."""
    path = rubric.loader.rubric_path("attention")
    path.write_bytes(path.read_bytes())
    coursework.rubric_stamp("attention")
    reads = _reads(monkeypatch)
    coursework.rubric_stamp("attention")
    assert len(reads) == 1
