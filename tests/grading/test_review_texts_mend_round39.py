"""Mend of round 39: a suite's malformed review_texts (a language missing, other fields in zh than in en) is
refused when the suite is built, rather than turning each of its real reasons into engine.review_failed."""

from __future__ import annotations

import pytest

from grading import runner
from grading.review import stored
from grading.suite import Suite, SuiteError


def _suite(texts: dict) -> Suite:
    return Suite(version="t", student_file="a.py", module_name="a", categories=(),
                 review=lambda source: [{"code": "demo.loops", "params": {"n": 3}}], review_texts=texts)


@pytest.mark.parametrize("texts", [
    {"demo.loops": {"en": "{n} loops"}},
    {"demo.loops": {"zh": "{n} 个循环"}},
    {"demo.loops": {"en": "{n} loops", "zh": None}},
    {"demo.loops": {"en": "{n} loops", "zh": "{m} 个循环"}},
    {"demo.loops": {"en": "{n} loops", "zh": "个循环"}},
    {"demo.loops": {"en": "{n loops", "zh": "{n} 个循环"}},
], ids=["no zh", "no en", "zh not text", "other field", "field missing", "malformed"])
def test_a_malformed_review_texts_declaration_is_refused_when_the_suite_is_built(texts):
    with pytest.raises(SuiteError, match="demo.loops"):
        _suite(texts)


def test_a_well_formed_declaration_is_accepted_and_its_reasons_stored_in_both_languages():
    suite = _suite({"demo.loops": {"en": "{n} loops", "zh": "{n} 个循环"}})
    assert runner._review(suite, "x = 1\n") == [{"code": "demo.loops", "params": {"n": "3"}, "text": "3 loops",
                                                 "zh": "3 个循环"}]


def test_stored_reads_a_declaration_without_zh_as_no_zh_text_not_an_error():
    got = stored({"code": "demo.loops", "params": {"n": "3"}}, {"demo.loops": {"en": "{n} loops"}})
    assert got == {"code": "demo.loops", "params": {"n": "3"}, "text": "3 loops"}
