"""Review D mend, round 43 (MED 2): ``from torch.nn import *`` / ``from torch.nn.functional import *`` (as quick
notebooks write them) are read as the names they bind, so a correct file gets full marks (it got 68/85 and was told
it "computes or hides names at run time"), and every check judges the names as it judges the explicit import."""
from __future__ import annotations

from pathlib import Path

import pytest

from grader_tests.attention.static import fused_attention_uses, hidden_name_uses
from tests.grading.helpers import code_score, failed_tests, grade_stored

STAR = (Path(__file__).parents[1] / "fixtures" / "mend_round43" / "star_import_functional.py").read_text()
FUSED = STAR.replace("weights = softmax(scores, dim=-1)  # noqa: F405",
                     "weights = softmax(scores, dim=-1)  # noqa: F405\n        return scaled_dot_product_attention(q, k, v)")
EXPLICIT = FUSED.replace("from torch.nn import *  # noqa: F403", "from torch.nn import Module").replace(
    "from torch.nn.functional import *  # noqa: F403", "from torch.nn.functional import scaled_dot_product_attention, softmax")


def test_star_imports_of_torch_nn_and_functional_are_no_review_finding():
    assert "from torch.nn import *" in STAR and "from torch.nn.functional import *" in STAR
    assert hidden_name_uses(STAR) == ()


def test_fused_attention_reached_through_a_star_import_is_found_as_through_the_explicit_import():
    assert fused_attention_uses(FUSED) == fused_attention_uses(EXPLICIT) != []


@pytest.mark.parametrize(("code", "finding"), [
    ("from torch import *\nx = load\n", "line 1: from torch import load"),
    ("from torch.nn.functional import *\nx = __wrapped__\n", None),
])
def test_a_name_a_star_import_binds_is_judged_as_its_explicit_import(code, finding):
    found = hidden_name_uses(code)
    if finding is None:
        assert not any("import *" in f for f in found), found
    else:
        assert finding in found


def test_a_star_import_binding_nothing_the_file_uses_is_no_finding():
    assert hidden_name_uses("from torch.nn.functional import *\nimport torch\nx = torch.ones(1)\n") == ()


def test_a_star_import_of_another_module_stays_a_finding():
    assert hidden_name_uses("from torch.utils import *\nx = data\n")
    assert hidden_name_uses("from os import *\nx = path\n")


@pytest.mark.slow
def test_a_correct_file_written_with_star_imports_gets_full_code_marks(executor):
    result = grade_stored(executor, STAR)
    assert code_score(result) == 85, failed_tests(result)
    assert not result["review"]
