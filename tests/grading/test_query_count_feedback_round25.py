"""Round 25, read on the result page of causal_mask_diagonal_blocked.py: test_query_count_experiment_c said
"with 1 queries, the rows differ from the first 1 rows of the 16-query result by inf: each query must be
computed independently of the others". Both results had NaN in the same row (query 0 reads no key): they do
not differ, and the cause given was a guess. NaN is now said as NaN; a count of one is singular."""

from __future__ import annotations

import math

import torch

from grader_tests.attention import test_formula_shape as formula
from tests.grading.test_hints_round21 import Student, _said


def _own_key_blocked(q, k, call):
    """triu(diagonal=0): each query blocked from its own key too, so query 0 reads no key (NaN)."""
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    blocked = torch.triu(torch.ones(s.shape[-2:], dtype=torch.bool), diagonal=0)
    return torch.softmax(s.masked_fill(blocked, float("-inf")), -1)


def _by_query_count(q, k, call):
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-2]), -1)


def test_nan_in_both_results_is_said_as_nan_not_as_queries_depending_on_each_other():
    said = _said(formula.test_query_count_experiment_c, Student(_own_key_blocked))
    assert "NaN" in said["en"] and "NaN" in said["zh"], said
    assert "independently" not in said["en"] and "无关" not in said["zh"], said


def test_one_query_is_singular():
    said = _said(formula.test_query_count_experiment_c, Student(_by_query_count))
    assert said["en"].startswith("with 1 query, the row differs from the first row of the 16-query result"), said
