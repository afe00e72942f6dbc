"""Every error answer of the service, in one place.

People get a styled page in their language with a way back; anything under `/api/` gets JSON of
one shape, whatever the status (500 included):

    {"error": "<English sentence>", "code": "<machine code>", "message": {"en": ..., "zh": ...}}

`api_error()` is the one helper that builds that JSON; views and decorators call it instead of
`jsonify`-ing their own error bodies, so a client can always read `code` and show `message`.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from flask_babel import force_locale
from flask_babel import lazy_gettext as _l
from sqlalchemy.exc import DataError, InternalError, OperationalError
from werkzeug.exceptions import HTTPException, InternalServerError, MethodNotAllowed

# Characters of user input an error text quotes back (a slug, an email, a deadline, a field name):
# the texts quoted it whole, so a 100 KB field came back in the answer twice (en and zh) and filled
# the instructor's page. Enough to recognise what was typed.
ECHO_CHARS = 60


def cut(text: str, limit: int = ECHO_CHARS) -> str:
    """A text longer than `limit` characters cut there and ended with '…'."""
    return text if len(text) <= limit else text[:limit] + "…"


def echoed(value: object, limit: int = ECHO_CHARS) -> str:
    """User input as an error text quotes it: the repr (control characters escaped) of its first
    `limit` characters (cut)."""
    return repr(cut(value, limit)) if isinstance(value, str) else repr(value)


# status -> (code, title, what happened and what to do). Titles and messages are lazy so that one
# table serves both languages (see `both`).
PAGES: dict[int, tuple[str, Any, Any]] = {
    400: ("bad_request", _l("The request could not be understood"),
          _l("Something in what was sent is missing or malformed. Go back, reload the page and try again.")),
    401: ("unauthorized", _l("Sign-in needed"),
          _l("Send a valid API token as 'Authorization: Bearer <token>', or sign in.")),
    403: ("forbidden", _l("Not allowed"),
          _l("Your account may not open this page. If you think it should, ask the course staff.")),
    404: ("not_found", _l("Page not found"),
          _l("There is nothing here: the link may be mistyped, or the item belongs to someone else.")),
    405: ("method_not_allowed", _l("Not allowed this way"),
          _l("This address does not accept that kind of request.")),
    413: ("too_large", _l("Upload too large"),
          _l("The upload is too large: the limit is %(n)s MiB for all files together.")),
    415: ("unsupported_type", _l("Unsupported file type"),
          _l("This kind of file is not accepted here.")),
    429: ("too_many_requests", _l("Too many requests"),
          _l("You have sent too many requests in a short time.")),
    500: ("internal_error", _l("Something went wrong on our side"),
          _l("The server failed while answering. Nothing you did caused this; the staff can see the log. "
             "Please try again in a moment.")),
    503: ("unavailable", _l("Temporarily unavailable"),
          _l("The service is briefly unavailable; nothing was saved. Please retry shortly.")),
}


# Where deploy/nginx.conf sends a request whose body it refused as too large (error_page 413).
PROXY_TOO_LARGE = "/_errors/413"
# The other requests nginx refuses itself, before the app (deploy/nginx.conf, error_page 494 and
# 429): its pages were English HTML, under /api/ too. status, code, message; nginx's status stays.
PROXY_REFUSALS: dict[str, tuple[int, str, Any]] = {
    "headers": (400, "headers_too_large", _l(
        "The request's headers are larger than the server accepts (8 KiB a line): most often a cookie that grew "
        "too large, or an over-long header set by a script (an Idempotency-Key takes at most 200 characters). "
        "Clear this site's cookies, or shorten the header, and send it again; nothing was saved.")),
    "connections": (429, "too_many_connections", _l(
        "Too many connections from your network address are open at once (a classroom behind one address "
        "shares the limit). Wait a few seconds and try again; nothing was saved.")),
}


def both(text: Any, **params: Any) -> dict[str, str]:
    """A (lazy) UI string in both languages, as the API's `message` carries it; a parameter given as an
    ``{"en", "zh"}`` dict (a list joined in each language's way) fills each language with its own."""
    out = {}
    for lang in ("en", "zh"):
        with force_locale(lang):
            said = {k: v[lang] if isinstance(v, dict) else v for k, v in params.items()}
            out[lang] = str(text) % said if params else str(text)
    return out


def api_error(code: str, status: int, message: Mapping[str, str] | Any, *,
              headers: Mapping[str, str] | None = None, accepted: Sequence[str] | None = None) -> Response:
    """The JSON error body of the API: `{"error", "code", "message": {"en", "zh"}}`, and
    `"accepted": [...]` (the values, or field names, the request may send) when the refusal is
    about a value outside a fixed set: a client reads the list there, a person reads the message.

    `message` is a `{"en", "zh"}` dict (e.g. a refused upload's) or a lazy UI string, which is
    rendered in both languages."""
    text = dict(message) if isinstance(message, Mapping) else both(message)
    body: dict[str, Any] = {"error": text["en"], "code": code,
                            "message": {"en": text["en"], "zh": text.get("zh") or text["en"]}}
    if accepted is not None:
        body["accepted"] = list(accepted)
    resp = jsonify(body)
    resp.status_code = status
    for name, value in (headers or {}).items():
        resp.headers[name] = value
    return resp


def one_of(name: str, options: Mapping[str, tuple[str, str]], sent: object) -> dict[str, str]:
    """The refusal of `name`'s value `sent` when it takes one of `options` ({value: (en, zh)}, what
    each value does), in both languages. Round 33: the answer listed the values alone ("scope must be
    one of counting, all, student, submission", in the Chinese text too): codes, not what they do.
    Each value stays quoted exactly as it is sent; the list itself goes in the body's "accepted"."""
    values_en = "; ".join(f"'{value}' ({en})" for value, (en, _zh) in options.items())
    values_zh = "；".join(f"'{value}'（{zh}）" for value, (_en, zh) in options.items())
    if sent is None:
        sent_en, sent_zh = "none was sent", "没有发送"
    else:
        sent_en, sent_zh = f"sent: {echoed(sent)}", f"实际发送：{echoed(sent)}"
    return {"en": f"'{name}' takes one of these values ({sent_en}): {values_en}. Nothing was done.",
            "zh": f"「{name}」只接受以下取值之一（{sent_zh}）：{values_zh}。本次没有执行任何操作。"}


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def retry_after_seconds(exc: HTTPException | None = None) -> int | None:
    """How long a refused client should wait: the rate limit's reset time, or a Retry-After set
    by whoever refused (the header is what the page shows as a wait time)."""
    if exc is not None and exc.response is not None and exc.response.headers.get("Retry-After", "").isdigit():
        return int(exc.response.headers["Retry-After"])
    try:
        from app.extensions import limiter

        current = limiter.current_limit
    except (RuntimeError, AttributeError):  # no limiter on this request
        current = None
    if current is not None and current.breached:
        # As Flask-Limiter itself counts it (its reset time is rounded up to the next second).
        return max(1, int(current.reset_at - time.time()))
    return None


def error_response(status: int, *, en: str | None = None, zh: str | None = None, code: str | None = None,
                   retry_after: int | None = None, as_json: bool | None = None,
                   headers: Mapping[str, str] | None = None,
                   **params: Any) -> tuple[str, int, dict] | Response:
    """The answer to one error: JSON for the API, the styled page otherwise (`as_json` decides when the
    request's own path does not say: the proxy's 413). `en`/`zh` replace the table's message when the
    caller knows more (a refused upload, a deadline); `headers` are sent as well (a 405's Allow)."""
    default_code, title, message = PAGES.get(status, PAGES[500] if status >= 500 else PAGES[400])
    code = code or default_code
    text = both(message, **params)
    if en is not None:
        text = {"en": en, "zh": zh or en}
    headers = {**(headers or {}), **({"Retry-After": str(retry_after)} if retry_after else {})}
    if wants_json() if as_json is None else as_json:
        return api_error(code, status, text, headers=headers)
    lang = "zh" if str(request_locale()).startswith("zh") else "en"
    page = render_template("error.html", status=status, code=code, title=str(title), message=text[lang],
                           retry_after=retry_after)
    return page, status, headers


def _form_limit_hit(exc: BaseException) -> tuple[str, str | None]:
    """Which of werkzeug's form limits raised this 413, read from where it was raised (werkzeug raises
    the same bare RequestEntityTooLarge for each): ("parts", None); ("field", its name) for a text field
    longer than the form's memory limit; and, for the bytes the multipart decoder holds unparsed past that
    limit, by where it was: ("headers", None) in a part's header lines (where its file name is sent),
    ("preamble", None) before any part (the boundary never appears), ("epilogue", None) after the form's
    end. Else ("unknown", None): a werkzeug that raises it elsewhere. A url-encoded form is read whole
    and never raises it."""
    from werkzeug.formparser import MultiPartParser
    from werkzeug.sansio.multipart import MultipartDecoder, State

    frames = [frame for frame, _line in traceback.walk_tb(exc.__traceback__)]
    for frame in reversed(frames):   # the innermost first: where it was raised
        code = frame.f_code
        if code is MultipartDecoder.next_event.__code__:
            return "parts", None   # its only 413: more parts than max_form_parts
        if code is MultipartDecoder.receive_data.__code__:
            # The decoder keeps only what it has not parsed: a part's headers that do not end, or, before
            # the first part, a body in which the boundary never appears.
            state = getattr(frame.f_locals.get("self"), "state", None)
            where = {State.PART: "headers", State.PREAMBLE: "preamble", State.EPILOGUE: "epilogue"}
            return where.get(state, "unknown"), None
        if code is MultiPartParser.parse.__code__:
            part = frame.f_locals.get("current_part")
            return "field", getattr(part, "name", None)
    return "unknown", None


def form_limits_message(sent: int, limit: int, exc: BaseException | None = None) -> dict[str, str]:
    """en/zh of a form within the size limit (``sent`` <= ``limit``) that werkzeug refused for one of its
    form limits, naming the limit it hit (`_form_limit_hit`); both are named, as possible causes, only
    when where it was raised is not one of werkzeug's form parsers."""
    kib, mib = max(1, round(sent / 1024)), limit // (1024 * 1024)
    parts, field_kib = request.max_form_parts, (request.max_form_memory_size or 0) // 1024
    kind, name = _form_limit_hit(exc) if exc is not None else ("unknown", None)
    head_en = f"The upload ({kib} KiB) is within the {mib} MiB limit, but "
    head_zh = f"本次上传（{kib} KiB）没有超过 {mib} MiB 的上限，但"
    three_en = ("A submission sends at most three files (code, audit, figure): choose only those and send it again; "
                "nothing was saved.")
    three_zh = "一次提交最多三个文件（代码、审计、图）：只选择这些文件后重新提交；没有保存任何内容。"
    if kind == "parts":
        return {"en": f"{head_en}the form has more parts than the server reads ({parts} at most). {three_en}",
                "zh": f"{head_zh}表单的部分数超过服务器读取的上限（最多 {parts} 个）。{three_zh}"}
    if kind == "field":
        shown = echoed(name or "")
        return {"en": f"{head_en}its text field {shown} is longer than the {field_kib} KiB the server reads in a text "
                      "field. Send files as file fields (curl -F field=@file), and the other fields as short text; "
                      "nothing was saved.",
                "zh": f"{head_zh}其中的文字字段「{cut(name or '')}」超过了服务器对文字字段读取的上限（{field_kib} KiB）。文件请以文件字段"
                      "发送（curl -F 字段=@文件），其他字段只发送简短文字；没有保存任何内容。"}
    if kind == "headers":
        return {"en": f"{head_en}the header lines of one of its parts, where a file's name is sent, are longer than the "
                      f"{field_kib} KiB the server reads. Give the file a shorter name and send it again; nothing was saved.",
                "zh": f"{head_zh}其中某个部分的头部（文件名在其中发送）超过了服务器读取的上限（{field_kib} KiB）。请把文件改成较短的"
                      "名字后重新提交；没有保存任何内容。"}
    if kind == "preamble":
        return {"en": f"{head_en}no part of the form begins within its first {field_kib} KiB: the boundary the "
                      "Content-Type header names does not appear in the body. Let curl -F or Python requests (files=) "
                      "build the body and the header; nothing was saved.",
                "zh": f"{head_zh}在请求体的前 {field_kib} KiB 中找不到表单的任何部分：Content-Type 请求头给出的 boundary"
                      "（分隔符）没有出现在请求体中。请让 curl -F 或 Python requests（files=）生成请求体和请求头；没有保存任何内容。"}
    if kind == "epilogue":
        return {"en": f"{head_en}after the form's closing boundary it carries more than {field_kib} KiB that belong to "
                      "no part. Let curl -F or Python requests (files=) build the body; nothing was saved.",
                "zh": f"{head_zh}在表单的结束分隔符之后还有超过 {field_kib} KiB 不属于任何部分的内容。请让 curl -F 或 Python "
                      "requests（files=）生成请求体；没有保存任何内容。"}
    return {
        "en": f"{head_en}the form has more parts than the server reads ({parts} at most) or a text field or file name "
              f"longer than {field_kib} KiB. {three_en}",
        "zh": f"{head_zh}表单的部分数超过服务器读取的上限（最多 {parts} 个），或某个文字字段或文件名超过 {field_kib} KiB。"
              f"{three_zh}",
    }


def request_locale() -> str:
    from flask_babel import get_locale, refresh

    # An error raised before the app's own before-request hooks (CSRF) must not reuse a locale
    # cached on a long-lived app context.
    refresh()
    return str(get_locale() or "zh")


def is_unavailable(exc: OperationalError) -> bool:
    """Is this the database being away or busy, rather than a mistake in a query?"""
    if exc.connection_invalidated:
        return True
    try:
        import psycopg

        if isinstance(exc.orig, psycopg.OperationalError):
            return True  # connection refused, server shut down, connection lost
    except ImportError:  # pragma: no cover - psycopg is a dependency
        pass
    return "database is locked" in str(exc.orig)  # SQLite under concurrent writers


def storable(value: str) -> bool:
    """Whether PostgreSQL can store and compare this text: no NUL, no half of a surrogate pair."""
    from rubric.audit.text import encodable

    return "\x00" not in value and encodable(value) is value


# The refusal of a value `storable` refuses, wherever it was sent (a form, a query, a JSON body).
BAD_CHARACTERS = {"en": "The request contains a NUL character or half of an emoji, which no field accepts; nothing was "
                        "saved.",
                  "zh": "请求中含有 NUL 字符或不完整的 emoji，任何字段都不接受；没有保存任何内容。"}


def register(app: Flask) -> None:
    from flask_wtf.csrf import CSRFError

    from app.extensions import db
    from app.storage import StorageUnavailable, note_storage_failure, storage_failure

    @app.errorhandler(StorageUnavailable)
    def storage_unavailable(exc: StorageUnavailable):
        # Disk full or read-only where the uploads are kept: the transaction was rolled back.
        db.session.rollback()  # (not remove(): the page still shows who is signed in)
        app.logger.error("upload storage unavailable: %s", exc.reason)
        note_storage_failure(exc.reason)
        text = both(_l("Storage is unavailable: your upload was not saved. Please retry in a minute."))
        return error_response(503, code="storage_unavailable", en=text["en"], zh=text["zh"],
                              retry_after=int(app.config["STORAGE_RETRY_AFTER_S"]))

    @app.errorhandler(OperationalError)
    def database_unavailable(exc: OperationalError):
        if reason := storage_failure(exc):
            return storage_unavailable(StorageUnavailable(reason))  # the disk, not the server
        db.session.remove()
        if not is_unavailable(exc):
            raise exc  # a bug (bad SQL), not an outage: a logged 500, not a misleading 503
        # The database is the record: when it is away we refuse honestly instead of losing work.
        app.logger.warning("database unavailable: %s", getattr(exc, "orig", exc))
        text = both(_l("The database is unavailable; nothing was saved, please retry shortly."))
        return error_response(503, code="database_unavailable", en=text["en"], zh=text["zh"], retry_after=5)

    @app.errorhandler(InternalError)
    def database_internal_error(exc: InternalError):
        # psycopg raises SQLSTATE 25006 (a read-only server: a failover's replica, or one set read-only)
        # as InternalError, not OperationalError: the same outage as a full disk, not a bug.
        if reason := storage_failure(exc):
            return storage_unavailable(StorageUnavailable(reason))
        raise exc

    @app.before_request
    def refuse_unstorable_text():
        # A NUL or half a surrogate pair in a path, a query or a form field: PostgreSQL refuses the
        # first in any text parameter (a 500 on /assignments/a%00b) and UTF-8 the second. No field of
        # this service takes either, so the request is refused before any view reads it.
        values = [*(request.view_args or {}).values(), *request.args.keys(), *request.args.values(),
                  *request.form.keys(), *request.form.values()]
        if any(isinstance(v, str) and not storable(v) for v in values):
            return error_response(400, code="bad_characters", **BAD_CHARACTERS)
        return None

    @app.errorhandler(DataError)
    def bad_value(exc: DataError):
        # A value the database cannot store or compare (found past the check above): the request's
        # fault, never a 500.
        db.session.rollback()
        return error_response(400)

    @app.errorhandler(CSRFError)
    def csrf_failed(exc: CSRFError):
        text = both(_l("The form has expired or was sent from another page. Go back, reload the page and "
                       "send it again; nothing was saved."))
        return error_response(400, code="csrf_failed", en=text["en"], zh=text["zh"])

    @app.errorhandler(413)
    def too_large(exc: HTTPException):
        limit, sent = app.config["MAX_CONTENT_LENGTH"], request.content_length
        if limit is not None and sent is not None and sent <= limit:
            # Werkzeug answers the same 413 to a form of more than max_form_parts parts or with a text
            # field over max_form_memory_size: the size, checked here, is not the cause, and "too
            # large: the limit is 8 MiB" sent the student to shrink files that were small.
            return error_response(413, code="form_too_complex", **form_limits_message(sent, limit, exc))
        return error_response(413, n=limit // (1024 * 1024))

    @app.get(PROXY_TOO_LARGE)
    def too_large_at_the_proxy():
        # nginx refuses a body over its client_max_body_size before the app sees it and asks this
        # route for the answer, without the body (deploy/nginx.conf, error_page 413): its own page was
        # English only, and HTML under /api/. The status stays the proxy's 413.
        api = request.headers.get("X-Original-URI", "").startswith("/api/")
        return error_response(413, as_json=api or wants_json(), n=app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024))

    def refused_at_the_proxy(kind: str) -> Callable[[], Any]:
        # As too_large_at_the_proxy: nginx asks for the answer without the request (whose headers may
        # be what it refused) and keeps its own status.
        status, code, message = PROXY_REFUSALS[kind]

        def answer():
            api = request.headers.get("X-Original-URI", "").startswith("/api/")
            text = both(message)
            return error_response(status, code=code, en=text["en"], zh=text["zh"], as_json=api or wants_json(),
                                  retry_after=5 if status == 429 else None)

        return answer

    for kind in PROXY_REFUSALS:  # one route (and endpoint) each, so each is classified and tested
        app.add_url_rule(f"/_errors/proxy/{kind}", f"refused_at_the_proxy_{kind}", refused_at_the_proxy(kind))

    @app.errorhandler(429)
    def too_many(exc: HTTPException):
        return error_response(429, retry_after=retry_after_seconds(exc))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if exc.code is None or exc.code < 400:
            return exc
        # The exception's own headers say what the client needs to retry correctly: a 405's Allow
        # (RFC 9110 15.5.6: required; it was dropped with Werkzeug's page), a 401's WWW-Authenticate.
        # The body is ours, so not its Content-Type.
        headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
        if isinstance(exc, MethodNotAllowed) and exc.valid_methods:
            methods = [m for m in sorted(exc.valid_methods) if m != "OPTIONS"]
            allowed = {"en": ", ".join(methods), "zh": "、".join(methods)}   # round 46 mend: "GET, HEAD" in zh
            text = both(_l("This address does not accept %(method)s requests; it accepts %(allowed)s."),
                        method=request.method[:16], allowed=allowed)
            return error_response(405, en=text["en"], zh=text["zh"], headers=headers)
        return error_response(exc.code, headers=headers)

    @app.errorhandler(InternalServerError)
    def internal_error(exc: InternalServerError):
        # Flask logs the original exception before calling this; the user sees no traceback.
        db.session.rollback()
        return error_response(500)
