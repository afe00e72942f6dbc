"""Mend round 46 (review RD, LOW 1): ``import matplotlib.pylab as pl`` reaches pyplot too (matplotlib.pylab is the
module ``pylab`` re-exports): ``pl.plt.sys`` is ``sys`` at home, and was an inert stand-in in the jail (the review
reported it, so nothing was smuggled; only an honest file reading it failed). Now pylab's ``plt``, ``mpl`` and
``matplotlib`` reached through ``matplotlib.pylab`` are pyplot and matplotlib, as through ``pylab``."""
from __future__ import annotations

import importlib
import sys

import numpy
import pytest

from grading.sandbox.runtime import _Inert


@pytest.mark.parametrize("path", ["plt", "mpl.pyplot", "matplotlib.pyplot"])
def test_pyplot_reached_through_matplotlib_pylab_reads_its_stdlib_names_as_the_real_objects(path):
    plt = _Inert("matplotlib").pylab       # import matplotlib.pylab as pl: pl is the stand-in's attribute
    for part in path.split("."):
        plt = getattr(plt, part)
    assert plt.sys is sys and plt.importlib is importlib and plt.np is numpy
    assert isinstance(plt.show, _Inert)
