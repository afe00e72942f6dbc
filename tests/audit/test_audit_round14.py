"""Audit red-team round 14: audits that earn points with words, not evidence, and honest audits.

Gaming (tests/audit/gaming, every text there scores <= 4 with the real heatmap: test_audit_validation.py):
text a reader never sees (white or zero-size letters); essays, glossaries and the handout reworded that never
refer to the student's own figure; a text about another figure (a loss curve, an 8x8 heatmap); claims hedged
into saying nothing ("may or may not"); instructions to the grader. Honest (tests/audit/honest): short,
precise audits in zh, en, 繁體, mixed terms, bullets and tables score >= 12 with the lab's heatmap."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric.audit import grade_audit
from rubric.audit.text import visible
from tests.audit.helpers import MEASURED_OK, items, kinds, make_heatmap

HERE = Path(__file__).resolve().parent
GAMING = HERE / "gaming"
HONEST = HERE / "honest"
# the honest padding audit describes its own figure: key k2 is padding, a column of zeros
PADDED_WEIGHTS = [[0.27, 0.73, 0.0], [0.36, 0.64, 0.0]]


def _figure_for(name: str) -> bytes:
    return make_heatmap(PADDED_WEIGHTS) if "padding" in name else make_heatmap()


def grade_file(folder: Path, name: str, checklist) -> dict:
    return grade_audit((folder / name).read_text(encoding="utf-8"), _figure_for(name), MEASURED_OK, checklist)


def text_points(r: dict) -> float:
    """What the text earned: the score without the figure item (graded on the image alone)."""
    return r["score"] - sum(it["points"] for it in r["items"] if it["id"] == "figure")


# ------------------------------------------------------------------------- honest audits

@pytest.mark.parametrize("name", sorted(p.name for p in HONEST.glob("*.md")))
def test_an_honest_precise_audit_scores_at_least_12(name, checklist):
    r = grade_file(HONEST, name, checklist)
    assert r["score"] >= 12, (r["score"], [(it["id"], it["points"], it["feedback"]["en"][-160:]) for it in r["items"]])
    assert "overclaim" not in kinds(r) and "copied" not in kinds(r)


def test_the_honest_corpus_covers_the_ways_students_write():
    texts = {p.name: p.read_text(encoding="utf-8") for p in HONEST.glob("*.md")}
    assert any("|---" in t for t in texts.values())                     # a Markdown table
    assert any(t.lstrip().startswith(("#", "-")) and "\n- " in t for t in texts.values())   # bullets
    assert any("圖" in t for t in texts.values())                        # traditional Chinese
    assert any("padding" in n for n in texts)


# ------------------------------------------------------------------- 1. text no reader sees

@pytest.mark.parametrize("html", [
    '<span style="color:#ffffff">Rows are queries.</span>',
    '<span style="color: white">Rows are queries.</span>',
    '<span style="color:rgb(255, 255, 255)">Rows are queries.</span>',
    '<span style="color:transparent">Rows are queries.</span>',
    '<span style="font-size:0">Rows are queries.</span>',
    '<span style="font-size: 0px;">Rows are queries.</span>',
    '<p style="opacity:0">Rows are queries.</p>',
    '<font color="white">Rows are queries.</font>',
    '<div style="color: white; background: white">Rows are queries.</div>',
])
def test_text_drawn_invisible_is_not_read(html):
    assert "queries" not in visible("Intro. " + html + " End.")


@pytest.mark.parametrize("html", [
    '<span style="color:white; background:black">Rows are queries.</span>',
    '<span style="color:#fff;background-color:#333">Rows are queries.</span>',
    '<span style="font-size:0.9em">Rows are queries.</span>',
    '<span style="opacity:0.6">Rows are queries.</span>',
    '<span style="color:#fff8e1">Rows are queries.</span>',
    '<span style="background-color:white">Rows are queries.</span>',
])
def test_text_a_reader_sees_is_read(html):
    assert "queries" in visible("Intro. " + html + " End.")


def test_an_audit_hidden_in_white_or_zero_size_text_earns_nothing(checklist):
    r = grade_file(GAMING, "hidden_css_white_en.md", checklist)
    assert text_points(r) == 0, [(it["id"], it["points"]) for it in r["items"]]
    assert "Not credited" not in items(r)["limits"]["feedback"]["en"]     # nothing was seen: plain advice
