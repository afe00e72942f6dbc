"""Round 46 (brief D 2): every path to pyplot's names binds what ``matplotlib.pyplot`` does, in the jail and in the
review, as round 45 made ``plt.sys`` the real module, reviewed as ``import sys``.

Found open before: ``mpl.pyplot.sys`` (``import matplotlib as mpl``), ``matplotlib.pyplot.sys`` after ``import
matplotlib`` or ``from matplotlib.pyplot import *``, ``pl.plt.sys`` and ``pl.mpl.pyplot.sys`` (``import pylab as pl``),
``m.pyplot.sys`` (``from pylab import matplotlib as m``) were review findings (each is ``sys`` in the jail and at
home); in the jail pylab's ``plt`` (``pl.plt.sys``, ``plt.sys`` after ``from pylab import *``) was an inert stand-in,
not pyplot; and ``from matplotlib.pyplot import *`` bound only pyplot's standard library names, so a file calling
``show()`` or ``savefig(...)`` after it, as it works at home, failed every test with a NameError."""
from __future__ import annotations

import importlib
import sys

import numpy
import pytest

from grader_tests.attention.static import hidden_name_uses
from grading.sandbox.pylab_names import PYPLOT_DISPLAY_NAMES, PYPLOT_STDLIB_NAMES
from grading.sandbox.runtime import _Inert, _pylab_stand_in
from tests.grading.helpers import code_score, failed_tests, grade_stored
from tests.grading.test_pyplot_stdlib_round45 import BASE, _real


def _star(module: str) -> dict[str, object]:
    bound: dict[str, object] = {}
    exec(f"from {module} import *", {"__builtins__": {"__import__": lambda *a, **k: _Inert(a[0])}}, bound)
    return bound


def test_the_pyplot_names_are_the_public_names_of_the_installed_pyplot():
    plt = pytest.importorskip("matplotlib.pyplot")
    assert {n for n in vars(plt) if not n.startswith("_")} == PYPLOT_DISPLAY_NAMES | PYPLOT_STDLIB_NAMES | {"np"}


def test_the_pyplot_star_import_binds_its_display_names_as_stand_ins_and_the_rest_as_the_real_objects():
    bound = _star("matplotlib.pyplot")
    assert set(bound) == PYPLOT_DISPLAY_NAMES | PYPLOT_STDLIB_NAMES | {"np"}
    assert all(isinstance(bound[n], _Inert) for n in PYPLOT_DISPLAY_NAMES)
    assert all(bound[n] is _real(n) for n in PYPLOT_STDLIB_NAMES) and bound["np"] is numpy
    bound["show"](), bound["savefig"]("x.png"), bound["figure"](figsize=(3, 3))     # run as stand-ins do


@pytest.mark.parametrize("path", ["matplotlib.pyplot", "matplotlib", "pylab.plt", "pylab.mpl", "pylab.matplotlib",
                                  "pyplot star: matplotlib", "pylab star: plt", "pylab star: mpl"])
def test_every_path_to_pyplot_in_the_jail_reads_its_stdlib_names_as_the_real_objects(path):
    if path.startswith("pyplot star"):
        held = _star("matplotlib.pyplot")["matplotlib"]
    elif path.startswith("pylab star"):
        held = getattr(_pylab_stand_in(importlib.__import__), path.rsplit(" ", 1)[1])
    elif path.startswith("pylab."):
        held = getattr(_pylab_stand_in(importlib.__import__), path.split(".")[1])
    else:
        held = _Inert(path)
    plt = held if path.endswith(("pyplot", "plt")) else held.pyplot
    assert plt.sys is sys and plt.importlib is importlib and plt.np is numpy
    assert isinstance(plt.show, _Inert)


# each is ``sys.modules`` in the jail, line for line with ``import sys\nx = sys.modules``
THROUGH = {
    "matplotlib_as_mpl": "import matplotlib as mpl\nx = mpl.pyplot.sys.modules\n",
    "import_matplotlib": "import matplotlib\nx = matplotlib.pyplot.sys.modules\n",
    "getattr_mpl_pyplot": 'import matplotlib as mpl\nx = getattr(mpl, "pyplot").sys.modules\n',
    "getattr_mpl_pyplot_sys": 'import matplotlib as mpl\nx = getattr(mpl.pyplot, "sys").modules\n',
    "pylab_as_pl_plt": "import pylab as pl\nx = pl.plt.sys.modules\n",
    "pylab_mpl_pyplot": "import pylab\nx = pylab.mpl.pyplot.sys.modules\n",
    "from_pylab_import_matplotlib": "from pylab import matplotlib as m\nx = m.pyplot.sys.modules\n",
    "pyplot_star_matplotlib": "from matplotlib.pyplot import *\nx = matplotlib.pyplot.sys.modules\n",
    "from_pylab_import_plt": "from pylab import plt\nx = plt.sys.modules\n",
    "pylab_star_plt": "from pylab import *\nx = plt.sys.modules\n",
}


@pytest.mark.parametrize("case", sorted(THROUGH))
def test_a_stdlib_name_read_through_any_path_to_pyplot_is_judged_as_its_explicit_import(case):
    assert hidden_name_uses(THROUGH[case] + BASE) == hidden_name_uses("import sys\nx = sys.modules\n" + BASE)


@pytest.mark.parametrize("source", ["import matplotlib as mpl\nx = mpl.sys.modules\n",          # matplotlib has no sys
                                    "import matplotlib.colors as mc\nx = mc.pyplot.sys.modules\n",
                                    "import matplotlib as mpl\nmpl = object()\nx = mpl.pyplot.sys.modules\n"])
def test_a_name_that_is_not_pyplot_is_not_read_as_it(source):
    assert hidden_name_uses(source + BASE) != hidden_name_uses("import sys\nx = sys.modules\n" + BASE)


@pytest.mark.slow
def test_a_correct_file_showing_after_the_pyplot_star_and_reading_mpl_pyplot_sys_gets_full_code_marks(executor):
    source = ("import matplotlib as mpl\nfrom matplotlib.pyplot import *\n"
              "PY3 = mpl.pyplot.sys.version_info >= (3, 8)\nfigure(figsize=(3, 3))\nshow()\n" + BASE)
    result = grade_stored(executor, source)
    assert result["load_error"] is None
    assert code_score(result) == 85, failed_tests(result)
    assert not result["review"]
