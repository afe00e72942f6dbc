"""What a test's call through the proxy costs the grading besides the request (issue 14 item 1, round 35)."""

from __future__ import annotations

import pytest
import torch

import grading.proxy as proxy_module
from grading.proxy import InheritedSession, StudentProxy, StudentTimedOut
from grading.sandbox import StudentTimeout


class _Session:
    """A session that answers at once: what the proxy does around the requests is what is counted."""

    alive = True

    def __init__(self, stall: bool = False):
        self.builds = self.calls = 0
        self.stall = stall

    def load(self):
        return None

    def build(self, name, args=(), kwargs=None, **_):
        self.builds += 1
        return 1

    def call(self, handle, method, *args, **kwargs):
        self.calls += 1
        if self.stall:
            raise StudentTimeout(5, "call forward", clock="cpu")
        return args[0] * 2


def _proxy(session: _Session, monkeypatch) -> tuple[StudentProxy, list, list]:
    steps, described = [], []
    real_run, real_inputs = StudentProxy._run, proxy_module.inputs_text
    monkeypatch.setattr(StudentProxy, "_run", lambda self, what, *a, **k: steps.append(what) or real_run(self, what, *a, **k))
    monkeypatch.setattr(proxy_module, "inputs_text", lambda *a, **k: described.append(1) or real_inputs(*a, **k))
    p = StudentProxy(InheritedSession(session))
    assert p.load()
    return p, steps, described


def test_calls_of_a_built_object_are_one_step_each_and_describe_no_inputs(monkeypatch):
    # Before: each call ran a step of its own to "create" the object already built (a label and a
    # message in both languages), and described its inputs' shapes, which only a stopped call tells.
    session = _Session()
    p, steps, described = _proxy(session, monkeypatch)
    h = p.new("M")
    x = torch.ones(2, 3)
    for _ in range(5):
        assert torch.equal(p.call(h, "__call__", x), x * 2)
    assert session.builds == 1 and session.calls == 5
    assert len(steps) == 1 + 5          # the build, then one step per call
    assert described == []


def test_a_stopped_call_still_names_its_inputs_shapes(monkeypatch):
    session = _Session(stall=True)
    p, _, described = _proxy(session, monkeypatch)
    h = p.new("M")
    with pytest.raises(StudentTimedOut) as ei:
        p.call(h, "__call__", torch.ones(2, 4, 5, 64), additive_mask=torch.zeros(5, 7))
    assert described == [1]
    text = ei.value.message
    assert "(inputs [2, 4, 5, 64], additive_mask [5, 7])" in text["en"]
    assert "（输入 [2, 4, 5, 64]，additive_mask [5, 7]）" in text["zh"]
