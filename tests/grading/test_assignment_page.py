"""The assignment page and the README state the contract as it is graded: eval mode, the importable
packages (the Suite's list) and the tolerances (the suite's constants)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader_tests.attention import cases as C
from grader_tests.attention.suite import SUITE
from grader_tests.attention.test_implementation import FLOAT64_TOL, HALF_TOL

ROOT = Path(__file__).resolve().parents[2]
# The assignment page is one file per language (round 32: ASSIGNMENT.zh.md, ASSIGNMENT.en.md)
PAGES = {"ASSIGNMENT.en.md": (ROOT / "grader_tests" / "attention" / "ASSIGNMENT.en.md").read_text(encoding="utf-8"),
         "README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
ZH_PAGE = (ROOT / "grader_tests" / "attention" / "ASSIGNMENT.zh.md").read_text(encoding="utf-8")


def _written(tol: float) -> str:
    """1e-05 as a person writes it: 1e-5."""
    mantissa, _, exponent = f"{tol:e}".partition("e")
    m = mantissa.rstrip("0").rstrip(".")
    return f"{m}e{int(exponent)}"


@pytest.mark.parametrize("page", list(PAGES))
def test_page_states_eval_mode_packages_and_tolerances(page):
    text = PAGES[page]
    assert "eval()" in text
    assert set(SUITE.packages) == {"torch", "numpy", "einops"}
    for package in SUITE.packages:
        assert package in text, package
    assert "standard library" in text
    for tol in (C.OUT_TOL, C.ROW_SUM_TOL, FLOAT64_TOL, HALF_TOL):
        assert _written(tol) in text, (page, tol)
    assert "float16" in text


def test_assignment_page_states_it_in_chinese_too():
    text = ZH_PAGE
    assert "`eval()` 模式下评分" in text and "Python 标准库" in text and "容差" in text
    for package in SUITE.packages:
        assert f"`{package}`" in text, package
    for tol in (C.OUT_TOL, C.ROW_SUM_TOL, FLOAT64_TOL, HALF_TOL):
        assert _written(tol) in text, tol
    assert "float16" in text


@pytest.mark.parametrize("text, section", [(PAGES["ASSIGNMENT.en.md"], "The hand example and the figure"),
                                           (ZH_PAGE, "手算例子与图")])
def test_assignment_page_publishes_the_hand_example_the_figure_and_readings_are_checked_against(text, section):
    """The handout asks for "small integer tensors" without naming them, and the audit checks the figure and its
    readings against the weights of the grader's example: a student must be able to draw that one (round 26)."""
    import re
    import textwrap

    import torch

    block = re.search(r"```python\n(.*?)```", text[text.index(section):], re.S)
    assert block, "the hand example's tensors are not on the page"
    published: dict = {}
    exec(textwrap.dedent(block.group(1)), {"torch": torch}, published)  # our own page's code block
    for name, tensor in zip("qkv", C.hand_example(), strict=True):
        assert torch.equal(published[name], tensor), name
    assert "weights[0, 0]" in text
