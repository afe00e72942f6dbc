"""Round 26: multi-head hints read as a student reads them (see also the corpus files of round 26 in
tests/fixtures/submissions/faulty/, whose `# diagnosis:` headers test_fair_corpus.py checks).

1. An in-place change of a tensor autograd saved (``weights.nan_to_num_(0.0)`` after the softmax, a softmax
   written with ``exp_()`` and ``/=``) raises in backward, where the error has no line of the student's: the
   gradient test showed PyTorch's message alone. It now adds the lines of the class that change a tensor in
   place, with the out-of-place form; a number changed with ``+=`` is no tensor and is not listed.
2. The out-of-place form of ``w = s.exp_()`` was ``s = s.exp()``, which leaves ``w`` unset: it keeps the
   student's own name, ``w = s.exp()``.
3. Two padding mistakes were only described: a padding mask inverted with a finite fill (Hugging Face's
   ``(1.0 - mask) * -1e9``, read as 1 = keep), whose fully blocked rows are uniform in float32 rather than NaN,
   so the -inf model missed it; and a square [B,1,N,N] padding mask that blocks the padding queries too (their
   rows NaN). Both are fault models now (``pad_inverted_finite``, named as ``pad_inverted``; ``pad_square``).
4. A padding mask written into head 0 only read "padding keys get weight up to 0.722; they must get exactly 0
   from every head": the heads that read the padding keys are now said when others do not.
5. ``self.attention = ScaledDotProductAttention`` (no parentheses) showed Python's "ScaledDotProductAttention.__init__()
   got an unexpected keyword argument 'return_weights'" alone: the note now says the attribute holds the class,
   on which line, and how to build the module.
6. A MultiHeadAttention that adds a decoder's causal mask in self-attention (its ScaledDotProductAttention right)
   was only described; the "causal" text of ScaledDotProductAttention would blame the wrong class, so it is a
   model of the wrapper's own (``mha_causal``).
7. Dropout on in eval while the weights returned are those from before it: the weights tests are right, and the
   output tests said only "up to 0.8 away" (the hand example, the parity and float64 outputs). An output no model
   explains is now called twice, and randomness is said when the calls differ.
"""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grading.load_hints import class_not_instance_note, inplace_backward_note, inplace_lines_note
from tests.grading.helpers import SUBMISSIONS, english_in_zh

SAVED = ("one of the variables needed for gradient computation has been modified by an inplace operation: "
         "[torch.FloatTensor [2, 2, 5, 6]], which is output 0 of Softmax, is at version 1; expected version 0")
FAULTY = SUBMISSIONS / "faulty"
DESCRIBED = FAULTY / "described"      # the files no model names: graded in test_hints_round26_corpus.py (slow)


def _source(body: str) -> str:
    return ("import math\nimport torch\n\n\nclass ScaledDotProductAttention:\n"
            "    def forward(self, q, k, v, additive_mask=None):\n"
            "        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n" + body +
            "        return weights @ v\n")


def test_backward_on_a_tensor_changed_in_place_names_the_line_and_the_new_tensor_to_compute():
    source = _source("        weights = torch.softmax(scores, dim=-1)\n        weights.nan_to_num_(0.0)\n")
    note = inplace_backward_note(source, "ScaledDotProductAttention", SAVED)
    assert note is not None
    assert note["en"].endswith("ScaledDotProductAttention changes a tensor in place on line 9 (weights): compute a "
                               "new tensor instead: weights = weights.nan_to_num(0.0)"), note["en"]
    assert "在第 9 行（weights）原地修改了 tensor：请改为计算新的 tensor：weights = weights.nan_to_num(0.0)" in note["zh"]
    assert english_in_zh(note["zh"], frozenset({"ScaledDotProductAttention", "nan_to_num", "weights"})) == []


def test_every_in_place_line_is_listed_and_an_assigned_call_keeps_its_own_name():
    source = _source("        n = 0\n        n += 1\n        scale = math.sqrt(q.size(-1))\n        scale *= 2\n"
                     "        weights = scores.exp_()\n        weights /= weights.sum(-1, keepdim=True)\n")
    note = inplace_backward_note(source, "ScaledDotProductAttention", SAVED)
    assert note is not None
    # n and scale are numbers: `+=` on them changes no tensor
    assert "on lines 12 (scores), 13 (weights): compute new tensors instead: weights = scores.exp(); " \
           "weights = weights / weights.sum(-1, keepdim=True)" in note["en"], note["en"]
    assert "第 12 行（scores）、第 13 行（weights）" in note["zh"], note["zh"]


def test_the_out_of_place_form_of_an_assigned_in_place_call_keeps_the_assigned_name():
    source = ("class A:\n    def forward(self, q, mask):\n        m = mask.clamp_(min=-1e9)\n"
              "        return q + m\n")
    note = inplace_lines_note(source, "A", "forward", "mask")
    assert note is not None and note["en"].endswith("compute a new tensor instead: m = mask.clamp(min=-1e9)"), note


@pytest.mark.parametrize("message, cls", [
    ("a leaf Variable that requires grad is being used in an in-place operation.", "ScaledDotProductAttention"),
    ("mat1 and mat2 shapes cannot be multiplied (8x64 and 16x16)", "ScaledDotProductAttention"),
    (SAVED, "MultiHeadAttention")])          # another error, or a class without an in-place line
def test_no_in_place_line_is_said_for_another_error_or_another_class(message, cls):
    source = _source("        weights = torch.softmax(scores, dim=-1)\n        weights.nan_to_num_(0.0)\n")
    assert inplace_backward_note(source, cls, message) is None


def test_the_round_26_corpus_has_fifteen_or_more_multi_head_bugs_with_a_declared_diagnosis():
    """Their grades and hints are checked by test_grading.py and test_fair_corpus.py (faulty/), and by
    test_hints_round26_corpus.py (faulty/described/, slow)."""
    names = ["softmax_over_flattened_scores", "softmax_over_heads_and_keys", "merge_transpose_last_two",
             "einops_split_d_h", "out_proj_per_head_bias", "padding_repeat_wrong_order", "padding_first_head_only",
             "padding_keep_mask_added", "padding_zeroes_context", "causal_bottom_right", "causal_from_query_length",
             "nan_to_num_in_place", "softmax_in_place_normalise", "scale_multiplied", "additive_mask_unsqueeze_2",
             "output_seq_first", "sdpa_mask_as_0_1", "split_stack_heads_dim2", "dropout_p_without_training",
             "padding_where_inverted", "padding_hf_style_inverted", "padding_square_mask", "einops_merge_d_h",
             "per_head_loop_cat_seq", "weights_last_head_only", "additive_mask_expand_no_unsqueeze",
             "mha_attention_class_not_instance", "mha_returns_weights_first", "mha_unpacks_single_output",
             "mha_causal_in_self_attention", "weights_kept_before_dropout_train"]
    for name in names:
        path = FAULTY / f"{name}.py" if (FAULTY / f"{name}.py").exists() else DESCRIBED / f"{name}.py"
        head = path.read_text(encoding="utf-8").splitlines()[:3]
        assert head[0].startswith("# expect: ") and head[1].startswith("# diagnosis: "), name


@pytest.mark.slow      # its own executor: a few seconds of start-up
@pytest.mark.parametrize("name, said", [
    ("nan_to_num_in_place", "changes a tensor in place on line 24 (weights): compute a new tensor instead: "
                            "weights = weights.nan_to_num(0.0)"),
    ("softmax_in_place_normalise", "on lines 24 (scores), 25 (weights): compute new tensors instead: "
                                   "weights = scores.exp(); weights = weights / weights.sum(dim=-1, keepdim=True)")])
def test_the_gradient_test_of_a_graded_file_names_its_in_place_lines(executor, name, said):
    from tests.grading.helpers import graded_corpus_file

    result = graded_corpus_file(executor, DESCRIBED / f"{name}.py")
    failed = {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}
    assert set(failed) == {"test_gradients_match_reference"}, failed
    fb = failed["test_gradients_match_reference"]
    assert fb["en"].startswith("backward through ScaledDotProductAttention.forward raised RuntimeError") and said in fb["en"]
    assert "原地修改了 tensor：请改为计算新的 tensor" in fb["zh"], fb["zh"]


def _padding_case(n_q: int = 5):
    params = C.mha_params(30, 16, 4, 4)
    x = C.tokens(42, 2, n_q, 16)
    kpm = torch.zeros(2, n_q, dtype=torch.bool)
    kpm[1, -2:] = True
    return params, x, kpm


def _student_mha(params, x, kpm, pad) -> tuple[torch.Tensor, torch.Tensor]:
    """A float32 multi-head self-attention written as students write it, its padding mask given by ``pad``."""
    B, N, _ = x.shape

    def heads(name):
        return torch.nn.functional.linear(x, params[f"{name}.weight"], params[f"{name}.bias"]).view(
            B, N, 4, 4).transpose(1, 2)

    q, k, v = heads("q_proj"), heads("k_proj"), heads("v_proj")
    w = torch.softmax(q @ k.transpose(-2, -1) / 2.0 + pad(kpm), dim=-1)
    out = (w @ v).transpose(1, 2).reshape(B, N, 16)
    return torch.nn.functional.linear(out, params["out_proj.weight"], params["out_proj.bias"]), w


@pytest.mark.parametrize("pad", [lambda kpm: (1.0 - kpm[:, None, None, :].float()) * -1e9,
                                 lambda kpm: (~kpm[:, None, None, :]).float() * torch.finfo(torch.float32).min])
def test_a_padding_mask_inverted_with_a_finite_fill_is_named_inverted(pad):
    params, x, kpm = _padding_case()
    out, w = _student_mha(params, x, kpm, pad)
    assert diagnose.mha(out, w, params, 4, 4, x, None, None, kpm) == diagnose.FAULTS["pad_inverted"]
    assert diagnose.mha(out, None, params, 4, 4, x, None, None, kpm) == diagnose.FAULTS["pad_inverted"]


def test_a_square_padding_mask_that_blocks_the_padding_queries_is_named():
    params, x, kpm = _padding_case()
    square = kpm[:, :, None] | kpm[:, None, :]
    out, w = _student_mha(params, x, kpm,
                          lambda _: torch.zeros(2, 1, 5, 5).masked_fill(square[:, None], float("-inf")))
    assert diagnose.mha(out, w, params, 4, 4, x, None, None, kpm) == diagnose.FAULTS["pad_square"]
    zh = diagnose.FAULTS["pad_square"]["zh"]
    assert english_in_zh(zh, frozenset({"key_padding_mask", "nan"})) == [], zh


@pytest.mark.parametrize("fault", ["pad_square", "pad_inverted_finite"])
def test_the_new_padding_models_do_not_apply_without_padding(fault):
    """(Silent on the reference's numbers: test_diagnoses.test_no_mha_hint_fires_on_the_reference.)"""
    params, x, kpm = _padding_case()
    none = torch.zeros_like(kpm)
    assert fault == "pad_inverted_finite" or C.mha_variant(params, 4, 4, x, None, None, none, fault=fault) is None
    assert C.mha_variant(params, 4, 4, x, None, None, None, fault=fault) is None


@pytest.mark.parametrize("clean, said, said_zh", [
    ([0], "in heads 1, 2, 3 only (head 0 gives them 0)", "（只出现在 head 1、2、3 中；head 0 给它们的权重为 0）"),
    ([1, 3], "in heads 0, 2 only (heads 1, 3 give them 0)", "（只出现在 head 0、2 中；head 1、3 给它们的权重为 0）")])
def test_the_heads_that_read_the_padding_keys_are_said_when_others_do_not(clean, said, said_zh):
    from grader_tests.attention.test_mask_parity import _heads_reading

    on_pad = torch.full((4, 8, 3), 0.2)
    on_pad[clean] = 0.0
    note = _heads_reading(on_pad)
    assert note is not None and note["en"] == f" {said}" and note["zh"] == said_zh, note
    assert _heads_reading(torch.full((4, 8, 3), 0.2)) is None        # every head: nothing to add
    assert _heads_reading(torch.full((1, 8, 3), 0.2)) is None        # one head


@pytest.mark.slow      # its own executor
def test_a_padding_mask_in_head_0_only_is_described_per_head(executor):
    from tests.grading.helpers import graded_corpus_file

    result = graded_corpus_file(executor, DESCRIBED / "padding_first_head_only.py")
    fb = next(t["feedback"] for t in result["tests"] if t["id"] == "test_padding_keys_get_zero_weight")
    assert "in heads 1, 2, 3 only (head 0 gives them 0); they must get exactly 0" in fb["en"], fb["en"]
    assert "（只出现在 head 1、2、3 中；head 0 给它们的权重为 0）；它们在所有 head" in fb["zh"], fb["zh"]


_KEPT_CLASS = ("import torch\nfrom torch import nn\n\n\nclass ScaledDotProductAttention(nn.Module):\n"
               "    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):\n        return q\n\n\n"
               "class MultiHeadAttention(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
               "        self.attention = {built}\n\n    def forward(self, x):\n"
               "        return self.attention(x, x, x, None, return_weights=True)\n")


@pytest.mark.parametrize("message", [
    "ScaledDotProductAttention.__init__() got an unexpected keyword argument 'return_weights'",
    "ScaledDotProductAttention.__init__() takes 1 positional argument but 5 were given"])
def test_a_module_kept_as_its_class_is_explained_at_the_call(message):
    note = class_not_instance_note(_KEPT_CLASS.format(built="ScaledDotProductAttention"), 16, message)
    assert note is not None
    assert note["en"] == ("self.attention holds the class ScaledDotProductAttention itself (line 13: self.attention "
                          "= ScaledDotProductAttention, without parentheses), so line 16 calls the class and builds a "
                          "new ScaledDotProductAttention from these arguments; build the module once in __init__: "
                          "self.attention = ScaledDotProductAttention()"), note["en"]
    assert english_in_zh(note["zh"], frozenset({"ScaledDotProductAttention", "attention", "__init__"})) == []


@pytest.mark.parametrize("built, line, message", [
    ("ScaledDotProductAttention()", 16, "ScaledDotProductAttention.__init__() got an unexpected keyword argument 'a'"),
    ("ScaledDotProductAttention", 15, "ScaledDotProductAttention.__init__() got an unexpected keyword argument 'a'"),
    ("ScaledDotProductAttention", 16, "Other.__init__() got an unexpected keyword argument 'a'"),
    ("ScaledDotProductAttention", 16, "mat1 and mat2 shapes cannot be multiplied (8x64 and 16x16)")])
def test_no_class_note_for_a_built_module_another_line_another_class_or_another_error(built, line, message):
    assert class_not_instance_note(_KEPT_CLASS.format(built=built), line, message) is None


def test_a_causal_mask_added_by_the_wrapper_in_self_attention_is_named_as_the_wrappers():
    params, x, kpm = _padding_case()
    am = C.random_block_mask(98, (2, 5, 5))
    out, w = C.mha_variant(params, 4, 4, x, None, am, kpm, fault="mha_causal")
    named = diagnose.mha(out.float(), w.float(), params, 4, 4, x, None, am, kpm)
    assert named == diagnose.FAULTS["mha_causal"] and "MultiHeadAttention applies only" in named["en"]
    assert C.mha_variant(params, 4, 4, x, C.tokens(43, 2, 7, 16), fault="mha_causal") is None   # cross-attention


class _Sdpa:
    """A stand-in ScaledDotProductAttention: right weights, and an output that is random or off by a constant."""

    def __init__(self, noisy: bool):
        self.noisy, self.source = noisy, None

    def sdpa(self, q, k, v, mask=None, *, return_weights=False):
        w = C.ref_weights(q, k, mask).to(q.dtype)
        out = (torch.nn.functional.dropout(w, 0.5) if self.noisy else w) @ v + (0.0 if self.noisy else 0.5)
        return (out, w) if return_weights else out


@pytest.mark.parametrize("noisy", [True, False])
def test_an_output_that_changes_between_calls_is_told_as_randomness_not_only_as_a_distance(noisy):
    q, k, v = C.qkv(13, 2, 3, 5, 6, 4, 9)
    student = _Sdpa(noisy)
    named = diagnose.sdpa_output(student.sdpa(q, k, v), q, k, v, student=student)
    assert named == (diagnose.FAULTS["dropout"] if noisy else None), named
