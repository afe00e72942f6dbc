"""The assignment page in one language at a time (round 32). ``ASSIGNMENT.md`` was one bilingual file, so the
zh page showed every English sentence too; each lab now has ``ASSIGNMENT.zh.md`` and ``ASSIGNMENT.en.md``
(app/coursework.contract_markdown picks the reader's). The two must say the same: same headings, same code
blocks and code spans, same numbers; the zh file keeps no English but code and the course's own terms."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.grading.helpers import english_in_zh

ROOT = Path(__file__).resolve().parents[2]
LABS = ("attention", "attention_numpy")
# The ASCII words the page keeps in its Chinese besides ZH_KEPT_WORDS: words the Chinese course text writes in
# English too (checked below against the course text, so the list cannot grow without the course's say).
COURSE_KEPT_WORDS = frozenset({"additive", "bool", "entropy", "heatmap"})
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
_FENCE = re.compile(r"^\s*```.*?^\s*```", re.S | re.M)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:e-?\d+)?")


def _page(lab: str, lang: str) -> str:
    return (ROOT / "grader_tests" / lab / f"ASSIGNMENT.{lang}.md").read_text(encoding="utf-8")


def _prose(text: str) -> str:
    """The page without its fenced code blocks."""
    return _FENCE.sub("", text)


def _headings(text: str) -> list[tuple[int, list[str]]]:
    """(level, code spans) of each heading, in order."""
    return [(len(m.group(1)), re.findall(r"`[^`]+`", m.group(2)))
            for m in re.finditer(r"^(#+)\s+(.*)$", _prose(text), re.M)]


def _bullets(text: str) -> list[int]:
    """The indentation of each list item, in order: the same lists, nested alike."""
    return [len(m.group(1)) for m in re.finditer(r"^( *)[-*] ", _prose(text), re.M)]


@pytest.mark.parametrize("lab", LABS)
def test_no_bilingual_page_is_left_beside_the_two_languages(lab):
    folder = ROOT / "grader_tests" / lab
    assert (folder / "ASSIGNMENT.zh.md").is_file() and (folder / "ASSIGNMENT.en.md").is_file()
    # contract_markdown falls back to ASSIGNMENT.md only when a language's file is missing: a stale bilingual
    # page kept beside them would be read by nothing and drift
    assert not (folder / "ASSIGNMENT.md").exists()


@pytest.mark.parametrize("lab", LABS)
def test_both_languages_have_the_same_headings_lists_code_and_numbers(lab):
    zh, en = _page(lab, "zh"), _page(lab, "en")
    assert _headings(zh) == _headings(en)
    assert _bullets(zh) == _bullets(en)
    assert [b.strip() for b in _FENCE.findall(zh)] == [b.strip() for b in _FENCE.findall(en)]
    assert set(re.findall(r"`[^`\n]+`", _prose(zh))) == set(re.findall(r"`[^`\n]+`", _prose(en)))
    assert Counter(_NUMBER.findall(zh)) == Counter(_NUMBER.findall(en))
    # the rubric table: the same rows, the same points
    rows = [[re.findall(r"\|\s*(\d+)\s*\|", line) for line in page.splitlines() if line.startswith("|")]
            for page in (zh, en)]
    assert rows[0] == rows[1]


@pytest.mark.parametrize("lab", LABS)
def test_the_chinese_page_keeps_no_english_but_code_and_the_courses_terms(lab):
    prose = _prose(_page(lab, "zh"))
    assert english_in_zh(prose, COURSE_KEPT_WORDS) == []
    # Chinese punctuation outside code: "（B=H=1, Nq=2）" is a list, written with 、; ASCII ( ) , . beside
    # Chinese characters are English punctuation
    text = re.sub(r"`[^`]*`", "`", prose)
    assert re.findall(r".{0,12}(?:, |[\u4e00-\u9fff][,.()]|[,(][\u4e00-\u9fff]).{0,6}", text) == []


@pytest.mark.parametrize("lab", LABS)
def test_the_english_page_has_no_chinese(lab):
    assert _CJK.findall(_page(lab, "en")) == []


def test_the_terms_kept_in_english_are_the_chinese_course_texts_own():
    chinese_lines = "\n".join(line for path in sorted((ROOT / "rubric" / "attention" / "handout").glob("*.txt"))
                              for line in path.read_text(encoding="utf-8").splitlines() if _CJK.search(line))
    for word in COURSE_KEPT_WORDS:
        assert re.search(rf"\b{word}\b", chinese_lines), word
