"""Round 41, brief C: the multi-head split and fold mistakes quote the student's line, only when it was checked.

split_no_transpose_only (and split_no_transpose, with its merge): the line that lays a projection's output
[B, N, H * head_dim] out as [B, H, N, head_dim] with no axis moved (view, reshape, torch.reshape, a reshape chain,
a helper, a function of the file, two statements). Correct splits in every spelling (view then transpose, einops
in one or two steps, chunk/split/unbind with stack) quote nothing.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import diagnose, source_lines
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh
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
