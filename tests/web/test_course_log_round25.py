"""Round 25, the course log read in a browser after migration 0012, zh and en.

1. A stored subject word was printed as stored on every page: "升级时清理的邮箱: email" (the label already says
   email, in English after it on a zh page), "audit review" and "3 link(s)" on zh pages. The email entries now
   show their label alone; the other two are said in the reader's language.
2. What the migration removed was invisible: an 'email cleaned' entry read " Bob@example.edu​" -> "Bob@example.edu"
   (a leading space and a zero-width space), two values that look the same. A logged value's invisible characters
   are now named (U+200B, U+0020 at an end, U+3000), spaces inside a value are left as they are. The sign-in
   links' addresses were a Python list (['a@example.edu']); they are listed with commas."""

from __future__ import annotations

import re

import pytest

from app.extensions import db
from app.models import CourseLog


def kinds_shown(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td data-kind>(.*?)</td>", html, re.S)]


def log_page(client, web, course, lang: str) -> str:
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    return client.get("/instructor/log").get_data(as_text=True)


@pytest.mark.parametrize("lang, cleaned, duplicate", [
    ("en", "email cleaned at upgrade", "duplicate email kept apart at upgrade"),
    ("zh", "升级时清理的邮箱", "升级时分开保留的重复邮箱"),
])
def test_an_email_entry_is_its_label_alone_not_followed_by_the_stored_word_email(client, web, course, lang,
                                                                                cleaned, duplicate):
    db.session.add(CourseLog(kind="email_cleaned", student_id=course["alice"].id, subject="email",
                             before="Alice@example.edu ", after="Alice@example.edu"))
    db.session.add(CourseLog(kind="email_duplicate", student_id=course["bob"].id, subject="email",
                             before="Bob@example.edu", after="Bob@example.edu #2"))
    db.session.commit()
    shown = kinds_shown(log_page(client, web, course, lang))
    assert sorted(shown) == sorted([cleaned, duplicate]), shown


@pytest.mark.parametrize("lang, review, links", [("en", "audit review", "3 links"), ("zh", "审计复核", "3 个链接")])
def test_stored_subject_words_are_said_in_the_readers_language(client, web, course, lang, review, links):
    db.session.add(CourseLog(kind="override", student_id=course["alice"].id, subject="audit review", after=7))
    db.session.add(CourseLog(kind="sign_in_links", subject="3 link(s)", after=["a@example.edu", "b@example.edu"]))
    db.session.add(CourseLog(kind="override", student_id=course["alice"].id, subject="test:test_hand_example",
                             after=1))
    db.session.commit()
    html = log_page(client, web, course, lang)
    shown = kinds_shown(html)
    colon = "：" if lang == "zh" else ": "     # round 31: the reader's colon
    assert any(s.endswith(colon + review) for s in shown), shown
    assert any(s.endswith(colon + links) for s in shown), shown
    assert any(s.endswith(colon + "test:test_hand_example") for s in shown), shown    # a test id stays as it is
    sep = "、" if lang == "zh" else ", "     # round 46: a list of the reader's language
    assert f"<code>a@example.edu{sep}b@example.edu</code>" in html      # not a Python list, ['a@example.edu', ...]
    if lang == "zh":
        assert not any("audit review" in s or "link(s)" in s for s in shown), shown


def test_invisible_characters_of_a_logged_value_are_named(client, web, course):
    db.session.add(CourseLog(kind="email_cleaned", student_id=course["alice"].id, subject="email",
                             before=" Alice@example.edu\u200b", after="Alice@example.edu"))
    db.session.add(CourseLog(kind="setting", subject="deadline", before=None, after=None, comment=""))
    db.session.add(CourseLog(kind="drop", student_id=course["bob"].id, subject="Bob Zhang\u3000x", before="a b",
                             after="<b>x</b>"))
    db.session.commit()
    html = log_page(client, web, course, "en")
    assert '<code><span class="invisible-char">U+0020</span>Alice@example.edu' \
           '<span class="invisible-char">U+200B</span></code>' in html
    assert "<code>Alice@example.edu</code>" in html
    assert "<code>a b</code>" in html and "<code>&lt;b&gt;x&lt;/b&gt;</code>" in html     # inner space; escaped
