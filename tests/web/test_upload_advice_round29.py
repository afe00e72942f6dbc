"""Round 29, walked in Chromium: a student picking an iPhone photo (heatmap.heic) as the figure read only
"heatmap.heic has the wrong type for this field: use .png .jpg .jpeg", although the assignment page promises
that "WebP, HEIC and other formats are refused with how to convert them" and the server has that advice.
The page's advice came from a hand-kept list of extensions that had left out HEIC/HEIF, AVIF, PSD and ICO
(figure) and WPS, web pages and plain-text formats (audit). Now every extension the validators name is in it."""

from __future__ import annotations

import ast
import inspect

import pytest

from grading import inputs
from grading.inputs import wrong_extension_advice
from tests.web.test_upload_advice_round27 import (
    test_the_upload_page_carries_the_servers_refusal_of_a_wrong_pick as page_carries,
)


def _extensions_named_in(*functions) -> set[str]:
    """The file extensions (string constants such as ".heic") a validator's source names."""
    found: set[str] = set()
    for fn in functions:
        for node in ast.walk(ast.parse(inspect.getsource(fn))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value[:1] == "." \
                    and node.value[1:].replace("~", "").isalnum():
                found.add(node.value)
    return found


def test_every_format_the_figure_refusal_names_is_advised_on_the_page_before_uploading():
    named = _extensions_named_in(inputs._sniff_figure_format)
    assert {".heic", ".heif", ".avif", ".psd", ".ico", ".webp"} <= named      # the reading itself works
    assert named <= set(wrong_extension_advice()["figure"])


def test_every_document_the_audit_refusal_names_is_advised_on_the_page_before_uploading():
    named = _extensions_named_in(inputs._refuse_audit_document, inputs._audit_document_kind, inputs._audit_precheck)
    named |= set(inputs._AUDIT_DOCUMENT_EXTENSIONS) | set(inputs._HTML_EXTENSIONS) | set(inputs._PLAIN_TEXT_EXTENSIONS)
    allowed = set(inputs.AUDIT_TEXT_EXTENSIONS) | set(inputs.AUDIT_PDF_EXTENSIONS)
    assert {".wps", ".html", ".tex"} <= named
    assert named - allowed <= set(wrong_extension_advice()["audit"])


@pytest.mark.parametrize(("lang", "field", "ext", "said"), [
    ("zh", "figure", ".heic", "这是 HEIC 图片；实验只接受 PNG 或 JPEG：请导出或另存为 PNG。iPhone 照片默认是 HEIC 格式"),
    ("en", "audit", ".wps", "this is a WPS document. Convert it: in Word or WPS, File → Save As (or Export) → PDF"),
], ids=["zh-heic", "en-wps"])
def test_the_page_carries_the_advice_in_the_users_language(app, web, factory, lang, field, ext, said):
    page_carries(app, web, factory, lang, field, ext, said)       # round 27's check, for the formats it missed
