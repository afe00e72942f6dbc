"""Specification of upload validation (grading/inputs.py): what is accepted, and that every rejection is a
bilingual InputError raised quickly and in bounded memory."""

from __future__ import annotations

import io
import re
import time
import tracemalloc
from pathlib import Path

import pypdf
import pytest
from PIL import Image

from grading import inputs
from grading.inputs import FigureInfo, InputError, validate_audit, validate_code, validate_figure
from tests.audit.helpers import make_heatmap, make_pdf, make_png_header_only, pdf_of

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module", autouse=True)
def decoding_server():
    """PDFs and images are decoded by children of a fork server: start it once, as the web app and
    the worker do at their first upload."""
    from grading.decode import warm

    warm()


def rejects(fn, filename, data, code: str, max_seconds: float = 0.5) -> InputError:
    """Call fn, expect InputError(code) within max_seconds, with an English and a Chinese message."""
    t0 = time.perf_counter()
    with pytest.raises(InputError) as info:
        fn(filename, data)
    elapsed = time.perf_counter() - t0
    err = info.value
    assert err.code == code, f"expected {code}, got {err.code}: {err}"
    assert elapsed < max_seconds, f"{code} took {elapsed:.3f}s"
    assert err.en and not CJK.search(err.en), "English message must be present and English"
    assert CJK.search(err.zh), "Chinese message must contain Chinese"
    assert code in str(err) and err.en in str(err) and err.zh in str(err)
    assert err.to_dict() == {"code": code, "message": {"en": err.en, "zh": err.zh}}
    return err


# ------------------------------------------------------------------------------------------- code

def test_code_accepts_utf8_python_and_strips_bom_and_crlf():
    src = "\ufeffimport torch\r\n# 注释：手写 attention\r\nclass ScaledDotProductAttention: pass\r\n"
    text = validate_code("attention.py", src.encode("utf-8"))
    assert text.startswith("import torch\n") and "注释" in text and "\r" not in text


@pytest.mark.parametrize("filename", ["attention.txt", "attention.ipynb", "attention", None, "attention.py.exe"])
def test_code_must_be_a_py_file(filename):
    rejects(validate_code, filename, b"x = 1\n", "code_bad_type")


def test_a_code_file_named_only_dot_py_is_a_python_file():
    # os.path.splitext reads ".py" as a hidden file without an extension: it was refused as "no extension".
    assert validate_code(".py", b"x = 1\n") == "x = 1\n"
    err = rejects(validate_code, ".txt", b"x = 1\n", "code_bad_type")
    assert "got '.txt'" in err.en and "no extension" not in err.en and "「.txt」" in err.zh


def test_code_empty_or_whitespace_only_is_rejected():
    rejects(validate_code, "attention.py", b"", "code_empty")
    rejects(validate_code, "attention.py", b"  \n\t\r\n", "code_empty")


def test_code_over_the_size_cap_is_rejected_before_decoding():
    data = b"#" * (inputs.MAX_CODE_BYTES + 1)
    err = rejects(validate_code, "attention.py", data, "code_too_large")
    assert "256 KiB" in err.en


def test_code_with_nul_bytes_is_binary():
    rejects(validate_code, "attention.py", b"import torch\x00\x00\x01", "code_binary")


def test_code_in_gbk_is_rejected_with_a_hint_to_save_as_utf8():
    err = rejects(validate_code, "attention.py", "# 注意力机制\nx = 1\n".encode("gbk"), "code_not_utf8")
    assert "GBK" in err.en and "UTF-8" in err.zh


# ------------------------------------------------------------------------------------------- audit

@pytest.mark.parametrize("filename", ["audit.md", "AUDIT.MARKDOWN", "audit.txt", "C:\\Users\\li\\审计.md"])
def test_audit_text_files_are_decoded_as_utf8_with_bom_and_crlf_normalised(filename):
    data = "\ufeff# 审计\r\nThe heatmap does not prove causality.\r\n".encode()
    assert validate_audit(filename, data) == "# 审计\nThe heatmap does not prove causality.\n"


def test_audit_utf16_with_bom_is_accepted():
    assert validate_audit("audit.txt", "每行和为 1。".encode("utf-16")) == "每行和为 1。"


@pytest.mark.parametrize("filename", ["audit.docx", "audit.html", "audit", "audit.png"])
def test_audit_must_be_markdown_text_or_pdf(filename):
    rejects(validate_audit, filename, b"hello", "audit_bad_type")


@pytest.mark.parametrize("data", [b"", b"   \n\n\t  ", "\u3000\u3000\n\u200b".encode(), b"\xef\xbb\xbf \n"])
def test_audit_empty_or_whitespace_only_is_rejected(data):
    rejects(validate_audit, "audit.md", data, "audit_empty")


def test_audit_of_chinese_text_in_gbk_is_accepted():
    text = "这张热力图不能说明因果关系，每一行是一个 query。"
    assert validate_audit("audit.md", text.encode("gbk")) == text


def test_audit_not_utf8_and_not_plausibly_chinese_is_rejected_with_a_hint():
    err = rejects(validate_audit, "audit.md", "Café: the heatmap is déjà vu.".encode("cp1252"), "audit_not_utf8")
    assert "UTF-8" in err.en and "另存为 UTF-8" in err.zh


def test_audit_binary_with_nul_bytes_is_rejected():
    rejects(validate_audit, "audit.txt", b"abc\x00def", "audit_binary")


def test_audit_that_is_really_an_image_points_to_the_figure_upload(heatmap_png):
    err = rejects(validate_audit, "audit.md", heatmap_png, "audit_is_image")
    assert "figure" in err.en


def test_audit_over_the_size_cap_is_rejected():
    rejects(validate_audit, "audit.md", b"a" * (inputs.MAX_AUDIT_TEXT_BYTES + 1), "audit_too_large")


def test_audit_text_is_capped_in_characters():
    text = validate_audit("audit.md", b"Rows sum to 1. " * 10000)     # 150 000 characters, 146 KiB
    assert len(text) == inputs.MAX_AUDIT_CHARS


def test_pdf_audit_text_layer_is_extracted_and_graded(checklist):
    from rubric.audit import grade_audit

    lines = [
        "Each row of the heatmap is one query and every column is one key.",
        "Every row sums to 1, which is how the query spends its reading budget.",
        "The heatmap does not prove that key 1 causes the output.",
        "A bright cell should not be read as feature importance.",
    ]
    t0 = time.perf_counter()
    text = validate_audit("audit.pdf", make_pdf(lines))
    # Tenths of a second alone; over 1 s once with a CI run and three installs sharing the 2 CPUs.
    assert time.perf_counter() - t0 < 2.0
    for line in lines:
        assert line in text
    result = grade_audit(text, None, {}, checklist)
    by_id = {it["id"]: it for it in result["items"]}
    assert by_id["figure_reading"]["points"] > 0 and by_id["limits"]["points"] > 0


def test_pdf_renamed_md_is_still_read_as_pdf():
    assert "does not prove" in validate_audit("audit.md", make_pdf(["The heatmap does not prove causality."]))


def test_pdf_without_text_layer_is_rejected_as_a_scan():
    err = rejects(validate_audit, "scan.pdf", make_pdf(None, drawing_only=True), "pdf_no_text")
    assert "scan" in err.en and "扫描" in err.zh


def test_encrypted_pdf_is_rejected():
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(make_pdf(["secret audit text here"]))))
    writer.encrypt("secret", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    rejects(validate_audit, "audit.pdf", buf.getvalue(), "pdf_encrypted")


def _protected(password: str, algorithm: str) -> bytes:
    """The audit PDF encrypted as "restrict editing" tools do: user password ``password`` (empty: it
    opens without one), an owner password, no permission to copy or print."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(make_pdf([AUDIT_SENTENCE]))))
    writer.encrypt(password, owner_password="owner-secret", algorithm=algorithm, permissions_flag=0)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


AUDIT_SENTENCE = "The heatmap does not prove that key 1 causes the output."


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-128", "AES-256"])
def test_a_pdf_encrypted_with_an_empty_user_password_opens_as_any_viewer_opens_it(algorithm):
    # Word, WPS and LaTeX tools encrypt a PDF whose author only restricted copying or printing;
    # it was refused as "password-protected" (and an AES one as "damaged").
    assert pypdf.PdfReader(io.BytesIO(_protected("", algorithm))).is_encrypted
    assert AUDIT_SENTENCE in validate_audit("audit.pdf", _protected("", algorithm))


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-256"])
def test_a_pdf_that_needs_a_password_to_open_is_refused_saying_so(algorithm):
    err = rejects(validate_audit, "audit.pdf", _protected("secret", algorithm), "pdf_encrypted", max_seconds=2)
    assert "needs a password" in err.en and "需要密码" in err.zh


def test_a_pdf_whose_encryption_the_server_cannot_undo_says_so_not_damaged(monkeypatch):
    # As on a host without the cryptography package: pypdf's fallback raises DependencyError for AES.
    import pypdf._encryption as encryption

    def missing(*args, **kwargs):
        raise pypdf.errors.DependencyError("cryptography>=3.1 is required for AES algorithm")

    data = _protected("", "AES-256")
    for name in ("aes_cbc_decrypt", "aes_ecb_decrypt", "aes_cbc_encrypt", "aes_ecb_encrypt"):
        monkeypatch.setattr(encryption, name, missing)
    err = rejects(inputs.extract_audit, "audit.pdf", data, "pdf_encryption_unsupported")  # in this process
    assert "cannot decrypt" in err.en and "AES" in err.en and "无法解密" in err.zh


def test_a_pdf_past_pypdfs_own_limits_is_too_complex_not_damaged():
    """A page tree nested 150 deep (pypdf stops at 100 with LimitReachedError): a limit of the
    reader, said with its own words, not "damaged"."""
    depth = 150
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for level in range(depth):        # objects 2 .. depth+1 are /Pages nodes, each the only kid of the last
        parent = f" /Parent {level + 1} 0 R" if level else ""
        objects.append(f"<< /Type /Pages /Kids [{level + 3} 0 R] /Count 1{parent} >>".encode())
    content = b"BT /F1 11 Tf 72 740 Td (" + AUDIT_SENTENCE.encode() + b") Tj ET"
    objects.append(f"<< /Type /Page /Parent {depth + 1} 0 R /MediaBox [0 0 612 792] /Contents {depth + 3} 0 R "
                   f"/Resources << /Font << /F1 {depth + 4} 0 R >> >> >>".encode())
    objects.append(b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    with pytest.raises(pypdf.errors.LimitReachedError):
        len(pypdf.PdfReader(io.BytesIO(pdf_of(objects))).pages)
    err = rejects(validate_audit, "audit.pdf", pdf_of(objects), "pdf_too_complex", max_seconds=2)
    assert "page tree depth" in err.en and "page tree depth" in err.zh and "复杂" in err.zh
    assert "damaged" not in err.en and "损坏" not in err.zh


@pytest.mark.parametrize("data", [b"%PDF-1.4\n garbage garbage", b"not a pdf at all"])
def test_corrupt_or_fake_pdf_is_rejected(data):
    rejects(validate_audit, "audit.pdf", data, "pdf_corrupt")


def test_pdf_with_too_many_pages_is_rejected():
    writer = pypdf.PdfWriter()
    for _ in range(inputs.MAX_PDF_PAGES + 1):
        writer.add_blank_page(width=200, height=200)
    buf = io.BytesIO()
    writer.write(buf)
    rejects(validate_audit, "audit.pdf", buf.getvalue(), "pdf_too_many_pages")


# ------------------------------------------------------------------------------------------- figure

def _encode(im: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    im.save(buf, fmt, **kw)
    return buf.getvalue()


def test_heatmap_png_is_decoded_and_recognised_as_a_heatmap(heatmap_info):
    assert isinstance(heatmap_info, FigureInfo)
    assert (heatmap_info.format, heatmap_info.mode) == ("PNG", "RGB")
    assert (heatmap_info.width, heatmap_info.height) == (530, 330)
    assert heatmap_info.looks_like_heatmap and not heatmap_info.is_blank
    assert heatmap_info.colour_blocks >= 2
    assert heatmap_info.to_dict()["looks_like_heatmap"] is True


def test_format_is_sniffed_from_bytes_not_the_extension():
    info = validate_figure("attention.png", make_heatmap(fmt="JPEG"))
    assert info.format == "JPEG" and info.looks_like_heatmap


def test_blank_figure_is_accepted_but_marked_blank():
    info = validate_figure("fig.png", _encode(Image.new("RGB", (640, 480), "white"), "PNG"))
    assert info.is_blank and not info.looks_like_heatmap


def test_palette_and_transparent_and_16bit_pngs_decode():
    pal = Image.new("RGB", (60, 40), "white").convert("P")
    assert validate_figure("p.png", _encode(pal, "PNG")).mode == "P"
    rgba = Image.new("RGBA", (60, 40), (0, 0, 0, 0))
    assert validate_figure("t.png", _encode(rgba, "PNG")).is_blank      # transparent = white background
    assert validate_figure("i16.png", _encode(Image.new("I;16", (60, 40)), "PNG")).width == 60


@pytest.mark.parametrize("data, what", [
    (b"this is my heatmap, honest\n", "text renamed .png"),
    (b"%PDF-1.4\n1 0 obj", "pdf renamed .png"),
    (b"GIF89a\x01\x00\x01\x00", "gif"),
    (b"BM" + b"\x00" * 60, "bmp"),
])
def test_non_png_jpeg_content_is_rejected_whatever_the_name(data, what):
    err = rejects(validate_figure, "heatmap.png", data, "figure_bad_type")
    assert "PNG" in err.en and "savefig" in err.zh


def test_empty_figure_is_rejected():
    rejects(validate_figure, "fig.png", b"", "figure_empty")


def test_figure_over_the_byte_cap_is_rejected_before_parsing():
    data = b"\x89PNG\r\n\x1a\n" + b"\x00" * inputs.MAX_FIGURE_BYTES
    rejects(validate_figure, "fig.png", data, "figure_too_large")


def test_corrupt_png_is_rejected(heatmap_png):
    data = bytearray(heatmap_png)
    idat = data.index(b"IDAT")
    for i in range(idat + 40, idat + 400):
        data[i] ^= 0x5A
    rejects(validate_figure, "fig.png", bytes(data), "figure_corrupt")


def test_png_with_only_a_signature_is_rejected():
    rejects(validate_figure, "fig.png", b"\x89PNG\r\n\x1a\n\x00\x00", "figure_corrupt")


def test_truncated_png_is_rejected(heatmap_png):
    rejects(validate_figure, "fig.png", heatmap_png[: len(heatmap_png) // 2], "figure_truncated")


def test_truncated_jpeg_is_rejected():
    jpeg = make_heatmap(fmt="JPEG")
    rejects(validate_figure, "fig.jpg", jpeg[: len(jpeg) * 2 // 3], "figure_truncated")


def test_large_truncated_jpeg_is_rejected_even_with_draft_decoding():
    big = Image.new("RGB", (2000, 1500))
    big.paste((200, 30, 30), (0, 0, 1000, 1500))
    jpeg = _encode(big, "JPEG", quality=90)
    rejects(validate_figure, "fig.jpg", jpeg[: len(jpeg) // 2], "figure_truncated")


def test_png_decompression_bomb_is_rejected_from_the_header_fast_and_in_bounded_memory():
    bomb = make_png_header_only(50000, 50000)    # 2.5 gigapixels declared in an 80-byte file
    assert len(bomb) < 200
    tracemalloc.start()
    try:
        err = rejects(validate_figure, "bomb.png", bomb, "figure_too_many_pixels", max_seconds=0.05)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB"
    assert "50000x50000" in err.en


def test_jpeg_decompression_bomb_is_rejected_from_the_sof_header():
    jpeg = bytearray(make_heatmap(fmt="JPEG"))
    sof = jpeg.index(b"\xff\xc0")
    jpeg[sof + 5:sof + 9] = (60000).to_bytes(2, "big") + (60000).to_bytes(2, "big")
    tracemalloc.start()
    try:
        rejects(validate_figure, "bomb.jpg", bytes(jpeg), "figure_too_many_pixels", max_seconds=0.05)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 1024 * 1024


def test_pixel_cap_applies_just_above_the_limit_and_not_at_it(monkeypatch):
    monkeypatch.setattr(inputs, "MAX_FIGURE_PIXELS", 100 * 100)
    ok = _encode(Image.new("RGB", (100, 100), "red"), "PNG")
    assert validate_figure("ok.png", ok).width == 100
    rejects(validate_figure, "big.png", _encode(Image.new("RGB", (101, 100), "red"), "PNG"), "figure_too_many_pixels")


def test_pillow_decompression_bomb_error_becomes_input_error(monkeypatch):
    """If Pillow's own guard fires (e.g. its limit is lower than ours), the caller still gets InputError
    (checked on the decoding that the limited child runs, since the patch lives in this process)."""
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    rejects(inputs.decode_figure, "fig.png", _encode(Image.new("RGB", (100, 100), "red"), "PNG"), "figure_too_many_pixels")


# ------------------------------------------------------------------ hostile files: bounded cost

def test_a_jpeg_with_thousands_of_scans_is_refused_before_decoding():
    from hostile_files import progressive_jpeg_with_repeated_scan

    data = progressive_jpeg_with_repeated_scan(repeats=40_000)
    err = rejects(validate_figure, "fig.jpg", data, "figure_too_complex", max_seconds=0.5)
    assert "scans" in err.en


def _with_segment(jpeg: bytes, marker: int, payload: bytes) -> bytes:
    """``jpeg`` with one more segment (APPn, COM) right after SOI."""
    return jpeg[:2] + bytes([0xFF, marker]) + (len(payload) + 2).to_bytes(2, "big") + payload + jpeg[2:]


def test_sos_bytes_inside_metadata_segments_are_not_counted_as_scans():
    """A camera's EXIF thumbnail is a whole JPEG (its own scans) inside APP1, and a comment may hold
    any bytes: they were counted as scans and the photo refused as having "70 scans"."""
    from hostile_files import progressive_jpeg_with_repeated_scan

    figure = make_heatmap(fmt="JPEG")
    thumbnail = progressive_jpeg_with_repeated_scan(side=64, repeats=80)
    data = _with_segment(figure, 0xE1, b"Exif\x00\x00" + thumbnail)
    data = _with_segment(data, 0xFE, b"\xff\xda" * 100)
    assert data.count(b"\xff\xda") > inputs.MAX_JPEG_SCANS
    info = validate_figure("heatmap.jpg", data)
    assert info.format == "JPEG" and info.looks_like_heatmap


def test_scans_behind_bytes_where_a_marker_should_be_are_still_counted():
    # libjpeg skips such bytes to the next marker ("extraneous bytes") and decodes on: so do we.
    from hostile_files import progressive_jpeg_with_repeated_scan

    data = progressive_jpeg_with_repeated_scan(side=256, repeats=200)
    sos = data.index(b"\xff\xda")
    err = rejects(validate_figure, "fig.jpg", data[:sos] + b"\x00junk" + data[sos:], "figure_too_complex")
    assert f"more than {inputs.MAX_JPEG_SCANS} scans" in err.en


def _twelve_bit(jpeg: bytes, sof: int) -> bytes:
    """``jpeg``'s frame header made a ``sof`` frame of 12-bit samples (Pillow writes only 8-bit)."""
    i = jpeg.index(b"\xff\xc0")
    return jpeg[:i + 1] + bytes([sof]) + jpeg[i + 2:i + 4] + b"\x0c" + jpeg[i + 5:]


@pytest.mark.parametrize("sof", [0xC0, 0xC1, 0xC2], ids=["baseline", "extended", "progressive"])
def test_a_12_bit_jpeg_is_named_unsupported_precision_not_damaged(sof):
    data = _twelve_bit(make_heatmap(fmt="JPEG"), sof)
    err = rejects(validate_figure, "heatmap.jpg", data, "figure_unsupported_precision")
    assert "12-bit" in err.en and "not damaged" in err.en and "8-bit JPEG or as PNG" in err.en
    assert "12 位" in err.zh and "没有损坏" in err.zh and "8 位 JPEG 或 PNG" in err.zh


def _sof(jpeg: bytes, sof: int) -> bytes:
    i = jpeg.index(b"\xff\xc0")
    return jpeg[:i + 1] + bytes([sof]) + jpeg[i + 2:]


@pytest.mark.parametrize("sof, words", [(0xC3, "lossless"), (0xC5, "hierarchical"), (0xCF, "hierarchical lossless")],
                         ids=["lossless", "hierarchical", "hierarchical-arithmetic"])
def test_an_unreadable_jpeg_of_a_rare_process_is_named_by_its_frame_header_not_damaged(sof, words):
    data = _sof(make_heatmap(fmt="JPEG"), sof)
    err = rejects(validate_figure, "heatmap.jpg", data, "figure_unsupported_jpeg_process")
    assert f"says {words}" in err.en and f"SOF{sof - 0xC0}" in err.en and "PNG" in err.en
    assert f"SOF{sof - 0xC0}" in err.zh and "PNG" in err.zh and "损坏" not in err.zh


def test_a_damaged_baseline_jpeg_is_still_called_damaged():
    data = bytearray(make_heatmap(fmt="JPEG"))
    dht = data.index(b"\xff\xc4")
    data[dht + 5:dht + 21] = b"\xff" * 16    # a Huffman table whose code counts cannot exist
    rejects(validate_figure, "heatmap.jpg", bytes(data), "figure_corrupt")


def test_a_png_split_into_too_many_chunks_is_refused_before_decoding():
    from hostile_files import png_with_many_chunks

    rejects(validate_figure, "fig.png", png_with_many_chunks(), "figure_too_complex", max_seconds=0.5)


def test_a_pdf_page_that_costs_seconds_is_stopped_by_the_cpu_limit(monkeypatch):
    """A few KB of PDF whose one page inflates to ~2 MB of text operators: the child's CPU rlimit
    stops the extraction inside the page and the student gets a bilingual reason."""
    from hostile_files import pdf_with_costly_page

    from autograder import settings

    monkeypatch.setattr(settings, "DECODE_CPU_S", 1)
    data = pdf_with_costly_page()
    assert len(data) < 8 * 1024
    err = rejects(validate_audit, "audit.pdf", data, "audit_too_costly", max_seconds=settings.DECODE_WALL_S + 1)
    assert ".md" in err.en


def test_decoding_that_outruns_the_wall_limit_is_killed_and_refused(monkeypatch):
    from hostile_files import pdf_with_costly_page

    from autograder import settings

    monkeypatch.setattr(settings, "DECODE_WALL_S", 0.3)
    # Killed at 0.3 s of the child's non-waiting time; the rest of the 2 s is the child's start and
    # the time it waited for a CPU (1.14 s measured with a CI run and three `make install`s on 2 CPUs;
    # the page alone takes seconds).
    rejects(validate_audit, "audit.pdf", pdf_with_costly_page(), "audit_too_costly", max_seconds=2.0)


def test_a_decode_starved_of_cpu_is_answered_busy_not_refused_as_costly(monkeypatch):
    """Time the child spent waiting for a CPU is not the file's: past DECODE_BUSY_WALL_S the decode
    is given up as the server's trouble (DecodeBusy), whatever DECODE_WALL_S says."""
    from hostile_files import pdf_with_costly_page

    from autograder import settings
    from grading import decode

    monkeypatch.setattr(settings, "DECODE_WALL_S", 0.3)
    monkeypatch.setattr(settings, "DECODE_BUSY_WALL_S", 0.8)
    monkeypatch.setattr(decode, "_cpu_wait_s", lambda pid: 1e9)   # as if it had waited all along
    t0 = time.perf_counter()
    with pytest.raises(decode.DecodeBusy) as info:
        validate_audit("audit.pdf", pdf_with_costly_page())
    assert 0.8 <= time.perf_counter() - t0 < 2.0
    assert "busy" in info.value.en and "服务器正忙" in info.value.zh and info.value.retry_after >= 1


def test_a_decode_waits_briefly_for_a_slot_then_says_the_server_is_busy(monkeypatch):
    from autograder import settings
    from grading import decode

    monkeypatch.setattr(settings, "DECODE_SLOTS", 1)
    monkeypatch.setattr(settings, "DECODE_QUEUE", 1)
    monkeypatch.setattr(settings, "DECODE_SLOT_WAIT_S", 0.3)
    with decode.slots().held("figure", 0):
        t0 = time.perf_counter()
        with pytest.raises(decode.DecodeBusy) as info:
            validate_figure("fig.png", make_heatmap())
        assert 0.3 <= time.perf_counter() - t0 < 1.0
    assert "figure" in info.value.en and "图片" in info.value.zh
    assert validate_figure("fig.png", make_heatmap()).looks_like_heatmap    # the slot is free again


def test_a_slot_freed_while_an_upload_waits_is_taken(monkeypatch):
    import threading

    from autograder import settings
    from grading import decode

    monkeypatch.setattr(settings, "DECODE_SLOTS", 1)
    monkeypatch.setattr(settings, "DECODE_QUEUE", 1)
    monkeypatch.setattr(settings, "DECODE_SLOT_WAIT_S", 5)
    def hold() -> None:
        with decode.slots().held("figure", 0):
            time.sleep(0.3)

    holder = threading.Thread(target=hold)
    holder.start()
    time.sleep(0.05)
    assert validate_figure("fig.png", make_heatmap()).looks_like_heatmap
    holder.join()


def test_waiting_beyond_the_queue_is_refused_at_once(monkeypatch):
    from autograder import settings
    from grading import decode

    monkeypatch.setattr(settings, "DECODE_SLOTS", 1)
    monkeypatch.setattr(settings, "DECODE_QUEUE", 0)
    monkeypatch.setattr(settings, "DECODE_SLOT_WAIT_S", 5)
    with decode.slots().held("figure", 0):
        t0 = time.perf_counter()
        with pytest.raises(decode.DecodeBusy):
            validate_audit("audit.pdf", make_pdf(["The heatmap does not prove that key 1 causes the output."]))
        # Refused at once, not after the 5 s wait; 1 s leaves room for a loaded host.
        assert time.perf_counter() - t0 < 1.0


def test_decoding_that_needs_too_much_memory_is_refused(monkeypatch):
    from autograder import settings

    monkeypatch.setattr(settings, "DECODE_MEMORY_BYTES", 72 * 1024 * 1024)
    big = _encode(Image.new("RGB", (4096, 4096), (30, 60, 90)), "PNG")   # 48 MiB once decoded
    rejects(validate_figure, "fig.png", big, "figure_too_costly", max_seconds=settings.DECODE_WALL_S + 1)


def test_the_decoding_child_leaves_the_caller_unharmed():
    """After hostile files, an ordinary PDF and figure still decode (the fork server is reused)."""
    text = validate_audit("audit.pdf", make_pdf(["The heatmap does not prove that key 1 causes the output."]))
    assert "heatmap" in text
    assert validate_figure("fig.png", make_heatmap()).looks_like_heatmap


PDF_AUDITS = Path(__file__).resolve().parents[1] / "fixtures" / "pdf_audits"


@pytest.mark.parametrize("name", ["nul_literal.pdf", "tounicode_surrogate.pdf", "tounicode_nul_surrogate.pdf"])
def test_a_pdf_text_layer_with_nul_or_half_an_emoji_is_stored_as_readable_text(name):
    # A PDF's text layer may decode to NUL ("\000" in a string, a ToUnicode map to U+0000) or to a lone
    # surrogate (a map to D800): PostgreSQL refused the NUL and UTF-8 the surrogate, a 500 on upload.
    text = validate_audit(name, (PDF_AUDITS / name).read_bytes())
    assert "\x00" not in text
    text.encode("utf-8")
    assert "heatmap does not prove" in text


def test_decoder_settings_that_could_never_refuse_a_stuck_decode_are_refused_at_start():
    from autograder import settings

    with pytest.raises(settings.SettingsError, match="DECODE_WALL_S"):
        settings.check({"DECODE_WALL_S": 30, "DECODE_BUSY_WALL_S": 20})
    with pytest.raises(settings.SettingsError, match="DECODE_SLOTS"):
        settings.check({"DECODE_SLOTS": 0})
    settings.check()    # the defaults are consistent


def test_web_threads_that_waits_could_all_take_are_refused_with_the_numbers():
    from autograder import gunicorn_conf, settings

    held = {"DECODE_SLOTS": 4, "DECODE_QUEUE": 4, "LONGPOLL_SLOTS": 4, "LONGPOLL_LIST_SLOTS": 2}
    with pytest.raises(settings.SettingsError) as info:
        settings.check_web_threads(14, held)
    assert str(info.value).startswith("gunicorn --threads 14 leaves no thread for pages: DECODE_SLOTS (4) + "
                                      "DECODE_QUEUE (4) + LONGPOLL_SLOTS (4) + LONGPOLL_LIST_SLOTS (2) = 14")
    assert "at least 15 threads" in str(info.value)
    settings.check_web_threads(15, held)
    # the shipped threads leave room whatever the host's CPUs make of DECODE_SLOTS (at most 4)
    settings.check_web_threads(gunicorn_conf.threads, held)
