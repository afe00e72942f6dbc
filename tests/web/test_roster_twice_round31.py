"""Round 31: dropping a student already dropped, or restoring one already in the class (a second
click, an older page), redirected without a word. It now says nothing changed, in zh and en, as
removing an extension no longer there does (tests/web/test_extension_revoke_round31.py)."""

from __future__ import annotations

SAID = {"drop": {"en": "was already dropped: nothing changed.", "zh": "已经退课：没有任何改动。"},
        "restore": {"en": "is already in the class: nothing changed.", "zh": "已经在课程中：没有任何改动。"}}


def test_a_second_drop_or_restore_says_nothing_changed(client, web, course):
    alice = course["alice"]
    web.login(client, course["teacher"])
    client.get("/lang/en")
    for action in ("drop", "restore"):
        first = client.post(f"/instructor/roster/{alice.id}/{action}", follow_redirects=True).get_data(as_text=True)
        assert SAID[action]["en"] not in first, action
        for lang, text in SAID[action].items():
            client.get(f"/lang/{lang}")
            again = client.post(f"/instructor/roster/{alice.id}/{action}", follow_redirects=True)
            assert text in again.get_data(as_text=True), (action, lang)
        client.get("/lang/en")
