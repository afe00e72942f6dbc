"""Round 46: the API docs page on zh pages. Its reference (the OpenAPI description) is written in English only: the
page said nothing of it, and the English text sat in a page whose <html lang> is zh-CN, so a screen reader read it
with Chinese rules (WCAG 3.1.2, language of parts)."""

from __future__ import annotations

import re


def test_the_api_reference_is_marked_english_and_the_zh_page_says_it_is(client, web, course):
    web.login(client, course["alice"])
    client.get("/lang/zh")
    zh = client.get("/api/v1/docs").get_data(as_text=True)
    assert 'lang="zh-CN"' in zh
    assert "下面的接口说明只有英文版" in zh
    assert '<p lang="en">Submit an attempt</p>' in zh   # round 46 mend: one summary, exactly (was "or any capital")
    # every summary, description and table cell of the reference is marked as English
    summaries = re.findall(r"<h2><code>[A-Z]+ /api/v1[^<]*</code></h2>\s*<p( lang=\"en\")?>", zh)
    assert summaries and all(summaries), summaries
    assert zh.count('<td lang="en">') >= 20
    client.get("/lang/en")
    en = client.get("/api/v1/docs").get_data(as_text=True)
    assert "English only" not in en and "api-english-note" not in en
