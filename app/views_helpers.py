"""Helpers shared by the views: template filters and globals, and uploaded files of a request."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime

import markdown as md
import nh3
from flask import Flask, request
from markupsafe import Markup

from app.models import FINAL, PENDING, Status
from app.submitting import Upload

# Student text is rendered from Markdown and then sanitised: no script, no event handlers,
# no javascript: links can reach the browser, whatever the audit contains.
_ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "b", "i", "code", "pre",
    "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "a", "sup", "sub",
}


def _shift_headings(html: str, shift: int) -> str:
    # A document embedded under the page's own headings must not add a second <h1>.
    return re.sub(r"<(/?)h([1-6])\b", lambda m: f"<{m.group(1)}h{min(6, int(m.group(2)) + shift)}", html)


def render_markdown(text: str | None, shift: int = 0) -> Markup:
    """Markdown to sanitised HTML; `shift` lowers every heading level by that much."""
    if not text:
        return Markup("")
    html = md.markdown(text, extensions=["tables", "fenced_code"], output_format="html")
    if shift:
        html = _shift_headings(html, shift)
    clean = nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes={"a": {"href", "title"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return Markup(clean)


def fmt_dt(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else "—"


# Longest file name kept (characters); the database column holds 255, and a name is only a label.
MAX_FILENAME_CHARS = 120


def safe_filename(raw: str) -> str:
    """A client's file name reduced to a label: the base name only (no folders of the client's
    disk), no control characters, at most MAX_FILENAME_CHARS with the extension kept. Unlike
    werkzeug's secure_filename it keeps non-ASCII letters: students name files in Chinese."""
    name = unicodedata.normalize("NFC", raw).replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C").strip() or "upload"
    if len(name) > MAX_FILENAME_CHARS:
        stem, dot, ext = name.rpartition(".")
        ext = f".{ext}" if dot and stem and len(ext) <= 10 else ""
        name = name[: MAX_FILENAME_CHARS - len(ext)].rstrip(".") + ext
    return name


def uploaded(field: str) -> Upload | None:
    """The file sent in form field `field` of the current request, or None when none was chosen."""
    f = request.files.get(field)
    if f is None or not f.filename:
        return None
    return Upload(filename=safe_filename(f.filename), data=f.read())


def register(app: Flask) -> None:
    app.jinja_env.filters["markdown"] = render_markdown
    app.jinja_env.filters["dt"] = fmt_dt
    # Templates compare statuses with the enum and its named groups, never with literals.
    app.jinja_env.globals.update(Status=Status, PENDING=PENDING, FINAL=FINAL)
    from flask_babel import get_locale

    app.jinja_env.globals["get_locale"] = get_locale
