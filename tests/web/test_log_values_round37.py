"""The course log's Before/After of a regrade, a cancel and an extension showed their stored keys ("batch: 3,
runs: 2", "extra_days: 2") on zh pages too (round 37): the keys are in the reader's language, with its
punctuation."""

from __future__ import annotations

import html
import re

from app import regrading
from app.course import grant_extension


def _after_cells(page: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td><code>(.*?)</code></td>", page, re.S)]


def test_logged_keys_are_shown_in_the_readers_language(client, web, course):
    sub = web.submit(course["alice"], audit=False, figure=False)
    web.grade(sub)
    a = course["assignment"]
    batch = regrading.start(a, regrading.plan(a, "all"), course["teacher"])
    regrading.cancel(batch, course["teacher"])
    grant_extension(a, course["bob"], course["teacher"], extra_days=2, reason="ill")
    web.login(client, course["teacher"])
    client.get("/lang/zh")
    zh = "\n".join(_after_cells(client.get("/instructor/log").get_data(as_text=True)))
    assert f"批次：{batch.id}，排队的评分：1" in zh
    assert f"批次：{batch.id}，已取消：1，已在运行：0" in zh
    assert "延长天数：2" in zh
    assert not re.search(r"\b(batch|runs|extra_days|cancelled|running)\b", zh), zh
    client.get("/lang/en")
    en = "\n".join(_after_cells(client.get("/instructor/log").get_data(as_text=True)))
    assert f"batch: {batch.id}, runs queued: 1" in en
    assert "extra days: 2" in en
