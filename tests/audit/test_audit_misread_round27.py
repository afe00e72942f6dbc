"""Round 27: a text that reads cells the student's weights of the lab's example do not have was told "your code
computes ... for the lab's example, which the figure plots" (图画的正是它) whatever the figure was: beside "The figure
is an image that could not be read", beside no figure at all, and beside "it plots other numbers". The flag now says
that the figure plots the weights only when the figure item credited it as the lab's grid of those weights."""

from __future__ import annotations

import pytest

from rubric.audit import grade_audit
from tests.audit.helpers import EXAMPLE_WEIGHTS, MEASURED_OK, make_cmap_heatmap, make_heatmap

WEIGHTS = EXAMPLE_WEIGHTS      # [[0.21, 0.58, 0.21], [0.09, 0.24, 0.67]]
OTHER_NUMBERS = [[0.9, 0.1, 0.5], [0.3, 0.8, 0.2]]     # test_audit_round26: a 2x3 heatmap of other numbers
TEXT = "My heatmap has rows q0, q1 and columns k0-k2.\nq0 reads mostly from k2 (0.71).\n"


def misread(result) -> dict[str, str]:
    found = [f["message"] for f in result["flags"] if "0.71" in f["message"]["en"]]
    assert len(found) == 1, result["flags"]
    return found[0]


@pytest.mark.parametrize("figure", [None, b"\x89PNG\r\n\x1a\nnot an image", make_cmap_heatmap(OTHER_NUMBERS, "viridis")],
                         ids=["no-figure", "unreadable", "other-numbers"])
def test_the_flag_never_says_the_figure_plots_the_weights_when_it_was_not_seen_to(checklist, figure):
    result = grade_audit(TEXT, figure, MEASURED_OK, checklist, weights=WEIGHTS)
    figure_item = next(i for i in result["items"] if i["id"] == "figure")
    assert figure_item["points"] == 0
    said = misread(result)
    assert "which the figure plots" not in said["en"] and "图画的正是它" not in said["zh"]
    assert "your figure does not show" not in said["en"] and "与你的图不符" not in said["zh"]
    assert "q0: [0.21, 0.58, 0.21]; q1: [0.09, 0.24, 0.67]" in said["en"] and "q0: [0.21, 0.58, 0.21]" in said["zh"]
    assert "the figure is to plot these weights" in said["en"] and "图应当画的就是这组权重" in said["zh"]


def test_a_credited_figure_of_the_weights_is_still_said_to_plot_them(checklist):
    result = grade_audit(TEXT, make_heatmap(WEIGHTS), MEASURED_OK, checklist, weights=WEIGHTS)
    assert next(i for i in result["items"] if i["id"] == "figure")["points"] > 0
    said = misread(result)
    assert "which the figure plots" in said["en"] and "图画的正是它" in said["zh"]
