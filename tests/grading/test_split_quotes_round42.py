"""Round 42, brief C: the multi-head layouts round 41 did not read quote the student's line, only when checked.

heads_as_sequence: the projection split [B, N, H, head_dim] (view, reshape, unflatten, stack of pieces, einops)
reaches ScaledDotProductAttention with no transpose(1, 2): the split is quoted. The same splits moved before the
kernel (chained, in two statements, in place) quote nothing, nor does any correct corpus file.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import diagnose, source_lines
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, graded_corpus_file
from tests.grading.probes_round38 import line_of, probe
from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines
from tests.grading.test_split_quotes_round41 import CLS, SDPA, SPLIT, _kernel, _with

SEQUENCE_SPLITS = {   # the split as written (in split_heads), heads third and never moved
    "view": "return t.view(t.size(0), -1, self.h, self.d_k)",
    "reshape_tuple": "return t.reshape((t.size(0), t.size(1), self.h, self.d_k))",
    "torch_reshape": "return torch.reshape(t, (t.size(0), -1, self.h, self.d_k))",
    "unflatten": "return t.unflatten(-1, (self.h, self.d_k))",
    "stack_of_chunks": "return torch.stack(t.chunk(self.h, dim=-1), dim=2)",
    "stack_of_splits": "return torch.stack(torch.split(t, self.d_k, -1), 2)",
    "einops": "return rearrange(t, 'b n (h d) -> b n h d', h=self.h)",
    "contiguous_after": "return t.view(t.size(0), -1, self.h, self.d_k).contiguous()",
}


@pytest.mark.parametrize("case", SEQUENCE_SPLITS)
def test_a_split_given_to_the_kernel_heads_third_is_quoted_in_both_languages(case):
    written = SEQUENCE_SPLITS[case]
    source = _with(SPLIT, written)
    line = line_of(source, written)
    said = source_lines.heads_as_sequence_note(source, CLS)
    assert said is not None, case
    (quoted_line, owner, code), = quoted_lines(said["en"])
    assert (quoted_line, owner) == (line, None) and _shown(code, source.splitlines()[line - 1]), said
    assert said["zh"].startswith(f"第 {line} 行把投影结果拆成 [B, N, H, head_dim]") and said["zh"].endswith(f"：{code}")
    assert english_in_zh(said["zh"], code_names(source)) == []


def test_three_splits_in_forward_given_to_the_kernel_are_said_on_one_note():
    source = _with("q = self.split_heads(self.q_proj(x))\n        k = self.split_heads(self.k_proj(memory))\n"
                   "        v = self.split_heads(self.v_proj(memory))",
                   "q = self.q_proj(x).view(B, -1, self.h, self.d_k)\n        kp = self.k_proj(memory)\n"
                   "        k = kp.view(B, -1, self.h, self.d_k)\n"
                   "        v = self.v_proj(memory).view(B, -1, self.h, self.d_k).contiguous()")
    said = source_lines.heads_as_sequence_note(source, CLS)
    lines = [line_of(source, f"{t} = self.{t}_proj(") for t in ("q", "v")] + [line_of(source, "k = kp.view")]
    assert said is not None and said["en"].startswith(f"line {lines[0]} ") \
        and f"(so do lines {lines[2]}, {lines[1]})" in said["en"], said


SPLITS_MOVED = {   # the same layouts, the heads moved before the positions before the kernel: nothing quoted
    "right_split": SPLIT,
    "two_steps": "t = t.view(t.size(0), -1, self.h, self.d_k)\n        return t.transpose(1, 2)",
    "unflatten_then_transpose": "return t.unflatten(-1, (self.h, self.d_k)).transpose(1, 2)",
    "stack_on_dim_1": "return torch.stack(t.chunk(self.h, dim=-1), dim=1)",
    "einops_then_transpose": "return rearrange(t, 'b n (h d) -> b n h d', h=self.h).transpose(1, 2)",
    "einops_heads_first": "return rearrange(t, 'b n (h d) -> b h n d', h=self.h)",
    "permute": "return t.reshape(t.size(0), -1, self.h, self.d_k).permute(0, 2, 1, 3)",
    "moved_in_place": "t = t.view(t.size(0), -1, self.h, self.d_k)\n        t.transpose_(1, 2)\n        return t",
    "positions_third": "return t.view(t.size(0), self.h, -1, self.d_k)",
}


@pytest.mark.parametrize("case", SPLITS_MOVED)
def test_a_split_moved_before_the_kernel_or_heads_second_quotes_no_sequence_line(case):
    assert source_lines.heads_as_sequence_note(_with(SPLIT, SPLITS_MOVED[case]), CLS) is None


def test_a_split_moved_in_forward_before_the_kernel_is_not_quoted():
    source = _with(SPLIT, SEQUENCE_SPLITS["view"])
    moved = _with("out, attn = self.attention(q, k, v,",
                  "q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)\n"
                  "        out, attn = self.attention(q, k, v,", source)
    assert source_lines.heads_as_sequence_note(source, CLS) is not None
    assert source_lines.heads_as_sequence_note(moved, CLS) is None
    rebound = _with("out, attn = self.attention(q, k, v,", "q = q.transpose(1, 2)\n        k = k.transpose(1, 2)\n"
                    "        v = v.transpose(1, 2)\n        out, attn = self.attention(q, k, v,", source)
    assert source_lines.heads_as_sequence_note(rebound, CLS) is None


def test_a_tensor_laid_out_heads_third_that_is_no_kernel_input_is_not_quoted():
    source = _with("mask = None", "mask = None\n        dbg = self.q_proj(x).view(B, -1, self.h, self.d_k)")
    assert source_lines.heads_as_sequence_note(source, CLS) is None


SEQUENCE_FILES = {"r34_split_unflatten_no_transpose_merge_flatten": "return t.unflatten(-1",
                  "r34_split_reshape_bthd_no_permute": "return t.reshape(B, N, self.num_heads",
                  "split_stack_heads_dim2": "return torch.stack(t.split(",
                  "r33_mha_split_unflatten_no_transpose": "return t.unflatten(-1"}


@pytest.mark.parametrize("name", SEQUENCE_FILES)
def test_the_heads_as_sequence_corpus_files_quote_their_split(name):
    source = (SUBMISSIONS / "faulty" / f"{name}.py").read_text(encoding="utf-8")
    assert "heads_as_sequence" in source.splitlines()[1]
    said = diagnose.SOURCE_NOTES["heads_as_sequence"](source, CLS)
    assert said is not None, name
    (line, _owner, code), = quoted_lines(said["en"])
    assert line == line_of(source, SEQUENCE_FILES[name]) and _shown(code, source.splitlines()[line - 1]), said


@pytest.mark.slow
def test_no_correct_corpus_file_gets_a_heads_as_sequence_quote():
    files = sorted((SUBMISSIONS / "correct").rglob("*.py"))
    for path in files:
        source = path.read_text(encoding="utf-8", errors="replace")
        for cls in (CLS, "ScaledDotProductAttention"):
            assert source_lines.heads_as_sequence_lines(source, cls) == [], path.name
    assert len(files) >= 343


def test_the_probe_itself_quotes_nothing():
    assert source_lines.heads_as_sequence_note(probe(), CLS) is None


# ------------------------------------------------------------------ einops folds: the order read off the group
GROUP_ANYWHERE = {   # a fold or unfold whose two-letter group is not the first axis: (code, fold or unfold, order)
    "fold_seq_first_bh": ("fq = rearrange(q, 'b h n d -> n (b h) d').transpose(0, 1)", "fold", "bh"),
    "fold_seq_first_hb": ("fq = rearrange(q, 'b h n d -> n (h b) d').transpose(0, 1)", "fold", "hb"),
    "unfold_seq_first_bh": ("out = rearrange(o.transpose(0, 1), 'n (b h) d -> b h n d', h=H)", "unfold", "bh"),
    "unfold_seq_first_hb": ("out = rearrange(o.transpose(0, 1), 'n (h b) d -> b h n d', h=H)", "unfold", "hb"),
}


@pytest.mark.parametrize("case", GROUP_ANYWHERE)
def test_an_einops_fold_or_unfold_reads_its_order_off_the_group_wherever_it_stands(case):
    code, side, order = GROUP_ANYWHERE[case]
    other = {"bh": "hb", "hb": "bh"}[order]
    fold = code if side == "fold" else f"fq = rearrange(q, 'b h n d -> ({other[0]} {other[1]}) n d')"
    unfold = code if side == "unfold" else f"out = rearrange(o, '({other[0]} {other[1]}) n d -> b h n d', h=H)"
    source = _kernel(fold, unfold)
    folded, unfolded = source_lines.fold_lines(source, SDPA)
    read = folded if side == "fold" else unfolded
    assert {f[3] for f in read} == {order} and line_of(source, code.split(" = ")[0] + " = ") in {f[0] for f in read}
    said = source_lines.fold_note(source, SDPA, f"{folded[0][3]}_{unfolded[0][3]}")
    assert said is not None and [q[0] for q in quoted_lines(said["en"])] \
        == [line_of(source, "fq = "), line_of(source, "out = ")], said
    right = source.replace(f"({other[0]} {other[1]})", f"({order[0]} {order[1]})")
    folded, unfolded = source_lines.fold_lines(right, SDPA)
    assert len({f[3] for f in folded} | {f[3] for f in unfolded}) == 1, (folded, unfolded)


def test_a_group_of_the_heads_with_the_positions_is_no_fold_wherever_it_stands():
    source = _kernel("fq = rearrange(q, 'b h n d -> b (n h) d')", "out = rearrange(o, '(b h) n d -> b h n d', h=H)")
    assert source_lines.fold_lines(source, SDPA)[0] == []


# ------------------------------------------------------------------ reshape folds through a named layout
NAMED_LAYOUTS = {   # (fold of q, k and v alike, unfold): the sizes given through a name
    "tuple_reshape": ("shape = (B * H, Nq, D)\n        fq = q.reshape(shape)", "out = o.view(H, B, Nq, D).transpose(0, 1)",
                      "bh", "hb"),
    "tuple_starred_view": ("shape = (B * H, Nq, D)\n        fq = q.view(*shape)",
                           "back = (H, B, Nq, D)\n        out = o.view(*back).transpose(0, 1)", "bh", "hb"),
    "list_unfold": ("fq = q.transpose(0, 1).reshape(H * B, Nq, D)", "back = [B, H, Nq, D]\n        out = o.view(back)",
                    "hb", "bh"),
}


@pytest.mark.parametrize("case", NAMED_LAYOUTS)
def test_a_fold_or_unfold_given_its_sizes_through_a_name_is_read_and_quoted(case):
    fold, unfold, fold_order, unfold_order = NAMED_LAYOUTS[case]
    source = _kernel(fold, unfold)
    folded, unfolded = source_lines.fold_lines(source, SDPA)
    assert [f[3] for f in folded] == [fold_order] * 3 and [f[3] for f in unfolded] == [unfold_order], (folded, unfolded)
    said = source_lines.fold_note(source, SDPA, f"{fold_order}_{unfold_order}")
    assert said is not None and [q[0] for q in quoted_lines(said["en"])] \
        == [line_of(source, "fq = "), line_of(source, "out = ")], said
    right = _kernel(fold, unfold.replace("H, B,", "B, H,").replace("[B, H,", "[H, B,"))
    assert len({f[3] for found in source_lines.fold_lines(right, SDPA) for f in found}) == 1


NAMED_UNSURE = {   # a layout name changed after, or bound in a branch the reshape is not in: not read
    "list_item_set": "shape = [B * H, Nq, D]\n        shape[0] = Nq\n        fq = q.view(*shape)",
    "list_method": "shape = [B * H, Nq, D]\n        shape.reverse()\n        fq = q.view(*shape)",
    "branch": "shape = (B * H, Nq, D)\n        if B:\n            shape = (Nq, B * H, D)\n        fq = q.view(*shape)",
    "augmented": "shape = (B * H, Nq)\n        shape += (D,)\n        fq = q.view(*shape)",
}


@pytest.mark.parametrize("case", NAMED_UNSURE)
def test_a_layout_name_not_bound_plainly_is_not_read(case):
    assert source_lines.fold_lines(_kernel(NAMED_UNSURE[case], "out = o.view(H, B, Nq, D).transpose(0, 1)"), SDPA) \
        == ([], [])


# ------------------------------------------------------------------ einops heads-last merges in two steps
MERGE = "merged = out.transpose(1, 2).reshape(B, -1, self.h * self.d_k)"
TWO_STEP_MERGES = {   # a merge heads last in two steps, the step quoted
    "rearrange_then_reshape": ("m = rearrange(out, 'b h n d -> b n d h')\n        merged = m.reshape(B, -1, self.h * "
                               "self.d_k)", "rearrange(out, 'b h n d -> b n d h')"),
    "rearrange_then_flatten_chained": ("merged = rearrange(out, 'b h n d -> b n d h').flatten(2)",
                                       "rearrange(out, 'b h n d -> b n d h').flatten(2)"),
    "rearrange_then_rearrange": ("m = rearrange(out, 'b h n d -> b n h d')\n        merged = rearrange(m, 'b n h d -> "
                                 "b n (d h)')", "rearrange(m, 'b n h d -> b n (d h)')"),
    "transpose_then_rearrange": ("m = out.transpose(1, 2)\n        merged = rearrange(m, 'b n h d -> b n (d h)')",
                                 "rearrange(m, 'b n h d -> b n (d h)')"),
    "permute_then_rearrange_chained": ("merged = rearrange(out.permute(0, 2, 1, 3), 'b n h d -> b n (d h)')",
                                       "rearrange(out.permute(0, 2, 1, 3), 'b n h d -> b n (d h)')"),
}


@pytest.mark.parametrize("case", TWO_STEP_MERGES)
def test_an_einops_merge_heads_last_in_two_steps_is_quoted(case):
    written, code = TWO_STEP_MERGES[case]
    source = _with(MERGE, written)
    said = source_lines.merge_dim_first_note(source, CLS)
    assert said is not None and said["en"] == f"line {line_of(source, code)} merges the heads last, after head_dim: " \
        f"{code}", said
    assert said["zh"] == f"第 {line_of(source, code)} 行合并时把 head 放在 `head_dim` 之后：{code}"


RIGHT_TWO_STEP_MERGES = {
    "rearrange_then_reshape": "m = rearrange(out, 'b h n d -> b n h d')\n        merged = m.reshape(B, -1, self.h * "
                              "self.d_k)",
    "rearrange_then_rearrange": "m = rearrange(out, 'b h n d -> b n h d')\n        merged = rearrange(m, 'b n h d -> "
                                "b n (h d)')",
    "rearrange_then_flatten": "merged = rearrange(out, 'b h n d -> b n h d').flatten(2)",
    "not_moved_first": "merged = rearrange(out, 'b n h d -> b n (d h)')",
    "moved_in_a_branch": "m = out\n        if B:\n            m = out.transpose(1, 2)\n"
                         "        merged = rearrange(m, 'b n h d -> b n (d h)')",
}


@pytest.mark.parametrize("case", RIGHT_TWO_STEP_MERGES)
def test_a_right_two_step_merge_or_one_whose_layout_is_not_shown_quotes_nothing(case):
    assert source_lines.merge_dim_first_note(_with(MERGE, RIGHT_TWO_STEP_MERGES[case]), CLS) is None


@pytest.mark.parametrize("merge", [
    "merged = out.transpose(a, 2).flip(2).reshape(B, -1, self.h * self.d_k)",
    "merged = out.transpose(a, 2).transpose(2, 3).reshape(B, -1, self.h * self.d_k)",
    "merged = rearrange(out.transpose(1, a), 'b n h d -> b n (d h)')"])
def test_a_transpose_of_a_dim_held_in_a_name_is_not_read_and_raises_nothing(merge):
    source = _with(MERGE, "a = 1\n        " + merge)
    assert source_lines.merge_dim_first_note(source, CLS) is None
    assert source_lines.merge_heads_reversed_note(source, CLS) is None


@pytest.mark.slow
def test_a_graded_heads_as_sequence_file_quotes_its_split_in_both_languages(executor):
    path = SUBMISSIONS / "faulty" / "r34_split_reshape_bthd_no_permute.py"
    line = line_of(path.read_text(encoding="utf-8"), "return t.reshape(B, N, self.num_heads")
    said = [t["feedback"] for t in graded_corpus_file(executor, path)["tests"] if t["feedback"]]
    assert any(f"line {line} (in MultiHeadAttention) splits the projection into [B, N, H, head_dim]" in s["en"]
               or f"line {line} splits the projection into [B, N, H, head_dim]" in s["en"] for s in said), said
    assert any(f"第 {line} 行" in s["zh"] and "把投影结果拆成 [B, N, H, head_dim]" in s["zh"] for s in said), said
