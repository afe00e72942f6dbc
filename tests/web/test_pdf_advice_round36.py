"""Round 36: an audit named .pdf that is no PDF (and no other kind the engine names) is refused with what to do.

The refusal said only "The file's extension is .pdf but it is not a PDF." ("扩展名是 .pdf，但内容不是 PDF。"): the
student learnt what was wrong but not how to get a file that is taken. Now it says to export or print the audit
to PDF again, or to upload it as .md or .txt, in zh and en; the page shows it with the file's name."""

from __future__ import annotations

import pytest

from grading.inputs import InputError, validate_audit


def test_a_pdf_that_is_not_one_is_refused_with_what_to_do_in_zh_and_en():
    with pytest.raises(InputError) as caught:
        validate_audit("audit.pdf", b"hello, this is not a PDF\n" * 10)
    error = caught.value
    assert error.code == "pdf_corrupt"
    assert "not a PDF" in error.en and "print your audit to PDF again" in error.en and ".md or .txt" in error.en
    assert "不是 PDF" in error.zh and "导出或打印为 PDF" in error.zh


def test_the_upload_page_names_the_file_and_says_what_to_do(client, web, factory):
    from io import BytesIO

    from tests.web.helpers import GOOD_CODE

    a = factory.assignment()
    alice = factory.student()
    web.login(client, alice)
    for lang, said in (("en", "audit.pdf: The file&#39;s extension is .pdf but it is not a PDF. Export or print"),
                       ("zh", "audit.pdf：扩展名是 .pdf，但内容不是 PDF。请重新把审计导出或打印为 PDF")):
        client.get(f"/lang/{lang}")
        page = client.get(f"/assignments/{a.slug}").get_data(as_text=True)
        token = page.split('name="form_token" value="', 1)[1].split('"', 1)[0]
        res = client.post(f"/assignments/{a.slug}/submit", content_type="multipart/form-data", data={
            "form_token": token, "code": (BytesIO(GOOD_CODE), "attention.py"),
            "audit": (BytesIO(b"hello, this is not a PDF\n" * 10), "audit.pdf")})
        assert res.status_code in (400, 422)
        body = res.get_data(as_text=True)
        assert said in body, body[body.find("upload-error"):body.find("upload-error") + 400]
