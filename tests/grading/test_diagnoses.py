"""Every hint is confirmed before it is shown: each fault model names its own mistake, and never
fires on correct numbers or on another mistake's numbers (trusted side only, no sandbox)."""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose

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
    assert diagnose.sdpa_weights(w, q, k, v, mask) == diagnose.FAULTS[fault]


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
}


def _mha_models():
    for name, case in MHA_CASES.items():
        for fault in C.MHA_FAULTS:
            got = C.mha_variant(fault=fault, **MHA_SETUP, **case)
            if got is not None and bool(torch.isfinite(got[0]).all()):
                yield pytest.param(fault, case, got[0].float(), got[1].float(), id=f"{fault}-{name}")


@pytest.mark.parametrize("fault, case, out, w", list(_mha_models()))
def test_mha_output_of_a_mistake_is_named_as_that_mistake_only(fault, case, out, w):
    expected = diagnose.FAULTS[diagnose.mha_key(fault, case["x"].shape[-1], MHA_SETUP["head_dim"])]
    assert diagnose.mha(out, w, **MHA_SETUP, **case) == expected
    assert diagnose.mha(out, None, **MHA_SETUP, **case) == expected


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
    assert set(C.SDPA_FAULTS) | set(C.MHA_FAULTS) <= set(diagnose.FAULTS)
