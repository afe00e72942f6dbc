"""Round 39 mend (review RC of brief C): the padding mask's notes are said only once checked.

1. The source's padding mask is read only where its assignments in line order tell its shape: a name bound in a loop,
   a try or a with, assigned in more than one block (if/else branches) or changed by an in-place method is not read.
2. The notes are no longer said by student_error_text on any such message: a test that gave a key_padding_mask adds
   them (diagnose.padding_failure) when the same call without the padding mask does not fail; the heads a mask adds
   only with one head. A right padding mask is then never blamed for another fault (the output layer fed a
   concatenation, an additive mask without its head axis), nor a wrong one on a test that gave no padding mask.
3. A mask scaled by a number (``key_padding_mask[:, None, None, :].float() * -1e9``) is read as the mask.
The student runs in this process here (the sandbox's feedback made by student_error_text, as the proxy makes it)."""

from __future__ import annotations

import sys
import traceback

import pytest
import torch

from grader_tests.attention import test_implementation as impl
from grader_tests.attention import test_mask_parity as parity
from grading.proxy import Feedback, student_error_text
from tests.grading.feedback_corpus_round39 import CASES, PAD
from tests.web.test_broken_uploads_round34 import BASE, sub

CAT_BUG = "        out = self.out_proj(torch.cat([out.transpose(1, 2).reshape(B, N, H * D), x], -1))\n"
OUT = "        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))\n"
MERGED = "mat1 and mat2 shapes cannot be multiplied (8x32 and 16x16)"
FILL = "            pad = pad.masked_fill(key_padding_mask, float(\"-inf\"))\n"
# right padding masks the builder's reading took for [B, 1, Nk] (the last assignment by line number)
RIGHT_PADS = {
    "while": FILL + "            while pad.dim() < 4:\n                pad = pad.unsqueeze(1)\n",
    "if_else": "            if key_padding_mask.dim() == 2:\n"
               "                pad = torch.zeros_like(key_padding_mask[:, None, None, :], dtype=q.dtype).masked_fill(\n"
               "                    key_padding_mask[:, None, None, :], float(\"-inf\"))\n"
               "            else:\n"
               "                pad = torch.zeros_like(key_padding_mask.unsqueeze(1), dtype=q.dtype).masked_fill(\n"
               "                    key_padding_mask.unsqueeze(1), float(\"-inf\"))\n",
    "in_place": FILL.replace("))\n", ")).unsqueeze(1)\n") + "            pad.unsqueeze_(2)\n",
}


class _Raised(Exception):
    def __init__(self, kind: str, message: str, lineno: int | None):
        super().__init__(message)
        self.kind, self.message, self.lineno = kind, message, lineno


class _InProcess:
    """The student's file run in this process; a failing call is a Feedback as the proxy says it."""

    def __init__(self, source: str):
        self.source, self.names = source, {"__name__": "attention"}
        exec(compile(source, "attention.py", "exec"), self.names)

    def mha(self, d_model, num_heads, head_dim=None, params=None):
        module = self.names["MultiHeadAttention"](d_model, num_heads, head_dim).eval()
        with torch.no_grad():
            for name, tensor in module.named_parameters():
                tensor.copy_(params[name])
        source = self.source

        class Handle:
            def __init__(self):
                self.params = params

            def __call__(self, *args, **kwargs):
                try:
                    with torch.no_grad():
                        return module(*args, **kwargs)
                except (RuntimeError, ValueError, IndexError, TypeError) as exc:   # what torch raises here
                    lines = [f.lineno for f in traceback.extract_tb(sys.exc_info()[2]) if f.filename == "attention.py"]
                    raised = _Raised(type(exc).__name__, str(exc), lines[-1] if lines else None)
                    raise Feedback(student_error_text("MultiHeadAttention.forward", raised, source=source)) from None
        return Handle()


def padding_note(*args):
    from grading.load_hints import padding_note as note  # here: the tests through the proxy run without it
    return note(*args)


def _said(test, source: str) -> dict:
    with pytest.raises(Feedback) as exc:
        test(_InProcess(source))
    return exc.value.message


@pytest.mark.parametrize("spelling", sorted(RIGHT_PADS))
def test_a_right_padding_mask_made_in_a_loop_branches_or_in_place_is_not_blamed_for_the_output_layer(spelling):
    src = sub(OUT, CAT_BUG, base=sub(PAD, RIGHT_PADS[spelling]))
    single = _said(impl.test_mha_single_head, src)
    assert "padding mask" not in single["en"] and "padding mask" not in single["zh"], single["en"]
    assert "mat1 and mat2" in single["en"]
    many = _said(parity.test_mha_additive_mask, src)          # four heads, no padding mask in its first case
    assert "padding mask" not in many["en"] and "additive_mask [B,Nq,Nk]:" in many["en"], many["en"]


def test_a_padding_mask_read_from_a_loop_branches_or_in_place_gives_no_note_even_where_it_is_the_cause():
    for spelling, made in RIGHT_PADS.items():
        src = sub(PAD, made)
        line = src.splitlines().index(OUT.rstrip("\n")) + 1
        assert padding_note(src, line, MERGED, 1) is None, spelling


def test_a_wrong_padding_mask_is_not_blamed_on_four_heads_without_a_padding_mask():
    src = sub(OUT, CAT_BUG, base=CASES["pad_unsqueeze_1_only"])
    said = _said(parity.test_mha_additive_mask, src)
    assert "additive_mask [B,Nq,Nk]:" in said["en"] and "padding mask" not in said["en"], said["en"]
    assert "H = 1" not in said["en"] and "that layer takes inputs" in said["en"]


def test_an_additive_mask_without_its_head_axis_is_not_blamed_on_the_padding_mask():
    for base in (BASE, CASES["pad_unsqueeze_1_only"]):   # a right padding mask, and one missing its head axis too
        src = sub("            mask = mask[:, None]\n", "            mask = mask\n", base=base)
        said = _said(parity.test_mha_additive_mask, src)
        assert "additive_mask [B,Nq,Nk]:" in said["en"] and "padding mask" not in said["en"], said["en"]


def test_the_padding_mask_is_still_named_where_the_call_without_it_does_not_fail():
    single = _said(impl.test_mha_single_head, CASES["pad_unsqueeze_1_only"])
    assert "with additive_mask [B,Nq,Nk] and key_padding_mask:" in single["en"]
    assert "line 58 makes the padding mask pad [B, 1, Nk] from key_padding_mask [B, Nk]" in single["en"]
    assert "当 H = 1 时，广播使 score 有 B 个 head 而不是一个" in single["zh"]
    padded = _said(parity.test_padding_keys_get_zero_weight, CASES["pad_none_on_wrong_axis"])
    assert "line 58 (in MultiHeadAttention) makes the padding mask pad [B, Nk, 1, 1]" in padded["en"]


def test_the_heads_note_needs_one_head():
    src = CASES["pad_unsqueeze_1_only"]
    assert padding_note(src, 62, MERGED, 4) is None
    assert padding_note(src, 62, MERGED, 1) is not None


@pytest.mark.parametrize("made, shape", [
    ('            pad = key_padding_mask[:, None, :].float() * -1e9\n', "[B, 1, Nk]"),
    ('            pad = (1.0 - key_padding_mask.float()).unsqueeze(1) * -10000.0\n', "[B, 1, Nk]"),
    ('            pad = float("-inf") * key_padding_mask.unsqueeze(-1).float()\n', "[B, Nk, 1]"),
])
def test_a_mask_scaled_by_a_number_is_read_as_the_mask(made, shape):
    src = sub(PAD, made, base=sub("            pad = torch.zeros(key_padding_mask.shape, dtype=q.dtype)\n", ""))
    line = next(n for n, text in enumerate(src.splitlines(), 1) if text == made.rstrip("\n"))
    said = padding_note(src, 21, "The size of tensor a (4) must match the size of tensor b (2) at non-singleton "
                        "dimension 1" if shape != "[B, Nk, 1]" else "The size of tensor a (8) must match the size of "
                        "tensor b (4) at non-singleton dimension 2", 4)
    assert said is not None and f"line {line} (in MultiHeadAttention) makes the padding mask pad {shape}" in said["en"]


def test_weights_renormalised_over_the_heads_are_not_said_to_be_a_softmax_over_that_axis():
    # a softmax over the keys, then divided by the sum over the heads: no softmax ran over the head axis
    from tests.grading.test_feedback_round39 import SEEN, SEEN_ZH, _hand, _Student

    def renormalised(s):
        w = torch.softmax(s, -1)
        return w / w.sum(1, keepdim=True)
    said = _hand(_Student(CASES["softmax_no_dim_on_x"], renormalised))
    assert SEEN in said["en"] and SEEN_ZH in said["zh"]
    assert "a softmax over an axis of size 1" not in said["en"] and "做 softmax" not in said["zh"]
    assert "normalising over an axis of size 1 gives 1.0 everywhere" in said["en"]
    assert "沿大小为 1 的轴归一化，结果处处为 1.0" in said["zh"]
