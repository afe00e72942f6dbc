"""Round 31: a key said to receive the most (or least) attention with no total word and no query ("k2 gets the most
attention", 第二个键得到的注意力最多) was not read, so it was never checked against the weights: a false one was
credited like a true one. Now it is read as the key's column; since the student may mean one query's row, it is false
only when it is false of the column and of every row.

And a layout statement said of every row ("each row is a query", 每一行是一个 query) was read as "every query reads
most from" the key named later in the sentence: an honest "each row is a query, each column is a key, and k2 gets the
most attention" was flagged as misreading the figure and its layout earned nothing."""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, items, kinds

# EXAMPLE_WEIGHTS = [[0.21, 0.58, 0.21], [0.09, 0.24, 0.67]]: columns sum to 0.30, 0.82, 0.88; q0 peaks at k1, q1 at k2


def _grade(sentence: str, checklist, figure: bytes) -> dict:
    return grade_audit(sentence + "\n", figure, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)


def _misread(r: dict) -> bool:
    return any(f["kind"] == "figure" and "does not show" in f["message"]["en"] for f in r["flags"])


FALSE = [
    "My heatmap has query rows and key columns, and k0 gets the most attention.",
    "My heatmap has query rows and key columns, and k0 receives the most weight.",
    "My heatmap has query rows and key columns, and the second key gets the least attention.",
    "我的热力图行是 query，列是 key，第一个键得到的注意力最多。",
    "我的热力图行是 query，列是 key，k0 得到的权重最大。",
    "我的热力图行是 query，列是 key，第二个键得到的注意力最少。",
]
TRUE = [
    "My heatmap has query rows and key columns, and k2 gets the most attention.",
    "My heatmap has query rows and key columns, and k0 gets the least attention.",
    # true of q0's row (k1 is its peak), nearly true of the column (0.82 against 0.88): perhaps the row was meant
    "My heatmap has query rows and key columns, and k1 receives the most weight.",
    "我的热力图行是 query，列是 key，第三个键得到的注意力最多。",
    "我的热力图行是 query，列是 key，第二个键得到的注意力最多。",
    "我的热力图行是 query，列是 key，k0 得到的权重最少。",
]


@pytest.mark.parametrize(("sentence", "true"), [(s, False) for s in FALSE] + [(s, True) for s in TRUE])
def test_a_column_claim_without_a_total_is_checked_against_the_weights(sentence, true, checklist, heatmap_png):
    """Before: never read, so a false one was credited like a true one and nothing flagged; after: a false one is
    flagged and its sentence earns nothing, a true one is credited."""
    r = _grade(sentence, checklist, heatmap_png)
    assert _misread(r) is not true, r["flags"]
    assert (items(r)["figure_reading"]["points"] > 0) is true, items(r)["figure_reading"]["feedback"]["en"]


@pytest.mark.parametrize("sentence", [
    "Each row is a query, each column is a key, and k2 gets the most attention.",
    "我的热力图每一行是一个 query，每一列是一个 key，第三个键得到的注意力最多。",
    "Every row represents a query and every column a key, and k2 gets the most weight.",
])
def test_every_row_as_the_layouts_subject_is_not_read_as_every_querys_peak(sentence, checklist, heatmap_png):
    """Before: "k2 is the peak of every row" (false of q0), flagged, the layout not credited; after: credited."""
    r = _grade(sentence, checklist, heatmap_png)
    assert "figure" not in kinds(r), r["flags"]
    assert items(r)["figure_reading"]["points"] > 0, items(r)["figure_reading"]["feedback"]["en"]


@pytest.mark.parametrize("sentence", [
    "k2 is the key both queries read most.",
    "两个 query 都主要看 k2。",
])
def test_every_query_read_at_one_key_is_still_checked_against_every_row(sentence, checklist, heatmap_png):
    """q0 peaks at k1: the claim is false of q0's row."""
    assert _misread(_grade("My heatmap has query rows and key columns. " + sentence, checklist, heatmap_png))


@pytest.mark.parametrize("sentence", [
    "In general the first key gets the most attention in such models.",
    "k0 is the most important key.",
])
def test_a_generic_statement_or_an_importance_claim_is_no_column_reading(sentence, checklist, heatmap_png):
    r = _grade("My heatmap has query rows and key columns. " + sentence, checklist, heatmap_png)
    assert not _misread(r), r["flags"]


@pytest.mark.parametrize("sentence", [
    "For q0, k1 gets the most attention, while for q1, k2 gets the most attention.",
    "Looking at q0: k1 gets the most weight.",
])
def test_a_key_read_after_its_query_and_a_comma_is_that_querys_peak_not_also_its_column(sentence, checklist):
    from rubric.audit.grade import _cell_claims, _segment

    claims = _cell_claims(checklist, _segment(checklist, sentence, axes_swapped=False))
    assert claims and all(cl.row is not None and not cl.column for cl in claims), claims


@pytest.mark.parametrize("sentence", [
    "If k0 gets the most attention, it does not mean that k0 causes the output.",
    "如果第一个键得到的注意力最多，也不能说明它导致了输出。",
    "假设 k0 得到的权重最大，这也不代表因果。",
    "Even if k0 received the most attention overall, that is no causal effect.",
])
def test_a_supposed_column_is_no_reading_of_the_figure(sentence, checklist, heatmap_png):
    """A caveat built on a supposition is not flagged as misreading the figure, and keeps its credit."""
    r = _grade("My heatmap has query rows and key columns. " + sentence, checklist, heatmap_png)
    assert not _misread(r), r["flags"]
    assert items(r)["limits"]["points"] > 0, items(r)["limits"]["feedback"]["en"]


@pytest.mark.parametrize("sentence", ["如果把两行加起来，k0 得到的注意力最多。", "If I add both rows up, k0 gets the most attention overall."])
def test_a_column_summed_after_an_if_clause_is_still_read(sentence, checklist, heatmap_png):
    assert _misread(_grade("My heatmap has query rows and key columns. " + sentence, checklist, heatmap_png))
