"""Mend of round 41: rows stored before round 40 read back to their kinds (app/review_text.py ``_LEGACY_FINDINGS``).

An import statement is a ``code`` place (``line 1: from torch import ops``): its subject holds spaces, which the
dotted-name pattern refused, so such a place, and with it the whole list it sits in, stayed English on zh pages.
The old rows here are LITERAL texts as stored before round 40 and before the mend of round 39 (copied from the
review's probes, made on those checkouts), so a reworded FINDING_EN cannot change what an old row must read."""

from __future__ import annotations

import pytest

from app.review_text import as_reason, localized
from tests.grading.helpers import english_in_zh
from tests.web.test_review_findings_round40 import _indirect

_LEAD = ("attention.py reaches functions through computed or indirect names, which the fused-attention check "
         "cannot follow: ")


def _in(app, lang: str, reason: object) -> str:
    with app.test_request_context(f"/?lang={lang}"):
        return localized(reason)


def _names_alone(names: str) -> dict:
    """A row as stored before the mend of round 39: the reason's ``names`` alone, no findings."""
    return {"code": "attention.indirect_names", "params": {"names": names}, "text": _LEAD + names}


def test_an_old_list_with_a_from_import_place_reads_back_as_a_fresh_grade_of_it_does(app):
    found = _indirect("from torch import ops\nimport torch\nx = 'o'\nprint(getattr(torch, x + 'ps'))\n")
    assert {"line": "1", "kind": "code", "subject": "from torch import ops"} in found["findings"], found
    old = _names_alone(found["params"]["names"])
    assert as_reason(old).get("findings") == found["findings"]
    assert as_reason(found["text"]).get("findings") == found["findings"]      # a plain string of before round 39
    zh = _in(app, "zh", old)
    assert zh == _in(app, "zh", found) and "第 1 行：`from torch import ops`" in zh, zh
    assert not english_in_zh(zh), zh


@pytest.mark.parametrize("statement", [
    "from torch import ops",
    "from torch._C import _nn as nn_c",
    "from . import helpers",
    "from ..pkg.mod import a, b as c",
    "from sys import *",
    "import importlib",
    "import torch.ops as O, sys",
])
def test_an_import_statement_place_reads_back_as_code(statement):
    old = _names_alone(f"line 4: {statement}; line 6: getattr with a computed name")
    assert as_reason(old)["findings"] == [{"line": "4", "kind": "code", "subject": statement},
                                          {"line": "6", "kind": "computed_name", "subject": "getattr"}]


@pytest.mark.parametrize("phrase", [
    "import the module by hand",          # English words after the keyword
    "from here on nothing is followed",
    "from torch import ops and then some",
    "imported torch",
])
def test_an_english_phrase_starting_like_an_import_is_never_shown_as_code(app, phrase):
    names = f"line 4: {phrase}"
    old = _names_alone(names)
    assert "findings" not in as_reason(old)
    assert names in _in(app, "zh", old)


# Literal rows as the review stored them before round 40 (a place then without a kind as English alone) and before
# the mend of round 39 (a plain string), with the findings today's review gives for the same source.
_STORED = [
    ({"code": "attention.indirect_names", "params": {"names": "line 2: np._core (a module's private name)"},
      "text": _LEAD + "line 2: np._core (a module's private name)",
      "findings": [{"line": "", "kind": "text", "subject": "line 2: np._core (a module's private name)"}]},
     [{"line": "2", "kind": "module_private", "subject": "np._core"}],
     "第 2 行：`np._core`"),
    ({"code": "attention.indirect_names", "params": {"names": "line 1: a function outside a class taking self"},
      "text": _LEAD + "line 1: a function outside a class taking self",
      "findings": [{"line": "", "kind": "text", "subject": "line 1: a function outside a class taking self"}]},
     [{"line": "1", "kind": "self_outside_class", "subject": ""}],
     "第 1 行："),
    ("attention.py reaches functions through computed or indirect names, which the fused-attention check cannot "
     "follow: line 2: imports importlib; line 3: torch.ops; line 4: torch._C; line 6: getattr with a computed name; "
     "line 8: a class attribute named ops",
     [{"line": "2", "kind": "imports", "subject": "importlib"}, {"line": "3", "kind": "code", "subject": "torch.ops"},
      {"line": "4", "kind": "code", "subject": "torch._C"},
      {"line": "6", "kind": "computed_name", "subject": "getattr"},
      {"line": "8", "kind": "class_attribute", "subject": "ops"}],
     "第 8 行："),
    ({"code": "attention.indirect_names", "params": {"names": "line 1: from torch import ops"},
      "text": _LEAD + "line 1: from torch import ops"},
     [{"line": "1", "kind": "code", "subject": "from torch import ops"}],
     "第 1 行：`from torch import ops`"),
]


@pytest.mark.parametrize(("stored", "findings", "zh_part"), _STORED, ids=["pre40_private", "pre40_self_outside",
                                                                          "pre39_string", "pre39m_from_import"])
def test_a_literal_row_stored_before_round_40_reads_back_and_shows_in_zh(app, stored, findings, zh_part):
    assert as_reason(stored)["findings"] == findings
    zh, en = _in(app, "zh", stored), _in(app, "en", stored)
    assert zh_part in zh and not english_in_zh(zh), zh
    assert en == (stored if isinstance(stored, str) else stored["text"])
