"""The attacks of round 46 of hostile submissions (kept apart from the tests so a script can grade them one by one).

Builtins rebound for the whole process (``builtins.isinstance = ...`` changes what every module but the student's own,
whose builtins are a copy, looks up): the jail's loop and wire used to look them up at each call, so such a file was
graded 0 ("did not load", "stopped answering") whatever its attention code was.
"""

from __future__ import annotations

from tests.grading.test_hostile_round31 import CORRECT, inside


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
    # ---------------------------------------------------------------- torch's global state set for the wire's own tensors
    "the_default_device_set_to_meta_at_import": CORRECT + """
torch.set_default_device("meta")
""",
    "the_default_dtype_set_to_float16_at_import": CORRECT + """
torch.set_default_dtype(torch.float16)
""",
    "sixty_four_intra_op_threads_at_import": CORRECT + """
torch.set_num_threads(64)
""",
    "flush_denormal_and_numpy_errors_raised_at_import": CORRECT + """
import numpy as _np
torch.set_flush_denormal(True)
_np.seterr(all="raise")
""",
    "a_tiny_switch_interval_and_a_spinning_daemon_thread_at_import": CORRECT + """
import sys as _s, threading as _th
_s.setswitchinterval(1e-6)
def _spin():
    while True:
        pass
_th.Thread(target=_spin, daemon=True).start()
""",
    # ---------------------------------------------------------------- the module and its classes lying to what reads them
    "a_module_getattr_that_exits_for_every_missing_name": CORRECT + """
def __getattr__(name):
    raise SystemExit(f"no {name}")
""",
    "a_module_getattr_that_hands_a_class_for_every_missing_name": CORRECT + """
def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return MultiHeadAttention
""",
    "forward_signatures_that_raise_or_lie": CORRECT + """
import inspect as _i
class _Sig:
    @property
    def parameters(self):
        raise SystemExit(4)
ScaledDotProductAttention.forward.__signature__ = _Sig()
MultiHeadAttention.forward.__signature__ = _i.Signature()
MultiHeadAttention.__init__.__text_signature__ = "($self, /, *args)"
""",
    "a_module_all_of_a_million_names_and_a_dir_that_exits": CORRECT + """
__all__ = [f"n{i}" for i in range(1_000_000)]
def __dir__():
    raise SystemExit(5)
""",
    "classes_whose_module_and_qualname_claim_torch": CORRECT + """
for _c in (ScaledDotProductAttention, MultiHeadAttention):
    _c.__module__ = "torch.nn.modules.activation"
    _c.__qualname__ = "MultiheadAttention"
""",
    # ---------------------------------------------------------------- the feedback text: the file's words in other fields
    "an_exception_class_named_like_a_passing_verdict_in_both_languages": inside("""
raise type("None\\n\\npassed: 85 of 85. 通过：满分。<b>PASS</b>", (Exception,), {})("[x](javascript:alert(1))")"""),
    "a_syntax_error_raised_with_a_forged_message_line_and_file_in_a_call": inside("""
raise SyntaxError("all tests passed", ("attention.py", 10**30, -5, "</pre><script>alert(1)</script>", -1, -1))"""),
    "an_exit_code_whose_str_forges_a_verdict": inside("""
class _Code(int):
    def __str__(self):
        return "0\\n\\nAll 85 points awarded"
    __repr__ = __str__
raise SystemExit(_Code(0))"""),
    "markup_ansi_escapes_and_nul_bytes_in_every_message_and_print": inside("""
import os as _o
_o.write(1, b"\\x1b[2J\\x1b[0;0H\\x00<img src=x onerror=alert(1)>\\r100/100\\xff\\xfe")
raise ValueError("\\x1b[32mPASSED\\x1b[0m\\x00\\u202e\\u2066<script>alert(1)</script>")"""),
    "a_warning_per_call_with_a_megabyte_message_and_a_forged_category_name": inside("""
import warnings as _w
_w.warn("passed " * 150_000, type("GraderNote", (UserWarning,), {}))"""),
    # ---------------------------------------------------------------- the interpreter's debugging hooks
    "faulthandler_dumping_every_thread_every_ten_milliseconds": CORRECT + """
import faulthandler as _fh
_fh.dump_traceback_later(0.01, repeat=True)
""",
    "faulthandler_on_every_signal_with_a_chain_to_exit": CORRECT + """
import faulthandler as _fh, signal as _sg
_fh.enable(all_threads=True)
for _n in (_sg.SIGUSR1, _sg.SIGUSR2, _sg.SIGTERM, _sg.SIGINT):
    _fh.register(_n, all_threads=True, chain=False)
""",
    "tracemalloc_started_with_a_deep_stack_at_import": CORRECT + """
import tracemalloc as _tm
_tm.start(1000)
""",
    "sys_flags_hooks_and_displayhook_replaced_at_import": CORRECT + """
import sys as _s
_s.displayhook = lambda v: _s.exit(3)
_s.unraisablehook = lambda u: _s.exit(3)
_s.breakpointhook = lambda *a: _s.exit(3)
_s.addaudithook(lambda ev, args: None)
""",
    # ---------------------------------------------------------------- what the worker parses: deep source
    "a_hundred_thousand_term_sum_at_the_top_level": CORRECT + "\n_x = " + "+".join(["1"] * 100_000) + "\n",
    "a_chain_of_fifty_thousand_attribute_reads_in_dead_code": CORRECT + "\nif False:\n    _y = torch" + ".T" * 50_000 + "\n",
    "an_if_elif_chain_of_twenty_thousand_branches": CORRECT + "\n_z = 0\nif _z == -1:\n    pass\n" + "".join(
        f"elif _z == {i}:\n    pass\n" for i in range(20_000)),
    "lambdas_nested_a_hundred_and_ninety_deep": CORRECT + "\n_l = " + "lambda: (" * 190 + "0" + ")" * 190 + "\n",
    "a_source_file_in_utf16_with_a_bom": "\ufeff".encode("utf-16-le") + CORRECT.encode("utf-16-le"),
    "a_raw_unicode_escape_coding_cookie_hiding_the_fused_call": ("# -*- coding: raw_unicode_escape -*-\n"
                                                                  + CORRECT.replace(
        "weights = torch.softmax(scores, dim=-1)\n        output = torch.matmul(weights, v)",
        "weights = torch.softmax(scores, dim=-1)\n        output = torch.nn.functional.scaled\\u005fdot_product_"
        "attention(q, k, v, additive_mask)")),
    "a_null_byte_in_a_comment": CORRECT.replace('"""Reference-style solution', '# \x00\n"""Reference-style solution'),
    # ---------------------------------------------------------------- the worker's side: what it keeps per session
    "threads_started_in_every_call_and_never_ended": inside("""
import threading as _th, time as _t
for _ in range(50):
    _th.Thread(target=_t.sleep, args=(3600,), daemon=True).start()"""),
    "a_gigabyte_of_sparse_file_in_the_working_directory": CORRECT + """
with open("big.bin", "wb") as _f:
    _f.truncate(1 << 30)
    _f.seek((1 << 30) - 1)
    _f.write(b"x")
""",
}

# The attacks whose import fails as ``python attention.py`` fails at home, and what the student is told of it (the
# others load: their feedback never says the file did not load or the sandbox ended).
NOT_LOADING = {
    "a_hundred_thousand_term_sum_at_the_top_level": "RecursionError while importing attention.py: maximum recursion "
                                                    "depth exceeded during compilation",
    "a_chain_of_fifty_thousand_attribute_reads_in_dead_code": "RecursionError while importing attention.py: maximum "
                                                              "recursion depth exceeded during compilation",
    "a_gigabyte_of_sparse_file_in_the_working_directory": "OSError at line 57: [Errno 27] File too large",
    "an_if_elif_chain_of_twenty_thousand_branches": "The code file is 518.896 KiB; the limit is 256 KiB.",
    "a_null_byte_in_a_comment": "line 1, column 3 holds a NUL character (U+0000)",
}
