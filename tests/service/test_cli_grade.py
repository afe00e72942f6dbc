"""`autograder grade`: the offline grader prints the documented JSON and uses its exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from grading.i18n import pick
from tests.workers import BIN

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORRECT = FIXTURES / "submissions" / "correct" / "reference.py"


def grade(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN), "grade", *args], capture_output=True, text=True, timeout=180, cwd=cwd)


@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
def test_grade_json_has_the_documented_shape_and_exit_0(tmp_path):
    res = grade(str(CORRECT), "--audit", str(FIXTURES / "audits" / "en_thorough.md"), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["status"] == "graded" and out["message"] is None and out["max_total"] == 100
    assert {k: v["max"] for k, v in out["categories"].items()} == {
        "formula_shape": 25, "implementation": 30, "mask_parity": 30, "audit": 15}
    assert out["categories"]["mask_parity"]["score"] == 30
    assert out["categories"]["audit"]["score"] > 0, "--audit fills the audit category"
    for t in out["tests"]:
        assert {"id", "category", "outcome", "points", "max_points", "feedback"} <= set(t)
        assert t["outcome"] in ("passed", "failed", "error", "timeout")
    assert isinstance(out["grader_version"], str) and out["duration_s"] > 0
    assert "log" not in out, "the instructor log stays out of the JSON"


@pytest.mark.slow   # a cold start of the CLI (torch, zygote): ~15 s
def test_code_that_does_not_load_is_graded_with_exit_0(tmp_path):
    broken = tmp_path / "attention.py"
    broken.write_text("import torch\n\nclass ScaledDotProductAttention(torch.nn.Module)\n    pass\n")
    res = grade(str(broken), "--json")
    assert res.returncode == 0
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["status"] == "graded" and out["total"] == 0
    message = pick(out["message"], "en")  # the JSON carries messages in both languages
    assert "SyntaxError" in message and "line 3" in message


@pytest.mark.slow     # several cold starts of the CLI (~12 s)
def test_unusable_input_exits_2_with_a_one_line_reason(tmp_path):
    gbk = tmp_path / "attention.py"
    gbk.write_bytes("# 注意力\n".encode("gbk"))
    for args in ([str(tmp_path / "missing.py")], [str(gbk)], [str(CORRECT), "--figure", str(gbk)]):
        res = grade(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error: ")


@pytest.mark.slow   # a cold start of the CLI (torch, zygote): ~15 s
def test_grade_suite_attention_numpy_grades_the_course_page_code():
    res = grade(str(FIXTURES / "submissions" / "numpy" / "course_page.py"), "--suite", "attention_numpy", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["status"] == "graded" and out["total"] == 100 and out["audit"] is None
    assert {k: v["max"] for k, v in out["categories"].items()} == {
        "stable_softmax": 20, "scaled_scores": 25, "weights_context": 25, "causal_mask": 30}


@pytest.mark.slow   # CLI subprocesses (8-17 s under load): the fast lane stays under 10 minutes
def test_grade_unknown_suite_is_a_grader_error_exit_1():
    res = grade(str(CORRECT), "--suite", "no_such_lab", "--json")
    assert res.returncode == 1
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["status"] == "error" and "no_such_lab" in pick(out["message"], "en")


def test_the_text_report_prints_a_reason_shared_by_every_test_once():
    # A file that did not load gives all 31 tests the same "not run: ..." text; the text report
    # printed it 31 times, burying the one line that matters.
    from autograder.cli import format_result

    reason = "not run: attention.py did not load: SyntaxError at line 3: expected ':'"
    tests = [{"id": f"test_{i}", "outcome": "failed", "points": 0, "max_points": 2, "feedback": reason}
             for i in range(31)]
    tests.append({"id": "test_other", "outcome": "failed", "points": 0, "max_points": 1, "feedback": "other"})
    text = format_result({"status": "graded", "total": 0, "max_total": 100, "message": None,
                          "categories": {"formula_shape": {"score": 0, "max": 25}}, "tests": tests})
    assert text.count(reason) == 1
    assert text.count("(as test_0)") == 30
    assert "other" in text and all(f"test_{i} (0/2)" in text for i in range(31))
