"""Round 29: the instructor's code views show the characters that change what code looks like.

A bidi override in a comment or a string ("Trojan Source", CVE-2021-42574) makes the page show the
instructor another order of the code than Python runs, and a zero-width space is not seen at all. The
student's page of attempts and the similarity pair view showed them raw; they are now each a marked
U+XXXX where they stand (round 22 did the same for names, round 25 for the course log)."""

from __future__ import annotations

import re

from app.extensions import db
from app.models import SimilarityReport
from tests.web.helpers import GOOD_CODE

HIDDEN = ["\u202e", "\u2066", "\u2069", "\u200f", "\u200b", "\u061c", "\ufeff", "\u2060"]
# A check that reads "if not admin" and runs "if admin" (Trojan Source's "commenting out" example, in the lab).
TROJAN = ("\n\ndef check(weights):\n"
          "    ok = True  # \u202e } \u2066if ok:\u2069 \u2066 # everything is fine\n"
          "    return 'weights\u200b' + ''.join(['\u200f', '\u061c', '\ufeff', '\u2060'])\n")


def submit_code(web, student, code: str):
    from app.storage import BlobStore
    from app.submitting import Upload, submit

    return submit(web.f.assignment(), student, Upload("attention.py", code.encode()),
                  store=BlobStore(web.app.config["UPLOAD_DIR"]), max_pending=0)


def shown(page: str) -> list[str]:
    return re.findall(r'<span class="invisible-char"[^>]*>(U\+[0-9A-F]{4})</span>', page)


def test_the_students_attempts_show_each_hidden_character_of_the_code_marked(client, web, course, monkeypatch):
    # the second attempt is past MAX_HIGHLIGHT_CHARS (lowered: the same branch without 64 KB to render):
    # shown as plain text, with the same marks
    from app import instructor

    monkeypatch.setattr(instructor, "MAX_HIGHLIGHT_CHARS", 2_000)
    subs = [submit_code(web, course["alice"], GOOD_CODE.decode() + TROJAN + tail) for tail in ("", "#" * 2_000 + "\n")]
    web.login(client, course["teacher"])
    page = client.get(f"/instructor/students/{subs[0].student_id}").get_data(as_text=True)
    assert not any(ch in page for ch in HIDDEN)
    assert sorted(shown(page)) == sorted(2 * [f"U+{ord(ch):04X}" for ch in [
        "\u202e", "\u2066", "\u2069", "\u2066", "\u200b", "\u200f", "\u061c", "\ufeff", "\u2060"]])
    assert 'title="RIGHT-TO-LEFT OVERRIDE"' in page


def test_the_similarity_pair_shows_them_marked_in_and_out_of_the_matches(client, web, course):
    a = submit_code(web, course["alice"], GOOD_CODE.decode() + TROJAN)
    b = submit_code(web, course["bob"], GOOD_CODE.decode() + TROJAN)
    n = len(GOOD_CODE.decode())
    db.session.add(SimilarityReport(
        assignment_id=a.assignment_id, status="done",
        submissions_compared=2, pairs=[{"a": a.id, "b": b.id, "score": 0.9, "score_a": 0.9, "score_b": 0.9,
                                        "slices_a": [[0, n + 40]], "slices_b": [[0, n]]}]))
    db.session.commit()
    report = db.session.query(SimilarityReport).one()
    web.login(client, course["teacher"])
    page = client.get(f"/instructor/similarity/{report.id}/pairs/0").get_data(as_text=True)
    assert not any(ch in page for ch in HIDDEN)
    assert len(shown(page)) == 18 and "&lt;" not in "".join(shown(page))
