"""Round 38: the round 37 multi-head hints made consistent with the code.

1. ``heads_averaged_before_v`` with each head's own weights returned (``attn.mean(1) @ v``, ``attn`` returned): the
   parity tests, which see the output alone, named it; the padding and additive-mask tests, which see the weights
   too, did not, as the model's weights (the mean) were not those returned (diagnose.WEIGHTS_EITHER).
2. The round 37 mistakes quote the student's line when the source shows exactly one (source_lines: out_proj applied
   to its own result, a mean over dim 1, a [B, N] mask laid out [B, 1, N, 1]); never a guessed line.
3. test_mha_self_and_cross_shapes said weights of shape [B, 1, Nq, Nk] were of the wrong shape, never that their
   values are the heads' mean: its module keeps its own random projections, so there was no reference to compare.
   A module holding the reference's projections is asked the same call when that shape test fails on the weights.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose, source_lines
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, named_faults
from tests.grading.test_diagnoses import Faulty
from tests.grading.test_hints_round35 import _declared, _failed
from tests.grading.test_hints_round37 import CROSS, PAD, PARAMS, SELF
from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines

FAULTY = SUBMISSIONS / "faulty"
PER_HEAD = FAULTY / "r38_heads_mean_before_v_per_head_weights.py"


class _OwnWeights(Faulty):
    """A module computing ``fault``'s output while returning each head's own weights (the reference's)."""

    def mha(self, d_model, num_heads, head_dim=None, params=None):
        hd = head_dim or d_model // num_heads
        fault = self.fault

        class Module:
            def __init__(self):
                self.params = params

            def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
                out = C.mha_variant(params, num_heads, hd, x, context, additive_mask, key_padding_mask, fault=fault)[0]
                w = C.ref_mha(params, num_heads, hd, x, context, additive_mask, key_padding_mask)[1]
                return (out.float(), w.float()) if return_weights else out.float()

        return Module()


# ----------------------------------------------------------------------------- 1. the same evidence, the same name
@pytest.mark.parametrize("case", [SELF, CROSS, PAD], ids=["self", "cross", "self+pad"])
def test_heads_averaged_before_v_is_named_when_each_heads_own_weights_are_returned(case):
    out = C.mha_variant(PARAMS, 4, 4, fault="heads_averaged_before_v", **case)[0]
    own = C.ref_mha(PARAMS, 4, 4, case["x"], case.get("context"), None, case.get("key_padding_mask"))[1]
    student = _OwnWeights("heads_averaged_before_v")
    said = diagnose.mha(out.float(), own.float(), PARAMS, 4, 4, **case, student=student)
    # said of the output: the weights returned are right, only the output shows the mean
    assert said == diagnose.fault_name("heads_averaged_before_v", True)
    # and as before from the output alone
    assert diagnose.mha(out.float(), None, PARAMS, 4, 4, **case, student=student) == said


def test_right_weights_alone_name_no_head_mean():
    """The per-head weights excuse the weights only: an output that is not the mean's is named as nothing."""
    ref_out, own = C.ref_mha(PARAMS, 4, 4, PAD["x"], None, None, PAD["key_padding_mask"])
    assert diagnose.mha(ref_out.float(), own.float(), PARAMS, 4, 4, **PAD, student=Faulty(None)) is None
    other = C.mha_variant(PARAMS, 4, 4, fault="out_proj_twice", **PAD)[0]
    said = diagnose.mha(other.float(), own.float(), PARAMS, 4, 4, **PAD, student=_OwnWeights("out_proj_twice"))
    assert said != diagnose.FAULTS["heads_averaged_before_v"]


# ----------------------------------------------------------------------------- 2. the lines the source shows
def _note(fn, name: str) -> str | None:
    said = fn((FAULTY / name).read_text(encoding="utf-8"), "MultiHeadAttention")
    return None if said is None else said["en"]


QUOTED = {
    "r34_out_proj_twice.py": (source_lines.out_proj_twice_note,
                              "line 46 applies the output projection (self.out_proj(t.transpose(1, 2).reshape(B, N, "
                              "H * D))) and line 61 applies it again to that result (self.out_proj(self._merge(out)))"),
    "r37_out_proj_twice_functional_then_module.py": (
        source_lines.out_proj_twice_note, "line 46 applies the output projection (F.linear(...)) and line 47 applies "
                                          "it again to that result (self.out_proj(attn_output))"),
    "r37_out_proj_twice_in_to_out.py": (source_lines.out_proj_twice_note,
                                        "line 50 applies the output projection to its own result: "
                                        "self.out_proj(self.to_out(out)); line 32 builds self.to_out: "
                                        "nn.Sequential(self.out_proj, nn.Dropout(dropout))"),
    "r36_libai_dense_applied_twice.py": (source_lines.out_proj_twice_note,
                                         "line 81 applies the output projection to its own result: "
                                         "self.dense(self.dense(context)); line 56 builds self.dense: "
                                         "nn.Linear(inner, hidden_size)"),
    "r37_heads_mean_einsum_reduce.py": (source_lines.head_mean_note,
                                        'line 48 averages over dim 1, the heads of [B, H, Nq, Nk]: '
                                        'reduce(attn, "b h i j -> b i j", "mean")'),
    "r38_heads_mean_before_v_per_head_weights.py": (
        source_lines.head_mean_note, "line 48 averages over dim 1, the heads of [B, H, Nq, Nk]: "
                                     "attn.mean(dim=1, keepdim=True)"),
    "r36_softmax_copy_weights_head_averaged.py": (source_lines.head_mean_note,
                                                  "line 106 averages over dim 1, the heads of [B, H, Nq, Nk]: "
                                                  "weights.mean(dim=1, keepdim=True)"),
    "r37_pad_1e6_query_axis_extended_mask.py": (source_lines.query_axis_pad_note,
                                                "line 47 lays the padding mask out as [B, 1, N, 1], on the query "
                                                "axis: (1.0 - keep)[:, None, :, None]"),
    "r37_pad_1e6_query_axis_unsqueeze.py": (source_lines.query_axis_pad_note,
                                            "line 42 lays the padding mask out as [B, 1, N, 1], on the query axis: "
                                            "key_padding_mask.unsqueeze(1).unsqueeze(-1)"),
    "r37_pad_1e6_query_axis_where_rearrange.py": (source_lines.query_axis_pad_note,
                                                  "line 42 lays the padding mask out as [B, 1, N, 1], on the query "
                                                  'axis: rearrange(key_padding_mask, "b j -> b 1 j 1")'),
    "r34_pad_unsqueeze_query_axis.py": (source_lines.query_axis_pad_note,
                                        "line 58 lays the padding mask out as [B, 1, N, 1], on the query axis: "
                                        'pad.masked_fill(key_padding_mask, float("-inf")).unsqueeze(1).unsqueeze(-1)'),
}


@pytest.mark.parametrize("name", QUOTED, ids=[n.removesuffix(".py") for n in QUOTED])
def test_a_round_37_mistake_quotes_the_one_line_that_makes_it(name):
    fn, said = QUOTED[name]
    assert _note(fn, name) == said
    lines = (FAULTY / name).read_text(encoding="utf-8").splitlines()
    for n, _owner, code in quoted_lines(said):
        assert _shown(code, lines[n - 1]), (n, code)


HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
MHA = ("class MultiHeadAttention(nn.Module):\n    def __init__(self, d, h):\n        super().__init__()\n"
       "        self.out_proj = nn.Linear(d, d)\n\n    def forward(self, x, return_weights=False):\n")
NO_LINE = {
    # two branches each applying it once: no application reads another's result
    "out_proj_once_per_branch": (source_lines.out_proj_twice_note,
                                 MHA + "        w = x.softmax(-1)\n"
                                       "        return (self.out_proj(x), w) if return_weights else self.out_proj(x)\n"),
    # the name rebound in between: the second call reads another value
    "out_proj_result_overwritten": (source_lines.out_proj_twice_note,
                                    MHA + "        y = self.out_proj(x)\n        y = x * 2\n"
                                          "        return self.out_proj(y)\n"),
    # two applications on results of it: which one is the mistake is not one line
    "out_proj_twice_twice": (source_lines.out_proj_twice_note,
                             MHA + "        a = self.out_proj(self.out_proj(x))\n"
                                   "        return self.out_proj(self.out_proj(a))\n"),
    "two_means_over_dim_1": (source_lines.head_mean_note,
                             MHA + "        a = x.mean(dim=1)\n        b = x.mean(1)\n        return a + b\n"),
    "a_mean_over_another_dim": (source_lines.head_mean_note, MHA + "        return x.mean(dim=-1)\n"),
    "a_dim_not_written_out": (source_lines.head_mean_note, MHA + "        d = 1\n        return x.mean(dim=d)\n"),
    "keys_axis_mask": (source_lines.query_axis_pad_note, MHA + "        return x[:, None, None, :]\n"),
    "two_query_axis_layouts": (source_lines.query_axis_pad_note,
                               MHA + "        a = x[:, None, :, None]\n        b = x.unsqueeze(1).unsqueeze(-1)\n"
                                     "        return a + b\n"),
}


@pytest.mark.parametrize(("fn", "code"), NO_LINE.values(), ids=NO_LINE.keys())
def test_no_line_is_quoted_where_the_source_shows_none_or_several(fn, code):
    assert fn(HEADER + code, "MultiHeadAttention") is None


def test_the_round_37_faults_have_source_notes():
    for key in ("out_proj_twice", "heads_averaged_before_v", "weights_head_averaged", "pad_query_axis"):
        assert key in diagnose.SOURCE_NOTES, key
    assert diagnose.mha_key("pad_query_axis_added", 16, 4) == "pad_query_axis"


# ----------------------------------------------------------------------------- graded end to end
# (graded once per session: test_grading's fast lane grades the corpus files for their points)
def test_the_cross_attention_shape_test_says_headless_weights_are_the_heads_mean(executor):
    said = _failed(executor, FAULTY / "r37_heads_mean_weights_then_values.py")["test_mha_self_and_cross_shapes"]
    assert "the weights of MultiHeadAttention have shape [2,1,2,11], expected [2,4,2,11]" in said["en"], said
    for lang in ("en", "zh"):
        assert diagnose.FAULTS["weights_head_mean_values"][lang] in said[lang], said


@pytest.mark.slow
def test_the_shape_test_says_only_the_shape_of_headless_weights_that_are_no_mean(executor):
    """One head's weights returned as [B, 1, Nq, Nk]: the values are no mean, the shape only is said."""
    from tests.grading.helpers import graded_mutant

    result = graded_mutant(executor, FAULTY / "r37_heads_mean_weights_then_values.py",
                           "attn = attn.mean(dim=1, keepdim=True)", "attn = attn[:, :1]")
    said = {t["id"]: t["feedback"] for t in result["tests"]}["test_mha_self_and_cross_shapes"]
    assert "have shape [2,1,2,11]" in said["en"] and diagnose.FAULTS["weights_head_mean_values"]["en"] not in said["en"]


@pytest.mark.slow
@pytest.mark.parametrize("name", [*QUOTED, "r37_heads_mean_weights_then_values.py"])
def test_a_round_37_mistake_is_named_with_its_own_line_in_both_languages(executor, name):
    path = FAULTY / name
    source = path.read_text(encoding="utf-8")
    lines, code = source.splitlines(), code_names(source)
    failed = _failed(executor, path)
    named: set[str] = set()
    quoted: set[int] = set()
    for tid, fb in failed.items():
        named |= named_faults(fb)
        for n, _owner, shown in quoted_lines(fb["en"]):
            assert 1 <= n <= len(lines) and _shown(shown, lines[n - 1]), (tid, n, shown)
            quoted.add(n)
        assert english_in_zh(fb["zh"], code) == [], (tid, fb["zh"])
    declared = _declared(path)
    assert declared[0] in named and named <= set(declared), named
    if name in QUOTED:   # the line of the note is said by some test
        assert {n for n, _o, _c in quoted_lines(QUOTED[name][1])} <= quoted, quoted


@pytest.mark.slow
def test_the_per_head_weights_file_names_the_mean_in_every_test_that_fails(executor):
    failed = _failed(executor, PER_HEAD)
    assert set(failed) == {"test_mha_custom_head_dim", "test_mha_self_attention_parity",
                           "test_mha_cross_attention_parity", "test_padding_keys_get_zero_weight",
                           "test_mha_additive_mask"}, set(failed)
    for tid, fb in failed.items():
        assert "heads_averaged_before_v" in named_faults(fb), (tid, fb["en"])


# ----------------------------------------------------------------------------- 5. the fresh hunt's faulty twins
# One mistake put into each of round 38's correct styles (tests/fixtures/submissions/correct/r38_*.py), each hint
# read against the code: named as its header declares, and nothing else ("none": described only, no name).
HUNT = sorted(p for p in FAULTY.glob("r38_*.py") if p != PER_HEAD)


def test_the_hunt_adds_6_faulty_files_each_declaring_its_diagnosis():
    assert len(HUNT) == 6
    for path in HUNT:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[1].startswith("# diagnosis: ") and lines[2].startswith("# fault: "), path.name
        assert "In the style of " in path.read_text(encoding="utf-8"), path.name


@pytest.mark.slow
@pytest.mark.parametrize("path", HUNT, ids=[p.stem for p in HUNT])
def test_a_hunt_file_is_named_as_declared_and_nothing_else(executor, path):
    declared = _declared(path)
    source = path.read_text(encoding="utf-8")
    lines, code = source.splitlines(), code_names(source)
    named: set[str] = set()
    for tid, fb in _failed(executor, path).items():
        named |= named_faults(fb)
        for n, _owner, shown in quoted_lines(fb["en"]):
            assert 1 <= n <= len(lines) and _shown(shown, lines[n - 1]), (tid, n, shown)
        assert english_in_zh(fb["zh"], code) == [], (tid, fb["zh"])
    if declared == ["none"]:
        assert named == set(), named
    else:
        assert declared[0] in named and named <= set(declared), named
