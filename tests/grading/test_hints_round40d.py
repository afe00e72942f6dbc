"""Round 40, brief D: the weights' mean over the heads written in two statements is quoted.

Round 39 quoted ``attn.sum(1) / h`` on one line; ``w = attn.sum(1)`` followed by ``w = w / h`` (``w /= h``,
``w.div_(h)``, ``torch.div(w, h)``, through an alias ``m = w``, or ``matmul(w / h, v)``) quoted nothing. The
division is quoted only when it is the next statement of the block that reads the sum, divides it by the number
of heads (an attribute set to num_heads, the heads' axis size of the weights, a name bound once to either,
``H, D = self.num_heads, self.head_dim`` included) and its result is read by code that counts.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import source_lines
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, graded_corpus_file
from tests.grading.probes_round38 import line_of, probe
from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines

CLS = "MultiHeadAttention"
FAULTY = SUBMISSIONS / "faulty" / "r40d_heads_mean_sum_then_inplace_div.py"
TWIN = SUBMISSIONS / "correct" / "r40d_heads_mean_two_step_logged.py"

SUM = "w = attn.sum(1, keepdim=True)"
TWO_STEP = {   # post code, the division's code as quoted
    "assigned": (f"{SUM}\nw = w / self.h\nout = torch.matmul(w, v)", "w / self.h"),
    "augmented": (f"{SUM}\nw /= self.h\nout = torch.matmul(w, v)", "w /= self.h"),
    "in_place_div_": (f"{SUM}\nw.div_(self.h)\nout = torch.matmul(w, v)", "w.div_(self.h)"),
    "torch_div": (f"{SUM}\nw = torch.div(w, self.h)\nout = torch.matmul(w, v)", "torch.div(w, self.h)"),
    "method_div": (f"{SUM}\nw = w.div(self.h)\nout = torch.matmul(w, v)", "w.div(self.h)"),
    "through_alias": (f"{SUM}\nm = w\nm = m / self.h\nout = torch.matmul(m, v)", "m / self.h"),
    "local_heads": (f"h = self.h\n{SUM}\nw = w / h\nout = torch.matmul(w, v)", "w / h"),
    "inside_the_product": (f"{SUM}\nout = torch.matmul(w / attn.size(1), v)", "w / attn.size(1)"),
    "unpacked_shape": (f"_, H, _, _ = attn.shape\n{SUM}\nw = w.div(H)\nout = torch.matmul(w, v)", "w.div(H)"),
    "unpacked_pair": (f"H, D = self.h, self.d_k\n{SUM}\nw /= H\nout = torch.matmul(w, v)", "w /= H"),
}


@pytest.mark.parametrize("case", TWO_STEP)
def test_a_sum_over_the_heads_then_divided_by_their_number_quotes_both_lines(case):
    post, step = TWO_STEP[case]
    source = probe(post=post)
    said = source_lines.head_mean_note(source, CLS)
    total, divided = line_of(source, SUM), line_of(source, step)
    assert said is not None, case
    assert said["en"] == (f"line {total} sums over dim 1, the heads of [B, H, Nq, Nk] (attn.sum(1, keepdim=True)), "
                          f"and line {divided} divides that by their number ({step})"), said
    assert said["zh"] == (f"第 {total} 行沿 dim 1（即 [B, H, Nq, Nk] 中的 head 轴）求和（attn.sum(1, keepdim=True)），"
                          f"第 {divided} 行再除以 head 数（{step}），即对各 head 取平均"), said
    assert english_in_zh(said["zh"], code_names(source)) == []
    assert quoted_lines(said["en"]) == [(total, None, "attn.sum(1, keepdim=True)"), (divided, None, step)]


NOT_A_MEAN = {
    "divided_by_the_head_size": f"{SUM}\nw = w / self.d_k\nout = torch.matmul(w, v)",
    # once the sum dropped the heads, w's axis 1 is the queries'
    "divided_by_its_own_axis_1": "w = attn.sum(1)\nw = w / w.size(1)\nout = torch.matmul(w.unsqueeze(1), v)",
    "result_never_read": f"{SUM}\nw = w / self.h\nout = torch.matmul(attn, v)",
    "in_place_never_read": f"{SUM}\nw.div_(self.h)\nout = torch.matmul(attn, v)",
    "only_logged": f"{SUM}\nw /= self.h\nself.last_mean = w.detach()\nout = torch.matmul(attn, v)",
    "changed_in_between": f"{SUM}\nw = w * 2\nw = w / self.h\nout = torch.matmul(w, v)",
    "sum_of_the_queries": "w = q.sum(1, keepdim=True)\nw = w / self.h\nq = q + 0 * w",
    "sum_over_another_axis": "w = attn.sum(-1, keepdim=True)\nw = w / self.h\nout = torch.matmul(attn / w, v)",
    "rounded_division": f"{SUM}\nw = torch.div(w, self.h, rounding_mode='floor')\nout = torch.matmul(w, v)",
}


@pytest.mark.parametrize("case", NOT_A_MEAN)
def test_a_two_step_sum_that_is_no_used_mean_over_the_heads_quotes_nothing(case):
    assert source_lines.head_mean_note(probe(post=NOT_A_MEAN[case]), CLS) is None


def test_a_one_line_sum_divided_by_a_heads_count_unpacked_from_a_pair_is_quoted_too():
    source = probe(post="H, D = self.h, self.d_k\nout = torch.matmul(attn.sum(1, keepdim=True) / H, v)")
    said = source_lines.head_mean_note(source, CLS)
    assert said is not None and said["en"].endswith("averages over dim 1, the heads of [B, H, Nq, Nk]: "
                                                     "attn.sum(1, keepdim=True) / H"), said
    other = probe(post="H, D = self.d_k, self.h\nout = torch.matmul(attn.sum(1, keepdim=True) / H, v)")
    assert source_lines.head_mean_note(other, CLS) is None


@pytest.mark.slow
def test_the_two_step_mean_corpus_file_is_quoted_and_its_correct_twin_keeps_full_marks(executor):
    faulty = graded_corpus_file(executor, FAULTY)
    said = [t["feedback"]["en"] for t in faulty["tests"] if t["feedback"]]
    quote = ("line 47 sums over dim 1, the heads of [B, H, Nq, Nk] (attn.sum(dim=1)), and line 48 divides that by "
             "their number (attn /= H)")
    assert any(quote in s for s in said), said
    lines = FAULTY.read_text(encoding="utf-8").splitlines()
    assert all(_shown(code, lines[n - 1]) for s in said for n, _o, code in quoted_lines(s))
    twin = graded_corpus_file(executor, TWIN)
    assert twin["total"] == twin["max_total"] - twin["categories"]["audit"]["max"], twin["categories"]
    assert all(t["outcome"] == "passed" and not t["feedback"] for t in twin["tests"]), twin["tests"]
