"""Round 29, read in Chromium in zh: labels and a sentence on the student's pages ended in English punctuation
put next to the translated text by the template ("状态: 已评分", "提交于: …", "代码: attention.py", a
measurement's "…的最大偏差: 1.04e-07", "参见 API 文档."). The punctuation is now part of the message, so
each language has its own ("状态：", "参见 API 文档。")."""

from __future__ import annotations

import html
import re

from app.storage import BlobStore
from app.submitting import Upload, submit
from tests.web.helpers import GOOD_CODE, realistic_result

# Chinese text followed by an ASCII colon or full stop that ends a label or a sentence
_ENGLISH_STOP = re.compile(r"[\u4e00-\u9fff\uff09][:.](?=\s|<|$)")


def _text(page: str) -> str:
    """What a reader sees: tags and code (Python's own words, file names) removed."""
    page = re.sub(r"<(script|style|code|pre)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "<", page))


def test_the_students_pages_use_chinese_punctuation_after_chinese_text(client, web, course):
    alice, a = course["alice"], course["assignment"]
    store = BlobStore(web.app.config["UPLOAD_DIR"])
    first = submit(a, alice, Upload("attention.py", GOOD_CODE), store=store, max_pending=0)
    web.grade(first, realistic_result())
    second = submit(a, alice, Upload("attention.py", GOOD_CODE), store=store, max_pending=0)
    web.grade(second, realistic_result(fail_mask=True))
    web.login(client, alice)
    client.get("/lang/zh")
    pages = {"assignment": "/assignments/attention", "result": f"/submissions/{second.id}",
             "compare": f"/submissions/compare?a={first.id}&b={second.id}", "tokens": "/account/tokens"}
    for name, url in pages.items():
        text = _text(client.get(url).get_data(as_text=True))
        found = [text[max(0, m.start() - 20):m.end() + 5] for m in _ENGLISH_STOP.finditer(text)]
        assert found == [], (name, found)
    text = _text(client.get(f"/submissions/{second.id}").get_data(as_text=True))
    assert "状态：" in text and "参见<API 文档<。" in _text(client.get("/account/tokens").get_data(as_text=True))
    client.get("/lang/en")
    assert "Status:" in _text(client.get(f"/submissions/{second.id}").get_data(as_text=True))
    page = client.get("/account/tokens").get_data(as_text=True)
    assert 'See the <a href="/api/v1/docs">API documentation</a>.</p>' in page     # the link stays a link
