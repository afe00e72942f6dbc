"""The grader's review reasons (``result["review"]``: why an attempt needs a person to look) as data.

Each reason is stored as ``{"code": <stable id>, "params": {name: str}, "text": <English>}``: the code and
its params are what a reader's language is built from (the web's catalogue, app/review_text.py), so a
rewording of the English text changes no translation; ``text`` is the run log's REVIEW line and what a
reader sees for a code nothing translates. A plug-in suite may declare its own codes with their texts
(``Suite.review_texts``: code -> ``{"en", "zh"}`` templates with ``{name}`` fields); a reason of such a
code is stored with its ``zh`` text too, rendered here, so the web needs nothing of the suite.

Results stored before round 39 hold plain English strings: every reader takes both shapes
(:func:`reason_text`, :func:`reason_code`). Pure functions: no torch, no Flask.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from grading.i18n import Msg


class Reason(TypedDict):
    code: str
    params: dict[str, str]
    text: str
    zh: NotRequired[str]      # only for a code its suite declared with texts (Suite.review_texts)
    # The places a reason lists, each {"line", "kind", "subject"} (the attention suite's indirect names): a reader
    # builds its language from ``kind``, shows ``subject`` (code) as it is.
    findings: NotRequired[list[dict[str, str]]]


# The code of a reason a suite hook gave as bare text: no code, so every reader shows its text.
PLAIN = "text"

# The engine's own codes (grading/runner.py); the attention suite's are grader_tests/attention/static.py's.
AUDIT_FAILED = "engine.audit_failed"
REVIEW_STOPPED = "engine.review_stopped"
REVIEW_FAILED = "engine.review_failed"
OUTCOME_REVIEW_FAILED = "engine.outcome_review_failed"
BUDGET_SPENT = "engine.budget_spent"
# Every engine code: with each suite's own (the attention suite's static.REVIEW_CODES) the codes the web translates
# (app/review_text.py; a test holds the two equal and scans grading/ and grader_tests/ for a reason( of another).
ENGINE_CODES = frozenset({AUDIT_FAILED, REVIEW_STOPPED, REVIEW_FAILED, OUTCOME_REVIEW_FAILED, BUDGET_SPENT})


def reason(code: str, text: str, **params: object) -> Reason:
    """One review reason: its stable code, the parts its text quotes (as strings) and the English text."""
    return {"code": code, "params": {k: str(v) for k, v in params.items()}, "text": text}


def is_reason(value: object) -> bool:
    """Whether ``value`` is a reason of the structured shape (rather than a row's plain string)."""
    return (isinstance(value, dict) and isinstance(value.get("code"), str) and isinstance(value.get("text"), str)
            and isinstance(value.get("params", {}), dict))


def reason_text(value: object) -> str:
    """The English text of a stored reason, of either shape (the log's REVIEW line, exports)."""
    return value["text"] if is_reason(value) else str(value)  # type: ignore[index]


def reason_code(value: object) -> str | None:
    """The code of a stored reason; None for a plain string (stored before round 39)."""
    return value["code"] if is_reason(value) else None  # type: ignore[index]


def findings(value: object) -> list[dict[str, str]] | None:
    """A stored reason's ``findings`` when each is {"line", "kind", "subject"} of strings, else None."""
    found = value.get("findings") if isinstance(value, dict) else None
    if not isinstance(found, list) or not all(
            isinstance(f, dict) and all(isinstance(f.get(k), str) for k in ("line", "kind", "subject")) for f in found):
        return None
    return [{k: f[k] for k in ("line", "kind", "subject")} for f in found]


def class_and_base(subject: str) -> dict[str, str]:
    """A finding's subject ``Cls(base)`` (a class and what it derives from, both code: the attention suite's
    ``foreign_base``) as ``{"name", "base"}``, each shown as code on its own; a subject of no such shape whole."""
    name, paren, base = subject.partition("(")
    return {"name": name, "base": base[:-1]} if paren and base.endswith(")") else {"name": subject, "base": ""}


def _render(template: str, params: Mapping[str, str]) -> str | None:
    try:
        return template.format_map(dict(params))
    except (KeyError, IndexError, ValueError, AttributeError):
        return None    # a template naming a param the reason lacks: no text rather than a wrong one


def stored(value: Any, texts: Mapping[str, Msg] | None = None) -> Reason:
    """A suite hook's reason as stored: a plain string becomes a ``PLAIN`` reason; a reason of a code the suite
    declared (``texts``) gets its English text (when it gave none) and its zh text from the declaration."""
    if not isinstance(value, dict) or not isinstance(value.get("code"), str):
        return reason(PLAIN, str(value))
    params = value.get("params") if isinstance(value.get("params"), dict) else {}
    out = reason(value["code"], str(value.get("text") or ""), **{str(k): v for k, v in params.items()})
    if (places := findings(value)) is not None:
        out["findings"] = places
    declared = (texts or {}).get(out["code"])
    if declared:
        if not out["text"]:
            out["text"] = _render(declared.get("en") or "", out["params"]) or out["code"]
        zh = _render(declared.get("zh") or "", out["params"])
        if zh:
            out["zh"] = zh
    elif not out["text"]:
        out["text"] = out["code"]    # a code with no text nor declaration: its code is all there is to show
    return out


__all__ = ["Reason", "PLAIN", "AUDIT_FAILED", "REVIEW_STOPPED", "REVIEW_FAILED", "OUTCOME_REVIEW_FAILED",
           "BUDGET_SPENT", "ENGINE_CODES", "class_and_base", "reason", "is_reason", "findings", "reason_text", "reason_code", "stored"]
