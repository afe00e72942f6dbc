"""Mend of round 39: the indirect-names reason stores its places as findings {line, kind, subject}; a zh reader
gets each place from its kind (the subject, code, in backticks), never the English phrase inside a zh sentence.
Rows stored before hold the English list alone: read back to the places' kinds since round 41, else shown as stored."""

from __future__ import annotations

import html
import re

from app.review_text import localized
from grader_tests.attention import static
from grading import runner
from grading.suite import load_suite
from tests.web.helpers import realistic_result

# One place of each kind the reason's findings are built with.
SOURCE = ("import torch\nimport importlib\nx = eval('1')\nn = input()\nf = getattr(torch, n)\n"
          "class A:\n    def __init__(self):\n        self.t = torch\nm = importlib.import_module('math')\n")
ENGLISH = re.compile(r"with a computed name|kept as an attribute|used as a value|\bimports\b|\bline \d")


def _indirect() -> dict:
    [found] = [r for r in runner._review(load_suite("attention"), SOURCE) if r["code"] == "attention.indirect_names"]
    return found


def _in(app, lang: str, reason: object) -> str:
    with app.test_request_context(f"/?lang={lang}"):
        return localized(reason)


def test_the_reason_is_stored_with_each_place_as_line_kind_and_subject():
    found = _indirect()
    kinds = {f["kind"] for f in found["findings"]}
    assert {"computed_name", "imports", "code"} <= kinds, found
    assert all(f["line"].isdigit() and f["subject"] in found["text"] for f in found["findings"]), found
    assert static.FINDING_EN.keys() >= kinds


def test_zh_shows_each_place_in_zh_with_its_code_in_backticks_and_en_the_stored_text(app):
    found = _indirect()
    zh, en = _in(app, "zh", found), _in(app, "en", found)
    assert en == found["text"]
    assert not ENGLISH.search(zh), zh
    for f in found["findings"]:
        assert f"`{f['subject']}`" in zh and f"第 {f['line']} 行" in zh, (f, zh)


def test_an_old_row_without_findings_shows_its_names_in_zh_or_as_stored(app):
    # (round 41) a list whose every place is of a known form is read back to its kinds; one with a place no form
    # knows is shown as stored
    old = {k: v for k, v in _indirect().items() if k != "findings"}
    zh = _in(app, "zh", old)
    assert not ENGLISH.search(zh) and all(f"`{f['subject']}`" in zh for f in _indirect()["findings"]), zh
    names = old["params"]["names"] + "; line 9: a place no form knows"
    assert names in _in(app, "zh", {**old, "params": {"names": names}})


def test_the_instructors_zh_page_shows_no_english_phrase_of_the_places(client, web, course):
    found = _indirect()
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, {**realistic_result(), "review": [found]})
    web.login(client, course["teacher"])
    client.get("/lang/zh")
    page = html.unescape(client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True))
    start = page.index("data-review-reasons")
    block = page[start:page.index("</div>", start)]
    assert "融合注意力检查无法追踪" in block and not ENGLISH.search(block), block


def test_the_instructors_api_answer_gives_the_places_and_a_zh_message_without_english(client, web, course, factory):
    found = _indirect()
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, {**realistic_result(), "review": [found]})
    body = client.get(f"/api/v1/submissions/{sub.id}?lang=zh",
                      headers={"Authorization": f"Bearer {factory.token(course['teacher'])}"}).json
    [got] = body["result"]["review"]
    assert got["findings"] == found["findings"] and not ENGLISH.search(got["message"]), got
