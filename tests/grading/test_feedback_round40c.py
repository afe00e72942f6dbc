"""Round 40 (brief C): padding masks built in forms the diagnosis did not follow.

1. A padding mask made by an if/else expression (``pad[:, None, :] if pad.dim() == 2 else pad``) was not read, so
   its broadcast error got no note: the branch a [B, Nk] key_padding_mask takes is now read (load_hints._rank_test),
   and a test not read gives a shape only when both branches make it.
2. ``torch.where(pad, -inf, scores)`` was read as the padding mask's shape, so the scores could be named as the
   padding mask; where's operands (and a sum of two masks) now broadcast, an operand not read giving nothing.
3. A padding mask added as a finite number to the wrong keys had no fault model: Google BERT's ``(1.0 - mask) *
   -10000.0`` made from key_padding_mask itself (the real keys blocked), and the mask added with the wrong sign
   (``key_padding_mask * 1e4`` or ``* 1e9``, the padding keys lifted). In float32 the constant rounds the scores it
   is added to, so the fault models add it in float32 (cases.PAD_ADDED_FAULTS); named as pad_inverted.
The broken files are tests/grading/feedback_corpus_round40c.py and tests/fixtures/submissions/*/r40c_*.py."""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grading.load_hints import padding_note
from tests.grading.feedback_corpus_round40c import CASES
from tests.grading.helpers import SUBMISSIONS, english_in_zh


def _size(a: int, b: int, dim: int) -> str:
    return f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim}"


SDPA_ADD = 21         # scores = scores + additive_mask, in ScaledDotProductAttention.forward


@pytest.mark.parametrize("name, line, shape, meets, message", [
    ("ifexp_unsqueeze_1_only", 59, "[B, 1, Nk]", "its B meets the H axis at dimension 1", _size(4, 2, 1)),
    ("ifexp_wrong_axis", 59, "[B, Nk, 1, 1]", "its Nk meets the H axis at dimension 1", _size(4, 8, 1)),
])
def test_a_padding_mask_made_by_an_if_else_expression_is_told_the_branch_a_two_dimensional_mask_takes(
        name, line, shape, meets, message):
    said = padding_note(CASES[name], SDPA_ADD, message, 4)
    assert said is not None
    assert f"line {line} (in MultiHeadAttention) makes the padding mask pad {shape} from key_padding_mask [B, Nk]; " \
           f"broadcasting lines the axes up from the right, so against the scores' axes [B, H, Nq, Nk] (which a mask added to the scores shares) {meets}" in said["en"]
    assert f"得到了形状为 {shape} 的 padding mask `pad`" in said["zh"]
    assert english_in_zh(said["zh"], frozenset({"score", "head", "query", "padding", "mask", "B", "H", "Nq", "Nk"})) \
        == []


def test_the_right_if_else_mask_and_a_test_not_read_with_two_shapes_get_no_note():
    assert padding_note(CASES["ifexp_right"], SDPA_ADD, _size(4, 2, 1), 4) is None
    # whether a mask is None (or any test not of its rank) cannot be read: the two branches' shapes differ
    unread = CASES["ifexp_unsqueeze_1_only"].replace("if pad.dim() == 2 else pad", "if self.training else pad")
    assert padding_note(unread, SDPA_ADD, _size(4, 2, 1), 4) is None
    # both branches the same wrong shape: said whatever the test
    same = CASES["ifexp_unsqueeze_1_only"].replace("else pad\n", "else pad[:, None, :]\n").replace(
        "if pad.dim() == 2", "if self.training")
    assert "makes the padding mask pad [B, 1, Nk]" in padding_note(same, SDPA_ADD, _size(4, 2, 1), 4)["en"]


def test_torch_where_over_the_scores_never_names_the_scores_as_the_padding_mask():
    said = padding_note(CASES["where_kept_apart"], 61, _size(2, 4, 1), 4)
    assert said is not None and "line 60 (in MultiHeadAttention) makes the padding mask pad [B, 1, Nk]" in said["en"]
    assert "masked" not in said["en"]


def test_a_causal_and_a_padding_mask_added_in_if_else_statements_are_told_the_padding_masks_shape():
    said = padding_note(CASES["add_not_unsqueezed"], 62, _size(4, 2, 2), 1)
    assert said is not None and "line 58 (in MultiHeadAttention) makes the padding mask pad [B, Nk]" in said["en"]
    assert "its B meets the Nq axis at dimension 2" in said["en"]
    assert padding_note(CASES["add_right"], 62, _size(4, 2, 2), 1) is None


# ------------------------------------------------------------------ a padding mask added to the wrong keys
PARAMS = C.mha_params(30, 16, 4, 4)
X = C.tokens(42, 2, 5, 16)
PAD = torch.zeros(2, 5, dtype=torch.bool)
PAD[1, 3:] = True


def _student_adds(on: str, c: float, x: torch.Tensor = X, pad: torch.Tensor = PAD) -> tuple[torch.Tensor, ...]:
    """What a float32 module adding ``c`` to the real or the padding keys computes (BERT's adder, or a sign
    flipped), with its own float32 arithmetic."""
    p = {n: t.float() for n, t in PARAMS.items()}
    B, N, _ = x.shape

    def heads(name: str) -> torch.Tensor:
        return torch.nn.functional.linear(x, p[f"{name}.weight"], p[f"{name}.bias"]).view(B, N, 4, 4).transpose(1, 2)

    q, k, v = heads("q_proj"), heads("k_proj"), heads("v_proj")
    keys = pad if on == "pad" else ~pad
    adder = keys.float()[:, None, None, :] * c
    w = torch.softmax(q @ k.transpose(-2, -1) / 2.0 + adder, -1)
    out = torch.nn.functional.linear((w @ v).transpose(1, 2).reshape(B, N, 16), p["out_proj.weight"],
                                     p["out_proj.bias"])
    return out, w


@pytest.mark.parametrize("on, c, key", [("real", -10000.0, "pad_inverted"), ("pad", 10000.0, "pad_sign"),
                                         ("pad", 1e9, "pad_sign_or_fill")])
def test_a_padding_mask_added_as_a_finite_number_to_the_wrong_keys_is_named(on, c, key):
    # the wrong sign is named pad_sign since the mending of review RC (test_feedback_mend_round40.py)
    out, w = _student_adds(on, c)
    said = diagnose.mha(out, w, PARAMS, 4, 4, X, None, None, PAD)
    assert said == diagnose.FAULTS[key]
    assert diagnose.mha(out, None, PARAMS, 4, 4, X, None, None, PAD) == diagnose.FAULTS[key]


def test_the_added_padding_models_are_not_made_where_they_give_the_right_numbers():
    for fault in C.PAD_ADDED_FAULTS:
        # no padding: every key real, the constant cancels in the softmax; float64: pad_inverted_finite's numbers
        assert C.mha_variant(PARAMS, 4, 4, X, None, None, torch.zeros(2, 5, dtype=torch.bool), fault=fault) is None
        assert C.mha_variant(PARAMS, 4, 4, X.double(), None, None, PAD, fault=fault) is None
    # a right mask added as -1e4 on the padding keys is not any of them
    out, w = _student_adds("pad", -10000.0)
    assert diagnose.mha(out, w, PARAMS, 4, 4, X, None, None, PAD) is None


# ------------------------------------------------------------------ the corpus files, graded
R40C_FAULTY = sorted((SUBMISSIONS / "faulty").glob("r40c_*.py"))
R40C_CORRECT = sorted((SUBMISSIONS / "correct").glob("r40c_*.py"))
NOTED = {  # the files whose padding mask is not broadcast: the test that gets the note, the mask's shape
    "r40c_pad_ifexp_unsqueeze_1_only": ("test_padding_keys_get_zero_weight", "[B, 1, Nk]"),
    "r40c_pad_add_causal_no_head_axis": ("test_padding_keys_get_zero_weight", "[B, 1, Nk]"),
    "r40c_pad_where_wrong_axis": ("test_padding_keys_get_zero_weight", "[B, Nk, 1, 1]"),
    # on the query axis: named pad_query_axis where the lengths agree, told its shape in cross-attention
    "r40c_pad_ifexp_query_axis": ("test_mha_single_head", "[B, 1, Nk, 1]"),
    "r40c_pad_where_query_axis": ("test_mha_single_head", "[B, 1, Nk, 1]"),
}
RIGHT_PADDING = {"r40c_pad_ifexp_right_scale_one", *(p.stem for p in R40C_CORRECT)}


@pytest.mark.slow
@pytest.mark.parametrize("path", R40C_FAULTY + R40C_CORRECT, ids=[p.stem for p in R40C_FAULTY + R40C_CORRECT])
def test_the_round_40_padding_files_get_their_note_and_no_other_file_a_padding_note(executor, path):
    from tests.grading.helpers import graded_corpus_file
    result = graded_corpus_file(executor, path)
    tests = {t["id"]: t for t in result["tests"]}
    if path.stem in NOTED:
        test, shape = NOTED[path.stem]
        said = tests[test]["feedback"]
        assert f"makes the padding mask pad {shape} from key_padding_mask [B, Nk]" in said["en"], said["en"]
        assert f"得到了形状为 {shape} 的 padding mask `pad`" in said["zh"], said["zh"]
        return
    if path.stem not in RIGHT_PADDING:  # named by a fault model (test_fair_corpus checks which)
        return
    for t in result["tests"]:           # right padding, wrong elsewhere or nowhere: no padding note
        fb = t.get("feedback")
        assert not (isinstance(fb, dict) and "makes the padding mask" in fb["en"]), (t["id"], fb["en"])
