"""The attention lab as an assignment plug-in (see grading/suite.py)."""

from __future__ import annotations

from grader_tests.attention import cases
from grader_tests.attention.drivers import AttentionStudent
from grader_tests.attention.signature_note import (
    load_note,
    no_contract_class,
    nothing_defined,
    nothing_tested,
    result_note,
)
from grader_tests.attention.static import (
    COUNT_RUNTIME,
    FORBID_RUNTIME,
    give_up,
    outcome_review,
    review_reasons,
)
from grading.suite import DISPLAY_PACKAGES, Suite


def hand_reference() -> list[list[float]]:
    """The reference weights of the lab's hand example, shown beside the student's on the result page."""
    q, k, _ = cases.hand_example()
    return [[float(x) for x in row] for row in cases.ref_weights(q, k)[0, 0].tolist()]


PACKAGES = ("torch", "numpy", "einops")

SUITE = Suite(
    version="attention-suite 1.0",
    student_file="attention.py",
    module_name="attention",
    categories=("formula_shape", "implementation", "mask_parity"),
    driver=AttentionStudent,
    watch={"count": list(COUNT_RUNTIME), "forbid": list(FORBID_RUNTIME)},
    warm=cases.warm,
    example_reference=hand_reference,
    review=review_reasons,
    review_gave_up=give_up,
    packages=PACKAGES,
    result_note=result_note,
    nothing_defined=lambda source: (nothing_defined(source, PACKAGES + DISPLAY_PACKAGES)
                                    or no_contract_class(source, PACKAGES + DISPLAY_PACKAGES)),
    load_note=load_note,
    nothing_tested=nothing_tested,
    outcome_review=outcome_review,
    fixed=cases.FIXED,
)
