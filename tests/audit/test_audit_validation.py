"""Agreement with a careful teaching assistant: the validation audits (tests/audit/validation, hand
scores decided before the checker ran) and a gaming corpus of texts that say nothing true."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK

HERE = Path(__file__).resolve().parent
VALIDATION = HERE / "validation"
GAMING = HERE / "gaming"
HAND = yaml.safe_load((VALIDATION / "hand_scores.yaml").read_text(encoding="utf-8"))


def _score(name: str, figure: bytes, checklist) -> float:
    spec = HAND["audits"][name]
    text = (VALIDATION / name).read_text(encoding="utf-8")
    # the weights the figure plots, as the grader passes the student's own (example_weights["student"])
    return grade_audit(text, figure, spec.get("measured", MEASURED_OK), checklist, weights=EXAMPLE_WEIGHTS)["score"]


@pytest.fixture(scope="module")
def scores(heatmap_png, checklist) -> dict[str, float]:
    return {name: _score(name, heatmap_png, checklist) for name in HAND["audits"]}


def test_validation_set_is_large_and_every_audit_has_a_hand_score_and_a_reason():
    texts = {p.name for p in VALIDATION.iterdir() if p.suffix in (".md", ".txt")}
    assert len(texts) >= 30
    assert texts == set(HAND["audits"])
    for name, spec in HAND["audits"].items():
        assert 0 <= spec["hand"] <= 15 and spec["reason"].strip(), name


def test_mean_absolute_difference_from_hand_scores_is_at_most_1_5(scores):
    diffs = {name: abs(scores[name] - spec["hand"]) for name, spec in HAND["audits"].items()}
    mad = sum(diffs.values()) / len(diffs)
    worst = sorted(diffs.items(), key=lambda kv: -kv[1])[:5]
    assert mad <= 1.5, (mad, worst)


@pytest.mark.parametrize("a, b", HAND["pairs"], ids=["|".join(p) for p in HAND["pairs"]])
def test_translation_and_layout_pairs_score_within_one_point(a, b, scores):
    assert abs(scores[a] - scores[b]) <= 1.0, (scores[a], scores[b])


@pytest.mark.parametrize("name", sorted(p.name for p in GAMING.iterdir()))
def test_gaming_text_scores_at_most_4_even_with_the_real_heatmap(name, heatmap_png, checklist):
    text = (GAMING / name).read_text(encoding="utf-8")
    r = grade_audit(text, heatmap_png, MEASURED_OK, checklist, weights=EXAMPLE_WEIGHTS)
    assert r["score"] <= 4, (r["score"], [(it["id"], it["points"]) for it in r["items"]])
