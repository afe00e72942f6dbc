"""The jailed process looks like `python attention.py` run in an empty folder of the student's own
machine: its command line, working directory, standard streams, torch defaults and the notebook
builtins, not the zygote's (a correct file must not fail because of the grader's process)."""

from __future__ import annotations

import pytest
import torch
import typing_extensions

from grading.sandbox import Limits, StudentError
from tests.sandbox.helpers import assert_healthy

WATCH = {"imports": ["numpy"], "inert": ["matplotlib", "tqdm", "IPython"]}


def open_session(ex, source: str, watch=None):
    return ex.session(source, filename="attention.py", module_name="attention",
                      watch=WATCH if watch is None else watch)


SPY = '''
import os, sys
import torch

def look():
    __main__ = sys.modules["__main__"]
    mods = [m for m in sys.modules if m.split(".")[0] in ("grading", "autograder") or "editable" in m]
    return {"argv": sys.argv, "orig_argv": sys.orig_argv, "environ": dict(os.environ),
            "path": sys.path, "cwd": os.getcwd(), "ls_cwd": os.listdir("."), "file": __file__,
            "abs_file": os.path.abspath(__file__), "main_file": getattr(__main__, "__file__", None),
            "main_names": sorted(n for n in vars(__main__) if not n.startswith("__")),
            "project_modules": mods, "meta_path": [repr(f) for f in sys.meta_path],
            "stdout": [type(sys.stdout).__name__, sys.stdout.encoding, sys.stdout.errors],
            "stdout_is_dunder": sys.stdout is sys.__stdout__, "stdin_read": sys.stdin.read()}

def write_root():
    try:
        open("/escape.txt", "w").close()
    except OSError as e:
        return type(e).__name__
    return "written"
'''


def test_the_process_looks_like_a_script_run_in_an_empty_folder(executor):
    with open_session(executor, SPY) as s:
        s.load()
        info = s.call_function("look")
        assert s.call_function("write_root") == "OSError"       # the root stays read-only
    assert info["argv"] == ["attention.py"] and info["orig_argv"] == ["python", "attention.py"]
    assert set(info["environ"]) <= {"PATH", "HOME", "LANG", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
    assert info["cwd"] == "/tmp/work" and info["ls_cwd"] == []
    assert info["file"] == "attention.py" and info["abs_file"] == "/tmp/work/attention.py"
    assert "/tmp/work" not in info["path"] and "/" not in info["path"]    # nothing written there imports
    assert not [p for p in info["path"] if "site-packages" not in p and "python3" not in p
                and "python" not in p], info["path"]
    assert info["main_file"] is None and info["main_names"] == []       # not the zygote's module
    assert info["project_modules"] == []
    assert not [f for f in info["meta_path"] if "editable" in f.lower()]
    blob = repr(info)
    for leak in ("zygote", "grading", "autograder"):
        assert leak not in blob, leak
    assert info["stdout"] == ["TextIOWrapper", "utf-8", "strict"] and info["stdout_is_dunder"]
    assert info["stdin_read"] == ""
    assert_healthy(executor)


SCRIPT = '''
import argparse, logging, os, sys, io
from pathlib import Path
import torch

sys.stdout.reconfigure(encoding="utf-8")
sys.stderr.reconfigure(encoding="utf-8", errors="replace")
parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()
os.makedirs("outputs", exist_ok=True)
logging.basicConfig(filename="train.log", level=logging.INFO)
logging.info("epochs %d", args.epochs)
torch.save({"w": torch.ones(2)}, "outputs/model.pt")
(Path(__file__).resolve().parent / "notes.txt").write_text("注意力", encoding="utf-8")
print("训练 → done", args.epochs)
answer = input("Press Enter to continue...")

def state():
    return {"answer": answer, "files": sorted(os.listdir(".")), "outputs": os.listdir("outputs"),
            "log": open("train.log").read(), "loaded": torch.load("outputs/model.pt")["w"].tolist()}
'''


def test_top_level_script_code_runs_with_a_writable_folder_and_normal_streams(executor):
    with open_session(executor, SCRIPT) as s:
        s.load()
        st = s.call_function("state")
    out = s.output          # read after close: the capture is drained by a thread, joined at close
    assert st["answer"] == ""
    assert st["files"] == ["notes.txt", "outputs", "train.log"] and st["outputs"] == ["model.pt"]
    assert "epochs 3" in st["log"] and st["loaded"] == [1.0, 1.0]
    assert "训练 → done 3" in out
    assert "Press Enter to continue...\n" in out and "input() has no keyboard" in out
    # each session has its own, empty folder
    with open_session(executor, SPY) as s:
        s.load()
        assert s.call_function("look")["ls_cwd"] == []


def test_rewrapped_stdout_is_still_captured(executor):
    src = ("import io, sys\n"
           "sys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding='utf-8')\n"
           "print('wrapped 输出')\n"
           "def f():\n    print('later')\n    return 1\n")
    with open_session(executor, src) as s:
        s.load()
        assert s.call_function("f") == 1
    assert "wrapped 输出" in s.output and "later" in s.output      # after close: the capture is complete


def test_input_in_a_loop_ends_with_eoferror_not_a_timeout(executor):
    src = "while input('again? ') != 'q':\n    pass\n"
    with open_session(executor, src) as s:
        try:
            s.load()
        except Exception as e:  # noqa: BLE001
            err = e
        else:
            raise AssertionError("the loop should have ended")
    assert getattr(err, "kind", None) == "EOFError" and "no keyboard" in str(err)


GLOBAL_DEFAULTS = '''
import torch
torch.set_default_dtype(torch.float64)
torch.set_grad_enabled(False)
torch.set_num_threads(3)
torch.set_float32_matmul_precision("medium")
_ctx = torch.inference_mode()
_ctx.__enter__()
torch.set_default_device("meta")
BUILT_AT_IMPORT = torch.nn.Linear(2, 2, device="cpu")

class Proj(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)

    def forward(self, x):
        return self.lin(x).softmax(-1)

def state():
    return {"dtype": str(torch.get_default_dtype()), "grad": torch.is_grad_enabled(),
            "inference": torch.is_inference_mode_enabled(), "device": str(torch.get_default_device()),
            "threads": torch.get_num_threads(), "precision": torch.get_float32_matmul_precision(),
            "import_dtype": str(BUILT_AT_IMPORT.weight.dtype), "zeros": str(torch.zeros(1).dtype)}
'''


def test_torch_defaults_changed_at_the_top_level_are_restored_after_load(executor):
    with open_session(executor, GLOBAL_DEFAULTS) as s:
        s.load()
        st = s.call_function("state")
        h = s.new("Proj")
        x = torch.randn(2, 4)
        out = s.call(h, "__call__", x)
        (g,) = s.grad(h, [x], {}, torch.randn(2, 3), wrt=[0])
    assert st == {"dtype": "torch.float32", "grad": True, "inference": False, "device": "cpu",
                  "threads": 1, "precision": "highest",
                  "import_dtype": "torch.float64",     # what the module built itself stays as built
                  "zeros": "torch.float32"}
    assert out.dtype == torch.float32 and out.shape == (2, 3)
    assert g is not None and g.dtype == torch.float32 and g.abs().sum() > 0


THREADS_IN_CALLS = '''
import torch

class Wide(torch.nn.Module):
    def __init__(self, threads):
        super().__init__()
        torch.set_num_threads(threads)      # e.g. os.cpu_count() on a 64-core host

    def forward(self, x):
        torch.set_num_threads(64)
        return (x @ x).sum(), torch.get_num_threads()
'''


def test_asking_for_more_threads_than_the_jail_allows_keeps_one_thread(executor):
    # Before: the first parallel operation after set_num_threads(64) ended the jail with exit code 1
    # ("libgomp: Thread creation failed"): every test of such a file failed.
    x = torch.randn(512, 512)
    with open_session(executor, THREADS_IN_CALLS) as s:
        s.load()
        h = s.new("Wide", 64)
        total, threads = s.call(h, "__call__", x)
        assert threads == 1 and torch.allclose(total, (x @ x).sum(), rtol=1e-4)
        with pytest.raises(StudentError, match="positive"):
            s.new("Wide", 0)                  # torch's own check of the argument still applies
        assert s.call(h, "__call__", x)[1] == 1


def test_set_default_tensor_type_is_undone(executor):
    src = ("import torch\ntorch.set_default_tensor_type(torch.DoubleTensor)\n"
           "def f():\n    return [str(torch.tensor([1.0]).dtype), str(torch.Tensor(2).dtype),"
           " str(torch.nn.Linear(2, 2).weight.dtype)]\n")
    with open_session(executor, src) as s:
        s.load()
        assert s.call_function("f") == ["torch.float32"] * 3


def test_a_failed_load_is_still_reported_as_the_students_error(executor):
    src = "import torch\ntorch.set_default_dtype(torch.float64)\nraise ValueError('boom')\n"
    with open_session(executor, src) as s:
        try:
            s.load()
        except Exception as e:  # noqa: BLE001
            assert getattr(e, "kind", None) == "ValueError" and getattr(e, "lineno", None) == 3
        else:
            raise AssertionError("load should fail")


NOTEBOOK = '''
from IPython.display import Markdown
import torch
x = torch.ones(2)
display(x)
display(Markdown("**hi**"))
get_ipython().run_line_magic("matplotlib", "inline")

def f():
    display("in a call")
    return 1
'''


def test_notebook_display_is_a_builtin_when_ipython_is_inert(executor):
    with open_session(executor, NOTEBOOK) as s:
        s.load()
        assert s.call_function("f") == 1
    # without IPython among the inert packages, display stays undefined, as in plain Python
    with open_session(executor, "def f():\n    return display\n", watch={"imports": []}) as s:
        s.load()
        try:
            s.call_function("f")
        except Exception as e:  # noqa: BLE001
            assert getattr(e, "kind", None) == "NameError"
        else:
            raise AssertionError("display should be undefined")


SHADOW = """
import sys

def shadow(name):
    with open(name + ".py", "w") as f:
        f.write("SHADOWED = True\\n")
    sys.path.insert(0, ".")
    sys.path.insert(0, "/tmp/work")
    try:
        module = __import__(name)
    except ImportError as exc:
        return "refused: " + str(exc)
    return "shadowed" if getattr(module, "SHADOWED", False) else "the real module"
"""


def test_a_module_the_submission_writes_cannot_be_imported_even_with_its_folder_on_sys_path(executor):
    """Red-team round 7: statistics.py (an allowed, not yet imported module) or einops.py written to the
    working folder ran code the source review never saw, under an allowed name."""
    with open_session(executor, SHADOW, watch={}) as s:
        s.load()
        assert s.call_function("shadow", "statistics").startswith("refused: module 'statistics' comes from a file")
        assert s.call_function("shadow", "my_helper").startswith("refused")
        assert s.call_function("shadow", "json") == "the real module"        # already imported: the cache


def test_dataclass_field_names_that_are_not_identifiers_are_refused(executor):
    """Red-team round 8: dataclasses exec source text built from field names; a name such as
    "d, globals().update(...)" (from a metaclass's __prepare__ or a base's Field.name changed
    afterwards) ran code no review saw."""
    src = ("import dataclasses\n\n@dataclasses.dataclass\nclass Ok:\n    d: int = 8\n\n"
           "def mutate():\n    f = dataclasses.fields(Ok)[0]\n    f.name = 'd, print(1)'\n"
           "    try:\n        dataclasses.dataclass(type('Sub', (Ok,), {}))\n"
           "    except TypeError as exc:\n        return str(exc)\n    return 'built'\n")
    with open_session(executor, src, watch={}) as s:
        s.load()                                   # an ordinary dataclass still works
        assert s.call_function("mutate").startswith("dataclass field names must be plain identifiers")


def test_a_forbidden_function_in_a_module_imported_later_is_still_counted(executor):
    """flex_attention lives in a module torch does not import by itself, so it could not be wrapped when
    the watch was installed (red-team round 8 used it uncounted: 82). It is wrapped when its module is
    imported, by the student or by torch itself (torch.compile imports it)."""
    watch = {"forbid": ["torch.nn.attention.flex_attention.flex_attention"]}
    src = ("def use():\n    from torch.nn.attention.flex_attention import flex_attention\n"
           "    return flex_attention.__code__.co_name, flex_attention.__name__\n")
    with open_session(executor, src, watch=watch) as s:
        s.load()
        # the function the student gets is the counted one, under its own name
        assert s.call_function("use") == ("wrapper", "flex_attention")


def test_a_counted_function_does_not_hand_out_the_uncounted_original(executor):
    """functools.wraps set ``__wrapped__`` (and copied ``__dict__``): ``inspect.unwrap`` or
    ``f.__wrapped__`` was the original, called without being counted."""
    watch = {"forbid": ["torch.nn.functional.scaled_dot_product_attention"]}
    src = ("import inspect\nimport torch.nn.functional as F\n\ndef probe():\n"
           "    f = F.scaled_dot_product_attention\n"
           "    return [hasattr(f, '__wrapped__'), inspect.unwrap(f) is f, f.__name__]\n")
    with open_session(executor, src, watch=watch) as s:
        s.load()
        assert s.call_function("probe") == [False, True, "scaled_dot_product_attention"]


SOURCE_LINES = '''
import inspect

# notes\x0cdef kernel(): return "hidden in a comment"
def kernel():
    return "reviewed"

def shown():
    return inspect.getsource(kernel)
'''


def test_the_source_a_function_shows_is_the_text_python_compiled(executor):
    # str.splitlines() breaks a comment at a form feed (or \x1c-\x1e, \x85, \u2028) where Python's
    # tokenizer does not: torch.jit.script(kernel) would compile the text hidden in the comment.
    with open_session(executor, SOURCE_LINES) as s:
        s.load()
        assert s.call_function("kernel") == "reviewed"
        assert s.call_function("shown").startswith("def kernel():\n    return \"reviewed\"")


SOURCE_IN_A_STRING = '''
import inspect

NOTES = """
def kernel():
    return "hidden in a string"
"""
def\\
 kernel():
    return "compiled"

def shown():
    return inspect.getsource(kernel)
'''


def test_a_function_s_source_starts_where_python_compiled_it_not_at_a_def_in_a_string(executor):
    # inspect walks up from the code's first line to anything that looks like a def: here the one
    # in NOTES, which torch.jit.script(kernel) would then compile instead of the reviewed code.
    with open_session(executor, SOURCE_IN_A_STRING) as s:
        s.load()
        assert s.call_function("kernel") == "compiled"
        assert "compiled" in s.call_function("shown") and "hidden" not in s.call_function("shown")


CHECKPOINTED = '''
import sys
import torch
from torch.utils.checkpoint import checkpoint

def dynamo_imported():
    return "torch._dynamo" in sys.modules

def doubled():
    x = torch.ones(3, requires_grad=True)
    y = checkpoint(lambda t: t * 2, x, use_reentrant=False)
    y.sum().backward()
    return x.grad.tolist()
'''


def test_activation_checkpointing_imports_dynamo_neither_while_loading_nor_in_a_call(executor):
    """Non-reentrant torch.utils.checkpoint reads torch._dynamo.config, whose first import (1.6 s of
    CPU, 4-6 s of wall on a busy host) timed the first call of memory-efficient attention out at 5 s.
    Round 21 moved the import to the load of a source asking for use_reentrant=False (0.67-0.81 s);
    since round 24 the zygote settles what that path reads (lazy_torch), and nothing imports it."""
    with executor.session(CHECKPOINTED, filename="attention.py", module_name="attention", watch={},
                          limits=Limits()) as s:
        s.load()
        assert s.call_function("dynamo_imported") is False
        assert s.call_function("doubled") == [2.0, 2.0, 2.0]
        assert s.call_function("dynamo_imported") is False
    plain = CHECKPOINTED.replace("from torch.utils.checkpoint import checkpoint\n", "").split("def doubled")[0]
    with open_session(executor, plain, watch={}) as s:
        s.load()
        assert s.call_function("dynamo_imported") is False


def test_reentrant_checkpointing_runs_without_importing_dynamo(executor):
    """torch's default (reentrant) checkpoint and checkpoint_sequential only needed torch._dynamo for
    the torch._disable_dynamo wrapper around them, which imported it at the first call: the zygote
    settles those wrappers before it forks, so the call is quick and imports nothing."""
    source = CHECKPOINTED.replace("use_reentrant=False", "use_reentrant=True") + (
        "\ndef sequential():\n    x = torch.ones(1, 3, requires_grad=True)\n"
        "    layers = [torch.nn.Linear(3, 3), torch.nn.ReLU()]\n"
        "    return list(torch.utils.checkpoint.checkpoint_sequential(layers, 2, x, use_reentrant=True).shape)\n")
    with open_session(executor, source, watch={}) as s:
        s.load()
        assert s.call_function("doubled") == [2.0, 2.0, 2.0]
        assert s.call_function("sequential") == [1, 3]
        assert s.call_function("dynamo_imported") is False

def test_typing_extensions_installed_with_torch_imports_and_other_packages_do_not(executor):
    """litgpt's ``from typing_extensions import Self`` made a correct file fail to load (0 of 85): torch
    installs it and imports it itself. A package torch does not bring is still refused by name."""
    src = "from typing_extensions import Self\n\ndef name():\n    return repr(Self)\n"
    with open_session(executor, src) as s:
        s.load()
        assert s.call_function("name") == repr(typing_extensions.Self)
    with open_session(executor, "import scipy\n") as s:
        with pytest.raises(StudentError, match="No module named 'scipy' in the grader"):
            s.load()


REENTRANT = '''
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Chunked(nn.Module):
    def forward(self, q, k):
        return checkpoint(lambda a, b: (a * b).softmax(-1), q, k)
'''


def test_gradients_are_read_from_backward_so_reentrant_checkpointing_can_be_graded(executor):
    """The grader's gradient check took torch.autograd.grad, which torch.utils.checkpoint's reentrant
    default refuses ("incompatible with .grad()"): memory-efficient attention lost its 2 gradient
    points. The jail now calls backward() and reads the inputs' .grad, as a student's check does."""
    q, k, g = torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3)
    qq, kk = q.clone().requires_grad_(True), k.clone().requires_grad_(True)
    ((qq * kk).softmax(-1) * g).sum().backward()
    with open_session(executor, REENTRANT, watch={}) as s:
        s.load()
        h = s.new("Chunked")
        gq, gk = s.grad(h, [q, k], {}, g, wrt=[0, 1])
    assert torch.allclose(gq, qq.grad, atol=1e-6) and torch.allclose(gk, kk.grad, atol=1e-6)


@pytest.mark.parametrize("call_body", [
    "        return q * 2\n\n    forward = __call__\n",                  # forward is __call__
    "        return super().__call__(q)\n\n    def forward(self, q):\n        return q * 2\n",   # typed __call__
])
def test_a_counted_forward_counts_calls_through_the_classs_own_call(executor, call_body):
    """A JAX/Flax habit: the computation in ``__call__`` (``forward = __call__``). ``self.a(q)`` then never
    ran the wrapped forward, and MultiHeadAttention's call of its single-head module was not counted
    (fairness round 18: test_mha_reuses_sdpa, 85 -> 82)."""
    src = ("import torch\n\nclass A(torch.nn.Module):\n    def __call__(self, q):\n" + call_body +
           "\nclass B(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.a = A()\n\n    def forward(self, q):\n        return self.a(q)\n")
    with open_session(executor, src, watch={"count": ["A.forward", "B.forward"]}) as s:
        s.load()
        h = s.new("B")
        assert torch.equal(s.call(h, "__call__", torch.ones(2)), torch.full((2,), 2.0))
        counts = s.stats()["count"]
    assert counts["A.forward"] >= 1 and counts["B.forward"] == 1
