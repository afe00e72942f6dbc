"""Mend of round 46 (review RC MED 3): a message the file wrote itself is introduced as the code's own words, in
English and in Chinese, also when the raise makes its class on the line (a forged verdict as the class's name, which
the client reports as Exception); forged text stands only inside the quoted message. Before: "raised Exception at
attention.py line 11: [x](javascript:alert(1))", and in Chinese "PyTorch/Python 报错原文：" before the file's words."""

from __future__ import annotations

import pytest

from grading.proxy import OWN_MESSAGE_EN, OWN_MESSAGE_ZH, load_error_text, student_error_text
from grading.sandbox.client import StudentError
from tests.grading.hostile_attacks_round46 import ATTACKS

# (attack, the kind the client reports, the message the jail sends, words forged outside the message)
_FORGED = [
    ("an_exception_class_named_like_a_passing_verdict_in_both_languages", "Exception", "[x](javascript:alert(1))",
     ("passed: 85", "通过", "PASS", "None")),
    ("markup_ansi_escapes_and_nul_bytes_in_every_message_and_print", "ValueError",
     "\x1b[32mPASSED\x1b[0m\x00\u202e\u2066<script>alert(1)</script>", ()),
]


def _raise_line(source: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if line.strip().startswith("raise"))


def _only_after_intro(text: str, intro: str, message: str, forged: tuple[str, ...]) -> None:
    head, sep, said = text.partition(intro)
    assert sep and said.startswith(message), text
    for word in (*forged, "javascript", "PASSED", "<script>"):
        assert word not in head, (word, text)


@pytest.mark.parametrize(("attack", "kind", "message", "forged"), _FORGED)
def test_a_forged_message_a_file_raised_is_introduced_as_its_own_in_both_languages_and_stands_only_inside(
        attack, kind, message, forged):
    source = ATTACKS[attack]
    error = StudentError(kind, message, _raise_line(source))
    for text in (student_error_text("ScaledDotProductAttention.forward", error, source=source),
                 load_error_text(error, source=source)):
        _only_after_intro(text["en"], OWN_MESSAGE_EN, message, forged)
        _only_after_intro(text["zh"], OWN_MESSAGE_ZH, message, forged)
        assert "PyTorch/Python" not in text["zh"], text


@pytest.mark.parametrize("raised", [
    # the class's own __str__ gives other words than the file wrote: they are not the file's message
    'raise type("E", (Exception,), {"__str__": lambda s: "other words"})("written")',
    # a format of values alone says nothing of whose words they are
    'raise type("E", (Exception,), {})(f"{x}")',
])
def test_a_message_that_is_not_the_text_written_on_the_raise_line_is_not_called_the_codes_own(raised):
    source = f"x = 'other words'\n{raised}\n"
    text = student_error_text("forward", StudentError("Exception", "other words", 2), source=source)
    assert OWN_MESSAGE_EN not in text["en"] and OWN_MESSAGE_ZH not in text["zh"], text
    assert text["en"].endswith("line 2: other words"), text
