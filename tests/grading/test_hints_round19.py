"""Red-team round 19 on hints for faulty code: a cause is named only when the student's code shows it.

1. ``F.softmax(scores)`` without dim: the head-axis softmax the numbers confirm is tied to the line that gives no
   dim (the source read, never run); calls that give a dim, or are not PyTorch's, are never named.
2. ``q /= math.sqrt(dk)`` in place: PyTorch's in-place error of the gradient test is tied to the line that
   changes a parameter of its function, with the out-of-place form of that line.
3. State kept between calls: a call that fails on an object that served earlier calls is repeated on a newly
   built twin (same arguments and weights); only when the twin succeeds is the kept state named.
3b. Dropout seen active in eval (a session differs from itself) names the dropout call of the source that is on
   whatever the mode (``F.dropout(w, 0.1)``, ``training=True``); one that follows the mode is never named.
4. A size computed with ``/`` (``head_dim = d_model / num_heads``): PyTorch's "found element of type float" is
   tied to the ``/`` assignment the failing line's names come from.
5. New faulty files written as students write them, graded, their feedback pinned in both languages; projections
   applied as ``x @ proj.weight.T`` (their biases never added) get a fault model of their own, ``bias_dropped``.
(float16 with ``masked_fill(mask, -1e9)``: no test, by the contract; see README, Known limits.)"""

from __future__ import annotations

import re

import pytest

from grader_tests.attention.diagnose import FAULTS, dropout_always_on, softmax_without_dim
from grading.i18n import is_msg
from grading.load_hints import float_size_note, inplace_note
from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS, english_in_zh, fault_texts, graded_corpus_file, says

FAULTY = SUBMISSIONS / "faulty"
ZH_CODE = frozenset({"warns", "Implicit", "dimension", "choice", "for", "has", "been", "deprecated", "requires",
                     "grad", "autograd", "math", "shape", "head_dim", "self"})


def _failed(result: dict) -> dict[str, dict]:
    return {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}


def _bilingual(note: dict) -> dict:
    assert is_msg(note) and note["en"] and note["zh"], note
    assert english_in_zh(note["zh"], ZH_CODE) == [], note["zh"]
    return note


# ----------------------------------------------------------------------------- 1. softmax without dim
NO_DIM = [
    ("import torch.nn.functional as F\nw = F.softmax(s)\n", 2),
    ("import torch\nw = torch.nn.functional.softmax(s)\n", 2),
    ("from torch.nn import functional as nnf\nw = nnf.softmax(s, dim=None)\n", 2),
    ("from torch.nn.functional import softmax\nw = softmax(s, None)\n", 2),
    ("import torch.nn as nn\nsm = nn.Softmax()\n", 2),
    ("from torch import nn\nsm = nn.Softmax(dim=None)\n", 2),
    ("from torch.nn import Softmax as S\nsm = S()\n", 2),
    ("import torch as T\nw = T.nn.functional.softmax(\n    s,\n)\n", 2),
]
WITH_DIM = [
    "import torch.nn.functional as F\nw = F.softmax(s, -1)\n",
    "import torch.nn.functional as F\nw = F.softmax(s, dim=-1)\n",
    "import torch.nn.functional as F\nw = F.softmax(s, *rest)\n",          # the dim cannot be read: never said
    "import torch.nn.functional as F\nw = F.softmax(s, **kw)\n",
    "import torch\nw = s.softmax(-1)\nw = torch.softmax(s, -1)\n",         # both require a dim
    "import torch.nn as nn\nsm = nn.Softmax(-1)\nsm = nn.Softmax(dim=3)\n",
    "import mylib as F\nw = F.softmax(s)\n",                                # not PyTorch's
    "def softmax(x):\n    return x\nw = softmax(s)\n",
    "import torch.nn.functional as F\nw = F.softmax(\n",                  # does not parse
]


@pytest.mark.parametrize("source, line", NO_DIM, ids=[s.split("\n")[1][:30] for s, _ in NO_DIM])
def test_a_pytorch_softmax_given_no_dim_is_found_at_its_line(source, line):
    assert [n for n, _ in softmax_without_dim(source)] == [line]


@pytest.mark.parametrize("source", WITH_DIM, ids=[s.split("\n")[1][:30] for s in WITH_DIM])
def test_a_softmax_given_a_dim_or_not_pytorchs_is_never_found(source):
    assert softmax_without_dim(source) == []


def test_a_softmax_without_dim_is_named_by_its_line_beside_the_head_axis_it_was_seen_to_run_over(executor):
    """softmax_without_dim.py: 'softmax over dim=1' was said (its effect), never that line 21 gives no dim."""
    path = FAULTY / "softmax_without_dim.py"
    line = next(n for n, t in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "= F.softmax(scores)" in t)
    failed = _failed(graded_corpus_file(executor, path))
    named = [tid for tid, fb in failed.items() if FAULTS["softmax_head_axis"]["en"] in fb["en"]]
    assert len(named) >= 5, failed
    for tid in named:
        fb = failed[tid]
        assert f"line {line} calls F.softmax(scores) without dim: for a 4-D tensor PyTorch then picks dim=1" \
            in fb["en"], (tid, fb)
        assert f"第 {line} 行调用 F.softmax(scores) 时没有给出 dim" in fb["zh"], (tid, fb)


def test_a_dim_less_softmax_the_numbers_do_not_confirm_is_not_named(executor):
    """An unused helper with F.softmax(x) beside a right softmax: the numbers are right, nothing is said."""
    base = (SUBMISSIONS / "correct" / "einsum.py").read_text(encoding="utf-8")
    helper = "\n\ndef _unused(x):\n    import torch.nn.functional as F\n    return F.softmax(x)\n"
    result = grade(GradeInput(code=(base + helper).encode()), "attention", executor)
    assert softmax_without_dim(base + helper) and not _failed(result)


# ----------------------------------------------------------------------------- 2. an input changed in place
LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
FORWARD = ("import math\n\n\nclass A:\n    def forward(self, q, k, v, mask=None):\n        scores = q @ k.T\n"
           "        {line}\n        return scores\n")


@pytest.mark.parametrize("line, name, fix", [
    ("q /= math.sqrt(q.shape[-1])", "q", "q = q / math.sqrt(q.shape[-1])"),
    ("k *= 0.5", "k", "k = k * 0.5"),
    ("q.div_(8)", "q", "q = q.div(8)"),
    ("v.masked_fill_(mask, 0.0)", "v", "v = v.masked_fill(mask, 0.0)"),
    ("q[..., 0] = 0", "q", "q = q.clone() before this line"),
])
def test_an_input_changed_in_place_is_named_with_its_out_of_place_form(line, name, fix):
    note = _bilingual(inplace_note(FORWARD.format(line=line), 7, LEAF))
    assert note["en"].startswith(f"line 7 changes {name}, the tensor the caller passed in, in place") and \
        note["en"].endswith(f"compute a new tensor instead: {fix}"), note
    assert f"第 7 行原地（in-place）修改了调用者传入的 tensor {name}" in note["zh"], note


@pytest.mark.parametrize("line, lineno, message", [
    ("scores /= 2.0", 7, LEAF),                        # a local tensor, not the caller's
    ("q /= 2.0", 6, LEAF),                             # PyTorch names another line
    ("q /= 2.0", 7, "The size of tensor a (4) must match the size of tensor b (2)"),
    ("q = q / 2.0", 7, LEAF),                          # nothing in place on that line
])
def test_no_in_place_hint_where_the_line_or_the_error_does_not_show_it(line, lineno, message):
    assert inplace_note(FORWARD.format(line=line), lineno, message) is None


def test_the_gradient_test_names_the_in_place_division_of_q(executor):
    fb = _failed(graded_corpus_file(executor, FAULTY / "scale_in_place_on_input.py"))["test_gradients_match_reference"]
    assert says("line 16 changes q, the tensor the caller passed in, in place", fb["en"]) and \
        "q = q / math.sqrt(q.shape[-1])" in fb["en"], fb
    assert "第 16 行原地（in-place）修改了调用者传入的 tensor q" in fb["zh"], fb


# ----------------------------------------------------------------------------- 3. state kept between calls
KEPT = "a newly built MultiHeadAttention with the same weights runs this same call without the failure"


def test_keys_cached_at_an_earlier_call_are_named_where_the_call_fails(executor):
    """mha_caches_keys.py: 4 tests said only 'raised AssertionError at line 18' (its SDPA's shape check)."""
    failed = _failed(graded_corpus_file(executor, FAULTY / "mha_caches_keys.py"))
    assert len(failed) == 4
    for tid, fb in failed.items():
        assert "raised AssertionError at attention.py line 18" in fb["en"] and KEPT in fb["en"], (tid, fb)
        assert "用相同权重新建的 MultiHeadAttention 执行同样的调用时没有出现这个失败" in fb["zh"], (tid, fb)


@pytest.mark.parametrize("name", ["head_dim_true_division", "additive_mask_unsqueeze0", "merge_view_non_contiguous",
                                  "padding_mask_unsqueezed_once", "split_view_after_transpose"])
def test_a_failure_a_newly_built_module_repeats_is_not_blamed_on_kept_state(executor, name):
    """Each fails the same way on a fresh object: the twin fails too, and nothing is said of state."""
    failed = _failed(graded_corpus_file(executor, FAULTY / f"{name}.py"))
    assert failed and not [tid for tid, fb in failed.items() if "newly built" in fb["en"]], failed


# ----------------------------------------------------------------------------- 3b. dropout on whatever the mode
ALWAYS_ON = [
    "import torch.nn.functional as F\nw = F.dropout(w, 0.1)\n",
    "import torch.nn.functional as F\nw = F.dropout(w, p=0.1, training=True)\n",
    "from torch import nn\nw = nn.functional.dropout(w, self.p)\n",
    "import torch\nw = torch.dropout(w, 0.1, True)\n",
    "from torch.nn.functional import dropout\nw = dropout(w, 0.1, True)\n",
]
FOLLOWS_MODE = [
    "import torch.nn.functional as F\nw = F.dropout(w, 0.1, training=self.training)\n",
    "import torch.nn.functional as F\nw = F.dropout(w, 0.1, self.training)\n",
    "import torch.nn.functional as F\nw = F.dropout(w, 0.1, training=False)\n",
    "import torch\nw = torch.dropout(w, 0.1, self.training)\n",
    "from torch import nn\nself.drop = nn.Dropout(0.1)\nw = self.drop(w)\n",
    "import torch.nn.functional as F\nw = F.dropout(w, **self.kw)\n",
]


@pytest.mark.parametrize("source", ALWAYS_ON, ids=[s.split("\n")[1] for s in ALWAYS_ON])
def test_a_dropout_call_on_whatever_the_mode_is_found(source):
    assert [n for n, _ in dropout_always_on(source)] == [2]


@pytest.mark.parametrize("source", FOLLOWS_MODE, ids=[s.split("\n")[-2] for s in FOLLOWS_MODE])
def test_a_dropout_that_may_follow_the_mode_is_never_found(source):
    assert dropout_always_on(source) == []


@pytest.mark.parametrize("name, line, code", [("dropout_on", 22, "F.dropout(weights, 0.1)"),
                                              ("dropout_training_true", 22, "F.dropout(weights, p=0.1, training=True)"),
                                              ("mha_dropout_in_eval", 52, "nn.functional.dropout(out, self.p)")])
def test_randomness_seen_in_eval_names_the_dropout_call_that_is_always_on(executor, name, line, code):
    """The feedback said 'e.g. F.dropout without training=self.training' of every random module; the line of the
    call, when the source has one, now follows in both languages."""
    failed = _failed(graded_corpus_file(executor, FAULTY / f"{name}.py"))
    named = [fb for fb in failed.values() if FAULTS["dropout"]["en"] in fb["en"]]
    assert len(named) >= 2, failed
    for fb in named:   # MultiHeadAttention's tests say the class of a line in the module it builds (round 29)
        assert re.search(rf"line {line}( \(in \w+\))? calls {re.escape(code)}, which drops values whatever the mode",
                         fb["en"]), fb
        assert re.search(rf"第 {line} 行(（在 \w+ 中）)?调用 {re.escape(code)}，无论处于什么模式都会丢弃数值", fb["zh"]), fb


# ----------------------------------------------------------------------------- 4. a size computed with /
FLOAT = "empty(): argument 'size' (position 1) must be tuple of ints, but found element of type float at pos 0"
MHA_INIT = ("from torch import nn\n\n\nclass M(nn.Module):\n    def __init__(self, d_model, num_heads):\n"
            "        super().__init__()\n        self.head_dim = {value}\n        inner = num_heads * self.head_dim\n"
            "        self.q_proj = nn.Linear(d_model, inner)\n")


def test_a_size_computed_with_true_division_is_named_through_the_names_the_failing_line_reads():
    note = _bilingual(float_size_note(MHA_INIT.format(value="d_model / num_heads"), 9, FLOAT))
    assert note["en"].startswith("line 7 computes self.head_dim with '/', which gives a float in Python 3") and \
        "line 9 passes a size computed from it: compute head_dim with '//'" in note["en"], note
    assert "第 7 行用“/”计算 self.head_dim" in note["zh"], note
    view = "view(): argument 'size' (position 1) must be tuple of ints, but found element of type float at pos 3"
    assert float_size_note("h = d / 4\ny = x.view(b, n, 4, h)\n", 2, view) is not None


@pytest.mark.parametrize("value, lineno, message", [
    ("int(d_model / num_heads)", 9, FLOAT),            # made an int again
    ("d_model // num_heads", 9, FLOAT),
    ("d_model / num_heads", 9, "mat1 and mat2 shapes cannot be multiplied (2x16 and 12x16)"),
    ("d_model / num_heads", 6, FLOAT),                 # a line that reads no such name
])
def test_no_true_division_hint_where_no_float_size_comes_from_it(value, lineno, message):
    assert float_size_note(MHA_INIT.format(value=value), lineno, message) is None


# ----------------------------------------------------------------------------- 5. new faulty files, their hints pinned
# file -> test -> what its feedback must say (en, zh). Each is also graded by test_grading.py (its '# expect:'
# category) and test_fair_corpus.py (its '# diagnosis:' named in both languages and nothing else).
PINNED = {
    "head_dim_true_division": {"test_mha_structure": (
        "line 29 computes self.head_dim with '/', which gives a float in Python 3", "第 29 行用“/”计算 self.head_dim")},
    "heads_merged_dim_first": {"test_mha_self_attention_parity": (FAULTS["merge_dim_first"]["en"],
                                                                  FAULTS["merge_dim_first"]["zh"])},
    "additive_mask_unsqueeze0": {"test_mha_additive_mask": (FAULTS["additive_mask_batch_as_head"]["en"],
                                                            FAULTS["additive_mask_batch_as_head"]["zh"])},
    "dropout_training_true": {"test_deterministic": (FAULTS["dropout"]["en"], FAULTS["dropout"]["zh"])},
    # x @ proj.weight.T for all four projections: the Linears' biases never added (a new fault model, bias_dropped)
    "projection_bias_dropped": {"test_mha_self_attention_parity": (FAULTS["bias_dropped"]["en"],
                                                                   FAULTS["bias_dropped"]["zh"])},
    # fairseq's [N, B, D] split on a batch-first tensor: PyTorch's own words say what to do (round 20 adds the
    # transpose's line: test_hints_round20), and no fault model or kept state is named
    "split_view_after_transpose": {"test_mha_self_attention_parity": (
        "raised RuntimeError at attention.py line 40: view size is not compatible with input tensor's size and stride",
        "抛出 RuntimeError（attention.py 第 40 行）")},
    "mask_polarity_where": {"test_blocked_key_gets_zero_weight": (FAULTS["mask_inverted"]["en"],
                                                                  FAULTS["mask_inverted"]["zh"])},
    # q pre-scaled by 1/sqrt(d_model), then 1/sqrt(head_dim) again: with one head (d_model == head_dim) that IS
    # sqrt(dk) twice, and it is named there; with 4 heads no model matches and the numbers are described
    "mha_prescale_by_d_model": {
        "test_mha_single_head": (FAULTS["scale_dk"]["en"], FAULTS["scale_dk"]["zh"]),
        "test_mha_self_attention_parity": ("multi-head self-attention output: up to", "多头 self-attention 的输出")},
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_round19_faulty_file_gets_the_pinned_feedback_in_both_languages(executor, name):
    failed = _failed(graded_corpus_file(executor, FAULTY / f"{name}.py"))
    for tid, (en, zh) in PINNED[name].items():
        assert tid in failed and en in failed[tid]["en"] and zh in failed[tid]["zh"], (tid, failed.get(tid))
    if name == "mha_prescale_by_d_model":     # never a fault model where several heads tell them apart
        assert not [tid for tid, fb in failed.items() if tid != "test_mha_single_head"
                    for _, text in fault_texts() if text["en"] in fb["en"]]
