"""Round 29: multi-head hints that match the code (see also the round's corpus files, whose `# diagnosis:` headers
test_fair_corpus.py checks, and test_grading.py their points).

1. Scores laid out keys first (``einsum('bhqd,bhkd->bhkq', q, k)``, ``k @ q.transpose(-2, -1)``): with the softmax
   over dim=-2 of that layout and the weights transposed back, the file is correct (85/85, two corpus files). With
   softmax(dim=-1) it normalises over the queries, and the hint said "the softmax runs over the query axis
   (dim=-2); it must normalise over the keys (dim=-1)" to a student who had written dim=-1: the name no longer
   claims the student's dim, and the source's softmax line is quoted with the axis it normalises, and the product
   that put the keys first.
2. ``causal_diagonal`` claimed "torch.triu(..., diagonal=0)" from the weights alone (a ``tril(..., diagonal=-1)``
   keep-mask gives the same numbers): the name says what the weights show, and the line that builds a triangular
   mask is quoted from the source when the class has exactly one.
3. A line in a base class or a helper the class builds or calls is found there and said with that class's name
   ("line 17 (in AttentionBase)"): the softmax and causal notes, the no-gradient calls and the in-place lines. The
   always-on dropout and the softmax without dim were the file's first, of whatever class: they are now those of
   the class whose results were wrong (ScaledDotProductAttention, or MultiHeadAttention and what it builds).
4. The merge hint said "reshape" to students who wrote view: "(or view)"; the split hint names reshape as well as view.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose, source_lines
from grading.load_hints import inplace_backward_note
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh

FAULTY = SUBMISSIONS / "faulty"
CORRECT = SUBMISSIONS / "correct"


def _sdpa(body: str, *, base: str = "", cls_base: str = "torch.nn.Module") -> str:
    """A ScaledDotProductAttention whose forward runs ``body`` (q, k, v, additive_mask in scope), after ``base``."""
    lines = "".join(f"        {line}\n" for line in body.strip("\n").splitlines())
    return ("import math\nimport torch\n\n\n" + base +
            f"class ScaledDotProductAttention({cls_base}):\n"
            "    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):\n" + lines +
            "        return (w @ v, w) if return_weights else w @ v\n")


BHKQ = _sdpa("s = torch.einsum('bhqd,bhkd->bhkq', q, k) / math.sqrt(q.shape[-1])\n"
             "w = torch.softmax(s, dim=-1).transpose(-2, -1)")


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


# ----------------------------------------------------------------------------- 1. keys-first scores
@pytest.mark.parametrize("product", ["torch.einsum('bhqd,bhkd->bhkq', q, k)", "torch.einsum('...qd, ...kd -> ...kq', q, k)",
                                     "k @ q.transpose(-2, -1)", "torch.matmul(k, q.mT)", "k @ q.permute(0, 1, 3, 2)"])
def test_a_softmax_over_the_last_axis_of_keys_first_scores_is_said_with_both_lines(product):
    source = _sdpa(f"s = {product} / math.sqrt(q.shape[-1])\nw = torch.softmax(s, dim=-1).transpose(-2, -1)")
    note = source_lines.softmax_axis_note(source, "ScaledDotProductAttention")
    assert note is not None
    assert note["en"] == (f"line 8: torch.softmax(s, dim=-1) normalises over dim=-1, which holds the queries in the "
                          f"tensor it is given: line 7 computes the scores keys first ({product}, [B, H, Nk, Nq], i.e. "
                          "K Q^T); compute them as Q K^T, [B, H, Nq, Nk], or normalise over the keys' axis of this "
                          "layout (dim=-2)"), note["en"]
    assert "第 8 行：torch.softmax(s, dim=-1) 沿 dim=-1 归一化" in note["zh"] and "第 7 行按先 key 后 query" in note["zh"]
    assert english_in_zh(note["zh"], code_names(source)) == [], note["zh"]


@pytest.mark.parametrize("product", ["torch.einsum('bhqd,bhkd->bhqk', q, k)", "torch.einsum('bhkd,bhqd->bhqk', k, q)",
                                     "q @ k.transpose(-2, -1)", "torch.matmul(q, k.mT)"])
def test_scores_laid_out_queries_first_are_not_called_keys_first(product):
    source = _sdpa(f"s = {product}\nw = torch.softmax(s, dim=-2)")
    assert source_lines.keys_first_scores(source, "ScaledDotProductAttention") is None
    note = source_lines.softmax_axis_note(source, "ScaledDotProductAttention")
    assert note is not None and note["en"] == "line 8: torch.softmax(s, dim=-2) normalises over dim=-2, the queries " \
                                              "of [B, H, Nq, Nk]", note


def test_a_softmax_over_another_layouts_query_axis_is_quoted_with_its_own_dim():
    """Transformer-XL's [Nq, Nk, B, H] scores with softmax(dim=0): the hint said "(dim=-2) ... (dim=-1)" to it."""
    source = _sdpa("s = torch.einsum('ibnd,jbnd->ijbn', q, k)\nw = torch.nn.functional.softmax(s, dim=0)")
    note = source_lines.softmax_axis_note(source, "ScaledDotProductAttention")
    assert note is not None and note["en"] == ("line 8: torch.nn.functional.softmax(s, dim=0) normalises over dim=0, "
                                               "which holds the queries in the tensor it is given: normalise over the "
                                               "axis that holds the keys"), note
    assert note["zh"].endswith("：请沿 key 所在的轴归一化"), note


@pytest.mark.parametrize("body", [
    "s = q @ k.mT\nw = torch.softmax(s, dim=self.axis)",                      # a dim the source does not give
    "s = q @ k.mT\nw = torch.softmax(s, -1)\nw = torch.softmax(w, -2)",       # two softmaxes: which one is unknown
    "s = q @ k.mT\nw = s.exp() / s.exp().sum(-2, keepdim=True)",              # no softmax call at all
])
def test_no_softmax_line_is_said_when_the_class_does_not_show_one(body):
    assert source_lines.softmax_axis_note(_sdpa(body), "ScaledDotProductAttention") is None


def test_the_name_of_a_softmax_over_the_queries_no_longer_claims_the_students_dim():
    """Before: "the softmax runs over the query axis (dim=-2)" to a student who wrote dim=-1."""
    name = diagnose.FAULTS["softmax_query_axis"]
    assert "(dim=-2)" not in name["en"] and "（dim=-2）" not in name["zh"]
    assert name["en"].startswith("the columns sum to 1 instead of the rows: the softmax runs over the query axis")


class _Student:
    """The student's ScaledDotProductAttention computing ``fault`` on every input, with its source."""

    def __init__(self, fault: str, source: str):
        self.fault, self.source = fault, source

    def sdpa(self, q, k, v, mask=None, *, return_weights=False):
        w = C.sdpa_fault_weights(self.fault, q, k, v, mask)
        out = (w.double() @ v.double()).to(q.dtype)
        return (out, w.to(q.dtype)) if return_weights else out


def test_a_graded_softmax_over_the_queries_quotes_the_students_own_line():
    q, k, v = C.qkv(12, 2, 3, 6, 6, 8, 8)
    w = C.sdpa_fault_weights("softmax_query_axis", q, k, v, None).float()
    said = diagnose.sdpa_weights(w, q, k, v, student=_Student("softmax_query_axis", BHKQ))
    assert said is not None and said["en"].startswith(diagnose.FAULTS["softmax_query_axis"]["en"] + "; line 8: "), said
    assert "torch.einsum('bhqd,bhkd->bhkq', q, k)" in said["en"] and "（score 按 [B, H, Nq, Nk] 排列时为 dim=-1）；第 8 行" \
        in said["zh"], said


def test_q_and_k_swapped_in_an_einsum_quotes_the_einsum():
    q, k, v = C.qkv(12, 2, 3, 6, 6, 8, 8)
    w = C.sdpa_fault_weights("qk_swapped", q, k, v, None).float()
    said = diagnose.sdpa_weights(w, q, k, v, student=_Student("qk_swapped", BHKQ))
    assert said is not None
    assert said["en"] == diagnose.FAULTS["qk_swapped"]["en"] + "; line 7 computes torch.einsum('bhqd,bhkd->bhkq', q, " \
                                                               "k): keys first, [B, H, Nk, Nq]", said


# ----------------------------------------------------------------------------- 2. causal masks: the line, never a guess
@pytest.mark.parametrize("build", [
    "torch.triu(torch.ones(n, m, dtype=torch.bool))",
    "torch.tril(torch.ones(n, m, dtype=torch.bool), diagonal=-1).logical_not()",
    "torch.ones(n, m, dtype=torch.bool).triu(0)"])
def test_a_causal_mask_off_by_one_quotes_how_the_class_built_it(build):
    source = _sdpa(f"n, m = q.shape[-2], k.shape[-2]\ns = (q @ k.mT).masked_fill({build}, float('-inf'))\n"
                   "w = torch.softmax(s, dim=-1)")
    q, k, v = C.qkv(12, 2, 3, 6, 6, 8, 8)
    w = C.sdpa_fault_weights("causal_diagonal", q, k, v, None).float()
    said = diagnose.sdpa_weights(w, q, k, v, student=_Student("causal_diagonal", source))
    assert said is not None and said["en"].startswith(diagnose.FAULTS["causal_diagonal"]["en"]), said
    built = build.removesuffix(".logical_not()")      # the call itself is quoted, as written
    assert said["en"].endswith(f"; line 8 builds a triangular mask: {built}"), said
    assert said["zh"].endswith(f"；第 8 行构造了三角形 mask：{built}"), said


def test_the_causal_names_claim_no_diagonal_the_source_did_not_show():
    """Before: causal_diagonal said "(torch.triu(..., diagonal=0))" and causal_ahead "(diagonal=2)" from the weights."""
    for key in ("causal_diagonal", "causal_ahead"):
        text = diagnose.FAULTS[key]
        assert "diagonal=0" not in text["en"] + text["zh"] and "diagonal=2" not in text["en"] + text["zh"], key
    # no triangular call, or two: no line is said
    assert source_lines.causal_note(_sdpa("s = q @ k.mT\nw = torch.softmax(s, -1)"), "ScaledDotProductAttention") is None
    two = _sdpa("a = torch.triu(q @ k.mT)\nb = torch.tril(q @ k.mT)\nw = torch.softmax(a + b, -1)")
    assert source_lines.causal_note(two, "ScaledDotProductAttention") is None


# ----------------------------------------------------------------------------- 3. lines in the class that does it
BASE = ("class AttentionBase(torch.nn.Module):\n"
        "    def normalise(self, s):\n"
        "        BODY\n"
        "        return w\n\n\n")


def _with_base(body: str) -> str:
    return _sdpa("w = self.normalise(q @ k.mT / math.sqrt(q.shape[-1]))",
                 base=BASE.replace("BODY", body), cls_base="AttentionBase")


def test_a_softmax_in_a_base_class_is_said_in_that_class():
    source = _with_base("w = torch.softmax(s, dim=-2)")
    note = source_lines.softmax_axis_note(source, "ScaledDotProductAttention")
    assert note is not None and note["en"].startswith("line 7 (in AttentionBase): torch.softmax(s, dim=-2)"), note
    assert note["zh"].startswith("第 7 行（在 AttentionBase 中）："), note
    # the wrapper's own softmax wins over the module it builds
    mha = source + ("\n\nclass MultiHeadAttention(torch.nn.Module):\n    def __init__(self):\n"
                    "        super().__init__()\n        self.attention = ScaledDotProductAttention()\n\n"
                    "    def forward(self, x):\n        return torch.softmax(x, dim=2)\n")
    own = source_lines.softmax_axis_note(mha, "MultiHeadAttention")
    assert own is not None and own["en"].startswith(f"line {_line(mha, 'dim=2')}: torch.softmax(x, dim=2)"), own


def test_a_helper_function_and_a_built_helper_class_are_searched_too():
    helper = ("def causal(n):\n    return torch.triu(torch.ones(n, n, dtype=torch.bool))\n\n\n"
              "class Core:\n    def __call__(self, s):\n        return torch.softmax(s, dim=-2)\n\n\n")
    source = _sdpa("self.core = Core()\ns = (q @ k.mT).masked_fill(causal(q.shape[-2]), float('-inf'))\n"
                   "w = self.core(s)", base=helper)
    causal = source_lines.causal_note(source, "ScaledDotProductAttention")
    assert causal is not None and causal["en"].startswith("line 6 (in causal) builds a triangular mask"), causal
    axis = source_lines.softmax_axis_note(source, "ScaledDotProductAttention")
    assert axis is not None and axis["en"].startswith("line 11 (in Core): torch.softmax(s, dim=-2)"), axis


def test_calls_autograd_does_not_follow_in_a_base_class_are_listed_with_it():
    """Before: graph_cuts read the class's own body only, and a detach in its base class went unsaid."""
    source = _with_base("w = torch.softmax(s.detach(), dim=-1)")
    assert diagnose.graph_cuts(source) == [(7, "s.detach()", "AttentionBase")]
    said = diagnose.no_gradient(["q", "k"], source)
    assert "(line 7 (in AttentionBase): s.detach())" in said["en"], said
    assert "第 7 行（在 AttentionBase 中）：s.detach()" in said["zh"], said


def test_an_in_place_change_in_a_base_class_is_listed_with_it():
    saved = ("one of the variables needed for gradient computation has been modified by an inplace operation: "
             "[torch.FloatTensor [2, 2, 5, 6]], which is output 0 of Softmax, is at version 1; expected version 0")
    source = _with_base("w = torch.softmax(s, dim=-1)\n        w.nan_to_num_(0.0)")
    note = inplace_backward_note(source, "ScaledDotProductAttention", saved)
    assert note is not None
    assert "ScaledDotProductAttention changes a tensor in place on line 8 (w, in AttentionBase): compute a new tensor " \
           "instead: w = w.nan_to_num(0.0)" in note["en"], note["en"]
    assert "第 8 行（w，在 AttentionBase 中）" in note["zh"], note["zh"]
    # a class of the file that ScaledDotProductAttention neither derives from nor runs is not read
    other = source.replace("(AttentionBase)", "(torch.nn.Module)").replace("self.normalise(", "torch.softmax(")
    other = other.replace("math.sqrt(q.shape[-1]))", "math.sqrt(q.shape[-1]), -1)")
    assert inplace_backward_note(other, "ScaledDotProductAttention", saved) is None


class _Source:
    def __init__(self, source: str):
        self.source = source


TRAINER = ("class Trainer:\n    def step(self, x):\n        return torch.nn.functional.dropout(x, 0.5)\n\n\n"
           "class Head(torch.nn.Module):\n    def forward(self, x):\n        return torch.nn.functional.softmax(x)\n\n\n")


def test_randomness_quotes_the_dropout_of_the_class_whose_results_changed():
    """Before: the first always-on dropout of the file was quoted, here a training helper's (line 7), for a
    ScaledDotProductAttention whose own dropout is on line 20."""
    source = _sdpa("w = torch.softmax(q @ k.mT, -1)\nw = torch.nn.functional.dropout(w, 0.1)", base=TRAINER)
    mha = source + ("\n\nclass MultiHeadAttention(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.attention = ScaledDotProductAttention()\n")
    line = _line(source, "dropout(w, 0.1)")
    said = diagnose.randomness(_Source(mha), "ScaledDotProductAttention")
    assert said["en"].endswith(f"; line {line} calls torch.nn.functional.dropout(w, 0.1), which drops values whatever "
                               "the mode: pass training=self.training, or use an nn.Dropout module"), said
    wrapped = diagnose.randomness(_Source(mha), "MultiHeadAttention")
    assert f"line {line} (in ScaledDotProductAttention) calls" in wrapped["en"], wrapped
    assert f"第 {line} 行（在 ScaledDotProductAttention 中）调用" in wrapped["zh"], wrapped
    # only another class has one: no line is said
    alone = _sdpa("w = torch.softmax(q @ k.mT, -1)", base=TRAINER)
    assert diagnose.randomness(_Source(alone), "ScaledDotProductAttention") == diagnose.FAULTS["dropout"]


def test_a_softmax_without_dim_is_quoted_from_the_class_that_normalised_over_the_heads():
    source = _sdpa("w = torch.nn.functional.softmax(q @ k.mT, dim=None)", base=TRAINER)
    said = diagnose._implicit_dim(source, "ScaledDotProductAttention")
    assert said is not None and said["en"].startswith(f"line {_line(source, 'dim=None')} calls"), said
    assert diagnose._implicit_dim(_sdpa("w = torch.softmax(q @ k.mT, -1)", base=TRAINER),
                                  "ScaledDotProductAttention") is None


# ----------------------------------------------------------------------------- 4. merge: view as well as reshape
def test_the_split_and_merge_hints_name_both_spellings():
    text = diagnose.FAULTS["merge_no_transpose"]
    assert "reshape(B, N, H * head_dim) (or view)" in text["en"] and "（或 view）" in text["zh"]
    for key in ("split_no_transpose", "split_no_transpose_only"):
        text = diagnose.FAULTS[key]
        assert "view(B, H, N, head_dim) (or reshape" in text["en"] and "view(B, H, N, head_dim)（或 reshape）" in text["zh"]


# ----------------------------------------------------------------------------- the round's corpus
ROUND_29 = {"correct": ["einsum_bhkq_softmax_dim_minus2", "einsum_bhkq_output_einsum"],
            "faulty": ["einsum_bhkq_softmax_last_axis", "einsum_bhkq_weights_not_transposed_back",
                       "mha_merge_view_no_transpose", "mha_split_reshape_batch_heads", "mha_weights_first_head_slice",
                       "mha_kv_both_from_q_proj", "mha_functional_dropout_on_output", "mha_padding_on_query_axis",
                       "mha_mask_zeroed_after_softmax", "mha_merge_permute_0231", "mha_query_scaled_by_dmodel",
                       "mha_additive_mask_without_head_axis", "mha_split_view_heads_first", "mha_out_proj_left_out",
                       "mha_residual_added", "mha_cross_kv_from_x_asserts"]}


def test_the_round_29_corpus_declares_what_each_file_must_get():
    """Graded by test_grading.py (points) and test_fair_corpus.py (named in both languages, nothing else named)."""
    assert len(ROUND_29["faulty"]) >= 15
    for name in ROUND_29["faulty"]:
        head = (FAULTY / f"{name}.py").read_text(encoding="utf-8").splitlines()[:3]
        assert head[0].startswith("# expect: ") and head[1].startswith("# diagnosis: "), name
    for name in ROUND_29["correct"]:
        assert (CORRECT / f"{name}.py").exists(), name


@pytest.mark.slow      # grades a file: a few seconds with its executor
def test_keys_first_scores_never_transposed_back_are_described_in_the_students_terms(executor):
    """The 15/85 file: softmax(dim=-1) over 'bhkq' scores and the weights returned [B,H,Nk,Nq] are two mistakes (each
    file of one of them is in the corpus): every hint that names one quotes the einsum line."""
    from tests.grading.helpers import graded_mutant

    path = FAULTY / "einsum_bhkq_softmax_last_axis.py"
    result = graded_mutant(executor, path, "        weights = torch.softmax(scores, dim=-1).transpose(-2, -1)\n"
                                           "        output = torch.matmul(weights, v)\n",
                           "        weights = torch.softmax(scores, dim=-1)\n"
                           "        output = torch.einsum('bhkq,bhkd->bhqd', weights, v)\n")
    failed = {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}
    line = _line(path.read_text(encoding="utf-8"), "torch.einsum('bhqd,bhkd->bhkq'")
    # the layout in the test of the weights' shapes; the other tests read the weights back (round 30)
    assert "one row per key instead of one per query" in failed["test_cross_attention_shapes"]["en"]
    named = [fb for fb in failed.values() if "the query axis" in fb["en"] or "Q and K are swapped" in fb["en"]]
    # named by MultiHeadAttention's tests too, where the line is said with its class
    assert named and all(f"line {line} computes" in fb["en"] or f"line {line} (in ScaledDotProductAttention) computes"
                         in fb["en"] for fb in named), named
    assert all("(dim=-2); it must" not in fb["en"] for fb in failed.values())
