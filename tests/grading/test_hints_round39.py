"""Round 39, brief D: the multi-head hints' open misses.

1. The output projection applied twice is quoted with the line of __init__ that builds it (``self.to_out =
   nn.Linear(...)``), and so are its wrong sizes (test_mha_structure's "out_proj maps a -> b features").
2. Weights returned as the heads' mean ([B, 1, Nq, Nk] or [B, Nq, Nk]: drivers.validate_weights) quote the line
   that averages them, when the source shows one whose operand is the attention weights; none otherwise.
3. Heads folded and unfolded in different orders are named when the numbers show it (folds.py).
4. ``w.sum(dim=1) / X`` is a mean over the heads only when X is the number of heads.
"""

from __future__ import annotations

import pytest

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose, folds, source_lines
from grader_tests.attention.drivers import validate_weights
from grading.proxy import Feedback
from tests.grading.helpers import SUBMISSIONS
from tests.grading.probes_round38 import line_of, probe

CLS = "MultiHeadAttention"
PARAMS = C.mha_params(30, 16, 4, 4)
X = C.tokens(42, 2, 5, 16)


def _ref_weights():
    return C.ref_mha(PARAMS, 4, 4, X)[1]


def _headless_feedback(source: str | None, keepdim: bool = True) -> dict:
    w = _ref_weights().mean(1, keepdim=keepdim).float()
    with pytest.raises(Feedback) as got:
        validate_weights(w, [2, 4, 5, 5], CLS, None, _ref_weights, source)
    return got.value.message


# ----------------------------------------------------------------------------- 2. the heads' mean returned
RETURNED_MEAN = probe(proj="y = self.out_proj(merged)\nattn = attn.mean(dim=1, keepdim=True)")


@pytest.mark.parametrize("keepdim", [True, False], ids=["B1NN", "BNN"])
def test_weights_returned_as_the_heads_mean_quote_the_line_that_averages_them(keepdim):
    said = _headless_feedback(RETURNED_MEAN, keepdim)
    line = line_of(RETURNED_MEAN, "attn = attn.mean(dim=1, keepdim=True)")
    assert diagnose.FAULTS["weights_head_mean_values"]["en"] in said["en"]
    assert f"line {line} averages over dim 1, the heads of [B, H, Nq, Nk]: attn.mean(dim=1, keepdim=True)" \
        in said["en"], said["en"]
    assert f"第 {line} 行沿 dim 1 取平均" in said["zh"], said["zh"]


@pytest.mark.parametrize("source", [
    None,
    # a mean over dim 1 of the tokens, not of the weights: no line
    probe(pre="token_mean = x.mean(dim=1)\nq = q + 0 * token_mean[:, None, None, :4]"),
    # a sum over the heads divided by a scale, not by the number of heads: no mean at all (4.)
    probe(proj="y = self.out_proj(merged)\nattn = attn.sum(1, keepdim=True) / math.sqrt(self.d_k)"),
], ids=["no_source", "token_mean", "sum_over_scale"])
def test_weights_returned_as_the_heads_mean_quote_no_line_the_source_does_not_show(source):
    said = _headless_feedback(source)
    assert diagnose.FAULTS["weights_head_mean_values"]["en"] in said["en"]
    assert "averages over dim" not in said["en"] and "取平均" not in said["zh"], said


# ----------------------------------------------------------------------------- 4. sum / X is a mean when X is H
def _sum_over(divisor: str, pre: str = "") -> str:
    return probe(post=f"{pre}\nout = torch.matmul(attn.sum(dim=1, keepdim=True) / {divisor}, v)".strip("\n"))


@pytest.mark.parametrize("source", [_sum_over("self.h"), _sum_over("attn.size(1)"), _sum_over("attn.shape[-3]"),
                                    _sum_over("n_heads", "n_heads = attn.shape[1]")],
                         ids=["init_attr", "size_1", "shape_minus_3", "local_from_shape"])
def test_a_sum_over_the_heads_divided_by_their_number_is_quoted_as_their_mean(source):
    said = source_lines.head_mean_note(source, CLS)
    assert said is not None and said["en"].startswith(f"line {line_of(source, 'attn.sum(dim=1')} averages over dim 1")


@pytest.mark.parametrize("source", [_sum_over("self.d_k"), _sum_over("4"), _sum_over("math.sqrt(self.d_k)"),
                                    _sum_over("attn.size(-1)"),
                                    _sum_over("n_heads", "n_heads = attn.shape[1]\nn_heads = self.d_k")],
                         ids=["head_dim", "constant", "scale", "key_count", "rebound"])
def test_a_sum_over_the_heads_divided_by_another_number_is_no_mean(source):
    assert source_lines.head_mean_note(source, CLS) is None


# ----------------------------------------------------------------------------- 1. where to_out is built
TO_OUT = probe().replace("self.out_proj = nn.Linear(self.h * self.d_k, d_model)",
                         "self.to_out = nn.Linear(self.h * self.d_k, self.d_k)\n        self.out_proj = self.to_out")


def _info(fin: int, fout: int) -> dict:
    lin = {"is_linear": True, "bias": True}
    return {"children": {"q_proj": {**lin, "in_features": 16, "out_features": 16},
                         "k_proj": {**lin, "in_features": 16, "out_features": 16},
                         "v_proj": {**lin, "in_features": 16, "out_features": 16},
                         "out_proj": {**lin, "in_features": fin, "out_features": fout}}}


def test_an_out_projection_of_the_wrong_size_names_the_line_that_builds_it_through_its_alias():
    from grader_tests.attention.drivers import projection_problem

    said = projection_problem(_info(16, 4), 16, 16, source=TO_OUT)
    line = line_of(TO_OUT, "self.to_out = nn.Linear(")
    assert said["en"] == (f"out_proj maps 16 -> 4 features, expected 16 -> 16; line {line} builds self.to_out: "
                          "nn.Linear(self.h * self.d_k, self.d_k)"), said
    assert said["zh"].endswith(f"；第 {line} 行构建了 self.to_out：nn.Linear(self.h * self.d_k, self.d_k)"), said
    # no source, or two assignments of it: the sizes alone
    assert "builds" not in projection_problem(_info(16, 4), 16, 16)["en"]
    twice = TO_OUT.replace("self.out_proj = self.to_out", "self.out_proj = self.to_out\n        self.to_out = None")
    assert "builds" not in projection_problem(_info(16, 4), 16, 16, source=twice)["en"]


def test_to_out_applied_twice_names_where_to_out_is_built():
    source = probe(proj="y = self.to_out(self.to_out(merged))").replace(
        "self.out_proj = nn.Linear(self.h * self.d_k, d_model)",
        "self.to_out = nn.Linear(self.h * self.d_k, d_model)\n        self.out_proj = self.to_out")
    said = source_lines.out_proj_twice_note(source, CLS)
    line = line_of(source, "self.to_out = nn.Linear(")
    assert said["en"].endswith(f"self.to_out(self.to_out(merged)); line {line} builds self.to_out: "
                               "nn.Linear(self.h * self.d_k, d_model)"), said
    assert said["zh"].endswith(f"；第 {line} 行构建了 self.to_out：nn.Linear(self.h * self.d_k, d_model)"), said
    # out_proj is the fault's own name: its building line adds nothing
    plain = source_lines.out_proj_twice_note(probe(proj="y = self.out_proj(self.out_proj(merged))"), CLS)
    assert "builds" not in plain["en"]


# ----------------------------------------------------------------------------- 3. heads folded and unfolded
def _kernel_case(B: int = 2, H: int = 3):
    q, k, v = C.qkv(5, B, H, 4, 6, 8, 5)
    return q, k, v, C.ref_output(q, k, v), C.ref_weights(q, k)


def _bh_hb(t):          # rearrange 'b h ... -> (b h) ...', then '(h b) ... -> b h ...'
    B, H, *rest = t.shape
    return t.reshape(B * H, *rest).reshape(H, B, *rest).transpose(0, 1)


def _hb_bh(t):          # rearrange 'b h ... -> (h b) ...', then '(b h) ... -> b h ...'
    B, H, *rest = t.shape
    return t.transpose(0, 1).reshape(B * H, *rest).reshape(B, H, *rest)


@pytest.mark.parametrize(("unfold", "key"), [(_bh_hb, "bh_hb"), (_hb_bh, "hb_bh")], ids=["bh_hb", "hb_bh"])
def test_a_kernel_unfolding_the_heads_in_the_other_order_is_named_from_its_output_and_weights(unfold, key):
    q, k, v, out, w = _kernel_case()
    assert folds.fold_order(unfold(out).float(), out) == key
    assert diagnose.sdpa_output(unfold(out).float(), q, k, v) == folds.FOLDS[key]
    assert diagnose.sdpa_weights(unfold(w).float(), q, k, v) == folds.FOLDS[key]
    assert diagnose.results_exchanged(unfold(out).float(), q, k, v) == folds.FOLDS[key]


@pytest.mark.parametrize("moved", [
    lambda t: t,                                  # right
    lambda t: t.roll(1, 0),                       # samples rolled, heads kept: no fold
    lambda t: t.flip(1),                          # heads reversed within each sample
    lambda t: _bh_hb(t) * 1.01,                   # the fold's places, other values
], ids=["right", "samples_rolled", "heads_flipped", "other_values"])
def test_blocks_moved_otherwise_name_no_fold(moved):
    _, _, _, out, _ = _kernel_case()
    assert folds.fold_order(moved(out).float(), out) is None


def test_with_as_many_samples_as_heads_no_fold_is_named():
    """B == H: the fold's permutation is then the plain exchange of the axes, which transpose(0, 1) makes too."""
    _, _, _, out, _ = _kernel_case(3, 3)
    assert folds.fold_order(_bh_hb(out).float(), out) is None and folds.fold_order(out.transpose(0, 1), out) is None


def test_the_fold_texts_are_chinese_in_zh():
    from tests.grading.helpers import english_in_zh

    for text in folds.FOLDS.values():
        assert english_in_zh(text["zh"]) == [], text["zh"]


# ----------------------------------------------------------------------------- the round's faulty variants
# One multi-head mistake in a public style each (tests/fixtures/submissions/faulty/r39mh_*.py), each hint read against
# the code: named as its header declares and nothing else ("none": described only), every quoted line the file's own.
VARIANTS = sorted((SUBMISSIONS / "faulty").glob("r39mh_*.py"))


def test_the_round_adds_11_faulty_variants_each_declaring_its_diagnosis_and_style():
    assert len(VARIANTS) == 11
    for path in VARIANTS:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[1].startswith("# diagnosis: ") and lines[2].startswith("# fault: "), path.name
        assert "In the style of " in lines[3], path.name


@pytest.mark.slow
@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
def test_a_variant_is_named_as_declared_and_nothing_else(executor, path):
    from tests.grading.helpers import code_names, english_in_zh, named_faults
    from tests.grading.test_hints_round35 import _declared, _failed
    from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines

    declared = _declared(path)
    source = path.read_text(encoding="utf-8")
    lines, code = source.splitlines(), code_names(source)
    named: set[str] = set()
    failed = _failed(executor, path)
    assert failed, path.name
    for tid, fb in failed.items():
        named |= named_faults(fb)
        for n, _owner, shown in quoted_lines(fb["en"]):
            assert 1 <= n <= len(lines) and _shown(shown, lines[n - 1]), (tid, n, shown)
        assert english_in_zh(fb["zh"], code) == [], (tid, fb["zh"])
    if declared == ["none"]:
        assert named == set(), named
    else:
        assert declared[0] in named and named <= set(declared), named


@pytest.mark.slow
def test_to_out_applied_twice_is_quoted_with_the_line_that_builds_to_out(executor):
    from tests.grading.test_hints_round35 import _failed

    path = SUBMISSIONS / "faulty" / "r39mh_to_out_sequential_twice.py"
    source = path.read_text(encoding="utf-8")
    said = _failed(executor, path)["test_mha_self_attention_parity"]
    built = line_of(source, 'self.to_out = nn.Sequential(nn.Linear(inner, d_model)')
    assert f"line {built} builds self.to_out: nn.Sequential(nn.Linear(inner, d_model)" in said["en"], said["en"]
