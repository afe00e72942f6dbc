"""Every hint is confirmed before it is shown: each fault model names its own mistake, and never
fires on correct numbers or on another mistake's numbers (trusted side only, no sandbox)."""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grader_tests.attention.checks import max_err
from grading.i18n import SEMI, cat
from grading.proxy import Feedback
from tests.grading.helpers import fault_texts


class Faulty:
    """A stand-in for the student's code (``AttentionStudent``'s ``sdpa`` and ``mha``) computing one
    fault model on every input, or a custom weights function ``weights(q, k, mask)``."""

    def __init__(self, fault: str | None = None, weights=None, mha_scale=None):
        self.fault, self.weights, self.mha_scale = fault, weights, mha_scale

    def sdpa(self, q, k, v, mask=None, *, return_weights=False):
        if self.weights is not None:
            w = self.weights(q, k, mask)
        else:
            w = C.sdpa_fault_weights(self.fault, q, k, v, mask) if self.fault in C.SDPA_FAULTS else None
            if w is None:
                raise Feedback({"en": "not applicable", "zh": "不适用"})
        out = (w.double() @ v.double()).to(q.dtype)
        return (out, w.to(q.dtype)) if return_weights else out

    def mha(self, d_model, num_heads, head_dim=None, params=None):
        fault, hd = self.fault, head_dim or d_model // num_heads

        class Module:
            def __init__(self):
                self.params = params

            def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
                if self_.mha_scale is not None:   # a scale of its own, e.g. a constant
                    q, kk, vv, mask = C.mha_heads({n: t.double() for n, t in params.items()}, num_heads, hd,
                                                  x.double(), None if context is None else context.double(),
                                                  additive_mask, key_padding_mask)
                    w = torch.softmax(q @ kk.transpose(-2, -1) * self_.mha_scale(hd) + mask, -1)
                    out = C.mha_merge({n: t.double() for n, t in params.items()}, w @ vv).float()
                    return (out, w.float()) if return_weights else out
                got = C.mha_variant(params, num_heads, hd, x, context, additive_mask, key_padding_mask, fault=fault)
                if got is None:
                    raise Feedback({"en": "not applicable", "zh": "不适用"})
                return (got[0].float(), got[1].float()) if return_weights else got[0].float()

        self_ = self
        return Module()


SDPA_CASES = {  # shapes where each SDPA mistake is possible (qk_swapped needs Nq == Nk)
    "rect": C.qkv(11, 2, 4, 7, 9, 16, 12),
    "square": C.qkv(12, 2, 3, 6, 6, 8, 8),
}


def _masked(case):
    q, k, v = case
    return C.random_block_mask(5, (q.shape[0], q.shape[1], q.shape[2], k.shape[2]))


def _sdpa_models():
    for name, case in SDPA_CASES.items():
        q, k, v = case
        for mask in (None, _masked(case)):
            for fault in C.SDPA_FAULTS:
                w = C.sdpa_fault_weights(fault, q, k, v, mask)
                if w is not None and bool(torch.isfinite(w).all()):
                    yield pytest.param(fault, q, k, v, mask, w.float(),
                                       id=f"{fault}-{name}-{'mask' if mask is not None else 'nomask'}")


@pytest.mark.parametrize("fault, q, k, v, mask, w", list(_sdpa_models()))
def test_sdpa_weights_of_a_mistake_are_named_as_that_mistake_only(fault, q, k, v, mask, w):
    name = "weights_unmasked" if fault == "mask_ignored" else fault   # only the weights were seen
    assert diagnose.sdpa_weights(w, q, k, v, mask) == diagnose.FAULTS[name]
    # a student whose code makes this mistake on every input: confirmed on the second case
    assert diagnose.sdpa_weights(w, q, k, v, mask, student=Faulty(fault)) == diagnose.FAULTS[name]


@pytest.mark.parametrize("name", list(SDPA_CASES))
@pytest.mark.parametrize("masked", [False, True])
def test_no_sdpa_hint_fires_on_correct_weights_or_outputs(name, masked):
    q, k, v = SDPA_CASES[name]
    mask = _masked(SDPA_CASES[name]) if masked else None
    w = C.ref_weights(q, k, mask).float()
    assert diagnose.sdpa_weights(w, q, k, v, mask) is None
    assert diagnose.sdpa_output(C.ref_output(q, k, v, mask), q, k, v, mask) is None
    # correct float32 numbers with an ordinary rounding error are not "float16"
    assert diagnose.sdpa_weights(w + 3e-6, q, k, v, mask) is None


def test_float16_is_named_only_when_every_value_went_through_half_precision():
    q, k, v = SDPA_CASES["rect"]
    w = C.ref_weights(q, k).float()
    assert diagnose.sdpa_weights(w.half().float(), q, k, v) == diagnose.FAULTS["float16"]
    assert not diagnose.half_precision(w)
    assert not diagnose.half_precision(w.half())           # float16 results for float16 inputs are fine
    assert not diagnose.half_precision(torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]))  # integers


MHA_SETUP = dict(params=C.mha_params(30, 16, 2, 8), num_heads=2, head_dim=8)
MHA_CASES = {
    "self": dict(x=C.tokens(42, 2, 5, 16)),
    "cross": dict(x=C.tokens(43, 2, 3, 16), context=C.tokens(44, 2, 7, 16)),
    "self+pad": dict(x=C.tokens(42, 2, 5, 16), key_padding_mask=torch.tensor([[False] * 5, [False] * 3 + [True] * 2])),
    "cross+pad": dict(x=C.tokens(84, 2, 5, 16), context=C.tokens(85, 2, 8, 16),
                      key_padding_mask=torch.tensor([[False] * 8, [False] * 5 + [True] * 3])),
    "cross+mask": dict(x=C.tokens(86, 2, 4, 16), context=C.tokens(87, 2, 6, 16),
                       additive_mask=C.random_block_mask(95, (2, 4, 6))),
    "cross+mask, B=3": dict(x=C.tokens(88, 3, 4, 16), context=C.tokens(89, 3, 6, 16),   # B != num_heads
                            additive_mask=C.random_block_mask(93, (3, 4, 6))),
    "cross+mask [B,H,Nq,Nk]": dict(x=C.tokens(90, 2, 4, 16), context=C.tokens(91, 2, 6, 16),
                                   additive_mask=C.random_block_mask(92, (2, 2, 4, 6))),
}


# Every fault model against every case is ~360 diagnoses of ~0.25 s (each tries every model): the fast
# lane runs every model on the two cases that hold both kinds of mask (a padding mask; a per-head
# additive mask with cross-attention) and each model those two cannot show on its first other case;
# the slow lane runs the rest.
FAST_MHA_CASES = ("self+pad", "cross+mask [B,H,Nq,Nk]")


def _mha_models():
    covered: set[str] = set()
    order = [*FAST_MHA_CASES, *(n for n in MHA_CASES if n not in FAST_MHA_CASES)]
    for name in order:
        case = MHA_CASES[name]
        for fault in C.MHA_FAULTS:
            fast = name in FAST_MHA_CASES or fault not in covered
            marks = () if fast else (pytest.mark.slow,)
            got = C.mha_variant(fault=fault, **MHA_SETUP, **case)
            if got is not None and bool(torch.isfinite(got[0]).all()):
                covered.add(fault)
                yield pytest.param(fault, case, got[0].float(), got[1].float(), id=f"{fault}-{name}", marks=marks)


@pytest.mark.parametrize("fault, case, out, w", list(_mha_models()))
def test_mha_output_of_a_mistake_is_named_as_that_mistake_only(fault, case, out, w):
    key = diagnose.mha_key(fault, case["x"].shape[-1], MHA_SETUP["head_dim"])
    seen = diagnose._MhaCase(out, None, MHA_SETUP["params"], MHA_SETUP["num_heads"], MHA_SETUP["head_dim"], case["x"],
                             case.get("context"), case.get("additive_mask"), case.get("key_padding_mask"))
    if key == "pad_sign" and diagnose._lifted_as_filled(seen):
        key = "pad_sign_or_fill"   # round 41 mend: * 1e8 or 1e9 rounded in float32 gives a fill's numbers too
    expected = diagnose.FAULTS[key]
    assert diagnose.mha(out, w, **MHA_SETUP, **case) == expected
    output_only = diagnose.FAULTS["additive_mask_output_unmasked"] if fault == "mask_ignored" else \
        diagnose.fault_name(key, on_output=True)      # round 31: said of the output, the only thing seen
    twins = [t for t in diagnose.OUTPUT_TWINS.get(fault, ())
             if (got := C.mha_variant(fault=t, **MHA_SETUP, **case)) is not None and max_err(got[0], out) < 1e-6]
    if fault in C.MHA_WEIGHTS_FAULTS:       # the output is right: nothing to name from it alone
        twins = [fault]
    assert diagnose.mha(out, None, **MHA_SETUP, **case) == (None if twins else output_only)
    with_student = diagnose.mha(out, w, **MHA_SETUP, **case, student=Faulty(fault))
    if fault == "qk_swapped" and "context" not in case and with_student != cat(diagnose.SDPA_CULPRIT, expected, sep=SEMI):
        # round 33: in self-attention the wrapper's queries and keys swapped are said too (its kernel was not blamed)
        assert with_student == cat(expected, diagnose.QK_SWAPPED_IN_WRAPPER, sep=SEMI)
    elif fault in C.SDPA_FAULTS:   # where the stand-in's ScaledDotProductAttention alone makes it: named as its own
        assert with_student in (expected, cat(diagnose.SDPA_CULPRIT, diagnose.FAULTS[fault], sep=SEMI))
    else:
        assert with_student == expected


def test_scale_by_head_dim_is_named_for_both_causes_when_they_coincide():
    params, x = C.mha_params(30, 16, 4, 4), C.tokens(42, 2, 5, 16)   # d_model 16 = head_dim 4 squared
    out, w = C.mha_variant(params, 4, 4, x, fault="scale_dk")
    assert diagnose.mha(out, w, params, 4, 4, x) == diagnose.FAULTS["scale_dk_or_dmodel"]


@pytest.mark.parametrize("name", list(MHA_CASES))
def test_no_mha_hint_fires_on_the_reference(name):
    case = MHA_CASES[name]
    out, w = C.ref_mha(MHA_SETUP["params"], MHA_SETUP["num_heads"], MHA_SETUP["head_dim"], case["x"],
                       case.get("context"), case.get("additive_mask"), case.get("key_padding_mask"))
    assert diagnose.mha(out, w.float(), **MHA_SETUP, **case) is None


def test_every_fault_model_has_both_languages():
    for key, text in diagnose.FAULTS.items():
        assert text["en"] and text["zh"] and text["en"] != text["zh"], key
    # a model may be a variant of another mistake, named by its text (mha_key: pad_inverted_finite)
    assert set(C.SDPA_FAULTS) | {diagnose.mha_key(f, 16, 4) for f in C.MHA_FAULTS} <= set(diagnose.FAULTS)


def _scaled(c):
    return lambda q, k, mask: torch.softmax(C.ref_scores(q, k, mask, scale=c(q)), -1)


def _scores(q, k, mask):
    """Scores in the inputs' own dtype, as a hand-written softmax computes them."""
    s = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    return s if mask is None else s + mask


def test_a_scale_that_only_coincides_with_a_mistake_on_one_case_is_not_named():
    q, k, v = C.qkv(108, 1, 2, 6, 10, 8, 4)                       # dk = 8
    constant = _scaled(lambda q: 1 / 8)                           # hard-coded "d_k = 64"
    w = constant(q.double(), k.double(), None).float()
    assert diagnose.sdpa_weights(w, q, k, v) == diagnose.FAULTS["scale_dk"]        # what one case shows
    assert diagnose.sdpa_weights(w, q, k, v, student=Faulty(weights=constant)) is None
    hq, hk, hv = C.hand_example()                                 # H = 1
    by_heads = _scaled(lambda q: q.shape[1] ** -0.5)              # divides by sqrt(H), not sqrt(dk)
    w = by_heads(hq.double(), hk.double(), None).float()
    assert diagnose.sdpa_weights(w, hq, hk, hv) == diagnose.FAULTS["scale_one"]
    assert diagnose.sdpa_weights(w, hq, hk, hv, student=Faulty(weights=by_heads)) is None
    assert diagnose.sdpa_output(w.double() @ hv.double(), hq, hk, hv, student=Faulty(weights=by_heads)) is None


def test_a_student_failing_on_the_second_case_gets_no_name():
    q, k, v = SDPA_CASES["rect"]
    w = C.sdpa_fault_weights("scale_one", q, k, v).float()
    assert diagnose.sdpa_weights(w, q, k, v, student=Faulty("not a fault")) is None


def test_the_second_case_changes_every_size_and_keeps_equal_sizes_equal():
    q, k, v = C.qkv(12, 2, 3, 6, 6, 8, 8)
    mask = C.random_block_mask(5, (1, 3, 6, 6))
    pq, pk, pv, pm = diagnose.probe_case(q, k, v, mask)
    assert pq.shape[-2] == pk.shape[-2] and pq.shape[-1] == pv.shape[-1]      # Nq == Nk, dk == dv kept
    old, new = (*q.shape, k.shape[-2], v.shape[-1]), (*pq.shape, pk.shape[-2], pv.shape[-1])
    assert all(a != b for a, b in zip(old, new, strict=True))
    assert pm.shape == (1, pq.shape[1], pq.shape[2], pk.shape[2]) and pm.dtype == mask.dtype
    assert bool(torch.isinf(pm).any()) and not bool(torch.isinf(pm[..., 0]).any())


def test_a_multi_head_scale_that_only_coincides_on_one_head_dim_is_not_named():
    params, x = C.mha_params(30, 12, 3, 8), C.tokens(42, 2, 5, 12)   # head_dim 8
    out, w = C.mha_variant(params, 3, 8, x, fault="scale_dk")
    assert diagnose.mha(out, w, params, 3, 8, x) == diagnose.FAULTS["scale_dk"]
    assert diagnose.mha(out, w, params, 3, 8, x, student=Faulty(mha_scale=lambda hd: 1 / 8)) is None
    assert diagnose.mha(out, w, params, 3, 8, x, student=Faulty(mha_scale=lambda hd: 1 / hd)) == \
        diagnose.FAULTS["scale_dk"]


def _no_max(q, k, mask):
    e = torch.exp(_scores(q, k, mask))
    return e / e.sum(-1, keepdim=True)


def _global_max(q, k, mask):
    s = _scores(q, k, mask)
    e = torch.exp(s - s.max())
    return e / e.sum(-1, keepdim=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_large_score_failures_are_named_by_what_a_probe_of_equal_row_maxima_shows(dtype):
    assert diagnose.large_scores(Faulty(weights=_no_max), dtype) == diagnose.FAULTS["overflow"]
    assert diagnose.large_scores(Faulty(weights=_global_max), dtype) == diagnose.FAULTS["row_max"]
    assert diagnose.large_scores(Faulty("not a fault"), dtype) is None


def test_bfloat16_is_named_apart_from_float16():
    q, k, v = SDPA_CASES["rect"]
    w = C.ref_weights(q, k).float()
    assert diagnose.sdpa_weights(w.bfloat16().float(), q, k, v) == diagnose.FAULTS["bfloat16"]
    assert diagnose.sdpa_weights(w.half().float(), q, k, v) == diagnose.FAULTS["float16"]


def test_a_multi_head_scale_constant_equal_to_one_over_sqrt_d_model_is_not_named():
    params, x = C.mha_params(30, 16, 4, 4), C.tokens(42, 2, 5, 16)   # 1/4 = 1/sqrt(16) = 1/head_dim
    out, w = C.mha_variant(params, 4, 4, x, fault="scale_dk")
    assert diagnose.mha(out, w, params, 4, 4, x, student=Faulty(mha_scale=lambda hd: 1 / 4)) is None


def test_equal_infinities_agree_and_different_ones_are_infinitely_far():
    """-inf - -inf is NaN in IEEE arithmetic: a blocked raw score of -inf in both the student's
    numbers and a fault model's must count as agreeing, not as an error."""
    inf = float("inf")
    a = torch.tensor([-inf, 1.0, inf])
    assert diagnose._err(a, a.clone()) == 0.0
    assert max_err(a, a.clone()) == 0.0
    for other in ([inf, 1.0, inf], [-inf, 1.0, 2.0], [-inf, 1.0, -inf]):
        assert diagnose._err(a, torch.tensor(other)) == inf
        assert max_err(a, torch.tensor(other)) == inf
    nan = torch.tensor([float("nan"), 1.0])
    assert diagnose._err(nan, nan.clone()) == 0.0          # a fully blocked row in both
    assert max_err(nan, nan.clone()) == inf               # a NaN is never close to the reference


def test_raw_scores_returned_with_a_mask_are_named_despite_the_blocked_minus_infinities():
    q, k, v = SDPA_CASES["rect"]
    mask = _masked(SDPA_CASES["rect"])
    w = C.sdpa_fault_weights("raw_scores", q, k, v, mask).float()
    assert bool(torch.isinf(w).any())
    assert diagnose.sdpa_weights(w, q, k, v, mask) == diagnose.FAULTS["raw_scores"]
    assert diagnose.sdpa_weights(w, q, k, v, mask, student=Faulty("raw_scores")) == diagnose.FAULTS["raw_scores"]


class WrappedSdpa:
    """A stand-in whose MultiHeadAttention is a correct wrapper (heads, padding and additive masks
    as the reference builds them) around its own ScaledDotProductAttention ``weights(q, k, mask)``."""

    def __init__(self, weights):
        self.weights = weights

    def sdpa(self, q, k, v, mask=None, *, return_weights=False):
        w = self.weights(q.double(), k.double(), None if mask is None else mask.double())
        out = (w @ v.double()).to(q.dtype)
        return (out, w.to(q.dtype)) if return_weights else out

    def mha(self, d_model, num_heads, head_dim=None, params=None):
        hd, student = head_dim or d_model // num_heads, self

        class Module:
            def __init__(self):
                self.params = params

            def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
                q, k, v, mask = C.mha_heads(params, num_heads, hd, x, context, additive_mask, key_padding_mask)
                o, w = student.sdpa(q, k, v, mask.expand(*mask.shape[:2], q.shape[2], k.shape[2]),
                                    return_weights=True)
                out = C.mha_merge(params, o)
                return (out, w) if return_weights else out

        return Module()


def _inverted(q, k, mask):
    return C.sdpa_fault_weights("mask_inverted", q, k, q, mask)


def _skips_broadcast_mask(q, k, mask):
    """Applies a mask only when it has exactly the scores' shape (a "defensive" check)."""
    s = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    return torch.softmax(s + mask if mask is not None and mask.shape == s.shape else s, -1)


WRAPPER_FAULTS = ("pad_inverted", "pad_query_axis", "pad_ignored", "mask_ignored", "mask_after_softmax")


@pytest.mark.parametrize("bug", [_inverted, _skips_broadcast_mask], ids=["inverted", "skips_broadcast"])
@pytest.mark.parametrize("name", ["self+pad", "cross+pad", "cross+mask"])
def test_a_mask_mistake_of_sdpa_is_named_as_its_own_not_as_the_correct_wrappers(bug, name):
    student, case = WrappedSdpa(bug), MHA_CASES[name]
    m = student.mha(16, 2, 8, params=MHA_SETUP["params"])
    out, w = m(**case, return_weights=True)
    got = diagnose.mha(out, w, **MHA_SETUP, **case, student=student)
    assert got is not None and got["en"].startswith(diagnose.SDPA_CULPRIT["en"])
    assert got["zh"].startswith(diagnose.SDPA_CULPRIT["zh"])
    assert not any(diagnose.FAULTS[f]["en"] in got["en"] for f in WRAPPER_FAULTS if f != "mask_ignored"), got
    expected = "mask_inverted" if bug is _inverted else "mask_ignored"
    assert diagnose.FAULTS[expected]["en"] in got["en"], got


def test_the_wrapper_fault_a_sdpa_mask_mistake_coincides_with_on_one_case_is_not_named():
    """What the adversarial tester saw: one padding case alone matches the wrapper's pad_inverted."""
    case = MHA_CASES["self+pad"]
    out, w = WrappedSdpa(_inverted).mha(16, 2, 8, params=MHA_SETUP["params"])(**case, return_weights=True)
    assert diagnose.mha(out, w, **MHA_SETUP, **case) == diagnose.FAULTS["pad_inverted"]   # the coincidence
    assert diagnose.mha(out, w, **MHA_SETUP, **case, student=WrappedSdpa(_inverted)) != diagnose.FAULTS["pad_inverted"]


class OnlyAtBatchTwo(Faulty):
    """A wrapper whose output matches ``fault`` on batches of 2 (the suite's cases) and is correct
    otherwise: a match that a second case of other sizes does not repeat."""

    def mha(self, d_model, num_heads, head_dim=None, params=None):
        inner = Faulty(self.fault).mha(d_model, num_heads, head_dim, params)
        hd = head_dim or d_model // num_heads

        class Module:
            def __init__(self):
                self.params = params

            def __call__(self, x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False):
                if x.shape[0] == 2:
                    return inner(x, context, additive_mask, key_padding_mask=key_padding_mask,
                                 return_weights=return_weights)
                out, w = C.ref_mha(params, num_heads, hd, x, context, additive_mask, key_padding_mask)
                return (out, w.float()) if return_weights else out

        return Module()


@pytest.mark.parametrize("fault, name", [("pad_inverted", "cross+pad"), ("pad_ignored", "self+pad"),
                                         ("pad_query_axis", "self+pad"), ("mask_ignored", "cross+mask"),
                                         ("shared_q", "cross"), ("split_no_transpose", "self")])
def test_a_wrapper_mistake_is_named_only_when_a_second_case_of_other_sizes_repeats_it(fault, name):
    case = MHA_CASES[name]
    out, w = C.mha_variant(fault=fault, **MHA_SETUP, **case)
    out, w = out.float(), w.float()
    assert diagnose.mha(out, w, **MHA_SETUP, **case) is not None                       # one case matches
    assert diagnose.mha(out, w, **MHA_SETUP, **case, student=Faulty(fault)) is not None  # repeated: named
    assert diagnose.mha(out, w, **MHA_SETUP, **case, student=OnlyAtBatchTwo(fault)) is None


# Wrapper mistakes with a fault model of their own (round 14): each fixture makes one, with a correct
# ScaledDotProductAttention, and the multi-head tests must name exactly it, in both languages.
WRAPPER_FIXTURES = {"mha_kv_projections_swapped": "kv_swapped", "heads_split_head_dim_first": "split_dim_first",
                    "mha_residual_inside": "residual", "mha_layer_norm_inside": "layer_norm",
                    "mha_post_norm_residual": "residual_layer_norm", "padding_zeroes_values": "pad_on_values",
                    "mha_wrapper_transposes_weights": "weights_transposed"}
MHA_PARITY_TESTS = ("test_mha_self_attention_parity", "test_mha_cross_attention_parity", "test_mha_custom_head_dim")
PADDING_TESTS = ("test_padding_keys_get_zero_weight", "test_mha_additive_mask", "test_mha_single_head")


@pytest.mark.parametrize("name", list(WRAPPER_FIXTURES))
def test_a_wrapper_mistake_of_the_corpus_is_named_in_both_languages_and_nothing_else_is(executor, name):
    from tests.grading.helpers import SUBMISSIONS, graded_corpus_file

    key = WRAPPER_FIXTURES[name]
    # the corpus file's one grading of the session (test_grading.py asks for it too): read, not changed
    result = graded_corpus_file(executor, SUBMISSIONS / "faulty" / f"{name}.py")
    failed = {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}
    named_in = PADDING_TESTS if key.startswith("pad_") else MHA_PARITY_TESTS   # padding mistakes: padding tests
    if key == "weights_transposed":     # the output is right: the test of the per-head weights' layout names it
        named_in = ("test_mha_weights_per_head",)
    assert set(named_in) <= set(failed), failed
    for test_id in named_in:
        fb = failed[test_id]
        assert diagnose.FAULTS[key]["en"] in fb["en"] and diagnose.FAULTS[key]["zh"] in fb["zh"], fb
    for test_id, fb in failed.items():
        others = [k for k, text in fault_texts() if k != key and (text["en"] in fb["en"]
                                                                           or text["zh"] in fb["zh"])]
        assert not others, (test_id, others)
        # the ScaledDotProductAttention of these files is correct: it is never blamed
        assert diagnose.SDPA_CULPRIT["en"] not in fb["en"] and diagnose.SDPA_CULPRIT["zh"] not in fb["zh"]
    # the single-head tests of ScaledDotProductAttention all pass
    assert not any(t.startswith(("test_output_parity", "test_weights_parity", "test_hand_example")) for t in failed)


def test_the_new_wrapper_models_are_not_named_for_a_correct_wrapper_around_a_faulty_sdpa():
    """A wrong scale in ScaledDotProductAttention under a correct wrapper changes every output, like
    a residual or a LayerNorm would: it is named as the SDPA's own, never as these."""
    student, case = WrappedSdpa(lambda q, k, mask: C.sdpa_fault_weights("scale_one", q, k, q, mask)), MHA_CASES["cross"]
    out, w = student.mha(16, 2, 8, params=MHA_SETUP["params"])(**case, return_weights=True)
    got = diagnose.mha(out, w, **MHA_SETUP, **case, student=student)
    assert got is not None and diagnose.FAULTS["scale_one"]["en"] in got["en"]
    assert not any(diagnose.FAULTS[k]["en"] in got["en"] for k in WRAPPER_FIXTURES.values())


def test_weights_without_the_head_axis_are_said_to_lack_it_and_other_shapes_are_not():
    from grader_tests.attention.drivers import validate

    def said(shape):
        try:
            validate(torch.zeros(*shape), [2, 4, 3, 6], "MultiHeadAttention", "weights", swapped=[2, 4, 6, 3])
        except Feedback as exc:
            return exc.message
        raise AssertionError("accepted")

    headless = said([2, 3, 6])
    assert headless["en"] == ("the weights of MultiHeadAttention have shape [2,3,6], expected [2,4,3,6]: that is the "
                              "expected shape without the head axis (dim 1, of size 4): return the weights of every "
                              "head separately, one [Nq, Nk] matrix per head")
    assert "去掉 head 轴（dim 1，大小为 4）" in headless["zh"]
    for other in ([2, 4, 6, 3], [2, 3, 6, 4], [3, 6]):
        assert "head axis" not in said(other)["en"] and "head 轴" not in said(other)["zh"]


def test_a_wrapper_averaging_its_weights_over_heads_is_told_so_in_every_weights_test(executor):
    from tests.grading.helpers import SUBMISSIONS, graded_corpus_file

    path = SUBMISSIONS / "faulty" / "mha_weights_averaged_over_heads.py"
    failed = {t["id"]: t["feedback"] for t in graded_corpus_file(executor, path)["tests"]
              if t["outcome"] != "passed"}
    for test_id in ("test_mha_weights_per_head", "test_mha_additive_mask", "test_padding_keys_get_zero_weight"):
        assert "without the head axis (dim 1, of size 4)" in failed[test_id]["en"], failed[test_id]
        assert "去掉 head 轴（dim 1，大小为 4）" in failed[test_id]["zh"], failed[test_id]
    assert "without the head axis (dim 1, of size 1)" in failed["test_mha_single_head"]["en"]


@pytest.mark.parametrize("name", ["self+pad", "cross+pad"])
def test_padding_zeroed_after_the_softmax_and_on_the_values_are_told_apart_by_the_weights_only(name):
    """Both give the same output: with the weights each is named, from the output alone neither."""
    case = MHA_CASES[name]
    (o1, w1), (o2, w2) = (C.mha_variant(fault=f, **MHA_SETUP, **case) for f in ("mask_after_softmax", "pad_on_values"))
    assert max_err(o1, o2) < 1e-9 and max_err(w1, w2) > 0.1
    assert diagnose.mha(o2.float(), w2.float(), **MHA_SETUP, **case) == diagnose.FAULTS["pad_on_values"]
    assert diagnose.mha(o1.float(), w1.float(), **MHA_SETUP, **case) == diagnose.FAULTS["mask_after_softmax"]
    assert diagnose.mha(o2.float(), None, **MHA_SETUP, **case) is None
    assert diagnose.mha(o2.float(), w2.float(), **MHA_SETUP, **case, student=Faulty("pad_on_values")) == \
        diagnose.FAULTS["pad_on_values"]


def test_dropout_left_on_in_the_wrapper_is_named_where_it_shows_and_never_blamed_on_the_padding_mask(executor):
    """F.dropout without training=self.training in MultiHeadAttention: every multi-head test that
    fails sees a result that changes from one call to the next, and says so; the padding test no
    longer reads the random change as the padding mask's doing ("the mask must only affect ...")."""
    from tests.grading.helpers import SUBMISSIONS, graded_corpus_file

    path = SUBMISSIONS / "faulty" / "mha_dropout_in_eval.py"
    failed = {t["id"]: t["feedback"] for t in graded_corpus_file(executor, path)["tests"]
              if t["outcome"] != "passed"}
    dropout = diagnose.FAULTS["dropout"]
    for test_id in (*MHA_PARITY_TESTS, *PADDING_TESTS, "test_padding_leaves_valid_results_unchanged"):
        assert dropout["en"] in failed[test_id]["en"] and dropout["zh"] in failed[test_id]["zh"], failed[test_id]
    unchanged = failed["test_padding_leaves_valid_results_unchanged"]
    assert "called twice with the same inputs" in unchanged["en"] and "调用两次" in unchanged["zh"]
    assert "the mask must only affect" not in unchanged["en"] and "mask 只应影响" not in unchanged["zh"]
    for test_id, fb in failed.items():
        others = [k for k, text in fault_texts() if k != "dropout" and text["en"] in fb["en"]]
        assert not others, (test_id, others)


def test_a_wrapper_ignoring_additive_mask_names_additive_mask_not_the_padding_mask_it_applied():
    case = dict(MHA_CASES["cross+mask"], key_padding_mask=torch.tensor([[False] * 6, [False] * 4 + [True] * 2]))
    out, w = C.mha_variant(fault="mask_ignored", **MHA_SETUP, **case)
    got = diagnose.mha(out.float(), w.float(), **MHA_SETUP, **case, student=Faulty("mask_ignored"))
    assert got == diagnose.FAULTS["additive_mask_ignored"]
    assert "without additive_mask" in got["en"] and "不加 additive_mask" in got["zh"]
    assert diagnose.mha(out.float(), None, **MHA_SETUP, **case) == diagnose.FAULTS["additive_mask_output_unmasked"]


# ------------------------------------------------------------------ an additive mask given to the wrong heads
HEAD_MASK_CASES = {   # MHA_SETUP has 2 heads: a batch of 2 lines up with them, a batch of 3 does not
    "additive_mask_batch_as_head": "cross+mask",
    "additive_mask_repeat_order": "cross+mask, B=3",
    "additive_mask_interleave_order": "cross+mask, B=3",
    "additive_mask_first_head": "cross+mask [B,H,Nq,Nk]",     # every head reads head 0's mask
    "additive_mask_first_sample": "cross+mask, B=3",          # every sample reads sample 0's mask
}


@pytest.mark.parametrize("fault", list(HEAD_MASK_CASES))
def test_an_additive_mask_read_by_the_wrong_heads_is_named_when_a_second_case_repeats_it(fault):
    case = MHA_CASES[HEAD_MASK_CASES[fault]]
    out, w = C.mha_variant(fault=fault, **MHA_SETUP, **case)
    out, w = out.float(), w.float()
    assert diagnose.mha(out, w, **MHA_SETUP, **case, student=Faulty(fault)) == diagnose.FAULTS[fault]
    assert diagnose.mha(out, w, **MHA_SETUP, **case, student=OnlyAtBatchTwo(fault)) is None or \
        case["x"].shape[0] != 2
    text = diagnose.FAULTS[fault]
    fix = {"additive_mask_first_head": "as it is", "additive_mask_first_sample": "additive_mask[b]"}
    assert "additive_mask" in text["en"] and fix.get(fault, "additive_mask[:, None]") in text["en"]
    assert "head" in text["zh"] or "样本" in text["zh"]


def test_a_mask_without_a_head_axis_that_fails_to_broadcast_is_named_from_a_batch_of_as_many_samples_as_heads():
    """B=2 samples, 4 heads: a [B,Nq,Nk] mask added to [B,H,Nq,Nk] scores without unsqueeze(1) raises
    a broadcasting error; the hint names it only when the student's module, run with B == H (where it
    broadcasts), reads the mask of sample h in head h, on two cases of other sizes."""
    params, x, ctx = C.mha_params(34, 16, 4, 4), C.tokens(86, 2, 4, 16), C.tokens(87, 2, 6, 16)
    mask = C.random_block_mask(95, (2, 4, 6))
    assert C.mha_variant(params, 4, 4, x, ctx, mask, fault="additive_mask_batch_as_head") is None   # cannot run
    got = diagnose.mha_mask_failure(Faulty("additive_mask_batch_as_head"), 4, 4, x, ctx, mask)
    assert got is not None and diagnose.FAULTS["additive_mask_batch_as_head"]["en"] in got["en"]
    assert diagnose.FAULTS["additive_mask_batch_as_head"]["zh"] in got["zh"]
    assert "as many samples as heads (4 and 3 heads" in got["en"] and "样本数与 head 数相同时（4 个和 3 个 head" in got["zh"]
    one_head = diagnose.mha_mask_failure(Faulty("additive_mask_batch_as_head"), 1, 16, x, ctx, mask)
    assert one_head is not None and "(2 and 3 heads" in one_head["en"]      # MultiHeadAttention(16, 1): probes of 2, 3
    for other in (None, "mask_ignored", "additive_mask_repeat_order"):      # runs, but reads other masks
        assert diagnose.mha_mask_failure(Faulty(other), 4, 4, x, ctx, mask) is None, other
    assert diagnose.mha_mask_failure(Faulty("additive_mask_batch_as_head"), 4, 4, x, ctx, None) is None
    assert diagnose.mha_mask_failure(Faulty("additive_mask_batch_as_head"), 4, 4, x, ctx,
                                     C.random_block_mask(96, (2, 4, 4, 6))) is None     # 4-D: not this mistake


HEAD_MASK_SOURCES = {
    "additive_mask_batch_as_head": "mask = mask + additive_mask",
    "additive_mask_repeat_order": ("mask = mask + (additive_mask.repeat(self.heads, 1, 1).view(B, self.heads, Nq, Nk) "
                                   "if additive_mask.dim() == 3 else additive_mask)"),
    "additive_mask_first_head": ("mask = mask + (additive_mask[:, None] if additive_mask.dim() == 3 "
                                 "else additive_mask[:, :1])"),
    "additive_mask_first_sample": ("mask = mask + (additive_mask[:1, None] if additive_mask.dim() == 3 "
                                   "else additive_mask[:1])"),
}


@pytest.mark.parametrize("fault", list(HEAD_MASK_SOURCES))
def test_a_wrapper_giving_additive_mask_to_the_wrong_heads_is_told_so_in_the_additive_mask_test(executor, fault):
    from grading.runner import GradeInput, grade
    from tests.grading.helpers import SUBMISSIONS

    right = "mask = mask + (additive_mask[:, None] if additive_mask.dim() == 3 else additive_mask)"
    source = (SUBMISSIONS / "correct" / "einsum.py").read_text(encoding="utf-8")
    assert right in source
    result = grade(GradeInput(code=source.replace(right, HEAD_MASK_SOURCES[fault]).encode()), "attention", executor)
    failed = {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}
    for test_id in ("test_mha_additive_mask", "test_mha_single_head")[:2 if "batch" in fault else 1]:
        fb = failed[test_id]
        assert diagnose.FAULTS[fault]["en"] in fb["en"] and diagnose.FAULTS[fault]["zh"] in fb["zh"], fb
    for test_id, feedback in failed.items():
        others = [k for k, text in fault_texts() if k != fault and text["en"] in feedback["en"]]
        assert not others, (test_id, others)


def test_an_sdpa_that_fails_on_a_2d_mask_and_broadcasts_the_4d_ones_is_told_what_worked(executor):
    """A [Nq,Nk] mask treated as if it had a batch or head axis (unsqueeze(1) for any mask of fewer
    than 4 dimensions) fails to broadcast; the feedback says that the 4-D masks, run as a probe,
    work, instead of the bare error alone."""
    from grading.runner import GradeInput, grade
    from tests.grading.helpers import SUBMISSIONS

    source = (SUBMISSIONS / "correct" / "einsum.py").read_text(encoding="utf-8")
    right = "            scores = scores + additive_mask\n"
    wrong = ("            if additive_mask.dim() < 4:\n                additive_mask = additive_mask.unsqueeze(1)\n"
             + right)
    assert right in source
    result = grade(GradeInput(code=source.replace(right, wrong).encode()), "attention", executor)
    failed = {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}
    assert set(failed) == {"test_mask_broadcasts_over_batch_and_heads"}, failed
    fb = failed["test_mask_broadcasts_over_batch_and_heads"]
    assert "masks of shape [1,1,4,6], [2,1,4,6] and [1,3,4,6] work but [4,6] does not" in fb["en"], fb
    assert "[1,1,4,6]、[2,1,4,6] 和 [1,3,4,6] 的 mask 可以，但 [4,6] 不行" in fb["zh"], fb


UNSQUEEZED_SOURCES = {   # a wrapper that adds a head axis to every additive_mask, a 4-D one too
    "einsum": ("mask = mask + (additive_mask[:, None] if additive_mask.dim() == 3 else additive_mask)",
               "mask = mask + additive_mask.unsqueeze(1)"),
    "reference": ("mask = mask + (additive_mask.unsqueeze(1) if additive_mask.dim() == 3 else additive_mask)",
                  "mask = mask + additive_mask.unsqueeze(1)"),
}


@pytest.mark.parametrize("name", list(UNSQUEEZED_SOURCES))
def test_a_wrapper_adding_a_head_axis_to_a_4d_mask_is_told_the_3d_mask_works_and_the_4d_one_does_not(executor,
                                                                                                      name):
    """additive_mask.unsqueeze(1) whatever its rank: a [B,H,Nq,Nk] mask becomes 5-D and the module
    fails with a broadcasting or reshape error far from the cause; the feedback says (from probes of
    this case's sizes and of other sizes) that the same mask given as [B,Nq,Nk] works and as
    [B,H,Nq,Nk] raises, and that a 4-D mask is added as it is."""
    from grading.runner import GradeInput, grade
    from tests.grading.helpers import SUBMISSIONS

    right, wrong = UNSQUEEZED_SOURCES[name]
    source = (SUBMISSIONS / "correct" / f"{name}.py").read_text(encoding="utf-8")
    assert right in source
    result = grade(GradeInput(code=source.replace(right, wrong).encode()), "attention", executor)
    failed = {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}
    assert set(failed) == {"test_mha_additive_mask"}, failed
    fb = failed["test_mha_additive_mask"]
    assert fb["en"].startswith("additive_mask [B,H,Nq,Nk]: MultiHeadAttention.forward raised"), fb
    assert "with the same mask given as [B,H,Nq,Nk] (repeated over the heads) it raises an error" in fb["en"], fb
    assert "add a head axis (additive_mask[:, None]) only when additive_mask.dim() == 3" in fb["en"], fb
    assert "以 [B,H,Nq,Nk]（沿 head 重复）给出时会报错" in fb["zh"] and "additive_mask.dim() == 3" in fb["zh"], fb


@pytest.mark.parametrize("fault", [None, "mask_ignored", "additive_mask_first_head", "additive_mask_first_sample"])
def test_the_mask_rank_hint_is_not_given_when_the_3d_mask_fails_too_or_the_4d_one_works(fault):
    """The probes of a 3-D and a 4-D mask of the same content: a correct wrapper, and one whose
    mistake shows with a 3-D mask too (or not with a mask the same for every head), get no such hint."""
    x, ctx = C.tokens(86, 2, 4, 16), C.tokens(87, 2, 6, 16)
    mask4 = C.random_block_mask(96, (2, 2, 4, 6))
    assert diagnose.mha_mask_rank(Faulty(fault), 2, 8, x, ctx, mask4) is None
    assert diagnose.mha_mask_rank(Faulty(None), 2, 8, x, ctx, C.random_block_mask(95, (2, 4, 6))) is None
