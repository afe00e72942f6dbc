"""Round 41, brief C: the multi-head split and fold mistakes quote the student's line, only when it was checked.

split_no_transpose_only (and split_no_transpose, with its merge): the line that lays a projection's output
[B, N, H * head_dim] out as [B, H, N, head_dim] with no axis moved (view, reshape, torch.reshape, a reshape chain,
a helper, a function of the file, two statements). Correct splits in every spelling (view then transpose, einops
in one or two steps, chunk/split/unbind with stack) quote nothing.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import diagnose, source_lines
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, graded_corpus_file
from tests.grading.probes_round38 import line_of, probe
from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines

CLS = "MultiHeadAttention"
SPLIT = "return t.view(t.size(0), -1, self.h, self.d_k).transpose(1, 2)"


def _with(old: str, new: str, source: str | None = None) -> str:
    source = source or probe()
    assert old in source
    return source.replace(old, new)


UNMOVED_SPLITS = {   # the split as written (in split_heads), the code quoted
    "view": "return t.view(t.size(0), self.h, -1, self.d_k)",
    "reshape_list": "return t.reshape([t.size(0), self.h, -1, self.d_k])",
    "torch_reshape": "return torch.reshape(t, (t.size(0), self.h, t.size(1), self.d_k))",
    "contiguous_view": "return t.contiguous().view(t.size(0), self.h, -1, self.d_k)",
    "heads_bound_once": "H = self.h\n        return t.view(t.size(0), H, -1, self.d_k)",
}


@pytest.mark.parametrize("case", UNMOVED_SPLITS)
def test_a_projection_laid_out_heads_first_with_no_transpose_is_quoted_with_its_neighbours(case):
    source = _with(SPLIT, UNMOVED_SPLITS[case])
    written = UNMOVED_SPLITS[case].rsplit("return ", 1)[1]
    line = line_of(source, written)
    said = source_lines.split_no_transpose_note(source, CLS)
    assert said is not None, case
    (quoted_line, owner, code), = quoted_lines(said["en"])
    assert (quoted_line, owner) == (line, None) and _shown(code, source.splitlines()[line - 1]), said
    assert said["zh"].startswith(f"第 {line} 行没有先 `transpose(1, 2)`") and said["zh"].endswith(f"：{code}"), said
    assert english_in_zh(said["zh"], code_names(source)) == []


def test_a_reshape_chain_of_the_projection_is_quoted_as_one_split():
    chained = "return t.reshape(t.size(0) * self.h, -1, self.d_k).view(t.size(0), self.h, -1, self.d_k)"
    source = _with(SPLIT, chained)
    said = source_lines.split_no_transpose_note(source, CLS)
    assert said is not None and said["en"].startswith(f"line {line_of(source, chained)} "), said


def test_three_splits_in_forward_are_said_on_one_note_and_in_two_statements_too():
    source = _with("q = self.split_heads(self.q_proj(x))\n        k = self.split_heads(self.k_proj(memory))\n"
                   "        v = self.split_heads(self.v_proj(memory))",
                   "q = self.q_proj(x).view(B, self.h, -1, self.d_k)\n        kp = self.k_proj(memory)\n"
                   "        k = kp.view(B, self.h, -1, self.d_k)\n"
                   "        v = self.v_proj(memory).view(B, self.h, -1, self.d_k)")
    said = source_lines.split_no_transpose_note(source, CLS)
    lines = [line_of(source, f"{t} = self.{t}_proj(") for t in ("q", "v")] + [line_of(source, "k = kp.view")]
    assert said is not None and said["en"].startswith(f"line {lines[0]} ") \
        and f"(so do lines {lines[2]}, {lines[1]})" in said["en"], said
    assert f"（第 {lines[2]}、{lines[1]} 行也是如此）" in said["zh"], said


RIGHT_OR_NO_PROJECTION = {
    "right_split": SPLIT,
    "positions_size_read_off_the_tensor": "return t.view(t.size(0), t.size(1), self.h, self.d_k).transpose(1, 2)",
    "einops_then_transpose_chained": "return rearrange(t, 'b n (h d) -> b n h d', h=self.h).transpose(1, 2)",
    "einops_then_transpose_two_steps": "t = rearrange(t, 'b n (h d) -> b n h d', h=self.h)\n"
                                       "        return t.transpose(1, 2)",
    "einops_in_one": "return rearrange(t, 'b n (h d) -> b h n d', h=self.h)",
    "moved_then_viewed_again": "return t.view(t.size(0), -1, self.h, self.d_k).transpose(1, 2).contiguous()"
                               ".view(t.size(0), self.h, -1, self.d_k)",
    "transposed_in_place_first": "t = t.view(t.size(0), -1, self.h, self.d_k)\n        t.transpose_(1, 2)\n"
                                 "        return t.reshape(t.size(0), self.h, -1, self.d_k)",
    "stack_of_chunks": "return torch.stack(t.chunk(self.h, dim=-1), dim=1)",
    "stack_of_splits": "return torch.stack(torch.split(t, self.d_k, -1), 1)",
    "unbind_then_stack": "return torch.stack(t.view(t.size(0), -1, self.h, self.d_k).unbind(dim=2), dim=1)",
    "unflatten_then_movedim": "return t.unflatten(-1, (self.h, self.d_k)).movedim(2, 1)",
    "permute": "return t.reshape(t.size(0), -1, self.h, self.d_k).permute(0, 2, 1, 3)",
}


@pytest.mark.parametrize("case", RIGHT_OR_NO_PROJECTION)
def test_a_right_split_in_any_spelling_quotes_no_line(case):
    assert source_lines.split_no_transpose_note(_with(SPLIT, RIGHT_OR_NO_PROJECTION[case]), CLS) is None


def test_a_mask_or_the_input_laid_out_heads_first_is_no_split_of_a_projection():
    mask = _with("mask = None", "mask = None\n        bias = x.new_zeros(B, x.size(1), self.h * 4)"
                                ".view(B, self.h, x.size(1), 4)")
    assert source_lines.split_no_transpose_note(mask, CLS) is None
    given = _with("q = self.split_heads(self.q_proj(x))", "q = self.split_heads(self.q_proj(x))\n"
                                                           "        xs = x.view(B, self.h, -1, self.d_k)")
    assert source_lines.split_no_transpose_note(given, CLS) is None


def test_a_helper_that_is_also_given_an_attention_output_is_not_read_as_the_split():
    source = _with(SPLIT, "return t.view(t.size(0), self.h, -1, self.d_k)")
    source = _with("merged = out.transpose", "again = self.split_heads(out)\n        merged = out.transpose", source)
    assert source_lines.split_no_transpose_note(source, CLS) is None


SPLIT_FILES = ["mha_split_reshape_batch_heads", "mha_split_view_heads_first", "r31_mha_split_view_no_transpose",
               "r36_jax_split_without_transpose", "r39_trax_split_without_transpose", "split_reshape_merge_transpose"]


@pytest.mark.parametrize("name", SPLIT_FILES)
def test_the_split_no_transpose_corpus_files_quote_their_split(name):
    source = (SUBMISSIONS / "faulty" / f"{name}.py").read_text(encoding="utf-8")
    assert "split_no_transpose_only" in source.splitlines()[1]
    said = diagnose.SOURCE_NOTES["split_no_transpose_only"](source, CLS)
    assert said is not None, name
    line, _owner, code = quoted_lines(said["en"])[0]
    assert _shown(code, source.splitlines()[line - 1]), (said, source.splitlines()[line - 1])


def test_split_and_merge_without_transpose_quote_both_lines():
    source = (SUBMISSIONS / "faulty" / "heads_no_transpose.py").read_text(encoding="utf-8")
    said = diagnose.SOURCE_NOTES["split_no_transpose"](source, CLS)
    assert said is not None
    assert [q[0] for q in quoted_lines(said["en"])] == [line_of(source, "return t.reshape(b, self.num_heads"),
                                                        line_of(source, "out = out.reshape(b, nq")], said
    assert "；" in said["zh"] and english_in_zh(said["zh"], code_names(source)) == []


@pytest.mark.slow
def test_no_correct_corpus_file_gets_a_split_quote():
    for path in sorted((SUBMISSIONS / "correct").rglob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        for cls in (CLS, "ScaledDotProductAttention"):
            assert source_lines.split_merge_no_transpose_note(source, cls) is None, path.name


# ------------------------------------------------------------------ heads folded into the batch and unfolded
KERNEL = '''import math

import torch
from torch import nn
from einops import rearrange


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        B, H, Nq, D = q.shape
        {fold_q}
        {fold_k}
        {fold_v}
        s = torch.bmm(fq, fk.transpose(1, 2)) / math.sqrt(D)
        w = s.softmax(dim=-1)
        o = torch.bmm(w, fv)
        {unfold}
        return (out, w) if return_weights else out
'''
FOLDS_WRITTEN = {   # a fold of q (k and v alike), its order
    "reshape": ("fq = q.reshape(B * H, Nq, D)", "bh"),
    "view_heads_first_product": ("fq = q.contiguous().view(H * B, Nq, D)", "bh"),
    "flatten": ("fq = q.flatten(0, 1)", "bh"),
    "einops": ("fq = rearrange(q, 'b h n d -> (b h) n d')", "bh"),
    "einops_heads_first": ("fq = rearrange(q, 'b h n d -> (h b) n d')", "hb"),
    "transpose_then_reshape": ("fq = q.transpose(0, 1).reshape(H * B, Nq, D)", "hb"),
    "permute_then_reshape": ("fq = q.permute(1, 0, 2, 3).reshape(H * B, Nq, D)", "hb"),
    "cat_of_unbind": ("fq = torch.cat(q.unbind(1), 0)", "hb"),
    "cat_of_torch_unbind": ("fq = torch.cat(torch.unbind(q, 1), dim=0)", "hb"),
    "stack_of_unbind_reshaped": ("fq = torch.stack(q.unbind(dim=1)).reshape(H * B, Nq, D)", "hb"),
    "stack_of_torch_unbind_two_steps": ("qs = torch.stack(torch.unbind(q, 1))\n        fq = qs.reshape(H * B, Nq, D)",
                                        "hb"),
}
UNFOLDS_WRITTEN = {   # an unfold of o, its order
    "view": ("out = o.view(B, H, Nq, D)", "bh"),
    "view_heads_first": ("out = o.view(H, B, Nq, D).transpose(0, 1)", "hb"),
    "unflatten": ("out = o.unflatten(0, (B, H))", "bh"),
    "unflatten_heads_first": ("out = o.unflatten(0, (H, B)).transpose(0, 1)", "hb"),
    "einops": ("out = rearrange(o, '(b h) n d -> b h n d', h=H)", "bh"),
    "einops_heads_first": ("out = rearrange(o, '(h b) n d -> b h n d', h=H)", "hb"),
    "stack_of_chunks": ("out = torch.stack(o.chunk(H, 0), dim=1)", "hb"),
    "stack_of_splits": ("out = torch.stack(o.split(B, 0), 1)", "hb"),
}
SDPA = "ScaledDotProductAttention"


def _kernel(fold: str, unfold: str) -> str:
    folds_ = {t: fold.replace("fq", f"f{t}").replace("qs", f"{t}s").replace("(q", f"({t}").replace("q.", f"{t}.")
              for t in "qkv"}
    return KERNEL.format(fold_q=folds_["q"], fold_k=folds_["k"], fold_v=folds_["v"], unfold=unfold)


@pytest.mark.parametrize("fold", FOLDS_WRITTEN)
@pytest.mark.parametrize("unfold", UNFOLDS_WRITTEN)
def test_a_fold_and_an_unfold_in_other_orders_are_both_quoted_and_in_one_order_never(fold, unfold):
    (fold_code, fold_order), (unfold_code, unfold_order) = FOLDS_WRITTEN[fold], UNFOLDS_WRITTEN[unfold]
    source = _kernel(fold_code, unfold_code)
    folded, unfolded = source_lines.fold_lines(source, SDPA)
    assert {f[3] for f in folded} == {fold_order} and len({f[0] for f in folded}) == 3, folded
    assert [f[3] for f in unfolded] == [unfold_order], unfolded
    other = {"bh": "hb", "hb": "bh"}
    if fold_order == unfold_order:       # a right pair: no order the numbers can name quotes an unfold
        for order in (f"{fold_order}_{other[fold_order]}", f"{other[fold_order]}_{fold_order}"):
            said = source_lines.fold_note(source, SDPA, order)
            assert said is None or "unfolds" not in said["en"], said
        return
    said = source_lines.fold_note(source, SDPA, f"{fold_order}_{unfold_order}")
    assert said is not None
    quoted = quoted_lines(said["en"])
    assert [q[0] for q in quoted] == [folded[0][0], unfolded[0][0]], said
    assert all(_shown(code, source.splitlines()[line - 1]) for line, _owner, code in quoted), said
    assert said["zh"].count("行按") == 2 and "拆开" in said["zh"], said
    assert english_in_zh(said["zh"], code_names(source)) == []
    assert source_lines.fold_note(source, SDPA, f"{unfold_order}_{fold_order}") is None   # the folds say otherwise


def test_folds_in_two_orders_quote_nothing():
    source = _kernel("fq = q.reshape(B * H, Nq, D)", "out = o.view(H, B, Nq, D).transpose(0, 1)")
    source = source.replace("fk = k.reshape(B * H, Nq, D)", "fk = torch.cat(k.unbind(1), 0)")
    assert source_lines.fold_note(source, SDPA, "bh_hb") is None
    assert source_lines.fold_note(source, SDPA, "hb_bh") is None


def test_a_fold_of_a_tensor_whose_layout_is_not_shown_or_no_heads_product_is_not_read():
    unknown = _kernel("fq = q.reshape(B * H, Nq, D)", "out = o.view(H, B, Nq, D).transpose(0, 1)").replace(
        "B, H, Nq, D = q.shape", "B, H, Nq, D = q.shape\n        q = q.roll(1, 0)")
    assert all(f[0] != line_of(unknown, "fq = q.reshape") for f in source_lines.fold_lines(unknown, SDPA)[0])
    assert source_lines.fold_note(unknown.replace("fk = k.", "fk = k.roll(1, 0).").replace(
        "fv = v.", "fv = v.roll(1, 0)."), SDPA, "bh_hb") is None
    positions = _kernel("fq = q.reshape(B * Nq, H, D)", "out = o.view(H, B, Nq, D).transpose(0, 1)")
    assert source_lines.fold_lines(positions, SDPA) == ([], [])


def test_a_split_laid_out_heads_first_in_a_module_that_folds_nothing_is_no_unfold():
    assert source_lines.fold_lines(probe(), CLS) == ([], [])
    source = _with(SPLIT, "return t.view(t.size(0), self.h, -1, self.d_k)")
    assert source_lines.fold_note(source, CLS, "hb_bh") is None


def test_a_module_that_folds_the_projections_itself_is_quoted():
    source = _with("q = self.split_heads(self.q_proj(x))",
                   "q = self.split_heads(self.q_proj(x))\n"
                   "        fq = torch.cat(self.q_proj(x).chunk(self.h, -1), 0)\n"
                   "        fo = rearrange(fq, '(b h) n d -> b n (h d)', h=self.h)\n"
                   "        q = q + 0 * fo.sum()")      # the unfold reaches the output (mend: unused ones are not read)
    said = source_lines.fold_note(source, CLS, "hb_bh")
    assert said is not None and [q[0] for q in quoted_lines(said["en"])] == [
        line_of(source, "fq = torch.cat"), line_of(source, "fo = rearrange")], said
    einops = _with("q = self.split_heads(self.q_proj(x))",
                   "q = self.split_heads(self.q_proj(x))\n"
                   "        fq = rearrange(self.q_proj(x), 'b n (h d) -> (b h) n d', h=self.h)")
    said = source_lines.fold_note(einops, CLS, "bh_hb")
    assert said is not None and said["en"].startswith(f"line {line_of(einops, 'fq = rearrange')} folds the heads "
                                                      "into the batch sample by sample, row b*H + h: "), said


@pytest.mark.parametrize(("name", "order", "fold_at", "unfold_at"),
                         [("r35_sooftware_unfold_batch_major", "hb_bh", "query = query.transpose(0, 1)",
                           "context = context.view("),
                          ("r38_fastai_heads_unfolded_h_first", "bh_hb", "q, k, v = (rearrange(", "x, w = rearrange(")])
def test_the_fold_corpus_files_quote_their_fold_and_unfold(name, order, fold_at, unfold_at):
    source = (SUBMISSIONS / "faulty" / f"{name}.py").read_text(encoding="utf-8")
    assert f"# diagnosis: heads_fold_{order}\n" in source
    for cls in (SDPA, CLS):
        said = diagnose.fold_said(order, type("Student", (), {"source": source})(), cls)
        assert said is not None and said["en"].startswith(diagnose.folds.FOLDS[order]["en"]), said
        assert [q[0] for q in quoted_lines(said["en"])] == [line_of(source, fold_at), line_of(source, unfold_at)]
    assert diagnose.fold_said(order, None, SDPA) == diagnose.folds.FOLDS[order]


@pytest.mark.slow
def test_no_correct_corpus_class_reads_a_fold_and_an_unfold_in_other_orders():
    for path in sorted((SUBMISSIONS / "correct").rglob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        for cls in (CLS, SDPA):
            folded, unfolded = source_lines.fold_lines(source, cls)
            assert len({f[3] for f in folded} | {f[3] for f in unfolded}) <= 1, (path.name, folded, unfolded)


def test_tokens_folded_into_the_batch_with_einops_are_no_heads_fold():
    source = _kernel("fq = rearrange(q, 'b h n d -> (b h) n d')", "out = rearrange(o, '(h b) n d -> b h n d', h=H)")
    tokens = source.replace("o = torch.bmm(w, fv)", "o = torch.bmm(w, fv)\n        t = rearrange(q, 'b h n d -> (b n) h d')\n"
                            "        t2 = rearrange(q.flatten(2), 'b n e -> (b n) e')")
    assert [[f[2:] for f in found] for found in source_lines.fold_lines(tokens, SDPA)] \
        == [[f[2:] for f in found] for found in source_lines.fold_lines(source, SDPA)]


SPLIT_THEN_MOVED = {   # einops splits then a transpose, chained or in two statements: heads last is quoted
    "chained": "return rearrange(t, 'b n (d h) -> b n h d', h=self.h).transpose(1, 2)",
    "two_steps": "t = rearrange(t, 'b n (d h) -> b n h d', h=self.h)\n        return t.transpose(1, 2)",
    "heads_letter_named_otherwise": "return rearrange(t, 'b n (e k) -> b n k e', k=self.h).transpose(1, 2)",
}


@pytest.mark.parametrize("case", SPLIT_THEN_MOVED)
def test_an_einops_split_heads_last_then_transposed_is_quoted_and_heads_first_is_not(case):
    written = SPLIT_THEN_MOVED[case]
    source = _with(SPLIT, written)
    said = source_lines.split_dim_first_note(source, CLS)
    assert said is not None and said["en"].startswith(f"line {line_of(source, 'rearrange(')} splits the features "
                                                      "as (head_dim, heads)"), said
    right = _with(SPLIT, written.replace("(d h)", "(h d)").replace("(e k)", "(k e)"))
    assert source_lines.split_dim_first_note(right, CLS) is None


@pytest.mark.slow
@pytest.mark.parametrize(("name", "en", "zh"), [
    ("r36_jax_split_without_transpose", "lays the projection [B, N, H * head_dim] out as [B, H, N, head_dim] with no "
                                        "transpose(1, 2), reading positions as heads",
     "直接把投影结果 [B, N, H * head_dim] 排成 [B, H, N, head_dim]"),
    ("r35_sooftware_unfold_batch_major", "folds the heads into the batch head by head, row h*B + b",
     "按 head 顺序（第 h*B + b 行）把 head 并入 batch")])
def test_a_graded_corpus_file_quotes_its_split_or_fold_in_both_languages(executor, name, en, zh):
    said = [t["feedback"] for t in graded_corpus_file(executor, SUBMISSIONS / "faulty" / f"{name}.py")["tests"]
            if t["feedback"]]
    assert any(en in s["en"] for s in said) and any(zh in s["zh"] for s in said), said
