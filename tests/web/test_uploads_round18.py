"""Red-team round 18 on uploads and the pages a student reads: hostile or odd files sent through the
API and the form. Each costs the web process a bounded amount of CPU and wall time (measured here with
``time.process_time`` for this process, the web, and ``time.perf_counter``; the decoding child's CPU is
not the web's), is refused with a clear message in both languages and nothing stored, or, when it is an
honest odd-but-valid file, is accepted and read as the student sees it."""

from __future__ import annotations

import gc
import io
import struct
import threading
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
from tests.audit.helpers import MEASURED_OK, make_heatmap, pdf_of
from tests.web.helpers import GOOD_CODE
from tests.web.test_api import bearer, upload
from tests.web.test_hardening import live, proxied, server, server_env  # noqa: F401 - the live service's fixtures

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
    """(result, CPU seconds of this thread, wall seconds) of ``call()``. The test client serves the
    request in this thread; the process's CPU would also count threads earlier tests left behind
    (a long-poll listener), and a collection of the whole lane's garbage is done before, not inside."""
    gc.collect()
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    out = call()
    return out, time.thread_time() - cpu0, time.perf_counter() - wall0


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
    assert "请重新选择：attention.py、a.png、b.png。" in html, "the page names the files to pick again"
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
    assert "Word (.docx) document" in message["en"] and "Word（.docx）文档" in message["zh"]
    assert cpu < WEB_CPU_S and wall < WALL_S


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_a_docx_zip_bomb_is_refused_by_its_name_table_without_inflating_anything(client, factory, course):
    # 200 MB of document.xml in a 0.2 MB file: nothing of it is inflated to tell what it is.
    bomb = _docx([("[Content_Types].xml", b"<Types/>"), ("_rels/.rels", EXTERNAL_RELS),
                  ("word/document.xml", b"A" * 200_000_000)])
    assert len(bomb) < 300_000
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, audit=(io.BytesIO(bomb), "audit.docx")))
    refused(resp, "audit_bad_type", 415)
    assert cpu < 0.2 and wall < 1.0


# --- hostile figures the web stays fast on -------------------------------------------------------


def _png_of_zeros(side: int, bit_depth: int) -> bytes:
    """A side x side RGBA PNG of zeros: a few tens of KB that inflate to side² x 4 x bit_depth/8 bytes."""
    row = b"\x00" * (1 + side * 4 * bit_depth // 8)
    ihdr = struct.pack(">IIBBBBB", side, side, bit_depth, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(row * side, 9))
            + _chunk(b"IEND", b""))


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
@pytest.mark.parametrize("bit_depth", [8, 16])
def test_a_tiny_png_that_inflates_to_the_pixel_cap_costs_the_web_no_decoding(client, factory, course, bit_depth):
    # 65 KB that inflate to 64 MiB (8-bit) or 128 MiB (16-bit) of pixels, within the 4096x4096 cap: decoded
    # in the limited child (0.5-0.7 s of wall here), accepted as what it is, a blank figure.
    bomb = _png_of_zeros(4096, bit_depth)
    assert len(bomb) < 300_000
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, figure=(io.BytesIO(bomb), "heatmap.png")))
    assert resp.status_code == 202, resp.json
    assert cpu < 0.3 and wall < WALL_S


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_an_apng_of_1500_frames_is_read_as_its_first_frame_in_bounded_time(client, factory, course):
    # Each frame differs from the one before in one pixel: 1,500 small frame chunks (a decoder that
    # played them all would pay 1,500 passes), built in 2 s.
    base = Image.open(io.BytesIO(make_heatmap())).convert("RGB")
    frames = []
    for i in range(1500):
        frame = base.copy()
        frame.putpixel((i % base.width, 0), (i % 256, 0, 0))
        frames.append(frame)
    apng = _png(frames[0], save_all=True, append_images=frames[1:])
    assert Image.open(io.BytesIO(apng)).n_frames == 1500
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, figure=(io.BytesIO(apng), "heatmap.png")))
    assert resp.status_code == 202, resp.json
    assert cpu < WEB_CPU_S and wall < WALL_S
    from rubric.audit.figure import analyse_figure

    assert analyse_figure(apng).shape == (2, 3)


def test_a_progressive_jpeg_with_sixty_scans_at_the_pixel_cap_is_decoded_in_bounded_time(client, factory, course):
    from tests.web.test_hostile_uploads import hostile

    jpeg = hostile.progressive_jpeg_with_repeated_scan(side=4096, repeats=50)    # 60 scans, cap 64
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, figure=(io.BytesIO(jpeg), "heatmap.jpg")))
    assert resp.status_code == 202, resp.json
    assert cpu < 0.3 and wall < WALL_S


def _transparent_margins(im: Image.Image) -> Image.Image:
    """The figure as plt.savefig(..., transparent=True) writes it: white margins fully transparent."""
    rgb = im.convert("RGB")
    opaque = rgb.convert("L").point(lambda v: 0 if v > 250 else 255)
    rgba = rgb.copy()
    rgba.putalpha(opaque)
    return rgba


HONEST_MODES = {
    "palette_png": lambda im: _png(im.quantize(16)),
    "grey_alpha_png": lambda im: _png(im.convert("LA")),
    "transparent_png": lambda im: _png(_transparent_margins(im)),
    "cmyk_jpeg": lambda im: _jpeg(im.convert("CMYK")),
    "grey_jpeg": lambda im: _jpeg(im.convert("L")),
    "progressive_jpeg": lambda im: _jpeg(im, progressive=True),
}


@pytest.mark.parametrize("save", HONEST_MODES.values(), ids=HONEST_MODES.keys())
def test_an_honest_heatmap_saved_in_another_mode_is_accepted_and_read_as_the_2x3_grid(client, factory, course, save):
    data = save(Image.open(io.BytesIO(make_heatmap())).convert("RGB"))
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, figure=(io.BytesIO(data), "heatmap.png")))
    assert resp.status_code == 202, resp.json
    assert cpu < WEB_CPU_S and wall < WALL_S
    from rubric.audit.figure import analyse_figure

    assert analyse_figure(data).shape == (2, 3)


@pytest.fixture
def listener():
    """A local TCP port that counts who connects: an upload's external reference must never be fetched."""
    import socket

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.3)
    yield srv
    srv.close()


def _connections(srv) -> int:
    n = 0
    while True:
        try:
            conn, _ = srv.accept()
        except TimeoutError:
            return n
        conn.close()
        n += 1


@pytest.mark.parametrize("kind", ["svg", "html"])
def test_a_figure_that_references_an_external_url_is_refused_by_its_type_and_nothing_is_fetched(
        client, factory, course, listener, kind):
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/x.png"
    data = {"svg": f'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><image href="{url}"/></svg>',
            "html": f'<html><body><img src="{url}"></body></html>'}[kind].encode()
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, figure=(io.BytesIO(data), "heatmap.png")))
    message = refused(resp, "figure_bad_type", 415)
    assert "PNG" in message["en"] and "PNG" in message["zh"]
    assert cpu < 0.2 and wall < 1.0
    assert _connections(listener) == 0


# --- PDFs ---------------------------------------------------------------------------------------------


CONTENT = f"BT /F1 12 Tf 72 700 Td ({AUDIT_LINE}) Tj ET".encode()
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def _one_page(catalog_extra: bytes = b"", page_extra: bytes = b"") -> bytes:
    return pdf_of([b"<< /Type /Catalog /Pages 2 0 R " + catalog_extra + b">>",
                 b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                 b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                 b"/Resources << /Font << /F1 5 0 R >> >> " + page_extra + b">>",
                 b"<< /Length %d >>\nstream\n" % len(CONTENT) + CONTENT + b"\nendstream", FONT])


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_a_pdf_with_javascript_and_link_actions_is_read_for_its_text_and_nothing_runs_or_is_fetched(
        client, factory, course, listener):
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
    pdf = _one_page(b"/OpenAction << /S /JavaScript /JS (app.launchURL('" + url.encode() + b"');) >> ",
                    b"/AA << /O << /S /URI /URI (" + url.encode() + b") >> >> ")
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, audit=(io.BytesIO(pdf), "audit.pdf")))
    assert resp.status_code == 202, resp.json
    assert AUDIT_LINE in db.session.get(Submission, resp.json["id"]).audit_text
    assert cpu < WEB_CPU_S and wall < WALL_S
    assert _connections(listener) == 0


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_a_pdf_of_ten_thousand_pages_is_refused_by_its_page_count_in_bounded_time(client, factory, course):
    n = 10_000
    kids = b" ".join(b"%d 0 R" % (i + 4) for i in range(n))
    pdf = pdf_of([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % n,
                b"<< /Length %d >>\nstream\n" % len(CONTENT) + CONTENT + b"\nendstream"]
               + [b"<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>"] * n)
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, audit=(io.BytesIO(pdf), "audit.pdf")))
    message = refused(resp, "pdf_too_many_pages", 422)
    assert "10000 pages" in message["en"] and "10000 页" in message["zh"]
    assert cpu < 0.3 and wall < WALL_S


def test_a_pdf_whose_page_tree_nests_three_thousand_deep_is_too_complex_not_damaged(client, factory, course):
    depth = 3000
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for i in range(depth):
        parent = b"" if i == 0 else b"/Parent %d 0 R " % (i + 1)
        objects.append(b"<< /Type /Pages /Kids [%d 0 R] /Count 1 %s>>" % (i + 3, parent))
    objects.append(b"<< /Type /Page /Parent %d 0 R /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>"
                   % (depth + 1, depth + 3, depth + 4))
    objects += [b"<< /Length %d >>\nstream\n" % len(CONTENT) + CONTENT + b"\nendstream", FONT]
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, audit=(io.BytesIO(pdf_of(objects)), "audit.pdf")))
    message = refused(resp, "pdf_too_complex", 422)
    assert "page tree depth" in message["en"]
    assert cpu < 0.3 and wall < WALL_S


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_a_pdf_with_fifty_thousand_nested_dictionaries_on_its_page_is_read_in_bounded_time(client, factory, course):
    pdf = _one_page(page_extra=b"/Junk " + b"<< /A " * 50_000 + b">>" * 50_000 + b" ")
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, audit=(io.BytesIO(pdf), "audit.pdf")))
    assert resp.status_code == 202, resp.json
    assert cpu < 0.3 and wall < WALL_S


# --- text and names -----------------------------------------------------------------------------------


def test_an_audit_in_utf16_with_a_bom_and_crlf_is_stored_as_plain_text(client, factory, course):
    text = f"# 审计\r\n\r\n{AUDIT_LINE}\r\n每一行权重之和为 1。\r\n"
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, audit=(io.BytesIO(text.encode("utf-16")), "audit.txt")))
    assert resp.status_code == 202, resp.json
    assert db.session.get(Submission, resp.json["id"]).audit_text == text.replace("\r\n", "\n")
    assert cpu < WEB_CPU_S and wall < WALL_S


def test_an_audit_in_utf8_with_nul_bytes_is_refused_as_binary_in_both_languages(client, factory, course):
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(
        client, token, audit=(io.BytesIO(f"{AUDIT_LINE}\x00\x00 热力图".encode()), "audit.md")))
    message = refused(resp, "audit_binary", 422)
    assert "NUL" in message["en"] and "NUL" in message["zh"]
    assert cpu < 0.2 and wall < 1.0


def test_a_five_megabyte_python_file_is_refused_by_its_size_before_any_decoding(client, factory, course):
    big = GOOD_CODE + b"# padding\n" * 500_000
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, code=big))
    message = refused(resp, "code_too_large", 413)
    assert "256 KiB" in message["en"] and "256 KiB" in message["zh"]
    assert cpu < 0.5 and wall < 2.0


def test_a_code_file_with_a_latin1_cookie_is_served_back_as_the_student_wrote_it(client, factory, course, web):
    code = b"# -*- coding: latin-1 -*-\n# r\xe9sum\xe9 of the lab\n" + GOOD_CODE
    token = factory.token(course["alice"])
    resp = upload(client, token, code=code)
    assert resp.status_code == 202, resp.json
    web.login(client, course["alice"])
    served = client.get(f"/submissions/{resp.json['id']}/code")
    assert served.data == code          # the bytes as uploaded; the cookie says how to read them
    from grading.inputs import code_text

    assert "# résumé of the lab" in code_text(served.data)


def test_a_file_name_of_ten_thousand_characters_is_kept_as_a_short_label(client, factory, course):
    from app.views_helpers import MAX_FILENAME_CHARS

    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, filename="注" * 10_000 + ".py"))
    assert resp.status_code == 202, resp.json
    name = db.session.get(Submission, resp.json["id"]).code_filename
    assert len(name) == MAX_FILENAME_CHARS and name.endswith(".py")
    assert cpu < WEB_CPU_S and wall < WALL_S


@pytest.mark.parametrize("raw", ["heatmap\u202egnp.exe.png", "..\\..\\\u2066heat\u2069map.png", "\u200f\u202e.png"])
def test_bidi_controls_and_folders_are_removed_from_a_figure_name_on_every_page_and_download(
        client, factory, course, web, raw):
    # U+202E (right-to-left override) shows "heatmap\u202egnp.exe.png" as "heatmapgnp.exe.png" reversed:
    # a name that reads as another file's. Stored, shown and sent back without it.
    token = factory.token(course["alice"])
    resp = upload(client, token, figure=(io.BytesIO(make_heatmap()), raw))
    assert resp.status_code == 202, resp.json
    sub = db.session.get(Submission, resp.json["id"])
    assert not any(0x200E <= ord(ch) <= 0x202E or 0x2066 <= ord(ch) <= 0x2069 for ch in sub.figure_filename)
    assert "\\" not in sub.figure_filename and "/" not in sub.figure_filename and sub.figure_filename.endswith(".png")
    web.login(client, course["alice"])
    disposition = client.get(f"/submissions/{sub.id}/figure").headers["Content-Disposition"]
    assert "%E2%80%AE" not in disposition and "%E2%81%A6" not in disposition and "%E2%80%8F" not in disposition


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_an_empty_figure_on_the_form_is_named_empty_in_both_languages_and_the_files_to_pick_again_are_listed(
        client, web, course):
    web.login(client, course["alice"])
    for lang, empty, again in (("en", "The figure file is empty (0 bytes).", "Choose these again: attention.py, audit.md, "
                                "heatmap.png."), ("zh", "图文件是空的（0 字节）。", "请重新选择：attention.py、audit.md、heatmap.png。")):
        client.get(f"/lang/{lang}")
        resp, cpu, wall = timed(lambda: client.post("/assignments/attention/submit", content_type="multipart/form-data",
                                                    data={"code": (io.BytesIO(GOOD_CODE), "attention.py"),
                                                          "audit": (io.BytesIO(AUDIT_LINE.encode()), "audit.md"),
                                                          "figure": (io.BytesIO(b""), "heatmap.png")}))
        html = resp.get_data(as_text=True)
        assert resp.status_code == 422 and empty in html and again in html, lang
        assert cpu < WEB_CPU_S and wall < WALL_S
    assert db.session.query(Submission).count() == 0


def test_the_same_upload_sent_twice_at_once_makes_two_numbered_attempts_and_no_error(app, factory, course):
    # A double click without JavaScript, or an API client retrying: both requests are answered, the
    # student's uploads are serialised (distinct attempt numbers) and the first-upload race on the new
    # blobs is retried, never a 500. Since round 19 a student has one decode at a time: a send that
    # arrives while the other is being decoded is refused 429 decode_in_progress (nothing stored);
    # sent with an Idempotency-Key, the two are one attempt (test_uploads_round19.py).
    token = factory.token(course["alice"])
    figure, answers = make_heatmap(), []
    start = threading.Barrier(2)

    def send() -> None:
        with app.app_context():
            c = app.test_client()
            start.wait()
            r = upload(c, token, audit=(io.BytesIO(AUDIT_LINE.encode()), "audit.md"),
                       figure=(io.BytesIO(figure), "heatmap.png"))
            answers.append((r.status_code, (r.json or {}).get("attempt")))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(answers) in ([(202, 1), (202, 2)], [(202, 1), (429, None)]), answers
    subs = db.session.query(Submission).all()
    assert len({(s.code_sha256, s.audit_sha256, s.figure_sha256) for s in subs}) == 1


# --- the result page ------------------------------------------------------------------------------------


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_the_result_page_says_why_an_accepted_figure_earned_nothing_in_the_students_language(
        client, factory, course, web):
    # A blank PNG passes the upload (it is a valid image) and the checker says what it saw: the page
    # must show that reason, in English and in Chinese, with the figure beside it.
    from rubric.audit import grade_audit, load_checklist
    from tests.web.helpers import realistic_result

    blank = _png(Image.new("RGB", (450, 330), "white"))
    token = factory.token(course["alice"])
    text = (HONEST / "en_only.md").read_text(encoding="utf-8")
    resp = upload(client, token, audit=(io.BytesIO(text.encode()), "audit.md"), figure=(io.BytesIO(blank), "h.png"))
    assert resp.status_code == 202, resp.json
    audit = grade_audit(text, blank, MEASURED_OK, load_checklist())
    flags = [f["message"] for f in audit["flags"] if f["kind"] == "figure"]
    assert flags, audit["flags"]
    result = realistic_result()
    result["audit"] = audit
    sub = db.session.get(Submission, resp.json["id"])
    web.grade(sub, result)
    web.login(client, course["alice"])
    from markupsafe import escape

    for lang in ("en", "zh"):
        client.get(f"/lang/{lang}")
        html = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
        assert str(escape(flags[0][lang])) in html, lang
        assert f"/submissions/{sub.id}/figure" in html


BROKEN = "import torch\n# caf\u00e9\nclass ScaledDotProductAttention(torch.nn.Module)\n    pass\n"
SAVED_AS = {
    "utf8_bom_crlf": lambda s: b"\xef\xbb\xbf" + s.replace("\n", "\r\n").encode(),
    "utf16_bom": lambda s: s.encode("utf-16"),
    "utf32_bom": lambda s: s.encode("utf-32"),
    "cr_only": lambda s: s.replace("\n", "\r").encode(),
    "latin1_cookie": lambda s: ("# -*- coding: latin-1 -*-\n" + s).encode("latin-1"),
}


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
@pytest.mark.parametrize("save", SAVED_AS.values(), ids=SAVED_AS.keys())
def test_a_syntax_error_in_code_saved_oddly_is_shown_at_its_line_with_its_message_in_both_languages(
        client, factory, course, web, save):
    from grading.inputs import validate_code
    from tests.web.test_student_experience import load_failure_result

    data = save(BROKEN)
    token = factory.token(course["alice"])
    resp = upload(client, token, code=data)
    assert resp.status_code == 202, resp.json
    try:
        compile(validate_code("attention.py", data), "attention.py", "exec")
    except SyntaxError as exc:
        line, msg = exc.lineno, exc.msg
    result = load_failure_result(True)
    result["load_error"] = {"en": f"SyntaxError at line {line}: {msg}", "zh": f"第 {line} 行出现 SyntaxError：{msg}"}
    result["message"] = {"en": f"attention.py did not load: {result['load_error']['en']}",
                         "zh": f"attention.py 无法导入：{result['load_error']['zh']}"}
    sub = db.session.get(Submission, resp.json["id"])
    web.grade(sub, result)
    web.login(client, course["alice"])
    for lang, said in (("en", f"SyntaxError at line {line}: expected"), ("zh", f"第 {line} 行出现 SyntaxError：expected")):
        client.get(f"/lang/{lang}")
        html = client.get(f"/submissions/{sub.id}").get_data(as_text=True)
        shown = html[html.index('id="load-error"'):html.index('id="tests-title"')]
        assert said in shown, lang
        assert (f'<span class="hit"><span class="ln" aria-hidden="true">{line}</span>'
                "class ScaledDotProductAttention(torch.nn.Module)") in shown, lang
        assert "# café" in shown, "the line before it, decoded as the file declares"


def _jpeg_with(prefix_segment: bytes, total: int = 5 * 1024 * 1024 - 4096) -> bytes:
    """The lab's heatmap as a JPEG with ``prefix_segment`` after SOI, repeated to about ``total`` bytes."""
    jpeg = _jpeg(Image.open(io.BytesIO(make_heatmap())).convert("RGB"))
    return jpeg[:2] + prefix_segment * max(1, (total - len(jpeg)) // len(prefix_segment)) + jpeg[2:]


@pytest.mark.parametrize("segment", [b"\xff\xfe\x00\x02", b"\xff\xe1\x00\x02"], ids=["COM", "APP1"])
def test_a_jpeg_of_a_million_empty_segments_is_refused_before_the_web_walks_them(client, factory, course, segment):
    # 1.3 million four-byte segments in 5 MiB: the structure checks, which run in the web process before
    # any decoding child, walked them all in Python (1.4 s of the web's CPU per upload), then the child
    # spent 2.7 s more. Real JPEGs have fewer than 40 segments.
    from grading.inputs import MAX_JPEG_SEGMENTS

    jpeg = _jpeg_with(segment)
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, figure=(io.BytesIO(jpeg), "heatmap.jpg")))
    message = refused(resp, "figure_too_complex", 422)
    assert f"more than {MAX_JPEG_SEGMENTS} marker segments" in message["en"]
    assert f"超过 {MAX_JPEG_SEGMENTS} 个标记段" in message["zh"]
    assert cpu < 0.3 and wall < 1.0


def _stray_after_frame(stray: bytes) -> bytes:
    """The heatmap as a JPEG with ``stray`` right after its frame header (SOF0), before its tables and scan."""
    jpeg = _jpeg(Image.open(io.BytesIO(make_heatmap())).convert("RGB"))
    sof = jpeg.index(b"\xff\xc0")
    end = sof + 2 + struct.unpack(">H", jpeg[sof + 2:sof + 4])[0]
    return jpeg[:end] + stray + jpeg[end:]


@pytest.mark.parametrize("stray", [b"\xff", b"\x00"], ids=["fill_bytes", "junk_bytes"])
def test_a_jpeg_of_megabytes_of_bytes_between_its_segments_is_refused_before_any_decoder_walks_them(
        client, factory, course, stray):
    # Bytes where a marker should be are legal (libjpeg skips them); 5 MiB of 0xFF in the header cost the
    # web's structure check 0.75 s (stepped over one by one in Python), then Pillow's header parse 2.2 s in
    # the child, and again 2.0 s in the worker's figure reading at every grading.
    from grading.inputs import MAX_JPEG_STRAY_BYTES, _figure_precheck

    jpeg = _stray_after_frame(stray * 5_000_000)
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, figure=(io.BytesIO(jpeg), "heatmap.jpg")))
    message = refused(resp, "figure_too_complex", 422)
    assert "bytes between its header segments that belong to none" in message["en"] and "不属于任何段" in message["zh"]
    assert cpu < 0.3 and wall < 1.0
    started = time.process_time()
    with pytest.raises(Exception, match="figure_too_complex"):
        _figure_precheck("heatmap.jpg", jpeg)
    assert time.process_time() - started < 0.1
    # a few stray bytes, as some writers leave, are still a figure
    few = _stray_after_frame(stray * 1000)
    assert upload(client, token, figure=(io.BytesIO(few), "h.jpg")).status_code == 202
    assert MAX_JPEG_STRAY_BYTES < 5_000_000


@pytest.mark.parametrize("field", ["code", "audit"])
def test_a_file_sent_as_a_text_field_is_told_how_to_send_a_file_not_that_it_is_missing(
        client, factory, course, field):
    # curl -F 'code=<attention.py' sends the contents as a text field; the answer was "attention.py is
    # required" (code) or the audit was silently absent (a code-only attempt with the audit not kept).
    token = factory.token(course["alice"])
    data = {field: AUDIT_LINE if field == "audit" else GOOD_CODE.decode()}
    if field != "code":
        data["code"] = (io.BytesIO(GOOD_CODE), "attention.py")
    resp = client.post("/api/v1/submissions", data=data, headers=bearer(token), content_type="multipart/form-data")
    assert resp.status_code == 400
    message = refused(resp, "not_a_file")
    assert f"-F {field}=@<file>" in message["en"] and f"-F {field}=@<文件>" in message["zh"]


@pytest.mark.parametrize("part", ["text_field", "file_name"])
def test_a_600_kb_text_field_or_file_name_is_refused_for_the_form_limits_not_called_too_large(
        client, factory, course, part):
    token = factory.token(course["alice"])
    data = {"code": (io.BytesIO(GOOD_CODE), "注" * 200_000 + ".py" if part == "file_name" else "attention.py")}
    if part == "text_field":
        data["assignment"] = "a" * 600_000
    resp = client.post("/api/v1/submissions", data=data, headers=bearer(token), content_type="multipart/form-data")
    assert resp.status_code == 413
    message = refused(resp, "form_too_complex")
    # round 34: the limit seen is named, not both (tests/web/test_form_limits_round34.py)
    if part == "text_field":
        assert "text field 'assignment' is longer than the 488 KiB" in message["en"] and "488 KiB" in message["zh"]
    else:
        assert "where a file's name is sent, are longer than the 488 KiB" in message["en"]
        assert "文件名" in message["zh"] and "488 KiB" in message["zh"]


# --- through the deployed proxy -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.redis
def test_a_body_over_the_proxys_limit_gets_the_apps_bilingual_413_not_nginxs_english_page(
        live, proxied, course, factory):  # noqa: F811 - fixtures imported from test_hardening
    # nginx (deploy/nginx.conf, client_max_body_size 9m) refuses a 12 MB upload before the app sees it; its
    # own page said "413 Request Entity Too Large" in English, as HTML even to the API.
    from tests.live import Client, multipart

    token = factory.token(course["alice"])
    body, ctype = multipart({"code": ("attention.py", GOOD_CODE), "audit": ("audit.pdf", b"%PDF-1.4\n" + b"0" * 12_000_000)})
    api = Client(proxied).request("POST", "/api/v1/submissions", body, {**bearer(token), "Content-Type": ctype})
    assert api.status == 413, api.body[:200]
    reply = api.json()
    assert reply["code"] == "too_large" and "8 MiB" in reply["message"]["en"] and "8 MiB" in reply["message"]["zh"]
    page = Client(proxied).request("POST", "/assignments/attention/submit", body,
                                   {"Content-Type": ctype, "Accept-Language": "zh-CN,zh;q=0.9"})
    assert page.status == 413 and "上传的文件太大" in page.text and "nginx" not in page.text


def test_a_16_bit_heatmap_at_the_pixel_cap_is_read_without_a_second_of_the_workers_cpu(client, factory, course):
    # The upload is decoded in the limited child; the worker reads the figure again at every grading,
    # and scaled the whole 4096x4096 16-bit image to 8-bit in float64 before reducing it: 0.9 s of CPU.
    import numpy as np

    from rubric.audit.figure import analyse_figure
    from tests.audit.helpers import EXAMPLE_WEIGHTS

    grey = np.full((4096, 4096), 65535, dtype=np.uint16)
    for r, row in enumerate(EXAMPLE_WEIGHTS):
        for c, v in enumerate(row):
            grey[600 + r * 1400:600 + (r + 1) * 1400, 100 + c * 1300:100 + (c + 1) * 1300] = int(65535 * (0.15 + 0.8 * v))
    data = _png(Image.fromarray(grey))
    token = factory.token(course["alice"])
    resp, cpu, wall = timed(lambda: upload(client, token, figure=(io.BytesIO(data), "heatmap.png")))
    assert resp.status_code == 202, resp.json
    assert cpu < WEB_CPU_S and wall < WALL_S
    started = time.process_time()
    assert analyse_figure(data).shape == (2, 3)
    assert time.process_time() - started < 0.4
