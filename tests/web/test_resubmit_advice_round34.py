"""Round 34: the load-error box said "Your audit and figure are kept when you resubmit only the code" to an attempt
that had no audit and no figure (the live page above it said "no audit"). What is kept is said only when the
attempt has it: both, the audit, the figure, or nothing."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from tests.web.helpers import realistic_result

SAID = {
    (True, True): ("Your audit and figure are kept when you resubmit only the code.", "只重新提交代码时，你的审计和图会被保留。"),
    (True, False): ("Your audit is kept when you resubmit only the code.", "只重新提交代码时，你的审计会被保留。"),
    (False, True): ("Your figure is kept when you resubmit only the code.", "只重新提交代码时，你的图会被保留。"),
}
ALL = [text for pair in SAID.values() for text in pair]


@pytest.mark.parametrize(("audit", "figure"), [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("imported", [True, False], ids=["did-not-load", "defines-nothing"])
def test_the_load_error_box_says_only_what_this_attempt_keeps(client, web, course, audit, figure, imported):
    sub = web.submit(course["alice"], course["assignment"], audit=audit, figure=figure)
    result = realistic_result()
    for t in result["tests"]:
        t.update(outcome="failed", points=0,
                 feedback={"en": "not run: attention.py did not load", "zh": "未运行：attention.py 无法导入"})
    result["load_error"] = {"en": "SyntaxError at line 2: invalid syntax", "zh": "第 2 行出现 SyntaxError"}
    result["message"] = ({"en": "attention.py did not load: SyntaxError at line 2: invalid syntax",
                          "zh": "attention.py 无法导入：第 2 行出现 SyntaxError"} if imported else None)
    web.grade(sub, result)
    pages = web.result_pages(client, course["alice"], sub.id)
    for i, lang in enumerate(("en", "zh")):
        box = html_lib.unescape(re.search(r'id="load-error".*?</section>', pages[lang], re.S).group(0))
        first = ("Fix this first: run “python attention.py” on your computer" if imported
                 else "Fix this first: attention.py must define the classes")
        assert (first if lang == "en" else "请先修复这个问题：") in box
        kept = SAID.get((audit, figure))
        assert [t for t in ALL if t in box] == ([kept[i]] if kept else []), (lang, box)


def test_an_older_attempts_load_error_box_says_nothing_about_what_is_kept(client, web, course):
    """Review of round 34: a resubmission carries the NEWEST attempt's audit and figure (app.submitting._carried),
    so an older attempt's page cannot tell what would be kept: it says nothing; the newest attempt's page says it."""
    result = realistic_result()
    for t in result["tests"]:
        t.update(outcome="failed", points=0,
                 feedback={"en": "not run: attention.py did not load", "zh": "未运行：attention.py 无法导入"})
    result["load_error"] = {"en": "SyntaxError at line 2: invalid syntax", "zh": "第 2 行出现 SyntaxError"}
    result["message"] = {"en": "attention.py did not load: SyntaxError at line 2: invalid syntax",
                         "zh": "attention.py 无法导入：第 2 行出现 SyntaxError"}
    old = web.submit(course["alice"], course["assignment"], audit=True, figure=True)
    web.grade(old, result)
    new = web.submit(course["alice"], course["assignment"], audit=True, figure=False)
    web.grade(new, result)
    for sub, said in ((old, []), (new, [SAID[(True, True)][0]])):     # the figure carried forward to attempt 2
        page = html_lib.unescape(web.result_pages(client, course["alice"], sub.id)["en"])
        box = re.search(r'id="load-error".*?</section>', page, re.S).group(0)
        assert [t for t in ALL if t in box] == said, (sub.attempt, box)
