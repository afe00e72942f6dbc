"""Round 31: the engine's notes are clauses joined with "; ", each in lower case (grading.i18n.cat); one shown
alone on the result page began its paragraph with "your code printed ..." (and "your audit could not be
checked ..."). The note now starts with a capital letter; the Chinese one is shown as it is."""

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
