"""Round 29 of hostile submissions. The NumPy lab's "written by hand in NumPy" point rested on the jail's
run-time counters alone: a submission that rewrote them (through gc) or called a form of PyTorch's softmax
they do not wrap (torch.log_softmax then np.exp, torch.ops.aten._softmax, a star import) earned the point
that an open torch.softmax loses. It now rests on the trusted review of the source, the counters counting only
against. The round's other attacks, which found nothing open, are kept so that what holds keeps holding: each
is graded in the real sandbox and must end `graded`, score no more than the honest file it is built on, say
in both languages what happened and cost the worker about what an honest grading does."""

from __future__ import annotations

import pytest

from grader_tests.attention_numpy import static as numpy_static
from grading.runner import GradeInput, grade
from tests.grading.helpers import (
    SUBMISSIONS,
    code_names,
    english_in_zh,
    graded_attack,
    honest_cost,
    in_forward,
    on_results,
)
from tests.grading.helpers import grade_stored as _grade

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
PAGE = (SUBMISSIONS / "numpy" / "course_page.py").read_text()
_ANCHOR = "        assert q.ndim == k.ndim == v.ndim == 4\n"
assert _ANCHOR in CORRECT
_SOFTMAX = '''def softmax(a, axis=-1):
    a = a - np.max(a, axis=axis, keepdims=True)
    exp = np.exp(a)
    return exp / exp.sum(axis=axis, keepdims=True)
'''
assert _SOFTMAX in PAGE
_AS_TENSOR = "torch.from_numpy(np.asarray(a, dtype=np.float64))"


def inside(body: str, base: str = CORRECT) -> str:
    """``base`` whose single-head forward first runs ``body``, written inside the class."""
    lines = "".join("        " + line + "\n" for line in body.strip("\n").splitlines())
    return base.replace(_ANCHOR, lines + _ANCHOR)


def page_softmax(body: str, head: str = "") -> str:
    """The NumPy lab's course page code with ``softmax`` written as ``body`` (``head`` first in the file)."""
    return head + PAGE.replace(_SOFTMAX, body)


# The page's softmax through PyTorch, openly: the counters see it and the point is lost (98 of 100).
TORCH_SOFTMAX = page_softmax(f'''import torch
def softmax(a, axis=-1):
    return torch.softmax({_AS_TENSOR}, dim=axis).numpy()
''')

# name -> the NumPy lab's page code using PyTorch's softmax in a way the jail's counters did not see (each
# earned 100, the open use 98)
NUMPY_HIDDEN_SOFTMAX: dict[str, str] = {
    "torch_softmax_and_counters_rewritten_through_gc": page_softmax(f'''import torch
def softmax(a, axis=-1):
    _forge()
    return torch.softmax({_AS_TENSOR}, dim=axis).numpy()
''', head='''import gc as _gc
def _forge():
    for _o in _gc.get_objects():
        if type(_o).__name__ == "Runtime":
            _o.forbid = {k: 0 for k in _o.forbid}
'''),
    "torch_log_softmax_then_exp": page_softmax(f'''import torch
def softmax(a, axis=-1):
    return np.exp(torch.log_softmax({_AS_TENSOR}, dim=axis).numpy())
'''),
    "the_aten_operator": page_softmax(f'''import torch
def softmax(a, axis=-1):
    return torch.ops.aten._softmax({_AS_TENSOR}, axis, False).numpy()
'''),
    "a_star_import_of_torch_functional": page_softmax(f'''from torch.nn.functional import *
import torch
def softmax(a, axis=-1):
    return np.exp(log_softmax({_AS_TENSOR}, dim=axis).numpy())
'''),
    "a_method_of_a_tensor": page_softmax(f'''import torch
def softmax(a, axis=-1):
    return {_AS_TENSOR}.log_softmax(axis).exp().numpy()
'''),
}


def _numpy(executor, source: str) -> dict:
    return grade(GradeInput(code=source.encode()), "attention_numpy", executor)


def _written_with_numpy(result: dict) -> dict:
    return next(t for t in result["tests"] if t["id"] == "test_written_with_numpy")


# ---------------------------------------------------------------------------- the review alone (fast)
@pytest.mark.parametrize("name", list(NUMPY_HIDDEN_SOFTMAX))
def test_the_review_finds_pytorchs_softmax_however_it_is_reached(name):
    source = NUMPY_HIDDEN_SOFTMAX[name]
    assert numpy_static.ready_made_uses(source) or numpy_static.hidden_name_uses(source), name


def test_the_review_leaves_the_page_code_and_a_comparison_under_the_main_guard_alone():
    assert numpy_static.ready_made_uses(PAGE) == () and numpy_static.hidden_name_uses(PAGE) == ()
    compared = PAGE + f'''
if __name__ == "__main__":
    import torch
    a = np.ones((2, 3))
    print(np.abs(softmax(a) - torch.softmax({_AS_TENSOR}, dim=-1).numpy()).max())
'''
    assert numpy_static.ready_made_uses(compared) == () and numpy_static.hidden_name_uses(compared) == ()


@pytest.mark.parametrize("form", [
    '    return pd.eval("c", local_dict={"c": context}), weights, scores',
    '    return pd.DataFrame(context).query("index >= 0").to_numpy(), weights, scores',
    '    return pd.core.computation.expr.Expr, weights, scores',
    '    return pd.read_pickle("/tmp/work/c.pkl"), weights, scores',
    '    from pandas.io.pickle import read_pickle\n    return read_pickle("/tmp/work/c.pkl"), weights, scores',
], ids=["pd.eval", "DataFrame.query", "Expr", "read_pickle", "pandas.io.pickle"])
def test_pandas_handed_a_string_to_call_is_not_followed(form):
    """pd.eval("t.softmax(x, 1)", local_dict={"t": torch, ...}) calls torch.softmax with no name the review reads."""
    source = PAGE.replace("    return context, weights, scores", form)
    found = numpy_static.hidden_name_uses(source)
    assert any("calls what a string names" in f for f in found), found
    assert all(english_in_zh(numpy_static.finding_zh(f), code_names(source)) == [] for f in found), found


# ---------------------------------------------------------------------------- in the real sandbox (slow)
@pytest.mark.slow
@pytest.mark.parametrize("name", list(NUMPY_HIDDEN_SOFTMAX))
def test_pytorchs_softmax_the_counters_did_not_see_earns_no_more_than_its_open_use(executor, name):
    honest = _numpy(executor, TORCH_SOFTMAX)
    assert honest["status"] == "graded" and _written_with_numpy(honest)["outcome"] == "failed"
    result = _numpy(executor, NUMPY_HIDDEN_SOFTMAX[name])
    assert result["status"] == "graded", result["message"]
    said = _written_with_numpy(result)
    assert said["outcome"] == "failed", name
    assert result["total"] <= honest["total"], (result["total"], honest["total"])
    assert said["feedback"]["en"] != said["feedback"]["zh"]
    source = NUMPY_HIDDEN_SOFTMAX[name]
    assert english_in_zh(said["feedback"]["zh"], code_names(source)) == [], said["feedback"]["zh"]
    print(name, said["feedback"]["en"], said["feedback"]["zh"], sep="\n  ")


@pytest.mark.slow
def test_the_page_code_keeps_full_marks(executor):
    result = _numpy(executor, PAGE)
    assert result["status"] == "graded" and result["total"] == 100, result["tests"]


# The round's attacks on the attention lab that found nothing open. name -> (attack, the honest file it is on)
ROUND_29: dict[str, tuple[str, str]] = {
    "flush_denormal_at_import": (CORRECT + "\ntorch.set_flush_denormal(True)\n", CORRECT),
    "subnormals_added_to_every_result": (
        on_results(CORRECT, "def _form(o):\n    return o + torch.full_like(o, 1e-40)"), CORRECT),
    "interop_threads_set_in_a_call": (inside("torch.set_num_interop_threads(16)"), CORRECT),
    "pinned_to_one_cpu_and_sched_idle": (CORRECT + '''
import os
os.sched_setaffinity(0, {0})
os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
''', CORRECT),
    "sync_of_every_filesystem_in_each_call": (inside("import os\nfor _ in range(50):\n    os.sync()"), CORRECT),
    "sigstop_sent_to_itself": (inside('''
import os, signal
signal.signal(signal.SIGTSTP, signal.SIG_DFL)
os.kill(os.getpid(), signal.SIGSTOP)
os.kill(os.getpid(), signal.SIGTSTP)'''), CORRECT),
    "an_exception_group_of_100000": (inside("raise ExceptionGroup('many', [ValueError(i) for i in range(100000)])"),
                                     CORRECT),
    "exception_groups_nested_3000_deep": (inside('''
e = ValueError("leaf")
for i in range(3000):
    e = ExceptionGroup(f"g{i}", [e])
raise e'''), CORRECT),
    "an_exception_raised_50000_frames_deep": (inside("_deep(50000)", CORRECT + '''
import sys
sys.setrecursionlimit(60000)
def _deep(n):
    if n == 0:
        raise ValueError("deep")
    return _deep(n - 1)
'''), CORRECT),
    "an_exception_at_a_line_past_the_file": (
        inside('exec(compile("\\n" * 10**6 + "raise ValueError(1)", "attention.py", "exec"))'), CORRECT),
    "stop_iteration_generator_exit_and_keyboard_interrupt": (inside('''
g = globals().setdefault("_n", [0])
g[0] += 1
raise (StopIteration, GeneratorExit, KeyboardInterrupt, StopAsyncIteration)[g[0] % 4]("x")'''), CORRECT),
    "saved_tensor_hooks_exiting_in_backward": (CORRECT + '''
import os
_ctx = torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: os._exit(0))
_ctx.__enter__()
''', CORRECT),
    "saved_tensor_hooks_unpacking_a_string": (CORRECT + '''
_ctx = torch.autograd.graph.saved_tensors_hooks(lambda t: None, lambda t: "x")
_ctx.__enter__()
''', CORRECT),
    "a_sparse_gradient_from_a_hook": (in_forward(CORRECT, '''
if q.requires_grad:
    q.register_hook(lambda g: g.to_sparse())'''), CORRECT),
    "anomaly_detection_and_deterministic_algorithms_at_import": (
        CORRECT + "\ntorch.autograd.set_detect_anomaly(True)\ntorch.use_deterministic_algorithms(True)\n", CORRECT),
    "weakref_finalize_printing_a_forged_pass_at_exit": (CORRECT + '''
import weakref, os
class _O:
    pass
_o = _O()
weakref.finalize(_o, os.write, 1, b"PASSED" * 100000)
''', CORRECT),
}


@pytest.fixture(scope="module")
def honest(executor) -> dict[str, tuple[float, float]]:
    return {CORRECT: honest_cost(_grade, executor, CORRECT)}


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ROUND_29))
def test_a_round_29_attack_is_graded_bounded_and_earns_no_more(executor, honest, attack):
    source, base = ROUND_29[attack]
    graded_attack(attack, honest[base], _grade, executor, source)


# ---------------------------------------------------------------------------- a report the jail gives, forged
# v changed in place after the forward computed its results: test_deterministic says so, from the jail's report
# of the call's tensor arguments compared before and after it ...
V_CHANGED = CORRECT + '''
import sys
_honest_forward = ScaledDotProductAttention.forward
def _changes_v(self, q, k, v, *a, **kw):
    out = _honest_forward(self, q, k, v, *a, **kw)
    v.add_(1.0)
    return out
ScaledDotProductAttention.forward = _changes_v
'''
# ... which the same code forged by clearing the call's snapshot of its arguments, found through the frames:
# it earned test_deterministic's 2 points back (70 against 68).
V_CHANGED_AND_REPORT_FORGED = V_CHANGED.replace("    v.add_(1.0)\n", '''    v.add_(1.0)
    f = sys._getframe(1)
    while f is not None:
        b = f.f_locals.get("before")
        if isinstance(b, list):
            b.clear()
        f = f.f_back
''')
assert V_CHANGED_AND_REPORT_FORGED != V_CHANGED


@pytest.mark.slow
def test_a_forged_report_of_unchanged_inputs_earns_nothing(executor):
    honest = _grade(executor, V_CHANGED)
    forged = _grade(executor, V_CHANGED_AND_REPORT_FORGED)
    outcomes = {t["id"]: t for t in forged["tests"]}
    assert forged["status"] == "graded", forged["message"]
    assert {t["id"]: t["outcome"] for t in honest["tests"]}["test_deterministic"] == "failed"
    said = outcomes["test_deterministic"]
    assert said["outcome"] == "failed", said
    assert forged["total"] <= honest["total"], (forged["total"], honest["total"])
    assert "sys._getframe" in said["feedback"]["en"] and "sys._getframe" in said["feedback"]["zh"], said["feedback"]
    assert english_in_zh(said["feedback"]["zh"], code_names(V_CHANGED_AND_REPORT_FORGED)) == [], said["feedback"]["zh"]


# A ScaledDotProductAttention that is no torch.nn.Module loses test_sdpa_interface, from the jail's describe
# reply; the same code with the describe op rewritten through gc to answer "is_module": True passed it.
PLAIN_SDPA = CORRECT.replace("class ScaledDotProductAttention(nn.Module):\n", '''class ScaledDotProductAttention:
    training = False

    def __call__(self, *a, **k):
        return self.forward(*a, **k)

    def eval(self):
        return self

    def train(self, mode=True):
        return self

''')
assert PLAIN_SDPA != CORRECT
PLAIN_SDPA_DESCRIBED_AS_A_MODULE = PLAIN_SDPA + '''
import gc as _gc
for _o in _gc.get_objects():
    if type(_o).__name__ == "Runtime":
        _orig = type(_o).op_describe
        def _described(self, req, _orig=_orig):
            info = _orig(self, req)
            if isinstance(info, dict):
                info["is_module"] = True
            return info
        type(_o).OPS["describe"] = _described
'''


@pytest.mark.slow
def test_a_describe_reply_forged_to_say_module_earns_nothing(executor):
    honest = _grade(executor, PLAIN_SDPA)
    forged = _grade(executor, PLAIN_SDPA_DESCRIBED_AS_A_MODULE)
    assert forged["status"] == "graded", forged["message"]
    assert {t["id"]: t["outcome"] for t in honest["tests"]}["test_sdpa_interface"] == "failed"
    said = next(t for t in forged["tests"] if t["id"] == "test_sdpa_interface")
    assert said["outcome"] == "failed", said
    assert forged["total"] <= honest["total"], (forged["total"], honest["total"])
    assert "_gc.get_objects" in said["feedback"]["en"], said["feedback"]
    assert english_in_zh(said["feedback"]["zh"], code_names(PLAIN_SDPA_DESCRIBED_AS_A_MODULE)) == [], \
        said["feedback"]["zh"]


# The round's attacks on the NumPy lab that found nothing open (its counters forged or its stats op replaced
# now cost the point through the review). name -> attack on the course page code
_PAGE_RETURN = "    return context, weights, scores"
assert _PAGE_RETURN in PAGE


def _softmax_first(body: str) -> str:
    lines = "".join("    " + line + "\n" for line in body.strip("\n").splitlines())
    return PAGE.replace("def softmax(a, axis=-1):\n", "def softmax(a, axis=-1):\n" + lines, 1)


NUMPY_ROUND_29: dict[str, str] = {
    "an_exit_in_softmax": _softmax_first("import os\nos._exit(3)"),
    "nan_and_inf_results": PAGE.replace(_PAGE_RETURN, "    return context * np.nan, weights * np.nan, scores * np.inf"),
    "counters_forged_to_absurd_values": '''import gc as _gc
def _forge():
    for _o in _gc.get_objects():
        if type(_o).__name__ == "Runtime":
            _o.forbid = {k: 10**30 for k in _o.forbid}
            _o.forbid["x" * 100000] = -5
''' + _softmax_first("_forge()"),
    "the_stats_op_answering_a_list": '''import gc as _gc
def _forge():
    for _o in _gc.get_objects():
        if type(_o).__name__ == "Runtime":
            type(_o).OPS["stats"] = lambda self, req: [1, 2, 3]
''' + _softmax_first("_forge()"),
    "a_base_exception_group_raised": _softmax_first("raise BaseExceptionGroup('x', [KeyboardInterrupt('k')])"),
    "numpy_errors_calling_a_function_that_exits": _softmax_first(
        "np.seterr(all='call')\nnp.seterrcall(lambda *a: (_ for _ in ()).throw(SystemExit(0)))"),
    "integer_results_at_their_extremes": PAGE.replace(_PAGE_RETURN, (
        "    return (np.full(context.shape, -2**31, dtype=np.int32), np.full(weights.shape, -2**31, dtype=np.int32),\n"
        "            np.full(scores.shape, 2**63 - 1, dtype=np.int64))")),
    "matrix_and_masked_array_results": PAGE.replace(
        _PAGE_RETURN, "    return np.matrix(context), np.ma.masked_array(weights, mask=True), scores"),
}


@pytest.fixture(scope="module")
def honest_page(executor) -> tuple[float, float]:
    return honest_cost(_numpy, executor, PAGE)


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(NUMPY_ROUND_29))
def test_a_round_29_attack_on_the_numpy_lab_is_graded_bounded_and_earns_no_more(executor, honest_page, attack):
    result = graded_attack(attack, honest_page, _numpy, executor, NUMPY_ROUND_29[attack])
    if "Runtime" in NUMPY_ROUND_29[attack]:
        assert _written_with_numpy(result)["outcome"] == "failed"
