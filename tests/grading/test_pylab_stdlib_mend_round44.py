"""Mend round 44 (review RD, MED 2): ``from pylab import NAME [as X]`` is judged as the explicit import of the object
NAME is in the jail, as the star import and ``pylab.NAME`` are: ``from pylab import sys`` was a finding of its own
("line 1: from pylab import sys", 68 of 85) while ``import sys`` is judged as what the file does with it."""
from __future__ import annotations

import pytest

from grader_tests.attention.static import hidden_name_uses
from grading.sandbox.pylab_names import PYLAB_STDLIB_NAMES
from tests.grading.helpers import SUBMISSIONS, code_score, failed_tests, grade_stored

BASE = (SUBMISSIONS / "correct" / "pep8_matplotlib_imports.py").read_text()


def _explicit(name: str, asname: str | None = None) -> str:
    module, attr = PYLAB_STDLIB_NAMES[name]
    alias = f" as {asname}" if asname else ""
    return f"from {module} import {attr}{alias}\n" if attr else f"import {module}{alias}\n"


@pytest.mark.parametrize("name", sorted(set(PYLAB_STDLIB_NAMES) - {"annotations"}))
def test_each_stdlib_name_imported_from_pylab_is_judged_as_its_explicit_import(name):
    use = f"x = {name}\ny = {name}.__doc__\n"
    assert hidden_name_uses(f"from pylab import {name}\n" + use + BASE) == hidden_name_uses(_explicit(name) + use + BASE)
    aliased = "x = zz\ny = zz.__doc__\n"
    assert hidden_name_uses(f"from pylab import {name} as zz\n" + aliased + BASE) \
        == hidden_name_uses(_explicit(name, "zz") + aliased + BASE)


# (pylab spelling, explicit spelling), line for line; the review's probes among them
SAME_AS_EXPLICIT = {
    "sys_modules": ("from pylab import sys\nx = sys.modules['os']\n", "import sys\nx = sys.modules['os']\n"),
    "importlib": ("from pylab import importlib\nx = importlib.import_module('os')\n",
                  "import importlib\nx = importlib.import_module('os')\n"),
    "inspect_as": ("from pylab import inspect as i\nx = i.currentframe().f_back\n",
                   "import inspect as i\nx = i.currentframe().f_back\n"),
    "sys_argv": ("from pylab import sys\nx = sys.argv\n", "import sys\nx = sys.argv\n"),
    "numpy_norm": ("from pylab import norm\nx = norm\n", "from numpy.linalg import norm\nx = norm\n"),
    "numpy_load": ("from pylab import load\nx = load\n", "from numpy import load\nx = load\n"),
    "np": ("from pylab import np\nx = np.zeros\n", "import numpy as np\nx = np.zeros\n"),
}


@pytest.mark.parametrize("case", sorted(SAME_AS_EXPLICIT))
def test_a_name_imported_from_pylab_is_judged_as_its_explicit_import(case):
    through_pylab, explicit = SAME_AS_EXPLICIT[case]
    assert hidden_name_uses(through_pylab + BASE) == hidden_name_uses(explicit + BASE)


def test_from_pylab_import_sys_alone_is_no_finding():
    assert hidden_name_uses("from pylab import sys\nPY3 = sys.version_info >= (3, 8)\n" + BASE) == ()


def test_pylab_display_names_imported_with_a_stdlib_name_stay_pylab_names():
    assert hidden_name_uses("from pylab import plot, sys, show\nx = sys.argv\nplot([1])\nshow()\n" + BASE) \
        == hidden_name_uses("from pylab import plot, show\nimport sys\nx = sys.argv\nplot([1])\nshow()\n" + BASE)


@pytest.mark.slow
def test_a_correct_file_importing_sys_from_pylab_gets_full_code_marks(executor):
    result = grade_stored(executor, "from pylab import sys, inspect as _i\nPY3 = sys.version_info >= (3, 8)\n" + BASE)
    assert result["load_error"] is None
    assert code_score(result) == 85, failed_tests(result)
    assert not result["review"]
