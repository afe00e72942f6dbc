"""Round 21: the form that picks two attempts to compare reads as a sentence in zh and en, and
each list's label is a word of its own. The zh form was built from fragments around the lists,
"比较第 [2] 次与第 [1]": its second 次 was missing and the second list's label was "次与第"."""

from __future__ import annotations

import re

import pytest


def compare_form(html: str) -> tuple[str, dict[str, str], list[str]]:
    """(the form's text with each list as its selected option, label of each list, every option)."""
    form = re.search(r'<form[^>]*class="compare-form[^"]*"[^>]*>(.*?)</form>', html, re.S).group(1)
    labels = dict(re.findall(r'<label for="(cmp-[ab])">([^<]*)</label>', form))
    options = re.findall(r"<option[^>]*>([^<]*)</option>", form)
    shown = re.sub(r"<select[^>]*>.*?<option[^>]*selected[^>]*>([^<]*)</option>.*?</select>", r"[\1]", form, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", shown)).strip(), labels, options


@pytest.mark.parametrize("lang, sentence, labels, option", [
    ("en", "Compare [Attempt 2] with [Attempt 3] Compare", {"cmp-a": "Compare", "cmp-b": "with"}, "Attempt 1"),
    ("zh", "比较 [第 2 次提交] 与 [第 3 次提交] 比较", {"cmp-a": "比较", "cmp-b": "与"}, "第 1 次提交"),
])
def test_compare_form_reads_as_a_sentence_on_the_assignment_and_compare_pages(client, web, course, lang,
                                                                               sentence, labels, option):
    subs = [web.submit(course["alice"]) for _ in range(3)]
    for s in subs:
        web.grade(s)
    web.login(client, course["alice"])
    client.get(f"/lang/{lang}")
    for url in (f"/assignments/{course['assignment'].slug}", f"/submissions/compare?a={subs[1].id}&b={subs[2].id}"):
        text, got_labels, options = compare_form(client.get(url).get_data(as_text=True))
        assert text == sentence, (url, text)
        assert got_labels == labels and option in options and len(options) == 6, (url, got_labels, options)
