"""Round 40 mend of brief D (review RD): a multi-head hint quotes a line only when the code was checked.

HIGH 1/3: ``attn.sum(1) / x.size(1)`` divides by the tokens' number (x is [B, N, D]), so it is no mean over the
heads, in one statement or two; a size read counts only off the tensor summed. HIGH 2: a per-head bias table laid
out ``view(1, Nq, Nk, H)`` is no split of the features: a split's third size is head_dim by name (or -1). MED 4:
merges with the heads last written as ``torch.permute``, a list, a negative dim, ``movedim(1, -1)`` or on the
statement before the reshape are quoted. MED 6: only the attention's output is merged (an image's channels moved
last, the keys laid out, are not). MED 7: split_merge_dim_first quotes the half it reads. LOW 9-10.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader_tests.attention import diagnose, source_lines
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, graded_corpus_file
from tests.grading.probes_round38 import line_of, probe
from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines

CLS = "MultiHeadAttention"
SUM = "w = attn.sum(1, keepdim=True)"
SPLIT = "return t.view(t.size(0), -1, self.h, self.d_k).transpose(1, 2)"
MERGE = "merged = out.transpose(1, 2).reshape(B, -1, self.h * self.d_k)"


def _with(old: str, new: str, source: str | None = None) -> str:
    source = source or probe()
    assert old in source
    return source.replace(old, new)


# ------------------------------------------------------------------ HIGH 1, 3: a size read off another tensor
NOT_THE_HEADS = {
    "one_line_x_size": "out = torch.matmul(attn.sum(1, keepdim=True) / x.size(1), v)",
    "one_line_x_shape": "out = torch.matmul(attn.sum(1, keepdim=True) / x.shape[1], v)",
    "one_line_memory_size": "out = torch.matmul(attn.sum(1, keepdim=True) / memory.size(1), v)",
    "two_step_x_size": f"{SUM}\nw = w / x.size(1)\nout = torch.matmul(w, v)",
    "two_step_memory_shape": f"{SUM}\nw /= memory.shape[1]\nout = torch.matmul(w, v)",
}


@pytest.mark.parametrize("case", NOT_THE_HEADS)
def test_a_sum_over_dim_1_divided_by_a_size_of_another_tensor_is_no_mean_over_the_heads(case):
    assert source_lines.head_mean_note(probe(post=NOT_THE_HEADS[case]), CLS) is None


def test_the_size_of_the_weights_own_heads_axis_still_counts():
    source = probe(post="out = torch.matmul(attn.sum(1, keepdim=True) / attn.size(1), v)")
    said = source_lines.head_mean_note(source, CLS)
    assert said is not None and said["en"].endswith(": attn.sum(1, keepdim=True) / attn.size(1)"), said


def test_a_statistic_over_the_tokens_no_longer_hides_the_real_two_step_mean():
    post = (f"scale = attn.sum(1, keepdim=True) / x.size(1)\n{SUM}\nw = w / self.h\n"
            "out = torch.matmul(w + 0 * scale, v)")
    source = probe(post=post)
    said = source_lines.head_mean_note(source, CLS)
    assert said is not None, said
    assert quoted_lines(said["en"]) == [(line_of(source, SUM), None, "attn.sum(1, keepdim=True)"),
                                        (line_of(source, "w = w / self.h"), None, "w / self.h")]


# ------------------------------------------------------------------ LOW 10: more ways of the two-step mean
def test_an_annotated_sum_then_divided_by_the_heads_is_quoted():
    source = probe(post="w: torch.Tensor = attn.sum(1, keepdim=True)\nw = w / self.h\nout = torch.matmul(w, v)")
    said = source_lines.head_mean_note(source, CLS)
    assert said is not None and "divides that by their number (w / self.h)" in said["en"], said


def test_a_sum_times_one_over_the_heads_is_quoted_and_over_the_tokens_is_not():
    source = probe(post="out = torch.matmul(attn.sum(1, keepdim=True) * (1.0 / self.h), v)")
    said = source_lines.head_mean_note(source, CLS)
    assert said is not None and said["en"].endswith(": attn.sum(1, keepdim=True) * (1.0 / self.h)"), said
    other = probe(post="out = torch.matmul(attn.sum(1, keepdim=True) * (1.0 / x.size(1)), v)")
    assert source_lines.head_mean_note(other, CLS) is None


def test_a_division_in_a_loop_is_no_step_of_a_mean():
    post = f"{SUM}\nfor _ in range(2):\n    w = w / self.h\nout = torch.matmul(w, v)"
    assert source_lines.head_mean_note(probe(post=post), CLS) is None


# ------------------------------------------------------------------ HIGH 2: a per-head bias table is no split
BIAS = "bias = self.rel_bias.view(1, x.size(1), memory.size(1), self.h).permute(0, 3, 1, 2)"


def test_a_per_head_bias_table_laid_out_heads_last_is_no_split():
    source = probe(pre=BIAS, post="attn = attn + 0 * bias")
    assert source_lines.split_dim_first_note(source, CLS) is None


@pytest.mark.parametrize("split", ["t.view(t.size(0), t.size(1), self.d_k, -1)",
                                   "t.view(t.size(0), t.size(1), self.d_k, self.h)",
                                   "t.view(t.size(0), t.size(1), t.size(2) // self.h, self.h)"])
def test_the_real_split_heads_last_is_quoted_beside_a_bias_table(split):
    source = _with(SPLIT, f"return {split}.permute(0, 3, 1, 2)", probe(pre=BIAS, post="attn = attn + 0 * bias"))
    said = source_lines.split_dim_first_note(source, CLS)
    line = line_of(source, split)
    assert said == {"en": f"line {line} splits the features as (head_dim, heads), the heads last: {split}",
                    "zh": f"第 {line} 行按先 `head_dim` 后 head 的顺序拆分特征：{split}"}, said
    assert english_in_zh(said["zh"], code_names(source)) == []


def test_a_heads_count_named_h_in_init_counts():
    source = _with(SPLIT, "return t.view(t.size(0), -1, self.d_k, self.h).permute(0, 3, 1, 2)")
    source = source.replace("def __init__(self, d_model, num_heads, head_dim=None)",
                            "def __init__(self, d_model, h, head_dim=None)").replace(
        "self.h = num_heads", "self.h = h").replace("d_model // num_heads", "d_model // h")
    said = source_lines.split_dim_first_note(source, CLS)
    assert said is not None and said["en"].endswith(": t.view(t.size(0), -1, self.d_k, self.h)"), said


# ------------------------------------------------------------------ MED 4, 6: merges with the heads last
MERGES = {   # written, quoted
    "torch_permute": ("merged = torch.permute(out, (0, 2, 3, 1)).reshape(B, -1, self.h * self.d_k)",
                      "torch.permute(out, (0, 2, 3, 1)).reshape(...)"),
    "permute_list": ("merged = out.permute([0, 2, 3, 1]).reshape(B, -1, self.h * self.d_k)",
                     "out.permute([0, 2, 3, 1]).reshape(B, -1, self.h * self.d_k)"),
    "permute_negative": ("merged = out.permute(0, 2, -1, 1).reshape(B, -1, self.h * self.d_k)",
                         "out.permute(0, 2, -1, 1).reshape(B, -1, self.h * self.d_k)"),
    "movedim": ("merged = out.movedim(1, -1).reshape(B, -1, self.h * self.d_k)",
                "out.movedim(1, -1).reshape(B, -1, self.h * self.d_k)"),
    "two_statements": ("merged = out.permute(0, 2, 3, 1).contiguous()\n        merged = merged.view(B, -1, "
                       "self.h * self.d_k)", "out.permute(0, 2, 3, 1).contiguous()"),
    "inline_product": ("merged = torch.matmul(attn, v).permute(0, 2, 3, 1).reshape(B, -1, self.h * self.d_k)",
                       "torch.matmul(attn, v).permute(0, 2, 3, 1).reshape(...)"),
}


@pytest.mark.parametrize("case", MERGES)
def test_a_merge_with_the_heads_last_written_another_way_is_quoted(case):
    written, quoted = MERGES[case]
    source = _with(MERGE, written)
    line = line_of(source, written.splitlines()[0])
    said = source_lines.merge_dim_first_note(source, CLS)
    assert said == {"en": f"line {line} merges the heads last, after head_dim: {quoted}",
                    "zh": f"第 {line} 行合并时把 head 放在 `head_dim` 之后：{quoted}"}, said


NOT_A_MERGE = {
    "keys_laid_out": ("mask = None", "kt = k.permute(0, 2, 3, 1).reshape(B, -1, self.h * self.d_k)\n"
                                     "        mask = None"),
    "image_tokens": ("memory = x if context is None else context",
                     "memory = x if context is None else context\n        if x.dim() == 4:\n"
                     "            x = x.permute(0, 2, 3, 1).reshape(x.size(0), -1, x.size(1))"),
    "right_two_statements": (MERGE, "merged = out.permute(0, 2, 1, 3).contiguous()\n"
                                    "        merged = merged.view(B, -1, self.h * self.d_k)"),
    "right_permute_list": (MERGE, "merged = out.permute([0, 2, 1, 3]).reshape(B, -1, self.h * self.d_k)"),
}


@pytest.mark.parametrize("case", NOT_A_MERGE)
def test_a_reshape_of_another_tensor_or_a_right_merge_quotes_no_line(case):
    source = _with(*NOT_A_MERGE[case])
    assert source_lines.merge_dim_first_note(source, CLS) is None
    assert source_lines.split_dim_first_note(source, CLS) is None


def test_a_helper_merges_heads_last_only_what_the_attention_gives_it():
    helper = ("    def to_tokens(self, t):\n        return t.permute(0, 2, 3, 1).reshape(t.size(0), -1, t.size(1))\n\n"
              "    def forward(")
    used_on_input = _with("    def forward(", helper).replace(
        "memory = x if context is None else context",
        "x = self.to_tokens(x) if x.dim() == 4 else x\n        memory = x if context is None else context")
    assert source_lines.merge_dim_first_note(used_on_input, CLS) is None
    used_on_output = _with(MERGE, "merged = self.to_tokens(out)", _with("    def forward(", helper))
    said = source_lines.merge_dim_first_note(used_on_output, CLS)
    assert said is not None and said["en"].endswith("t.permute(0, 2, 3, 1).reshape(t.size(0), -1, t.size(1))"), said


def test_the_cpmant_two_statement_merge_corpus_file_is_quoted():
    path = SUBMISSIONS / "faulty" / "r36_cpmant_merge_head_dim_first.py"
    source = path.read_text(encoding="utf-8")
    said = source_lines.merge_dim_first_note(source, CLS)
    line = line_of(source, "score_v = score_v.view(batch_size, self.num_heads, len_q, self.dim_head).permute(")
    assert said is not None and said["en"].startswith(f"line {line} merges the heads last, after head_dim: "), said


# ------------------------------------------------------------------ MED 7: the half that is read
def test_split_and_merge_heads_last_quotes_the_split_when_the_merge_is_not_read():
    source = _with(SPLIT, "return t.view(t.size(0), -1, self.d_k, self.h).permute(0, 3, 1, 2)")
    source = _with(MERGE, "merged = out.permute(0, 2, 3, 1)\n        merged = merged * 1\n"
                          "        merged = merged.reshape(B, -1, self.h * self.d_k)", source)
    said = source_lines.split_merge_dim_first_note(source, CLS)
    assert said == source_lines.split_dim_first_note(source, CLS) and said is not None, said
    assert source_lines.merge_dim_first_note(source, CLS) is None


def test_the_review_probe_files_quote_the_right_line_or_none():
    probes = Path(__file__).parent.parent / "fixtures" / "submissions" / "faulty"
    source = (probes / "r40d_heads_mean_sum_then_inplace_div.py").read_text(encoding="utf-8")
    tokens = source.replace("attn = attn.sum(dim=1)\n", "attn = attn.sum(dim=1) / x.size(1)\n").replace(
        "        attn /= H\n", "")
    assert tokens != source
    assert source_lines.head_mean_note(tokens, CLS) is None


def test_a_heads_count_bound_in_a_nested_unpacking_counts_for_nothing_and_breaks_nothing():
    post = "a, (H, D) = 0, (self.h, self.d_k)\nout = torch.matmul(attn.sum(1, keepdim=True) / H, v)"
    assert source_lines.head_mean_note(probe(post=post), CLS) is None
    split = _with(SPLIT, "a, (H, D) = 0, (self.h, self.d_k)\n        return t.view(t.size(0), -1, D, H).permute(0, 3, 1, 2)")
    assert source_lines.split_dim_first_note(split, CLS) is None


# ------------------------------------------------------------------ MED 5: heads merged without a transpose
UNMOVED = {   # the merge as written, quoted (shortened past 60 characters)
    "reshape": ("merged = out.reshape(B, -1, self.h * self.d_k)", "out.reshape(B, -1, self.h * self.d_k)"),
    "contiguous_view": ("merged = out.contiguous().view(B, x.size(1), -1)", "out.contiguous().view(B, x.size(1), -1)"),
    "cat_unbind_positions": ("merged = torch.cat(out.unbind(1), dim=1).reshape(B, -1, self.h * self.d_k)",
                             "torch.cat(out.unbind(1), dim=1)"),
}


@pytest.mark.parametrize("case", UNMOVED)
def test_heads_merged_without_moving_them_after_the_positions_are_quoted(case):
    written, quoted = UNMOVED[case]
    source = _with(MERGE, written)
    line = line_of(source, written)
    said = source_lines.merge_no_transpose_note(source, CLS)
    assert said is not None and said["en"].startswith(f"line {line} ") and said["en"].endswith(f": {quoted}"), said
    assert said["zh"].startswith(f"第 {line} 行") and said["zh"].endswith(f"：{quoted}"), said
    assert english_in_zh(said["zh"], code_names(source)) == []


MOVED_OR_NO_MERGE = {
    "right_merge": (MERGE, MERGE),
    "transposed_the_statement_before": (MERGE, "out = out.transpose(1, 2)\n        merged = out.reshape(B, -1, "
                                               "self.h * self.d_k)"),
    "transposed_in_place": (MERGE, "out.transpose_(1, 2)\n        merged = out.reshape(B, -1, self.h * self.d_k)"),
    "heads_folded_into_the_batch": (MERGE, "folded = out.reshape(B * self.h, -1, self.d_k)\n        " + MERGE),
    "heads_kept": (MERGE, "kept = out.reshape(B, self.h, -1)\n        " + MERGE),
    "input_reshaped": ("memory = x if context is None else context",
                       "x = x.reshape(x.size(0), x.size(1), -1)\n        memory = x if context is None else context"),
}


@pytest.mark.parametrize("case", MOVED_OR_NO_MERGE)
def test_a_merge_after_the_heads_were_moved_or_another_reshape_quotes_no_line(case):
    assert source_lines.merge_no_transpose_note(_with(*MOVED_OR_NO_MERGE[case]), CLS) is None


NO_TRANSPOSE_FILES = ["merge_without_transpose", "mha_merge_view_no_transpose", "r31_mha_merge_view_no_transpose",
                      "r33_mha_torch_split_merge_reshape_no_transpose", "r34_merge_cat_unbind_seq",
                      "r34_merge_contiguous_view_no_transpose", "r35_minimind_merge_without_transpose",
                      "r36_botnet_heads_concatenated_on_tokens", "r36_vllm_merge_without_transpose",
                      "r39_gemma_merge_without_transpose"]


@pytest.mark.slow
def test_a_merge_no_transpose_corpus_file_graded_quotes_its_merge_in_both_languages(executor):
    path = SUBMISSIONS / "faulty" / "r36_vllm_merge_without_transpose.py"
    line = line_of(path.read_text(encoding="utf-8"), "out = self.out_proj(out.reshape(")
    said = [t["feedback"] for t in graded_corpus_file(executor, path)["tests"] if t["feedback"]]
    assert any(f"line {line} flattens the attention output [B, H, N, head_dim] as it is" in s["en"] for s in said), said
    assert any(f"第 {line} 行把注意力输出 [B, H, N, head_dim] 直接展平" in s["zh"] for s in said), said


# ------------------------------------------------------------------ MED 5: heads concatenated in reverse order
REVERSED = {   # the merge as written, the code quoted
    "cat_reversed_range": ("merged = torch.cat([out[:, j] for j in reversed(range(4))], -1)",
                           "torch.cat([out[:, j] for j in reversed(range(4))], -1)"),
    "cat_range_backwards": ("merged = torch.cat([out[:, i] for i in range(self.h - 1, -1, -1)], dim=-1)",
                            "torch.cat(...)"),     # past 60 characters, shortened
    "flip_heads": ("merged = out.flip(1).transpose(1, 2).reshape(B, -1, self.h * self.d_k)", "out.flip(1)"),
    "flip_after_transpose": ("merged = out.transpose(1, 2).flip(2).reshape(B, -1, self.h * self.d_k)",
                             "out.transpose(1, 2).flip(2)"),
}


@pytest.mark.parametrize("case", REVERSED)
def test_heads_put_in_reverse_order_are_quoted(case):
    written, quoted = REVERSED[case]
    source = _with(MERGE, written)
    line = line_of(source, written)
    said = source_lines.merge_heads_reversed_note(source, CLS)
    assert said == {"en": f"line {line} puts the heads of the attention output in reverse order, head H-1 first: "
                          f"{quoted}",
                    "zh": f"第 {line} 行把注意力输出的各个 head 倒序排列，head H-1 在最前：`{quoted}`"}, said
    assert quoted_lines(said["en"]) == [(line, None, quoted)]
    assert english_in_zh(said["zh"], code_names(source)) == []     # the code in a span: its for, in are code


NOT_REVERSED = {
    "cat_in_order": (MERGE, "merged = torch.cat([out[:, h] for h in range(self.h)], dim=-1)"),
    "flip_of_the_positions": (MERGE, "merged = out.flip(2).transpose(1, 2).reshape(B, -1, self.h * self.d_k)"),
    "flip_of_the_input": ("memory = x if context is None else context",
                          "x = x.flip(1)\n        memory = x if context is None else context"),
    "cat_reversed_of_the_keys": ("mask = None", "kk = torch.cat([k[:, h] for h in reversed(range(self.h))], -1)\n"
                                                "        mask = None"),
}


@pytest.mark.parametrize("case", NOT_REVERSED)
def test_an_order_kept_or_another_tensor_reversed_quotes_no_line(case):
    assert source_lines.merge_heads_reversed_note(_with(*NOT_REVERSED[case]), CLS) is None


REVERSED_FILES = ["mha_heads_concat_reversed", "r31_mha_heads_reversed_cat", "r34_merge_heads_flipped",
                  "r36_maxvit_heads_reversed", "r39mh_heads_cat_reversed"]
NOTES = {"merge_no_transpose": source_lines.merge_no_transpose_note,
         "merge_heads_reversed": source_lines.merge_heads_reversed_note}


@pytest.mark.parametrize(("key", "name"), [("merge_no_transpose", n) for n in NO_TRANSPOSE_FILES]
                         + [("merge_heads_reversed", n) for n in REVERSED_FILES])
def test_the_corpus_files_of_the_new_notes_quote_their_merge(key, name):
    source = (SUBMISSIONS / "faulty" / f"{name}.py").read_text(encoding="utf-8")
    assert f"# diagnosis: {key}\n" in source
    said = NOTES[key](source, CLS)
    assert said is not None, name
    (line, _owner, code), = quoted_lines(said["en"])
    assert _shown(code, source.splitlines()[line - 1]), (said, source.splitlines()[line - 1])
    assert diagnose.SOURCE_NOTES[key] is NOTES[key]


@pytest.mark.slow
@pytest.mark.parametrize("key", NOTES)
def test_no_correct_corpus_file_gets_a_quote_of_the_new_notes(key):
    for path in sorted((SUBMISSIONS / "correct").glob("*.py")):
        assert NOTES[key](path.read_text(encoding="utf-8"), CLS) is None, path.name
