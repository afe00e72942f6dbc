"""Round 26 of hostile submissions: results of exotic tensor kinds, the gradient call and its hooks, state
and process-wide modes left behind by a call, threads and finalizers, floods, and import-time
poisoning of what the jail's own serving loop uses. Each attack is graded in the real sandbox and must
end `graded` (never the grader's `error`), score no more than the honest file it is built on, leak
nothing of the hidden suite, say in both languages what happened and cost the worker about what an
honest grading does."""

from __future__ import annotations

import pytest

from tests.grading.helpers import (
    SUBMISSIONS,
    Honest,
    assert_attack_bounded,
    in_forward,
    on_results,
    worker_cost,
)
from tests.grading.helpers import grade_stored as _grade

# Gradings in the real sandbox: the slow lane, as the earlier rounds' corpora.
pytestmark = pytest.mark.slow

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
WRONG = (SUBMISSIONS / "faulty" / "softmax_query_axis.py").read_text()
_ANCHOR = "        assert q.ndim == k.ndim == v.ndim == 4\n"
assert _ANCHOR in CORRECT


def inside(body: str, base: str = CORRECT) -> str:
    """``base`` whose single-head forward first runs ``body``, written inside the class (the source review
    then flags nothing that the attack itself does not)."""
    assert _ANCHOR in base
    lines = "".join("        " + line + "\n" for line in body.strip("\n").splitlines())
    return base.replace(_ANCHOR, lines + _ANCHOR)


# A correct MultiHeadAttention that also holds 6,000 parameters of its own, by long names (its describe
# reply listed each: 1.3 MiB).
MANY_PARAMETERS = CORRECT.replace(
    "        self.attention = ScaledDotProductAttention()\n",
    "        self.attention = ScaledDotProductAttention()\n"
    "        self.extra = nn.ParameterDict({f\"p{i}_\" + \"x\" * 200: nn.Parameter(torch.zeros(1)) "
    "for i in range(6000)})\n")
assert MANY_PARAMETERS != CORRECT

# name -> (attack, the honest file it is built on)
ROUND_26: dict[str, tuple[str, str]] = {
    # results of tensor kinds that hold no readable values, or no single shape
    "a_meta_tensor_returned": (on_results(CORRECT, "def _form(o):\n    return torch.empty_like(o, device='meta')"),
                               CORRECT),
    "a_nested_tensor_returned": (on_results(CORRECT, "def _form(o):\n    return torch.nested.nested_tensor([o[0], o[0]])"),
                                 CORRECT),
    "a_meta_tensor_returned_by_wrong_code": (on_results(WRONG, "def _form(o):\n    return torch.empty_like(o, device='meta')"),
                                             WRONG),
    "an_expanded_view_of_four_tebibytes_returned": (
        on_results(CORRECT, "def _form(o):\n    return torch.zeros(1).expand(2**20, 2**20)"), CORRECT),
    "an_expanded_view_of_300_mebibytes_returned": (
        on_results(CORRECT, "def _form(o):\n    return torch.zeros(1).expand(75 * 2**20)"), CORRECT),
    "a_batched_vmap_tensor_returned": (on_results(CORRECT, "def _form(o):\n    return torch.vmap(lambda x: x)(o)"), CORRECT),
    # describe: a module holding very many parameters, or Linears
    "a_module_holding_6000_parameters_by_long_names": (MANY_PARAMETERS, CORRECT),
    # the gradient call: hooks that replace the gradient
    "a_hook_that_makes_the_gradient_meta": (in_forward(CORRECT, '''
if q.requires_grad:
    import torch as _t
    q.register_hook(lambda g: _t.empty_like(g, device="meta"))'''), CORRECT),
    "a_hook_that_makes_the_gradient_nan": (in_forward(CORRECT, '''
if q.requires_grad:
    q.register_hook(lambda g: g * 0 + float("nan"))'''), CORRECT),
    # process-wide modes left behind by one call, seen by the next ones
    "grad_mode_switched_off_by_a_call": (inside("torch.set_grad_enabled(False)"), CORRECT),
    "inference_mode_entered_by_a_call": (inside("torch.inference_mode().__enter__()"), CORRECT),
    "default_device_meta_set_by_a_call": (inside('torch.set_default_device("meta")'), CORRECT),
    # describe: a property that raises once the module is built
    "a_training_property_that_raises": (CORRECT + '''
def _tr_get(self):
    if getattr(self, "_armed", False):
        raise RuntimeError("no")
    return self.__dict__.get("_t", True)
def _tr_set(self, v):
    self.__dict__["_t"] = v
    self.__dict__["_armed"] = True
MultiHeadAttention.training = property(_tr_get, _tr_set)
''', CORRECT),
    # the contract's classes given by a module __getattr__, or a metaclass that refuses the counters
    "the_classes_given_by_a_module_getattr": (CORRECT.replace("class ScaledDotProductAttention(", "class _S(").replace(
        "self.attention = ScaledDotProductAttention()", "self.attention = _S()") + '''
def __getattr__(name):
    if name == "ScaledDotProductAttention":
        return _S
    raise AttributeError(name)
''', CORRECT),
    "a_metaclass_that_swallows_setattr": (CORRECT.replace(
        "class ScaledDotProductAttention(nn.Module):",
        "class _M(type(nn.Module)):\n    def __setattr__(cls, name, value):\n        pass\n\n\n"
        "class ScaledDotProductAttention(nn.Module, metaclass=_M):"), CORRECT),
    # torch modes entered at import: they see the jail's own copies of inputs and results too
    "a_torch_function_mode_refusing_copies": (CORRECT + '''
from torch.overrides import TorchFunctionMode
class _Mode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("contiguous", "numpy", "cpu", "detach", "clone", "view", "reshape"):
            raise RuntimeError("mode says no")
        return func(*args, **(kwargs or {}))
_Mode().__enter__()
''', CORRECT),
    "a_dispatch_mode_exiting_on_any_copy": (CORRECT + '''
from torch.utils._python_dispatch import TorchDispatchMode
class _D(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if "clone" in str(func) or "copy" in str(func):
            import os; os._exit(0)
        return func(*args, **(kwargs or {}))
_D().__enter__()
''', CORRECT),
    # state across calls: the first answer for a shape, returned again to every later call of that shape
    "wrong_code_answering_from_a_cache_keyed_by_shape": (inside('''
import sys
_c = sys.modules[__name__].__dict__.setdefault("_cache", {})
key = (tuple(q.shape), tuple(k.shape), additive_mask is None, return_weights)
if key in _c:
    return _c[key]''', WRONG), WRONG),
    # threads, finalizers
    "spinning_threads_with_a_tiny_switch_interval": (CORRECT + '''
import sys, threading
sys.setswitchinterval(1e-6)
for _ in range(3):
    threading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True).start()
''', CORRECT),
    "finalizers_printing_megabytes_at_teardown": (CORRECT + '''
class _D:
    def __del__(self):
        import os
        try:
            os.write(1, b"z" * (4 << 20))
            os.write(2, b"z" * (4 << 20))
        except OSError:
            pass
_keep = [_D() for _ in range(5)]
''', CORRECT),
    "faulthandler_dumping_tracebacks_every_10_ms": (CORRECT + '''
import faulthandler, sys
faulthandler.dump_traceback_later(0.01, repeat=True, file=sys.stderr)
''', CORRECT),
    "a_byte_at_a_time_on_stderr": (inside('''
import os
for i in range(20000):
    os.write(2, b"e")'''), CORRECT),
    "a_logging_flood": (inside('''
import logging
logging.basicConfig(level=0, force=True)
for i in range(2000):
    logging.getLogger("a").warning("y" * 1000)'''), CORRECT),
    "memory_held_just_under_the_limit": (CORRECT + '''
_balloon = bytearray(300 << 20)
for _i in range(0, len(_balloon), 4096):
    _balloon[_i] = 1
''', CORRECT),
    # import-time poisoning of what the jail's serving loop itself uses
    "json_dumps_poisoned_at_import": (CORRECT + '''
import json
json.dumps = lambda *a, **k: (_ for _ in ()).throw(SystemExit(3))
''', CORRECT),
    "builtins_isinstance_poisoned_at_import": (CORRECT + '''
import builtins
builtins.isinstance = lambda *a: False
''', CORRECT),
    "torch_and_numpy_poisoned_in_sys_modules_by_a_call": (inside('''
import sys, types
sys.modules["torch"] = types.ModuleType("torch")
sys.modules["numpy"] = None'''), CORRECT),
    # exits of odd kinds
    "os_exit_on_the_third_call": (inside('''
import os
g = globals().setdefault("_c", [0]); g[0] += 1
if g[0] == 3:
    os._exit(0)'''), CORRECT),
    "system_exit_whose_code_cannot_be_printed": (inside('''
class _C:
    def __str__(self):
        raise SystemExit(self)
raise SystemExit(_C())'''), CORRECT),
}


# q scaled in place under no_grad: every result is right, and so are the gradients of k and v, but in the
# gradient call q is a leaf, and autograd never saw it scaled.
Q_SCALED_IN_PLACE = CORRECT.replace(
    "        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])\n",
    "        with torch.no_grad():\n"
    "            q.mul_(1 / math.sqrt(q.shape[-1]))\n"
    "        scores = torch.matmul(q, k.transpose(-2, -1))\n")
assert Q_SCALED_IN_PLACE != CORRECT
ROUND_26["q_scaled_in_place_under_no_grad"] = (Q_SCALED_IN_PLACE, CORRECT)


@pytest.fixture(scope="module")
def honest(executor) -> dict[str, Honest]:
    """Each honest base's total, worker CPU and wall (the second grading: the first warms up)."""
    out = {}
    for source in (CORRECT, WRONG):
        _grade(executor, source)
        result, cpu, wall = worker_cost(_grade, executor, source)
        out[source] = Honest(result["total"], cpu, wall)
    return out


@pytest.mark.parametrize("attack", list(ROUND_26))
def test_a_round_26_attack_is_graded_bounded_and_earns_no_more(executor, honest, attack):
    source, base = ROUND_26[attack]
    total, honest_cpu = honest[base]
    result, cpu, wall = worker_cost(_grade, executor, source)
    print(attack, result["status"], result["total"], total, f"{wall:.1f}s {cpu:.2f}s CPU (honest {honest_cpu:.2f}s)")
    assert_attack_bounded(result, total, wall, cpu, honest_cpu, honest[base].wall)
    for t in result["tests"]:
        if t["outcome"] != "passed":
            # What the jail's conversion of a returned tensor raised is no exception of the student's code,
            # and PyTorch's internal complaint is no advice for a student.
            assert "Cannot copy out of meta tensor" not in t["feedback"]["en"], t["feedback"]["en"]
            assert "Please file an issue" not in t["feedback"]["en"], t["feedback"]["en"]


@pytest.mark.parametrize(("form", "en", "zh"), [
    ("torch.empty_like(o, device='meta')", "a tensor on the meta device, which has a shape but no values",
     "`meta` 设备上的 tensor"),
    ("torch.nested.nested_tensor([o[0], o[0]])", "a nested tensor (torch.nested), which has no single shape",
     "嵌套 tensor"),
])
def test_a_tensor_without_readable_values_is_said_to_be_returned_not_raised(executor, form, en, zh):
    """A meta tensor returned by forward was reported as "forward raised NotImplementedError: Cannot copy out
    of meta tensor; no data!" (the jail's own copy raised, not the student's code), and a nested tensor as
    PyTorch's "Internal error: NestedTensorImpl doesn't support sizes. Please file an issue." Both are
    results the grader cannot carry, said as what they are, in both languages."""
    result = _grade(executor, on_results(CORRECT, f"def _form(o):\n    return {form}"))
    assert result["status"] == "graded", result["message"]
    failed = [t for t in result["tests"] if t["outcome"] == "failed" and "ScaledDotProductAttention.forward" in
              t["feedback"]["en"]]
    assert failed, [t["feedback"]["en"] for t in result["tests"]]
    for t in failed:
        if "returned something the grader could not carry" in t["feedback"]["en"]:
            assert en in t["feedback"]["en"], t["feedback"]["en"]
            assert zh in t["feedback"]["zh"], t["feedback"]["zh"]
    said = [t for t in failed if en in t["feedback"]["en"]]
    assert len(said) >= 5, [t["feedback"]["en"] for t in failed]
    assert not any(" raised " in t["feedback"]["en"] for t in said)


def test_an_input_changed_in_place_during_the_gradient_call_is_said(executor):
    """The jail compared a call's tensor arguments before and after it, but not the gradient call's: a q
    changed in place under torch.no_grad() gave "the gradient with respect to q differs from the reference
    by 0.0713 (allowed 1e-4)" and nothing else, though the jail had seen the change in that very call."""
    result = _grade(executor, Q_SCALED_IN_PLACE)
    assert result["status"] == "graded", result["message"]
    failed = {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}
    grad = failed["test_gradients_match_reference"]
    assert "gradient with respect to q differs" in grad["en"], grad["en"]
    assert "during the gradient call ScaledDotProductAttention.forward changed q in place" in grad["en"], grad["en"]
    assert "在求梯度的调用中，ScaledDotProductAttention.forward 原地（in-place）修改了 q" in grad["zh"], grad["zh"]
    assert "q.mul_" in grad["en"] or "line" in grad["en"], grad["en"]       # the line that does it, when shown


@pytest.mark.parametrize("size", ["2**20, 2**20", "75 * 2**20"])
def test_a_result_larger_than_a_reply_is_refused_before_it_is_copied(executor, size):
    """An expanded view holds 4 bytes and its copy up to 4 TiB: it was copied before the encoder's size check,
    so one of 4 TiB read "forward raised RuntimeError: [enforce fail at alloc_cpu.cpp] ... can't allocate
    memory" (no exception of the student's code), and one of 300 MiB took most of the jail's memory and then
    made the next calls fail that way. Refused before the copy, every call says the same thing, in both
    languages."""
    result = _grade(executor, on_results(CORRECT, f"def _form(o):\n    return torch.zeros(1).expand({size})"))
    assert result["status"] == "graded", result["message"]
    said = [t["feedback"] for t in result["tests"] if t["outcome"] == "failed"
            and any(f"ScaledDotProductAttention.forward {w}" in t["feedback"]["en"] for w in ("raised", "returned"))]
    assert len(said) >= 5, said
    for fb in said:
        assert "allocate" not in fb["en"] and " raised " not in fb["en"], fb["en"]
        assert "bytes a reply may carry" in fb["en"], fb["en"]
        assert "超过一次回复可携带的" in fb["zh"] and "评分系统的英文说明" not in fb["zh"], fb["zh"]


def test_a_module_with_very_many_parameters_is_driven_like_any_other(executor, honest):
    """describe listed every parameter of the module: 6,000 by long names made a reply larger than a header
    may be, refused as what "the grader could not carry out of the sandbox" (28 points instead of 85), and
    60,000 one of "too many values" (64); 25,000 cost the worker 4 times an honest grading's CPU. The reply
    lists the projections' entries and the first few hundred others."""
    total, honest_cpu = honest[CORRECT]
    result, cpu, _ = worker_cost(_grade, executor, MANY_PARAMETERS)
    assert result["status"] == "graded", result["message"]
    assert result["total"] == total, [t["feedback"]["en"] for t in result["tests"] if t["outcome"] != "passed"]
    assert cpu < 2 * honest_cpu + 0.1, f"{cpu:.2f} s of the worker's CPU against {honest_cpu:.2f} s honest"


@pytest.mark.parametrize(("form", "zh"), [
    ("o.to(torch.complex64)", "tensor 的 dtype torch.complex64 无法传回"),
    ("torch.quantize_per_tensor(o.float(), 0.01, 0, torch.qint8)", "tensor 的 dtype torch.qint8 无法传回"),
    ("o.reshape(*o.shape, *([1] * 14))", "它的维数过多"),
    # Round 31: a reply may carry 1 MiB (ReplyAllowance.reply_cap), each tensor weighing 16 KiB besides its data:
    # 5000 empty tensors are over it long before the 4096 tensors a message may hold.
    ("[o] + [torch.zeros(0)] * 5000", "每个 tensor 或数组在数据之外另计 16 KiB"),
    ("[o] + [torch.zeros(1 << 18)] * 5", "结果的数据超过一次回复可携带的"),
    ("[o] + [None] * 200000", "值的数量过多"),
])
def test_what_the_encoder_refuses_is_said_in_chinese(executor, form, zh):
    """The jail's encoder refuses a result it cannot send (a dtype that may not cross, too many dimensions,
    tensors or values, too many bytes) in English; the Chinese feedback quoted that English as the sandbox's
    own words ("评分系统的英文说明：tensor dtype torch.complex64 is not allowed"): each is now said in Chinese."""
    result = _grade(executor, on_results(CORRECT, f"def _form(o):\n    return {form}"))
    assert result["status"] == "graded", result["message"]
    said = [t["feedback"] for t in result["tests"] if t["outcome"] == "failed"
            and "could not carry out of the sandbox: " in t["feedback"]["en"]]     # with the encoder's words
    assert said, [t["feedback"]["en"] for t in result["tests"] if t["outcome"] != "passed"]
    for fb in said:
        assert zh in fb["zh"] and "评分系统的英文说明" not in fb["zh"], fb["zh"]
