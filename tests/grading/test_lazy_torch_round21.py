"""Two of torch's lazy first-use paths that round 20 measured and left: torch.profiler.profile
imported torch._inductor when it started (0.6-0.66 s of CPU and 336 modules in each jail), and
forward-mode AD's first dual tensor imported torch._decomp.decompositions_for_jvp (0.13-0.2 s).
The zygote now takes the second once and settles the first (grading/sandbox/lazy_torch.py); each
call runs at a correct file's top level, timed by the jail's CPU clock as in test_lazy_torch_paths."""

from __future__ import annotations

import pytest

from tests.grading.helpers import grade_stored as _grade
from tests.grading.test_lazy_torch_paths import _timed, assert_cheap_with_full_marks

CALLS = {
    # a student timing their attention: the profile records the ops run inside it
    "a_block_under_torch_profiler_profile": (
        "with torch.profiler.profile() as _prof:\n    torch.ones(3, 3).softmax(-1)\n"
        "_names = {e.name for e in _prof.events()}",
        "'aten::softmax' in _names",
    ),
    "a_profile_started_and_stopped_twice": (
        "_prof = torch.profiler.profile()\nfor _i in range(2):\n    _prof.start()\n    torch.ones(2).exp()\n"
        "    _prof.stop()\n_names = {e.name for e in _prof.events()}",
        "'aten::exp' in _names",
    ),
    # forward-mode AD: torch.func's jvp and jacfwd, and torch.autograd.forward_ad itself
    "forward_mode_gradients": (
        "_x = torch.tensor([1.0, 2.0])\n"
        "_out, _tan = torch.func.jvp(torch.sin, (_x,), (torch.ones(2),))\n"
        "_jf = torch.func.jacfwd(torch.sin)(_x)\n"
        "import torch.autograd.forward_ad as _fw\n"
        "with _fw.dual_level():\n    _d = _fw.unpack_dual(_fw.make_dual(_x, torch.ones(2)).exp()).tangent",
        "torch.allclose(_tan, torch.cos(_x)) and torch.allclose(_jf, torch.diag(torch.cos(_x)))"
        " and torch.allclose(_d, torch.exp(_x))",
    ),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_profiled_or_forward_mode_call_at_the_top_level_is_cheap_in_the_jail(executor, name):
    assert_cheap_with_full_marks(executor, *CALLS[name])


def test_torch_inductor_when_loaded_is_found_by_the_profile_as_torch_finds_it(executor):
    # Once the student imports the compiler, torch's own method runs (its setting is read).
    call = ("import torch._inductor.config as _ic\n"
            "with torch.profiler.profile() as _prof:\n    torch.ones(2).exp()")
    result = _grade(executor, _timed(call, "hasattr(torch, '_inductor') and _prof.has_cudagraphs is False", 30.0))
    assert result["load_error"] is None, result["load_error"]
