"""Review D round 43, second review (MED 1, LOW 1, LOW 2): ``from pylab import *`` binds in the grader what real pylab
binds (numpy's names as the real objects, matplotlib's as inert stand-ins), and the review judges the numpy names it
binds as it judges them imported explicitly; a display wheel's ``_plotly_utils`` is no review finding in any spelling;
a star-bound name shadowed by a function's own binding is no import of it."""
from __future__ import annotations

import ast
import builtins

import pytest

from grader_tests.attention.static import _star_imports_expanded, hidden_name_uses
from grading.sandbox.pylab_names import PYLAB_DISPLAY_NAMES, PYLAB_STDLIB_NAMES
from tests.grading.helpers import SUBMISSIONS, code_score, failed_tests, grade_stored

BASE = (SUBMISSIONS / "correct" / "pep8_matplotlib_imports.py").read_text()
assert "/ math.sqrt(q.shape[-1])" in BASE
PYLAB_SQRT = "from pylab import *  # noqa\n" + BASE.replace("/ math.sqrt(q.shape[-1])", "/ sqrt(q.shape[-1])")


def test_the_pylab_display_names_are_what_the_installed_pylab_binds_besides_numpy():
    pylab = pytest.importorskip("pylab")
    import numpy
    import numpy.fft
    import numpy.linalg
    import numpy.random
    parts = (numpy, numpy.fft, numpy.random, numpy.linalg)
    mine = set()
    for name, value in vars(pylab).items():
        if name.startswith("_") or name in PYLAB_STDLIB_NAMES or name == "np" or getattr(builtins, name, object()) is value:
            continue
        if not any(getattr(m, name, object()) is value for m in parts):
            mine.add(name)
    assert mine == set(PYLAB_DISPLAY_NAMES)


def test_a_name_numpy_binds_through_the_pylab_star_import_is_no_review_finding():
    assert hidden_name_uses(PYLAB_SQRT) == ()


def test_a_numpy_loader_bound_by_the_pylab_star_import_is_found_as_when_imported_explicitly():
    assert hidden_name_uses("from pylab import *\nx = load('w.npy')\n" + BASE) == ("line 1: from numpy import load",)


@pytest.mark.slow
def test_a_correct_file_calling_sqrt_after_from_pylab_import_star_gets_full_code_marks(executor):
    result = grade_stored(executor, PYLAB_SQRT)
    assert result["load_error"] is None
    assert code_score(result) == 85, failed_tests(result)
    assert not result["review"]


@pytest.mark.slow
def test_a_top_level_figure_after_from_pylab_import_star_does_nothing_and_the_file_loads(executor):
    source = PYLAB_SQRT.replace("import math\n", "import math\nfigure()\nimshow(zeros((2, 2)))\nnp.ones(1)\n", 1)
    assert source != PYLAB_SQRT
    result = grade_stored(executor, source)
    assert result["load_error"] is None
    assert code_score(result) == 85, failed_tests(result)


PLOTLY_UTILS = {
    "from_utils_name": "from _plotly_utils.utils import PlotlyJSONEncoder  # noqa: F401\n",
    "from_package_module": "from _plotly_utils import utils  # noqa: F401\n",
    "import_then_attribute": "import _plotly_utils\nENC = _plotly_utils.utils\n",
    "import_dotted_as": "import _plotly_utils.utils as pu  # noqa: F401\n",
}


@pytest.mark.parametrize("name", sorted(PLOTLY_UTILS))
def test_plotly_utils_is_no_review_finding_in_any_spelling(name):
    assert hidden_name_uses(PLOTLY_UTILS[name] + BASE) == ()


def test_a_parameter_shadowing_a_torch_star_name_is_no_import_of_it():
    source = "from torch import *\n\n\ndef f(x, export=False):\n    return export\n\n\n" + BASE
    assert hidden_name_uses(source) == ()


def test_a_star_name_read_where_no_local_binding_shadows_it_is_still_found():
    source = "from torch import *\n\n\ndef f(x, other=False):\n    return export\n\n\n" + BASE
    assert hidden_name_uses(source) != ()


@pytest.mark.parametrize("sub", ["backends", "cpp"])
def test_a_star_import_of_torch_nn_is_read_as_binding_its_submodules_imported_or_not(sub):
    expanded = ast.unparse(_star_imports_expanded(ast.parse(f"from torch.nn import *\nx = {sub}.X\n")))
    assert expanded.splitlines()[0] == f"from torch.nn import {sub}"
