"""The grader's review reasons (result["review"]: why an attempt needs a person to look) in the reader's
language. The engine and the suite store each reason in English, the stable text of the run's log (its
REVIEW lines) and of every run graded before; the instructor pages show it through the catalogue.

Each pattern below is one reason as its builder writes it (grading/runner.py, the attention suite's
grader_tests/attention/static.py); the parts quoted from the submission or the grader (names, calls,
an exception, limits) are kept as they are. A reason matching no pattern (another suite's) is shown as
stored. tests/web/test_review_reasons_round37.py builds every reason with its real builder and checks
that it is translated here, so a reworded reason fails there instead of going back to English."""

from __future__ import annotations

import re
from collections.abc import Callable

from flask_babel import gettext as _

_PATTERNS: tuple[tuple[re.Pattern[str], Callable[[dict[str, str]], str]], ...] = (
    (re.compile(r"attention\.py does not parse \(a SyntaxError: see the result's message\): nothing to review"),
     lambda g: _("attention.py does not parse (a SyntaxError: see the result's message): nothing to review")),
    (re.compile(r"attention\.py is past what the source review reads \((?P<nodes>[\d,]+) syntax nodes, "
                r"(?P<depth>\d+) levels of nesting\): the fused-attention checks withheld their points; "
                r"read it yourself"),
     lambda g: _("attention.py is past what the source review reads (%(nodes)s syntax nodes, %(depth)s levels "
                 "of nesting): the fused-attention checks withheld their points; read it yourself", **g)),
    (re.compile(r"attention\.py reaches functions through computed or indirect names, which the fused-attention "
                r"check cannot follow: (?P<names>.*)", re.S),
     lambda g: _("attention.py reaches functions through computed or indirect names, which the fused-attention "
                 "check cannot follow: %(names)s", **g)),
    (re.compile(r"PyTorch's ready-made attention ran \((?P<calls>.*)\) though the source review found no use of "
                r"it: the review cannot read how it is reached, so the hand-written, reuse and structure checks "
                r"passed on code it did not follow; read the source", re.S),
     lambda g: _("PyTorch's ready-made attention ran (%(calls)s) though the source review found no use of it: "
                 "the review cannot read how it is reached, so the hand-written, reuse and structure checks "
                 "passed on code it did not follow; read the source", **g)),
    (re.compile(r"the source review was stopped after (?P<seconds>[\d.e+-]+) s of CPU: the submission's source "
                r"checks withheld their points; read it yourself"),
     lambda g: _("the source review was stopped after %(seconds)s s of CPU: the submission's source checks "
                 "withheld their points; read it yourself", **g)),
    (re.compile(r"the source review failed: (?P<error>.*)", re.S),
     lambda g: _("the source review failed: %(error)s", **g)),
    (re.compile(r"the outcome review failed: (?P<error>.*)", re.S),
     lambda g: _("the outcome review failed: %(error)s", **g)),
    (re.compile(r"the audit checker failed on this audit \(traceback in the log\): grade the audit by hand"),
     lambda g: _("the audit checker failed on this audit (traceback in the log): grade the audit by hand")),
    (re.compile(r"the grading's budget \((?P<wall>[\d.e+-]+) s, (?P<cpu>[\d.e+-]+) s CPU\) ran out; the "
                r"remaining tests are timeout"),
     lambda g: _("the grading's budget (%(wall)s s, %(cpu)s s CPU) ran out; the remaining tests are timeout",
                 **g)),
)


def localized(reason: object) -> str:
    """One stored review reason in the current request's language (as stored when no pattern knows it)."""
    text = str(reason)
    for pattern, translate in _PATTERNS:
        found = pattern.fullmatch(text)
        if found:
            return translate(found.groupdict())
    return text
