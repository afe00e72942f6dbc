"""Round 40 mend (review RG HIGH-1): the points held while the review cannot follow a file's names, as the
assignment page and the README state them, are the points the grader holds. The page said 13 (the five tests
of hidden names) since before round 29 made ``test_implementation.believed`` guard two more reports
(test_sdpa_interface's "is a Module", test_deterministic's "inputs unchanged": 2 points each), so 17 were held.
The amount is derived here from the code that withholds, so the pages cannot drift from it again."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from rubric.loader import load_rubric, suite_dir

ROOT = Path(__file__).resolve().parents[2]
SUITE = suite_dir("attention")


def _calls(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call)]


def _name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _holds_itself(fn: ast.FunctionDef) -> bool:
    """An ``expect`` whose condition asks the source review (``hidden_name_uses``): the pass is withheld while
    the review finds names it cannot follow. (A call to it only inside a message, as ``_hidden_names`` makes,
    withholds nothing.)"""
    return any(_name(c) == "expect" and c.args and any(_name(i) == "hidden_name_uses" for i in _calls(c.args[0]))
               for c in _calls(fn))


def withheld_tests() -> set[str]:
    """The suite's tests that fail on a review finding, directly or through a function of the suite they call
    (``believed``, ``_expect_inputs_unchanged``...)."""
    functions: dict[str, ast.FunctionDef] = {}
    for path in sorted(SUITE.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef):
                functions[node.name] = node
    holding = {name for name, fn in functions.items() if _holds_itself(fn)}
    while True:
        more = {name for name, fn in functions.items() if name not in holding
                and any(_name(c) in holding for c in _calls(fn))}
        if not more:
            break
        holding |= more
    return {name for name in holding if name.startswith("test_")}


def withheld_points() -> int:
    rubric = load_rubric("attention")
    return int(sum(rubric.tests[t].points for t in withheld_tests()))


def test_the_review_withholds_the_five_name_tests_and_the_two_believed_reports():
    assert withheld_tests() == {"test_no_fused_attention_static", "test_no_fused_attention_runtime",
                                "test_mha_structure", "test_mha_custom_head_dim", "test_mha_reuses_sdpa",
                                "test_sdpa_interface", "test_deterministic"}
    assert withheld_points() == 17


def _paragraph(page: str, opening: str) -> str:
    text = (SUITE / page).read_text(encoding="utf-8")
    return next(line for line in text.splitlines() if line.startswith(opening))


PAGES = {
    "ASSIGNMENT.en.md": ("Write names out.", r"(\d+) points",
                         ("hand-written attention", "reuse of `ScaledDotProductAttention`", "`head_dim`",
                          "`ScaledDotProductAttention` being an `nn.Module`", "the inputs left unchanged")),
    "ASSIGNMENT.zh.md": ("请直接写出名字。", r"共 (\d+) 分",
                         ("手写 attention", "复用 `ScaledDotProductAttention`", "`head_dim`",
                          "`ScaledDotProductAttention` 是否为 `nn.Module`", "输入张量是否保持不变")),
}


# (round 41) The packages line's exception, an attention kernel's package imported under a guard, costs what
# a name the review cannot follow costs: the page says how much (it said only "are the exception").
PACKAGES_LINE = {"ASSIGNMENT.en.md": ("- **Packages**:", r"loses the (\d+) points above"),
                 "ASSIGNMENT.zh.md": ("- **可用的包**：", r"会失去上文所说的 (\d+) 分")}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_page_states_the_points_the_grader_holds_and_what_they_rest_on(page):
    opening, amount, parts = PAGES[page]
    para = _paragraph(page, opening)
    assert re.findall(amount, para) == [str(withheld_points())]
    for part in parts:
        assert part in para, part
    opening, amount = PACKAGES_LINE[page]
    packages = _paragraph(page, opening)
    assert re.findall(amount, packages) == [str(withheld_points())], packages
    # the cost is the kernels' exception's, stated after it (not the optional import's, which is free)
    assert packages.index("`xformers`") < re.search(amount, packages).start(), packages  # type: ignore[union-attr]


def test_the_readme_states_the_same_amount_where_it_says_what_a_finding_holds():
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    stated = re.findall(r"(\d+) points, as the assignment page states", text)
    stated += re.findall(r"loses the (\d+) points resting on the jail's own reports", text)
    assert len(stated) == 2 and set(stated) == {str(withheld_points())}, stated
