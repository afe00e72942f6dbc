"""Round 31: the names of mistakes said "the weights equal softmax(QK^T / dk)" in tests that saw only the output
(the float64 output, the parity against PyTorch's output, multi-head outputs without weights): a claim about
weights no test had looked at. Said of the output now (diagnose.ON_OUTPUT), in both languages; the weights tests
keep the weights' wording."""

from __future__ import annotations

import pytest

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from tests.grading.helpers import english_in_zh


class _Student:
    """A ScaledDotProductAttention computing ``fault`` on every input."""

    def __init__(self, fault: str, source: str | None = None):
        self.fault, self.source = fault, source

    def sdpa(self, q, k, v, mask=None, *, return_weights=False):
        w = C.sdpa_fault_weights(self.fault, q, k, v, mask)
        out = (w.double() @ v.double()).to(q.dtype)
        return (out, w.to(q.dtype)) if return_weights else out


def _claims_weights(text: dict) -> list[str]:
    """What a name says of the weights, in either language."""
    return [w for w in ("the weights", "columns sum", "weights are") if w in text["en"]] + \
        [w for w in ("权重", "每一列的和为 1 而不是") if w in text["zh"]]


def test_scale_dk_said_from_an_output_speaks_of_the_output():
    q, k, v = C.parity_case()
    student = _Student("scale_dk")
    said = diagnose.sdpa_output(student.sdpa(q, k, v), q, k, v, student=student)
    assert said is not None and said["en"].startswith("the output equals softmax(QK^T / dk) V: the scores are "
                                                      "divided by dk (or by sqrt(dk) twice)"), said
    assert said["zh"].startswith("输出等于 softmax(QK^T / dk) V：score 被除以 dk"), said
    assert _claims_weights(said) == []
    # the weights, when the test has them, are still what it names
    _, w = student.sdpa(q, k, v, return_weights=True)
    assert diagnose.sdpa_weights(w, q, k, v, student=student) == diagnose.FAULTS["scale_dk"]


def _sdpa_output_names() -> list[tuple[str, object]]:
    """Each ScaledDotProductAttention mistake the output tests can name, with its case (with a mask for the mask
    mistakes)."""
    q, k, v = C.parity_case()
    mask = C.random_block_mask(51, (q.shape[0], 1, q.shape[-2], k.shape[-2]))
    found = []
    for fault in C.SDPA_FAULTS:
        for m in (None, mask):
            cand = C.sdpa_fault_weights(fault, q, k, v, m)
            if cand is not None and bool(cand.isfinite().all()) and fault not in ("raw_scores", "weights_transposed"):
                found.append(pytest.param(fault, m, id=f"{fault}-{'mask' if m is not None else 'none'}"))
                break
    return found


@pytest.mark.parametrize("fault, mask", _sdpa_output_names())
def test_every_name_said_from_an_output_alone_claims_nothing_of_the_weights(fault, mask):
    q, k, v = C.parity_case()
    said = diagnose.sdpa_output(_Student(fault).sdpa(q, k, v, mask), q, k, v, mask, student=_Student(fault))
    assert said is not None and _claims_weights(said) == [], (fault, said)


# The multi-head mistakes whose name (said when the weights are seen) speaks of the weights: the others claim
# nothing of them either way.
# (weights_transposed leaves the output right: nothing is named from it alone, test_diagnoses.py)
D_MODEL, HEADS, HEAD_DIM = 24, 4, 6      # d_model != head_dim ** 2: scale_dk is named as itself
def _said_of_the_output(text: dict) -> bool:
    """A name already worded as what the output matches (round 37's ``heads_averaged_before_v``: "the output matches
    the attention weights averaged over the heads before they are applied to V") speaks of the output, though the
    computation it names has weights in it."""
    return text["en"].startswith("the output ") and text["zh"].startswith("输出")


WEIGHTS_NAMES = [f for f in C.MHA_FAULTS if f not in C.MHA_WEIGHTS_FAULTS
                 and _claims_weights(text := diagnose.FAULTS[diagnose.mha_key(f, D_MODEL, HEAD_DIM)])
                 and not _said_of_the_output(text)]


@pytest.mark.parametrize("fault", WEIGHTS_NAMES)
def test_a_multi_head_name_said_from_an_output_alone_claims_nothing_of_the_weights(fault):
    params, x = C.mha_params(30, D_MODEL, HEADS, HEAD_DIM), C.tokens(42, 2, 5, D_MODEL)
    said = []
    for am in (None, C.random_block_mask(98, (2, 5, 5))):
        got = C.mha_variant(params, HEADS, HEAD_DIM, x, None, am, fault=fault)
        if got is not None and bool(got[0].isfinite().all()):
            said.append(diagnose.mha(got[0].float(), None, params, HEADS, HEAD_DIM, x, None, am))
    named = [s for s in said if s is not None]
    assert [s for s in named if _claims_weights(s)] == [], named
    # a name that is said at all from the output is the output's wording
    assert all(s == diagnose.fault_name(diagnose.mha_key(fault, D_MODEL, HEAD_DIM), on_output=True)
               or s == diagnose.FAULTS["additive_mask_output_unmasked"] for s in named), named


def test_the_names_that_speak_of_the_weights_are_known():
    assert {"qk_swapped", "scale_one", "scale_dk", "softmax_query_axis", "softmax_head_axis",
            "softmax_batch_axis"} <= set(WEIGHTS_NAMES)


def test_the_output_names_are_chinese_and_keep_the_numbers():
    for key, text in diagnose.ON_OUTPUT.items():
        assert english_in_zh(text["zh"]) == [], (key, text["zh"])
        assert text["en"].startswith("the output ") and text["zh"].startswith("输出"), key
