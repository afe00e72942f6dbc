"""What an API request body may hold: the fields the OpenAPI description (app/openapi.py) names for
its route, of the types it names. The description is the one list: a field added there is accepted
here, and a client's typo is refused instead of silently ignored.

Before this, a body the views could not read was read as `{}`: a form-encoded, `text/plain` or
malformed JSON body, or one with a misspelt field (`"assignmnet"`), fell back to the default
assignment (`POST /api/v1/similarity` started a report on another assignment than the one
named), and a field of the wrong type reached the database (`"assignment": {}`: a 500).
"""

from __future__ import annotations

import json
import re
import sys
from typing import IO, Any

from flask import Request, request
from werkzeug.datastructures import MultiDict
from werkzeug.formparser import FormDataParser

from app.errors import BAD_CHARACTERS, cut, echoed, storable
from app.openapi import spec

# The JSON bodies of this API are a few short fields; a body past this is not one of them, and
# parsing megabytes of nested arrays only costs the server memory and time.
MAX_JSON_BYTES = 16 * 1024

_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "boolean": (bool,),
                                       "number": (int, float)}
_TYPE_ZH = {"string": "字符串", "integer": "整数", "boolean": "布尔值", "number": "数字"}


class BadInput(Exception):
    """A request body the API refuses before doing anything; carries its message in both languages."""

    def __init__(self, code: str, status: int, en: str, zh: str, accepted: list[str] | None = None) -> None:
        super().__init__(en)
        self.code, self.status, self.en, self.zh = code, status, en, zh
        self.accepted = accepted  # the field names the request takes, for the body's "accepted"


def _schema(path: str, content_type: str) -> dict[str, Any]:
    return spec()["paths"][path]["post"]["requestBody"]["content"][content_type]["schema"]


def _unknown(names: list[str], known: dict[str, Any]) -> BadInput:
    # The names quoted as they are sent (round 33: a bare "assignment, scope" read as prose in the
    # Chinese text); the list itself goes in the body's "accepted".
    listed = ", ".join(echoed(n) for n in names[:5])
    listed_zh = "、".join(echoed(n) for n in names[:5])   # round 46 mend: one list style in the zh sentence
    if known:
        takes_en = "this request takes only the fields " + ", ".join(f"'{name}'" for name in known)
        takes_zh = "此请求只接受以下字段：" + "、".join(f"「{name}」" for name in known)
    else:
        takes_en, takes_zh = "this request takes no fields", "此请求不接受任何字段"
    return BadInput(
        "unknown_field", 400,
        f"Unknown field(s) {listed}; {takes_en}. Check the spelling. Nothing was done.",
        f"未知字段 {listed_zh}；{takes_zh}。请检查拼写。本次没有执行任何操作。",
        accepted=list(known))


def _type_ok(value: Any, prop: dict[str, Any]) -> bool:
    if value is None:  # a client's "not set": the view treats it as absent
        return True
    kinds = _TYPES.get(prop.get("type", ""), (object,))
    if isinstance(value, bool) and bool not in kinds:
        return False  # JSON true is not the submission id 1
    if not isinstance(value, kinds):
        return False
    if isinstance(value, int) and not isinstance(value, bool):
        return prop.get("minimum", value) <= value <= prop.get("maximum", value)
    return True


class _DuplicateKey(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different. json.loads keeps the last of two equal keys, so
    `{"scope": "counting", "scope": "all"}` regraded every attempt of every student, a reader taking
    the first (or a proxy that logged it) seeing "counting": which one was meant cannot be known."""
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out:
            raise _DuplicateKey(name[:60])
        out[name] = value
    return out


def _json_kind(value: Any) -> tuple[str, str]:
    """A parsed JSON value named in JSON's words (an array, a string...), not Python's (list, str): (en, zh)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value), json.dumps(value)
    return {list: ("an array", "数组"), str: ("a string", "字符串")}.get(type(value), ("a number", "数字"))


def _not_json(exc: BaseException) -> BadInput:
    """The refusal of a body json.loads refused, saying what is wrong with the body in the client's terms.
    Round 26: Python's own text reached clients: "'utf-16-le' codec can't decode byte 0x7b" for a body
    that is not UTF-8 (json.loads guesses UTF-16 from a BOM or NUL bytes), and "Exceeds the limit (4300
    digits) for integer string conversion ... use sys.set_int_max_str_digits()", advice for the server."""
    if isinstance(exc, UnicodeDecodeError):
        en = (f"it is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at position {exc.start} is not "
              "valid there): send the JSON encoded as UTF-8")
        zh = f"它不是 UTF-8 文本（位置 {exc.start} 的字节 0x{exc.object[exc.start]:02x} 无效）：请以 UTF-8 编码发送 JSON"
        if exc.encoding.replace("-", "").lower() != "utf8":
            en, zh = ("it is not UTF-8 text (its first bytes look like UTF-16 or UTF-32): send the JSON encoded as "
                      "UTF-8"), "它不是 UTF-8 文本（开头的字节像 UTF-16 或 UTF-32）：请以 UTF-8 编码发送 JSON"
    elif isinstance(exc, json.JSONDecodeError):
        en = zh = f"{exc.msg}: line {exc.lineno}, column {exc.colno}"
    elif isinstance(exc, RecursionError):
        en, zh = "it is nested too deep", "嵌套层数过深"
    elif "integer string conversion" in str(exc):
        en, zh = (f"a number has more than {sys.get_int_max_str_digits()} digits",
                  f"其中某个数字超过 {sys.get_int_max_str_digits()} 位")
    else:
        en = zh = str(exc)[:120]
    return BadInput("bad_json", 400, f"The body is not valid JSON: {en}. Nothing was done.",
                    f"请求体不是有效的 JSON：{zh}。本次没有执行任何操作。")


def _texts(value: Any) -> list[str]:
    """Every string of a parsed JSON value, object keys included, at any depth. Walked with a stack, not
    by recursion: json.loads takes nesting a few hundred deep that a recursive walk (two frames a level)
    cannot, and the RecursionError was a 500."""
    texts: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict):
            texts.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return texts


def json_object(path: str) -> dict[str, Any]:
    """The JSON object sent to POST `path` (a key of the spec's paths), checked against its schema:
    an empty body is `{}`; otherwise it must be `application/json`, at most MAX_JSON_BYTES, an
    object, with only the schema's fields, each of its type (or null). Raises BadInput."""
    schema = _schema(path, "application/json")
    props: dict[str, Any] = schema.get("properties", {})
    if request.content_length is not None and request.content_length > MAX_JSON_BYTES:
        raise _too_large()
    raw = request.get_data(cache=True)
    if len(raw) > MAX_JSON_BYTES:  # chunked bodies have no Content-Length
        raise _too_large()
    if not request.is_json:
        # A form body may already have been read into request.form (its stream is then empty).
        if raw.strip() or request.content_length or request.form or request.files:
            raise _media_type("a JSON object with the header Content-Type: application/json",
                              "JSON 对象，并带请求头 Content-Type: application/json",
                              "-H 'Content-Type: application/json' -d '{...}'", "json={...}")
        return {}
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw, object_pairs_hook=_no_duplicate_keys)
    except _DuplicateKey as exc:
        raise BadInput("duplicate_field", 400,
                       f"The field '{exc.name}' is sent more than once; send it once, with the value you mean. "
                       "Nothing was done.",
                       f"字段「{exc.name}」发送了不止一次；请只发送一次，并填写你想要的值。本次没有执行任何操作。") from None
    except (ValueError, RecursionError) as exc:  # RecursionError: arrays nested thousands deep
        raise _not_json(exc) from None
    if not all(storable(text) for text in _texts(body)):
        # "\ud800" or "\u0000" escaped in a JSON string: the form's check (app.errors) never sees a
        # JSON body, and PostgreSQL's driver raised on the half surrogate (a 500) or refused the NUL
        # (a 400 saying "reload the page").
        raise BadInput("bad_characters", 400, BAD_CHARACTERS["en"], BAD_CHARACTERS["zh"])
    if not isinstance(body, dict):
        kind_en, kind_zh = _json_kind(body)
        raise BadInput("bad_json", 400,
                       f"The body must be a JSON object ({{\"field\": value, ...}}), not {kind_en}. "
                       "Nothing was done.",
                       f"请求体必须是 JSON 对象（{{\"字段\": 值, ...}}），而不是{kind_zh}。本次没有执行任何操作。")
    unknown = [k for k in body if k not in props]
    if unknown:
        raise _unknown(unknown, props)
    for name, value in body.items():
        prop = props[name]
        if not _type_ok(value, prop):
            kind = prop.get("type", "value")
            kind_zh = _TYPE_ZH.get(kind, kind)
            bounds = (f" from {prop['minimum']} to {prop['maximum']}"
                      if "minimum" in prop and "maximum" in prop else "")
            bounds_zh = (f"（{prop['minimum']} 到 {prop['maximum']}）"
                         if "minimum" in prop and "maximum" in prop else "")
            raise BadInput(
                "bad_field", 400,
                f"The field '{name}' must be a JSON {kind}{bounds} (sent: {json.dumps(value)[:60]}). Nothing was done.",
                f"字段「{name}」必须是 JSON {kind_zh}{bounds_zh}（实际发送：{json.dumps(value, ensure_ascii=False)[:60]}）。"
                "本次没有执行任何操作。")
    return body


class RecordingFormParser(FormDataParser):
    """Werkzeug's form parser, keeping why a multipart body could not be read. Werkzeug drops such a
    body silently (an empty form), whatever the cause; the cause is what the client needs to hear."""

    failure: ValueError | None = None

    def parse(self, stream: IO[bytes], mimetype: str, content_length: int | None,
              options: dict[str, str] | None = None) -> tuple[IO[bytes], MultiDict, MultiDict]:
        silent, self.silent = self.silent, False
        try:
            stream, form, files = super().parse(stream, mimetype, content_length, options)
        except ValueError as exc:
            if not silent:
                raise
            self.failure = exc
            return stream, self.cls(), self.cls()
        for _field, upload in files.items(multi=True):
            upload.filename = sent_filename(upload.filename, upload.headers.get("Content-Disposition", ""))
        return stream, form, files


# The quoted filename parameter of a part's Content-Disposition, as sent.
_QUOTED_FILENAME = re.compile(r'(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"', re.IGNORECASE)


def sent_filename(parsed: str | None, disposition: str) -> str | None:
    """The file name a client sent, with its backslashes. Werkzeug reads the quoted value as an RFC 2616
    quoted-string, where a backslash escapes the next character, but browsers send it as HTML says: a
    backslash is itself. Old browsers (Internet Explorer, old Edge) send the whole Windows path, and
    `C:\\Users\\x\\attention.py` was stored as `C:Usersxattention.py`: what is kept here is split on
    either separator by views_helpers.safe_filename. A `\\"` stays a quote (curl escapes one so), and a
    name sent as `filename*` (RFC 8187, which werkzeug prefers) is left as werkzeug read it."""
    if "\\" not in disposition or re.search(r"(?:^|;)\s*filename\*\s*=", disposition, re.IGNORECASE):
        return parsed
    match = _QUOTED_FILENAME.search(disposition)
    return match.group(1).replace('\\"', '"') if match else parsed


class AppRequest(Request):
    """The app's request: its form parser is kept, to say why a body yielded no form."""

    form_data_parser_class = RecordingFormParser
    form_parser: RecordingFormParser | None = None

    def make_form_data_parser(self) -> FormDataParser:
        parser = super().make_form_data_parser()
        self.form_parser = parser if isinstance(parser, RecordingFormParser) else None
        return parser


def _unreadable_because() -> tuple[str, str] | None:
    """What stopped the multipart parser, in the client's terms (en, zh), when it is known."""
    failure = getattr(getattr(request, "form_parser", None), "failure", None)
    if isinstance(failure, UnicodeDecodeError):
        # failure.object is the header line werkzeug decoded: name what it holds as far as it is seen.
        line, byte = bytes(failure.object), failure.object[failure.start]
        _, has_name, name = line.partition(b"filename=")
        try:
            shown = cut(name.strip(b'"; ').decode("gb18030")) if has_name else ""
        except UnicodeDecodeError:
            shown = ""
        what_en = f"the file name in a part's header is not UTF-8 text (byte 0x{byte:02x})" if has_name else \
            f"a header line of a part is not UTF-8 text (byte 0x{byte:02x})"
        what_zh = f"某个部分头部中的文件名不是 UTF-8 文本（字节 0x{byte:02x}）" if has_name else \
            f"某个部分的头部不是 UTF-8 文本（字节 0x{byte:02x}）"
        if shown:
            what_en += f"; read as GBK it is {shown!r}"
            what_zh += f"；按 GBK 读取是“{shown}”"
        return (f"{what_en}. Send names in UTF-8 (Python requests and browsers do), or rename the file with ASCII letters",
                f"{what_zh}。请以 UTF-8 发送文件名（Python requests 和浏览器都是这样发送的），或把文件改成英文字母的名字")
    if failure is None:
        return None
    text = str(failure)
    if "Content-Disposition" in text:
        return ("a part has no Content-Disposition header, so its field name is not known",
                "某个部分没有 Content-Disposition 头部，因此不知道它属于哪个字段")
    if "cannot parse beyond" in text:
        return ("the body ends before the form's closing boundary (--boundary--)",
                "请求体在表单的结束分隔符（--boundary--）之前就结束了")
    return None


def check_form_fields(path: str) -> None:
    """Refuse a multipart form sent to POST `path` with fields its schema does not name (`audti`
    for `audit`: the audit was dropped without a word, and the attempt lost its 15 points)."""
    props: dict[str, Any] = _schema(path, "multipart/form-data").get("properties", {})
    # A urlencoded form is let through: its file field sent as text gets its own answer (not_a_file).
    if request.mimetype not in ("multipart/form-data", "application/x-www-form-urlencoded") and (
            request.content_length or request.get_data(cache=True).strip()):
        raise _media_type("multipart/form-data (the files as file fields)", "multipart/form-data（文件以文件字段发送）",
                          "-F code=@attention.py", "files={'code': open('attention.py', 'rb')}")
    boundary = request.mimetype_params.get("boundary") or ""
    # An empty form is the closing delimiter alone (`--<boundary>--`, CRLF): a body longer than that
    # (with room for line breaks a client may add) of which no part was read is unreadable, not empty.
    empty_form = len(boundary) + 6 + 64
    if request.mimetype == "multipart/form-data" and (request.content_length or 0) > (empty_form if boundary else 0) \
            and not request.form and not request.files:
        # Werkzeug reads nothing from such a body, and "attention.py is required" sent the client to look
        # for a file it did send. The usual cause: a script that sets the header by hand (requests with
        # files= and headers={"Content-Type": "multipart/form-data"}), which drops the boundary.
        if not boundary:
            raise BadInput(
                "no_boundary", 400,
                "The Content-Type header says multipart/form-data but names no boundary, so the files in the body "
                "cannot be told apart. Do not set Content-Type yourself: curl -F and Python requests with files= "
                "set it with its boundary. Nothing was saved.",
                "Content-Type 请求头写的是 multipart/form-data，但没有给出 boundary（分隔符），因此无法从请求体中分出文件。"
                "请不要自己设置 Content-Type：curl -F 和 Python requests 的 files= 会连同分隔符一起设置。没有保存任何内容。")
        if because := _unreadable_because():
            raise BadInput(
                "unreadable_multipart", 400,
                f"No field or file could be read from the multipart body ({request.content_length} bytes): "
                f"{because[0]}. Nothing was saved.",
                f"无法从 multipart 请求体（{request.content_length} 字节）中读出任何字段或文件：{because[1]}。没有保存任何内容。")
        raise BadInput(
            "unreadable_multipart", 400,
            f"No field or file could be read from the multipart body ({request.content_length} bytes): its parts must "
            "be separated by the boundary the Content-Type header names. Let curl -F or Python requests (files=) "
            "build the body and the header. Nothing was saved.",
            f"无法从 multipart 请求体（{request.content_length} 字节）中读出任何字段或文件：各部分必须用 Content-Type "
            "请求头中给出的 boundary（分隔符）分开。请让 curl -F 或 Python requests（files=）生成请求体和请求头。"
            "没有保存任何内容。")
    names = list(dict.fromkeys([*request.form.keys(), *request.files.keys()]))
    unknown = [n for n in names if n not in props]
    if unknown:
        raise _unknown(unknown, props)
    refuse_repeated(request.form, "field", "字段")


def refuse_repeated(values: MultiDict, what_en: str, what_zh: str) -> None:
    """Refuse a form field or query parameter sent twice (400 ``duplicate_field``), as a JSON key sent
    twice is. Round 26: Werkzeug reads the first of `assignment=lab1&assignment=lab2`, a proxy or a log may
    read the last; which one was meant cannot be known (an attempt went to lab1, the gradebook of lab1 was
    exported). Files sent twice have their own answer (app.views_helpers.uploaded: several_files)."""
    repeated = [name for name in values if len(values.getlist(name)) > 1]
    if repeated:
        name, n = repeated[0][:60], len(values.getlist(repeated[0]))
        raise BadInput("duplicate_field", 400,
                       f"The {what_en} '{name}' is sent {n} times; send it once, with the value you mean. "
                       "Nothing was done.",
                       f"{what_zh}「{name}」发送了 {n} 次；请只发送一次，并填写你想要的值。本次没有执行任何操作。")


def _media_type(wanted_en: str, wanted_zh: str, curl: str, requests_arg: str) -> BadInput:
    sent = request.mimetype or "no Content-Type"
    return BadInput(
        "unsupported_media_type", 415,
        f"This request takes {wanted_en} (sent: {sent}). With curl: {curl}; in Python requests: "
        f"{requests_arg}. Nothing was done.",
        f"此请求需要 {wanted_zh}（实际发送：{sent}）。curl 用 {curl}；Python requests 用 {requests_arg}。"
        "本次没有执行任何操作。")


def _too_large() -> BadInput:
    return BadInput("body_too_large", 413,
                    f"The JSON body is larger than {MAX_JSON_BYTES // 1024} KiB; this request takes a few short "
                    "fields. Nothing was done.",
                    f"JSON 请求体超过 {MAX_JSON_BYTES // 1024} KiB；此请求只需要几个简短字段。本次没有执行任何操作。")
