"""Round 38, review RC: a source note quotes the fault's line, or none.

The notes for the round 37 multi-head mistakes (grader_tests/attention/source_lines.py) quoted a line of the same
look as the fault's: any mean over dim 1 (``token_mean = x.mean(1)``, unused) for the heads' mean, any [B, 1, N, 1]
layout (``q * torch.ones(B, N)[:, None, :, None]``, a per-query scale) for the padding mask on the query axis,
and a discarded debug copy (``self.debug = self.out_proj(self.out_proj(...))``) for the output projection applied
twice. Now a head mean is one of the attention weights (in its spellings: dim or axis, 1 or -3, ``sum / H``,
einops) whose result is used, a layout is one of the mask's values that keeps that layout, and a double
application is one on the way to the output (a loop of two passes counts); otherwise no line is quoted.
The probes are RC's (tests/grading/probes_round38.py); the correct ones (c01-c15) and the faulty ones RC held
(f04-f09, f12, f14) keep their gradings.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import source_lines
from tests.grading.probes_round38 import line_of, probe
from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines

CLS = "MultiHeadAttention"
HM = source_lines.head_mean_note
PAD = source_lines.query_axis_pad_note
TWICE = source_lines.out_proj_twice_note
LOOP = "y = merged\nfor _ in range(2):\n    y = self.out_proj(y)\n"
DEBUG = "self.debug = self.out_proj(self.out_proj(torch.zeros_like(merged))).detach()"

# name: (note, source, the code quoted on its line, how the note says it); RC's fNN where the name says so
QUOTED = {
    "f01_sum_over_heads_over_h_beside_a_token_mean": (
        HM, probe(pre="token_mean = x.mean(dim=1)", post="out = torch.matmul(attn.sum(dim=1, keepdim=True) / self.h, v)"),
        "attn.sum(dim=1, keepdim=True) / self.h", "averages over dim 1, the heads of [B, H, Nq, Nk]"),
    "f10_axis_keyword_beside_x_mean_1": (
        HM, probe(pre="token_mean = x.mean(1)", post="out = torch.matmul(attn.mean(axis=1, keepdim=True), v)"),
        "attn.mean(axis=1, keepdim=True)", "averages over dim 1"),
    "f11_dim_minus_3_beside_a_memory_mean": (
        HM, probe(pre="ctx_summary = torch.mean(memory, dim=1)",
                  post="out = torch.matmul(attn.mean(dim=-3, keepdim=True), v)"),
        "attn.mean(dim=-3, keepdim=True)", "averages over dim -3, the heads of [B, H, Nq, Nk]"),
    "f13_returned_weights_sum_over_h_expanded": (
        HM, probe(pre="token_mean = x.mean(dim=1)",
                  proj="y = self.out_proj(merged)\nattn = (attn.sum(1, keepdim=True) / self.h).expand(-1, self.h, -1, -1)"),
        "attn.sum(1, keepdim=True) / self.h", "averages over dim 1"),
    "f04_returned_weights_sum_over_h_beside_torch_mean_of_memory": (
        HM, probe(pre="stat = torch.mean(memory, 1)", proj="y = self.out_proj(merged)\nattn = attn.sum(1, keepdim=True) / self.h"),
        "attn.sum(1, keepdim=True) / self.h", "averages over dim 1"),
    "f12_in_the_attention_class_beside_a_token_mean_of_its_wrapper": (
        HM, probe(pre="self.token_mean = x.mean(dim=1).detach()",
                  sdpa_out="out = torch.matmul(weights.mean(dim=1, keepdim=True), v)"),
        "weights.mean(dim=1, keepdim=True)", "(in ScaledDotProductAttention) averages over dim 1"),
    "torch_mean_with_axis_minus_3": (
        HM, probe(post="out = torch.matmul(torch.mean(attn, axis=-3, keepdim=True), v)"),
        "torch.mean(attn, axis=-3, keepdim=True)", "averages over dim -3"),
    "torch_sum_over_h": (HM, probe(post="out = torch.matmul(torch.sum(attn, 1, keepdim=True) / self.h, v)"),
                         "torch.sum(attn, 1, keepdim=True) / self.h", "averages over dim 1"),
    "einops_reduce_keeping_a_head_axis_of_one": (
        HM, probe(post='out = torch.matmul(reduce(attn, "b h i j -> b 1 i j", "mean"), v)'),
        'reduce(attn, "b h i j -> b 1 i j", "mean")', "averages over dim 1"),
    "f02_view_of_the_mask_beside_a_per_query_scale": (
        PAD, probe(pad="pad = pad.view(B, 1, -1, 1)", pre="q = q * torch.ones(B, x.size(1))[:, None, :, None]"),
        "pad.view(B, 1, -1, 1)", "lays the padding mask out as [B, 1, N, 1], on the query axis"),
    "reshape_of_the_mask_with_a_tuple": (PAD, probe(pad="pad = pad.reshape((B, 1, -1, 1))"),
                                         "pad.reshape((B, 1, -1, 1))", "lays the padding mask out"),
    "f09_unsqueeze_minus_1_then_1": (PAD, probe(pad="pad = pad.unsqueeze(-1).unsqueeze(1)"),
                                     "pad.unsqueeze(-1).unsqueeze(1)", "lays the padding mask out"),
    "f03_a_loop_of_two_passes_beside_a_debug_copy": (
        TWICE, probe(proj=LOOP + DEBUG), "self.out_proj(y)",
        "applies the output projection to its own result in a loop that runs 2 times"),
}


@pytest.mark.parametrize("name", QUOTED)
def test_a_note_quotes_the_faults_own_line_not_a_decoy_of_its_look(name):
    note, source, code, said = QUOTED[name]
    got = note(source, CLS)
    assert got is not None, name
    line = line_of(source, code)
    assert got["en"].startswith(f"line {line} {said}") and got["en"].endswith(f": {code}"), got["en"]
    assert got["zh"].startswith(f"第 {line} 行") and got["zh"].endswith(f"：{code}"), got["zh"]
    # the feedback's quote reader finds the line and its code (tests/grading/test_quoted_lines_round31.py)
    ((n, _owner, shown),) = quoted_lines(got["en"])
    assert n == line and _shown(shown, source.splitlines()[n - 1])


NONE = {
    # a mean over dim 1 of another tensor: the tokens, the memory, the values
    "c01_token_mean_alone": (HM, probe(pre="token_mean = x.mean(dim=1)")),
    "c02_torch_mean_of_memory_stored": (HM, probe(pre="self.batch_stat = torch.mean(memory.detach(), 1)")),
    "c05_values_mean_over_heads": (HM, probe(post="self.v_mean = v.mean(dim=1).detach()")),
    # a head mean of the weights whose result nothing reads: a log, a throwaway
    "c08_weights_head_mean_logged": (HM, probe(post="self.last_head_mean = attn.mean(dim=1).detach()")),
    "c09_torch_mean_discarded": (HM, probe(post="_ = torch.mean(attn, 1)")),
    "c10_einops_mean_for_a_plot": (HM, probe(post='avg_map = reduce(attn, "b h i j -> b i j", "mean")')),
    # two head means of the weights, both used: which one is the mistake is not one line
    "two_used_head_means": (HM, probe(post="w = attn.mean(1, keepdim=True)\nout = torch.matmul(attn.mean(dim=1, keepdim=True) + 0 * w, v)")),
    # a head mean of a tensor the source does not name beside the weights' one: it may be the mistake
    "a_mean_of_an_unnamed_tensor_beside": (HM, probe(post="out = torch.matmul(attn.mean(1, keepdim=True), v)\n"
                                                         "out = out + 0 * torch.stack([out]).mean(1)")),
    # a [B, 1, N, 1] layout of something else, or one transposed at once
    "c15_per_query_scale": (PAD, probe(pre="q = q * torch.ones(B, x.size(1))[:, None, :, None]")),
    "c14_rearranged_scale": (PAD, probe(pre='qscale = rearrange(torch.ones(B, x.size(1)), "b i -> b 1 i 1")\nq = q * qscale',
                                        pad='pad = rearrange(pad, "b j -> b 1 1 j")')),
    "c06_layout_transposed_at_once": (PAD, probe(pad="pad = pad[:, None, :, None].transpose(2, 3)")),
    "c13_unsqueeze_1_then_2": (PAD, probe(pad="pad = pad.unsqueeze(1).unsqueeze(2)")),
    # a double application whose value is not returned, a loop whose count the source does not say
    "debug_copy_alone": (TWICE, probe(proj="y = self.out_proj(merged)\n" + DEBUG)),
    "a_loop_of_unsaid_passes": (TWICE, probe(proj=LOOP.replace("range(2)", "range(self.h)"))),
    "f08_once_per_branch": (TWICE, probe(proj="""
        if context is None:
            y = self.out_proj(merged)
        else:
            y = merged
        y = self.out_proj(y) if context is not None else y
    """)),
}


@pytest.mark.parametrize("name", NONE)
def test_no_line_is_quoted_when_the_fault_line_is_not_the_only_one_of_its_look(name):
    note, source = NONE[name]
    assert note(source, CLS) is None


# ----------------------------------------------------------------------------- graded end to end
def _graded(executor, source: str) -> dict:
    from grading.runner import GradeInput, grade

    return grade(GradeInput(code=source.encode()), "attention", executor)


GRADED = [n for n in QUOTED if n[0] == "f" and n[:3] not in ("f04", "f12")]   # f04, f12: below


@pytest.mark.slow
@pytest.mark.parametrize("name", GRADED)
def test_every_quote_of_a_graded_probe_is_the_faults_line(executor, name):
    _note, source, code, _said = QUOTED[name]
    lines, fault = source.splitlines(), line_of(source, code)
    quoted = set()
    for t in _graded(executor, source)["tests"]:
        if t["outcome"] != "passed":
            for n, _owner, shown in quoted_lines(t["feedback"]["en"]):
                assert _shown(shown, lines[n - 1]), (t["id"], n, shown)
                quoted.add((n, shown))
    # PyTorch's own messages are no quotes; the note's line is said, and no decoy's
    assert {n for n, _ in quoted} == {fault}, quoted


@pytest.mark.slow
@pytest.mark.parametrize("name", ["c01_token_mean_alone", "c15_per_query_scale", "c08_weights_head_mean_logged"])
def test_a_correct_look_alike_still_passes_every_test(executor, name):
    result = _graded(executor, NONE[name][1])
    assert result["status"] == "graded" and [t["id"] for t in result["tests"] if t["outcome"] != "passed"] == []


@pytest.mark.slow
def test_weights_returned_as_the_heads_sum_over_h_quote_the_faults_line_not_the_memory_mean(executor):
    """RC's f04 (weights of shape [B, 1, Nq, Nk]): since round 39 (brief D) the shape tests' "its values are the
    mean of the heads' weights" quotes the fault's line, and not the decoy's (a torch.mean of the memory)."""
    _note, source, code, _said = QUOTED["f04_returned_weights_sum_over_h_beside_torch_mean_of_memory"]
    failed = [t for t in _graded(executor, source)["tests"] if t["outcome"] != "passed"]
    assert failed and {n for t in failed for n, _o, _c in quoted_lines(t["feedback"]["en"])} == {
        line_of(source, code)}


@pytest.mark.slow
def test_a_head_mean_in_the_attention_class_beside_a_token_mean_of_its_wrapper_quotes_no_line(executor):
    """RC's f12 (the mean in the attention class): said to be there, with no line."""
    _note, source, _code, _said = QUOTED["f12_in_the_attention_class_beside_a_token_mean_of_its_wrapper"]
    failed = [t for t in _graded(executor, source)["tests"] if t["outcome"] != "passed"]
    assert failed and all(quoted_lines(t["feedback"]["en"]) == [] for t in failed)
    assert all("the mistake is in ScaledDotProductAttention" in t["feedback"]["en"]
               for t in failed if t["id"].startswith("test_mha"))


def test_the_quote_reader_reads_the_round_38_forms():
    said = ("line 47 averages over dim -3, the heads of [B, H, Nq, Nk]: attn.mean(dim=-3); line 44 lays the padding "
            "mask out as [B, 1, N, 1], on the query axis: pad.view(B, 1, -1, 1); line 51 applies the output projection "
            "to its own result in a loop that runs 2 times: self.out_proj(y); line 46 applies the output projection "
            "(F.linear(...)) and line 47 applies it again to that result (self.out_proj(o))")
    assert quoted_lines(said) == [(47, None, "attn.mean(dim=-3)"), (44, None, "pad.view(B, 1, -1, 1)"),
                                  (51, None, "self.out_proj(y)"), (46, None, "F.linear(...)"),
                                  (47, None, "self.out_proj(o)")]
