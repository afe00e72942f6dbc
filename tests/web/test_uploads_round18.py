"""Red-team round 18 on uploads and the pages a student reads: hostile or odd files sent through the
API and the form. Each costs the web process a bounded amount of CPU and wall time (measured here with
``time.process_time`` for this process, the web, and ``time.perf_counter``; the decoding child's CPU is
not the web's), is refused with a clear message in both languages and nothing stored, or, when it is an
honest odd-but-valid file, is accepted and read as the student sees it."""

from __future__ import annotations

import io
import struct
import time
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from werkzeug.datastructures import MultiDict

from app.extensions import db
from app.models import Submission
from tests.audit.helpers import MEASURED_OK, make_heatmap
from tests.web.helpers import GOOD_CODE
from tests.web.test_api import bearer, upload

HONEST = Path(__file__).resolve().parents[1] / "audit" / "honest"
AUDIT_LINE = "The heatmap does not prove that key 1 causes the output."
# Bounds of the web process's own work per upload. Measured here (2 shared cores): 0.01-0.05 s of the
# test process's CPU for a refused file, under 0.7 s of wall for the slowest accepted decode.
WEB_CPU_S = 1.0
WALL_S = 5.0


@pytest.fixture(autouse=True)
def _decoder_started():
    from grading.decode import warm

    warm()


def timed(call: Callable[[], object]) -> tuple[object, float, float]:
    """(result, CPU seconds of this process, wall seconds) of ``call()``."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    out = call()
    return out, time.process_time() - cpu0, time.perf_counter() - wall0


def refused(resp, code: str, status: int | None = None) -> dict:
    """The API's refusal: its code, a message in both languages, and nothing stored."""
    body = resp.json
    assert body is not None and body["code"] == code, (resp.status_code, body)
    if status is not None:
        assert resp.status_code == status, (resp.status_code, body)
    assert body["message"]["en"] and body["message"]["zh"] and body["message"]["en"] != body["message"]["zh"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in body["message"]["zh"])
    assert db.session.query(Submission).count() == 0, "nothing is stored after a refusal"
    return body["message"]


def _png(im: Image.Image, **save) -> bytes:
    buf = io.BytesIO()
    im.save(buf, "PNG", **save)
    return buf.getvalue()


def _jpeg(im: Image.Image, **save) -> bytes:
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=95, **save)
    return buf.getvalue()


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


# --- figures ----------------------------------------------------------------------------------------


def test_an_exif_rotated_photo_of_a_2x3_heatmap_is_read_as_the_2x3_grid_the_page_shows(client, factory, course):
    # A phone saves its pixels sideways with an EXIF orientation; the result page (a browser) shows the
    # figure upright, and the student writes about that 2x3 heatmap. The checker read the stored pixels
    # as a 3x2 grid: the audit was "about another figure" (shape it does not have) and lost its concepts.
    from rubric.audit import grade_audit, load_checklist
    from rubric.audit.figure import analyse_figure

    upright = Image.open(io.BytesIO(make_heatmap()))
    exif = Image.Exif()
    exif[0x0112] = 6                                   # "rotate 90° clockwise to display"
    sideways = _jpeg(upright.transpose(Image.Transpose.ROTATE_90), exif=exif)
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, figure=(io.BytesIO(sideways), "IMG_2041.jpg")))
    assert resp.status_code == 202, resp.json
    assert cpu < WEB_CPU_S and wall < WALL_S
    assert analyse_figure(sideways).shape == (2, 3)
    checklist = load_checklist()
    text = (HONEST / "en_only.md").read_text(encoding="utf-8")
    as_seen = grade_audit(text, _jpeg(upright), MEASURED_OK, checklist)
    rotated = grade_audit(text, sideways, MEASURED_OK, checklist)
    assert rotated["score"] == as_seen["score"] >= 12
    assert not [f for f in rotated["flags"] if f["kind"] == "figure"]


# --- the request itself -----------------------------------------------------------------------------


def _many_parts(n: int) -> MultiDict:
    return MultiDict([("code", (io.BytesIO(GOOD_CODE), "attention.py"))]
                     + [(f"extra{i}", (io.BytesIO(b"x"), f"x{i}.py")) for i in range(n)])


def test_a_small_upload_of_thousands_of_parts_is_refused_for_its_parts_not_called_too_large(
        client, factory, course, web):
    # 2,000 one-byte files (~300 KiB) went past werkzeug's form-part limit, whose 413 said "the upload is
    # too large: the limit is 8 MiB": the student was told to shrink files that were small.
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: client.post("/api/v1/submissions", data=_many_parts(2000), headers=bearer(token),
                                                content_type="multipart/form-data"))
    assert resp.status_code == 413
    message = refused(resp, "form_too_complex")
    assert "within the 8 MiB limit" in message["en"] and "1000 at most" in message["en"]
    assert "没有超过 8 MiB" in message["zh"] and "最多 1000 个" in message["zh"]
    assert cpu < WEB_CPU_S and wall < WALL_S
    web.login(client, course["bob"])
    client.get("/lang/en")
    page = client.post("/assignments/attention/submit", data=_many_parts(2000), content_type="multipart/form-data")
    assert page.status_code == 413 and "more parts than the server reads" in page.get_data(as_text=True)


def test_an_upload_over_the_size_limit_is_still_called_too_large(client, factory, course, app):
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024
    token = factory.token(course["alice"])
    resp = upload(client, token, code=b"x = 1\n" * 20_000)
    assert resp.status_code == 413 and resp.json["code"] == "too_large", resp.json


def test_two_files_in_the_code_field_are_refused_naming_both_not_the_first_graded_silently(
        client, factory, course, web):
    # An API client (or a form built by a script) sent attention.py and test_attention.py in "code":
    # the first was taken and graded without a word about the second.
    token = factory.token(course["alice"])
    both_files = MultiDict([("code", (io.BytesIO(b"import torch\n"), "test_attention.py")),
                            ("code", (io.BytesIO(GOOD_CODE), "attention.py"))])
    resp, cpu, wall = timed(lambda: client.post("/api/v1/submissions", data=both_files, headers=bearer(token),
                                                content_type="multipart/form-data"))
    assert resp.status_code == 400
    message = refused(resp, "several_files")
    assert "'test_attention.py', 'attention.py'" in message["en"] and "2 个文件" in message["zh"]
    assert cpu < WEB_CPU_S and wall < WALL_S
    web.login(client, course["bob"])
    client.get("/lang/zh")
    page = client.post("/assignments/attention/submit", content_type="multipart/form-data", data=MultiDict([
        ("code", (io.BytesIO(GOOD_CODE), "attention.py")), ("figure", (io.BytesIO(make_heatmap()), "a.png")),
        ("figure", (io.BytesIO(make_heatmap()), "b.png"))]))
    html = page.get_data(as_text=True)
    assert page.status_code == 400 and "字段「figure」中有 2 个文件" in html
    assert "请重新选择：attention.py, a.png, b.png。" in html, "the page names the files to pick again"
    assert db.session.query(Submission).count() == 0


# --- text files -------------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", ["utf-32", "utf-32-be"])
def test_code_and_audit_in_utf32_with_a_bom_are_read_not_called_nul_characters(client, factory, course, codec):
    # UTF-32's byte order mark begins with UTF-16's: the text was read as UTF-16, every other character a
    # NUL, and refused as "contains NUL characters".
    bom = {"utf-32": b"", "utf-32-be": b"\x00\x00\xfe\xff"}[codec]
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(
        client, token, code=bom + GOOD_CODE.decode().encode(codec),
        audit=(io.BytesIO(bom + f"# 审计\n\n{AUDIT_LINE}\n".encode(codec)), "audit.txt")))
    assert resp.status_code == 202, resp.json
    assert cpu < WEB_CPU_S and wall < WALL_S
    sub = db.session.get(Submission, resp.json["id"])
    assert sub.audit_text == f"# 审计\n\n{AUDIT_LINE}\n"


def _docx(members: list[tuple[str, bytes]], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


EXTERNAL_RELS = (b'<Relationships><Relationship Id="r1" TargetMode="External" '
                 b'Target="http://127.0.0.1:9/track.png" Type="image"/></Relationships>')


@pytest.mark.parametrize("name", ["audit.docx", "audit.md"])
def test_a_docx_whose_word_part_comes_after_a_large_member_is_named_a_word_document(client, factory, course, name):
    # The kind was read from the first 64 KiB only: a .docx that begins with a 100 KiB thumbnail and
    # an external relationship was "a binary file" (named .md) or a Word document without the member seen.
    docx = _docx([("[Content_Types].xml", b"<Types/>"), ("docProps/thumbnail.jpeg", bytes(range(256)) * 400),
                  ("_rels/.rels", EXTERNAL_RELS), ("word/document.xml", b"<w:document>heatmap</w:document>")],
                 zipfile.ZIP_STORED)
    assert b"word/" not in docx[:64 * 1024]
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, audit=(io.BytesIO(docx), name)))
    message = refused(resp, "audit_bad_type", 415)
    assert "Word (.docx) document" in message["en"] and "Word (.docx) 文档" in message["zh"]
    assert cpu < WEB_CPU_S and wall < WALL_S


def test_a_docx_zip_bomb_is_refused_by_its_name_table_without_inflating_anything(client, factory, course):
    # 200 MB of document.xml in a 0.2 MB file: nothing of it is inflated to tell what it is.
    bomb = _docx([("[Content_Types].xml", b"<Types/>"), ("_rels/.rels", EXTERNAL_RELS),
                  ("word/document.xml", b"A" * 200_000_000)])
    assert len(bomb) < 300_000
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, audit=(io.BytesIO(bomb), "audit.docx")))
    refused(resp, "audit_bad_type", 415)
    assert cpu < 0.2 and wall < 1.0
