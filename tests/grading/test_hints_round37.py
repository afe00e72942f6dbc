"""Round 37: three multi-head mistakes that no hint named, now named when the student's numbers are those of the
mistake on two cases (diagnose.mha and its probe), and said of what was seen otherwise.

1. ``out_proj_twice``: out_proj(out_proj(merged heads)) (r34_out_proj_twice.py and r36_libai_dense_applied_twice.py
   were described only).
2. The heads' weights averaged: ``heads_averaged_before_v`` (the mean weights applied to V, so the output is off),
   ``weights_head_averaged`` (the output right, each head's returned weights the heads' mean, as
   nn.MultiheadAttention's average_attn_weights=True), and weights of shape [B, 1, Nq, Nk] or [B, Nq, Nk] whose
   values are that mean (drivers.validate_weights: ``weights_head_mean_values``, checked on the values).
3. ``pad_query_axis_added``: -1e6 added on the query axis ([B, 1, N, 1], Funnel's INF = 1e6). In float32 s - 1e6
   keeps s rounded to 1/16, so the rows are neither the -inf model's NaN nor -1e9's uniform rows; named as
   pad_query_axis. In float64 the rows are unchanged (the mask reads as ignored): not modelled there.
Each has 2-3 faulty files in different styles (tests/fixtures/submissions/faulty/r37_*.py), named as their
``# diagnosis:`` header declares and nothing else (slow lane); test_fair_corpus checks no hint on a correct file.
"""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grader_tests.attention.drivers import reference_head_mean, validate_weights
from grading.proxy import Feedback
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, named_faults
from tests.grading.test_diagnoses import Faulty
from tests.grading.test_hints_round35 import _declared, _failed
from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines

FAULTY = SUBMISSIONS / "faulty"
ROUND = sorted(FAULTY.glob("r37_*.py"))
# files of earlier rounds described only before, named now
RENAMED = {"r34_out_proj_twice.py": "out_proj_twice", "r36_libai_dense_applied_twice.py": "out_proj_twice",
           "r34_weights_mean_over_heads_keepdim.py": "weights_head_mean_values",
           "r36_softmax_copy_weights_head_averaged.py": "weights_head_averaged",
           "r36_funnel_padding_on_query_axis.py": "pad_query_axis"}

PARAMS = C.mha_params(30, 16, 4, 4)
SELF = dict(x=C.tokens(42, 2, 6, 16))
CROSS = dict(x=C.tokens(43, 2, 3, 16), context=C.tokens(44, 2, 7, 16))
PAD = dict(x=C.tokens(42, 2, 6, 16), key_padding_mask=torch.tensor([[False] * 6, [False] * 4 + [True] * 2]))


def _named(fault: str, case: dict, *, weights: bool = True):
    out, w = C.mha_variant(PARAMS, 4, 4, fault=fault, **case)
    return diagnose.mha(out.float(), w.float() if weights else None, PARAMS, 4, 4, **case, student=Faulty(fault))


# ----------------------------------------------------------------------------- 1-3. the models, with a probe
@pytest.mark.parametrize("case", [SELF, CROSS, PAD], ids=["self", "cross", "self+pad"])
def test_out_proj_applied_twice_is_named_from_the_output_on_two_cases(case):
    assert _named("out_proj_twice", case, weights=False) == diagnose.FAULTS["out_proj_twice"]
    # a custom head_dim makes the second call fail on the shapes: no numbers to model
    assert C.mha_variant(C.mha_params(31, 12, 3, 8), 3, 8, C.tokens(1, 2, 4, 12), fault="out_proj_twice") is None


@pytest.mark.parametrize("case", [SELF, CROSS, PAD], ids=["self", "cross", "self+pad"])
def test_weights_averaged_over_heads_before_v_are_named_from_the_output(case):
    assert _named("heads_averaged_before_v", case, weights=False) == diagnose.FAULTS["heads_averaged_before_v"]
    assert _named("heads_averaged_before_v", case) == diagnose.FAULTS["heads_averaged_before_v"]


def test_returned_weights_averaged_over_heads_are_named_from_the_weights_only():
    assert _named("weights_head_averaged", CROSS) == diagnose.FAULTS["weights_head_averaged"]
    # the output is the reference's: nothing to name from it alone
    assert _named("weights_head_averaged", CROSS, weights=False) is None


def test_one_head_has_no_head_mean_to_model():
    for fault in ("weights_head_averaged", "heads_averaged_before_v"):
        assert C.mha_variant(C.mha_params(30, 16, 1, 16), 1, 16, C.tokens(42, 2, 5, 16), fault=fault) is None


def test_minus_1e6_added_on_the_query_axis_is_named_as_padding_on_the_query_axis_in_float32():
    out, w = C.mha_variant(PARAMS, 4, 4, fault="pad_query_axis_added", **PAD)
    # neither the -inf model (NaN rows) nor the -1e9 one (uniform rows) gives these numbers
    for other in ("pad_query_axis", "pad_query_axis_finite"):
        got = C.mha_variant(PARAMS, 4, 4, fault=other, **PAD)
        assert got is None or not torch.allclose(got[0], out, atol=1e-4, equal_nan=True)
    assert _named("pad_query_axis_added", PAD, weights=False) == diagnose.FAULTS["pad_query_axis"]
    # in float64 s - 1e6 keeps s: the rows are those without the mask, not modelled as this mistake
    pad64 = dict(PAD, x=PAD["x"].double())
    assert C.mha_variant(PARAMS, 4, 4, fault="pad_query_axis_added", **pad64) is None


@pytest.mark.parametrize("case", [SELF, CROSS, PAD], ids=["self", "cross", "self+pad"])
def test_none_of_the_round_37_models_fires_on_the_reference(case):
    out, w = C.ref_mha(PARAMS, 4, 4, case["x"], case.get("context"), None, case.get("key_padding_mask"))
    for fault in ("out_proj_twice", "heads_averaged_before_v", "weights_head_averaged", "pad_query_axis_added"):
        got = C.mha_variant(PARAMS, 4, 4, fault=fault, **case)
        assert got is None or (got[0] - out).abs().max() > 1e-3 or (got[1] - w).abs().max() > 1e-3, fault
    assert diagnose.mha(out.float(), w.float(), PARAMS, 4, 4, **case, student=Faulty(None)) is None


# ----------------------------------------------------------------------------- 2. weights of the headless shapes
def _ref():
    x, ctx = CROSS["x"], CROSS["context"]
    return C.ref_mha(PARAMS, 4, 4, x, ctx)[1]


@pytest.mark.parametrize("keepdim", [True, False])
def test_weights_without_their_head_axis_are_said_to_be_the_heads_mean_only_when_they_are(keepdim):
    ref = _ref()
    shape = list(ref.shape)
    mean = ref.mean(1, keepdim=keepdim).float()
    with pytest.raises(Feedback) as exc:
        validate_weights(mean, shape, "MultiHeadAttention", None, _ref)
    said = exc.value.message
    assert diagnose.FAULTS["weights_head_mean_values"]["en"] in said["en"]
    assert diagnose.FAULTS["weights_head_mean_values"]["zh"] in said["zh"]
    # the advice to return every head is said once: [B, Nq, Nk]'s shape message already says it
    assert said["en"].count("one [Nq, Nk] matrix per head") == 1, said["en"]
    # one head's weights of the same shape are not the mean: the shape only is said
    first = ref[:, :1] if keepdim else ref[:, 0]
    assert not reference_head_mean(first.float(), shape, _ref)
    with pytest.raises(Feedback) as exc:
        validate_weights(first.float(), shape, "MultiHeadAttention", None, _ref)
    assert diagnose.FAULTS["weights_head_mean_values"]["en"] not in exc.value.message["en"]


# ----------------------------------------------------------------------------- the round's faulty files
def test_the_round_adds_7_multi_head_files_each_declaring_a_round_37_diagnosis():
    assert len(ROUND) == 7
    for path in ROUND:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[1].startswith("# diagnosis: ") and lines[2].startswith("# fault: "), path.name
        assert _declared(path)[0] in ("out_proj_twice", "heads_averaged_before_v", "pad_query_axis"), path.name
    for name, key in RENAMED.items():
        assert _declared(FAULTY / name) == [key], name


@pytest.mark.slow
@pytest.mark.parametrize("path", ROUND + [FAULTY / n for n in RENAMED], ids=[p.stem for p in ROUND] + list(RENAMED))
def test_a_round_37_file_is_named_as_declared_and_quotes_only_its_own_lines(executor, path):
    declared = _declared(path)
    source = path.read_text(encoding="utf-8")
    lines, code = source.splitlines(), code_names(source)
    named: set[str] = set()
    for tid, fb in _failed(executor, path).items():
        named |= named_faults(fb)
        for n, _owner, quoted in quoted_lines(fb["en"]):
            assert 1 <= n <= len(lines) and _shown(quoted, lines[n - 1]) and not lines[n - 1].startswith("#"), \
                (tid, n, quoted)
        assert english_in_zh(fb["zh"], code) == [], (tid, fb["zh"])
    assert declared[0] in named and named <= set(declared), named
