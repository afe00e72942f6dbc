"""Round 47, walking the site in Chromium as a zh student and a zh instructor: a template wrote a space
between a translated sentence or "label:" and what follows, the same in every language, so zh pages read
"该学生的截止时间： 2026年…", "代码： attention.py", "…提交。 目前计入成绩的是第 1 次提交。", and the upload
form's "审计 (.md / .txt / .pdf)" had ASCII parentheses. Templates now put word_gap() there (a space in en, none
in zh) and |parens around the file types. The scan reads every template, so a new such space fails here."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from tests.web.helpers import realistic_result

TEMPLATES = Path(__file__).resolve().parents[2] / "app" / "templates"
# What may follow the space without showing it: a block element, a closing tag, a Jinja tag or output
# that strips the whitespace, the end or an else of a block.
_BLOCK = (r"(?:</|<(?:p|div|li|ul|ol|h\d|tr|td|th|table|section|form|details|summary|pre|br|dl|dt|dd|nav|footer|"
          r"header|label|input|select|textarea|button|fieldset|script)\b|\{%-|\{\{-|\{#|\{%\s*(?:end|else|elif))")
# A translated text ending in a full stop or a colon, its output, whitespace, then something shown on the line.
_SPACE_AFTER = re.compile(r"_\((['\"])(?:(?!\1).)*[.:]\1[^()]*(?:\([^()]*\)[^()]*)*\)\s*\}\}(\s+)(?!" + _BLOCK + r")\S")


def spaces_after_sentences(source: str) -> list[str]:
    return [source[m.start():m.end() + 20] for m in _SPACE_AFTER.finditer(source)]


@pytest.mark.parametrize("source, found", [
    ("{{ _('Deadline:') }} <strong>{{ d }}</strong>", True),
    ("{{ _('Done.') }}\n  <a href='x'>more</a>", True),
    ("{{ _('Done.', n=f(x)) }} {{ _('Next.') }}", True),
    ("{{ _('Deadline:') }}{{ word_gap() }}<strong>", False),
    ("{{ _('Done.') }}\n</p>", False),
    ("{{ _('Done.') }}\n  {%- if x %}", False),
    ("{{ _('Remember me') }} <b>", False),  # no sentence end: the space belongs to the text
])
def test_the_scan_finds_a_template_space_after_a_sentence_or_a_label(source, found):
    assert bool(spaces_after_sentences(source)) is found


def test_no_template_writes_a_space_after_a_translated_sentence_or_label():
    found = {str(p.relative_to(TEMPLATES)): spaces_after_sentences(p.read_text(encoding="utf-8"))
             for p in sorted(TEMPLATES.rglob("*.html"))}
    assert {k: v for k, v in found.items() if v} == {}


def _text(page: str) -> str:
    """The page's text, a line per block element, spaces as a browser collapses them."""
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    page = re.sub(r"</?(p|div|li|h\d|tr|td|th|section|label|br|ul|ol|table|form)\b[^>]*>", "\n", page)
    return re.sub(r"[ \t\r\n]*\n[ \t\r\n]*", "\n", re.sub(r"[ \t\r]+", " ", html.unescape(re.sub(r"<[^>]+>", "", page))))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_pages_join_a_label_to_its_value_in_the_readers_way(client, web, course, lang):
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub, realistic_result())
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    student = _text(client.get("/assignments/attention").get_data(as_text=True))
    client.post("/logout")
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    teacher = _text(client.get(f"/instructor/students/{course['alice'].id}").get_data(as_text=True))
    if lang == "zh":
        assert "代码：attention.py" in student and "审计（.md / .txt / .pdf）" in student
        assert "（已扣除迟交罚分，并计入教师对审计的复核）。目前计入成绩的是第 1 次提交。" in student
        assert re.search(r"该学生的截止时间：(\d|无)", teacher)
        assert not re.search(r"[：。] \S", student.split("作业说明")[0] + teacher)  # no such space anywhere else
    else:
        assert "Code: attention.py" in student
        assert "Audit (.md / .txt / .pdf)" in student
        assert "review of the audit. Attempt 1 counts now." in student
        assert re.search(r"Deadline for this student: \S", teacher)


def test_a_page_read_in_zh_then_in_en_has_each_languages_parentheses(client, web, course):
    """Jinja folds a filter of a constant when it compiles a template, once per process: the language of the
    first reader stayed in `'.md / .txt / .pdf'|parens` for every later one."""
    web.login(client, course["alice"])
    for lang, audit in (("zh", "审计（.md / .txt / .pdf）"), ("en", "Audit (.md / .txt / .pdf)"),
                        ("zh", "审计（.md / .txt / .pdf）")):
        client.get(f"/lang/{lang}")
        assert audit in _text(client.get("/assignments/attention").get_data(as_text=True))


def test_the_course_log_writes_points_as_the_pages_do(client, web, course):
    """Walking the log after an audit review of 12 points: the page said 12, the log "12.0"."""
    sub = web.submit(course["alice"])
    web.grade(sub, realistic_result())
    web.login(client, course["teacher"])
    client.get("/lang/zh")
    client.post(f"/instructor/submissions/{sub.id}/review", data={"score": "12.5", "comment": "好"})
    client.post(f"/instructor/submissions/{sub.id}/review", data={"score": "12", "comment": "好"})
    log = _text(client.get("/instructor/log").get_data(as_text=True))
    assert "\n12\n" in log and "\n12.5\n" in log and "12.0" not in log
