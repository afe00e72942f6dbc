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


# ----------------------------------------------------------------------------- heads split or merged heads last
SPLIT = "return t.view(t.size(0), -1, self.h, self.d_k).transpose(1, 2)"
MERGE = "merged = out.transpose(1, 2).reshape(B, -1, self.h * self.d_k)"


def _with(old: str, new: str) -> str:
    source = probe()
    assert old in source
    return source.replace(old, new)


SPLITS_HEADS_LAST = {   # the split as written, the code quoted
    "view": ("t.view(t.size(0), -1, self.d_k, self.h).permute(0, 3, 1, 2)", "t.view(t.size(0), -1, self.d_k, self.h)"),
    "reshape_tuple": ("t.reshape((t.size(0), -1, self.d_k, self.h)).permute(0, 3, 1, 2)",
                      "t.reshape((t.size(0), -1, self.d_k, self.h))"),
    "unflatten": ("t.unflatten(-1, (self.d_k, self.h)).permute(0, 3, 1, 2)", "t.unflatten(-1, (self.d_k, self.h))"),
    "rearrange": ("rearrange(t, 'b n (d h) -> b h n d', h=self.h)", "rearrange(t, 'b n (d h) -> b h n d', h=self.h)"),
    "local_heads": ("H, D = self.h, self.d_k\n        t = t.view(t.size(0), -1, D, H).permute(0, 3, 1, 2)\n        return t",
                    "t.view(t.size(0), -1, D, H)"),
}
MERGES_HEADS_LAST = {   # the merge as written, the code quoted (shortened past 60 characters)
    "permute": ("out.permute(0, 2, 3, 1).reshape(B, -1, self.h * self.d_k)",) * 2,
    "permute_contiguous_view": ("out.permute(0, 2, 3, 1).contiguous().view(B, -1, self.h * self.d_k)",
                                "out.permute(0, 2, 3, 1).contiguous().view(...)"),
    "transpose_twice": ("out.transpose(1, 2).transpose(2, 3).reshape(B, -1, self.h * self.d_k)",
                        "out.transpose(1, 2).transpose(2, 3).reshape(...)"),
    "stack_unbind": ("torch.stack(out.unbind(1), dim=-1).flatten(2)", "torch.stack(out.unbind(1), dim=-1)"),
    "rearrange": ("rearrange(out, 'b h n d -> b n (d h)')",) * 2,
}


@pytest.mark.parametrize("case", SPLITS_HEADS_LAST)
def test_a_split_with_the_heads_last_is_quoted(case):
    written, quoted = SPLITS_HEADS_LAST[case]
    source = _with(SPLIT, written if case == "local_heads" else f"return {written}")
    line = line_of(source, quoted)
    said = source_lines.split_dim_first_note(source, CLS)
    assert said == {"en": f"line {line} splits the features as (head_dim, heads), the heads last: {quoted}",
                    "zh": f"第 {line} 行按先 `head_dim` 后 head 的顺序拆分特征：{quoted}"}, said
    assert quoted_lines(said["en"]) == [(line, None, quoted)]
    assert english_in_zh(said["zh"], code_names(source)) == []
    assert source_lines.merge_dim_first_note(source, CLS) is None


@pytest.mark.parametrize("case", MERGES_HEADS_LAST)
def test_a_merge_with_the_heads_last_is_quoted(case):
    written, code = MERGES_HEADS_LAST[case]
    source = _with(MERGE, f"merged = {written}")
    line = line_of(source, "merged = ")
    said = source_lines.merge_dim_first_note(source, CLS)
    assert said == {"en": f"line {line} merges the heads last, after head_dim: {code}",
                    "zh": f"第 {line} 行合并时把 head 放在 `head_dim` 之后：{code}"}, said
    assert [q[:2] for q in quoted_lines(said["en"])] == [(line, None)]
    assert _shown(code, source.splitlines()[line - 1])
    assert source_lines.split_dim_first_note(source, CLS) is None


def test_the_same_split_on_three_lines_quotes_the_first_and_names_the_others():
    source = _with(SPLIT, "return t").replace(
        "q = self.split_heads(self.q_proj(x))",
        "q = rearrange(self.q_proj(x), 'b n (d h) -> b h n d', h=self.h)").replace(
        "k = self.split_heads(self.k_proj(memory))",
        "k = rearrange(self.k_proj(memory), 'b n (d h) -> b h n d', h=self.h)").replace(
        "v = self.split_heads(self.v_proj(memory))",
        "v = rearrange(self.v_proj(memory), 'b n (d h) -> b h n d', h=self.h)")
    first = line_of(source, "q = rearrange(")
    said = source_lines.split_dim_first_note(source, CLS)
    assert said["en"] == (f"line {first} splits the features as (head_dim, heads), the heads last (so do lines "
                          f"{first + 1}, {first + 2}): rearrange(self.q_proj(x), 'b n (d h) -> b h n d', h=self.h)")
    assert said["zh"].startswith(f"第 {first} 行按先 `head_dim` 后 head 的顺序拆分特征（第 {first + 1}、"
                                 f"{first + 2} 行也是如此）：")
    assert quoted_lines(said["en"]) == [(first, None, "rearrange(self.q_proj(x), 'b n (d h) -> b h n d', h=self.h)")]


RIGHT_LAYOUTS = {   # a correct split or merge, or another tensor's layout: never quoted
    "split_view": (SPLIT, SPLIT),
    "split_rearrange": (SPLIT, "return rearrange(t, 'b n (h d) -> b h n d', h=self.h)"),
    "split_unflatten": (SPLIT, "return t.unflatten(-1, (self.h, self.d_k)).transpose(1, 2)"),
    "split_chunk_stack": (SPLIT, "return torch.stack(t.chunk(self.h, dim=-1), dim=1)"),
    # [B, 1, 1, M]: a size read last is no heads' number
    "mask_layout": ("pad = pad[:, None, None, :]", "pad = pad.view(pad.size(0), 1, 1, pad.size(1))"),
    "heads_folded_back": (SPLIT, "return rearrange(rearrange(t, 'b n (h d) -> (b h) n d', h=self.h), "
                                 "'(b h) n d -> b h n d', h=self.h)"),
    "merge_cat_unbind": (MERGE, "merged = torch.cat(out.unbind(1), dim=-1)"),
    "merge_rearrange": (MERGE, "merged = rearrange(out, 'b h n d -> b n (h d)')"),
    "merge_permute": (MERGE, "merged = out.permute(0, 2, 1, 3).reshape(B, -1, self.h * self.d_k)"),
    "keys_permuted_not_merged": ("mask = None", "kt = k.permute(0, 2, 3, 1)\n        mask = None"),
}


@pytest.mark.parametrize("case", RIGHT_LAYOUTS)
def test_a_right_split_or_merge_or_another_layout_quotes_no_line(case):
    source = _with(*RIGHT_LAYOUTS[case])
    assert source_lines.split_dim_first_note(source, CLS) is None
    assert source_lines.merge_dim_first_note(source, CLS) is None


def test_a_split_by_a_size_named_for_something_else_is_not_the_heads():
    # the class's head count is self.h; a view ending in self.d_k is a right split of some other layout
    source = _with(SPLIT, "return t.view(t.size(0), -1, self.h, self.d_k).transpose(1, 2)")
    assert source_lines.split_dim_first_note(source.replace("self.h = num_heads", "self.h = head_dim or 4"),
                                             CLS) is None


MERGE_FAULTY = SUBMISSIONS / "faulty" / "r40d_merge_permute_0231_contiguous_view.py"
MERGE_TWIN = SUBMISSIONS / "correct" / "r40d_merge_permute_0213_contiguous_view.py"


@pytest.mark.slow
def test_a_merge_heads_last_corpus_file_quotes_its_line_and_its_correct_twin_keeps_full_marks(executor):
    faulty = graded_corpus_file(executor, MERGE_FAULTY)
    said = [t["feedback"] for t in faulty["tests"] if t["feedback"]]
    line = line_of(MERGE_FAULTY.read_text(encoding="utf-8"), "merged = out.permute(0, 2, 3, 1)")
    quote = f"line {line} merges the heads last, after head_dim: out.permute(0, 2, 3, 1).contiguous().view(...)"
    assert any(quote in s["en"] for s in said), said
    assert any(f"第 {line} 行合并时把 head 放在 `head_dim` 之后：" in s["zh"] for s in said), said
    twin = graded_corpus_file(executor, MERGE_TWIN)
    assert twin["total"] == twin["max_total"] - twin["categories"]["audit"]["max"], twin["categories"]
    assert all(t["outcome"] == "passed" and not t["feedback"] for t in twin["tests"]), twin["tests"]
