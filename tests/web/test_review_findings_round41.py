"""Round 41: an indirect-names reason stored before round 40 holds some places as English alone (kind ``text``,
the whole text as subject), and one stored before the mend of round 39 its ``names`` list alone (a plain string
before round 39). The pages read each place back to its kind from the English (app/review_text.py
``_LEGACY_FINDINGS``), so a zh reader sees zh without a regrade, and the en page still shows the log's text. A
place no form knows is shown as stored; a ``names`` list with one such place is shown whole, as stored."""

from __future__ import annotations

import html

import pytest

from app.review_text import as_reason, for_api, localized
from tests.grading.helpers import english_in_zh
from tests.web.helpers import realistic_result
from tests.web.test_review_findings_round40 import CASES, _indirect


def _in(app, lang: str, reason: object) -> str:
    with app.test_request_context(f"/?lang={lang}"):
        return localized(reason)


def _places(found: dict) -> list[tuple[dict, str]]:
    """Each stored place with its English text (the names list is the places' texts joined by "; ")."""
    return list(zip(found["findings"], found["params"]["names"].split("; "), strict=True))


def _before_round_40(found: dict) -> dict:
    """The row as stored before round 40: each place of the 16 forms then without a kind as English alone (every
    place here, the forms kinded since round 39's mend too: a row's places are read one by one)."""
    return {**found, "findings": [{"line": "", "kind": "text", "subject": text} for _, text in _places(found)]}


def _before_mend_39(found: dict) -> dict:
    return {k: v for k, v in found.items() if k != "findings"}


def test_an_english_place_stored_before_round_40_reads_back_to_its_kind_line_and_subject():
    wrong = {}
    for case, (_, source) in sorted(CASES.items()):
        found = _indirect(source)
        for shape in (_before_round_40, _before_mend_39, lambda f: f["text"]):
            got = as_reason(shape(found)).get("findings")
            if got != found["findings"]:
                wrong[f"{case} {shape.__name__}"] = (got, found["findings"])
    assert not wrong, wrong


def test_an_old_rows_places_read_in_zh_as_a_new_rows_do_and_in_en_as_the_log(app):
    wrong = {}
    for case, (_, source) in sorted(CASES.items()):
        found = _indirect(source)
        zh = _in(app, "zh", found)
        for old in (_before_round_40(found), _before_mend_39(found), found["text"]):
            old_zh, old_en = _in(app, "zh", old), _in(app, "en", old)
            problems = [*([f"zh {old_zh!r} is not {zh!r}"] if old_zh != zh else []),
                        *[f"English {w!r} in {old_zh!r}" for w in english_in_zh(old_zh)],
                        *([f"en {old_en!r}"] if old_en != found["text"] else [])]
            if problems:
                wrong.setdefault(case, []).extend(problems)
    assert not wrong, wrong


def test_the_api_gives_an_old_rows_places_with_their_kinds(app):
    found = _indirect(CASES["foreign_base"][1])
    with app.test_request_context("/?lang=zh"):
        got = for_api(_before_round_40(found))
    assert got["findings"] == found["findings"] and "`torch.nn.Transformer`" in got["message"], got


@pytest.mark.parametrize("text", [
    "line 2: something no form knows",            # English words: never shown as code
    "line x: ..._y (a private name of something not your own)",      # no line number
    "a place without a line",
])
def test_a_place_no_form_knows_is_shown_as_stored(app, text):
    found = _indirect(CASES["foreign_private"][1])
    old = {**found, "findings": [{"line": "", "kind": "text", "subject": text}]}
    assert as_reason(old)["findings"] == old["findings"]
    for lang in ("zh", "en"):
        assert text in _in(app, lang, old)


def test_a_names_list_with_a_place_no_form_knows_is_shown_whole_as_stored(app):
    found = _indirect(CASES["module_private"][1])
    names = found["params"]["names"] + "; line 9: something no form knows"
    old = {**_before_mend_39(found), "params": {"names": names}}
    assert "findings" not in as_reason(old)
    assert names in _in(app, "zh", old)


def test_a_string_holding_a_semicolon_is_never_cut_into_places(app):
    # "line 3: the string 'a; line 4: os'" split at "; " gives "line 3: the string 'a" (no closing quote): no form
    names = "line 3: the string 'a; line 4: os'"
    old = {"code": "attention.indirect_names", "params": {"names": names}, "text": "t: " + names}
    assert "findings" not in as_reason(old)
    assert names in _in(app, "zh", old)


def test_the_instructors_zh_pages_show_an_old_rows_places_in_zh(client, web, course):
    found = _indirect(CASES["foreign_private"][1])
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, {**realistic_result(), "review": [_before_round_40(found)]})
    web.login(client, course["teacher"])
    client.get("/lang/zh")
    for url in (f"/instructor/students/{course['alice'].id}", "/instructor/"):
        page = html.unescape(client.get(url).get_data(as_text=True))
        assert "a private name of something" not in page and "不属于提交者自己对象的私有名字" in page, url
