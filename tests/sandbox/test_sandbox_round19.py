"""Round 19 of hostile submissions at the sandbox's level: what the worker reads of refused replies."""

from __future__ import annotations

import pytest
import torch

from grading.sandbox import StudentError
from grading.sandbox.client import ReplyAllowance
from tests.sandbox.helpers import assert_healthy

# Each call replies with a header of ~900 KB (a long string) and a body over any cap left: the
# header is read and parsed, then the reply is refused for its body and the session dies.
BIG_HEADER_THEN_REFUSED = '''
import torch


def big(n):
    return ("x" * n, torch.zeros(4_000_000))
'''


def test_a_reply_refused_for_its_body_is_charged_for_the_header_read(executor):
    # The refused reply's header (up to 1 MiB, read and JSON-parsed by the worker) was not counted
    # against the grading's allowance: six sessions each ending this way made the worker read 6 MiB
    # beyond Limits.max_received, and the next session's cap was still the whole allowance.
    shared = ReplyAllowance(8 << 20)
    for _ in range(3):
        with executor.session(BIG_HEADER_THEN_REFUSED, "big.py", "big", replies=shared) as s:
            s.load()
            before = shared.spent
            with pytest.raises(StudentError) as ei:
                s.call_function("big", 900_000)
            assert ei.value.kind == "InvalidResult", ei.value
            assert shared.spent - before >= 900_000, (before, shared.spent)
    assert shared.spent >= 3 * 900_000
    assert_healthy(executor)


def test_once_refused_headers_have_spent_the_allowance_the_next_session_reads_no_more_of_them(executor):
    # Charged, a refused header shrinks what the next session may read: its header cap is what is
    # left, so a second 1 MB header is refused from its length (4 bytes read), not read and parsed.
    shared = ReplyAllowance(1_500_000)
    with executor.session(BIG_HEADER_THEN_REFUSED, "big.py", "big", replies=shared) as s:
        s.load()
        with pytest.raises(StudentError):
            s.call_function("big", 1_000_000)
    spent = shared.spent
    assert spent > 1_000_000
    with executor.session(BIG_HEADER_THEN_REFUSED, "big.py", "big", replies=shared) as s:
        s.load()
        with pytest.raises(StudentError) as ei:
            s.call_function("big", 1_000_000)
        assert ei.value.kind == "InvalidResult"
    assert shared.spent - spent < ReplyAllowance.FLOOR, shared.spent - spent
    x = torch.zeros(3)
    with executor.session("def f(x):\n    return x + 1\n", "ok.py", "ok", replies=shared) as s:
        s.load()
        assert torch.equal(s.call_function("f", x), x + 1)    # small replies still fit (the floor)

