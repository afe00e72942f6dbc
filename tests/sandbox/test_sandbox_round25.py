"""A build that brings back its object's layout (issue 14 item 1, round 25): what the jail's describe
op says right after the build, answered to the next request if that is the describe, else asked again."""

from __future__ import annotations

import pytest
import torch

from grading.sandbox import StudentError
from tests.sandbox.helpers import GOOD, wait_no_leftovers

LAZY = '''
import torch


class Lazy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = torch.nn.LazyLinear(4)

    def forward(self, x):
        if not hasattr(self, "extra"):
            self.extra = torch.nn.Linear(4, 2)     # a forward that adds parameters
        return self.extra(self.q_proj(x))

    @property
    def alias(self):
        return self.q_proj
'''
# The describe op rewritten by the submission, reached through gc (as tests/grading/test_tamper_hostile.py does).
FORGED = GOOD + '''
import gc as _gc
for _o in _gc.get_objects():
    if type(_o).__name__ == "Runtime" and "describe" in getattr(_o, "OPS", {}):
        def _forged(self, req, _honest=_o.OPS["describe"]):
            info = _honest(self, req)
            info["parameters"] = {n: [-1] for n in info["parameters"]}
            return info
        type(_o).OPS = {**_o.OPS, "describe": _forged}
'''
ABSURD = GOOD.replace("self.lin = torch.nn.Linear(3, 2)",
                      "self.lin = torch.nn.Linear(3, 2)\n        self.lin.in_features = 10 ** 5000")


def test_a_build_brings_back_what_a_describe_request_says_and_the_describe_costs_no_request(executor):
    with executor.session(LAZY, "lazy.py", "lazy") as s:
        s.load()
        before = s._seq
        h = s.build("Lazy", eval_mode=True, describe=["alias"])
        carried = s.describe(h, ["alias"])
        assert s._seq == before + 1                                  # one request for both
        asked = s.describe(h, ["alias"])                             # the same, as a request of its own
        assert s._seq == before + 2
        assert carried == asked and carried["training"] is False
        assert carried["children"]["q_proj"] == {"type": "LazyLinear", "is_linear": True, "in_features": 0,
                                                 "out_features": 4, "bias": True}
        assert "alias" in carried["children"] and carried["parameters"] == {}
    assert wait_no_leftovers(executor) == []


def test_a_layout_is_answered_only_to_the_next_request_so_a_forward_that_changes_it_is_seen(executor):
    with executor.session(LAZY, "lazy.py", "lazy") as s:
        s.load()
        h = s.build("Lazy", describe=[])
        s.call(h, "__call__", torch.zeros(1, 3))                     # materialises q_proj, adds extra
        info = s.describe(h)
        assert info["children"]["q_proj"]["type"] == "Linear" and info["children"]["q_proj"]["in_features"] == 3
        assert set(info["parameters"]) == {"q_proj.weight", "q_proj.bias", "extra.weight", "extra.bias"}
        # Other attributes than the build asked for, or another object: a request of its own.
        h2 = s.build("Lazy", describe=[])
        before = s._seq
        assert "alias" in s.describe(h2, ["alias"])["children"] and s._seq == before + 1
        h3 = s.build("Lazy", describe=[])
        before = s._seq
        s.describe(h2)
        assert s._seq == before + 1
        s.describe(h3)                                               # no longer the next request
        assert s._seq == before + 2
    assert wait_no_leftovers(executor) == []


def test_a_layout_forged_by_a_rewritten_describe_op_is_refused_where_the_describe_is(executor):
    with executor.session(FORGED, "forged.py", "forged") as s:
        s.load()
        h = s.build("Scale", describe=[])                            # the build itself is fine
        with pytest.raises(StudentError, match="malformed describe reply") as ei:
            s.describe(h)
        assert ei.value.kind == "InvalidResult" and not s.alive
    assert wait_no_leftovers(executor) == []


def test_a_layout_the_describe_op_cannot_give_leaves_the_build_and_raises_as_the_describe(executor):
    with executor.session(ABSURD, "absurd.py", "absurd") as s:
        s.load()
        before = s._seq
        h = s.build("Scale", describe=[])
        assert torch.equal(s.call(h, "__call__", torch.ones(2)), torch.full((2,), 2.0))
        h = s.build("Scale", describe=[])
        with pytest.raises(StudentError, match="lin.in_features") as asked:
            s.describe(h)
        assert s._seq == before + 4 and s.alive                      # asked again, and refused as before
        assert asked.value.kind != "InvalidResult"
    assert wait_no_leftovers(executor) == []


# The new op rewritten to answer something else than {"handle", "layout"} when a layout is asked.
FORGED_NEW = GOOD + '''
import gc as _gc
for _o in _gc.get_objects():
    if type(_o).__name__ == "Runtime" and "new" in getattr(_o, "OPS", {}):
        def _new(self, req, _honest=_o.OPS["new"]):
            h = _honest(self, req)
            return {"int": lambda: h["handle"] if isinstance(h, dict) else h, "true": lambda: True,
                    "list": lambda: [h], "no_layout": lambda: {"handle": 1}}[self.module.ANSWER]()
        type(_o).OPS = {**_o.OPS, "new": _new}
'''


@pytest.mark.parametrize(("answer", "refused"), [("int", False), ("no_layout", False), ("true", True),
                                                 ("list", True)])
def test_a_rewritten_new_op_answering_without_a_layout_is_checked_as_a_handle(executor, answer, refused):
    with executor.session(FORGED_NEW + f"ANSWER = {answer!r}\n", "forged.py", "forged") as s:
        s.load()
        if refused:
            with pytest.raises(StudentError, match="malformed handle"):
                s.build("Scale", describe=[])
            assert not s.alive
        else:
            h = s.build("Scale", describe=[])
            before = s._seq
            assert s.describe(h)["type"] == "Scale" and s._seq == before + 1     # no layout: asked
    assert wait_no_leftovers(executor) == []
