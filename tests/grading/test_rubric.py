"""The rubric file, its loader and the pure scoring functions."""

from __future__ import annotations

import copy

import pytest
import yaml

from grader_tests.attention import static
from rubric import scoring
from rubric.loader import RubricError, load_rubric, parse_rubric, rubric_path, suite_test_ids


def _data():
    return yaml.safe_load(rubric_path("attention").read_text(encoding="utf-8"))


def test_rubric_matches_the_suite_exactly():
    rubric = load_rubric("attention")          # raises if a test is missing on either side
    assert set(rubric.tests) == suite_test_ids("attention")
    assert {c: cat.max for c, cat in rubric.categories.items()} == {
        "formula_shape": 25, "implementation": 30, "mask_parity": 30, "audit": 15}
    for cat in ("formula_shape", "implementation", "mask_parity"):
        assert sum(t.points for t in rubric.tests_in(cat)) == rubric.categories[cat].max
    assert any(t.hidden for t in rubric.tests.values())
    assert all(t.description["en"] and t.description["zh"] for t in rubric.tests.values())


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["tests"]["test_hand_example"].update(points=4), "add up to"),
    (lambda d: d["tests"]["test_hand_example"].update(category="nope"), "unknown category"),
    (lambda d: d["tests"]["test_hand_example"].update(visibility="secret"), "visibility"),
    (lambda d: d["tests"]["test_hand_example"]["description"].pop("zh"), "zh"),
    (lambda d: d["categories"]["audit"].update(max=20), "max_total"),
    (lambda d: d["tests"].update(test_extra=dict(d["tests"]["test_hand_example"])), "add up to"),
])
def test_loader_rejects_inconsistent_rubrics(mutate, message):
    data = copy.deepcopy(_data())
    mutate(data)
    with pytest.raises(RubricError, match=message):
        parse_rubric(data)


def test_scoring_is_pure_and_never_passes_missing_tests():
    rubric = load_rubric("attention")
    outcomes = {tid: {"outcome": "passed", "feedback": None} for tid in rubric.tests}
    outcomes["test_hand_example"] = {"outcome": "failed", "feedback": "x"}
    del outcomes["test_row_sums_are_one"]
    rows = scoring.score_tests(rubric, outcomes)
    by_id = {r["id"]: r for r in rows}
    assert by_id["test_hand_example"]["points"] == 0
    assert by_id["test_row_sums_are_one"]["outcome"] == "error"
    cats = scoring.score_categories(rubric, rows, audit_score=99)
    assert cats["audit"]["score"] == 15                      # clamped to the category max
    assert cats["formula_shape"]["score"] == 25 - 3 - 3
    assert scoring.total(cats) == 100 - 6


def test_static_check_finds_fused_attention_without_false_positives():
    own = ("import torch\n\ndef scaled_dot_product_attention(q, k, v):\n    return q\n\n"
           "class A:\n    def scaled_dot_product_attention(self):\n        return 1\n"
           "    def f(self):\n        return self.scaled_dot_product_attention() + scaled_dot_product_attention(1, 2, 3)\n")
    assert static.fused_attention_uses(own) == []
    assert static.fused_attention_uses("import torch.nn.functional as F\nF.scaled_dot_product_attention(1)\n")
    assert static.fused_attention_uses("from torch.nn.functional import scaled_dot_product_attention\n")
    assert static.fused_attention_uses("import torch\ntorch.nn.MultiheadAttention(4, 2)\n")
    assert static.fused_attention_uses("from torch import nn\nm = nn.MultiheadAttention(4, 2)\n")
    assert static.fused_attention_uses("import torch\ngetattr(torch.nn.functional, 'scaled_dot_product_attention')\n")
    assert static.fused_attention_uses("this is not python (") == []
