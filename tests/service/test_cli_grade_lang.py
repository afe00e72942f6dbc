"""`autograder grade --lang zh|en`: feedback and messages in the chosen language (default en)."""

from __future__ import annotations

import json

import pytest

from tests.service.test_cli_grade import FIXTURES, grade

FAULTY = FIXTURES / "submissions" / "faulty" / "softmax_query_axis.py"


def _feedback(out: dict) -> str:
    return next(t["feedback"] for t in out["tests"] if t["id"] == "test_row_sums_are_one")


@pytest.mark.slow     # three cold starts of the CLI (~30 s): the fast lane stays under 10 minutes
def test_grade_feedback_follows_lang(tmp_path):
    zh = json.loads(grade(str(FAULTY), "--json", "--lang", "zh").stdout.strip().splitlines()[-1])
    en = json.loads(grade(str(FAULTY), "--json").stdout.strip().splitlines()[-1])
    assert zh["lang"] == "zh" and en["lang"] == "en"
    assert "softmax 沿 query 轴" in _feedback(zh)
    assert "the softmax runs over the query axis" in _feedback(en)
    text = grade(str(FAULTY), "--lang", "zh").stdout
    assert "行和" in text and "row sums" not in text


@pytest.mark.slow   # a cold start of the CLI (torch, zygote): ~15 s
def test_load_error_message_follows_lang(tmp_path):
    broken = tmp_path / "attention.py"
    broken.write_text("import torch\nimport sklearn\n")
    zh = json.loads(grade(str(broken), "--json", "--lang", "zh").stdout.strip().splitlines()[-1])
    assert zh["message"].startswith("attention.py 无法导入：第 2 行出现 ModuleNotFoundError")
    assert "torch、numpy、einops" in zh["message"]
