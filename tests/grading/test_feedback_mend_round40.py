"""Round 40, mending brief C after review RC.

1. Two padding-derived masks combined (``pad[:, None, :, None] * pad[:, None, None, :]``, or ``|`` of two bool
   masks) broadcast: the square [B, 1, Nk, Nk] mask is told its shape (the BinOp broadcast of load_hints._symbolic).
2. torch.where making a padding mask with a fill not written as a literal (``-math.inf``,
   ``torch.finfo(q.dtype).min``, ``torch.tensor(0.0)``, a name assigned such a number) is read again: a number
   broadcasts as a tensor of no axes (load_hints._number); a name not read (the scores) still gives nothing.
3. A padding mask added with a positive number (``key_padding_mask * 1e4``) is named pad_sign (its sign is wrong),
   not pad_inverted (its meaning is right).
4. The constants modelled are the common powers of ten (1e4 to 1e9) and float16's min -65504; below 1e4 the two
   mistakes give the same numbers, so nothing is named.
5. A rank test written the other way round (``2 == pad.dim()``) is read."""

from __future__ import annotations

import pytest

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grading.load_hints import padding_note
from tests.grading.feedback_corpus_round40c import CASES
from tests.grading.helpers import english_in_zh
from tests.grading.test_feedback_round40c import PAD, PARAMS, SDPA_ADD, X, _size, _student_adds

IFEXP = "            pad = pad[:, None, None, :] if pad.dim() == 2 else pad\n"   # line 59 of CASES["ifexp_right"]


def _with(line: str) -> str:
    assert IFEXP in CASES["ifexp_right"]
    return CASES["ifexp_right"].replace(IFEXP, line)


@pytest.mark.parametrize("line", [
    "            pad = pad[:, None, :, None] * pad[:, None, None, :]\n",
    "            pad = key_padding_mask[:, None, :, None] | key_padding_mask[:, None, None, :]\n",
    "            pad = key_padding_mask[:, None, :, None] & key_padding_mask[:, None, None, :]\n",
])
def test_a_square_padding_mask_made_from_two_read_masks_is_told_its_shape_in_cross_attention(line):
    said = padding_note(_with(line), SDPA_ADD, _size(3, 5, 2), 4)
    assert said is not None
    assert "line 59 (in MultiHeadAttention) makes the padding mask pad [B, 1, Nk, Nk] from key_padding_mask [B, Nk]" \
        in said["en"]
    assert "its Nk meets the Nq axis at dimension 2" in said["en"]
    assert "得到了形状为 [B, 1, Nk, Nk] 的 padding mask `pad`" in said["zh"]


@pytest.mark.parametrize("lines", [
    "            pad = torch.where(key_padding_mask[:, None, :], -math.inf, 0.0)\n",
    "            pad = torch.where(key_padding_mask[:, None, :], torch.finfo(q.dtype).min, 0.0)\n",
    "            pad = torch.where(key_padding_mask[:, None, :], torch.tensor(float('-inf')), torch.tensor(0.0))\n",
    "            pad = torch.where(key_padding_mask[:, None, :], -math.inf, torch.tensor(0.0).to(q.dtype))\n",
    "            pad = torch.where(key_padding_mask[:, None, :], float('-inf'), 0.0)\n",
    "            mask_value = torch.finfo(q.dtype).min\n"
    "            pad = torch.where(key_padding_mask[:, None, :], mask_value, torch.zeros_like(mask_value))\n",
])
def test_a_padding_mask_made_by_torch_where_with_any_written_number_is_told_its_shape(lines):
    src = _with(lines)
    line = 59 + lines.count("\n") - 1
    said = padding_note(src, SDPA_ADD, _size(4, 2, 1), 4)
    assert said is not None
    assert f"line {line} (in MultiHeadAttention) makes the padding mask pad [B, 1, Nk] from key_padding_mask" \
        in said["en"]
    assert "its B meets the H axis at dimension 1" in said["en"]
    assert english_in_zh(said["zh"], frozenset({"score", "head", "query", "padding", "mask", "B", "H", "Nq", "Nk"})) \
        == []


@pytest.mark.parametrize("line", [
    # a tensor of unknown shape behind a name or made like one: never read as a number
    "            pad = torch.where(key_padding_mask[:, None, :], -math.inf, scores)\n",
    "            pad = torch.where(key_padding_mask[:, None, :], -math.inf, torch.zeros_like(scores))\n",
    "            pad = torch.where(key_padding_mask[:, None, :], -math.inf, q @ k.transpose(-2, -1))\n",
    "            pad = torch.where(key_padding_mask[:, None, :], self.neg_inf, 0.0)\n",
    # a number alone is never the padding mask
    "            pad = torch.finfo(q.dtype).min\n",
])
def test_an_operand_that_may_be_a_tensor_or_a_number_alone_gives_no_note(line):
    assert padding_note(_with(line), SDPA_ADD, _size(4, 2, 1), 4) is None


def test_a_rank_test_written_with_the_number_on_the_left_is_read():
    said = padding_note(_with("            pad = pad[:, None, :] if 2 == pad.dim() else pad\n"), SDPA_ADD,
                        _size(4, 2, 1), 4)
    assert said is not None and "makes the padding mask pad [B, 1, Nk]" in said["en"]
    assert padding_note(_with("            pad = pad if 4 == pad.ndim else pad[:, None, None, :]\n"), SDPA_ADD,
                        _size(4, 2, 1), 4) is None


# ------------------------------------------------------------------ a padding mask added with the wrong sign
@pytest.mark.parametrize("c", [1e4, 1e5, 1e6, 1e7, 1e8, 1e9])
def test_a_padding_mask_added_with_a_positive_number_is_named_its_sign_not_its_meaning(c):
    out, w = _student_adds("pad", c)
    said = diagnose.mha(out, w, PARAMS, 4, 4, X, None, None, PAD)
    # round 41 mend: * 1e9 in float32 rounds every padding key to the same score, a fill's numbers: both are named
    key = "pad_sign_or_fill" if c == 1e9 else "pad_sign"
    assert said == diagnose.FAULTS[key]
    assert "lifted instead of blocked" in said["en"] and "key_padding_mask * 1e4" in said["en"]
    assert "被抬高而不是被屏蔽" in said["zh"]
    assert diagnose.FAULTS["pad_inverted"]["en"] not in said["en"]
    assert diagnose.mha(out, None, PARAMS, 4, 4, X, None, None, PAD) == diagnose.FAULTS[key]


@pytest.mark.parametrize("c", [1e4, 65504.0, 1e5, 1e6, 1e7, 1e8])
def test_bert_s_inverted_mask_with_the_common_constants_is_named_inverted(c):
    out, w = _student_adds("real", -c)
    assert diagnose.mha(out, w, PARAMS, 4, 4, X, None, None, PAD) == diagnose.FAULTS["pad_inverted"]


@pytest.mark.parametrize("c", [100.0, 1000.0])
def test_small_constants_where_the_two_mistakes_give_the_same_numbers_are_not_named(c):
    # -c on the real keys and +c on the padding keys differ by less than MATCH_TOL: naming either would guess.
    # Round 41 (brief B): what the numbers show is said instead, with both forms that give it
    for on, sign in (("real", -1), ("pad", 1)):
        out, w = _student_adds(on, sign * c)
        said = diagnose.mha(out, w, PARAMS, 4, 4, X, None, None, PAD)
        assert said not in (diagnose.FAULTS["pad_inverted"], diagnose.FAULTS["pad_sign"])
        assert "the padding keys taking all the weight and the real keys none" in said["en"]
        assert "key_padding_mask * c with c positive, or (1 - key_padding_mask) * -c" in said["en"]


def test_every_added_padding_model_is_named_by_the_keys_it_reads():
    for fault, (on, _) in C.PAD_ADDED_FAULTS.items():
        assert diagnose.mha_key(fault, 16, 4) == ("pad_sign" if on == "pad" else "pad_inverted")
