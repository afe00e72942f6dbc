"""Review D mend, round 43 (HIGH 1): every module a display package's wheel installs at its top level imports as
the package does (matplotlib's own ``mpl_toolkits`` and ``pylab``: a correct file importing them got 0/85 with
"No module named 'mpl_toolkits'"), and a file that did not load is never told its code was "graded as usual"."""
from __future__ import annotations

import importlib.metadata

import pytest

from grader_tests.attention.static import hidden_name_uses
from grading.suite import DISPLAY_PACKAGES, DISPLAY_WHEEL_MODULES
from tests.grading.helpers import SUBMISSIONS, code_score, failed_tests, grade_stored

BASE = (SUBMISSIONS / "correct" / "pep8_matplotlib_imports.py").read_text()
WHEEL_IMPORTS = {
    "mpl_toolkits_colorbar": "from mpl_toolkits.axes_grid1 import make_axes_locatable\n",
    "mplot3d": "from mpl_toolkits.mplot3d import Axes3D  # noqa: F401\n",
    "pylab_star": "from pylab import *  # noqa\n",
    "pylab_module": "import pylab as pl\n",
    "plotly_utils": "import _plotly_utils.basevalidators\n",
}


def _top_level(dist: importlib.metadata.Distribution) -> set[str]:
    """The modules a wheel installs at the top of site-packages (its RECORD), without its metadata."""
    tops = set()
    for f in dist.files or ():
        first = f.parts[0]
        if first.endswith((".dist-info", ".data")) or first in ("..", "__pycache__") or first.startswith("."):
            continue
        if len(f.parts) == 1 and not first.endswith(".py"):
            continue
        tops.add(first.removesuffix(".py"))
    return tops


@pytest.mark.parametrize("package", sorted(DISPLAY_WHEEL_MODULES))
def test_every_top_level_module_of_an_installed_display_wheel_is_a_display_package(package):
    dist_name = {"IPython": "ipython"}.get(package, package)
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{dist_name} is not installed here (its list is read from its wheel's RECORD by hand)")
    assert _top_level(dist) <= set(DISPLAY_PACKAGES)
    assert _top_level(dist) <= set(DISPLAY_WHEEL_MODULES[package])


def test_matplotlib_own_top_level_modules_are_listed():
    assert {"matplotlib", "mpl_toolkits", "pylab"} <= set(DISPLAY_PACKAGES)


@pytest.mark.parametrize("name", sorted(WHEEL_IMPORTS))
def test_an_import_of_a_display_wheel_module_is_no_review_finding(name):
    assert hidden_name_uses(WHEEL_IMPORTS[name] + BASE) == ()


@pytest.mark.parametrize("name", sorted(WHEEL_IMPORTS))
def test_a_correct_file_importing_a_display_wheel_module_gets_full_code_marks_with_the_stand_in_note(executor, name):
    result = grade_stored(executor, WHEEL_IMPORTS[name] + BASE)
    assert result["load_error"] is None
    assert code_score(result) == 85, failed_tests(result)
    assert not result["review"]
    assert "inert stand-ins" in result["message"]["en"] and "替身" in result["message"]["zh"]


def test_a_file_that_did_not_load_is_never_told_its_code_was_graded_as_usual(executor):
    result = grade_stored(executor, "import matplotlib.pyplot as plt\nraise ValueError('top-level demo')\n" + BASE)
    assert result["load_error"] is not None
    assert "inert stand-ins" in result["message"]["en"]
    assert "graded as usual" not in result["message"]["en"]
    assert "照常评分" not in result["message"]["zh"]
