"""The course page's NumPy lab as an assignment plug-in (see grading/suite.py)."""

from __future__ import annotations

from grader_tests.attention_numpy.drivers import NumpyAttentionStudent
from grader_tests.attention_numpy.static import FORBID_RUNTIME, PACKAGES
from grading.suite import Suite

SUITE = Suite(
    version="attention-numpy-suite 1.0",
    student_file="attention.py",
    module_name="attention",
    categories=("stable_softmax", "scaled_scores", "weights_context", "causal_mask"),
    driver=NumpyAttentionStudent,
    watch={"forbid": list(FORBID_RUNTIME)},
    packages=PACKAGES,
)
