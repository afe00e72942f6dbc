"""Round 44 (builder D, item 2): the standard library names real pylab passes on from pyplot (``pylab.sys``, and
``sys`` after ``from pylab import *``) are bound in the jail's pylab as the real objects, and the review judges
each spelling as it judges the explicit import."""
from __future__ import annotations

import builtins

import pytest

from grader_tests.attention.static import hidden_name_uses
from grading.sandbox.pylab_names import PYLAB_STDLIB_NAMES
from grading.sandbox.runtime import _pylab_stand_in
from tests.grading.helpers import SUBMISSIONS, code_score, failed_tests, grade_stored

BASE = (SUBMISSIONS / "correct" / "pep8_matplotlib_imports.py").read_text()


@pytest.mark.parametrize("name", sorted(PYLAB_STDLIB_NAMES))
def test_the_jail_pylab_binds_each_stdlib_name_as_the_object_the_installed_pylab_binds(name):
    pylab = pytest.importorskip("pylab")
    stand_in = _pylab_stand_in(builtins.__import__)
    assert getattr(stand_in, name) is getattr(pylab, name)
    assert name in stand_in.__all__


# (pylab spelling, explicit spelling), line for line, so the findings name the same lines
SAME_AS_EXPLICIT = {
    "attribute_importlib": ('import pylab\nx = pylab.importlib.import_module("torch")\n',
                            'import importlib\nx = importlib.import_module("torch")\n'),
    "attribute_logging_config_aliased": ("import pylab as pl\nx = pl.logging.config\n",
                                         "import logging\nx = logging.config\n"),
    "attribute_sys_modules": ("import pylab\nx = pylab.sys.modules\n", "import sys\nx = sys.modules\n"),
    "attribute_sys_argv": ("import pylab\nx = pylab.sys.argv\n", "import sys\nx = sys.argv\n"),
    "attribute_threading": ("import pylab\nx = pylab.threading.Thread\n", "import threading\nx = threading.Thread\n"),
    "star_importlib": ('from pylab import *\nx = importlib.import_module("torch")\n',
                       'import importlib\nx = importlib.import_module("torch")\n'),
    "star_inspect": ("from pylab import *\nx = inspect.getmembers\n", "import inspect\nx = inspect.getmembers\n"),
    "star_cast_and_time": ("from pylab import *\nx = cast(int, time.time())\n",
                           "import time\nfrom typing import cast\nx = cast(int, time.time())\n"),
}


@pytest.mark.parametrize("case", sorted(SAME_AS_EXPLICIT))
def test_a_stdlib_name_read_through_pylab_is_judged_as_its_explicit_import(case):
    through_pylab, explicit = SAME_AS_EXPLICIT[case]
    if case == "star_cast_and_time":     # two explicit lines for one: compare without line numbers
        assert hidden_name_uses(through_pylab + BASE) == hidden_name_uses(explicit + BASE) == ()
        return
    assert hidden_name_uses(through_pylab + BASE) == hidden_name_uses(explicit + BASE)


@pytest.mark.slow
def test_a_correct_file_reading_pylab_sys_and_sys_after_the_star_import_gets_full_code_marks(executor):
    source = ("import pylab\nfrom pylab import *  # noqa\nPY3 = pylab.sys.version_info >= (3, 8)"
              " and sys.version_info >= (3, 8) and callable(cast)\n" + BASE)
    result = grade_stored(executor, source)
    assert result["load_error"] is None
    assert code_score(result) == 85, failed_tests(result)
    assert not result["review"]
