"""Validation of uploaded files (student code, written audit, audit figure).

Every function either returns something safe to hand to the grader or raises :class:`InputError`
with a stable ``code`` and a message in English and Chinese. Nothing is stored by this module.

Untrusted bytes are handled defensively:

* sizes are checked before any parsing;
* image dimensions are read from the PNG/JPEG header by hand and checked against
  :data:`MAX_FIGURE_PIXELS` *before* Pillow decodes anything, so a decompression bomb costs a few
  microseconds and no memory;
* the image is then really decoded (``Image.load()``) so truncated or corrupt files are caught here
  and not later in the grader;
* PDF text extraction is bounded in pages, per-page content size and wall time, and runs (like
  the image decode) in a child process with CPU, memory and wall limits (``grading.decode``);
* the JPEG scan count and the PNG chunks are checked before decoding.
"""

from __future__ import annotations

import codecs
import functools
import io
import os
import re
import struct
import time
import unicodedata
import warnings
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from grading.i18n import capped

# --------------------------------------------------------------------------------------------------
# Limits (module constants so that the web layer can show them and tests can refer to them)
# --------------------------------------------------------------------------------------------------

MAX_CODE_BYTES = 256 * 1024            # student source file
MAX_AUDIT_TEXT_BYTES = 256 * 1024      # .md / .markdown / .txt audit
MAX_AUDIT_PDF_BYTES = 5 * 1024 * 1024  # .pdf audit
MAX_AUDIT_CHARS = 100_000              # extracted / decoded text handed to the checker
MAX_PDF_PAGES = 20
MAX_PDF_PAGE_CONTENT_BYTES = 2 * 1024 * 1024   # decoded content stream of one page
MAX_PDF_SECONDS = 5.0                  # CPU time, checked between pages (waiting for a CPU is free)
MIN_PDF_WORD_CHARS = 10                # fewer letters/digits/CJK than this = "no text layer"
MAX_FIGURE_BYTES = 5 * 1024 * 1024
MAX_FIGURE_PIXELS = 4096 * 4096
MAX_FIGURE_SIDE = 16384                # a 1 x 16M strip is not a figure either
STATS_SIDE = 128                       # statistics are computed on a copy at most this large
# Structure, checked before decoding: a decoder's cost grows with scans and chunks, not only pixels
# (one tiny progressive scan repeated 40,000 times costs a minute of CPU in a 1.4 MB JPEG).
MAX_JPEG_SCANS = 64                    # libjpeg's progressive files have about 10
# Marker segments of any kind: cameras, phones and libjpeg write fewer than 40 (EXIF, ICC profile chunks,
# tables, scans). Four-byte empty COM segments fill a 5 MiB file 1.3 million times: walking them cost the
# web process 1.4 s of CPU before the decoding child, and the child 2.7 s more.
MAX_JPEG_SEGMENTS = 1024
MAX_JPEG_STRAY_BYTES = 64 * 1024       # fill or junk bytes before the first scan, outside any segment
MAX_PNG_CHUNKS = 4096                  # libpng writes 8 KiB IDATs: a 5 MiB file has ~640
MAX_PNG_TEXT_CHUNK = 64 * 1024         # compressed text/profile chunks (zTXt, iTXt, iCCP)

CODE_EXTENSIONS = (".py",)
AUDIT_TEXT_EXTENSIONS = (".md", ".markdown", ".txt")
AUDIT_PDF_EXTENSIONS = (".pdf",)
FIGURE_EXTENSIONS = (".png", ".jpg", ".jpeg")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"
PDF_MAGIC = b"%PDF-"
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"     # .doc, .wps, .xls, .ppt (Microsoft compound file)
_ZIP_MAGIC = b"PK\x03\x04"


class InputError(Exception):
    """A rejected upload. ``code`` is stable (for tests, logs and the UI); ``en``/``zh`` are shown."""

    def __init__(self, code: str, en: str, zh: str):
        self.code = code
        self.en = en
        self.zh = zh
        super().__init__(f"[{code}] {en} / {zh}")

    @property
    def message(self) -> dict[str, str]:
        return {"en": self.en, "zh": self.zh}

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class FigureInfo:
    """What the grader knows about a validated figure.

    ``format`` is ``"PNG"`` or ``"JPEG"`` (sniffed from the bytes, not the file name). The statistics
    are computed on a copy downscaled to at most :data:`STATS_SIDE` pixels and flattened onto white:

    * ``distinct_colours``: colours in that copy after quantising each channel to 16 levels;
    * ``luminance_std``: standard deviation of the luminance (0-255);
    * ``ink_fraction``: share of pixels that are not near-white background;
    * ``colour_blocks``: colours (not near-white, not near-black) that each cover >= 2 % of the copy,
      i.e. large uniform patches such as the cells of a heatmap;
    * ``is_blank``: nothing drawn (uniform image or almost no ink);
    * ``looks_like_heatmap``: at least two colour blocks covering together >= 20 % of the image.
    """

    format: str
    width: int
    height: int
    mode: str
    distinct_colours: int = 0
    luminance_std: float = 0.0
    ink_fraction: float = 0.0
    colour_blocks: int = 0
    is_blank: bool = False
    looks_like_heatmap: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------

def _fmt_size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):g} MiB"
    if n >= 1024:
        return f"{n / 1024:g} KiB"
    return f"{n} B"


# What Chinese and Japanese input methods type for "." in their own mode: 。 and the half-width ｡ (NFKC
# makes ｡ into 。, and the full-width ．ｐｙ into .py).
_IDEOGRAPHIC_STOPS = str.maketrans({"\u3002": ".", "\uff61": "."})


def _plain_name(filename: str | None) -> str:
    """The base name, lower case, as the type checks read it. Round 26: a name typed with an input method
    ("attention。py", "attention．py", "audit.ｍｄ") or saved with a trailing dot ("attention.py.", which
    Windows opens as attention.py) was "got 'no extension'", "got '.ｐｙ'" or "got '.'": an extension that
    looks like the one asked for. Folded here: NFKC, the ideographic full stop read as a dot, invisible
    format characters (a zero-width space) dropped, trailing dots and spaces dropped as Windows does."""
    name = unicodedata.normalize("NFKC", filename or "").translate(_IDEOGRAPHIC_STOPS)
    name = os.path.basename(name.replace("\\", "/"))
    name = "".join(ch for ch in name if unicodedata.category(ch) != "Cf")
    return name.strip().rstrip(". ").lower()


def _extension(filename: str | None) -> str:
    name = _plain_name(filename)
    ext = os.path.splitext(name)[1]
    # splitext reads ".py" as a hidden file named ".py" with no extension; a student who uploads a
    # file named only ".py" has a Python file whose name is all extension.
    bare = name.lstrip(".")
    if not ext and name.startswith(".") and bare and "." not in bare:
        return "." + bare
    return ext


def _require_bytes(data, what_en: str, what_zh: str, code_prefix: str) -> bytes:
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise InputError(f"{code_prefix}_missing", f"No {what_en} was uploaded.", f"没有上传{what_zh}。")
    return data


def _check_size(data: bytes, limit: int, code: str, what_en: str, what_zh: str) -> None:
    if len(data) > limit:
        raise InputError(
            code,
            f"The {what_en} is {_fmt_size(len(data))}; the limit is {_fmt_size(limit)}.",
            f"{what_zh}大小为 {_fmt_size(len(data))}，超过上限 {_fmt_size(limit)}。",
        )


def _position(data: bytes, start: int) -> tuple[int, int]:
    """(line, column), both from 1, of byte offset ``start``; the column counts characters."""
    line_start = data.rfind(b"\n", 0, start) + 1
    if line_start == 0 and data.startswith(codecs.BOM_UTF8):
        line_start = len(codecs.BOM_UTF8)  # the byte-order mark is no column the student sees (round 46 mend)
    column = len(data[line_start:start].decode("utf-8", "replace")) + 1
    return data.count(b"\n", 0, start) + 1, column


def empty_error(code: str, what_en: str, what_zh: str, *, blank: bool = False) -> InputError:
    """The refusal of a file with nothing in it: what was seen (no bytes, or only spaces, tabs and line breaks) and
    what to do. No cause is named: an unsaved editor, a cloud placeholder and the wrong file all look the same."""
    seen_en = "holds only whitespace (spaces, tabs, line breaks)" if blank else "is empty (0 bytes)"
    seen_zh = "只有空白字符（空格、制表符、换行）" if blank else "是空的（0 字节）"
    return InputError(
        code,
        f"The {what_en} {seen_en}. Open it to check that it holds your work, save it, and upload it again.",
        f"{what_zh}{seen_zh}。请打开它确认里面有你的内容，保存后重新上传。",
    )


def nul_error(code: str, what_en: str, what_zh: str, text: str) -> InputError:
    """The refusal of text that holds NUL characters (U+0000): where the first is, how many there are, and what to
    do; the rest of the text is readable, so it is no binary file."""
    start = text.index("\x00")
    line = len(re.split(r"\r\n|\r|\n", text[:start]))
    column = start - max(text.rfind("\n", 0, start), text.rfind("\r", 0, start))
    n = text.count("\x00")
    more_en = f", {n} in the file" if n > 1 else ""
    more_zh = f"，文件中共有 {n} 个" if n > 1 else ""
    return InputError(
        code,
        f"The {what_en} is text, but line {line}, column {column} holds a NUL character (U+0000{more_en}), an "
        "invisible character a text file must not hold (Python refuses source code with one). Delete it (many "
        "editors show it as NUL or as a small box; in VS Code, search for the regular expression \\x00 and replace "
        "it with nothing), save the file as UTF-8 and upload it again.",
        f"{what_zh}是文本，但第 {line} 行第 {column} 列有 NUL 字符（U+0000{more_zh}），这是文本文件中不能有的"
        "不可见字符（Python 拒绝含有它的源代码）。请删掉它（很多编辑器把它显示为 NUL 或小方框；在 VS Code 中可用正则表达式 "
        "\\x00 搜索并替换为空），以 UTF-8 保存后重新上传。",
    )


def _utf16_without_bom(data: bytes) -> bool:
    """Every other byte is NUL: UTF-16 text (mostly ASCII, as code is) saved without a byte order mark."""
    if len(data) < 8:
        return False
    head = data[:4096]
    even, odd = head[0::2], head[1::2]
    nul_even, nul_odd = even.count(0) / len(even), odd.count(0) / max(1, len(odd))
    return max(nul_even, nul_odd) >= 0.5 and min(nul_even, nul_odd) <= 0.02


@dataclass(frozen=True)
class FileKind:
    """What a file that is not text is, by its bytes: its name with an article in English, its name in
    Chinese, and a family that decides what the student is told to do instead."""

    en: str
    zh: str
    family: str      # archive | image | document | compiled | program | data


def _zip_kind(data: bytes) -> FileKind:
    # A ZIP names its members in its local headers and again in its central directory, at the end.
    names = data[:64 * 1024] + data[-64 * 1024:]
    if b"word/" in names:
        return FileKind("a Word document (.docx)", "Word 文档（.docx）", "document")
    if b"xl/" in names:
        return FileKind("an Excel workbook (.xlsx)", "Excel 工作簿（.xlsx）", "document")
    if b"ppt/" in names:
        return FileKind("a PowerPoint presentation (.pptx)", "PowerPoint 演示文稿（.pptx）", "document")
    if b"opendocument" in names:
        return FileKind("an OpenDocument file (.odt/.ods)", "OpenDocument 文档（.odt/.ods）", "document")
    if b"Index/Document.iwa" in names:
        # Apple's iWork formats (Pages, Numbers, Keynote: one ZIP layout, which says no more) since 2013: a Pages
        # file picked as the code was told to unzip it and upload the attention.py inside (round 46 mend)
        return FileKind("an Apple iWork document (Pages, Numbers or Keynote)", "Apple iWork 文档（Pages、Numbers 或 Keynote）",
                        "document")
    if b"data.pkl" in names:
        return FileKind("a PyTorch file saved with torch.save (.pt/.pth)", "用 torch.save 保存的 PyTorch 文件（.pt/.pth）",
                        "data")
    return FileKind("a ZIP archive", "ZIP 压缩包", "archive")


# Magic bytes of what students upload by mistake in place of a text file (first match wins).
_MAGIC_KINDS: tuple[tuple[bytes, FileKind], ...] = (
    (b"\x1f\x8b", FileKind("a gzip archive (.gz/.tar.gz)", "gzip 压缩包（.gz/.tar.gz）", "archive")),
    (b"7z\xbc\xaf\x27\x1c", FileKind("a 7-Zip archive", "7-Zip 压缩包", "archive")),
    (b"Rar!\x1a\x07", FileKind("a RAR archive", "RAR 压缩包", "archive")),
    (b"\xfd7zXZ\x00", FileKind("an xz archive", "xz 压缩包", "archive")),
    (b"\x28\xb5\x2f\xfd", FileKind("a Zstandard archive", "Zstandard 压缩包", "archive")),
    (PDF_MAGIC, FileKind("a PDF file", "PDF 文件", "document")),
    (_OLE2_MAGIC, FileKind("an Office or WPS document (.doc/.xls/.ppt/.wps)", "Office 或 WPS 文档（.doc/.xls/.ppt/.wps）",
              "document")),
    (b"\x7fELF", FileKind("a compiled program (ELF)", "编译好的程序（ELF）", "program")),
    (b"\xcf\xfa\xed\xfe", FileKind("a compiled program (Mach-O)", "编译好的程序（Mach-O）", "program")),
    (b"\xca\xfe\xba\xbe", FileKind("a compiled Java class or macOS program", "编译好的 Java 类或 macOS 程序",
                                   "program")),
    (b"\x93NUMPY", FileKind("a NumPy array file (.npy)", "NumPy 数组文件（.npy）", "data")),
    (b"\x89HDF\r\n\x1a\n", FileKind("an HDF5 data file (.h5)", "HDF5 数据文件（.h5）", "data")),
    (b"SQLite format 3\x00", FileKind("an SQLite database", "SQLite 数据库", "data")),
)


def sniff_binary_kind(data: bytes) -> FileKind | None:
    """What a file is when its bytes say so (archives, images, documents, compiled code, saved data), or
    None. Called only on files already being refused as not text, so a weak match can change what the
    message says, never whether the file is accepted. Before round 26 a ZIP, a screenshot or a PDF
    uploaded as the code was "contains NUL bytes: a binary file" (or, for a PDF, "looks like GBK")."""
    head = bytes(data[:4096])
    # Text is never sniffed: every format below writes NUL bytes in its first blocks (a header field,
    # a length, a flag) but PDF, whose header is text; text in GBK may begin with the bytes of a magic
    # number ("漱壕" is CA FE BA BE, a Java class's) and has no NUL.
    if b"\x00" not in data and not head.lstrip().startswith(PDF_MAGIC):
        return None
    if head.startswith((_ZIP_MAGIC, b"PK\x05\x06")):
        return _zip_kind(bytes(data))
    if head.lstrip().startswith(PDF_MAGIC):
        return FileKind("a PDF file", "PDF 文件", "document")
    for magic, kind in _MAGIC_KINDS:
        if head.startswith(magic):
            return kind
    if head.startswith(PNG_MAGIC) or head.startswith(JPEG_MAGIC):
        fmt = "PNG" if head.startswith(PNG_MAGIC) else "JPEG"
        return FileKind(f"a {fmt} image", f"{fmt} 图片", "image")
    image = _sniff_figure_format(head + bytes(data[4096:4096 + 32]))
    if image is not None and image[0] not in ("PDF", "SVG"):
        name = image[0]
        return FileKind(f"{'an' if name[0] in 'AEFHIMNORSX' else 'a'} {name} image", f"{name} 图片", "image")
    # Python 3's .pyc: a 2-byte magic number (3000-3999 little-endian), then \r\n, then 12 header bytes.
    if len(data) >= 16 and head[2:4] == b"\r\n" and 3000 <= int.from_bytes(head[:2], "little") < 4000:
        return FileKind("compiled Python bytecode (.pyc)", "编译后的 Python 字节码（.pyc）", "compiled")
    if len(data) >= 512 and data[257:262] == b"ustar":
        return FileKind("a tar archive", "tar 归档文件", "archive")
    if head[:2] == b"MZ" and b"\x00" in head[:64]:
        return FileKind("a Windows program (.exe/.dll)", "Windows 程序（.exe/.dll）", "program")
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return FileKind("a Python pickle (saved data)", "Python pickle（保存的数据）", "data")
    return None


# What to do instead, per upload field and family of what was uploaded: (English, Chinese).
_INSTEAD: dict[str, dict[str, tuple[str, str]]] = {
    "code": {
        "archive": ("Extract it and upload attention.py from inside it.", "请先解压，再上传其中的 attention.py。"),
        "image": ("A picture of code cannot be run: upload attention.py itself, the text file your editor saves.",
                  "代码的图片无法运行：请上传编辑器保存的 attention.py 文本文件本身。"),
        "document": ("Code inside a document cannot be run: copy it into a code editor (VS Code, Notepad), save "
                     "it as attention.py in UTF-8 and upload that file.",
                     "文档里的代码无法运行：请把代码复制到代码编辑器（VS Code、记事本），以 UTF-8 保存为 attention.py，"
                     "再上传该文件。"),
        "compiled": ("It comes from a __pycache__ folder: upload the source file attention.py (next to "
                     "__pycache__, not inside it).",
                     "它来自 __pycache__ 文件夹：请上传源代码文件 attention.py（在 __pycache__ 旁边，不在里面）。"),
        "program": ("Upload the source file attention.py.", "请上传源代码文件 attention.py。"),
        "data": ("It holds saved data, not code: upload attention.py, the file with your class in it.",
                 "它保存的是数据，不是代码：请上传写有你的类的 attention.py。"),
    },
    "audit": {
        "archive": ("Extract it and upload the audit (.md, .txt or .pdf) from inside it.",
                    "请先解压，再上传其中的审计文件（.md、.txt 或 .pdf）。"),
        "image": ("Upload the figure in the figure field and the audit text as .md, .txt or .pdf.",
                  "请把图放在「图」的上传框，审计文字以 .md、.txt 或 .pdf 上传。"),
        "document": ("Save it as PDF (File → Save As or Export → PDF) and upload that, or copy the text into a "
                     "plain-text file saved as UTF-8 and named audit.md or audit.txt.",
                     "请另存为 PDF（文件 → 另存为或导出 → PDF）后上传，或把文字复制到纯文本文件，以 UTF-8 保存为 "
                     "audit.md 或 audit.txt。"),
    },
    "figure": {
        "archive": ("Extract it and upload the PNG or JPEG image from inside it.",
                    "请先解压，再上传其中的 PNG 或 JPEG 图片。"),
    },
}
_INSTEAD_DEFAULT = {
    "code": ("Upload the source file attention.py.", "请上传源代码文件 attention.py。"),
    "audit": ("Upload the audit text as .md, .txt or .pdf.", "请以 .md、.txt 或 .pdf 上传审计文字。"),
    "figure": ("Save the plot with plt.savefig('heatmap.png') and upload that PNG.",
               "请用 plt.savefig('heatmap.png') 保存图，再上传该 PNG。"),
}


def _binary_kind_error(code: str, field: str, what_en: str, what_zh: str, kind: FileKind, *,
                       named: tuple[str, str] = ("", ""), expected: tuple[str, str] | None = None) -> InputError:
    """The refusal of a file that is ``kind``, in the ``field`` it was uploaded to, where ``expected`` (by
    default: a text file, or an image for the figure) was."""
    instead_en, instead_zh = _INSTEAD.get(field, {}).get(kind.family) or _INSTEAD_DEFAULT[field]
    not_en, not_zh = expected or (
        ("a PNG or JPEG image", "PNG 或 JPEG 图片") if field == "figure" else ("a text file", "文本文件"))
    space = " " if kind.zh[:1].isascii() else ""
    space_not = " " if not_zh[:1].isascii() else ""    # "不是 PNG 或 JPEG 图片", as "是 ZIP 压缩包"
    return InputError(
        code,
        f"The {what_en} is {kind.en}{named[0]}, not {not_en}. {instead_en}",
        f"{what_zh}是{space}{kind.zh}{named[1]}，不是{space_not}{not_zh}。{instead_zh}",
    )


def _decode_utf8(data: bytes, code_prefix: str, what_en: str, what_zh: str, *,
                 cookie: bool = False, gb18030: bool = False) -> str:
    """UTF-8 (with or without BOM); UTF-16 and UTF-32 are accepted only when they carry a BOM.

    ``cookie`` (code only): a file that declares its encoding on line 1 or 2 (PEP 263,
    ``# -*- coding: gbk -*-``) is decoded with it, as Python itself would, also when it is UTF-8 (round 36: a
    UTF-8 file with a stale ``# coding: gbk`` was read as UTF-8 and ran in the grader, where Python refuses it
    or reads other characters); a cookie Python refuses (an unknown encoding, a BOM with another encoding) or
    bytes the declared encoding cannot decode are refused with Python's reason.
    ``gb18030`` (audit text only): see :func:`_plausibly_chinese`."""
    # UTF-32's byte order marks begin with UTF-16's (FF FE 00 00): read as UTF-16, such text was every
    # other character a NUL and refused as "contains NUL characters", a cause the file does not have.
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        try:
            return data.decode("utf-32")
        except UnicodeDecodeError:
            pass
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    elif (kind := sniff_binary_kind(data)) is not None:
        raise _binary_kind_error(f"{code_prefix}_binary", code_prefix, what_en, what_zh, kind)
    elif _utf16_without_bom(data):
        raise InputError(
            f"{code_prefix}_utf16_no_bom",
            f"The {what_en} is UTF-16 text without a BOM (byte order mark), which cannot be read reliably. "
            "Save it as UTF-8 (in Notepad: Save As → Encoding: UTF-8; in VS Code: the encoding in the status "
            "bar → Save with Encoding → UTF-8) and upload it again.",
            f"{what_zh}是没有 BOM（字节顺序标记）的 UTF-16 文本，无法可靠读取。请另存为 UTF-8"
            "（记事本：另存为 → 编码选 UTF-8；VS Code：点状态栏的编码 → 通过编码保存 → UTF-8）后重新上传。",
        )
    elif b"\x00" in data:
        try:
            # text but for its NULs (round 33: one NUL pasted into a source file was told "a binary file")
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError(
                f"{code_prefix}_binary",
                f"The {what_en} contains NUL bytes: it is a binary file, not text.",
                f"{what_zh}包含 NUL 字节：这是二进制文件，不是文本。",
            ) from None
        raise nul_error(f"{code_prefix}_binary", what_en, what_zh, text)
    if cookie and (declared := _as_python_reads(data, code_prefix, what_en, what_zh)) is not None:
        return declared
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        error = exc
    else:
        return text
    hint_en = hint_zh = ""
    if gb18030:
        # Traditional Chinese Windows (Taiwan, Hong Kong) saves .txt as Big5 (cp950), which GB18030 also
        # decodes, to rare characters: GBK is tried first (it is the common case and its plausibility test
        # refuses Big5 text), then Big5 with a test of its own (audit round 13: a Big5 audit was refused).
        try:
            text = data.decode("gb18030")
            if _plausibly_chinese(text):
                return text
        except UnicodeDecodeError:
            pass
        for codec in ("cp950", "big5hkscs"):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError:
                continue
            if _plausibly_big5(text, codec):
                return text
    try:
        text = data.decode("gb18030")
        if gb18030 and _plausibly_chinese(text):
            return text
        hint_en = " It looks like GBK/GB18030 (a Chinese Windows encoding)."
        hint_zh = "它看起来是 GBK/GB18030 编码（中文 Windows 默认编码）。"
        if cookie:
            # PEP 263: the cookie may stand on the first or the second line (after a #! line)
            hint_en += (" Python reads it only with '# -*- coding: gbk -*-' on its first or second line. UTF-8 is "
                        "better.")
            hint_zh += "只有在第一行或第二行写上「# -*- coding: gbk -*-」Python 才能读取；更好的做法是保存为 UTF-8。"
    except UnicodeDecodeError:
        pass
    # utf-8-sig counts its error's offset after the byte-order mark (round 46: a file saved by Notepad as "UTF-8 with
    # BOM" was located 3 bytes early: "column 7" for a bad byte at column 10)
    start = error.start + (len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0)
    line, col = _position(data, start)
    if hint_en:
        part, first = _gbk_part_start(data, start)
        line, col = _position(data, part)
        if first is not None:
            # Its letters read either way (GBK 茅 is UTF-8 "é"): say both, guess neither (mend round 47:
            # a whole GBK file with "x茅" was located only at its next Chinese text, below the first one
            # UTF-8 shows wrongly)
            line0, col0 = _position(data, first)
            shown = data[first:_NON_ASCII_RUN.match(data, first).end()].decode("utf-8")
            raise InputError(
                f"{code_prefix}_not_utf8",
                f"The {what_en} is not valid UTF-8. It reads as GBK/GB18030 (a Chinese Windows encoding) "
                f"from its first non-ASCII text on, line {line0}, column {col0}, which UTF-8 shows as "
                f"\"{shown}\" (if that text is meant as UTF-8, the GBK part starts at line {line}, "
                f"column {col})."
                f"{hint_en[hint_en.find('.') + 1:]} Save it as UTF-8 and upload it again.",
                f"{what_zh}不是有效的 UTF-8。从第一处非 ASCII 文字（第 {line0} 行第 {col0} 列，UTF-8 显示为「{shown}」）起，"
                f"它都能按 GBK/GB18030 编码（中文 Windows 默认编码）读取（如果那里的文字本来就是 UTF-8，GBK 部分从"
                f"第 {line} 行第 {col} 列开始）。{hint_zh[hint_zh.find('。') + 1:]}请另存为 UTF-8 后重新上传。",
            ) from None
    raise InputError(
        f"{code_prefix}_not_utf8",
        f"The {what_en} is not valid UTF-8 (first bad byte at line {line}, column {col}).{hint_en} "
        f"Save it as UTF-8 and upload it again.",
        f"{what_zh}不是有效的 UTF-8（第一个错误字节位于第 {line} 行第 {col} 列）。{hint_zh}"
        f"请另存为 UTF-8 后重新上传。",
    ) from None


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _fix_cookie(line: int) -> tuple[str, str]:
    return (f"Change line {line} to `# -*- coding: utf-8 -*-` (or delete it), save the file as UTF-8 and upload it "
            "again.", f"请把第 {line} 行改成 `# -*- coding: utf-8 -*-`（或删掉这一行），以 UTF-8 保存后重新上传。")


# PEP 263 as CPython 3.11 reads a file: the declaration counts on line 2 only after a comment or blank line 1
_COMMENT_OR_BLANK = re.compile(rb"[ \t\f]*(?:[#\r\n]|$)")


def _normal_cookie(name: str) -> str:
    """CPython's ``get_normal_name``: "UTF_8", "utf-8-sig"... are "utf-8", the Latin-1 spellings "iso-8859-1"."""
    low = name[:12].lower().replace("_", "-")
    if low == "utf-8" or low.startswith("utf-8-"):
        return "utf-8"
    if low in ("latin-1", "iso-8859-1", "iso-latin-1") or low.startswith(("latin-1-", "iso-8859-1-", "iso-latin-1-")):
        return "iso-8859-1"
    return name


def _refuse_ignored_cookie(body: bytes, lines: list[bytes], code_prefix: str, what_en: str, what_zh: str) -> None:
    """Refuse, with what was seen, a file that is not UTF-8 and declares its encoding on line 2 below a line 1 of
    code: CPython 3.11 reads a line-2 declaration only after a comment or blank line 1, so it ignores this one and
    refuses the file as not UTF-8 (round 37: ``import torch  # 注意力`` in GBK above ``# -*- coding: gbk -*-`` was
    told to put the declaration on line 1 or 2, where it already was)."""
    if len(lines) < 2 or (match := _COOKIE.match(lines[1])) is None or _normal_cookie(
            name := match.group(1).decode("ascii")) == "utf-8":
        return
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, _ = _position(body, exc.start)
        reason = f"Non-UTF-8 code starting with '\\x{body[exc.start]:02x}' on line {line}, but no encoding declared"
    else:
        return
    shown = capped(name)
    raise InputError(
        f"{code_prefix}_not_utf8",
        f"The {what_en} declares the encoding '{shown}' on line 2, but its line 1 is code, not a comment: Python reads a "
        "declaration on line 2 only when line 1 is a comment or blank, so it ignores this one, reads the file as "
        f"UTF-8 and refuses it (SyntaxError: {reason}); the grader does the same. Move the declaration to line 1, or "
        "save the file as UTF-8 and delete the coding line, and upload it again.",
        f"{what_zh}在第 2 行声明了编码 `{shown}`，但第 1 行是代码而不是注释：只有第 1 行是注释或空行时，Python 才会读取"
        f"第 2 行的编码声明，所以它忽略了这个声明，按 UTF-8 读取文件并拒绝运行（`SyntaxError: {reason}`），评分系统也"
        "一样。请把声明移到第 1 行，或以 UTF-8 保存并删除第 2 行的编码声明，然后重新上传。",
    )


def _as_python_reads(data: bytes, code_prefix: str, what_en: str, what_zh: str) -> str | None:
    """The text of a file with a PEP 263 coding declaration other than UTF-8, read as ``python3.11 file.py`` reads
    it, or None when it has none (or declares UTF-8): the UTF-8 rules then apply. Refused, with Python's reason,
    exactly where Python refuses: a line 1 that is not UTF-8 before a declaration on line 2, a UTF-8 BOM with another
    encoding, an encoding Python does not know or cannot read source in (``hex``, ``rot13``, ``utf-16``...), bytes
    the declared encoding cannot decode. Lines end at CR, LF or CRLF, as in CPython's tokenizer (round 36: a CR-only
    file with a gbk declaration was refused, Python runs it); the declaration line itself is not decoded by Python,
    only the lines after it."""
    body = data.removeprefix(b"\xef\xbb\xbf")
    lines = body.splitlines(keepends=True)
    at = match = None
    for index, line in enumerate(lines[:2]):
        if (match := _COOKIE.match(line)) is not None:
            at = index
            break
        if not _COMMENT_OR_BLANK.match(line):
            break
    if at is None or match is None:
        _refuse_ignored_cookie(body, lines, code_prefix, what_en, what_zh)
        return None
    name = match.group(1).decode("ascii")
    shown = capped(name)
    fix_en, fix_zh = _fix_cookie(at + 1)
    normal = _normal_cookie(name)
    if at == 1 and not _is_utf8(lines[0]):
        # the column as the student sees line 1 (its first non-ASCII character), the byte as Python names it (the
        # first one that is not UTF-8: GBK's 注 is D7 A2, which UTF-8 also reads)
        first = re.search(rb"[\x80-\xff]", lines[0])
        col = first.start() + 1 if first else 1
        try:
            lines[0].decode("utf-8")
        except UnicodeDecodeError as exc:
            byte = lines[0][exc.start]
        reason = f"Non-UTF-8 code starting with '\\x{byte:02x}' on line 1, but no encoding declared"
        raise InputError(
            f"{code_prefix}_not_utf8",
            f"The {what_en}'s line 1 is not valid UTF-8 (its first character that is not ASCII is at column {col}), "
            f"and its encoding '{shown}' is declared only on line 2: Python reads line 1 as UTF-8 before it reaches the declaration and refuses "
            f"the file (SyntaxError: {reason}); the grader does the same. Save the file as UTF-8 and delete the "
            "coding line, or move the declaration to line 1, and upload it again.",
            f"{what_zh}的第 1 行不是有效的 UTF-8（第一个非 ASCII 字符位于第 {col} 列），而编码声明 `{shown}` 在第 2 行："
            f"Python 在读到声明之前就按 UTF-8 读取第 1 行，因此拒绝这个文件（`SyntaxError: {reason}`），评分系统也一样。"
            "请以 UTF-8 保存并删除第 2 行的编码声明，或把声明移到第 1 行，然后重新上传。",
        )
    if data.startswith(b"\xef\xbb\xbf") and normal != "utf-8":
        raise InputError(
            f"{code_prefix}_bad_cookie",
            f"The {what_en} begins with a UTF-8 BOM (byte order mark) but line {at + 1} declares the encoding "
            f"'{shown}', and Python refuses a file that says both (SyntaxError: encoding problem: {capped(normal)} with "
            "BOM); "
            f"the grader does the same. {fix_en}",
            f"{what_zh}以 UTF-8 BOM（字节顺序标记）开头，但第 {at + 1} 行声明的编码是 `{shown}`，Python 拒绝运行这种前后"
            f"矛盾的文件（`SyntaxError: encoding problem: {capped(normal)} with BOM`），评分系统也一样。{fix_zh}",
        )
    head, rest = b"".join(lines[:at + 1]), b"".join(lines[at + 1:])
    if normal == "utf-8":
        # the declaration line itself is a comment Python does not decode: `# coding: utf-8 注释` saved as GBK runs
        if _is_utf8(body) or not _is_utf8(rest):
            return None
        return (lines[0].decode("utf-8") if at else "") + lines[at].decode("utf-8", "replace") + rest.decode("utf-8")
    try:
        info = codecs.lookup(name)
        unknown = False
    except LookupError:
        unknown = True
    if unknown:
        raise InputError(
            f"{code_prefix}_bad_cookie",
            f"The {what_en} declares on line {at + 1} the encoding '{shown}', which Python does not know, so Python "
            f"refuses to run it (SyntaxError: encoding problem: {shown}); the grader does the same. {fix_en}",
            f"{what_zh}在第 {at + 1} 行声明的编码 `{shown}` 是 Python 不认识的，Python 因此拒绝运行它"
            f"（`SyntaxError: encoding problem: {shown}`），评分系统也一样。{fix_zh}",
        )
    try:
        if not info._is_text_encoding or info.name.startswith(("utf-16", "utf-32")):
            # not text codecs (hex, rot13, base64...), or not ASCII-compatible: the declaration itself does not
            # read back, and Python refuses either
            raise ValueError(name)
        return (lines[0].decode("utf-8") if at else "") + lines[at].decode(name, "replace") + rest.decode(name)
    except UnicodeDecodeError as exc:
        start = len(head) + exc.start
    except Exception:       # noqa: BLE001 - any codec failure is Python's "encoding problem"
        raise InputError(
            f"{code_prefix}_bad_cookie",
            f"The {what_en} declares on line {at + 1} the encoding '{shown}', in which Python cannot read source "
            f"code, so Python refuses to run it (SyntaxError: encoding problem: {shown}); the grader does the same. "
            f"{fix_en}",
            f"{what_zh}在第 {at + 1} 行声明的编码 `{shown}` 不能用来读取 Python 源代码，Python 因此拒绝运行它"
            f"（`SyntaxError: encoding problem: {shown}`），评分系统也一样。{fix_zh}",
        ) from None
    line, col = _position(body, start)
    if _is_utf8(body):
        raise InputError(
            f"{code_prefix}_cookie_mismatch",
            f"The {what_en} is saved as UTF-8, but line {at + 1} declares the encoding '{shown}': Python reads the "
            f"file as {shown} and refuses it at line {line}, column {col}, which is not valid {shown} (a SyntaxError "
            f"before any line runs); the grader does the same. {fix_en}",
            f"{what_zh}是以 UTF-8 保存的，但第 {at + 1} 行声明的编码是 `{shown}`：Python 会按 `{shown}` 读取，"
            f"并在第 {line} 行第 {col} 列报错（那里不是有效的 `{shown}` 编码，任何一行都还没有运行就出现 SyntaxError），"
            f"评分系统也一样。{fix_zh}",
        )
    raise InputError(
        f"{code_prefix}_bad_encoding",
        f"The {what_en} declares the encoding '{shown}' on its first lines, but line {line}, column {col} is not "
        f"valid {shown}. Save it as UTF-8 (and remove the coding line) and upload it again.",
        f"{what_zh}在开头声明了编码「{shown}」，但第 {line} 行第 {col} 列不是有效的 {shown}。"
        "请另存为 UTF-8（并删除 coding 声明行）后重新上传。",
    )


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_NON_ASCII_RUN = re.compile(rb"[\x80-\xff]+")


def _gbk_part_start(data: bytes, bad: int) -> tuple[int, int | None]:
    """Where the GBK part of a file that is not UTF-8 starts, as the student's editor shows it, from ``bad``, the
    offset of the first byte the UTF-8 reader could not read.

    GBK writes each Chinese character as two bytes >= 0x80, so the GBK text holding ``bad`` starts where its run of
    non-ASCII bytes does: the UTF-8 reader may have read that run's first bytes as letters ("注" D7 A2 as one; round
    33: "# 注意力" was "column 4"; round 46 mend: a level-2 hanzi and a level-1 one as one 3-byte CJK character).
    Earlier runs are valid UTF-8: they are the GBK text's when their bytes are also two-byte GB2312 characters and
    their UTF-8 reading is not text of their own: a CJK character (a UTF-8 title), a Latin letter written in an
    ASCII word ("café": Latin-1's letters). A run that is not GB2312 ("√", "—", curly quotes) is UTF-8 for sure.
    Some runs read either way, byte for byte: a lone "α" or "é" out of a word is said as the GBK text's start, as
    round 33 did for whole GBK files; "caf" + é is "café" (UTF-8), so a whole GBK file with 茅 (C3 A9) right after
    an ASCII letter and before any Chinese text UTF-8 cannot read is located at its first Chinese text UTF-8 cannot
    read (the 30 hanzi C3 A1-BF but ÷, written against an ASCII letter: a trade for "café", the more likely reading).
    Where that trade was made and every non-ASCII run before the GBK part reads as GB2312 too, the second
    value is the offset of the first such run (the file may be GBK throughout from there); otherwise it is
    None.
    """
    body = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    start = bad
    while start > body and data[start - 1] >= 0x80:
        start -= 1
    for run in reversed(list(_NON_ASCII_RUN.finditer(data, body, start))):
        chunk = run.group()
        try:
            chunk.decode("gb2312")
        except UnicodeDecodeError:
            break
        text = chunk.decode("utf-8")
        in_word = data[run.start() - 1:run.start()].isalpha() or data[run.end():run.end() + 1].isalpha()
        if _has_cjk(text):
            break
        if in_word and all("\u00c0" <= ch <= "\u00ff" and ch.isalpha() for ch in text):
            return start, _gbk_throughout_from(data, body, run.end())
        start = run.start()
    return start, None


def _gbk_throughout_from(data: bytes, body: int, end: int) -> int | None:
    """The offset of the first non-ASCII run of ``data[body:end]`` when every such run reads as GB2312 and
    none as UTF-8 CJK text (a UTF-8 title is UTF-8 for sure), else None."""
    runs = list(_NON_ASCII_RUN.finditer(data, body, end))
    for run in runs:
        try:
            run.group().decode("gb2312")
        except UnicodeDecodeError:
            return None
        if _has_cjk(run.group().decode("utf-8")):
            return None
    return runs[0].start() if runs else None


def _has_cjk(text: str) -> bool:
    """Whether `text` holds a CJK ideograph or CJK punctuation (U+3000-U+9FFF, the full-width forms)."""
    return any("\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" for ch in text)


def _plausibly_chinese(text: str) -> bool:
    """Whether text that is not UTF-8 but decodes as GB18030 is really Chinese text saved as GBK.

    Chinese Windows editors (Notepad before 2019, WPS, many IDEs) save .txt as GBK by default, and an
    audit is prose, not code: there is no cookie to say so. GB18030 decodes almost any byte string, so
    "it decodes" proves nothing: Latin-1/cp1252 text or binary junk decodes to rare characters. We accept
    it only when most of its non-ASCII characters are common Chinese (in GB2312: the 6,763 common hanzi
    and CJK punctuation), which random or Western bytes do not give. Otherwise the refusal stands."""
    non_ascii = [ch for ch in text if ord(ch) > 0x7F]
    if len(non_ascii) < 4:
        return False
    common = 0
    for ch in non_ascii:
        try:
            ch.encode("gb2312")
            common += 1
        except UnicodeEncodeError:
            pass
    cjk = sum(1 for ch in non_ascii if "\u4e00" <= ch <= "\u9fff")
    return common >= 0.9 * len(non_ascii) and cjk >= 0.5 * len(non_ascii)


def _plausibly_big5(text: str, codec: str) -> bool:
    """Whether text that is not UTF-8 and not plausibly GBK, decoded as Big5 (``codec``), is traditional
    Chinese saved as Big5. As for GBK, decoding proves nothing; Big5 orders its characters by frequency:
    symbols (lead bytes 0xA1-0xA3) and the 5,401 common hanzi (0xA4-0xC6) come first. Real text is almost
    all of them; GBK text, Western bytes or junk decoded as Big5 spread over the rare half as well."""
    non_ascii = [ch for ch in text if ord(ch) > 0x7F]
    if len(non_ascii) < 4:
        return False
    common = 0
    for ch in non_ascii:
        try:
            lead = ch.encode(codec)[0]
        except UnicodeEncodeError:
            continue
        common += 0xA1 <= lead <= 0xC6
    cjk = sum(1 for ch in non_ascii if "\u4e00" <= ch <= "\u9fff")
    return common >= 0.9 * len(non_ascii) and cjk >= 0.5 * len(non_ascii)


def decode_code(data: bytes) -> str:
    """The text of stored or uploaded code bytes, by the rules of :func:`validate_code` (UTF-8 with or
    without BOM, UTF-16 with BOM, a PEP 263 cookie when the bytes are not UTF-8); newlines not
    normalised. Raises InputError when those rules refuse the bytes."""
    return _decode_utf8(bytes(data), "code", "code file", "代码文件", cookie=True)


def code_text(data: bytes) -> str:
    """Stored code bytes as text for display and comparison (instructor views, load-error excerpts,
    the similarity check): :func:`decode_code`, or UTF-8 with replacement characters for rows stored
    before these rules (never raises)."""
    try:
        return decode_code(data)
    except InputError:
        return bytes(data).decode("utf-8", "replace")


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


_INVISIBLE = re.compile(r"[\s\u200b\u200c\u200d\u2060\ufeff]+")


def _is_blank_text(text: str) -> bool:
    return not _INVISIBLE.sub("", text)


def _is_notebook(data: bytes) -> bool:
    """A Jupyter notebook's JSON, whatever the file is named: starts with "{" and has its keys."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{") and (b'"cells"' in data[:MAX_AUDIT_TEXT_BYTES] or b'"nbformat"' in data)


_HTML_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>])", re.I)


def _is_html(data: bytes) -> bool:
    """A web page (a code listing saved from the browser, a blog post): begins with <!DOCTYPE html>, <html>, <head>
    or <body>, which no Python file can (Python refuses a line that begins with '<')."""
    return _HTML_START.match(data[:4096]) is not None


# --------------------------------------------------------------------------------------------------
# code
# --------------------------------------------------------------------------------------------------

def code_file_name(filename: str | None) -> str:
    """The name under which an accepted code file is kept and named to the student: a name with a hidden
    ``.txt`` (``attention.py.txt``, which Windows shows as attention.py) loses it, as the grader runs
    it as a .py file; a result page told the student to run "python attention.py.txt". Other names are
    returned as they are (None or empty: attention.py)."""
    name = filename or "attention.py"
    if not _plain_name(name).endswith(".py.txt"):
        return name
    folded = unicodedata.normalize("NFKC", name).translate(_IDEOGRAPHIC_STOPS).strip().rstrip(". ")
    return folded[: -len(".txt")]


def validate_code(filename: str | None, data: bytes) -> str:
    """Return the student's source as text: a ``.py`` file, UTF-8, non-empty, <= MAX_CODE_BYTES."""
    data = _require_bytes(data, "code file", "代码文件", "code")
    ext = _extension(filename)
    if _is_notebook(data):
        raise InputError(
            "code_is_notebook",
            f"This is a Jupyter notebook ({_ext_en(ext)}), not a Python file: the grader needs "
            "the code as a .py file. Export it: Jupyter Notebook: File → Download as → Python (.py); "
            "JupyterLab: File → Save and Export Notebook As → Executable Script; Colab: File → Download → "
            "Download .py; VS Code: Export (… menu above the notebook) → Python Script. "
            "Then remove lines that only run in a notebook (such as !pip or %matplotlib) and upload the .py file.",
            f"这是 Jupyter notebook（{_ext_zh(ext)}），不是 Python 文件：评分需要 .py 代码文件。"
            "请导出：Jupyter Notebook：File → Download as → Python (.py)；JupyterLab：File → Save and Export "
            "Notebook As → Executable Script；Colab：文件 → 下载 → 下载 .py；VS Code：notebook 上方「…」菜单 → "
            "导出（Export）→ Python Script。然后删掉只能在 notebook 里运行的行（如 !pip、%matplotlib），再上传 .py 文件。",
        )
    if _is_html(data):
        # round 36: told "SyntaxError at line 1, column 1: invalid syntax", with nothing on what the file is
        raise InputError(
            "code_is_html",
            f"This is a web page (HTML, {_ext_en(ext)}), not a Python file: it begins with an HTML tag, "
            "which Python cannot run. Open the code in your editor (or copy it from the page into an empty "
            "attention.py), save it as a .py file and upload that.",
            f"这是网页（HTML，{_ext_zh(ext)}），不是 Python 文件：它以 HTML 标签开头，Python 无法运行。"
            "请在编辑器中打开代码（或把网页上的代码复制到一个空的 attention.py 里），保存为 .py 文件后再上传。",
        )
    # Windows hides known extensions: a file Explorer shows as "attention.py" may be attention.py.txt
    # (saved from Notepad or a browser). It is the code all the same.
    py_txt = _plain_name(filename).endswith(".py.txt")
    if ext not in CODE_EXTENSIONS and not py_txt:
        if (kind := sniff_binary_kind(data)) is not None:
            # attention.zip, a .docx, a screenshot: what it is and what to do, as for a .py holding such
            # bytes (round 26), not only "got '.zip'"
            raise _binary_kind_error("code_bad_type", "code", "code file", "代码文件", kind,
                                     expected=("a Python file (.py)", "Python 文件（.py）"))
        hidden_en = hidden_zh = ""
        if ext in ("", ".txt"):
            hidden_en = (" Windows hides file extensions: if the file shows as 'attention.py', turn on "
                         "View → File name extensions in Explorer and rename it to attention.py.")
            hidden_zh = "Windows 默认隐藏扩展名：如果文件显示为「attention.py」，请在资源管理器中打开「查看 → 文件扩展名」，再把它重命名为 attention.py。"
        raise InputError(
            "code_bad_type",
            f"The code must be a Python file (.py); got '{ext or 'no extension'}'.{hidden_en}",
            f"代码必须是 Python 文件（.py），收到的是「{ext or '无扩展名'}」。{hidden_zh}",
        )
    if not data:
        raise empty_error("code_empty", "code file", "代码文件")
    _check_size(data, MAX_CODE_BYTES, "code_too_large", "code file", "代码文件")
    text = _normalise_newlines(decode_code(data))
    if "\x00" in text:
        raise nul_error("code_binary", "code file", "代码文件", text)
    if _is_blank_text(text):
        raise empty_error("code_empty", "code file", "代码文件", blank=True)
    return text


# --------------------------------------------------------------------------------------------------
# audit
# --------------------------------------------------------------------------------------------------

def validate_audit(filename: str | None, data: bytes) -> str:
    """Return the audit text. ``.md``/``.markdown``/``.txt`` are decoded as UTF-8 (BOM ok); ``.pdf``
    has its text layer extracted with pypdf, in a child process with CPU, memory and wall limits
    (``grading.decode``). The type is decided by the bytes when they disagree with the name (a PDF
    renamed ``.md`` is read as a PDF; an image is refused with a pointer to the figure upload). Text
    is capped at :data:`MAX_AUDIT_CHARS` characters."""
    if _audit_precheck(filename, data):
        from grading.decode import run_bounded

        return str(run_bounded("audit", filename, bytes(data)))
    return extract_audit(filename, data)


def _audit_precheck(filename: str | None, data: bytes) -> bool:
    """The cheap checks (type, emptiness, size); whether the audit is a PDF."""
    data = _require_bytes(data, "audit", "审计文字", "audit")
    ext = _extension(filename)
    _refuse_audit_document(ext, data)
    if ext not in AUDIT_TEXT_EXTENSIONS + AUDIT_PDF_EXTENSIONS:
        plain_en = plain_zh = ""
        if ext in _PLAIN_TEXT_EXTENSIONS:
            plain_en = " This kind of file is plain text: rename it to audit.txt (or audit.md) and upload it again."
            plain_zh = "这类文件本身就是纯文本：请把它重命名为 audit.txt（或 audit.md）后重新上传。"
        raise InputError(
            "audit_bad_type",
            f"The audit must be Markdown (.md), plain text (.txt) or PDF (.pdf); got '{ext or 'no extension'}'."
            + plain_en,
            f"审计文字必须是 Markdown（.md）、纯文本（.txt）或 PDF（.pdf），收到的是「{ext or '无扩展名'}」。" + plain_zh,
        )
    if not data:
        raise empty_error("audit_empty", "audit file", "审计文件")
    if data.startswith((PNG_MAGIC, JPEG_MAGIC)):
        raise InputError(
            "audit_is_image",
            "The audit file is an image. Upload the figure in the figure field and the text as .md/.txt/.pdf.",
            "审计文件是一张图片。请把图放在「图」的上传框，文字以 .md/.txt/.pdf 上传。",
        )
    is_pdf = data[:1024].lstrip().startswith(PDF_MAGIC)
    if ext in AUDIT_PDF_EXTENSIONS and not is_pdf:
        kind = sniff_binary_kind(data)
        if kind is not None:   # say what it is, as for a file that is not text (round 26)
            raise _binary_kind_error("pdf_corrupt", "audit", "audit", "审计文件", kind,
                                     named=(f" ({_ext_en('.pdf')})", f"（{_ext_zh('.pdf')}）"), expected=("a PDF", "PDF"))
        # what to do about it, as every other refusal of the audit says (round 36: it said only what was wrong)
        raise InputError("pdf_corrupt",
                         "The file's extension is .pdf but it is not a PDF. Export or print your audit to PDF again "
                         "and upload that file, or upload the audit as .md or .txt.",
                         "扩展名是 .pdf，但内容不是 PDF。请重新把审计导出或打印为 PDF 后上传该文件，或改为上传 .md 或 .txt 文件。")
    if is_pdf:
        _check_size(data, MAX_AUDIT_PDF_BYTES, "audit_too_large", "PDF audit", "PDF 审计文件")
    else:
        _check_size(data, MAX_AUDIT_TEXT_BYTES, "audit_too_large", "audit", "审计文件")
    return is_pdf


_AUDIT_DOCUMENT_EXTENSIONS = {".docx": "Word", ".doc": "Word", ".wps": "WPS", ".pages": "Pages",
                              ".rtf": "RTF", ".odt": "OpenDocument (.odt)"}
# Web pages (refused with "print it to PDF") and plain-text formats under another name ("rename it").
_HTML_EXTENSIONS = (".html", ".htm", ".mhtml", ".mht")
_PLAIN_TEXT_EXTENSIONS = (".rst", ".tex", ".org", ".text", ".rmd", ".qmd", ".adoc", ".markdown~")


def _audit_document_kind(ext: str, data: bytes) -> tuple[str, tuple[str, ...]] | None:
    """(word processor, its extensions) of a document, by its content (whatever it is named) or its name."""
    head = data[:64 * 1024]
    if data.startswith(_ZIP_MAGIC):
        # A ZIP names its members in their local headers and again in its central directory, at the end:
        # a .docx whose first members (a large [Content_Types].xml, images) fill the head was "binary".
        names = head + data[-64 * 1024:]
        if b"word/" in names:
            return "Word (.docx)", (".docx",)
        if b"opendocument.text" in head:
            return "OpenDocument (.odt)", (".odt",)
        if b".iwa" in names or b"Index/" in names:
            return "Pages", (".pages",)
    if data.startswith(_OLE2_MAGIC):
        return ("WPS", (".wps",)) if ext == ".wps" else ("Word/WPS (.doc/.wps)", (".doc", ".wps"))
    if data.lstrip().startswith(b"{\\rtf"):
        return "RTF", (".rtf",)
    if ext in _AUDIT_DOCUMENT_EXTENSIONS:
        return _AUDIT_DOCUMENT_EXTENSIONS[ext], (ext,)
    return None


def _named(ext: str, expected: tuple[str, ...]) -> tuple[str, str]:
    """(" (extension '.md')", "（扩展名却是「.md」）") when the name does not match the content, else ("", "")."""
    if ext in expected:
        return "", ""
    return f" ({_ext_en(ext)})", f"（扩展名却是「{ext}」）" if ext else "（文件名却没有扩展名）"


def _refuse_audit_document(ext: str, data: bytes) -> None:
    """Word/WPS/Pages/RTF/ODT documents, web pages and notebooks, by content or name: refused with how to
    turn them into what the audit takes (all under the code ``audit_bad_type``)."""
    types_en = "The audit must be Markdown (.md), plain text (.txt) or PDF (.pdf)"
    types_zh = "审计文字必须是 Markdown（.md）、纯文本（.txt）或 PDF（.pdf）"
    copy_en = "or copy the text into a plain-text file (Notepad, VS Code) saved as UTF-8 and named audit.md or audit.txt"
    copy_zh = "或者把文字复制到纯文本文件（记事本、VS Code）中，以 UTF-8 保存，命名为 audit.md 或 audit.txt"
    found = _audit_document_kind(ext, data)
    if found is not None:
        kind, extensions = found
        # zh with full-width brackets (round 46: "这是 Word (.docx) 文档", "OpenDocument (LibreOffice) 文档")
        kind_zh = kind.replace(" (", "（").replace(")", "）文档") if "(" in kind else f"{kind} 文档"
        named_en, named_zh = _named(ext, extensions)
        raise InputError(
            "audit_bad_type",
            f"{types_en}: this is {'an' if kind[0] in 'AEIOR' else 'a'} {kind} document{named_en}. Convert it: in Word or WPS, File → Save As (or "
            f"Export) → PDF; in Pages, File → Export To → PDF; in LibreOffice, File → Export as PDF; {copy_en}.",
            f"{types_zh}：这是 {kind_zh}{named_zh}。请转换：在 Word 或 WPS 中，文件 → 另存为（或导出）→ PDF；"
            f"在 Pages 中，文件 → 导出为 → PDF；在 LibreOffice 中，文件 → 导出为 PDF；{copy_zh}。",
        )
    # A notebook or a web page saved under .md/.txt is read (its text is extracted; the checker reads only
    # what a rendered page shows): refusing it cost 13 points to audits that were read in full before.
    if ext == ".ipynb":
        named_en, named_zh = _named(ext, (".ipynb",))
        raise InputError(
            "audit_bad_type",
            f"{types_en}: this is a Jupyter notebook{named_en}. Export the notebook: Jupyter Notebook, File → "
            "Download as → Markdown (.md) or PDF; JupyterLab, File → Save and Export Notebook As → Markdown; "
            f"Colab or VS Code, print it to PDF (File → Print → Save as PDF); {copy_en}.",
            f"{types_zh}：这是 Jupyter notebook{named_zh}。请导出：Jupyter Notebook：File → Download as → "
            "Markdown (.md) 或 PDF；JupyterLab：File → Save and Export Notebook As → Markdown；Colab 或 VS Code："
            f"打印为 PDF（文件 → 打印 → 另存为 PDF）；{copy_zh}。",
        )
    if ext in _HTML_EXTENSIONS:
        named_en, named_zh = _named(ext, _HTML_EXTENSIONS)
        raise InputError(
            "audit_bad_type",
            f"{types_en}: this is a web page (HTML){named_en}. Open it in the browser and print it to PDF "
            f"(Ctrl+P → Save as PDF), {copy_en}.",
            f"{types_zh}：这是网页（HTML）文件{named_zh}。请在浏览器中打开并打印为 PDF"
            f"（Ctrl+P → 另存为 PDF），{copy_zh}。",
        )


def extract_audit(filename: str | None, data: bytes) -> str:
    """:func:`validate_audit` in this process, without limits: only for the decoding child (PDF)
    and for text audits, whose decoding is linear in their capped size."""
    data = _require_bytes(data, "audit", "审计文字", "audit")
    if _audit_precheck(filename, data):
        text = _pdf_text(data)
    else:
        text = _decode_utf8(data, "audit", "audit", "审计文件", gb18030=True)
        if "\x00" in text:
            raise nul_error("audit_binary", "audit", "审计文件", text)
        if _is_notebook(data):
            text = _notebook_text(text) or text
    text = _normalise_newlines(_storable(text))
    if _is_blank_text(text):
        raise empty_error("audit_empty", "audit file", "审计文件", blank=True)
    return text[:MAX_AUDIT_CHARS]


def _notebook_text(text: str) -> str | None:
    """The text of a Jupyter notebook saved under .md/.txt: its Markdown cells, its code cells and their
    printed output (the measured numbers an audit reports), in order; None if it is not notebook JSON."""
    import json

    try:
        cells = json.loads(text).get("cells")
    except (ValueError, AttributeError, RecursionError):
        return None
    if not isinstance(cells, list):
        return None

    def joined(value) -> str:
        return "".join(v for v in value if isinstance(v, str)) if isinstance(value, list) else \
            value if isinstance(value, str) else ""

    parts: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = joined(cell.get("source"))
        if cell.get("cell_type") == "code":
            parts.append("```python\n" + source + "\n```")
            for out in cell.get("outputs") or []:
                if isinstance(out, dict):
                    shown = joined(out.get("text")) or joined((out.get("data") or {}).get("text/plain"))
                    if shown:
                        parts.append("```\n" + shown + "\n```")
        else:
            parts.append(source)
    # JSON's escapes can spell what no UTF-8 file holds (a lone surrogate "\\ud83d", a NUL "\\u0000"):
    # extract_audit cleans every way out (_storable).
    return "\n\n".join(p for p in parts if p.strip())


def _storable(text: str) -> str:
    """Text that the checker, OpenCC, JSON and PostgreSQL all accept: a lone surrogate (half an emoji,
    from a notebook's JSON escapes or a PDF's ToUnicode map) is read as U+FFFD, a NUL as a space. A
    NUL in a text file is refused before this; in a PDF's text layer or a notebook's JSON escapes it
    is no fault of the student's file."""
    from rubric.audit.text import encodable

    return encodable(text).replace("\x00", " ")


def _decrypt_without_password(reader) -> None:
    """Open an encrypted PDF with the empty password, as every PDF viewer does: Word, WPS and
    LaTeX tools encrypt a PDF whose author only restricted copying or printing, and such a file
    opens without a password. Raises InputError when it really needs one."""
    from pypdf import PasswordType

    if reader.decrypt("") == PasswordType.NOT_DECRYPTED:
        raise InputError(
            "pdf_encrypted",
            "The PDF needs a password to open. Export it again without a password (or upload the text as "
            ".md/.txt).",
            "这个 PDF 需要密码才能打开。请重新导出不带密码的版本（或以 .md/.txt 上传文字）。",
        )


def _raised_in_encryption(exc: BaseException) -> bool:
    """Whether pypdf raised ``exc`` while undoing the file's encryption (from its traceback)."""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name in ("_handle_encryption", "decrypt") or "_crypt" in code.co_filename \
                or code.co_filename.endswith("_encryption.py"):
            return True
        tb = tb.tb_next
    return False


def _pdf_unsupported(exc: BaseException) -> InputError:
    """pypdf met something it does not implement (NotImplementedError), or needs a library that is
    not installed (DependencyError): said as such, with pypdf's words, never as "damaged"."""
    detail = _detail(exc)
    if _raised_in_encryption(exc):
        return InputError(
            "pdf_encryption_unsupported",
            f"The PDF is encrypted with a method this server cannot decrypt ({detail}). Save or print it "
            "to PDF again without protection, or upload the text as .md/.txt.",
            f"这个 PDF 使用了服务器无法解密的加密方式（{detail}）。请不加保护地重新保存或打印为 PDF，"
            "或以 .md/.txt 上传文字。",
        )
    return InputError(
        "pdf_unsupported",
        f"The PDF uses a feature this server's PDF reader does not support ({detail}). Export or print it "
        "to PDF again from your editor, or upload the text as .md/.txt.",
        f"这个 PDF 使用了服务器的 PDF 读取器不支持的功能（{detail}）。请从编辑器重新导出或打印为 PDF，"
        "或以 .md/.txt 上传文字。",
    )


def _detail(exc: BaseException, limit: int = 200) -> str:
    """A library's own description of what it saw, short enough for a message (never a traceback)."""
    text = " ".join(str(exc).split()) or exc.__class__.__name__
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _pdf_too_complex(exc: BaseException, page: int | None = None) -> InputError:
    """pypdf stopped at one of its own safety limits (page tree depth, object counts, decompressed
    size...): the file is past what is read safely, which says nothing of it being damaged."""
    detail = _detail(exc)
    where_en, where_zh = (f"page {page} of the PDF", f"PDF 第 {page} 页") if page else ("the PDF", "这个 PDF")
    return InputError(
        "pdf_too_complex",
        f"{where_en[0].upper()}{where_en[1:]} is too complex to read safely: it goes past a limit of the PDF "
        f"reader ({detail}). Export or print it to PDF again from your editor, or upload the text as .md/.txt.",
        f"{where_zh}结构过于复杂，超出了 PDF 读取器的安全上限（{detail}），因此无法安全读取。"
        "请从编辑器重新导出或打印为 PDF，或以 .md/.txt 上传文字。",
    )


# Text a PDF viewer does not show (audit round 14: an audit's statements written in white or in render mode 3
# scored like visible ones). Only pages whose content stream may hide text are parsed a second time.
_MAY_HIDE_TEXT = re.compile(rb"(?<![\w.])[37]\s+Tr\b|(?<![\w.])(?:1(?:\.0*)?\s+){3}(?:rg|sc|scn)\b|"
                            rb"(?<![\w.])1(?:\.0*)?\s+(?:g|sc|scn)\b|(?<![\w.])(?:0(?:\.0*)?\s+){4}(?:k|sc|scn)\b")
_SHOW_TEXT = (b"Tj", b"TJ", b"'", b'"')
_FILL_PAINT = (b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"sh")


def _is_white(op: bytes, operands: list) -> bool | None:
    """Is the fill colour a colour operator sets white? (None: not a fill colour operator.)"""
    if op not in (b"g", b"rg", b"k", b"sc", b"scn"):
        return None
    try:
        vals = [float(v) for v in operands]
    except (TypeError, ValueError):          # a pattern name (scn /P0): not white
        return False
    if op == b"k" or (op in (b"sc", b"scn") and len(vals) == 4):
        return bool(vals) and all(v <= 0.001 for v in vals)
    return bool(vals) and all(v >= 0.999 for v in vals)


def _drop_invisible_text(page: Any, reader: Any) -> None:
    """Blank the strings a viewer does not show: drawn in render mode 3 or 7 (invisible, clip only), or in
    white fill on a page that paints no coloured area or image white text could sit on (a white title on a
    coloured box stays). Text inside form XObjects is not looked at."""
    from pypdf.generic import ContentStream, NameObject, TextStringObject

    cs = ContentStream(page.get_contents(), reader)
    ops = cs.operations
    state = {"white": False, "mode": 0}
    stack: list[dict] = []
    coloured_area = False
    for operands, op in ops:
        white = _is_white(op, operands)
        if white is not None:
            state["white"] = white
        elif op == b"q":
            stack.append(dict(state))
        elif op == b"Q" and stack:
            state = stack.pop()
        elif op == b"cs":
            state["white"] = False            # a new colour space starts black
        elif op in _FILL_PAINT and not state["white"] or op == b"Do" or op == b"BI":
            coloured_area = True
    state = {"white": False, "mode": 0}
    stack = []
    changed = False
    for i, (operands, op) in enumerate(ops):
        white = _is_white(op, operands)
        if white is not None:
            state["white"] = white
        elif op == b"q":
            stack.append(dict(state))
        elif op == b"Q" and stack:
            state = stack.pop()
        elif op == b"cs":
            state["white"] = False
        elif op == b"Tr" and operands:
            try:
                state["mode"] = int(operands[0])
            except (TypeError, ValueError):
                pass
        elif op in _SHOW_TEXT and (state["mode"] in (3, 7) or (state["white"] and not coloured_area)):
            ops[i] = ([TextStringObject("")], b"Tj")
            changed = True
    if changed:      # the reader's page, in memory only (pypdf's replace_contents wants a writer)
        page[NameObject("/Contents")] = cs


def _pdf_text(data: bytes) -> str:
    import pypdf

    corrupt = InputError(
        "pdf_corrupt",
        "The PDF could not be read (damaged or not a PDF). Export it again, or upload the text as .md/.txt.",
        "无法读取这个 PDF（文件损坏或不是 PDF）。请重新导出，或以 .md/.txt 上传文字。",
    )
    start = time.process_time()
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            _decrypt_without_password(reader)
        n_pages = len(reader.pages)
    except (InputError, MemoryError):
        raise
    except pypdf.errors.LimitReachedError as exc:
        raise _pdf_too_complex(exc) from None
    except (NotImplementedError, pypdf.errors.DependencyError) as exc:
        raise _pdf_unsupported(exc) from None
    except Exception:  # noqa: BLE001 - any parser failure on untrusted bytes
        raise corrupt from None
    if n_pages == 0:
        raise corrupt
    if n_pages > MAX_PDF_PAGES:
        raise InputError(
            "pdf_too_many_pages",
            f"The PDF has {n_pages} pages; at most {MAX_PDF_PAGES} are accepted for an audit.",
            f"PDF 共 {n_pages} 页，审计文件最多 {MAX_PDF_PAGES} 页。",
        )
    parts: list[str] = []
    total = 0
    for i in range(n_pages):
        if time.process_time() - start > MAX_PDF_SECONDS:
            raise InputError(
                "pdf_too_slow",
                "Extracting the text of this PDF takes too long. Upload the text as .md or .txt instead.",
                "提取这个 PDF 的文字耗时过长。请改为上传 .md 或 .txt。",
            )
        try:
            page = reader.pages[i]
            contents = page.get_contents()
            size = len(contents.get_data()) if contents is not None else 0
            if size > MAX_PDF_PAGE_CONTENT_BYTES:
                raise InputError(
                    "pdf_page_too_large",
                    f"Page {i + 1} of the PDF is too complex to extract text from. Upload .md or .txt instead.",
                    f"PDF 第 {i + 1} 页过于复杂，无法提取文字。请改为上传 .md 或 .txt。",
                )
            if size and _MAY_HIDE_TEXT.search(contents.get_data()):
                _drop_invisible_text(page, reader)
            page_text = (page.extract_text() or "") if size else ""
        except (InputError, MemoryError):
            raise
        except pypdf.errors.LimitReachedError as exc:
            raise _pdf_too_complex(exc, page=i + 1) from None
        except (NotImplementedError, pypdf.errors.DependencyError) as exc:
            raise _pdf_unsupported(exc) from None
        except Exception:  # noqa: BLE001
            raise corrupt from None
        parts.append(page_text)
        total += len(page_text)
        if total > MAX_AUDIT_CHARS:
            break
    text = "\n".join(parts)
    if len(re.findall(r"\w", text)) < MIN_PDF_WORD_CHARS:
        raise InputError(
            "pdf_no_text",
            "The PDF has no text layer (it is probably a scan or a picture of text). "
            "Upload a PDF exported from your editor, or the text as .md/.txt.",
            "这个 PDF 没有文字层（可能是扫描件或文字截图）。请上传由编辑器导出的 PDF，或以 .md/.txt 上传文字。",
        )
    return text


# --------------------------------------------------------------------------------------------------
# figure
# --------------------------------------------------------------------------------------------------

_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _png_size(data: bytes) -> tuple[int, int] | None:
    # signature (8) + length (4) + "IHDR" (4) + width (4) + height (4)
    if len(data) < 24 or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


# After a scan's entropy-coded data, the next marker: 0xFF followed by anything but 0x00 (a stuffed
# 0xFF data byte), RST0-7 (restart markers inside the scan) or 0xFF (fill).
_JPEG_NEXT_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")
_JPEG_FILL = re.compile(rb"\xff+")     # fill bytes before a marker, skipped in C (5 MiB of them: 0.75 s in Python)


def _too_many_segments() -> InputError:
    return _too_complex("JPEG", f"more than {MAX_JPEG_SEGMENTS} marker segments",
                        f"超过 {MAX_JPEG_SEGMENTS} 个标记段")


def _jpeg_frame(data: bytes) -> tuple[int, int, int, int] | None:
    """Walk the JPEG marker segments up to the first SOFn: (sample precision in bits, width, height,
    the SOFn marker's code)."""
    i, n, segments = 2, len(data), 0
    while i + 4 <= n:
        if data[i] != 0xFF:
            return None
        i = _JPEG_FILL.match(data, i).end()   # fill bytes
        if i >= n:
            return None
        marker = data[i]
        i += 1
        segments += 1
        if segments > MAX_JPEG_SEGMENTS:
            raise _too_many_segments()
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:   # TEM, RSTn, SOI: no length
            continue
        if marker in (0xD9, 0xDA):    # EOI / SOS before any frame header
            return None
        if i + 2 > n:
            return None
        (length,) = struct.unpack(">H", data[i:i + 2])
        if length < 2:
            return None
        if marker in _JPEG_SOF:
            if i + 7 > n:
                return None
            precision = data[i + 2]
            height, width = struct.unpack(">HH", data[i + 3:i + 7])
            return precision, width, height, marker
        i += length
    return None


def _jpeg_scans(data: bytes, stop_after: int) -> int:
    """The scans (SOS segments) a decoder reads, counted up to ``stop_after + 1``.

    Segments are skipped by their length as libjpeg skips them, so the bytes of an APPn or COM
    segment (an EXIF thumbnail is a whole JPEG, with its own scans) are never counted, and a
    scan's entropy-coded data runs to the next real marker. Bytes where a marker should be are
    skipped to the next marker, as libjpeg does ("extraneous bytes before marker"), so scans
    cannot hide behind them."""
    i, n, scans, segments, stray = 2, len(data), 0, 0, 0
    while i + 4 <= n:
        start = i
        if data[i] != 0xFF:
            found = _JPEG_NEXT_MARKER.search(data, i)
            if found is None:
                break
            i = found.start()
        i = _JPEG_FILL.match(data, i).end()
        if scans == 0:
            # Pillow parses the header (everything before the first scan) in Python, byte by byte
            # where no segment is: 5 MiB of fill bytes cost its decode 2.2 s and the worker's figure
            # reading 2.0 s per grading. libjpeg and cameras write none.
            stray += i - start - 1
            if stray > MAX_JPEG_STRAY_BYTES:
                raise _too_complex("JPEG", f"more than {_fmt_size(MAX_JPEG_STRAY_BYTES)} of bytes between its "
                                   "header segments that belong to none",
                                   f"头部各段之间有超过 {_fmt_size(MAX_JPEG_STRAY_BYTES)} 不属于任何段的字节")
        if i >= n:
            break
        marker = data[i]
        i += 1
        segments += 1
        if segments > MAX_JPEG_SEGMENTS:
            raise _too_many_segments()
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:
            continue
        if marker == 0xD9:
            break
        if i + 2 > n:
            break
        (length,) = struct.unpack(">H", data[i:i + 2])
        i += max(length, 2)
        if marker == 0xDA:
            scans += 1
            if scans > stop_after:
                break
            found = _JPEG_NEXT_MARKER.search(data, i)
            if found is None:
                break
            i = found.start()
    return scans


def _figure_error_corrupt(kind: str, detail: str = "") -> InputError:
    if "truncated" in detail.lower():
        return InputError(
            "figure_truncated",
            f"The {kind} image is truncated (the upload is incomplete). Save or export it again.",
            f"{kind} 图片不完整（文件被截断）。请重新保存或导出。",
        )
    return InputError(
        "figure_corrupt",
        f"The {kind} image is damaged and cannot be decoded. Save or export it again.",
        f"{kind} 图片已损坏，无法解码。请重新保存或导出。",
    )


def _jpeg_precision_unsupported(bits: int) -> InputError:
    """A JPEG whose frame header says ``bits``-bit samples (12-bit: medical and camera raw exports).
    The file is valid; Pillow's decoder reads 8-bit samples only, so it said "damaged"."""
    return InputError(
        "figure_unsupported_precision",
        f"This JPEG stores {bits}-bit samples (its frame header says precision {bits}). It is not damaged, "
        "but the grader reads only 8-bit JPEG. Export the figure as an 8-bit JPEG or as PNG "
        "(plt.savefig('heatmap.png')).",
        f"这张 JPEG 使用 {bits} 位采样（帧头中的精度为 {bits}）。文件没有损坏，但评分系统只能读取 8 位 JPEG。"
        "请把图导出为 8 位 JPEG 或 PNG（plt.savefig('heatmap.png')）。",
    )


# The JPEG processes of ITU T.81 other than the three every camera and plotting library writes
# (baseline C0, extended sequential C1, progressive C2) and whose arithmetic twins libjpeg reads.
_JPEG_RARE_PROCESSES = {
    0xC3: ("lossless", "无损"), 0xCB: ("lossless, arithmetic-coded", "无损、算术编码"),
    0xC5: ("hierarchical (differential sequential)", "分层（差分顺序）"),
    0xC6: ("hierarchical (differential progressive)", "分层（差分渐进）"),
    0xC7: ("hierarchical (differential lossless)", "分层（差分无损）"),
    0xCD: ("hierarchical, arithmetic-coded", "分层、算术编码"),
    0xCE: ("hierarchical, arithmetic-coded", "分层、算术编码"),
    0xCF: ("hierarchical lossless, arithmetic-coded", "分层无损、算术编码"),
}


def _jpeg_process_unreadable(marker: int) -> InputError:
    """A JPEG the decoder failed on whose frame header names a process few tools write: what was
    seen is the header and the failure, so say both instead of "damaged"."""
    en, zh = _JPEG_RARE_PROCESSES[marker]
    return InputError(
        "figure_unsupported_jpeg_process",
        f"This JPEG's frame header says {en} coding (marker SOF{marker - 0xC0}), a JPEG variant few "
        "programs write, and the grader's JPEG decoder could not read it. Export the figure as PNG "
        "(plt.savefig('heatmap.png')) or as a standard JPEG.",
        f"这张 JPEG 的帧头表明它使用{zh}编码（标记 SOF{marker - 0xC0}），这是很少有程序生成的 JPEG 变体，"
        "评分系统的 JPEG 解码器无法读取。请把图导出为 PNG（plt.savefig('heatmap.png')）或标准 JPEG。",
    )


def _too_complex(kind: str, what_en: str, what_zh: str) -> InputError:
    return InputError(
        "figure_too_complex",
        f"The {kind} image has {what_en}, far more than a plot needs. "
        "Save it again as a plain PNG (plt.savefig('attention.png')).",
        f"{kind} 图片包含 {what_zh}，远超一张图所需。请重新保存为普通 PNG（plt.savefig('attention.png')）。",
    )


def _check_png_chunks(data: bytes) -> None:
    """Walk the PNG chunks (length, type, CRC) without inflating anything: each must fit in the
    file, and their number is capped (a decoder pays per chunk)."""
    i, n, count = 8, len(data), 0
    while i + 8 <= n:
        (length,) = struct.unpack(">I", data[i:i + 4])
        ctype = data[i + 4:i + 8]
        count += 1
        if count > MAX_PNG_CHUNKS:
            raise _too_complex("PNG", f"more than {MAX_PNG_CHUNKS} chunks", f"超过 {MAX_PNG_CHUNKS} 个数据块")
        if length > n - i - 12:
            raise _figure_error_corrupt("PNG", "truncated")
        if ctype in (b"zTXt", b"iTXt", b"iCCP") and length > MAX_PNG_TEXT_CHUNK:
            raise _too_complex("PNG", f"a {ctype.decode()} chunk of {_fmt_size(length)}",
                               f"{_fmt_size(length)} 的 {ctype.decode()} 数据块")
        i += 12 + length
        if ctype == b"IEND":
            return


# Image and document formats students upload as the figure, by magic bytes: (name, its extensions).
# They are refused, not converted: the contract is PNG/JPEG, the decoding child loads only the PNG and
# JPEG decoders (each more decoder is more attack surface), and HEIC, PDF and SVG need libraries or
# renderers the service does not have. What helps is naming the real format and saying how to get a PNG.
def _sniff_figure_format(data: bytes) -> tuple[str, tuple[str, ...]] | None:
    head = data[:4096]
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP", (".webp",)
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in (b"avif", b"avis"):
            return "AVIF", (".avif",)
        if brand in (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"):
            return "HEIC", (".heic", ".heif")
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF", (".gif",)
    if head[:2] == b"BM" and len(data) >= 26:
        return "BMP", (".bmp", ".dib")
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "TIFF", (".tif", ".tiff")
    if head.lstrip()[:5] == PDF_MAGIC:
        return "PDF", (".pdf",)
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"<?xml", b"<svg", b"<!doctype svg", b"<!--")) and b"<svg" in text:
        return "SVG", (".svg",)
    if head[:4] == b"8BPS":
        return "Photoshop (PSD)", (".psd",)
    if head[:4] == b"\x00\x00\x01\x00":
        return "ICO", (".ico",)
    return None


def _ext_en(ext: str) -> str:
    """The name's extension, said as one, as :func:`_ext_zh` does (it was "named '.png'", which read as
    the file's whole name)."""
    return f"extension '{ext}'" if ext else "no extension"


def _ext_zh(ext: str) -> str:
    """The name's extension, said as one (文件名为「.png」 called heatmap.png's extension its name)."""
    return f"扩展名为「{ext}」" if ext else "文件名没有扩展名"


def _is_text(data: bytes) -> bool:
    """Do the first bytes read as text: UTF-8 (a cut character at the end allowed), no NUL, no control
    characters but whitespace?"""
    head = data[:4096]
    if not head.strip() or b"\x00" in head:
        return False
    text = head.decode("utf-8", errors="ignore")
    if len(text.encode("utf-8")) < len(head) - 3:
        return False
    return not any(ord(c) < 32 and c not in "\t\r\n\f" for c in text)


def _figure_format_error(ext: str, data: bytes) -> InputError:
    found = _sniff_figure_format(data)
    if found is None and (kind := sniff_binary_kind(data)) is not None:
        return _binary_kind_error("figure_bad_type", "figure", "figure", "图", kind,
                                  named=(f" ({_ext_en(ext)})", f"（{_ext_zh(ext)}）"))
    if found is None and _is_text(data):
        # a text file (code, an audit, a CSV of the weights) renamed .png: what it is, seen in its bytes
        return InputError(
            "figure_bad_type",
            f"The figure is a text file ({_ext_en(ext)}), not a PNG or JPEG image"
            + (": renaming a file does not change what is inside it" if ext else "")
            + ". Save the plot with plt.savefig('heatmap.png') and upload that file.",
            f"图是一个文本文件（{_ext_zh(ext)}），不是 PNG 或 JPEG 图片" + ("：改文件名不会改变文件的内容" if ext else "")
            + "。请用 plt.savefig('heatmap.png') 保存图，再上传这个文件。",
        )
    if found is None:
        return InputError(
            "figure_bad_type",
            f"The figure is not a PNG or JPEG image, nor any image format we recognise (file named "
            f"'{ext or 'no extension'}'). Save the plot with plt.savefig('heatmap.png').",
            f"图不是 PNG 或 JPEG 图片，也不是可识别的图片格式（{_ext_zh(ext)}）。"
            "请用 plt.savefig('heatmap.png') 保存。",
        )
    fmt, extensions = found
    named_en, named_zh = _named(ext, extensions)
    if fmt in ("PDF", "SVG"):
        how_en = (f"In matplotlib, save it with plt.savefig('heatmap.png') instead of .{fmt.lower()}, "
                  "or take a screenshot of the figure (Win+Shift+S, macOS Cmd+Shift+4).")
        how_zh = (f"在 matplotlib 中请用 plt.savefig('heatmap.png') 保存，不要存成 .{fmt.lower()}；"
                  "或者对图截图（Win+Shift+S，macOS Cmd+Shift+4）。")
    elif fmt == "HEIC":
        how_en = ("iPhones save photos as HEIC: save the plot with plt.savefig('heatmap.png') or take a "
                  "screenshot on the computer instead (a PNG); to convert a HEIC, open it and export it as PNG "
                  "or JPEG (macOS Preview: File → Export).")
        how_zh = ("iPhone 照片默认是 HEIC 格式：请在电脑上用 plt.savefig('heatmap.png') 保存或截图（得到 PNG）；"
                  "若要转换 HEIC，打开后导出为 PNG 或 JPEG（macOS 预览：文件 → 导出）。")
    else:
        how_en = ("Save the plot with plt.savefig('heatmap.png'); a screenshot tool (Win+Shift+S, Snipping Tool, "
                  "macOS Cmd+Shift+4) saves PNG; or open the file in an image viewer or Paint and save it as PNG.")
        how_zh = ("请用 plt.savefig('heatmap.png') 保存图；截图工具（Win+Shift+S、截图工具、macOS Cmd+Shift+4）"
                  "保存的是 PNG；或用看图软件、画图打开该文件，另存为 PNG。")
    return InputError(
        "figure_bad_type",
        f"This is {'an' if fmt[0] in 'AEFHIMNORSX' else 'a'} {fmt} {'file' if fmt in ('PDF', 'SVG') else 'image'}"
        f"{named_en}; the lab takes PNG or JPEG: export or save it as PNG. {how_en}",
        f"这是 {fmt} {'文件' if fmt in ('PDF', 'SVG') else '图片'}{named_zh}；实验只接受 PNG 或 JPEG："
        f"请导出或另存为 PNG。{how_zh}",
    )


def _too_many_pixels(width: int, height: int) -> InputError:
    return InputError(
        "figure_too_many_pixels",
        f"The image is {width}x{height} pixels; at most {MAX_FIGURE_PIXELS:,} pixels "
        f"(e.g. 4096x4096) are accepted. Export it at a lower resolution.",
        f"图片尺寸为 {width}x{height} 像素，上限为 {MAX_FIGURE_PIXELS:,} 像素（例如 4096x4096）。请以较低分辨率导出。",
    )


def validate_figure(filename: str | None, data: bytes) -> FigureInfo:
    """Return :class:`FigureInfo` for a PNG or JPEG (sniffed from the bytes; the extension is only
    a hint). Checks, in order: size cap, magic bytes, header dimensions vs the pixel cap and the
    file's structure (JPEG scans, PNG chunks) before any decoding; then the full decode and the
    statistics on a small copy, in a child process with CPU, memory and wall limits."""
    _figure_precheck(filename, data)
    from grading.decode import run_bounded

    info = run_bounded("figure", filename, bytes(data))
    return FigureInfo(**info) if isinstance(info, dict) else FigureInfo(**{})


def _figure_precheck(filename: str | None, data: bytes) -> tuple[str, int, int]:
    """The checks that need no decoding: (format, width, height) or InputError."""
    data = _require_bytes(data, "figure", "图", "figure")
    if not data:
        raise empty_error("figure_empty", "figure file", "图文件")
    _check_size(data, MAX_FIGURE_BYTES, "figure_too_large", "figure", "图文件")
    if data.startswith(PNG_MAGIC):
        fmt, size = "PNG", _png_size(data)
    elif data.startswith(JPEG_MAGIC):
        fmt, frame = "JPEG", _jpeg_frame(data)
        size = None if frame is None else frame[1:3]
        if frame is not None and frame[0] != 8:
            raise _jpeg_precision_unsupported(frame[0])
    else:
        raise _figure_format_error(_extension(filename), data)
    if size is None:
        raise _figure_error_corrupt(fmt)
    width, height = size
    if width <= 0 or height <= 0:
        raise _figure_error_corrupt(fmt)
    if width * height > MAX_FIGURE_PIXELS or max(width, height) > MAX_FIGURE_SIDE:
        raise _too_many_pixels(width, height)
    if fmt == "JPEG":
        if _jpeg_scans(data, MAX_JPEG_SCANS) > MAX_JPEG_SCANS:
            raise _too_complex(fmt, f"more than {MAX_JPEG_SCANS} scans", f"超过 {MAX_JPEG_SCANS} 个扫描段")
    else:
        _check_png_chunks(data)
    return fmt, width, height


def decode_figure(filename: str | None, data: bytes) -> FigureInfo:
    """:func:`validate_figure` in this process, without the child's limits (the decoding child)."""
    fmt, width, height = _figure_precheck(filename, data)

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            im = Image.open(io.BytesIO(data), formats=[fmt])
            if im.width * im.height > MAX_FIGURE_PIXELS:   # Pillow disagrees with our header parse
                raise _too_many_pixels(im.width, im.height)
            if fmt == "JPEG" and max(im.size) > 4 * STATS_SIDE:
                # decode every entropy-coded byte (truncation is still detected) at 1/2..1/8 scale
                im.draft("RGB", (2 * STATS_SIDE, 2 * STATS_SIDE))
            im.load()
    except InputError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise _too_many_pixels(width, height) from None
    except MemoryError:
        raise      # the decoding child's memory limit: "too costly", not "corrupt"
    except Exception as exc:  # noqa: BLE001 - OSError, SyntaxError, ValueError, struct.error, EOFError...
        frame = _jpeg_frame(data) if fmt == "JPEG" else None
        if frame is not None and frame[3] in _JPEG_RARE_PROCESSES and "truncated" not in str(exc).lower():
            raise _jpeg_process_unreadable(frame[3]) from None
        raise _figure_error_corrupt(fmt, str(exc)) from None

    stats = _figure_stats(im)
    return FigureInfo(format=fmt, width=width, height=height, mode=im.mode, **stats)


def _to_8bit(im):
    """16-bit or 32-bit greyscale (a 16-bit PNG) scaled to 8-bit, by the checker's own rule: Pillow's
    ``convert`` clips such values at 255, so a 16-bit heatmap became a white, "blank" image."""
    from rubric.audit.figure import to_8bit

    return to_8bit(im)


def _figure_stats(im) -> dict:
    from PIL import Image

    try:
        w, h = im.size
        scale = max(w, h) / STATS_SIDE
        tw, th = (max(1, round(w / scale)), max(1, round(h / scale))) if scale > 1 else (w, h)
        resample = Image.Resampling.BOX if im.mode in ("L", "RGB", "RGBA", "LA", "CMYK", "YCbCr") \
            else Image.Resampling.NEAREST
        small = im.resize((tw, th), resample) if (tw, th) != (w, h) else im.copy()
        small = _to_8bit(small)
        rgba = small.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        rgb = Image.alpha_composite(white, rgba).convert("RGB")
    except Exception:  # noqa: BLE001 - statistics are best effort
        return {}
    raw = rgb.tobytes()
    pixels = list(zip(raw[0::3], raw[1::3], raw[2::3], strict=True))
    n = len(pixels)
    if n == 0:
        return {}
    counts = Counter((r >> 4, g >> 4, b >> 4) for r, g, b in pixels)
    lum = [0.299 * r + 0.587 * g + 0.114 * b for r, g, b in pixels]
    mean = sum(lum) / n
    std = (sum((x - mean) ** 2 for x in lum) / n) ** 0.5
    ink = sum(1 for x, (r, g, b) in zip(lum, pixels, strict=True)
              if not (x > 235 and max(r, g, b) - min(r, g, b) < 20)) / n

    def is_background(c: tuple[int, int, int]) -> bool:
        r, g, b = (v * 16 + 8 for v in c)
        lu = 0.299 * r + 0.587 * g + 0.114 * b
        return (lu > 235 and max(r, g, b) - min(r, g, b) < 24) or lu < 20

    blocks = [cnt for c, cnt in counts.items() if not is_background(c) and cnt / n >= 0.02]
    coverage = sum(blocks) / n
    is_blank = (std < 3.0 and len(counts) <= 2) or ink < 0.005
    return {
        "distinct_colours": len(counts),
        "luminance_std": round(std, 2),
        "ink_fraction": round(ink, 4),
        "colour_blocks": len(blocks),
        "is_blank": is_blank,
        "looks_like_heatmap": (not is_blank) and len(blocks) >= 2 and coverage >= 0.20,
    }


# --------------------------------------------------------------------------------------------------
# what the upload page says before uploading
# --------------------------------------------------------------------------------------------------

# Files students pick by mistake in each field, by extension, with the first bytes of such a file. The upload
# page's own check (app/static/app.js) stops a wrong extension before anything is sent; it said only "has the
# wrong type for this field: use .py .py.txt", never the refusal's advice (export a notebook, save Word as PDF,
# WebP as PNG). It now shows the refusal the validators give such a file, computed here from these samples.
# The extensions are the validators' own (round 29): a hand-kept list had left out HEIC/HEIF (an iPhone's
# photo), AVIF, PSD and ICO, which the figure's refusal explains, and WPS, web pages and plain-text formats,
# which the audit's does: the page said "wrong type" where the server would have said how to convert.
_ZIP = _ZIP_MAGIC + b"\x00" * 60
# A Word document names its parts under word/ (_zip_kind): a bare ZIP sample made the upload form tell a student
# who picked their .docx as the code to unzip it and upload the attention.py inside (round 46).
_DOCX = _ZIP + b"word/document.xml"
# the same for OpenDocument and Pages (round 46 mend: the .odt sample was named by its extension, "OpenDocument
# (LibreOffice)", a real one by its content, "OpenDocument (.odt)")
_ODT = _ZIP + b"mimetypeapplication/vnd.oasis.opendocument.text"
_PAGES = _ZIP + b"Index/Document.iwa"
# one file of each format the figure's sniffer names (_sniff_figure_format), under each of its extensions
_FIGURE_FORMAT_SAMPLES = (
    b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 16, b"\x00\x00\x00\x1cftypavif" + b"\x00" * 16,
    b"\x00\x00\x00\x18ftypheic" + b"\x00" * 16, b"GIF89a" + b"\x00" * 16, b"BM" + b"\x00" * 40,
    b"II*\x00" + b"\x00" * 16, PDF_MAGIC + b"1.4\n", b"<svg xmlns='http://www.w3.org/2000/svg'></svg>",
    b"8BPS" + b"\x00" * 22, b"\x00\x00\x01\x00" + b"\x00" * 18,
)
_WRONG_PICKS: dict[str, dict[str, bytes]] = {
    "code": {".ipynb": b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', ".txt": b"x = 1\n",
             ".zip": _ZIP, ".pdf": PDF_MAGIC + b"1.4\n", ".docx": _DOCX, ".odt": _ODT, ".pages": _PAGES,
             ".png": PNG_MAGIC + b"\x00" * 24},
    # a document is recognised by its name as well as by its content: any bytes give its advice
    "audit": {**{ext: b"x" for ext in (*_AUDIT_DOCUMENT_EXTENSIONS, *_HTML_EXTENSIONS, *_PLAIN_TEXT_EXTENSIONS)},
              ".docx": _DOCX, ".doc": _OLE2_MAGIC + b"\x00" * 56, ".rtf": b"{\\rtf1 x}",
              ".odt": _ODT, ".pages": _PAGES, ".zip": _ZIP, ".ipynb": b'{"cells": [], "nbformat": 4}'},
    "figure": {ext: sample for sample in _FIGURE_FORMAT_SAMPLES
               for ext in (_sniff_figure_format(sample) or ("", ()))[1]},
}


@functools.cache
def wrong_extension_advice() -> dict[str, dict[str, dict[str, str]]]:
    """{field: {extension: the refusal of such a file, {"en", "zh"}}} for files picked by mistake (see _WRONG_PICKS)."""
    check = {"code": validate_code, "audit": validate_audit, "figure": validate_figure}
    out: dict[str, dict[str, dict[str, str]]] = {}
    for field, picks in _WRONG_PICKS.items():
        for ext, data in picks.items():
            try:
                check[field](f"{field}{ext}", data)
            except InputError as exc:
                out.setdefault(field, {})[ext] = {"en": exc.en, "zh": exc.zh}
    return out
