"""Round 27, read in Chromium: the upload page's own check (app.js) stops a file of the wrong extension before
anything is sent, and said only "attention.ipynb has the wrong type for this field: use .py .py.txt"; the
server's refusal of such a file (how to export a notebook, save a Word document as PDF, a WebP image as PNG) was
never shown. The page now carries the validators' own refusal of files picked by mistake, in the user's language,
for the check to show."""

from __future__ import annotations

import html
import json
import re

import pytest

from grading.inputs import InputError, validate_audit, validate_code, validate_figure, wrong_extension_advice


def labels(client) -> dict:
    page = client.get("/assignments/attention").get_data(as_text=True)
    found = re.search(r"data-labels='([^']*)'", page)
    assert found, "the upload form carries no labels"
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.parametrize(("lang", "field", "ext", "said"), [
    ("en", "code", ".ipynb", "Export it: Jupyter Notebook: File → Download as → Python (.py)"),
    ("zh", "code", ".ipynb", "请导出：Jupyter Notebook：File → Download as → Python (.py)"),
    ("en", "code", ".txt", "Windows hides file extensions"),
    ("zh", "audit", ".docx", "这是 Word（.docx）文档。请转换"),
    ("en", "audit", ".docx", "this is a Word (.docx) document. Convert it"),
    ("zh", "figure", ".webp", "这是 WebP 图片；实验只接受 PNG 或 JPEG"),
])
def test_the_upload_page_carries_the_servers_refusal_of_a_wrong_pick(app, web, factory, lang, field, ext, said):
    factory.assignment()
    alice = factory.student(email="alice@example.edu")
    client = app.test_client()
    web.login(client, alice)
    client.get(f"/lang/{lang}")
    advice = labels(client)["advice"]
    assert said in advice[field][ext], advice[field][ext]


def test_each_advice_is_the_validators_own_refusal():
    check = {"code": validate_code, "audit": validate_audit, "figure": validate_figure}
    advice = wrong_extension_advice()
    assert {".ipynb", ".txt"} <= set(advice["code"]) and {".docx", ".doc"} <= set(advice["audit"])
    assert {".webp", ".pdf", ".svg"} <= set(advice["figure"])
    for field, picks in advice.items():
        for ext, said in picks.items():
            # a real file of the kind, longer than the sample, is refused the same way
            with pytest.raises(InputError) as info:
                check[field](f"mine{ext}", _longer(ext))
            assert (info.value.en, info.value.zh) == (said["en"], said["zh"]), (field, ext)


def _longer(ext: str) -> bytes:
    from grading.inputs import _WRONG_PICKS
    sample = next(p[ext] for p in _WRONG_PICKS.values() if ext in p)
    return sample + (b"\n" * 64 if ext in (".txt", ".ipynb", ".svg", ".rtf") else b"\x00" * 64)
