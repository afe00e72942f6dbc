"""Round 46: the assignment page's wait between attempts said "300 s" on zh pages, where every other duration
of the pages is in 秒 ("评分用时 0.39 秒")."""

from __future__ import annotations

import re

from app.extensions import db


def test_the_wait_between_attempts_is_said_in_the_readers_language(client, web, course):
    course["assignment"].cooldown_seconds = 300
    db.session.commit()
    web.login(client, course["alice"])
    client.get("/lang/zh")
    zh = client.get("/").get_data(as_text=True)
    assert "<dd>300 秒</dd>" in zh and not re.search(r"<dd>300 s</dd>", zh)
    client.get("/lang/en")
    assert "<dd>300 s</dd>" in client.get("/").get_data(as_text=True)
