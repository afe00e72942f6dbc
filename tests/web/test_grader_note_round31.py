"""Round 31: the engine's notes are clauses joined with "; ", each in lower case (grading.i18n.cat); one shown
alone on the result page began its paragraph with "your code printed ..." (and "your audit could not be
checked ...") and ended with no full stop in either language. The note now reads as a sentence: a capital
letter first, and a full stop (。 in Chinese) at its end."""

from __future__ import annotations

import html

from grading.runner import _output_note
from grading.sandbox.client import DISCARDED_TEXT
from tests.web.helpers import realistic_result


def test_a_grader_note_shown_alone_starts_its_sentence_with_a_capital_in_english_and_as_is_in_chinese(
        client, web, course):
    alice = course["alice"]
    sub = web.submit(alice, course["assignment"])
    result = realistic_result()
    result["message"] = _output_note("x" * 65536 + DISCARDED_TEXT.format(n=33 << 20))
    web.grade(sub, result)
    web.login(client, alice)
    shown = {}
    for lang in ("en", "zh"):
        client.get(f"/lang/{lang}")
        page = html.unescape(client.get(f"/submissions/{sub.id}").get_data(as_text=True))
        note = page[page.index("data-grader-note>") + len("data-grader-note>"):]
        shown[lang] = note[:note.index("</p>")]
    assert shown["en"].startswith("Your code printed 33.1 MiB while it was graded"), shown["en"]
    assert shown["zh"].startswith("评分时你的代码输出了 33.1 MiB（print()"), shown["zh"]
    # a sentence ends with the reader's full stop (the engine's clauses have none)
    assert shown["en"].endswith("before you submit.") and shown["zh"].endswith("删掉调试用的 print。"), shown


def test_a_grader_note_that_starts_with_a_file_name_keeps_it_as_written(client, web, course):
    alice = course["alice"]
    sub = web.submit(alice, course["assignment"])
    result = realistic_result()
    result["message"] = {"en": "attention.py imports matplotlib: in the grader these are inert stand-ins",
                         "zh": "attention.py 导入了 matplotlib：评分器中它们只是不起作用的替身"}
    web.grade(sub, result)
    web.login(client, alice)
    client.get("/lang/en")
    page = html.unescape(client.get(f"/submissions/{sub.id}").get_data(as_text=True))
    assert "data-grader-note>attention.py imports matplotlib: in the grader these are inert stand-ins.</p>" in page
