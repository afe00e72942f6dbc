"""Round 45 (brief D, item 2): the standard library names matplotlib.pyplot binds itself (``plt.sys``,
``plt.importlib``, ``plt.cast``) are the real objects in the jail, as pylab's are since round 44, and the review judges
each spelling (``plt.sys``, ``pyplot.sys``, ``matplotlib.pyplot.sys``, ``getattr(plt, "sys")``, ``from
matplotlib.pyplot import sys``) as it judges the explicit import. Before, they were inert stand-ins in the jail
(``plt.sys.version_info >= (3, 8)`` raised a TypeError there) and the review flagged ``plt.sys`` itself."""
from __future__ import annotations

import importlib

import pytest

from grader_tests.attention.static import hidden_name_uses
from grading.sandbox.pylab_names import PYLAB_STDLIB_NAMES, PYPLOT_STDLIB_NAMES
from grading.sandbox.runtime import _Inert
from tests.grading.helpers import SUBMISSIONS, code_score, failed_tests, grade_stored

BASE = (SUBMISSIONS / "correct" / "pep8_matplotlib_imports.py").read_text()


def _real(name: str) -> object:
    source, attr = PYLAB_STDLIB_NAMES[name]
    mod = importlib.import_module(source)
    return getattr(mod, attr) if attr else mod


def test_the_names_are_the_stdlib_names_the_installed_pyplot_binds():
    plt = pytest.importorskip("matplotlib.pyplot")
    assert {n for n in PYLAB_STDLIB_NAMES if getattr(plt, n, None) is _real(n)} == PYPLOT_STDLIB_NAMES


@pytest.mark.parametrize("name", sorted(PYPLOT_STDLIB_NAMES))
def test_the_jail_pyplot_binds_each_stdlib_name_as_the_real_object(name):
    assert getattr(_Inert("matplotlib").pyplot, name) is _real(name)      # import matplotlib.pyplot as plt
    assert getattr(_Inert("matplotlib.pyplot"), name) is _real(name)       # from matplotlib import pyplot


def test_other_names_of_the_jail_pyplot_stay_inert():
    plt = _Inert("matplotlib").pyplot
    assert isinstance(plt.plot, _Inert) and isinstance(plt.datetime, _Inert) and isinstance(plt.os, _Inert)
    assert isinstance(_Inert("seaborn").sys, _Inert)


# (pyplot spelling, explicit spelling), line for line, so the findings name the same lines
SAME_AS_EXPLICIT = {
    "alias_sys_modules": ("import matplotlib.pyplot as plt\nx = plt.sys.modules\n", "import sys\nx = sys.modules\n"),
    "alias_sys_version": ("import matplotlib.pyplot as plt\nx = plt.sys.version_info\n",
                          "import sys\nx = sys.version_info\n"),
    "alias_importlib": ('import matplotlib.pyplot as plt\nx = plt.importlib.import_module("os")\n',
                        'import importlib\nx = importlib.import_module("os")\n'),
    "from_matplotlib_import_pyplot": ("from matplotlib import pyplot\nx = pyplot.sys.modules\n",
                                      "import sys\nx = sys.modules\n"),
    "from_import_pyplot_as": ("from matplotlib import pyplot as pp\nx = pp.threading.Thread\n",
                              "import threading\nx = threading.Thread\n"),
    "dotted": ("import matplotlib.pyplot\nx = matplotlib.pyplot.sys.modules\n", "import sys\nx = sys.modules\n"),
    "getattr": ('import matplotlib.pyplot as plt\nx = getattr(plt, "sys").modules\n', "import sys\nx = sys.modules\n"),
    "from_pyplot_import": ("from matplotlib.pyplot import sys\nx = sys.modules\n", "import sys\nx = sys.modules\n"),
    "from_pyplot_import_as": ("from matplotlib.pyplot import plot, inspect as i\nx = i.getmembers\n",
                              "import inspect as i\nx = i.getmembers\n"),
}


@pytest.mark.parametrize("case", sorted(SAME_AS_EXPLICIT))
def test_a_stdlib_name_read_through_pyplot_is_judged_as_its_explicit_import(case):
    through_pyplot, explicit = SAME_AS_EXPLICIT[case]
    assert hidden_name_uses(through_pyplot + BASE) == hidden_name_uses(explicit + BASE)


def test_a_name_pyplot_does_not_bind_is_not_read_as_a_stdlib_import():
    # pyplot has no ``datetime`` (pylab's comes from matplotlib.dates): plt.datetime stays what it was
    assert hidden_name_uses("import matplotlib.pyplot as plt\nx = plt.datetime.now\n" + BASE) == ()


@pytest.mark.slow
def test_a_correct_file_reading_plt_sys_gets_full_code_marks(executor):
    source = ("import matplotlib.pyplot as plt\nfrom matplotlib import pyplot\n"
              "PY3 = plt.sys.version_info >= (3, 8) and getattr(pyplot, 'sys').version_info >= (3, 8)\n" + BASE)
    result = grade_stored(executor, source)
    assert result["load_error"] is None
    assert code_score(result) == 85, failed_tests(result)
    assert not result["review"]
