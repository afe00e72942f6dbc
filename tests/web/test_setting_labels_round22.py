"""Round 22: a saved course setting is named in the reader's language, and its logged values read as
the settings form reads them. The saved message said the stored field names ("设置已保存：
late_penalty_per_day, cooldown_seconds。" on zh pages), the course log's What column "课程设置:
late_penalty_per_day", its Before/After the stored fraction (0.1 -> 0.2 for a form that said 10 ->
20 %), True/False for publishing, and the new deadline as bare UTC beside local times."""

from __future__ import annotations

import re

import pytest

from tests.web.test_course_management import settings_form
from tests.web.test_local_times_round22 import bare_times

WORDS = {"en": {"late_penalty_per_day": "Late penalty", "cooldown_seconds": "Wait between attempts",
                "deadline": "Deadline", "published": "Published", "no": "no", "yes": "yes"},
         "zh": {"late_penalty_per_day": "迟交扣分", "cooldown_seconds": "两次提交的最短间隔",
                "deadline": "截止时间", "published": "发布", "no": "否", "yes": "是"}}
KEYS = ("late_penalty_per_day", "cooldown_seconds", "late_days_allowed", "published")


def cells(html: str) -> list[list[str]]:
    table = html.split('class="small log-table"', 1)[1].split("</table>", 1)[0]
    return [[re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
            for r in re.findall(r"<tr>(.*?)</tr>", table, re.S)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_saved_settings_and_their_log_speak_the_readers_language(client, web, course, lang):
    w = WORDS[lang]
    web.login(client, course["teacher"])
    client.get(f"/lang/{lang}")
    page = client.post("/instructor/settings", data=settings_form(
        deadline="2026-12-25T07:59", late_penalty_percent="20", cooldown_seconds="60", published=""),
        follow_redirects=True).get_data(as_text=True)
    flash = re.search(r'<div class="flash ok"[^>]*>(.*?)</div>', page, re.S).group(1)
    assert all(k not in flash for k in KEYS), flash
    assert all(w[k] in flash for k in ("late_penalty_per_day", "cooldown_seconds", "deadline", "published")), flash
    log = client.get("/instructor/log").get_data(as_text=True)
    # round 31: the label and the setting are joined by the reader's colon ("课程设置：迟交扣分")
    rows = {re.split("[:：]", r[2], maxsplit=1)[1].strip(): (r[4], r[5]) for r in cells(log)
            if len(r) == 7 and re.search("[:：]", r[2])}
    assert rows[w["late_penalty_per_day"]] == ("10%", "20%")
    assert rows[w["cooldown_seconds"]] == ("0", "60")
    assert rows[w["published"]] == (w["yes"], w["no"])
    assert "2026-12-24 23:59" in rows[w["deadline"]][1]           # the UTC text, without script
    assert bare_times(log) == []                                     # ... inside a <time> shown locally
    assert all(k not in log.split('class="small log-table"', 1)[1] for k in KEYS)
