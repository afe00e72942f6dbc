"""Round 19 of hostile submissions, each through the full grader: results whose storage, layout or
dtype is not a plain tensor's (huge views of one element, sparse, quantized, meta, nested, complex,
float8, wrapper subclasses without storage), objects whose dunders lie, generators and coroutines
returned, processes started, memory and files filled, the output written around print(), the
grader's frames and heap searched. Each ends `graded`, scores no more than the same code honestly,
and costs the worker a bounded CPU, wall and size; what they found open is fixed below them."""

from __future__ import annotations

import dataclasses
import json
import sys

import pytest

from grading.runner import LOG_CAP
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, in_forward, worker_cost
from tests.grading.helpers import grade_stored as _grade
from tests.grading.helpers import on_results as _on_results

# Each attack is graded in the real sandbox (these modules: ~160 tests, ~90 s on 2 idle cores): the
# slow lane, so `make test` stays under 10 minutes; CI runs both lanes.
pytestmark = pytest.mark.slow

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
WRONG = (SUBMISSIONS / "faulty" / "softmax_query_axis.py").read_text()



@pytest.fixture(scope="module")
def honest(executor) -> dict[str, float]:
    return {name: _grade(executor, code)["total"] for name, code in (("correct", CORRECT), ("wrong", WRONG))}


# Each: (the code, the code it must not score above). CORRECT: attacks on the grader's health and
# cost; WRONG: attacks that would need the grader fooled to gain. Measured on a loaded 2-core host:
# every one `graded`, 0.06-0.16 s of the worker's CPU (an honest grading 0.1 s), 0.1-2.0 s of wall.
ATTACKS: dict[str, tuple[str, str]] = {
    # huge shapes over tiny storage: materialised in the jail (its 1 GiB), never in the worker
    "a_2_to_the_40_expand_of_one_element": (_on_results(CORRECT, '''
def _form(o):
    return o.reshape(-1)[:1].expand(2 ** 40)
'''), "correct"),
    "an_as_strided_view_of_2_to_the_40_elements": (_on_results(CORRECT, '''
def _form(o):
    return o.as_strided((2 ** 20, 2 ** 20), (0, 0))
'''), "correct"),
    "a_zero_element_tensor_of_2_to_the_120_shape": (_on_results(CORRECT, '''
def _form(o):
    return torch.empty(0, 2 ** 40, 2 ** 40, 2 ** 40)
'''), "correct"),
    # layouts, devices and dtypes the wire format does not carry
    "sparse_coo_results": (_on_results(CORRECT, "def _form(o):\n    return o.to_sparse()\n"), "correct"),
    "sparse_csr_results": (_on_results(CORRECT, '''
def _form(o):
    return o.reshape(-1, o.shape[-1]).to_sparse_csr() if o.dim() >= 2 else o
'''), "correct"),
    "quantized_results": (_on_results(CORRECT, '''
def _form(o):
    return torch.quantize_per_tensor(o.float(), 0.01, 0, torch.qint8)
'''), "correct"),
    "meta_results": (_on_results(CORRECT, "def _form(o):\n    return torch.empty_like(o, device='meta')\n"), "correct"),
    "nested_results": (_on_results(CORRECT, '''
def _form(o):
    return torch.nested.nested_tensor(list(o.unbind(0)))
'''), "correct"),
    "complex_results": (_on_results(CORRECT, "def _form(o):\n    return o.to(torch.complex64)\n"), "correct"),
    "float8_results": (_on_results(CORRECT, "def _form(o):\n    return o.to(torch.float8_e4m3fn)\n"), "correct"),
    "a_wrapper_subclass_without_storage": (_on_results(CORRECT, '''
class _W(torch.Tensor):
    @staticmethod
    def __new__(cls, elem):
        return torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, strides=elem.stride())
    def __init__(self, elem):
        self.elem = elem
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise RuntimeError("no storage here")
def _form(o):
    return _W(o)
'''), "correct"),
    # objects whose dunders lie
    "a_subclass_whose_eq_bool_len_index_shape_lie": (_on_results(WRONG, '''
class _L(torch.Tensor):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    def __bool__(self): return True
    def __len__(self): return 2 ** 62
    def __index__(self): return 0
    def __hash__(self): return 0
    @property
    def shape(self): return torch.Size([2, 4, 8, 16])
    def numpy(self, *a, **k): raise SystemExit(0)
    def tolist(self): return [1.0]
def _form(o):
    return o.as_subclass(_L)
'''), "wrong"),
    "a_list_whose_len_and_iter_disagree": (_on_results(WRONG, '''
class _LL(list):
    def __len__(self): return 1
    def __iter__(self): return iter([])
    def __eq__(self, o): return True
    def __getitem__(self, i): return 0
def _form(o):
    return _LL([o])
'''), "wrong"),
    "numbers_whose_int_float_and_repr_lie": (_on_results(WRONG, '''
class _I(int):
    def __eq__(self, o): return True
    def __int__(self): return 10 ** 5000
    def __index__(self): return 10 ** 5000
    def __repr__(self): return "9" * 5000
class _F(float):
    def __eq__(self, o): return True
    def __float__(self): return float("nan")
def _form(o):
    return {"out": _I(3), "w": _F(1.0), "t": o}
'''), "wrong"),
    "a_4000_digit_int": (_on_results(CORRECT, "def _form(o):\n    return 10 ** 4000\n"), "correct"),
    # generators and coroutines returned
    "a_generator": (_on_results(CORRECT, "def _form(o):\n    return (x for x in [o])\n"), "correct"),
    "a_coroutine": (_on_results(CORRECT, "async def _c(o):\n    return o\ndef _form(o):\n    return _c(o)\n"),
                    "correct"),
    "an_async_generator": (_on_results(CORRECT, "async def _g(o):\n    yield o\ndef _form(o):\n    return _g(o)\n"),
                           "correct"),
    # processes, memory, files, output
    "os_fork_and_posix_spawn": (in_forward(CORRECT, '''
import os as _os
for _start in (_os.fork, lambda: _os.posix_spawn("/bin/true", ["true"], {})):
    try:
        _start()
    except OSError:
        pass'''), "correct"),
    "clone_of_new_namespaces_through_ctypes": (in_forward(CORRECT, '''
import ctypes as _c
_c.CDLL(None).syscall(56, 0x00010000 | 0x00000100, 0, 0, 0, 0)'''), "correct"),
    "dev_shm_and_tmp_filled": (in_forward(CORRECT, '''
for _path in ("/dev/shm/x", "/tmp/x"):
    try:
        with open(_path, "ab") as _f:
            for _i in range(100):
                _f.write(b"x" * (1 << 20))
    except OSError:
        pass'''), "correct"),
    "stdout_written_through_proc_self_fd": (in_forward(CORRECT, '''
with open("/proc/self/fd/1", "w") as _f:
    for _i in range(3000):
        _f.write("Z" * 50000)'''), "correct"),
    "recursion_limit_25_in_a_call": (in_forward(CORRECT, "import sys as _s\n_s.setrecursionlimit(25)"), "correct"),
    # the grader's frames and heap searched for its tests
    "the_callers_frames_walked": (in_forward(CORRECT, '''
import sys as _s
_f = _s._getframe(1)
while _f is not None:
    print(_f.f_code.co_filename, _f.f_code.co_name, sorted(_f.f_locals)[:20])
    _f = _f.f_back'''), "correct"),
    "the_heap_searched_for_test_names": (in_forward(CORRECT, '''
import gc as _gc
print(sorted({_o for _o in _gc.get_objects() if isinstance(_o, str) and len(_o) < 200
              and ("hidden" in _o or "grader_tests" in _o or "expected" in _o)})[:50])'''), "correct"),
}

# The jail's own request handlers, found through the frames of the import and rewritten: replies
# with the right sequence number whose values are forged (the client checks each op's reply shape).
_HANDLERS = """
import sys as _sys
def _handlers():
    _f = _sys._getframe()
    while _f is not None:
        _s = _f.f_locals.get("self")
        if _s is not None and isinstance(getattr(type(_s), "OPS", None), dict):
            return type(_s).OPS
        _f = _f.f_back
_OPS = _handlers()
"""
for _name, _forgery in {
    "new_answering_a_handle_of_31_digits": '_real = _OPS["new"]\n_OPS["new"] = lambda self, req: (_real(self, req), 10**30)[1]',
    "new_answering_true": '_OPS["new"] = lambda self, req: True',
    "call_answering_an_int": '_OPS["call"] = lambda self, req: 0',
    "grad_answering_strings_and_none": '_OPS["grad"] = lambda self, req: ["x", None, {"a": 1}]',
    "grad_answering_a_million_zeros": '_OPS["grad"] = lambda self, req: [__import__("torch").zeros(10**6)]',
    "describe_answering_5000_children": """_real = _OPS["describe"]
def _d(self, req):
    r = _real(self, req)
    r["children"] = {str(i): dict(r, children={}) for i in range(5000)} if isinstance(r, dict) else r
    return r
_OPS["describe"] = _d""",
    "stats_answering_counts_of_10_to_the_18_and_negative": """_real = _OPS["stats"]
def _s(self, req):
    r = _real(self, req)
    r["count"] = {k: 10**18 for k in r.get("count", {})}
    r["forbid"] = {k: -5 for k in r.get("forbid", {})}
    return r
_OPS["stats"] = _s""",
}.items():
    ATTACKS[f"the_jails_handler_rewritten_{_name}"] = (CORRECT + _HANDLERS + _forgery + "\n", "correct")


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_19_attack_is_graded_bounded_and_earns_no_more(executor, honest, attack):
    code, base = ATTACKS[attack]
    result, cpu, wall = worker_cost(_grade, executor, code)
    text = json.dumps(result, ensure_ascii=False)
    print(attack, result["status"], result["total"], honest[base], f"{wall:.1f}s {cpu:.2f}s CPU", len(text))
    assert result["status"] == "graded", result["message"]
    assert result["total"] <= honest[base]
    assert wall < 15, f"{wall:.1f} s"
    assert cpu < 1.5, f"{cpu:.2f} s of the worker's CPU"
    assert len(text) < 300_000, len(text)
    for word in ("grader_tests", "test_implementation", "test_mask_parity", "cases.py"):
        assert word not in text, word      # nothing of the hidden suite reaches the stored result
    names = code_names(code) | {"dict", "list", "tuple", "str", "int", "float"} | sys.stdlib_module_names
    for t in result["tests"]:
        if t["outcome"] != "passed":
            en, zh = t["feedback"]["en"], t["feedback"]["zh"]
            assert en and zh and en != zh, t
            assert english_in_zh(zh, names) == [], (t["id"], zh)


def test_a_log_of_terminal_escapes_is_stored_within_the_log_cap(executor, honest):
    # The log was cut to LOG_CAP characters, then each control character the submission printed was
    # stored as its 4-character escape: a stderr flood of "ESC [2J" made a 316,000-character log
    # (a 413 KB result). The cut is now made on the log as stored.
    code = in_forward(CORRECT, '''
import os as _os
for _i in range(2000):
    _os.write(2, b"\\x1b[2J" * 20000)''')
    result, cpu, _ = worker_cost(_grade, executor, code)
    assert result["status"] == "graded", result["message"]
    assert result["total"] <= honest["correct"]
    assert "\x1b" not in result["log"] and "\\x1b[2J" in result["log"]
    assert len(result["log"]) <= LOG_CAP + 100, len(result["log"])        # and "[log truncated]"
    assert result["log"].rstrip().splitlines()[-1].startswith("REVIEW: "), "the flags still end it"
    assert len(json.dumps(result, ensure_ascii=False)) < 300_000
    assert cpu < 1.5


def test_a_timeout_states_the_limit_it_met_in_round_seconds(executor):
    # A call's limit is cut to what is left of the grading's budget: the feedback read "did not
    # finish within 9.93107 s" (9.93107 秒). Now at most two decimals, in both languages.
    # A spin: the call's limit counts CPU (round 32), and a sleep is stopped as idle, by no limit.
    code = in_forward(CORRECT, "while True:\n    pass")
    limits = executor.limits
    executor.limits = dataclasses.replace(limits, call_timeout=0.7345678)
    try:
        result = _grade(executor, code)
    finally:
        executor.limits = limits
    assert result["status"] == "graded", result["message"]
    said = [t["feedback"] for t in result["tests"] if "did not finish within" in t["feedback"]["en"]]
    assert said, [t["feedback"]["en"][:100] for t in result["tests"]]
    for f in said:
        assert "within 0.73 s" in f["en"] and "0.7345678" not in f["en"], f["en"]
        assert "未在 0.73 秒的 CPU 时间内结束" in f["zh"], f["zh"]
