"""Round 35, feedback a student can act on: the files of tests/grading/feedback_corpus_round35.py (runtime errors
inside forward and import-time problems round 34's corpus did not try), graded, and read in zh and en.

Found: an AttributeError a class's own __init__ raised ("'MultiHeadAttention' object has no attribute 'd_model'", or
nn.Module's words for a ScaledDotProductAttention whose __init__ never called super().__init__()) was told
"attention.py does not define" the class the file defines."""

from __future__ import annotations

import pytest

from grading.i18n import is_msg
from tests.grading.feedback_corpus_round35 import CASES


def _graded(executor, name: str) -> dict:
    from grading.runner import GradeInput, grade

    result = grade(GradeInput(code=CASES[name]), "attention", executor)
    assert result["status"] == "graded", result.get("message")
    return result


def _failed(result: dict) -> list[dict]:
    return [t["feedback"] for t in result["tests"] if t["outcome"] == "failed" and is_msg(t.get("feedback"))]


# ------------------------------------------------------------------ an AttributeError of the class's own code
@pytest.mark.parametrize("name", ["sdpa_no_super_init", "self_attr_before_set"])
def test_an_attribute_error_raised_in_a_defined_class_is_not_said_to_be_a_missing_class(executor, name):
    said = _failed(_graded(executor, name))
    assert said
    for fb in said:
        assert "does not define" not in fb["en"] and "没有定义" not in fb["zh"], fb
    assert any("object has no attribute" in fb["en"] for fb in said)


def test_a_class_the_file_lacks_is_still_said_to_be_missing(executor):
    from grading.runner import GradeInput, grade
    from tests.web.test_broken_uploads_round34 import BASE

    code = BASE.replace("class MultiHeadAttention(nn.Module):", "class MultiHeadAttn(nn.Module):").encode()
    said = _failed(grade(GradeInput(code=code), "attention", executor))
    assert any("attention.py does not define MultiHeadAttention" in fb["en"]
               and "attention.py 没有定义 MultiHeadAttention" in fb["zh"] for fb in said)
