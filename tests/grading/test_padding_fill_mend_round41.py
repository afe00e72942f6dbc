"""Round 41 mend (review B): padding fills whose number the numbers do not pin down, and fill numbers the code may
rebind."""

from __future__ import annotations

import re

import pytest

from grader_tests.attention import diagnose
from grading.load_hints import padding_note
from tests.grading.helpers import english_in_zh
from tests.grading.test_feedback_round40c import _size
from tests.grading.test_padding_fill_round41 import (
    CTX,
    PAD8,
    PARAMS16,
    WHERE,
    ZH_WORDS,
    D,
    H,
    _Module,
    _said,
    _source,
)


def test_a_fill_whose_number_does_not_show_is_told_without_a_number():
    # masked_fill(key_padding_mask, -9): fills from about -8.1 to -9.9 give the same numbers within MATCH_TOL
    out, w = _Module(PARAMS16, H, D // H, "filled", -9.0)(CTX, key_padding_mask=PAD8, return_weights=True)
    kind, c, shows = diagnose._padding_fill(diagnose._MhaCase(out, w, PARAMS16, H, D // H, CTX, None, None, PAD8))
    assert (kind, shows) == ("filled", False)
    for weights in (True, False):
        said = _said("filled", -9.0, weights=weights, student=weights)
        assert said is not None
        assert "the padding keys' scores set to a finite number (scores.masked_fill(key_padding_mask, c) with c " \
               "finite)" in said["en"], said["en"]
        assert "设为一个有限数的结果一致" in said["zh"], said["zh"]
        for text in (said["en"], said["zh"]):
            head = text.split("float('-inf')")[0].split("-inf")[0]      # the fix names -inf and finfo.min
            assert re.search(r"\d", head) is None, head
            assert "about" not in head and "约" not in head
        assert english_in_zh(said["zh"], ZH_WORDS) == []


@pytest.mark.parametrize("c", [-6.0, -8.0, 0.0, 10.0])
def test_a_fill_whose_number_shows_is_still_told_its_number(c):
    said = _said("filled", c)
    assert said is not None and f"set to about {round(c)} (scores.masked_fill(key_padding_mask, {round(c)}))" \
        in said["en"]


HEAD = "class MultiHeadAttention(nn.Module):\n    \"\"\"多头注意力。\"\"\"\n"
SIG = "    def __init__(self, d_model, num_heads, head_dim=None):\n"
NEG_W, ATTR_W = WHERE.format("NEG"), WHERE.format("self.neg_inf")


def _in_class(body: str):
    return lambda src: src.replace(HEAD, HEAD + body)


@pytest.mark.parametrize("make, init, top, edit", [
    # a parameter named like the module constant shadows it where it is read
    (WHERE.format("self.neg"), "        self.neg = NEG\n", "NEG = -1e4\n",
     lambda s: s.replace(SIG, SIG.replace("=None)", "=None, NEG=torch.zeros(2, 8))"))),
    (WHERE.format("self.neg"), "        self.neg = NEG\n", "NEG = -1e4\n",
     lambda s: s.replace("    def _split(self, x):\n", "    def set_fill(self, NEG):\n        self.neg = NEG\n\n"
                         "    def _split(self, x):\n")),
    # the class attribute also a property or a method
    (ATTR_W, "", "", _in_class("    neg_inf = -1e9\n\n    @property\n    def neg_inf(self):\n"
                               "        return torch.zeros(2, 8)\n")),
    (ATTR_W, "", "", _in_class("    neg_inf = -1e9\n\n    def neg_inf(self):\n        return torch.zeros(2, 8)\n")),
    # the module constant also bound by an import, a def or a class
    (NEG_W, "", "NEG = -1e4\nfrom torch import zeros as NEG\n", None),
    (NEG_W, "", "NEG = -1e4\nimport numpy as NEG\n", None),
    (NEG_W, "", "NEG = -1e4\n\n\ndef NEG():\n    return 0\n\n\n", None),
    (NEG_W, "", "NEG = -1e4\n\n\nclass NEG:\n    pass\n\n\n", None),
    # the attribute written otherwise than as self.neg_inf = number
    (ATTR_W, "        self.neg_inf = -1e9\n        self.__dict__['neg_inf'] = torch.zeros(2, 8)\n", "", None),
    (ATTR_W, "        self.neg_inf = -1e9\n        object.__setattr__(self, 'neg_inf', torch.zeros(2, 8))\n", "",
     None),
    (ATTR_W, "        self.neg_inf = -1e9\n        other = self\n        other.neg_inf = torch.zeros(2, 8)\n", "", None),
    (ATTR_W, "        self.neg_inf = -1e9\n        type(self).neg_inf = torch.zeros(2, 8)\n", "", None),
    (ATTR_W, "        self.neg_inf = -1e9\n", "", lambda s: s + "\nMultiHeadAttention.neg_inf = torch.zeros(2, 8)\n"),
])
def test_a_fill_name_also_bound_otherwise_is_not_read_as_a_number(make, init, top, edit):
    src, _, add = _source(make, init, top)
    src = edit(src) if edit else src
    assert padding_note(src, add, _size(4, 2, 1), 4) is None


@pytest.mark.parametrize("make, init, top", [
    (ATTR_W, "        self.neg_inf = -1e9\n", ""),
    (NEG_W, "", "NEG = -1e4\n"),
    (WHERE.format("self.neg"), "        self.neg = NEG\n", "NEG = -1e4\n"),
])
def test_a_fill_name_bound_only_to_a_number_is_still_read(make, init, top):
    src, line, add = _source(make, init, top)
    said = padding_note(src, add, _size(4, 2, 1), 4)
    assert said is not None and f"line {line} (in MultiHeadAttention) makes the padding mask pad [B, 1, Nk]" \
        in said["en"]


@pytest.mark.parametrize("c", [25.0, 100.0, 1e4])
def test_a_large_positive_fill_is_told_as_both_forms_that_give_its_numbers(c):
    for weights in (True, False):
        said = _said("filled", c, weights=weights, student=weights)
        assert said is not None
        assert "key_padding_mask * 1e4" in said["en"] and "scores.masked_fill(key_padding_mask, 1e4)" in said["en"]
        assert said == diagnose.FAULTS["pad_sign_or_fill"], said
    assert "`scores.masked_fill(key_padding_mask, 1e4)`" in said["zh"]
    assert english_in_zh(said["zh"], ZH_WORDS) == []


def test_a_positive_number_added_to_the_padding_keys_is_still_told_as_added():
    # key_padding_mask * 1e4 in float32 keeps the padding keys' scores apart: no fill gives those numbers
    out, w = _Module(PARAMS16, H, D // H, "added", 1e4)(CTX, key_padding_mask=PAD8, return_weights=True)
    for ww in (w, None):
        assert diagnose.mha(out, ww, PARAMS16, H, D // H, CTX, None, None, PAD8) == diagnose.FAULTS["pad_sign"]
