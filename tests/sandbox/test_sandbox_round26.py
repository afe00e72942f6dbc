"""Round 26: a describe reply lists at most ``protocol.DESCRIBE_ENTRIES`` entries of each kind under the
attributes asked for, and as many others, in registration order (a module holding thousands of parameters
made a reply too large to carry); the client refuses a reply that lists more, which only a rewritten
describe op can send."""

from __future__ import annotations

import pytest

from grading.sandbox import StudentError, protocol
from tests.sandbox.helpers import GOOD, wait_no_leftovers

N = protocol.DESCRIBE_ENTRIES
MANY = f'''
import torch


class Many(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.before = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(1)) for _ in range({3 * N})])
        self.lins = torch.nn.ModuleList([torch.nn.Linear(1, 1) for _ in range({2 * N})])
        self.q_proj = torch.nn.Linear(4, 8)
        for i in range({2 * N}):
            self.add_module(f"child{{i}}", torch.nn.Identity())
        self.out_proj = torch.nn.Linear(8, 4)

    def forward(self, x):
        return x
'''
# The describe op rewritten (reached through gc, as tests/sandbox/test_sandbox_round25.py does) to list more.
FORGED = GOOD + f'''
import gc as _gc
for _o in _gc.get_objects():
    if type(_o).__name__ == "Runtime" and "describe" in getattr(_o, "OPS", {{}}):
        def _forged(self, req, _honest=_o.OPS["describe"]):
            info = _honest(self, req)
            info["parameters"] = {{f"p{{i}}": [1] for i in range({2 * N + 1})}}
            return info
        type(_o).OPS = {{**_o.OPS, "describe": _forged}}
'''


def test_a_describe_lists_the_attributes_asked_for_and_the_first_others(executor):
    with executor.session(MANY, "many.py", "many") as s:
        s.load()
        h = s.build("Many", describe=["q_proj", "out_proj"])
        info = s.describe(h, ["q_proj", "out_proj"])
        params, linears = info["parameters"], [x["name"] for x in info["linears"]]
        # registered after 3N parameters, 2N Linears and (for out_proj) 2N children: listed all the same
        for name in ("q_proj.weight", "q_proj.bias", "out_proj.weight", "out_proj.bias"):
            assert name in params
        assert info["children"]["q_proj"]["in_features"] == 4 and info["children"]["out_proj"]["out_features"] == 4
        assert linears[-2:] == ["q_proj", "out_proj"]                # in registration order, the last two
        assert len(params) == N + 4 and len(linears) == N + 2 and len(info["children"]) == N + 2
        assert list(params)[:3] == ["before.0", "before.1", "before.2"]
    assert wait_no_leftovers(executor) == []


def test_a_describe_reply_listing_more_than_the_runtime_would_is_refused(executor):
    with executor.session(FORGED, "forged.py", "forged") as s:
        s.load()
        h = s.build("Scale", describe=[])
        with pytest.raises(StudentError, match="malformed describe reply") as ei:
            s.describe(h)
        assert ei.value.kind == "InvalidResult" and not s.alive
    assert wait_no_leftovers(executor) == []
