"""Round 31, walked in Chromium with three files chosen: the server's refusals named no file ("The file's
extension is .pdf but it is not a PDF", "The audit contains NUL characters") or another kind than the student
picked ("The JPEG image is damaged" for photo.png), where the page's own checks lead with the file's name
("audit.docx: ..."). Every refusal of one file now leads with that file's name, in both languages."""

from __future__ import annotations

import html
import io

import pytest

from app.models import Submission
from tests.web.helpers import AUDIT_MD, GOOD_CODE, png_bytes

CASES = {
    "pdf_not_pdf": ({"audit": (b"hello, this is not a PDF\n" * 10, "审计报告.pdf")}, "审计报告.pdf"),
    "damaged_jpeg_named_png": ({"figure": (b"\xff\xd8\xff\xe0" + b"\x00" * 300, "photo.png")}, "photo.png"),
    "binary_audit": ({"audit": (bytes(range(256)) * 4, "notes.md")}, "notes.md"),
    "empty_code": ({"code": (b"", "my_attention.py")}, "my_attention.py"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_refused_file_is_named_first_in_both_languages(client, web, course, case):
    fields, name = CASES[case]
    files = {"code": (GOOD_CODE, "attention.py"), "audit": (AUDIT_MD, "audit.md"), "figure": (png_bytes(), "heatmap.png")}
    files.update(fields)
    web.login(client, course["alice"])
    for lang, colon in (("en", ": "), ("zh", "：")):
        client.get(f"/lang/{lang}")
        resp = client.post(f"/assignments/{course['assignment'].slug}/submit", content_type="multipart/form-data",
                           data={k: (io.BytesIO(data), fname) for k, (data, fname) in files.items()})
        assert resp.status_code >= 400
        page = html.unescape(resp.get_data(as_text=True))
        error = page[page.index('id="upload-error"'):]
        error = error[error.index(">") + 1:error.index("</div>")]
        assert error.startswith(name + colon), (lang, error)
        assert error.count(name) == 1, error
    assert Submission.query.count() == 0
