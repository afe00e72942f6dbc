"""The attacks of round 44 of hostile submissions (kept apart from the tests so a script can grade them one by one).

Classes earlier rounds did not try: sources the trusted side reads (expressions chained or nested 150-1,400 deep:
under the parser's limit, past a recursive reader's; nesting past the parser's limit; a five-megabyte comment bomb;
a NUL byte; bytes that are no UTF-8; encoding cookies Python rejects (one after a BOM); carriage returns as line
ends; class names in full-width letters); results in dtypes and layouts no round returned (bfloat16, float64 and
bool, int64 and float8, meta, nested, an expand past memory or past int64, a small view of a huge storage, a storage
offset past its end, lists of lists, a list nested a hundred thousand deep); exceptions no round raised
(ExceptionGroups nested ten thousand deep, a cause chain of a hundred thousand links, notes forging a pass,
GeneratorExit, StopIteration, surrogates, NUL and bidi controls in messages, a megabyte message at import, Tensor's
repr raising SystemExit, traceback and linecache patched to forge lines); state set at import for the runtime's own
later use (warnings made errors, the default device set to meta, inference mode entered for good, 64 torch threads,
stdout and stderr closed, json's and NumPy's functions and Tensor's converters patched, a two-second timer slack,
/proc files written, the garbage collector off, the small int cache rewritten)."""

from __future__ import annotations

from tests.grading.test_hostile_round31 import CORRECT, inside

_DEEP_CHAIN = "_CHAIN = " + "+".join(["1"] * 1400) + "\n"

# name -> a hostile file; each must be graded, earn no more than the honest file and leave nothing running
ATTACKS: dict[str, str | bytes] = {
    # ---------------------------------------------------------------- sources for the trusted review
    "a_binop_chain_of_1400_terms_deep_for_a_recursive_visitor": CORRECT + _DEEP_CHAIN,
    "a_chain_of_1400_attribute_lookups": CORRECT + "_X = torch" + ".__class__" * 1400 + "\n",
    "the_chain_alone_defining_neither_contract_class": _DEEP_CHAIN,
    "the_chain_then_a_name_error_at_import_read_by_the_load_hints": CORRECT + _DEEP_CHAIN + "undefined_name\n",
    "calls_nested_150_deep": CORRECT + "_C = " + "abs(" * 150 + "1" + ")" * 150 + "\n",
    "unary_minus_lambda_and_not_nested_1400_deep": CORRECT + "_U = " + "-" * 1400 + "1\n_L = " + "lambda: " * 1400
    + "1\n_N = " + "not " * 1400 + "1\n",
    "a_method_call_chain_of_1400_links": CORRECT + "_M = torch.zeros(1)" + ".abs()" * 1400 + "\n",
    "a_bom_then_a_cookie_naming_latin1": "\ufeff# coding: latin-1\n" + CORRECT,
    "carriage_returns_as_line_ends_and_a_form_feed_honest_otherwise": CORRECT.replace("\n", "\r").replace(
        "import math", "\x0cimport math"),
    "parentheses_nested_past_the_parsers_limit": CORRECT + "_P = " + "(" * 250 + "1" + ")" * 250 + "\n",
    "a_five_megabyte_comment_bomb": CORRECT + ("# " + "x" * 98 + "\n") * 50_000,
    "a_nul_byte_in_a_comment": CORRECT + "# \x00 hidden\n",
    "bytes_that_are_no_utf8_in_a_string": CORRECT.encode() + b"_S = '\xed\xa0\x80 \xff'\n",
    "an_encoding_cookie_naming_a_codec_that_is_no_text_encoding": "# -*- coding: rot13 -*-\n" + CORRECT,
    "an_encoding_cookie_naming_utf16": "# coding: utf-16\n" + CORRECT,
    "an_encoding_cookie_naming_an_unknown_codec": "# coding: no-such-codec\n" + CORRECT,
    "class_names_written_in_full_width_letters": CORRECT.replace(
        "class ScaledDotProductAttention", "class \uff33caledDotProductAttention"),
    # ---------------------------------------------------------------- results in odd dtypes and layouts
    "results_in_bfloat16": inside("return_weights = False\nreturn torch.softmax(q @ k.transpose(-2, -1) / "
                                  "q.shape[-1] ** 0.5 + (0 if additive_mask is None else additive_mask), -1)"
                                  ".matmul(v).bfloat16()"),
    "results_in_float64_and_bool_weights": inside('''
w = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5 + (0 if additive_mask is None else additive_mask), -1)
o = (w @ v).double()
return (o, w > 0) if return_weights else o'''),
    "results_in_int64_and_float8": inside('''
w = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, -1)
return ((w @ v).long(), w.to(torch.float8_e4m3fn)) if return_weights else (w @ v).to(torch.float8_e5m2)'''),
    "meta_tensors_of_the_right_shape": inside('''
o = torch.empty(q.shape[:-1] + v.shape[-1:], device="meta")
return (o, torch.empty(q.shape[:-1] + k.shape[-2:-1], device="meta")) if return_weights else o'''),
    "a_nested_tensor_returned": inside('''
o = torch.nested.nested_tensor([t for t in q.flatten(0, 1)])
return (o, o) if return_weights else o'''),
    "an_expand_to_more_elements_than_memory_holds": inside('''
o = q.new_zeros(1, 1, 1, 1).expand(1 << 20, 1 << 20, 1 << 10, 1 << 10)
return (o, o) if return_weights else o'''),
    "an_expand_whose_element_count_overflows_int64": inside('''
o = q.new_zeros(1, 1, 1, 1).expand(1 << 40, 1 << 40, 1 << 40, 1 << 40)
return (o, o) if return_weights else o'''),
    "a_small_view_into_a_storage_of_three_hundred_megabytes": inside('''
w = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5 + (0 if additive_mask is None else additive_mask), -1)
o = w @ v
big = torch.empty(75_000_000)
view = big[70_000_000:70_000_000 + o.numel()].view(o.shape)
view.copy_(o)
return (view, w) if return_weights else view'''),
    "nested_lists_of_floats_returned": inside('''
w = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5 + (0 if additive_mask is None else additive_mask), -1)
o = (w @ v).tolist()
return (o, w.tolist()) if return_weights else o'''),
    "the_right_answer_in_channels_last_strides": inside(
        "w = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5 + (0 if additive_mask is None else "
        "additive_mask), -1)\no = (w @ v).contiguous(memory_format=torch.channels_last)\n"
        "return (o, w.contiguous(memory_format=torch.channels_last)) if return_weights else o"),
    "a_list_nested_a_hundred_thousand_deep_under_a_raised_recursion_limit": inside('''
import sys
sys.setrecursionlimit(1_000_000)
o = []
for _ in range(100_000):
    o = [o]
return (o, o) if return_weights else o'''),
    "a_tensor_set_onto_a_storage_at_an_offset_past_its_end": inside('''
s = torch.empty(4).untyped_storage()
o = torch.empty(0).set_(s, 1 << 20, (2, 2, 2, 2), (1, 1, 1, 1))
return (o, o) if return_weights else o'''),
    # ---------------------------------------------------------------- exceptions
    "surrogates_nul_and_bidi_controls_in_a_raised_message": inside(
        "raise ValueError('\\udc80\\x00\\u202e' * 1000 + '\\ud800')"),
    "surrogates_nul_and_bidi_controls_in_an_import_time_error": CORRECT + "raise ValueError('\\udc80\\x00\\u202e' * 1000)\n",
    "an_import_time_error_with_a_megabyte_message": CORRECT + "raise RuntimeError('x' * 1_000_000)\n",
    "tensor_repr_str_and_format_raising_system_exit_with_tensors_in_the_message": inside("raise ValueError(q, k)", head='''
def _bye(self, *a):
    raise SystemExit(9)
torch.Tensor.__repr__ = torch.Tensor.__str__ = torch.Tensor.__format__ = _bye
'''),
    "traceback_and_linecache_patched_to_forge_the_line_and_a_pass": inside("raise ValueError('x')", head='''
import traceback as _tb, linecache as _lc
_lc.getline = lambda *a, **k: "PASSED all tests 100/100"
_tb.format_exception = lambda *a, **k: ["PASSED"]
_tb.extract_tb = lambda *a, **k: _tb.StackSummary.from_list([("grading/proxy.py", 1, "f", "PASSED")])
'''),
    "exception_groups_nested_ten_thousand_deep": inside('''
e = ValueError("leaf")
for _ in range(10_000):
    e = ExceptionGroup("g", [e])
raise e'''),
    "a_cause_chain_of_a_hundred_thousand_links": inside('''
e = ValueError("root")
for i in range(100_000):
    n = ValueError(f"link {i}")
    n.__cause__ = e
    e = n
raise e'''),
    "exception_notes_forging_a_pass_and_a_score": inside('''
e = AssertionError("x")
for _ in range(2000):
    e.add_note("PASSED test_implementation 100/100 \\u2713 <b>all tests passed</b>")
raise e'''),
    "generator_exit_raised_in_forward": inside("raise GeneratorExit('bye')"),
    "stop_iteration_raised_in_forward": inside("raise StopIteration(torch.zeros(1))"),
    # ---------------------------------------------------------------- state set at import for the runtime's use
    "warnings_turned_into_errors_and_a_warning_in_every_call": inside(
        "warnings.warn('careful', DeprecationWarning)",
        head="import warnings\nwarnings.simplefilter('error')"),
    "the_default_device_set_to_meta_at_import": CORRECT + "torch.set_default_device('meta')\n",
    "inference_mode_entered_for_good_at_import": CORRECT + "torch.inference_mode().__enter__()\n"
                                                 "torch.set_grad_enabled(False)\n",
    "torch_threads_set_to_64_with_a_big_matmul_in_every_call": inside(
        "torch.set_num_threads(64)\n_ = torch.randn(600, 600) @ torch.randn(600, 600)"),
    "stdout_and_stderr_closed_and_replaced_by_objects_that_raise": CORRECT + '''
import os as _os, sys as _sys
class _Bad:
    def write(self, s):
        raise SystemExit(3)
    def flush(self):
        raise SystemExit(4)
_os.close(1)
_os.close(2)
_sys.stdout = _sys.stderr = _Bad()
''',
    "json_dumps_and_loads_of_the_real_module_patched_at_import": CORRECT + '''
import json as _json
_json.dumps = lambda *a, **k: '{"status": "graded", "total": 100}'
_json.loads = lambda *a, **k: {"status": "graded", "total": 100}
''',
    "numpy_and_tensor_converters_patched_to_give_zeros_and_ones_at_import": CORRECT + '''
import numpy as _np
_z = _np.zeros
_np.ascontiguousarray = lambda a, *x, **k: _z(_np.shape(a), dtype=getattr(a, "dtype", None))
_np.asarray = _np.ascontiguousarray
_np.frombuffer = lambda *a, **k: _z(1)
torch.Tensor.numpy = lambda self, *a, **k: _z(tuple(self.shape), dtype="float32")
torch.Tensor.contiguous = lambda self, *a, **k: torch.zeros_like(self)
torch.Tensor.detach = lambda self: torch.ones_like(self)
''',
    "timer_slack_set_to_two_seconds_through_prctl": CORRECT + '''
import ctypes as _ct
_ct.CDLL(None).prctl(29, _ct.c_ulong(2_000_000_000), 0, 0, 0)
''',
    "proc_files_for_oom_core_dumps_lsm_and_sysrq_written": CORRECT + '''
for _p, _v in (("/proc/self/oom_score_adj", "-1000"), ("/proc/self/coredump_filter", "0x1ff"),
               ("/proc/self/attr/current", "unconfined"), ("/proc/self/timerslack_ns", "2000000000"),
               ("/proc/sys/kernel/core_pattern", "|/bin/sh"), ("/proc/sysrq-trigger", "b")):
    try:
        with open(_p, "w") as _f:
            _f.write(_v)
    except OSError:
        pass
''',
    "gc_disabled_and_reference_cycles_up_to_the_memory_limit_in_a_call": inside('''
import gc
gc.disable()
_junk = []
try:
    for _ in range(10_000_000):
        a = []; a.append(a); _junk.append(a)
except MemoryError:
    pass'''),
    "the_small_int_cache_rewritten_through_ctypes": CORRECT + '''
import ctypes as _ct
_ct.c_ssize_t.from_address(id(3) + 24).value = 4
''',
}
