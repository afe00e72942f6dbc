"""The grader's review reasons (result["review"]: why an attempt needs a person to look) in the reader's
language. Since round 39 the engine stores each reason as ``{"code", "params", "text"}`` (grading/review.py):
the code and its params are translated here through the catalogue, so a rewording of the English text (the run
log's REVIEW line) changes nothing a zh reader sees. A code this table does not know (another suite's) is shown
in the zh its suite declared (``Suite.review_texts``, stored with the reason) on zh pages, else as its text.

Rows graded before round 39 hold the English text alone: ``_LEGACY`` reads each of those texts back to its code
and params (the parts quoted from the submission or the grader: names, calls, an exception, limits), so old
rows are shown as new ones; a string no pattern knows is shown as stored. In the same way, the places an
indirect-names reason lists, stored as English alone before round 40, are read back to their kinds
(``_LEGACY_FINDINGS``), so a zh page shows them in zh without a regrade."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from flask_babel import get_locale
from flask_babel import gettext as _

from grading.review import PLAIN, Reason, class_and_base, findings, is_reason, reason

# code -> the reason in the page's language, from its params. Every builder's code is here (the test of round 39
# builds each reason with its builder and checks its code has a zh and an en text).
_BY_CODE: dict[str, Callable[[dict[str, str]], str]] = {
    "attention.unparsed":
        lambda p: _("attention.py does not parse (a SyntaxError: see the result's message): nothing to review"),
    "attention.unreviewable":
        lambda p: _("attention.py is past what the source review reads (%(nodes)s syntax nodes, %(depth)s levels "
                    "of nesting): the fused-attention checks withheld their points; read it yourself", **p),
    "attention.too_many_tokens":
        lambda p: _("attention.py has more than %(tokens)s tokens, past which the grader does not parse a source: "
                    "the fused-attention checks withheld their points; read it yourself", **p),
    "attention.indirect_names":
        lambda p: _("attention.py reaches functions through computed or indirect names, which the fused-attention "
                    "check cannot follow: %(names)s", **p),
    "attention.fused_unseen":
        lambda p: _("PyTorch's ready-made attention ran (%(calls)s) though the source review found no use of it: "
                    "the review cannot read how it is reached, so the hand-written, reuse and structure checks "
                    "passed on code it did not follow; read the source", **p),
    "engine.review_stopped":
        lambda p: _("the source review was stopped after %(seconds)s s of CPU: the submission's source checks "
                    "withheld their points; read it yourself", **p),
    "engine.review_failed": lambda p: _("the source review failed: %(error)s", **p),
    "engine.outcome_review_failed": lambda p: _("the outcome review failed: %(error)s", **p),
    "engine.audit_failed":
        lambda p: _("the audit checker failed on this audit (traceback in the log): grade the audit by hand"),
    "engine.budget_spent":
        lambda p: _("the grading's budget (%(wall)s s, %(cpu)s s CPU) ran out; the remaining tests are timeout",
                    **p),
}

# A finding's kind (grader_tests/attention/static.py FINDING_EN) -> the finding in the page's language; its subject
# is code, in backticks in zh. A kind not here (``text``: a finding stored as English alone) shows its subject.
_FINDING: dict[str, Callable[[dict[str, str]], str]] = {
    "code": lambda f: _("line %(line)s: %(subject)s", **f),
    "computed_name": lambda f: _("line %(line)s: %(subject)s with a computed name", **f),
    "used_as_value": lambda f: _("line %(line)s: %(subject)s used as a value", **f),
    "imports": lambda f: _("line %(line)s: imports %(subject)s", **f),
    "sets": lambda f: _("line %(line)s: sets %(subject)s", **f),
    "defines": lambda f: _("line %(line)s: defines %(subject)s", **f),
    "kept_attribute": lambda f: _("line %(line)s: %(subject)s kept as an attribute", **f),
    # (stored as kind ``text``, English alone, until round 40)
    "argparse_action": lambda f: _("line %(line)s: an argparse action kept or built (%(subject)s)", **f),
    "super_elsewhere": lambda f: _("line %(line)s: %(subject)s bound to something other than self", **f),
    "another_self_or_value":
        lambda f: _("line %(line)s: %(subject)s called with another self or used as a value", **f),
    "widens_isinstance": lambda f: _("line %(line)s: %(subject)s(...) makes isinstance true for other classes", **f),
    "module_private": lambda f: _("line %(line)s: %(subject)s (a module's private name)", **f),
    "foreign_private": lambda f: _("line %(line)s: %(subject)s (a private name of something not your own)", **f),
    "match_reads": lambda f: _("line %(line)s: a match pattern reading %(subject)s", **f),
    "match_by_position": lambda f: _("line %(line)s: a match pattern reading attributes by position", **f),
    "computed_base": lambda f: _("line %(line)s: class %(subject)s with a base computed at run time", **f),
    "foreign_base": lambda f: _foreign_base(f),
    "class_attribute": lambda f: _("line %(line)s: a class attribute named %(subject)s", **f),
    "string": lambda f: _("line %(line)s: the string %(subject)s", **f),
    "self_outside_class": lambda f: _("line %(line)s: a function outside a class taking self", **f),
    "called_with_another_self": lambda f: _("line %(line)s: %(subject)s(...) called with another self", **f),
    "used_without_self": lambda f: _("line %(line)s: %(subject)s used without self", **f),
    "taken_off_object": lambda f: _("line %(line)s: %(subject)s reached off its object, and it reads PyTorch's "
                                    "attention names through self", **f),
}


def _foreign_base(f: dict[str, str]) -> str:
    # a subject not shaped ``Cls(base)`` (a hand-edited row) is shown as stored, never "derives from ``"
    parts = class_and_base(f["subject"])
    if not parts["base"]:
        return _FINDING["code"](f)
    return _("line %(line)s: class %(name)s derives from %(base)s, whose methods the review cannot follow",
             line=f["line"], **parts)


def _zh() -> bool:
    return str(get_locale() or "").startswith("zh")


def _findings_text(places: list[dict[str, str]]) -> str:
    shown = [_FINDING[f["kind"]](f) if f["kind"] in _FINDING and f["line"] else f["subject"] for f in places]
    return ("；" if _zh() else "; ").join(shown)


def _quoted(text: str) -> str:
    """``text`` (an exception's own words, whatever their language) as a code span in a zh sentence: marked as
    quoted, never read as part of the prose. A longer fence when the text holds backticks itself."""
    if not text:
        return ""           # nothing to quote: an empty code span (``) would be read as two backticks
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# One run-time call in fused_unseen's ``calls`` as the counters in the jail word it: ``name (4x)``.
_CALL = re.compile(r"(?P<name>[^\s,()]+) \((?P<n>\d+)x\)")


def _calls_zh(calls: str) -> str:
    """fused_unseen's calls (``F.scaled_dot_product_attention (2x), ...``) in zh: each name as code, its count
    in zh; a list of another shape (a hand-edited row) quoted whole."""
    parts = calls.split(", ")
    found = [_CALL.fullmatch(p) for p in parts]
    if not calls or not all(found):
        return _quoted(calls)
    # each name quoted by _quoted: the names come from the student's process (up to 200 characters, any of them
    # a backtick), so a plain `name` span could be broken open by the name itself
    return "、".join(f"{_quoted(m['name'])}（{m['n']} 次）" for m in found if m)


# The English texts of rows stored before round 39, as their builders wrote them then: read back to code and
# params. Frozen: a builder reworded now changes new rows' text only, never these.
_LEGACY: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"attention\.py does not parse \(a SyntaxError: see the result's message\): nothing to review"),
     "attention.unparsed"),
    (re.compile(r"attention\.py is past what the source review reads \((?P<nodes>[\d,]+) syntax nodes, "
                r"(?P<depth>\d+) levels of nesting\): the fused-attention checks withheld their points; "
                r"read it yourself"), "attention.unreviewable"),
    (re.compile(r"attention\.py reaches functions through computed or indirect names, which the fused-attention "
                r"check cannot follow: (?P<names>.*)", re.S), "attention.indirect_names"),
    (re.compile(r"PyTorch's ready-made attention ran \((?P<calls>.*)\) though the source review found no use of "
                r"it: the review cannot read how it is reached, so the hand-written, reuse and structure checks "
                r"passed on code it did not follow; read the source", re.S), "attention.fused_unseen"),
    (re.compile(r"the source review was stopped after (?P<seconds>[\d.e+-]+) s of CPU: the submission's source "
                r"checks withheld their points; read it yourself"), "engine.review_stopped"),
    (re.compile(r"the source review failed: (?P<error>.*)", re.S), "engine.review_failed"),
    (re.compile(r"the outcome review failed: (?P<error>.*)", re.S), "engine.outcome_review_failed"),
    (re.compile(r"the audit checker failed on this audit \(traceback in the log\): grade the audit by hand"),
     "engine.audit_failed"),
    (re.compile(r"the grading's budget \((?P<wall>[\d.e+-]+) s, (?P<cpu>[\d.e+-]+) s CPU\) ran out; the "
                r"remaining tests are timeout"), "engine.budget_spent"),
)


# The params each code's text takes (the legacy patterns' groups: the parts a text quotes).
_NEEDS: dict[str, frozenset[str]] = {code: frozenset(pattern.groupindex) for pattern, code in _LEGACY}

# An import statement as a ``code`` place quotes it (``from torch import ops``): its keywords are the only words
# with spaces between them that pass as code, each other part a (dotted) name, so no English phrase does.
_NAMES = r"[\w*]+(?: as \w+)?(?:, \w+(?: as \w+)?)*"
_IMPORT_STATEMENT = r"from \.*[\w.]* import " + _NAMES + r"|import [\w.]+(?: as \w+)?(?:, [\w.]+(?: as \w+)?)*"

# The English of each finding form as rows stored before round 40 hold it (kind ``text``, the whole text as its
# subject; before the mend of round 39 the reason's ``names`` alone): read back to its kind and subject, so a zh
# page shows it in zh without a regrade. Frozen, as _LEGACY is: FINDING_EN reworded changes new rows only. Order
# matters where one form's text ends another's ("... called with another self or used as a value" before
# "... used as a value"; "reading attributes by position" before "reading X"); ``code`` last, and only for a
# subject shaped as code (a dotted name, perhaps called, or an import statement), so no English phrase is ever
# shown as code.
_LEGACY_FINDINGS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(r"line (?P<line>\d+): " + body, re.S), kind) for body, kind in (
        (r"an argparse action kept or built \((?P<subject>.+)\)", "argparse_action"),
        (r"(?P<subject>.+) bound to something other than self", "super_elsewhere"),
        (r"(?P<subject>.+) called with another self or used as a value", "another_self_or_value"),
        (r"(?P<subject>.+)\(\.\.\.\) makes isinstance true for other classes", "widens_isinstance"),
        (r"(?P<subject>.+) \(a module's private name\)", "module_private"),
        (r"(?P<subject>.+) \(a private name of something not your own\)", "foreign_private"),
        (r"a match pattern reading attributes by position(?P<subject>)", "match_by_position"),
        (r"a match pattern reading (?P<subject>.+)", "match_reads"),
        (r"class (?P<subject>.+) with a base computed at run time", "computed_base"),
        (r"class (?P<name>\S+) derives from (?P<base>.+), whose methods the review cannot follow", "foreign_base"),
        (r"a class attribute named (?P<subject>.+)", "class_attribute"),
        (r"the string (?P<subject>'.*'|\".*\")", "string"),
        (r"a function outside a class taking self(?P<subject>)", "self_outside_class"),
        (r"(?P<subject>.+)\(\.\.\.\) called with another self", "called_with_another_self"),
        (r"(?P<subject>.+) used without self", "used_without_self"),
        (r"(?P<subject>.+) reached off its object, and it reads PyTorch's attention names through self",
         "taken_off_object"),
        (r"(?P<subject>.+) with a computed name", "computed_name"),
        (r"(?P<subject>.+) kept as an attribute", "kept_attribute"),
        (r"(?P<subject>.+) used as a value", "used_as_value"),
        (r"imports (?P<subject>.+)", "imports"),
        (r"sets (?P<subject>.+)", "sets"),
        (r"defines (?P<subject>.+)", "defines"),
        (r"(?P<subject>[\w.]+(?:\(.*\))?|" + _IMPORT_STATEMENT + ")", "code"),
    ))


def _kinded(place: dict[str, str]) -> dict[str, str] | None:
    """A finding stored as English alone (kind ``text``) read back to ``{line, kind, subject}``; None for a text
    no form knows (shown as stored)."""
    for pattern, kind in _LEGACY_FINDINGS:
        if found := pattern.fullmatch(place["subject"]):
            parts = found.groupdict()
            subject = f"{parts['name']}({parts['base']})" if kind == "foreign_base" else parts["subject"]
            return {"line": parts["line"], "kind": kind, "subject": subject}
    return None


def _read_back(places: list[dict[str, str]]) -> list[dict[str, str]]:
    """Stored findings with each kind ``text`` one read back to its kind where its English is known."""
    return [(_kinded(f) or f) if f["kind"] == "text" else f for f in places]


def _listed(names: str) -> list[dict[str, str]] | None:
    """The findings of an indirect-names reason stored with its ``names`` alone (before the mend of round 39),
    or None unless every place of the list reads back (a subject holding "; " splits into places no form
    knows, so a list is never cut wrong: it is shown as stored)."""
    places = [_kinded({"line": "", "kind": "text", "subject": part}) for part in names.split("; ")]
    return [p for p in places if p] if names and all(places) else None


def as_reason(value: Any) -> Reason:
    """A stored reason of either shape as ``{"code", "params", "text"}`` (and its stored ``zh``, if any): a plain
    string of an old row is read back to its code and params, or is a ``PLAIN`` reason of that text. Its findings
    (an old row's English ones, or its ``names`` alone, read back where every form is known) each with a kind."""
    places = None
    if is_reason(value):
        out = reason(value["code"], value["text"], **value.get("params") or {})
        if isinstance(value.get("zh"), str):
            out["zh"] = value["zh"]
        places = findings(value)
    else:
        text = str(value)
        out = next((reason(code, text, **found.groupdict()) for pattern, code in _LEGACY
                    if (found := pattern.fullmatch(text))), reason(PLAIN, text))
    if places is not None:
        out["findings"] = _read_back(places)
    elif out["code"] == "attention.indirect_names" and (listed := _listed(out["params"].get("names", ""))):
        out["findings"] = listed
    return out


def localized(value: Any) -> str:
    """One stored review reason (either shape) in the current request's language: its code through the
    catalogue; else the zh its suite declared, on a zh page; else its stored text."""
    found = as_reason(value)
    if "findings" in found and "names" in found["params"]:
        # each place from its kind, so no English phrase sits inside a zh sentence (an old row's English places
        # read back to their kinds by as_reason; a list with a place no form knows is shown as stored)
        found["params"]["names"] = _findings_text(found["findings"])
    if _zh():
        # the parts a code's params quote that are no zh prose: marked as code or as quoted, on zh pages only
        # (the en text keeps the log's words)
        if found["code"] == "attention.fused_unseen" and "calls" in found["params"]:
            found["params"]["calls"] = _calls_zh(found["params"]["calls"])
        if found["code"] in ("engine.review_failed", "engine.outcome_review_failed") and "error" in found["params"]:
            found["params"]["error"] = _quoted(found["params"]["error"])
    translate = _BY_CODE.get(found["code"])
    # params that do not fill the text (a hand-edited row) give the stored text, never one with a hole: gettext
    # leaves "%(names)s" in place when given no params at all
    if translate is not None and _NEEDS.get(found["code"], frozenset()) <= found["params"].keys():
        try:
            return translate(found["params"])
        except (KeyError, TypeError, ValueError):
            pass
    if "zh" in found and _zh():
        return found["zh"]
    return found["text"]


def for_api(value: Any) -> dict[str, Any]:
    """One reason as the API answers it: code, params and English text (old rows read back), and ``message``,
    the reason in the caller's language."""
    found = as_reason(value)
    out = {"code": found["code"], "params": found["params"], "text": found["text"], "message": localized(value)}
    if "findings" in found:
        out["findings"] = found["findings"]
    return out
