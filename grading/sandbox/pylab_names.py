"""The names ``from pylab import *`` binds that are matplotlib's (pyplot's, matplotlib.dates', mlab's and cbook's),
read off matplotlib 3.11.2's pylab.py (review D round 43, second review MED 1). In the jail each is an inert
stand-in (grading/sandbox/runtime.py); the rest pylab binds is numpy's (``from numpy import *`` and its fft, random
and linalg, ``import numpy as np``), bound there as the real objects. Left out: the standard library and typing
names pyplot imports for itself (``sys``, ``functools``, ``cast``, ...): PYLAB_STDLIB_NAMES, bound there as the real
objects.
tests/grading/test_star_imports_mend2_round43.py checks the list against the installed pylab."""

PYLAB_DISPLAY_NAMES = frozenset({
    'Annotation', 'Arrow', 'Artist', 'AutoLocator', 'AxLine', 'Axes', 'BackendFilter', 'Button', 'Circle',
    'Colorizer', 'ColorizingArtist', 'Colormap', 'DAILY', 'DateFormatter', 'DateLocator', 'DayLocator', 'FR',
    'Figure', 'FigureBase', 'FigureCanvasBase', 'FigureManagerBase', 'FixedFormatter', 'FixedLocator',
    'FormatStrFormatter', 'Formatter', 'FuncFormatter', 'GridSpec', 'HOURLY', 'HourLocator', 'IndexLocator',
    'Line2D', 'LinearLocator', 'Locator', 'LogFormatter', 'LogFormatterExponent', 'LogFormatterMathtext',
    'LogLocator', 'MINUTELY', 'MO', 'MONTHLY', 'MaxNLocator', 'MinuteLocator', 'MonthLocator', 'MouseButton',
    'MultipleLocator', 'Normalize', 'NullFormatter', 'NullLocator', 'PolarAxes', 'Polygon', 'RRuleLocator',
    'Rectangle', 'SA', 'SECONDLY', 'SU', 'ScalarFormatter', 'SecondLocator', 'Slider', 'Subplot', 'SubplotSpec',
    'TH', 'TU', 'Text', 'TickHelper', 'WE', 'WEEKLY', 'WeekdayLocator', 'Widget', 'YEARLY', 'YearLocator', 'acorr',
    'angle_spectrum', 'annotate', 'arrow', 'autoscale', 'autumn', 'available_backends', 'axes', 'axhline',
    'axhspan', 'axis', 'axline', 'axvline', 'axvspan', 'backend_registry', 'bar', 'bar_label', 'barbs', 'barh',
    'bone', 'box', 'boxplot', 'broken_barh', 'cbook', 'cla', 'clabel', 'clf', 'clim', 'close', 'cm', 'cohere',
    'color_sequences', 'colorbar', 'colormaps', 'connect', 'contour', 'contourf', 'cool', 'copper', 'csd', 'cycler',
    'date2num', 'datestr2num', 'delaxes', 'detrend', 'detrend_linear', 'detrend_mean', 'detrend_none', 'disconnect',
    'drange', 'draw', 'draw_all', 'draw_if_interactive', 'ecdf', 'errorbar', 'eventplot', 'figaspect', 'figimage',
    'figlegend', 'fignum_exists', 'figtext', 'figure', 'fill', 'fill_between', 'fill_betweenx', 'findobj', 'flag',
    'flatten', 'gca', 'gcf', 'gci', 'get', 'get_backend', 'get_cmap', 'get_current_fig_manager', 'get_figlabels',
    'get_fignums', 'get_plot_commands', 'get_scale_names', 'getp', 'ginput', 'gray', 'grid', 'grouped_bar',
    'hexbin', 'hist', 'hist2d', 'hlines', 'hot', 'hsv', 'imread', 'imsave', 'imshow', 'inferno',
    'install_repl_displayhook', 'interactive', 'ioff', 'ion', 'isinteractive', 'jet', 'legend', 'locator_params',
    'loglog', 'magma', 'magnitude_spectrum', 'margins', 'matplotlib', 'matshow', 'minorticks_off', 'minorticks_on',
    'mlab', 'mpl', 'new_figure_manager', 'nipy_spectral', 'num2date', 'pause', 'pcolor', 'pcolormesh',
    'phase_spectrum', 'pie', 'pie_label', 'pink', 'plasma', 'plot', 'plt', 'polar', 'prism', 'psd', 'quiver',
    'quiverkey', 'rc', 'rcParams', 'rcParamsDefault', 'rcParamsOrig', 'rc_context', 'rcdefaults', 'rcsetup',
    'relativedelta', 'requested_backend', 'rgrids', 'rrule', 'savefig', 'sca', 'scatter', 'sci', 'semilogx',
    'semilogy', 'set_cmap', 'set_loglevel', 'setp', 'show', 'silent_list', 'specgram', 'spring', 'spy', 'stackplot',
    'stairs', 'stem', 'step', 'streamplot', 'style', 'subplot', 'subplot2grid', 'subplot_mosaic', 'subplot_tool',
    'subplots', 'subplots_adjust', 'summer', 'suptitle', 'switch_backend', 'table', 'text', 'thetagrids',
    'tick_params', 'ticklabel_format', 'tight_layout', 'title', 'tricontour', 'tricontourf', 'tripcolor', 'triplot',
    'twinx', 'twiny', 'uninstall_repl_displayhook', 'violinplot', 'viridis', 'vlines', 'waitforbuttonpress',
    'window_hanning', 'window_none', 'winter', 'xcorr', 'xkcd', 'xlabel', 'xlim', 'xscale', 'xticks', 'ylabel',
    'ylim', 'yscale', 'yticks'
})

# The names of PYLAB_DISPLAY_NAMES matplotlib.pyplot has not (pylab's from matplotlib.dates, mlab and cbook, and its
# ``plt`` and ``mpl``), read off matplotlib 3.11.2 (tests/grading/test_pyplot_names_round46.py checks them)
PYLAB_ONLY_DISPLAY_NAMES = frozenset({
    'DAILY', 'DateFormatter', 'DateLocator', 'DayLocator', 'FR', 'HOURLY', 'HourLocator', 'MINUTELY', 'MO', 'MONTHLY',
    'MinuteLocator', 'MonthLocator', 'RRuleLocator', 'SA', 'SECONDLY', 'SU', 'SecondLocator', 'TH', 'TU', 'WE',
    'WEEKLY', 'WeekdayLocator', 'YEARLY', 'YearLocator', 'date2num', 'datestr2num', 'detrend', 'detrend_linear',
    'detrend_mean', 'detrend_none', 'drange', 'flatten', 'mpl', 'num2date', 'plt', 'relativedelta', 'rrule',
    'silent_list', 'window_hanning', 'window_none'
})

# matplotlib.pyplot's own names (``show``, ``savefig``, ``figure``, ``matplotlib``, ...): with its standard library
# names (PYPLOT_STDLIB_NAMES) and ``np``, what ``from matplotlib.pyplot import *`` binds (pyplot has no ``__all__``).
# In the jail each is an inert stand-in (round 46: the star bound only the standard library names, so a file calling
# ``show()`` after it, as it works at home, failed every test with a NameError).
PYPLOT_DISPLAY_NAMES = PYLAB_DISPLAY_NAMES - PYLAB_ONLY_DISPLAY_NAMES

# The standard library and typing names pyplot's ``import *`` passes on to pylab, each as (module, attribute; None:
# the module itself). The jail's pylab binds them as the real objects (a file at home reads ``pylab.sys`` or, after
# ``from pylab import *``, ``sys``; stdlib modules import in the jail anyway), and the review reads each as its
# explicit import (grader_tests/attention/static.py).
PYLAB_STDLIB_NAMES: dict[str, tuple[str, str | None]] = {
    'AbstractContextManager': ('contextlib', 'AbstractContextManager'), 'Enum': ('enum', 'Enum'),
    'ExitStack': ('contextlib', 'ExitStack'), 'IO': ('typing', 'IO'), 'TYPE_CHECKING': ('typing', 'TYPE_CHECKING'),
    'annotations': ('__future__', 'annotations'), 'cast': ('typing', 'cast'), 'datetime': ('datetime', None),
    'functools': ('functools', None), 'importlib': ('importlib', None), 'inspect': ('inspect', None),
    'logging': ('logging', None), 'overload': ('typing', 'overload'), 'sys': ('sys', None),
    'threading': ('threading', None), 'time': ('time', None),
}

# The standard library names matplotlib.pyplot binds itself: pylab's less ``datetime`` (pylab's comes from
# matplotlib.dates). In the jail ``plt.sys`` (``matplotlib.pyplot.sys``, ``getattr(plt, "sys")``, ``from
# matplotlib.pyplot import sys``) is the real object, as ``pylab.sys`` is, and the review reads each as its explicit
# import (round 45).
PYPLOT_STDLIB_NAMES = frozenset(PYLAB_STDLIB_NAMES) - {"datetime"}

# The builtins pylab.py puts back after numpy's star imports (numpy.random's ``bytes``, numpy's ``abs``, ...).
PYLAB_BUILTINS = ("bytes", "abs", "bool", "max", "min", "pow", "round")

# The numpy modules pylab.py star-imports, in its order (a later one's name wins), each bound as the real objects.
PYLAB_NUMPY_MODULES = ("numpy", "numpy.fft", "numpy.random", "numpy.linalg")
