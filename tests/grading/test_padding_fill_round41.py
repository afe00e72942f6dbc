"""Round 41 (brief B): padding masks whose fill number the code holds elsewhere, and fills too weak to block.

1. A fill held in ``self.<attr>`` (set to a number in __init__ or as a class attribute) or in a module constant
   (``NEG = -1e4``, ``MASK_VALUE = torch.finfo(torch.float32).min``) is read as a number (load_hints._held_numbers),
   as round 40 reads a literal: the padding mask made with it is told its shape. A name also bound otherwise (from
   an argument, a loop, ``global``, a parameter of forward) is still not read."""

from __future__ import annotations

import pytest

from grading.load_hints import padding_note
from tests.grading.feedback_corpus_round40c import CASES
from tests.grading.test_feedback_round40c import _size

BASE = CASES["ifexp_unsqueeze_1_only"]           # its padding mask [B, 1, Nk]: B meets the scores' H
MAKES = "            pad = pad.masked_fill(key_padding_mask, float(\"-inf\"))\n"
INIT = "        self.attn = ScaledDotProductAttention()\n"
TOP = "import torch.nn.functional as F\n"


def _source(make: str, init: str = "", top: str = "") -> tuple[str, int, int]:
    """The base file with the padding mask made by ``make`` (from key_padding_mask, [B, 1, Nk] whatever the fill),
    ``init`` added to MultiHeadAttention.__init__ and ``top`` after the imports; (source, the mask's line, the
    line adding the mask in ScaledDotProductAttention)."""
    for old in (MAKES, INIT, TOP):
        assert BASE.count(old) == 1
    src = BASE.replace(MAKES, make).replace("            pad = pad[:, None, :] if pad.dim() == 2 else pad\n", "")
    src = src.replace(INIT, INIT + init).replace(TOP, TOP + top)
    lines = src.splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text == make.splitlines()[-1])
    add = next(i for i, text in enumerate(lines, 1) if "scores = scores + additive_mask" in text)
    return src, line, add


WHERE = "            pad = torch.where(key_padding_mask[:, None, :], {}, 0.0)\n"
TIMES = "            pad = key_padding_mask[:, None, :].float() * {}\n"


@pytest.mark.parametrize("make, init, top", [
    (WHERE.format("self.neg_inf"), "        self.neg_inf = -1e9\n", ""),
    (WHERE.format("self.neg_inf"), "        self.neg_inf = float('-inf')\n", ""),
    (TIMES.format("self.neg_inf"), "        self.neg_inf: float = -torch.finfo(torch.float32).max\n", ""),
    (WHERE.format("NEG"), "", "NEG = -1e4\n"),
    (TIMES.format("NEG"), "", "NEG = -1e4\n"),
    (WHERE.format("MASK_VALUE"), "", "MASK_VALUE = torch.finfo(torch.float32).min\n"),
    (WHERE.format("NEG"), "", "BIG = 1e9\nNEG = -BIG\n"),               # a constant made from another
    (WHERE.format("self.NEG"), "", "class Base(nn.Module):\n    NEG = -1e9\n\n\n"),
    (WHERE.format("self.neg"), "        self.neg = NEG\n", "NEG = -math.inf\n"),
])
def test_a_padding_mask_made_with_a_fill_held_in_an_attribute_or_a_module_constant_is_told_its_shape(
        make, init, top):
    src, line, add = _source(make, init, top)
    if "class Base" in top:
        src = src.replace("class MultiHeadAttention(nn.Module):", "class MultiHeadAttention(Base):")
    said = padding_note(src, add, _size(4, 2, 1), 4)
    assert said is not None
    assert f"line {line} (in MultiHeadAttention) makes the padding mask pad [B, 1, Nk] from key_padding_mask" \
        in said["en"]
    assert "得到了形状为 [B, 1, Nk] 的 padding mask `pad`" in said["zh"]


@pytest.mark.parametrize("make, init, top", [
    # set from an argument, or never set: a tensor of any shape may hide behind it
    (WHERE.format("self.neg_inf"), "        self.neg_inf = torch.zeros(1, 1, 1, 8)\n", ""),
    (WHERE.format("self.neg_inf"), "        self.neg_inf = -1e9\n        self.neg_inf = torch.zeros(2, 8)\n", ""),
    (WHERE.format("self.neg_inf"), "        self.neg_inf = -1e9\n        setattr(self, 'neg_inf', None)\n", ""),
    (WHERE.format("self.neg_inf"), "        self.neg_inf = -1e9\n        self.neg_inf += torch.zeros(8)\n", ""),
    (WHERE.format("NEG"), "", "NEG = -1e4\nfor NEG in [torch.zeros(8)]:\n    pass\n"),
    (WHERE.format("NEG"), "", "NEG = -1e4\n\n\ndef _set():\n    global NEG\n    NEG = torch.zeros(8)\n\n\n"),
    (WHERE.format("NEG"), "", "NEG = torch.zeros(2, 8)\n"),
    (WHERE.format("NEG"), "", "NEG = BIG\n"),
])
def test_a_fill_that_may_be_a_tensor_is_still_not_read(make, init, top):
    src, _line, add = _source(make, init, top)
    assert padding_note(src, add, _size(4, 2, 1), 4) is None


def test_a_module_constant_shadowed_in_forward_is_not_read():
    src, _line, add = _source(WHERE.format("NEG"), "", "NEG = -1e4\n")
    src = src.replace("key_padding_mask=None, return_weights=False):",
                      "key_padding_mask=None, return_weights=False, NEG=None):")
    assert padding_note(src, add, _size(4, 2, 1), 4) is None
