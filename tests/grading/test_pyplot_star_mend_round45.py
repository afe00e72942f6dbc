"""Mend round 45 (review RD, MED 3): ``from matplotlib.pyplot import *`` binds pyplot's standard library names (pyplot
has no ``__all__``: at home the star binds ``sys``, ``importlib``, ``cast``, ...). In the jail it bound nothing, so a
file reading ``sys`` after it failed every test with "NameError: name 'sys' is not defined" (0/85). Now the jail
binds them as the real objects, and the review reads each the file uses as its explicit import."""
from __future__ import annotations

import pytest

from grader_tests.attention.static import hidden_name_uses
from grading.sandbox.pylab_names import PYPLOT_STDLIB_NAMES
from grading.sandbox.runtime import _Inert
from tests.grading.helpers import code_score, failed_tests, grade_stored
from tests.grading.test_pyplot_stdlib_round45 import BASE, _real


def test_a_star_import_of_the_jail_pyplot_binds_its_stdlib_names_as_the_real_objects():
    bound: dict[str, object] = {}
    exec("from matplotlib.pyplot import *", {"__builtins__": {"__import__": lambda *a, **k: _Inert(a[0])}}, bound)
    assert set(bound) >= PYPLOT_STDLIB_NAMES     # and its display names, round 46 (test_pyplot_paths_round46.py)
    assert all(bound[n] is _real(n) for n in PYPLOT_STDLIB_NAMES)


def test_a_star_import_of_another_stand_in_still_binds_nothing():
    bound: dict[str, object] = {}
    exec("from seaborn import *", {"__builtins__": {"__import__": lambda *a, **k: _Inert(a[0])}}, bound)
    assert bound == {}


# (star spelling, explicit spelling), line for line
SAME_AS_EXPLICIT = {
    "sys_modules": ("from matplotlib.pyplot import *\nx = sys.modules\n", "import sys\nx = sys.modules\n"),
    "importlib": ('from matplotlib.pyplot import *\nx = importlib.import_module("os")\n',
                  'import importlib\nx = importlib.import_module("os")\n'),
    "two_names": ("from matplotlib.pyplot import *\nx = sys.modules, inspect.getmembers\n",
                  "import inspect, sys\nx = sys.modules, inspect.getmembers\n"),
}


@pytest.mark.parametrize("case", sorted(SAME_AS_EXPLICIT))
def test_a_stdlib_name_after_the_pyplot_star_import_is_judged_as_its_explicit_import(case):
    star, explicit = SAME_AS_EXPLICIT[case]
    assert hidden_name_uses(star + BASE) == hidden_name_uses(explicit + BASE)


def test_a_function_local_of_a_stdlib_name_is_not_read_as_the_star_import():
    source = "from matplotlib.pyplot import *\ndef f(sys):\n    return sys.modules\n"
    assert hidden_name_uses(source + BASE) == hidden_name_uses("def f(sys):\n    return sys.modules\n" + BASE)


@pytest.mark.slow
def test_a_correct_file_reading_sys_after_the_pyplot_star_import_gets_full_code_marks(executor):
    result = grade_stored(executor, "from matplotlib.pyplot import *\nPY3 = sys.version_info >= (3, 8)\n" + BASE)
    assert result["load_error"] is None
    assert code_score(result) == 85, failed_tests(result)
    assert not result["review"]
