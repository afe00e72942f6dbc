"""Round 32: a correct file that printed its weights in every call (116 MiB in a grading) met the 64 MiB
output limit: its session was killed, pytest ended with exit code 2 (the session lost), and the grading
ran its remaining tests again in a fresh session. Past half the limit the jail now prints to /dev/null,
told so with its next request; one call that prints without end is still stopped at the limit."""

from __future__ import annotations

import pytest
import torch

from grading.sandbox import SandboxDied
from grading.sandbox.client import QUIETED_TEXT, output_quieted

LOUD = '''
import os
class Loud:
    def __call__(self, x, mib):
        os.write(1, b"w" * (mib << 20))
        return x * 2
    def forever(self):
        while True:
            os.write(1, b"w" * (1 << 20))
'''


def test_printing_in_every_call_past_the_output_limit_keeps_the_session(executor):
    x = torch.ones(2)
    with executor.session(LOUD, "m.py", "m") as s:
        s.load()
        h = s.new("Loud")
        for _ in range(6):                 # 120 MiB in all, 20 MiB a call: the limit is 64 MiB
            assert torch.equal(s.call(h, "__call__", x, 20), x * 2)
        assert s.alive and s.quieted
        assert output_quieted(s.output) and s.output.endswith(QUIETED_TEXT)


def test_one_call_that_prints_without_end_is_still_stopped_at_the_output_limit(executor):
    with executor.session(LOUD, "m.py", "m") as s:
        s.load()
        h = s.new("Loud")
        with pytest.raises(SandboxDied, match=r"output limit exceeded \(more than 64 MiB printed\)"):
            s.call(h, "forever")
