"""Helpers shared by the views: template filters and globals, and uploaded files of a request."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any
from urllib.parse import quote

import cmarkgfm
import jinja2.filters
import nh3
from cmarkgfm.cmark import Options as CmarkOptions
from flask import Flask, request
from jinja2 import pass_context
from markupsafe import Markup

from app.models import FINAL, PENDING, Status
from app.review_text import localized as review_reason
from app.submitting import SubmissionRefused, Upload
from grading.i18n import COLON, SEMI

# Student text is rendered from Markdown and then sanitised: no script, no event handlers,
# no javascript: links can reach the browser, whatever the audit contains.
_ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "b", "i", "code", "pre",
    "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "a", "sup", "sub", "del",
}


def _shift_headings(html: str, shift: int) -> str:
    # A document embedded under the page's own headings must not add a second <h1>.
    return re.sub(r"<(/?)h([1-6])\b", lambda m: f"<{m.group(1)}h{min(6, int(m.group(2)) + shift)}", html)


# GitHub-flavoured Markdown, as students write it (GitHub, Typora, Jupyter): tables, strikethrough,
# autolinks. Raw HTML is passed on (CMARK_OPT_UNSAFE) for nh3 to sanitise, so that what the page shows
# is what the audit checker reads (rubric/audit/text.visible). cmark-gfm is C and linear on any input;
# Python-Markdown took 73 s for an audit of 20,000 "[" and 137 s for "[a](" repeated, per page view.
_GFM_EXTENSIONS = ["table", "strikethrough", "autolink"]
# Past this much HTML (a 256 KB table of one-character cells renders to ~6 MB) the page shows the
# source as text: a page the browser can still open.
MAX_RENDERED_CHARS = 2_000_000
# nh3's HTML parser (html5ever) is quadratic in nesting: 50,000 nested "> " quotes took 13 s. No
# audit nests 64 deep; past that the source is shown as text too.
MAX_RENDERED_DEPTH = 64
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^<>]*?(/?)>")
_VOID_TAGS = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed",
                        "source", "track", "wbr", "param"})


def _nesting(html: str) -> int:
    """How deep an HTML parser would nest the elements of ``html``, as far as MAX_RENDERED_DEPTH + 1:
    a self-closing ``<div/>`` opens an element (HTML ignores the slash except on void elements), a
    closing tag closes the innermost open element of its name and everything inside it, and one
    that matches nothing open is ignored. Linear: the stack never grows past the limit."""
    stack: list[str] = []
    for m in _TAG.finditer(html):
        name = m.group(2).lower()
        if name in _VOID_TAGS:
            continue
        if not m.group(1):
            stack.append(name)
            if len(stack) > MAX_RENDERED_DEPTH:
                return len(stack)
        elif name in stack:
            del stack[len(stack) - 1 - stack[::-1].index(name):]
    return len(stack) if stack else 0


def render_markdown(text: str | None, shift: int = 0) -> Markup:
    """Markdown to sanitised HTML; `shift` lowers every heading level by that much."""
    if not text:
        return Markup("")
    return Markup(_rendered(text, shift))


# A page shows the same audit several times (it is carried to later attempts): rendered once.
@functools.lru_cache(maxsize=32)
def _rendered(text: str, shift: int) -> str:
    html = cmarkgfm.markdown_to_html_with_extensions(text, options=CmarkOptions.CMARK_OPT_UNSAFE,
                                                    extensions=_GFM_EXTENSIONS)
    if len(html) > MAX_RENDERED_CHARS or _nesting(html) > MAX_RENDERED_DEPTH:
        return str(Markup("<pre>") + Markup.escape(text) + Markup("</pre>"))
    if shift:
        html = _shift_headings(html, shift)
    return nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes={"a": {"href", "title"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


def fmt_dt(value: datetime | None, short: bool = False) -> Markup:
    """A stored (naive UTC) time as every page shows one: a <time> that app.js rewrites in the
    reader's own time zone, the UTC text kept one hover away (and shown, labelled, without script).
    Pages printed some times as bare UTC beside local ones: an override or an audit review
    "on 2026-12-04 20:14" read 8 hours off in Beijing, on a page whose other times were local."""
    if not value:
        return Markup("—")
    return Markup('<time datetime="{}Z" data-local="{}">{} UTC</time>').format(
        value.isoformat(), "short" if short else "long", value.strftime("%Y-%m-%d %H:%M:%S"))


# Longest file name kept (characters); the database column holds 255, and a name is only a label.
MAX_FILENAME_CHARS = 120


def safe_filename(raw: str) -> str:
    """A client's file name reduced to a label: the base name only (no folders of the client's
    disk), no control characters, at most MAX_FILENAME_CHARS with the extension kept. Unlike
    werkzeug's secure_filename it keeps non-ASCII letters: students name files in Chinese."""
    return cleaned_filename(raw)[0]


def cleaned_filename(raw: str) -> tuple[str, tuple[str, ...]]:
    """`safe_filename`'s name and what each of its steps changed, as app.upload_names names them to the
    student: "folders" (a path was sent), "composed" (NFC), "invisible" (control or format characters),
    "spaces" (at either end), "empty" (nothing was left: "upload"), "shortened"."""
    steps: list[str] = []
    composed = unicodedata.normalize("NFC", raw)
    name = composed.replace("\\", "/").rsplit("/", 1)[-1]
    # Told only when the kept name changed: a decomposed letter in a folder left behind told the student of
    # C:\Users\Jose<U+0301>\attention.py that "attention.py" was stored composed (review of round 35).
    last = raw.replace("\\", "/").rsplit("/", 1)[-1]
    if unicodedata.normalize("NFC", last) != last:
        steps.append("composed")
    if name != composed:
        steps.append("folders")
    visible = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    if visible != name:
        steps.append("invisible")
    name = visible.strip()
    if name != visible:
        steps.append("spaces")
    if not name:
        name = "upload"
        steps.append("empty")
    if len(name) > MAX_FILENAME_CHARS:
        stem, dot, ext = name.rpartition(".")
        ext = f".{ext}" if dot and stem and len(ext) <= 10 else ""
        name = name[: MAX_FILENAME_CHARS - len(ext)].rstrip(".") + ext
        steps.append("shortened")
    return name, tuple(steps)


def content_disposition(filename: str, *, inline: bool = False) -> str:
    """The Content-Disposition of a download (RFC 6266): `filename` reduced as `safe_filename` does (no
    control or bidi characters, so no CR/LF), an ASCII `filename="..."` for clients that read only that
    (curl -OJ, old mail clients) and, when the name is not plain ASCII, `filename*=UTF-8''...` (RFC 8187)
    with every other byte percent-encoded. A name is never written raw into the header: a quote in it ended
    the parameter, and a Chinese character is not Latin-1, which a WSGI server must refuse to send."""
    name = safe_filename(filename)
    fallback = "".join(ch if " " <= ch <= "~" and ch not in '"\\%;' else "_" for ch in name)
    value = f'{"inline" if inline else "attachment"}; filename="{fallback}"'
    if fallback != name:
        value += f"; filename*=UTF-8''{quote(name, safe='')}"
    return value


# Characters that change what a reader of code sees without being seen: the bidi controls of "Trojan
# Source" (CVE-2021-42574: an override in a comment or string shows the instructor another order of the
# code than Python runs) and the zero-width characters.
_HIDDEN_IN_CODE = re.compile("[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


def reveal_hidden(html: str | Markup) -> Markup:
    """Escaped text (or HTML whose text is escaped, as Pygments writes it) with each bidi control and
    zero-width character shown as a marked `U+XXXX` where it stands. None of them is markup, so the
    replacement never lands inside a tag."""
    escaped = Markup.escape(html)
    return Markup(_HIDDEN_IN_CODE.sub(
        lambda m: f'<span class="invisible-char" title="{unicodedata.name(m.group(), "")}">U+{ord(m.group()):04X}</span>',
        str(escaped)))


def uploaded(field: str) -> Upload | None:
    """The file sent in form field `field` of the current request, or None when none was chosen.

    Raises SubmissionRefused (400 ``several_files``) when the field holds more than one file: the
    first one was graded before, silently, whichever the client listed first."""
    files = [f for f in request.files.getlist(field) if f.filename]
    if not files:
        if request.form.get(field):
            # curl -F 'code=<attention.py' (or a script's data= instead of files=) sends the file's
            # contents as a text field: "attention.py is required" said it was never sent.
            raise SubmissionRefused(
                "not_a_file",
                f"The field '{field}' was sent as text, not as a file upload. Send it as a file: with curl, "
                f"-F {field}=@<file> (with @, not <); in Python requests, files={{'{field}': open(<file>, 'rb')}}. "
                "Nothing was saved.",
                f"字段「{field}」是作为文字发送的，不是文件上传。请以文件方式发送：curl 用 -F {field}=@<文件>"
                f"（用 @，不是 <）；Python requests 用 files={{'{field}': open(<文件>, 'rb')}}。没有保存任何内容。",
                400,
            )
        return None
    if len(files) > 1:
        quoted = [f"'{safe_filename(f.filename)}'" for f in files[:5]] + (["…"] if len(files) > 5 else [])
        raise SubmissionRefused(
            "several_files",
            f"The field '{field}' holds {len(files)} files ({', '.join(quoted)}); it takes one. Choose the one "
            "file to submit and send it again; nothing was saved.",
            f"字段「{field}」中有 {len(files)} 个文件（{'、'.join(quoted)}），但它只接受一个。请只选择要提交的那一个文件"
            "后重新提交；没有保存任何内容。",
            400,
        )
    f = files[0]
    # Only the name's own characters: safe_filename keeps the last component of a path sent as the name.
    base = re.split(r"[\\/]", f.filename or "")[-1]
    removed = "".join(dict.fromkeys(ch for ch in base if unicodedata.category(ch) == "Cf"))
    return Upload(filename=safe_filename(f.filename), data=f.read(), removed=removed, sent=f.filename)


# How a zh reader names the zones Chinese courses use, before the IANA name.
_ZONE_NAMES_ZH = {"Asia/Shanghai": "北京时间", "Asia/Chongqing": "北京时间", "Asia/Harbin": "北京时间",
                  "PRC": "北京时间", "Asia/Hong_Kong": "香港时间", "Asia/Taipei": "台北时间", "Asia/Macau": "澳门时间"}


def course_input_value(value) -> str:
    """A stored naive-UTC time as a datetime-local value in the course's zone ('' for none)."""
    from app.course import to_zone

    local = to_zone(value)
    return local.strftime("%Y-%m-%dT%H:%M") if local else ""


def course_zone_key() -> str:
    """The course's IANA zone name (the deadline inputs' hint reads the typed time in it)."""
    from app.course import course_zone

    return course_zone().key


def course_zone_label() -> str:
    """The course's zone for a deadline input's label: `Asia/Shanghai`, in zh `北京时间，Asia/Shanghai`."""
    from flask_babel import get_locale

    from app.course import course_zone

    key = course_zone().key
    name = _ZONE_NAMES_ZH.get(key) if str(get_locale() or "").startswith("zh") else None
    return f"{name}，{key}" if name else key


# Punctuation a template puts between two outputs ("{{ label }}: {{ value }}"): written as ASCII in the
# template it was the same on zh pages, where it reads "代码: attention.py", "一次提交: 王五".
_PUNCTUATION = {"colon": COLON, "semicolon": SEMI, "comma": {"en": ", ", "zh": "，"},
                "full_stop": {"en": ".", "zh": "。"}, "list": {"en": ", ", "zh": "、"},
                # Between a sentence or a "label:" and what follows: a space in en, none in zh, where 。 and ：
                # carry their own space (round 47: "该学生的截止时间： 2026年", "…提交。 目前计入成绩的是…").
                "word_gap": {"en": " ", "zh": ""}}


def _reader_lang() -> str:
    from flask_babel import get_locale

    return "zh" if str(get_locale() or "").startswith("zh") else "en"


def list_join(items: Iterable[object]) -> str:
    """Items of a list in a sentence, in the reader's language: "a, b" in en, "a、b" in zh (a list
    joined with ", " inside a zh message read "设置已保存：截止时间, 迟交扣分。")."""
    return _PUNCTUATION["list"][_reader_lang()].join(str(x) for x in items)


def parenthesized(text: object) -> Markup:
    """`(text)` in en, `（text）` in zh: parentheses a template wrote around an output were ASCII on zh
    pages ("(原始 80，迟交 −8)", "(+2 天)")."""
    return Markup("（{}）" if _reader_lang() == "zh" else "({})").format(text)   # escapes text unless Markup


def _punctuation(kind: str) -> Callable[[], str]:
    def mark() -> str:
        return _PUNCTUATION[kind][_reader_lang()]

    mark.__name__ = kind
    return mark


def bdi(name: object) -> Markup:
    """A name a person typed, isolated from the text around it (`<bdi>`): an Arabic or Hebrew name put the
    number or the punctuation after it on its other side ("one attempt: محمد علي #12" showed "#12" before
    the name; round 35). `isolate` is the same for text that is no HTML: an attribute, a dialog."""
    return Markup("<bdi>{}</bdi>").format(name)


def isolate(name: object) -> str:
    """`name` between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE: `bdi` for plain text."""
    return f"\u2068{name}\u2069"


def _per_request(f: Callable[..., Any]) -> Callable[..., Any]:
    """A filter whose output depends on the request (its language): never folded into the compiled template.
    Jinja evaluates a filter of a constant when it compiles the template, once per process, also with its
    optimizer off (the code generator folds constant output) unless the filter takes the context (round 47:
    `'.md / .txt'|parens` kept the first reader's parentheses, full-width on every en page after a zh one)."""
    @pass_context
    def per_request(_context: Any, *args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)

    per_request.__name__ = f.__name__
    return per_request


def register(app: Flask) -> None:
    for kind in ("colon", "semicolon", "comma", "full_stop", "word_gap"):
        app.jinja_env.globals[kind] = _punctuation(kind)
    app.jinja_env.filters["join_list"] = list_join
    app.jinja_env.filters["parens"] = parenthesized
    app.jinja_env.filters["markdown"] = render_markdown
    app.jinja_env.filters["bdi"] = bdi
    app.jinja_env.filters["isolate"] = isolate
    app.jinja_env.filters["review_reason"] = review_reason   # the grader's review reasons, in the page's language
    app.jinja_env.filters["dt"] = fmt_dt
    app.jinja_env.filters["reveal_hidden"] = reveal_hidden
    # Deadline inputs of the instructor pages: a stored (UTC) time as typed in the course's zone.
    app.jinja_env.filters["course_input"] = course_input_value
    app.jinja_env.globals["course_zone"] = course_zone_label
    app.jinja_env.globals["course_zone_key"] = course_zone_key
    # Templates compare statuses with the enum and its named groups, never with literals.
    app.jinja_env.globals.update(Status=Status, PENDING=PENDING, FINAL=FINAL)
    # A test row's points under an override: the score's own rule (clamped to 0..max), not a copy.
    from app.scores import overridden_test_points

    app.jinja_env.globals["overridden_test_points"] = overridden_test_points
    from flask_babel import get_locale

    app.jinja_env.globals["get_locale"] = get_locale
    _filters_per_request(app)


def _filters_per_request(app: Flask) -> None:
    """Every filter the app and its extensions add (the blueprints' `tr`, `sentence`, `logval`, Flask-Babel's
    date filters...) is evaluated per render: each may read the reader's language or zone, and a constant's
    result was folded in the first reader's (round 47 mend: `sentence`, `tr`, `logval` still were). Jinja's
    own filters read no request and stay foldable. Runs after the blueprints have registered their filters."""
    for name, f in app.jinja_env.filters.items():
        # pass_context and its kin set jinja_pass_arg: such a filter is never folded already
        if name not in jinja2.filters.FILTERS and not hasattr(f, "jinja_pass_arg"):
            app.jinja_env.filters[name] = _per_request(f)


@functools.lru_cache(maxsize=8192)   # OpenCC per name per search: the roster's names repeat across searches
def search_key(text: str) -> str:
    """`text` as a search compares it: NFKC (full-width ＡＬＩＣＥ), simplified Chinese (王曉明 finds
    王晓明), case folded, without spaces or invisible format characters ("王 小明" and "王小明", a
    roster's "Zhang  Wei"). Round 34: the class view and the roster compared the raw lower-cased text,
    so a name typed another way than the roster wrote it found no one."""
    from rubric.audit.text import to_simplified

    folded = to_simplified(unicodedata.normalize("NFKC", text)).casefold()
    return "".join(ch for ch in folded if not ch.isspace() and unicodedata.category(ch) != "Cf")


def search_matches(q: str, *texts: str | None) -> bool:
    """Whether the typed search `q` is found in one of `texts`, as `search_key` reads both."""
    key = search_key(q)
    return not key or any(key in search_key(t or "") for t in texts)
