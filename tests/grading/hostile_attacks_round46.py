"""The attacks of round 46 of hostile submissions (kept apart from the tests so a script can grade them one by one).

Builtins rebound for the whole process (``builtins.isinstance = ...`` changes what every module but the student's own,
whose builtins are a copy, looks up): the jail's loop and wire used to look them up at each call, so such a file was
graded 0 ("did not load", "stopped answering") whatever its attention code was.
"""

from __future__ import annotations

from tests.grading.test_hostile_round31 import CORRECT


def _rebinding(assignments: str) -> str:
    """``CORRECT`` followed by ``import builtins`` and ``assignments`` (lines of ``builtins.NAME = ...``)."""
    return CORRECT + "\nimport builtins as _b\n" + assignments.strip("\n") + "\n"


# The builtins grading/sandbox/runtime.py and protocol.py name, each rebound to something that raises or lies.
REBOUND_BUILTINS = ("isinstance", "type", "len", "dict", "list", "tuple", "str", "int", "float", "bool", "getattr",
                    "setattr", "hasattr", "iter", "next", "super", "min", "max", "all", "any", "memoryview", "bytes",
                    "bytearray", "range", "enumerate", "zip", "sorted", "set", "frozenset", "repr", "callable", "id",
                    "abs", "round", "object", "print", "sum", "vars", "map", "filter", "hash", "divmod", "ord", "chr",
                    "open", "__import__", "issubclass", "property", "staticmethod", "classmethod")

_EXCEPTIONS = ("BaseException", "Exception", "ValueError", "TypeError", "KeyError", "RuntimeError", "AttributeError",
               "StopIteration", "RecursionError", "MemoryError", "SystemExit", "KeyboardInterrupt", "OSError",
               "IndexError", "NotImplementedError", "ImportError", "ModuleNotFoundError", "EOFError")

# Those the attention code's own path (and torch's Python code on it) does not call: a file rebinding them all is graded
# on its code, 68 of 85 (the static check cannot follow ``builtins``), as one that rebinds nothing it uses.
NOT_ON_THE_FILES_PATH = ("abs", "print", "bytearray", "frozenset", "sorted", "callable", "vars", "object", "all",
                         "any", "range", "enumerate", "min", "iter", "next", "dict", "repr", "hash", "open", "sum",
                         "filter", "divmod", "ord", "chr", "issubclass", "property", "staticmethod", "round",
                         "BaseException", "Exception", "ValueError", "TypeError", "RuntimeError", "StopIteration",
                         "RecursionError", "MemoryError", "SystemExit", "KeyboardInterrupt", "OSError", "IndexError",
                         "NotImplementedError", "ImportError", "ModuleNotFoundError", "EOFError")

LOOPS_BUILTINS_REBOUND = _rebinding("def _no(*a, **k):\n    raise SystemExit(9)\n"
                                    + "".join(f"_b.{n} = _no\n" for n in NOT_ON_THE_FILES_PATH))

# help("modules") at import: pydoc's scan imported every package on sys.path, the import's whole CPU limit in every
# session (round 45's code_interact_and_help_at_import took 30-39 s of the 60 s bound, its grade varying with load).
HELP_MODULES = CORRECT + '\nhelp("modules")\nhelp("modules attention")\n'

ATTACKS: dict[str, str | bytes] = {
    "help_modules_and_a_module_search_at_import": HELP_MODULES,
    "pydoc_apropos_and_its_module_scanner_called_directly_at_import": CORRECT + '''
import pydoc as _pd
_pd.apropos("torch")
_pd.ModuleScanner().run(lambda *a: None, key="nn")
''',
    "the_builtins_only_the_jails_loop_calls_rebound_to_exit": LOOPS_BUILTINS_REBOUND,
    "every_builtin_the_jails_loop_names_rebound_to_one_that_raises_after_the_import": _rebinding(
        "def _no(*a, **k):\n    raise SystemExit(9)\n"
        + "".join(f"_b.{n} = _no\n" for n in REBOUND_BUILTINS)),
    "isinstance_always_true_and_len_always_zero_after_the_import": _rebinding(
        "_b.isinstance = lambda o, c: True\n_b.len = lambda o: 0\n"),
    "type_dict_and_memoryview_rebound_to_lying_classes": _rebinding('''
class _T:
    def __new__(cls, *a, **k):
        return 0
_b.type = _T
_b.dict = _T
_b.memoryview = _T
_b.super = _T
'''),
    "every_exception_class_rebound_to_one_nobody_raises": _rebinding(
        "class _Nobody(BaseException):\n    pass\n" + "".join(f"_b.{n} = _Nobody\n" for n in _EXCEPTIONS)),
    "builtins_module_dict_cleared_after_the_import": _rebinding("_keep = dict(vars(_b))\nvars(_b).clear()\n"),
    "getattr_and_iter_rebound_to_recurse_without_end": _rebinding('''
def _rec(*a, **k):
    return _rec(*a, **k)
_b.getattr = _rec
_b.iter = _rec
_b.next = _rec
'''),
}
