"""Round 24 at the sandbox's level: a call that changes its tensor arguments in place. The jail's inputs
are copies deserialised there, so the grader's tensors never change; the call handler compares each tensor
argument's shape, dtype and bytes before and after the call and says which changed (``changed`` in the
reply, ``Session.changed_inputs``)."""

from __future__ import annotations

import torch

CHANGER = '''
import torch
from torch import nn


class Changer(nn.Module):
    def forward(self, q, k, mask=None, *, how="none", pad=None):
        if how == "masked_fill_":
            mask.masked_fill_(mask == 0, 1.0)
        elif how == "add_":
            mask.add_(1.0)
        elif how == "mul_":
            q.mul_(0.5)
        elif how == "transpose_":
            k.transpose_(-2, -1)
        elif how == "setitem":
            k[..., 0] = 0.0
        elif how == "pad":
            pad.logical_not_()
        elif how == "nan_kept":           # writes back the same values, NaN included: nothing changed
            mask.copy_(mask.clone())
        return q @ k.transpose(-2, -1)
'''


CASES = [("none", []), ("nan_kept", []), ("masked_fill_", [2]), ("add_", [2]), ("mul_", [0]), ("transpose_", [1]),
         ("setitem", [1]), ("pad", ["pad"])]


def test_the_reply_names_the_tensor_arguments_a_call_changed_in_place(executor):
    q, k = torch.randn(2, 3, 3), torch.randn(2, 3, 3)
    mask = torch.tensor([[0.0, float("-inf"), float("nan")]]).expand(3, 3).contiguous()
    pad = torch.tensor([[False, True, False]])
    seen = {}
    with executor.session(CHANGER, "changer.py", "changer") as s:
        s.load()
        h = s.new("Changer")
        for how, _ in CASES:
            s.call(h, "__call__", q, k, mask, how=how, pad=pad)
            seen[how] = s.changed_inputs
            s.call(h, "__call__", q, k, mask)            # the next reply says nothing: one call's finding
            assert s.changed_inputs == [], how
    assert seen == dict(CASES)
    assert torch.isnan(mask).sum() == 3 and not pad[0, 0]   # the grader's tensors are never changed
