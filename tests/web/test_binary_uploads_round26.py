"""Round 26: a file that is not text, uploaded in place of the code, the audit or the figure, is refused with
what it is and what to do instead, in English and Chinese.

Before, a ZIP, a screenshot, a .pyc or a NumPy file uploaded as attention.py was "contains NUL bytes: it is
a binary file, not text" whatever it was, and a PDF uploaded as attention.py was "not valid UTF-8 ... It
looks like GBK/GB18030 (a Chinese Windows encoding)", a cause it does not have. The same files uploaded as
the audit (.md) or the figure (.png) were "NUL bytes" or "not any image format we recognise". Each refusal
costs the web process a bounded amount of CPU, as the other upload tests measure it."""

from __future__ import annotations

import gzip
import importlib.util
import io
import marshal
import pickle
import tarfile
import zipfile

import numpy as np
import pytest
from PIL import Image

from app.extensions import db
from app.models import Submission
from grading.inputs import InputError, validate_audit, validate_code, validate_figure
from tests.web.helpers import AUDIT_MD, GOOD_CODE, png_bytes
from tests.web.test_api import upload
from tests.web.test_decode_load import valid_audit_pdf
from tests.web.test_uploads_round18 import refused, timed


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in members.items():
            z.writestr(name, body)
    return buf.getvalue()


def _tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        info = tarfile.TarInfo("attention.py")
        info.size = len(GOOD_CODE)
        t.addfile(info, io.BytesIO(GOOD_CODE))
    return buf.getvalue()


def _image(fmt: str) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), (20, 90, 200)).save(buf, fmt)
    return buf.getvalue()


def _npy() -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.eye(3, dtype=np.float32))
    return buf.getvalue()


def _pyc() -> bytes:
    return importlib.util.MAGIC_NUMBER + b"\x00" * 12 + marshal.dumps(compile(GOOD_CODE, "attention.py", "exec"))


# (file, words the English message must name, words the Chinese message must name)
NOT_TEXT = {
    "zip": (lambda: _zip({"hw2/attention.py": GOOD_CODE}), ["ZIP archive", "Extract"], ["ZIP 压缩包", "解压"]),
    "tar.gz": (lambda: gzip.compress(_tar()), ["gzip archive"], ["gzip 压缩包"]),
    "tar": (_tar, ["tar archive"], ["tar 归档"]),
    "screenshot png": (lambda: _image("PNG"), ["PNG image"], ["PNG 图片"]),
    "photo jpeg": (lambda: _image("JPEG"), ["JPEG image"], ["JPEG 图片"]),
    "gif": (lambda: _image("GIF"), ["GIF image"], ["GIF 图片"]),
    "pdf": (lambda: valid_audit_pdf(3), ["PDF"], ["PDF 文件"]),
    "docx": (lambda: _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>"}),
             ["Word document"], ["Word 文档"]),
    "pyc": (_pyc, ["compiled Python bytecode"], ["字节码"]),
    "npy": (_npy, ["NumPy array"], ["NumPy 数组"]),
    "torch.save": (lambda: _zip({"archive/data.pkl": pickle.dumps({"w": [1.0]}), "archive/version": b"3\n"}),
                   ["torch.save"], ["torch.save"]),
    "pickle": (lambda: pickle.dumps({"weights": list(range(50))}, protocol=4), ["pickle"], ["pickle"]),
}


def _says(message: dict, en_words: list[str], zh_words: list[str]) -> None:
    for word in en_words:
        assert word in message["en"], (word, message["en"])
    for word in zh_words:
        assert word in message["zh"], (word, message["zh"])
    # what was seen, not a guess: no NUL-byte generality and no encoding diagnosis for a file that is no text
    for wrong in ("NUL", "GBK", "UTF-8 (first bad byte"):
        assert wrong not in message["en"] and wrong not in message["zh"], message


def refusal(validate, filename: str, kind: str, code: str) -> InputError:
    """``validate(filename, <a file of kind>)``'s refusal: its code, and the kind named in both languages."""
    make, en_words, zh_words = NOT_TEXT[kind]
    with pytest.raises(InputError) as caught:
        validate(filename, make())
    assert caught.value.code == code
    _says(caught.value.message, en_words, zh_words)
    return caught.value


@pytest.mark.parametrize("kind", list(NOT_TEXT))
def test_a_file_that_is_not_text_given_as_the_code_is_named_in_both_languages(kind):
    error = refusal(validate_code, "attention.py", kind, "code_binary")
    if kind == "pyc":   # where the source is
        assert "__pycache__" in error.en and "__pycache__" in error.zh


@pytest.mark.parametrize("kind", ["zip", "tar.gz", "tar", "gif", "pyc", "npy", "torch.save", "pickle"])
def test_a_file_that_is_not_text_given_as_the_audit_is_named_in_both_languages(kind):
    refusal(validate_audit, "audit.md", kind, "audit_binary")


@pytest.mark.parametrize("kind", ["zip", "tar.gz", "tar", "pyc", "npy", "torch.save", "pickle"])
def test_a_file_that_is_not_an_image_given_as_the_figure_is_named_in_both_languages(kind):
    error = refusal(validate_figure, "heatmap.png", kind, "figure_bad_type")
    assert "not a PNG or JPEG image" in error.en and "extension '.png'" in error.en


def test_each_field_of_the_api_refuses_a_zip_saying_so_with_bounded_cost(client, factory, course):
    token = factory.token(course["alice"])
    archive = _zip({"hw2/attention.py": GOOD_CODE, "hw2/audit.md": AUDIT_MD})
    for fields, code, status in (
            ({"code": archive}, "code_binary", 422),
            ({"audit": (io.BytesIO(archive), "audit.md")}, "audit_binary", 422),
            ({"audit": (io.BytesIO(AUDIT_MD), "audit.md"), "figure": (io.BytesIO(archive), "heatmap.png")},
             "figure_bad_type", 415)):
        resp, cpu, wall = timed(lambda fields=fields: upload(client, token, **fields))
        _says(refused(resp, code, status), ["ZIP archive", "Extract"], ["ZIP 压缩包", "解压"])
        assert cpu < 0.2 and wall < 1.0


def test_the_student_form_shows_what_the_uploaded_file_is(client, web, course):
    web.login(client, course["alice"])
    slug = course["assignment"].slug
    resp = client.post(f"/assignments/{slug}/submit", data={
        "code": (io.BytesIO(_zip({"attention.py": GOOD_CODE})), "attention.py"),
        "audit": (io.BytesIO(AUDIT_MD), "audit.md"), "figure": (io.BytesIO(png_bytes()), "heatmap.png"),
    }, content_type="multipart/form-data", headers={"Accept-Language": "zh-CN"})
    assert "ZIP 压缩包" in resp.get_data(as_text=True), resp.status_code
    assert db.session.query(Submission).count() == 0


# Text is never sniffed: these start with the bytes of a format's magic and are read as the text they are.
def test_text_that_begins_like_a_file_format_is_read_as_text(client, factory, course):
    token = factory.token(course["alice"])
    code = b"BM = 1  # BMP's magic\n" + GOOD_CODE
    # GBK, not UTF-8: "漱壕" is CA FE BA BE, a Java class's magic number
    for first in ("BMI 与注意力无关。", "漱壕：与注意力无关。"):
        audit = (first + AUDIT_MD.decode()).encode("gb18030")
        resp = upload(client, token, code=code, audit=(io.BytesIO(audit), "audit.txt"))
        assert resp.status_code == 202, resp.json
        assert db.session.get(Submission, resp.json["id"]).audit_text.startswith(first)


@pytest.mark.parametrize("kind", ["zip", "tar.gz", "npy"])
def test_a_file_named_pdf_that_is_something_else_is_named(kind):
    error = refusal(validate_audit, "audit.pdf", kind, "pdf_corrupt")
    assert "not a PDF" in error.en and "extension '.pdf'" in error.en
