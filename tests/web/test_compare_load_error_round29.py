"""Round 29, walked in Chromium: comparing a working attempt with one whose file did not load listed 32 rows
"not run: attention.py did not load" marked failed, and never said why; the SyntaxError and its line were on the
attempt's own page only. The comparison now leads with the load error, in the reader's language, and folds the
rows away, as the result page does."""

from __future__ import annotations

import html

from app.storage import BlobStore
from app.submitting import Upload, submit
from grading.proxy import load_error_text
from grading.sandbox import StudentError
from tests.web.helpers import GOOD_CODE, realistic_result

BROKEN = "import torch\ndef f(x)\n    return x\n"


def test_a_comparison_with_an_attempt_that_did_not_load_says_why_first(client, web, course):
    alice, a = course["alice"], course["assignment"]
    store = BlobStore(web.app.config["UPLOAD_DIR"])
    first = submit(a, alice, Upload("attention.py", GOOD_CODE), store=store, max_pending=0)
    web.grade(first, realistic_result())
    second = submit(a, alice, Upload("attention (1).py", BROKEN.encode()), store=store, max_pending=0)
    result = realistic_result()
    for t in result["tests"]:
        t.update(outcome="failed", points=0,
                 feedback={"en": "not run: attention.py did not load", "zh": "未运行：attention.py 无法导入"})
    error = load_error_text(StudentError("SyntaxError", "expected ':'", 2, 9), source=BROKEN)
    result["load_error"] = error      # as the runner stores a file that did not load
    result["message"] = {"en": f"attention.py did not load: {error['en']}", "zh": f"attention.py 无法导入：{error['zh']}"}
    web.grade(second, result)
    web.login(client, alice)
    said = {"en": ("Attempt 2: attention (1).py did not load, so none of its tests could run.",
                   "SyntaxError at line 2, column 9: expected ':'"),
            "zh": ("第 2 次提交：attention (1).py 无法导入，所以它的测试都没有运行。", "第 2 行第 9 列出现 SyntaxError")}
    for lang, (lead, error) in said.items():
        client.get(f"/lang/{lang}")
        page = html.unescape(client.get(f"/submissions/compare?a={first.id}&b={second.id}").get_data(as_text=True))
        box = page[page.index('id="cmp-tests"'):]
        assert lead in box and error in box, box[:1500]
        # the error before the rows, which are folded away under it
        assert box.index(error) < box.index("<details>") < box.index("test_hand_example")
        assert f'href="/submissions/{second.id}#load-error"' in box
    # two attempts that both loaded: no such lead, rows shown as before
    third = submit(a, alice, Upload("attention.py", GOOD_CODE), store=store, max_pending=0)
    web.grade(third, realistic_result(fail_mask=True))
    page = client.get(f"/submissions/compare?a={first.id}&b={third.id}").get_data(as_text=True)
    assert "data-load-error" not in page and "<details>" not in page[page.index('id="cmp-tests"'):]
