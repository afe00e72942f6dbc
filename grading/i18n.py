"""Student-facing text of the engine: one convention, a ``{"en": ..., "zh": ...}`` dict.

Every message the engine or a suite produces for a student (test feedback, load errors, their
wrappers) is such a dict, built with :func:`msg` and composed with :func:`cat`. Pages pick the
user's language with the ``|tr`` Jinja filter; the API and the CLI call :func:`localized`.
Plain strings are still accepted everywhere (old stored results, numbers, code), and mean the
same text in both languages. Pure functions: no torch, no Flask.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any, TypedDict

LANGS = ("en", "zh")


class Msg(TypedDict):
    en: str
    zh: str


Text = Msg | str


# Separators for cat(): Chinese text takes full-width punctuation, so a plain "; " or ": " (the same
# in both languages) would leave ASCII punctuation between Chinese clauses.
SEMI: Msg = {"en": "; ", "zh": "；"}
COLON: Msg = {"en": ": ", "zh": "："}


def msg(en: str, zh: str) -> Msg:
    """A message in both languages."""
    return {"en": en, "zh": zh}


def capped(text: str, width: int = 80) -> str:
    """A name or list quoted from a student's file, cut to ``width`` characters with …: a note never grows with the
    file (round 35 R3: a 3000-character parameter name made a 6000-character note)."""
    return text if len(text) <= width else text[:width - 1] + "…"


def listed(names: list[str], zh: bool = False, width: int = 80) -> str:
    """Names from a student's file as a list in running text: ``a, b, c`` (en) or ``a、b、c`` (zh), capped."""
    return capped(("、" if zh else ", ").join(names), width)


def is_msg(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(value.get(k), str) for k in LANGS)


def as_msg(value: Text | None) -> Msg:
    """A plain string means the same text in both languages."""
    if is_msg(value):
        return {"en": value["en"], "zh": value["zh"]}  # type: ignore[index]
    s = "" if value is None else str(value)
    return {"en": s, "zh": s}


# A clause that already ends with one of these (a quoted PyTorch message ending "instead.") takes no
# second punctuation from a separator beginning with one of _SEP_MARKS: "instead.；第 45 行" doubled it.
_ENDS_CLAUSE = ".;:!?。；：！？"
_SEP_MARKS = ";:,；：，"


def _join(sep: str, texts: list[str]) -> str:
    """``sep.join(texts)``, but a separator's leading punctuation is dropped after a text ending with
    :data:`_ENDS_CLAUSE`; a space stays after ASCII punctuation ("instead. 第 45 行")."""
    bare = sep.lstrip(_SEP_MARKS)
    if bare == sep:
        return sep.join(texts)
    out = texts[0] if texts else ""
    for text in texts[1:]:
        end = out.rstrip()[-1:]
        if end and end in _ENDS_CLAUSE:
            if end in ".!?" and re.match(r"[a-z]+ ", text):   # a new sentence: "line 45" -> "Line 45"
                text = text[0].upper() + text[1:]
            out = out.rstrip() + (bare or (" " if end.isascii() else "")) + text
        else:
            out += sep + text
    return out


def cat(*parts: Text | None, sep: Text = "") -> Msg:
    """Concatenate messages (and plain strings) language by language; empty parts are skipped.

    A plain-string ``sep`` is the same in both languages: join clauses with :data:`SEMI` or
    :data:`COLON`, whose Chinese side is full-width. A part that already ends a clause ("." "；" ...)
    is not followed by the separator's own punctuation."""
    sep_m = as_msg(sep)
    kept = [as_msg(p) for p in parts if p is not None and as_msg(p)["en"] + as_msg(p)["zh"] != ""]
    return {lang: _join(sep_m[lang], [p[lang] for p in kept]) for lang in LANGS}  # type: ignore[return-value]


# A check the engine did not run (the budget was used up, the code hung or crashed too often, it did not
# load again) says so first, in English "not run: ...", in Chinese "未运行：...": its outcome (``timeout``
# or ``failed``) alone does not tell a test that met its own limit from one that never started.
NOT_RUN: Msg = {"en": "not run: ", "zh": "未运行："}


def not_run(value: Any) -> bool:
    """Whether a test's feedback says the check was not run (:data:`NOT_RUN`)."""
    return as_msg(value)["en"].startswith(NOT_RUN["en"])


# Words every message of a call the sandbox stopped as idle carries (grading.proxy.idle_text builds them
# with these): a page tells such a stop from a test that met its time limit by them, as NOT_RUN does.
IDLE_SEEN: Msg = {"en": "while the grader waited for its results", "zh": "评分器等待结果"}


def stopped_idle(value: Any) -> bool:
    """Whether a test's feedback says the sandbox stopped the call as idle (:data:`IDLE_SEEN`)."""
    return IDLE_SEEN["en"] in as_msg(decode(value) if isinstance(value, str) else value)["en"]


# How a test whose outcome is ``timeout`` ended (``stopped`` in the API's and the CLI's results; the pages'
# badges and headings): the outcome alone is shared by three different stories.
STOP_KINDS = ("time_limit", "idle", "not_run")


def stop_of(test: Mapping[str, Any]) -> str | None:
    """``"not_run"`` (the engine skipped it: budget used up, the code hung too often), ``"idle"`` (the sandbox
    stopped the call because the code sat idle: no limit was met) or ``"time_limit"`` (it met its wall or CPU
    limit), for a ``timeout`` test; None for any other outcome. Read from the engine's feedback, or from the
    flags a student's view keeps of a hidden test (rubric.scoring.student_view), in this order as the
    result page counts them."""
    if test.get("outcome") != "timeout":
        return None
    feedback = test.get("feedback")
    if test.get("not_run") or not_run(decode(feedback) if isinstance(feedback, str) else feedback):
        return "not_run"
    if test.get("idle") or stopped_idle(feedback):
        return "idle"
    return "time_limit"


def pick(value: Any, lang: str) -> str:
    """The text of ``value`` in ``lang`` (falling back to the other language); strings pass through.

    A JSON-encoded message (how a ``TestResult.feedback`` Text column stores one) is decoded."""
    if isinstance(value, str) and value.startswith("{"):
        value = decode(value)
    if is_msg(value):
        return value.get(lang) or value.get("en") or value.get("zh") or ""
    return "" if value is None else str(value)


def encode(value: Text | None) -> str:
    """A message as one string for a Text column (JSON for a dict; a plain string stays as is)."""
    if is_msg(value):
        return json.dumps({"en": value["en"], "zh": value["zh"]}, ensure_ascii=False)  # type: ignore[index]
    return "" if value is None else str(value)


def decode(stored: str | None) -> Text:
    """Inverse of :func:`encode`; rows written before messages were bilingual are plain strings."""
    if stored and stored.startswith("{"):
        try:
            value = json.loads(stored)
        except ValueError:
            return stored
        if is_msg(value):
            return value
    return stored or ""


def localized(result: dict | None, lang: str) -> dict | None:
    """A copy of a grade result with the engine's messages in one language (API, CLI).

    Test feedback, the result message and the load error become strings; a ``timeout`` test says how it
    ended in ``stopped`` (:func:`stop_of`); the audit checker's own dicts are
    localised too (labels, item feedback, flags)."""
    if result is None:
        return None
    lang = lang if lang in LANGS else "en"
    out = copy.deepcopy(result)
    if out.get("message") is not None:
        out["message"] = pick(out["message"], lang)
    if is_msg(out.get("load_error")):       # the load error and its hint, as the result page shows them
        out["load_error"] = pick(out["load_error"], lang)
    for test in out.get("tests") or []:
        if (stop := stop_of(test)) is not None:     # read before the feedback loses its English
            test["stopped"] = stop
        if test.get("feedback") is not None:
            test["feedback"] = pick(test["feedback"], lang)
    audit = out.get("audit")
    if isinstance(audit, dict):
        for item in audit.get("items") or []:
            for key in ("label", "feedback"):
                if is_msg(item.get(key)):
                    item[key] = pick(item[key], lang)
        for flag in audit.get("flags") or []:
            if is_msg(flag.get("message")):
                flag["message"] = pick(flag["message"], lang)
    out["lang"] = lang
    return out


__all__ = ["LANGS", "Msg", "Text", "SEMI", "COLON", "NOT_RUN", "not_run", "IDLE_SEEN", "stopped_idle",
           "STOP_KINDS", "stop_of",
           "msg", "is_msg", "as_msg", "cat", "pick", "encode", "decode", "localized"]
