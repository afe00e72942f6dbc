"""Round 47 (brief D 2): ``matplotlib.pylab`` is the module ``pylab`` re-exports (pylab.py is ``from matplotlib.pylab
import *``), so in the jail it binds what the jail's pylab binds: matplotlib's names as inert stand-ins, numpy's and
the standard library names pyplot passes on as the real objects. Before, ``from matplotlib.pylab import *`` bound
nothing (a file calling ``figure()``/``show()`` or ``sqrt`` after it, as it works at home, did not load: 0 of 85), and
``import matplotlib.pylab as pl`` gave a bare stand-in (``pl.sqrt(4.0)`` an inert object, not 2.0)."""
from __future__ import annotations

import sys

import numpy
import pytest

from grading.sandbox.pylab_names import PYLAB_BUILTINS, PYLAB_DISPLAY_NAMES, PYLAB_STDLIB_NAMES
from grading.sandbox.runtime import _Inert, _limited_builtins
from grading.suite import DISPLAY_PACKAGES
from tests.grading.helpers import code_score, failed_tests, grade_stored
from tests.grading.test_pyplot_stdlib_round45 import BASE


def _run(source: str) -> dict[str, object]:
    """The names ``source`` binds, run with the jail's import (torch and numpy real, display packages inert)."""
    scope = {"__builtins__": _limited_builtins(["torch", "numpy", "einops"], "attention", list(DISPLAY_PACKAGES))}
    exec(source, scope)
    del scope["__builtins__"]
    return scope


def test_the_matplotlib_pylab_star_import_binds_what_the_pylab_star_import_binds():
    through_matplotlib, through_pylab = _run("from matplotlib.pylab import *"), _run("from pylab import *")
    assert set(through_matplotlib) == set(through_pylab) >= PYLAB_DISPLAY_NAMES | set(PYLAB_STDLIB_NAMES)
    assert all(isinstance(through_matplotlib[n], _Inert) for n in PYLAB_DISPLAY_NAMES)
    assert through_matplotlib["sqrt"] is numpy.sqrt and through_matplotlib["sys"] is sys
    assert through_matplotlib["np"] is numpy and through_matplotlib["norm"] is numpy.linalg.norm
    through_matplotlib["figure"](figsize=(3, 3)), through_matplotlib["show"]()       # run as stand-ins do


def test_the_star_import_binds_the_public_names_of_the_installed_matplotlib_pylab():
    real = pytest.importorskip("matplotlib.pylab")
    bound = {n for n in _run("from matplotlib.pylab import *") if not n.startswith("_")}
    # pylab.py puts back the builtins numpy's names hide (``max``): at home its star binds them, the builtins anyway
    assert bound == {n for n in vars(real) if not n.startswith("_")} - set(PYLAB_BUILTINS)


@pytest.mark.parametrize("source", ["import matplotlib.pylab as pl", "from matplotlib import pylab as pl",
                                    "import matplotlib\npl = matplotlib.pylab", "import matplotlib as mpl\npl = mpl.pylab"])
def test_matplotlib_pylab_reached_any_way_reads_numpy_and_stdlib_names_as_the_real_objects(source):
    pl = _run(source)["pl"]
    assert pl.sqrt(4.0) == 2.0 and pl.sys is sys and pl.np is numpy
    assert isinstance(pl.show, _Inert) and pl.plt.sys is sys        # its plt is pyplot (mend round 46)


@pytest.mark.parametrize("names", ["sqrt, show", "figure, savefig, plt"])
def test_names_imported_from_matplotlib_pylab_are_pylabs(names):
    bound, pylab = _run(f"from matplotlib.pylab import {names}"), _run(f"from pylab import {names}")
    assert set(bound) == set(pylab) == set(names.split(", "))
    assert all(type(bound[n]) is type(pylab[n]) for n in bound)
    assert bound.get("sqrt", numpy.sqrt) is numpy.sqrt


def test_other_matplotlib_modules_stay_bare_stand_ins():
    bound = _run("from matplotlib.colors import *\nimport matplotlib.colors as mc")
    assert set(bound) == {"mc"} and isinstance(bound["mc"].sqrt, _Inert)


@pytest.mark.slow
def test_a_correct_file_plotting_after_the_matplotlib_pylab_star_import_gets_full_code_marks(executor):
    source = "from matplotlib.pylab import *\nfigure(figsize=(3, 3))\nshow()\nROOT2 = sqrt(2.0)\n" + BASE
    result = grade_stored(executor, source)
    assert result["load_error"] is None
    assert code_score(result) == 85, failed_tests(result)
