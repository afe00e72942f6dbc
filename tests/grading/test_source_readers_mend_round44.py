"""Round 44, review RC (HIGH 1): crafted sources under the upload limit made the trusted readers of the source
cost the worker 2-3 s of CPU per grading (an honest file: ~0.1 s). The readers now share a CPU allowance
(grading/allowance.py, settings.HINT_CPU_S) in the worker and in the test process, the source is split into lines
once, the tree's bound names and spelled-apart answers are kept, every line hint skips a line past
MAX_HINT_LINE, and the close-name hints weigh bounded names only."""
from __future__ import annotations

import time

import pytest

from grading import allowance as allowance_mod
from grading import load_hints
from grading.allowance import Allowance, new_allowance
from grading.runner import GradeInput, _nothing_defined, grade
from tests.grading.helpers import graded_attack, honest_cost
from tests.grading.test_hostile_round31 import CORRECT, inside


def _spin(*_args) -> str:
    while True:
        pass


class _SpinningSuite:
    """A suite whose shortcut hook never returns (a source built to make it slow)."""
    nothing_defined = staticmethod(_spin)


def test_a_runner_hook_past_the_allowance_is_stopped_and_the_tests_run():
    t0 = time.process_time()
    assert _nothing_defined(_SpinningSuite(), "x = 1\n", Allowance(0.05), []) is None
    assert time.process_time() - t0 < 1.0


def test_the_allowance_is_shared_a_reader_after_it_ran_out_is_not_run():
    allowance = Allowance(0.05)
    assert allowance.run(_spin, default="left out") == "left out"
    ran = []
    assert allowance.run(ran.append, 1, default="skipped") == "skipped"
    assert ran == [] and allowance.stopped == ["_spin", "append"]


def test_a_test_process_hint_runs_within_the_grading_allowance():
    from grading.proxy import student_error_text
    from grading.sandbox import StudentError

    source = "import torch\n\n\ndef f(x):\n    return nn.Linear(2, 2)(x)\n"
    exc = StudentError("NameError", "name 'nn' is not defined", lineno=5)
    new_allowance(source)
    assert "from torch import nn" in student_error_text("f", exc, source=source)["en"]
    new_allowance(source).left = 0          # the worker's readers (or earlier tests) spent it
    text = student_error_text("f", exc, source=source)
    assert "from torch import nn" not in text["en"] and "name 'nn' is not defined" in text["en"]
    allowance_mod._current = None


def test_the_source_is_split_into_lines_once():
    source = "#\n" * 1000 + "x = 1\n"
    assert load_hints.python_lines(source) is load_hints.python_lines(source)


def test_the_bound_names_of_a_tree_are_read_once():
    tree = load_hints.parse_source("a = 1\ndef f(b):\n    return b\n")
    assert load_hints._bound_names(tree) is load_hints._bound_names(tree)
    assert {"a", "f", "b"} <= load_hints._bound_names(tree)


def test_the_torch_call_note_reads_no_line_past_max_hint_line():
    message = "exp(): argument 'input' (position 1) must be Tensor, not int"
    short = "import torch\n_z = torch.exp(1)\n"
    assert load_hints.torch_call_note(short, 2, message) is not None       # the honest line still hinted
    long = "import torch\n_z = torch.exp(1); _s = '" + "a" * load_hints.MAX_HINT_LINE + "'\n"
    assert load_hints.torch_call_note(long, 2, message) is None


def test_a_close_name_is_not_weighed_among_very_long_names():
    head = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    names = "".join(f"        self.n{'x' * 180}{i} = 0\n" for i in range(3))
    source = head + names + "\n    def forward(self, x):\n        return self.n" + "x" * 180 + "q\n"
    lineno = source.count("\n")
    message = f"'M' object has no attribute 'n{'x' * 180}q'"
    note = load_hints.attribute_note(source, lineno, message)
    assert note is not None and "close name" not in note["en"]
    assert load_hints.close_matches("numheads", ["num_heads", "d_k"], cutoff=0.75) == ["num_heads"]
    assert load_hints.close_matches("n", [f"n{i}" for i in range(load_hints.MAX_CLOSE_CANDIDATES + 1)], 0.5) == []


# RC's worst files (probes/cost_variants.py, own_attacks.py): 1.9-3.1 s of the worker's CPU before
ROOM = 256 * 1024 - len(CORRECT) - 600
_LIMIT = 256 * 1024 - len(CORRECT.encode()) - 200
COSTLY = {
    "a_1400_term_line_of_long_names_failing_in_forward": inside("_z = q" + ("+undefined_" + "n" * 150) * 1400),
    "an_attribute_error_near_1000_long_attribute_names": CORRECT.replace(
        "        self.num_heads = num_heads\n",
        "        self.num_heads = num_heads\n" + "".join(f"        self.n{'x' * 180}{i} = 0\n" for i in range(1000)), 1
    ).replace("        context = x if context is None else context\n",
              "        context = x if context is None else context\n        _z = self.n" + "x" * 180 + "q\n", 1),
    "250_kb_of_comments_above_a_failing_forward": "#\n" * (ROOM // 2) + inside("_z = undefined_name"),
}
# Left open (README, round 44): one statement of ~65,000 attribute reads filling the upload limit costs ~0.5-0.8 s of
# the worker's CPU, past the hostile bound (~0.6 s): Python's own parse (~0.3 s), the review's node gate and the
# readers' allowance, not a hint. It is graded (never an error); its cost is not yet bounded.
AT_THE_LIMIT = CORRECT + "_L = [" + ",".join(["a.b"] * ((_LIMIT - 8) // 4)) + "]\n"


def _grade(executor, code: str) -> dict:
    return grade(GradeInput(code=code.encode()), "attention", executor)


@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    return honest_cost(_grade, served, CORRECT)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(COSTLY))
def test_a_source_built_to_make_the_hints_slow_is_graded_within_the_hostile_bound(served, honest, name):
    assert len(COSTLY[name].encode()) <= 256 * 1024
    graded_attack(name, honest, _grade, served, COSTLY[name])


@pytest.mark.slow
def test_a_source_of_one_statement_at_the_upload_limit_is_graded_not_an_error(served):
    assert len(AT_THE_LIMIT.encode()) <= 256 * 1024
    result = _grade(served, AT_THE_LIMIT)
    assert result["status"] == "graded", result["message"]
    assert result["total"] == 0 and "NameError" in result["message"]["en"]


def _spin_past_its_own_net(*_args) -> str:
    try:
        while True:
            pass
    except Exception:  # noqa: BLE001 - a reader's own net (a hint's), which takes the first stop
        pass
    t0 = time.process_time()
    while time.process_time() - t0 < 1.0:       # then goes on reading
        pass
    return "finished"


def test_a_reader_that_catches_the_stop_is_stopped_again():
    t0 = time.process_time()
    assert Allowance(0.05).run(_spin_past_its_own_net, default="left out") == "left out"
    assert time.process_time() - t0 < 2.0
