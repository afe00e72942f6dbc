"""Mend of round 40 (review RA, LOW 1-3): on the instructor's zh page a name fused_unseen quotes that holds a
backtick is quoted by a longer fence (the names come from the student's process), an empty value is no empty code
span, a foreign_base finding not shaped ``Cls(base)`` (a hand-edited row) shows its subject as stored, and the
finding texts speak of the submitter (提交者), not to the student (你), and say 审阅 for review throughout."""

from __future__ import annotations

import pytest

from app.review_text import _BY_CODE, _FINDING, _quoted, localized
from grader_tests.attention import static
from grader_tests.attention_numpy import static as numpy_static
from tests.grading.helpers import english_in_zh

IND = ("attention.py reaches functions through computed or indirect names, which the fused-attention check cannot "
       "follow: ")


def _in(app, lang: str, reason: object) -> str:
    with app.test_request_context(f"/?lang={lang}"):
        return localized(reason)


def _fused(calls: str) -> dict:
    return {"code": "attention.fused_unseen", "params": {"calls": calls}, "text": "t"}


@pytest.mark.parametrize(("calls", "shown"), [
    ("a`b (1x)", "``a`b``（1 次）"),
    ("F.sdpa (2x), x``y (3x)", "`F.sdpa`（2 次）、```x``y```（3 次）"),
    ("`lead (1x)", "`` `lead ``（1 次）"),
])
def test_a_called_name_with_backticks_is_quoted_by_a_longer_fence_on_zh_pages(app, calls, shown):
    zh = _in(app, "zh", _fused(calls))
    assert f"（{shown}）" in zh, zh


def test_an_empty_value_is_shown_empty_never_as_an_empty_code_span(app):
    assert _quoted("") == ""
    zh = _in(app, "zh", _fused(""))
    assert "运行了（）" in zh and "``" not in zh, zh
    for code, word in (("engine.review_failed", "source"), ("engine.outcome_review_failed", "outcome")):
        stored = {"code": code, "params": {"error": ""}, "text": f"the {word} review failed: "}
        zh = _in(app, "zh", stored)
        assert zh.endswith("出错：") and "``" not in zh, zh


@pytest.mark.parametrize("subject", ["A", "A(", "A(torch.nn.Transformer", ""])
def test_a_foreign_base_not_shaped_class_and_base_shows_its_subject_as_stored(app, subject):
    stored = {"code": "attention.indirect_names", "params": {"names": "x"}, "text": "x",
              "findings": [{"line": "2", "kind": "foreign_base", "subject": subject}]}
    zh, en = _in(app, "zh", stored), _in(app, "en", stored)
    assert "继承自" not in zh and "derives from" not in en, (zh, en)
    assert "第 2 行：" in zh and en.endswith(f"line 2: {subject}"), (zh, en)
    if subject:
        assert f"`{subject}`" in zh and english_in_zh(zh) == [], zh


def test_a_foreign_base_of_the_usual_shape_still_names_class_and_base(app):
    stored = {"code": "attention.indirect_names", "params": {"names": "x"}, "text": "x",
              "findings": [{"line": "2", "kind": "foreign_base", "subject": "A(torch.nn.Transformer)"}]}
    assert "类 `A` 继承自 `torch.nn.Transformer`" in _in(app, "zh", stored)


def test_the_instructors_zh_of_every_finding_speaks_of_the_submitter_not_to_the_student(app):
    with app.test_request_context("/?lang=zh"):
        told = {kind: tell({"line": "3", "kind": kind, "subject": "x._y"}) for kind, tell in _FINDING.items()}
    assert not {kind: zh for kind, zh in told.items() if "你" in zh}, told
    assert "提交者" in told["foreign_private"], told["foreign_private"]


def test_review_is_one_word_in_zh_on_the_instructors_page_and_the_students_feedback(app):
    params = {"line": "3", "subject": "A(torch.nn.Transformer)", "names": "n", "calls": "c", "error": "e",
              "nodes": "1", "depth": "1", "tokens": "1", "seconds": "1", "wall": "1", "cpu": "1", "kind": "k"}
    with app.test_request_context("/?lang=zh"):
        told = [tell(params) for tell in (*_FINDING.values(), *_BY_CODE.values())]
    told += [static.finding_zh(static._finding(3, kind, "A(torch.nn.Transformer)")) for kind in static.FINDING_EN]
    told += [numpy_static.finding_zh(static.UNREVIEWABLE)]
    assert not [t for t in told if "审查" in t], [t for t in told if "审查" in t]
