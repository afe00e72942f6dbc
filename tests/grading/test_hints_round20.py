"""Red-team round 20 on hints for faulty code: a cause is named only when the student's code or numbers show it.

1. ``.view`` after a transpose: PyTorch says only "view size is not compatible ... Use .reshape(...) instead".
   The one ``.view`` of the failing line is tied to the transpose or permute that made its tensor: in the same
   expression (``out.transpose(1, 2).view(...)``) or as the last value given, in the same function, to the name
   it reads (``out = out.transpose(1, 2)`` above ``out.view(...)``), or as what the one call of its function
   passes in (``self._merge(out.transpose(1, 2))``). A function called from several places, a tensor made
   contiguous first, several views on the line: nothing is said.
2. Biases left out of some projections (only out_proj's, only v_proj's, q and v): the output matches the
   reference computed with those biases zeroed, confirmed on the probe case, and named by projection. k_proj's
   bias cancels in the softmax, so leaving it out alone is correct numbers and never named.
3. New faulty files as students write them, graded, their feedback pinned in both languages."""

from __future__ import annotations

import itertools

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grading.i18n import is_msg
from grading.load_hints import view_note
from tests.grading.helpers import SUBMISSIONS, english_in_zh, graded_corpus_file, says

FAULTY = SUBMISSIONS / "faulty"
VIEW_ERROR = ("view size is not compatible with input tensor's size and stride (at least one dimension spans across "
              "two contiguous subspaces). Use .reshape(...) instead.")
ZH_CODE = frozenset({"out", "t", "weight", "bias", "self",
                     "x", "y", "o", "linear", "q_proj", "v_proj", "out_proj", "tensor"})


def _failed(result: dict) -> dict[str, dict]:
    return {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}


def _fn(*body: str) -> str:
    return "import torch\n\n\ndef merge(self, x, b, n):\n" + "".join(f"    {line}\n" for line in body)


# ----------------------------------------------------------------------------- 1. .view after a transpose
# (source, failing line, the transpose's line, how it is shown)
FOUND = [
    (_fn("return x.transpose(1, 2).view(b, n, -1)"), 5, 5, ".transpose(1, 2)"),
    (_fn("return x.permute(0, 2, 1, 3).view(b, n, -1)"), 5, 5, ".permute(0, 2, 1, 3)"),
    (_fn("return torch.transpose(x, 1, 2).view(b, n, -1)"), 5, 5, "torch.transpose(x, 1, 2)"),
    (_fn("return x.mT.view(b, -1)"), 5, 5, ".mT"),
    (_fn("y = x.swapaxes(1, 2)", "return y.view(b, n, -1)"), 6, 5, ".swapaxes(1, 2)"),
    (_fn("out = x.transpose(1, 2)  # [B, N, H, d]", "out = out.view(b, n, -1)"), 6, 5, ".transpose(1, 2)"),
    (_fn("self.o = x.movedim(1, 2)", "return self.o.view(b, n, -1)"), 6, 5, ".movedim(1, 2)"),
    (_fn("out = (x @ x).transpose(1, 2)", "return out.view(\n        b, n, -1)"), 6, 5, ".transpose(1, 2)"),
    # the one call of the view's function passes the transposed tensor (by position, through self, by keyword)
    (_fn("return x.view(b, n, -1)") + "merge(None, y.transpose(1, 2), 2, 3)\n", 5, 6, ".transpose(1, 2)"),
    ("class M:\n    def merge(self, x, b, n):\n        return x.view(b, n, -1)\n\n    def forward(self, y):\n"
     "        return self.merge(y.permute(0, 2, 1, 3), 2, 3)\n", 3, 6, ".permute(0, 2, 1, 3)"),
    (_fn("return x.view(b, n, -1)") + "merge(None, b=2, n=3, x=y.mT)\n", 5, 6, ".mT"),
]
NOT_FOUND = [
    (_fn("return x.view(b, n, -1)"), 5, VIEW_ERROR),                                   # passed in, never called
    (_fn("return x.view(b, n, -1)") + "merge(None, y.transpose(1, 2), 2, 3)\nmerge(None, y, 2, 3)\n", 5,
     VIEW_ERROR),                                                                       # called from two places
    (_fn("return x.view(b, n, -1)") + "merge(None, y, 2, 3)\n", 5, VIEW_ERROR),         # passed a plain tensor
    (_fn("return x.view(b, n, -1)") + "merge(None, *args)\n", 5, VIEW_ERROR),
    (_fn("return x.transpose(1, 2).contiguous().view(b, n, -1)"), 5, VIEW_ERROR),      # made contiguous
    (_fn("out = x.transpose(1, 2)", "out = out.contiguous()", "return out.view(b, n, -1)"), 7, VIEW_ERROR),
    (_fn("out = x.transpose(1, 2)", "return out.view(b, n, -1) + x.view(b, n, -1)"), 6, VIEW_ERROR),  # two views
    (_fn("return self.transpose(x).view(b, n, -1)"), 5, VIEW_ERROR),                    # the student's own method
    (_fn("return self.T.view(b, n, -1)"), 5, VIEW_ERROR),                               # and attribute
    (_fn("return x.transpose(1, 2).view(b, n, -1)"), 5, "shape '[2, 5, -1]' is invalid for input of size 7"),
    (_fn("out = x.transpose(1, 2)", "return out.view(b, n, -1)"), 5, VIEW_ERROR),        # not the view's line
    (_fn("return x.transpose(1, 2).view(b, n, -1)"), None, VIEW_ERROR),
    ("def merge(x):\n    return x.transpose(1, 2).view(\n", 2, VIEW_ERROR),                  # does not parse
]


@pytest.mark.parametrize("source, line, made, shown", FOUND,
                         ids=[f"{s.splitlines()[4].strip()[:40]}-{i}" for i, (s, *_) in enumerate(FOUND)])
def test_a_view_of_a_transposed_tensor_names_the_transpose_and_reshape(source, line, made, shown):
    note = view_note(source, line, VIEW_ERROR)
    assert is_msg(note) and english_in_zh(note["zh"], ZH_CODE) == [], note
    assert f"line {line} calls .view(...)" in note["en"] and shown in note["en"] and ".reshape(...)" in note["en"]
    assert f"第 {line} 行" in note["zh"] and shown in note["zh"] and ".reshape(...)" in note["zh"]
    if made != line:
        assert f"line {made} made" in note["en"] or f"line {made} passes in" in note["en"], note
        assert f"第 {made} 行的 {shown}" in note["zh"] or f"第 {made} 行传入的 {shown}" in note["zh"], note


@pytest.mark.parametrize("source, line, message", NOT_FOUND,
                         ids=[f"{s.splitlines()[-1].strip()[:30]}-{i}" for i, (s, *_) in enumerate(NOT_FOUND)])
def test_a_view_whose_tensor_the_line_does_not_show_transposed_gets_no_note(source, line, message):
    assert view_note(source, line, message) is None


# ----------------------------------------------------------------------------- 2. some biases left out
MHA_SETUP = dict(params=C.mha_params(30, 16, 2, 8), num_heads=2, head_dim=8)
CASES = {"self": dict(x=C.tokens(42, 2, 5, 16)),
         "cross+pad": dict(x=C.tokens(84, 2, 5, 16), context=C.tokens(85, 2, 8, 16),
                           key_padding_mask=torch.tensor([[False] * 8, [False] * 5 + [True] * 3]))}
SUBSETS = [s for r in (1, 2) for s in itertools.combinations(("q_proj", "v_proj", "out_proj"), r)]


def _without(names: tuple[str, ...], case: dict) -> tuple[torch.Tensor, torch.Tensor]:
    params = {n: torch.zeros_like(t) if n.split(".")[0] in names and n.endswith(".bias") else t
              for n, t in MHA_SETUP["params"].items()}
    out, w = C.mha_variant(params, MHA_SETUP["num_heads"], MHA_SETUP["head_dim"], **case)
    return out.float(), w.float()


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("names", SUBSETS, ids=["+".join(s) for s in SUBSETS])
def test_biases_left_out_of_some_projections_are_named_by_projection(names, case):
    out, w = _without(names, CASES[case])
    for weights in (w, None):
        said = diagnose.mha(out, weights, **MHA_SETUP, **CASES[case])
        assert said is not None and diagnose.FAULTS["bias_partly_dropped"]["en"] in said["en"], said
        assert f"the output matches {' and '.join(names)} applied without" in said["en"]
        assert f"输出与 {'、'.join(names)} 不加偏置" in said["zh"]
        assert english_in_zh(said["zh"], ZH_CODE) == [], said["zh"]
        assert "k_proj" not in said["en"] + said["zh"]       # its bias cannot show: nothing is said of it


@pytest.mark.parametrize("case", sorted(CASES))
def test_k_proj_bias_alone_and_correct_numbers_are_never_named(case):
    for names in ((), ("k_proj",)):       # the softmax cancels k_proj's bias: the numbers are right
        out, w = _without(names, CASES[case])
        assert diagnose.mha(out, w, **MHA_SETUP, **CASES[case]) is None
    out, w = _without(("q_proj", "k_proj", "v_proj", "out_proj"), CASES[case])
    assert diagnose.mha(out, w, **MHA_SETUP, **CASES[case]) == diagnose.FAULTS["bias_dropped"]


def test_a_bias_left_out_is_not_named_from_numbers_that_are_only_near_it():
    out, w = _without(("v_proj",), CASES["self"])
    assert diagnose.mha(out + 1e-3, w, **MHA_SETUP, **CASES["self"]) is None


# ----------------------------------------------------------------------------- 3. new faulty files, pinned
# file -> tests whose feedback must say (en, zh) -> what; None: the file's failing tests must not say `ABSENT`
VIEW = "a transpose or permute only changes the order in which the same memory is read"
VIEW_ZH = "transpose() / permute() 只改变读取同一块内存的顺序"
PINNED = {
    # round 18's and 19's files: PyTorch's words alone before this round
    "merge_view_non_contiguous": ("line 54 calls .view(...) on the result of .transpose(1, 2)",
                                  "第 54 行直接对 .transpose(1, 2) 的结果调用 .view(...)"),
    "split_view_after_transpose": ("line 40 calls .view(...) on the result of .transpose(0, 1)",
                                   "第 40 行直接对 .transpose(0, 1) 的结果调用 .view(...)"),
    "merge_view_after_transpose_line": ("line 55 calls .view(...) on out, which line 54 made with .transpose(1, 2)",
                                        "第 55 行调用 out.view(...)，而 out 由第 54 行的 .transpose(1, 2) 得到"),
    "merge_helper_permute_view": ("line 45 calls .view(...) on t, which line 44 made with .permute(0, 2, 1, 3)",
                                  "第 45 行调用 t.view(...)，而 t 由第 44 行的 .permute(0, 2, 1, 3) 得到"),
    "out_proj_bias_forgotten": ("the output matches out_proj applied without its bias",
                                "输出与 out_proj 不加偏置（x @ weight.T）、q_proj、v_proj 加偏置的结果一致"),
    # k_proj's bias left out too: it cannot show (the softmax cancels it), so it is not said either way
    "qkv_matmul_weights_only": ("the output matches q_proj and v_proj applied without their biases (x @ weight.T) "
                                "and out_proj with its bias",
                                "输出与 q_proj、v_proj 不加偏置（x @ weight.T）、out_proj 加偏置的结果一致"),
    "v_proj_bias_forgotten": ("the output matches v_proj applied without its bias",
                              "输出与 v_proj 不加偏置（x @ weight.T）、q_proj、out_proj 加偏置的结果一致"),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_round20_faulty_file_gets_the_pinned_feedback_in_both_languages(executor, name):
    failed = _failed(graded_corpus_file(executor, FAULTY / f"{name}.py"))
    en, zh = PINNED[name]
    assert len(failed) >= 6, failed
    for tid, fb in failed.items():
        assert says(en, fb["en"]) and zh in fb["zh"], (tid, fb)
        assert english_in_zh(fb["zh"], ZH_CODE | {"head_dim", "b", "q", "d"}) == [], fb["zh"]
        if "view" in name:
            assert ".reshape(...) on line" in fb["en"] and VIEW_ZH in fb["zh"]


def test_a_view_in_a_helper_names_the_transpose_its_one_caller_passes(executor):
    """merge_helper_given_transposed.py: the view (line 43) reads the helper's parameter; line 58 is its one call."""
    failed = _failed(graded_corpus_file(executor, FAULTY / "merge_helper_given_transposed.py"))
    assert len(failed) >= 6
    for tid, fb in failed.items():
        assert says("line 43 calls .view(...) on t, which line 58 passes in as the result of .transpose(1, 2)", fb["en"])
        assert "第 43 行调用 t.view(...)，而 t 是第 58 行传入的 .transpose(1, 2) 的结果" in fb["zh"], (tid, fb)
        assert english_in_zh(fb["zh"], ZH_CODE) == [], fb["zh"]
