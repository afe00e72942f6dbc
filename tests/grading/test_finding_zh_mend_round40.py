"""Mend of round 40 (review RA, LOW 5): the student's feedback reads each finding in zh by the regex table
ZH_FINDING (static.finding_zh) over the English text FINDING_EN builds; nothing tied the two by kind, so a new
kind or a reworded English text would reach students in English. Every kind FINDING_EN has, built as the review
builds it (and from a submission that triggers it), must read in zh with no English prose."""

from __future__ import annotations

import pytest

from grader_tests.attention import static
from tests.grading.helpers import code_names, english_in_zh
from tests.web.test_review_findings_round40 import CASES

# code the zh texts name as written (the student's zh does not backtick its code): the subjects' names and the
# names the templates keep (argparse, super, PyTorch)
SUBJECTS = {"foreign_base": "Net(torch.nn.Transformer)", "string": "'_C'", "super_elsewhere": "super()"}
CODE = frozenset({"argparse", "super", "PyTorch", "Net", "foo_x", "bar_y"})


@pytest.mark.parametrize("kind", sorted(static.FINDING_EN))
def test_every_finding_kind_reads_in_zh_without_english_on_the_students_feedback(kind):
    found = static._finding(3, kind, SUBJECTS.get(kind, "foo_x.bar_y"))
    zh = static.finding_zh(str(found))      # by its English text alone: what the regex table reads
    assert zh.startswith("第 3 行："), zh
    assert english_in_zh(zh, CODE) == [], (str(found), zh)


def test_every_finding_a_submission_triggers_reads_in_zh_without_english():
    wrong = {}
    for case, (_kind, source) in sorted(CASES.items()):
        for found in static.hidden_name_uses(source):
            zh = static.finding_zh(str(found))
            if left := english_in_zh(zh, code_names(source) | CODE):
                wrong[f"{case}: {found}"] = (zh, left)
    assert not wrong, wrong
