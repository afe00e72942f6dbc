"""Specification of what happens to realistic student uploads (red team round 6): dark-style figures,
16-bit PNGs, figures in other formats, audits from word processors and notebooks, notebooks and
non-UTF-8 encodings uploaded as code. Every file is built in memory."""

from __future__ import annotations

import io
import json
import re
import zipfile

import numpy as np
import pytest
from PIL import Image, ImageDraw

from grading.inputs import InputError, validate_audit, validate_code, validate_figure
from rubric.audit import grade_audit
from rubric.audit.figure import analyse_figure
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, _viridis, make_heatmap

CJK = re.compile(r"[\u4e00-\u9fff]")
REFERENCE = "import torch\n\n\nclass ScaledDotProductAttention(torch.nn.Module):\n    pass\n"


@pytest.fixture(scope="module", autouse=True)
def decoding_server():
    from grading.decode import warm

    warm()


def refused(fn, filename, data, code) -> InputError:
    with pytest.raises(InputError) as info:
        fn(filename, data)
    err = info.value
    assert err.code == code, (err.code, err.en)
    assert err.en and CJK.search(err.zh), err.zh
    return err


def _figure_item(result):
    return next(it for it in result["items"] if it["id"] == "figure")


# ------------------------------------------------------------------------------------------ figures
def _dark_heatmap(background=(0, 0, 0), panel=None, weights=EXAMPLE_WEIGHTS, cell=100) -> bytes:
    """plt.style.use('dark_background'): a black figure, white ticks and labels; ``panel`` adds the
    lighter panels of an editor's dark theme around it (a VS Code screenshot)."""
    rows, cols = len(weights), len(weights[0])
    im = Image.new("RGB", (cols * cell + 260, rows * cell + 160), background)
    d = ImageDraw.Draw(im)
    if panel is not None:                              # activity bar on the left, status bar below
        d.rectangle([0, 0, 30, im.height - 1], fill=panel)
        d.rectangle([0, im.height - 20, im.width - 1, im.height - 1], fill=(0, 122, 204))
    x0, y0 = 100, 60
    for r, row in enumerate(weights):
        for c, v in enumerate(row):
            d.rectangle([x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell - 1, y0 + (r + 1) * cell - 1],
                        fill=_viridis(v))
            d.text((x0 + c * cell + cell // 2 - 10, y0 + r * cell + cell // 2 - 5), f"{v:.2f}", fill="white")
        d.text((x0 - 40, y0 + r * cell + cell // 2 - 5), f"q{r}", fill="white")
    for c in range(cols):
        d.text((x0 + c * cell + cell // 2 - 5, y0 + rows * cell + 10), f"k{c}", fill="white")
    d.text((x0, 20 if panel is None else 30), "attention weights", fill="white")
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize("make", [lambda: _dark_heatmap(), lambda: _dark_heatmap((30, 30, 30), panel=(51, 51, 51))],
                         ids=["dark_background style", "dark editor theme screenshot"])
def test_a_heatmap_on_a_dark_background_is_the_labs_heatmap(make, checklist):
    assert analyse_figure(make()).shape == (2, 3)
    item = _figure_item(grade_audit("", make(), MEASURED_OK, checklist))
    assert item["points"] == item["max_points"] > 0


def test_random_colour_tiles_on_a_dark_background_are_still_not_a_colour_scale():
    im = Image.new("RGB", (500, 360), (0, 0, 0))
    d = ImageDraw.Draw(im)
    for i, colour in enumerate([(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255)]):
        r, c = divmod(i, 3)
        d.rectangle([100 + c * 100, 60 + r * 100, 199 + c * 100, 159 + r * 100], fill=colour)
    buf = io.BytesIO()
    im.save(buf, "PNG")
    report = analyse_figure(buf.getvalue())
    assert report.kind == "not_heatmap" and report.reason == "not_colour_scale"


def test_a_heatmap_cropped_to_its_cells_is_not_mistaken_for_background():
    im = Image.new("RGB", (300, 200))
    d = ImageDraw.Draw(im)
    for r, row in enumerate(EXAMPLE_WEIGHTS):
        for c, v in enumerate(row):
            d.rectangle([c * 100, r * 100, c * 100 + 99, r * 100 + 99], fill=_viridis(v))
    buf = io.BytesIO()
    im.save(buf, "PNG")
    assert analyse_figure(buf.getvalue()).shape == (2, 3)


def test_the_flag_for_a_figure_that_is_not_a_heatmap_reads_as_a_sentence_in_both_languages(checklist):
    photo = np.random.default_rng(1).integers(0, 255, (240, 320, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(photo).save(buf, "PNG")
    flag = next(f for f in grade_audit("", buf.getvalue(), MEASURED_OK, checklist)["flags"] if f["kind"] == "figure")
    assert "is not a heatmap, not" not in flag["message"]["en"] and "是不是" not in flag["message"]["zh"]
    assert flag["message"]["en"].startswith("The figure is not a heatmap")
    assert flag["message"]["zh"].startswith("提交的图不是 heatmap")


def _png16(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(array.astype(np.uint16)).save(buf, "PNG")
    return buf.getvalue()


def test_a_16_bit_png_heatmap_is_scaled_to_8_bit_not_reported_blank():
    grey = np.zeros((200, 300))
    for r, row in enumerate(EXAMPLE_WEIGHTS):
        for c, v in enumerate(row):
            grey[r * 100:(r + 1) * 100, c * 100:(c + 1) * 100] = 65535 * (0.15 + 0.8 * v)
    data = _png16(grey)
    info = validate_figure("heatmap.png", data)
    assert not info.is_blank and info.luminance_std > 10
    assert analyse_figure(data).shape == (2, 3)


def _webp() -> bytes:
    buf = io.BytesIO()
    Image.open(io.BytesIO(make_heatmap())).save(buf, "WEBP")
    return buf.getvalue()


OTHER_FORMATS = {
    "WebP": ("heatmap.webp", _webp),
    "HEIC": ("IMG_0001.HEIC", lambda: b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64),
    "AVIF": ("fig.avif", lambda: b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1" + b"\x00" * 64),
    "GIF": ("fig.gif", lambda: b"GIF89a\x01\x00\x01\x00" + b"\x00" * 32),
    "BMP": ("fig.bmp", lambda: b"BM" + b"\x00" * 60),
    "TIFF": ("fig.tiff", lambda: b"II*\x00" + b"\x00" * 60),
    "PDF": ("fig.pdf", lambda: b"%PDF-1.4\n1 0 obj\n"),
    "SVG": ("fig.svg", lambda: b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"></svg>'),
}


@pytest.mark.parametrize("fmt", OTHER_FORMATS)
def test_a_figure_in_another_format_is_refused_naming_its_real_format_and_how_to_get_a_png(fmt):
    filename, make = OTHER_FORMATS[fmt]
    err = refused(validate_figure, filename, make(), "figure_bad_type")
    assert f"This is a{'n' if fmt[0] in 'AEHS' else ''} {fmt}" in err.en and f"这是 {fmt}" in err.zh
    assert "PNG or JPEG" in err.en and "savefig('heatmap.png')" in err.en + err.zh
    assert "something else" not in err.en and "内容不是图片" not in err.zh
    assert "named" not in err.en                     # the name matches the content


def test_a_figure_whose_name_disagrees_with_its_format_says_both():
    err = refused(validate_figure, "wechat_image.jpg", _webp(), "figure_bad_type")
    # round 27: the zh names the extension as one (文件名却是「.jpg」 called it the file name)
    assert "WebP image (extension '.jpg')" in err.en and "扩展名却是「.jpg」" in err.zh


def test_a_figure_that_could_not_be_read_is_not_reported_as_not_submitted(checklist):
    try:
        validate_figure("heatmap.jpg", _webp())
    except InputError as exc:
        error = exc
    item = _figure_item(grade_audit("", error, MEASURED_OK, checklist))
    assert item["points"] == 0
    assert "could not be read" in item["feedback"]["en"] and "WebP" in item["feedback"]["en"]
    assert "无法读取" in item["feedback"]["zh"]
    assert "No figure was submitted" not in item["feedback"]["en"]
    # no figure reached the grader: an unreadable upload is refused (upload) or passed on as its error
    # (grading.runner), so None means none was submitted, and the text says so (round 23)
    missing = _figure_item(grade_audit("", None, MEASURED_OK, checklist))["feedback"]
    assert missing["en"].startswith("No figure was submitted.") and missing["zh"].startswith("没有提交图。")


# ------------------------------------------------------------------------------------------- audits
def _zip(names: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in names.items():
            z.writestr(name, data)
    return buf.getvalue()


DOCX = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>"})
OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504


@pytest.mark.parametrize("filename, data, kind", [
    ("audit.docx", DOCX, "Word"),
    ("audit.doc", OLE2, "Word"),
    ("audit.wps", OLE2, "WPS"),
    ("audit.pages", _zip({"Index/Document.iwa": b"x"}), "Pages"),
    ("audit.rtf", b"{\\rtf1\\ansi hello}", "RTF"),
    ("audit.odt", _zip({"mimetype": b"application/vnd.oasis.opendocument.text"}), "OpenDocument"),
    ("docx_renamed.md", DOCX, "Word"),
    ("doc_renamed.txt", OLE2, "Word"),
])
def test_a_word_processor_document_is_refused_with_how_to_convert_it(filename, data, kind):
    err = refused(validate_audit, filename, data, "audit_bad_type")
    assert kind in err.en and kind.split()[0] in err.zh
    assert "Save As" in err.en and "PDF" in err.en and ".md" in err.en
    assert "另存为" in err.zh and "PDF" in err.zh and "复制" in err.zh
    assert "NUL" not in err.en
    if not filename.endswith((".docx", ".doc", ".wps", ".pages", ".rtf", ".odt")):
        assert f"(extension '{filename[filename.rindex('.'):]}')" in err.en


NOTEBOOK = json.dumps({"cells": [{"cell_type": "code", "source": [REFERENCE], "metadata": {}, "outputs": [],
                                  "execution_count": None}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1).encode()


@pytest.mark.parametrize("filename, data, what", [
    ("audit.html", b"<html><body>heatmap</body></html>", "web page"),
    ("audit.ipynb", NOTEBOOK, "Jupyter notebook"),
])
def test_a_web_page_or_notebook_audit_says_what_to_do(filename, data, what):
    err = refused(validate_audit, filename, data, "audit_bad_type")
    assert what in err.en and "PDF" in err.en and ".md" in err.en and "PDF" in err.zh


AUDIT_NOTEBOOK = json.dumps({"cells": [
    {"cell_type": "markdown", "source": ["# 审计\n", "每一行是一个 query，每行的权重之和为 1。"], "metadata": {}},
    {"cell_type": "code", "source": ["print(err)"], "metadata": {}, "execution_count": 1,
     "outputs": [{"output_type": "stream", "name": "stdout", "text": ["max_abs_error = 2.4e-07\n"]}]}],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, ensure_ascii=False).encode()


def test_a_notebook_or_web_page_saved_as_md_is_read_not_refused():
    """Both were read in full before the refusals above were added (13 points lost in the re-run of the
    realistic corpus): the notebook's cells and printed output, the page's text (tags are not read)."""
    text = validate_audit("audit.md", AUDIT_NOTEBOOK)
    assert "每一行是一个 query" in text and "max_abs_error = 2.4e-07" in text and '"cells"' not in text
    page = validate_audit("audit_saved.md", b"<!DOCTYPE html>\n<html><body><p>rows are queries</p></body></html>")
    assert "rows are queries" in page


AUDIT_ZH = "这张热力图只显示注意力权重，不能说明因果关系。每一行是一个 query，每行的权重之和为 1。"


def test_a_gbk_txt_audit_of_chinese_text_is_accepted():
    assert validate_audit("audit.txt", AUDIT_ZH.encode("gbk")) == AUDIT_ZH
    assert validate_audit("audit.txt", AUDIT_ZH.encode("gb18030")) == AUDIT_ZH


@pytest.mark.parametrize("data", [
    "Café, naïve, résumé: the heatmap is déjà vu.".encode("cp1252"),
    bytes(range(0x81, 0xFF)) * 3,
])
def test_non_utf8_audit_text_that_is_not_plausibly_chinese_is_still_refused(data):
    err = refused(validate_audit, "audit.txt", data, "audit_not_utf8")
    assert re.search(r"line \d+, column \d+", err.en) and re.search(r"第 \d+ 行第 \d+ 列", err.zh)


# --------------------------------------------------------------------------------------------- code
@pytest.mark.parametrize("filename", ["attention.ipynb", "attention.py", "attention.txt"])
def test_a_notebook_uploaded_as_code_is_refused_with_how_to_export_it_under_any_name(filename):
    err = refused(validate_code, filename, NOTEBOOK, "code_is_notebook")
    for step in ("Download as → Python (.py)", "Executable Script", "Download .py", "Python Script"):
        assert step in err.en
    for step in ("Download as → Python (.py)", "Executable Script", "下载 .py", "Python Script"):
        assert step in err.zh


def test_a_notebook_with_a_bom_and_leading_whitespace_is_still_a_notebook():
    refused(validate_code, "attention.py", b"\xef\xbb\xbf\n  " + NOTEBOOK, "code_is_notebook")


SOURCE_ZH = "# -*- coding: {enc} -*-\n# 注意力机制：缩放点积\nLABEL = '查询'\n"


@pytest.mark.parametrize("encoding", ["gbk", "gb18030", "cp936"])
def test_code_in_a_chinese_encoding_with_a_pep263_cookie_is_read_as_python_would(encoding):
    source = SOURCE_ZH.format(enc=encoding)
    assert validate_code("attention.py", source.encode(encoding)) == source


def test_utf8_code_with_a_stale_cookie_is_refused_as_python_refuses_it():
    """Round 36: it was read as UTF-8, and loaded in the grader where Python refuses the file (it reads it as GBK)."""
    source = SOURCE_ZH.format(enc="gbk")
    with pytest.raises(SyntaxError):
        compile(source.encode("utf-8"), "attention.py", "exec")
    err = refused(validate_code, "attention.py", source.encode("utf-8"), "code_cookie_mismatch")
    assert "line 1 declares the encoding 'gbk'" in err.en and "第 1 行声明的编码是 `gbk`" in err.zh


def test_code_that_breaks_its_own_cookie_is_refused_at_a_line_and_column():
    data = "# coding: gbk\nx = 1\ny = '注'\n".encode("gbk") + b"\x80\xff\n"
    err = refused(validate_code, "attention.py", data, "code_bad_encoding")
    assert "line 4, column 1" in err.en and "第 4 行第 1 列" in err.zh


def test_non_utf8_code_without_a_cookie_is_refused_at_a_line_and_column_not_a_byte_offset():
    data = "x = 1\n# 查询\n".encode("gbk")
    err = refused(validate_code, "attention.py", data, "code_not_utf8")
    assert "line 2, column 3" in err.en and "第 2 行第 3 列" in err.zh
    assert "offset" not in err.en and "偏移" not in err.zh
    assert "coding: gbk" in err.en and "GBK" in err.en


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_code_without_a_bom_is_recognised_and_refused_with_save_as_utf8(codec):
    err = refused(validate_code, "attention.py", REFERENCE.encode(codec), "code_utf16_no_bom")
    assert "UTF-16" in err.en and "without a BOM" in err.en and "UTF-8" in err.zh
    assert "NUL" not in err.en


def test_binary_code_is_still_refused_as_binary():
    refused(validate_code, "attention.py", b"import torch\x00\x00\x01\x02\x03\xff" * 4, "code_binary")


def test_code_saved_as_py_txt_is_accepted_and_a_txt_gets_the_windows_explanation():
    """Windows hides extensions: Explorer shows attention.py.txt as "attention.py"."""
    from grading.inputs import validate_code

    assert validate_code("attention.py.txt", b"x = 1\n") == "x = 1\n"
    err = refused(validate_code, "attention.txt", b"x = 1\n", "code_bad_type")
    assert "Windows hides file extensions" in err.en and "文件扩展名" in err.zh


def test_a_plain_text_audit_in_another_format_is_told_to_rename_it():
    err = refused(validate_audit, "audit.tex", b"\\section{Audit} rows are queries", "audit_bad_type")
    assert "rename it to audit.txt" in err.en and "重命名为 audit.txt" in err.zh
