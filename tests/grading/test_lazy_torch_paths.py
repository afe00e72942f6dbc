"""Calls of torch that correct files make at their top level and that torch serves by importing
its compiler stack on first use (torch._inductor, torch._dynamo, torch.distributed.tensor: up to
~820 modules and 1.5 s of CPU in each of a grading's jails): use_deterministic_algorithms, the
optimizers and their step, assert_close, torch.func's grad, vjp, jacrev and hessian. The zygote
takes them without the import (grading/sandbox/zygote.py), so they cost a student neither their
import limit under load nor the service its CPU."""

from __future__ import annotations

import pytest

from tests.grading.helpers import SUBMISSIONS
from tests.grading.helpers import grade_stored as _grade

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()

# Every optimizer torch.optim exports but SparseAdam (it refuses dense gradients); written out, since
# a name computed at run time is a review finding in a submission (test_every_optimizer_is_stepped).
OPTIMIZERS = ("Adafactor", "Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "Muon",
              "NAdam", "RAdam", "RMSprop", "Rprop", "SGD")

# Each runs at the top of a correct file, timed by the jail's own CPU clock; the file refuses to
# load when the call took more than 0.08 s of CPU (0.17-1.5 s in the jail before the zygote settled
# it, 0.000-0.008 s after),
# or when it did not do what torch documents.
CALLS = {
    "use_deterministic_algorithms_warn_only": (
        "torch.use_deterministic_algorithms(True, warn_only=True)",
        "torch.are_deterministic_algorithms_enabled() and torch.is_deterministic_algorithms_warn_only_enabled()",
    ),
    "use_deterministic_algorithms_off_again": (
        "torch.use_deterministic_algorithms(True); torch.use_deterministic_algorithms(False)",
        "not torch.are_deterministic_algorithms_enabled()",
    ),
    "an_optimizer_built_at_import": (
        "_opt = torch.optim.AdamW(torch.nn.Linear(4, 4).parameters(), lr=1e-3); _opt.zero_grad()",
        "len(_opt.param_groups) == 1",
    ),
    "a_self_check_with_assert_close": (
        "torch.testing.assert_close(torch.ones(2), torch.ones(2))\n"
        "try:\n    torch.testing.assert_close(torch.ones(2), torch.zeros(2))\n    _told = False\n"
        "except AssertionError:\n    _told = True",
        "_told",
    ),
    # Every optimizer of torch.optim, one step each (Optimizer.step imported torch._dynamo: 0.7-0.95 s
    # of CPU and 336 modules in the jail, 0.004-0.008 s after). SGD's step is checked to the value.
    "a_step_of_every_optimizer": (
        "_stepped = []\n"
        f"for _cls in ({', '.join('torch.optim.' + n for n in OPTIMIZERS)}):\n"
        "    _name = _cls.__name__\n"
        "    _w = torch.nn.Parameter(torch.ones(2, 2))\n"
        "    _o = _cls([_w], lr=0.1)\n"
        "    (_w * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()\n"
        "    _o.step((lambda: (_w * _w).sum()) if _name == 'LBFGS' else None)\n"
        "    _stepped.append((_name, bool((_w.detach() != 1).all()), torch.is_grad_enabled(), _w.detach()))\n"
        "_sgd = dict((n, w) for n, _c, _g, w in _stepped)['SGD']",
        f"len(_stepped) == {len(OPTIMIZERS)} and all(c and g for _n, c, g, _w in _stepped)"
        " and torch.allclose(_sgd, torch.tensor([[0.9, 0.8], [0.7, 0.6]]))",
    ),
    # torch.func's gradients (a student's own gradient check) imported torch._dynamo at each call:
    # 0.74 s of CPU and 335 modules in the jail, 0.004 s after.
    "a_gradient_check_with_torch_func": (
        "_x = torch.tensor([1.0, 2.0])\n"
        "_g = torch.func.grad(lambda x: (x ** 2).sum())(_x)\n"
        "_out, _vjp = torch.func.vjp(torch.sin, _x)\n"
        "_j = torch.func.jacrev(torch.sin)(_x)\n"
        "_const = torch.func.grad(lambda x: (x * 0).sum() + 1.0)(_x)",
        "torch.equal(_g, torch.tensor([2.0, 4.0])) and torch.allclose(_vjp(torch.ones(2))[0], torch.cos(_x))"
        " and torch.allclose(_j, torch.diag(torch.cos(_x))) and torch.equal(_const, torch.zeros(2))",
    ),
    # torch.func.hessian's backward ran through a _disable_dynamo wrapper that no module names
    # (under torch._refs' out_wrapper) and imported torch._dynamo: 0.96 s of CPU in the jail (past the
    # tests' 3 s import limit on a busy host), 0.13 s after (forward-mode AD's own first use, 1 module).
    "a_hessian_with_torch_func": (
        "_h = torch.func.hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))",
        "torch.allclose(_h, torch.tensor([[6.0, 0.0], [0.0, 12.0]]))",
        0.5,
    ),
}


def _timed(call: str, check: str, limit: float = 0.08) -> str:
    return f'''import time as _time
import torch
_t0 = _time.process_time()
{call}
_spent = _time.process_time() - _t0
if _spent > {limit}:
    raise RuntimeError(f"the call took {{_spent:.2f}} s of CPU")
if not ({check}):
    raise RuntimeError("the call did not do what torch documents")
''' + CORRECT


def assert_cheap_with_full_marks(executor, call: str, check: str, limit: float = 0.08) -> None:
    """``call`` at a correct file's top level stays within _timed's CPU limit in the jail, does what ``check``
    says, and the file keeps its 85 points (the lazy_torch rounds' test)."""
    result = _grade(executor, _timed(call, check, limit))
    assert result["status"] == "graded"
    assert result["load_error"] is None, result["load_error"]
    assert sum(c["score"] for k, c in result["categories"].items() if k != "audit") == 85


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_top_level_torch_call_that_lazily_imports_the_compiler_is_cheap_in_the_jail(executor, name):
    assert_cheap_with_full_marks(executor, *CALLS[name])


def test_every_optimizer_is_stepped():
    import torch

    exported = {n for n in torch.optim.__all__
                if isinstance(getattr(torch.optim, n), type) and issubclass(getattr(torch.optim, n), torch.optim.Optimizer)}
    assert exported - {"Optimizer", "SparseAdam"} == set(OPTIMIZERS)
