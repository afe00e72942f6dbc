"""A submission cannot change its own score: cheating on top of wrong code earns no more than the
same wrong code honestly, and the grader is unharmed for the next student."""

from __future__ import annotations

import pytest

from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS

# Each attack is graded in the real sandbox (these modules: ~160 tests, ~90 s on 2 idle cores): the
# slow lane, so `make test` stays under 10 minutes; CI runs both lanes.
pytestmark = pytest.mark.slow

WRONG = (SUBMISSIONS / "faulty" / "softmax_query_axis.py").read_text()
CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_bytes()

CHEATS = {
    "patches_comparisons_and_pytest": '''
import sys, types
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
torch.Tensor.__eq__ = lambda self, other: torch.ones((), dtype=torch.bool)
fake = types.ModuleType("pytest")
fake.main = lambda *a, **k: 0
sys.modules["pytest"] = fake
sys.modules["_pytest"] = fake
''',
    "lying_tensor_subclass": '''
class Liar(torch.Tensor):
    def __eq__(self, other): return True
    def allclose(self, *a, **k): return True
    def tolist(self): return [[0.2, 0.6, 0.2], [0.1, 0.8, 0.1]]
    def sum(self, *a, **k): return torch.ones(self.shape[:-1])
    def abs(self): return torch.zeros(self.shape)

_honest_forward = ScaledDotProductAttention.forward
def _lying_forward(self, *a, **k):
    out = _honest_forward(self, *a, **k)
    if isinstance(out, tuple):
        return tuple(t.as_subclass(Liar) for t in out)
    return out.as_subclass(Liar)
ScaledDotProductAttention.forward = _lying_forward
''',
    "prints_and_writes_fake_results": '''
import json, os
print("============ 30 passed in 0.12s ============")
print(json.dumps({"status": "graded", "total": 100, "max_total": 100}))
for path in ("/tmp/results.json", "/tmp/report.xml", "results.json"):
    try:
        with open(path, "w") as f:
            f.write('{"total": 100}')
    except OSError:
        pass
''',
    "exits_early_during_a_call": '''
import os
_honest_forward = ScaledDotProductAttention.forward
def _exit_forward(self, *a, **k):
    os._exit(0)
ScaledDotProductAttention.forward = _exit_forward
''',
    "reads_tests_secrets_and_kills_parents": '''
import os, signal, glob
leaked = []
for pattern in ("/work/*/grader_tests/*/*.py", "/work/*/rubric/*/*.yaml", "/proc/1/environ", "/etc/shadow"):
    for path in glob.glob(pattern) or [pattern]:
        try:
            leaked.append(open(path).read()[:100])
        except OSError:
            pass
print("leaked", len(leaked), dict(os.environ))
for target in (os.getppid(), 0, -1):
    try:
        os.kill(target, signal.SIGKILL)
    except OSError:
        pass
''',
}


@pytest.fixture(scope="module")
def honest_total(executor) -> float:
    result = grade(GradeInput(code=WRONG.encode()), "attention", executor)
    assert result["status"] == "graded"
    return result["total"]


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_cheating_earns_no_more_than_the_same_wrong_code(executor, honest_total, cheat):
    result = grade(GradeInput(code=(WRONG + CHEATS[cheat]).encode()), "attention", executor)
    assert result["status"] == "graded", result["message"]
    assert result["total"] <= honest_total, (cheat, result["total"], honest_total)
    again = grade(GradeInput(code=CORRECT), "attention", executor)
    assert again["status"] == "graded" and again["total"] == 85, "the grader is unharmed afterwards"


def test_nothing_the_jail_reads_reaches_the_feedback(executor):
    """Feedback carries neither the grader's environment nor test source."""
    import os

    os.environ["AUTOGRADER_CANARY"] = "canary-5f1e"
    try:
        result = grade(GradeInput(code=(WRONG + CHEATS["reads_tests_secrets_and_kills_parents"]).encode()),
                       "attention", executor)
    finally:
        del os.environ["AUTOGRADER_CANARY"]
    text = str([t["feedback"] for t in result["tests"]]) + str(result["message"])
    assert "canary-5f1e" not in text
    assert "def test_" not in text and "expect_close" not in text
    assert "canary-5f1e" not in result["log"], "the jail saw the trusted environment"
