"""The assignment page a student reads is in the student's language only (round 32). The zh page rendered the
bilingual ASSIGNMENT.md: every rule came a second time in English. Rendered by the Flask test client, the
contract section of the zh page keeps no English outside code, and the en page no Chinese, for both labs."""

from __future__ import annotations

import html
import re

import pytest

from tests.grading.helpers import english_in_zh
from tests.grading.test_assignment_page_round32 import COURSE_KEPT_WORDS

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
_SECTION = re.compile(r'<section class="card markdown" aria-labelledby="contract-title">(.*?)</section>', re.S)


def _contract(client, slug: str, lang: str) -> tuple[str, str]:
    """(prose, code) of the rendered contract section: its text outside <pre>/<code>, and the code's text."""
    page = client.get(f"/assignments/{slug}", headers={"Accept-Language": lang})
    assert page.status_code == 200
    section = _SECTION.search(page.get_data(as_text=True))
    assert section, "the page has no contract section"
    body = section.group(1)
    code = " ".join(re.findall(r"<(?:pre|code)[^>]*>(.*?)</(?:pre|code)>", body, re.S))
    # code spans keep their backticks for english_in_zh, which does not read them
    prose = re.sub(r"<pre[^>]*>.*?</pre>", " ", body, flags=re.S)
    prose = re.sub(r"<code[^>]*>(.*?)</code>", lambda m: "`" + m.group(1).replace("`", "'") + "`", prose, flags=re.S)
    prose = re.sub(r"<[^>]+>", " ", prose)
    return html.unescape(prose), html.unescape(code)


def _no_english(prose: str, code: str) -> None:
    assert "接口契约" in prose
    assert english_in_zh(prose, COURSE_KEPT_WORDS) == []
    assert "ScaledDotProductAttention" in code or "scaled_dot_attention" in code


def _no_chinese(prose: str, code: str) -> None:
    assert "The contract" in prose
    assert _CJK.findall(prose + code) == []


@pytest.mark.parametrize("suite", ["attention", "attention_numpy"])
@pytest.mark.parametrize("lang, check", [("zh-CN,zh;q=0.9", _no_english), ("en", _no_chinese)])
def test_the_assignment_page_is_in_the_readers_language_only(client, web, factory, course, suite, lang, check):
    a = course["assignment"] if suite == "attention" else factory.assignment("numpy_lab", suite=suite)
    web.login(client, course["alice"])
    check(*_contract(client, a.slug, lang))
