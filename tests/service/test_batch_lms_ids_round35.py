"""Round 35: an LMS export groups its files by student. Names are not unique in a class (a 300-student
course has several 王伟); the id the LMS writes after the name is. Grouping by the name alone graded one
student's code and listed the other's among the ignored files."""

from __future__ import annotations

from pathlib import Path

from autograder.batch import collect, lms_student


def _write(folder: Path, name: str, text: str = "x = 1\n") -> None:
    (folder / name).write_text(text, encoding="utf-8")


def test_two_moodle_students_of_the_same_name_are_two_submissions(tmp_path):
    _write(tmp_path, "王伟_101_assignsubmission_file_attention.py", "A = 1\n")
    _write(tmp_path, "王伟_101_assignsubmission_file_audit.md")
    _write(tmp_path, "王伟_202_assignsubmission_file_attention.py", "B = 2\n")
    found = collect([tmp_path], "attention.py", tmp_path)
    by_id = {f.lms_id: f for f in found}
    assert sorted(by_id) == ["101", "202"] and all(f.student == "王伟" for f in found)
    assert by_id["101"].code.read_text() == "A = 1\n" and by_id["101"].audit is not None
    assert by_id["202"].code.read_text() == "B = 2\n" and by_id["202"].audit is None
    assert not any(f.extra for f in found)


def test_canvas_names_with_and_without_the_late_mark_carry_the_user_id(tmp_path):
    _write(tmp_path, "smithjane_101_9001_attention.py")
    _write(tmp_path, "smithjane_LATE_102_9003_attention.py")
    found = collect([tmp_path], "attention.py", tmp_path)
    assert sorted((f.student, f.lms_id) for f in found) == [("smithjane", "101"), ("smithjane", "102")]


def test_a_moodle_folder_per_submission_is_read_as_name_and_id(tmp_path):
    for name in ("王伟_101_assignsubmission_file_", "王伟_202_assignsubmission_file_", "student01", "zhang_san"):
        (tmp_path / name).mkdir()
        _write(tmp_path / name, "attention.py")
    found = collect([tmp_path], "attention.py", tmp_path)
    assert sorted(((f.student, f.lms_id) for f in found), key=str) == sorted(
        [("王伟", "101"), ("王伟", "202"), ("student01", None), ("zhang_san", None)], key=str)


def test_names_without_an_lms_id_are_grouped_as_before():
    assert lms_student("leebo_attention.py") == ("leebo", None)
    assert lms_student("leebo_audit_notes.md") == ("leebo", None)
    assert lms_student("wangli_103_9004_notes.txt") == ("wangli", "103")
    assert lms_student("leebo_late_102_9003_attention.py") == ("leebo", "102")
    assert lms_student("li_２０２_x.py") == ("li", None), "full-width digits are not an LMS id"


def test_moodle_folders_of_one_student_are_one_submission(tmp_path):
    """Moodle writes a folder per submission plugin: the file upload and the online text of one student."""
    files = tmp_path / "王伟_101_assignsubmission_file_"
    text = tmp_path / "王伟_101_assignsubmission_onlinetext_"
    for folder in (files, text):
        folder.mkdir()
    _write(files, "attention.py")
    _write(text, "audit.md")
    (found,) = collect([tmp_path], "attention.py", tmp_path)
    assert (found.student, found.lms_id) == ("王伟", "101")
    assert found.code.name == "attention.py" and found.audit.name == "audit.md"


def test_a_moodle_name_with_underscores_keeps_its_whole_name_and_id(tmp_path):
    _write(tmp_path, "Jane_Smith_101_assignsubmission_file_attention.py")
    _write(tmp_path, "Jane_Doe_202_assignsubmission_file_attention.py")
    found = collect([tmp_path], "attention.py", tmp_path)
    assert sorted((f.student, f.lms_id) for f in found) == [("Jane_Doe", "202"), ("Jane_Smith", "101")]


def test_names_that_only_hold_digits_are_not_taken_for_an_lms_layout(tmp_path):
    """`alice_2_attention.py` beside `alice_audit.md` is one student's (the review found them split), and a
    folder `s_2023001_wangwei` keeps its whole name."""
    _write(tmp_path, "alice_2_attention.py")
    _write(tmp_path, "alice_audit.md")
    (tmp_path / "s_2023001_wangwei").mkdir()
    _write(tmp_path / "s_2023001_wangwei", "attention.py")
    found = sorted(collect([tmp_path], "attention.py", tmp_path), key=lambda f: f.student)
    assert [(f.student, f.lms_id) for f in found] == [("alice", None), ("s_2023001_wangwei", None)]
    assert found[0].code.name == "alice_2_attention.py" and found[0].audit.name == "alice_audit.md"
