"""Round 24: the page language follows the reader's preferred language by its primary subtag.

`Accept-Language: zh-Hant-TW, en;q=0.5` (a Taiwanese browser) got English: Werkzeug's best_match
tries exact tags first and only falls back to `zh` for `zh-Hant-TW` when nothing matched exactly, so
the English the reader liked less won. q=0 means "not this language"."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("header, lang", [
    ("zh-Hant-TW, en;q=0.5", "zh"), ("zh-TW,zh;q=0.9,en-US;q=0.8,en;q=0.7", "zh"), ("zh-HK, en;q=0.9", "zh"),
    ("ZH-hant;q=0.8, en;q=0.7", "zh"), ("zh_CN, en;q=0.5", "zh"), ("fr-FR, en-GB;q=0.8, zh;q=0.5", "en"),
    ("zh-CN;q=0.5, en;q=0.9", "en"), ("zh;q=0, en", "en"), ("en;q=0, zh;q=0", "zh"), ("*", "zh"),
    ("zz;q=abc", "zh"), (",,,;;;", "zh"), ("en-Latn-US, zh;q=0.1", "en"),
])
def test_the_sign_in_page_speaks_the_readers_most_wanted_language_we_have(client, header, lang):
    html = client.get("/login", headers={"Accept-Language": header}).get_data(as_text=True)
    assert ('lang="zh-CN"' in html[:300]) == (lang == "zh"), header
