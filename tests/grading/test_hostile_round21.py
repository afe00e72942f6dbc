"""Round 21 of hostile submissions: what the trusted side computes from the submitted source for each
failing test. The load hints and the notes of grading/load_hints.py walk the whole syntax tree of the
source; a file of 256 KiB raising in every call made them cost the worker ~3 s of CPU per grading
(32 failing tests, ~0.08 s each), outside every limit of the jail. Each question is now answered once,
and at most MAX_ANALYSES questions are answered per source."""

from __future__ import annotations

import pytest

from grading import load_hints
from tests.grading.helpers import SUBMISSIONS, in_forward, worker_cost
from tests.grading.helpers import grade_stored as _grade

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
# ~240 KiB of helpers nothing calls: a tree of ~75,000 nodes for every walk of it
PADDING = "".join(f"def helper_{i}(x, y):\n    z = x.transpose(1, 2)\n    z += y\n    return z.view(3, -1) / 2\n"
                  for i in range(2400))
FLOAT_SIZE = "empty(): argument 'size' (position 1) must be tuple of ints, but found element of type float at pos 0"
VIEW = ("view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
        "contiguous subspaces). Use .reshape(...) instead.")


def _sizes_computed_with_slash(n: int) -> tuple[str, list[int]]:
    """A source with ``n`` functions, each computing a size with '/' and passing it on: the lines a
    float-size error may name."""
    src = "import torch\n" + "".join(f"def f{i}(x):\n    h = x.shape[-1] / 2\n    return torch.empty(h)\n"
                                     for i in range(n))
    return src, [3 * i + 4 for i in range(n)]       # each ``torch.empty(h)`` line


def test_a_note_is_computed_once_per_line_and_for_at_most_max_analyses_lines(monkeypatch):
    source, lines = _sizes_computed_with_slash(load_hints.MAX_ANALYSES + 4)
    walks = []
    real = load_hints.parse_source
    monkeypatch.setattr(load_hints, "parse_source", lambda s: walks.append(1) or real(s))
    first = load_hints.float_size_note(source, lines[0], FLOAT_SIZE)
    assert first is not None and f"line {lines[0] - 1} computes h with '/'" in first["en"], first
    for _ in range(5):                                  # the same error in every test: one analysis
        assert load_hints.float_size_note(source, lines[0], FLOAT_SIZE) == first
    assert len(walks) == 1
    notes = [load_hints.float_size_note(source, line, FLOAT_SIZE) for line in lines]
    assert all(n is not None for n in notes[:load_hints.MAX_ANALYSES]), notes
    assert notes[load_hints.MAX_ANALYSES:] == [None] * 4        # past the allowance: no note, no walk
    assert len(walks) == load_hints.MAX_ANALYSES
    assert load_hints.float_size_note(source, lines[1], FLOAT_SIZE) == notes[1]    # answered still
    # the allowance is the source's: another file gets its own
    other, other_lines = _sizes_computed_with_slash(2)
    assert load_hints.float_size_note(other, other_lines[1], FLOAT_SIZE) is not None


def test_a_kept_note_is_a_copy_its_caller_may_edit():
    source, lines = _sizes_computed_with_slash(1)
    note = load_hints.float_size_note(source, lines[0], FLOAT_SIZE)
    note["en"] = "edited"
    assert load_hints.float_size_note(source, lines[0], FLOAT_SIZE)["en"] != "edited"


def test_missing_names_and_load_hints_share_the_allowance():
    source = "import torch\n" + "".join(f"class MultiheadAttention{i}(torch.nn.Module):\n    pass\n" for i in range(3))
    asked = [load_hints.missing_name_hint(source, f"Name{i}") for i in range(load_hints.MAX_ANALYSES)]
    assert asked == [None] * load_hints.MAX_ANALYSES
    # the allowance is spent: even the question with an answer gets none now
    assert load_hints.missing_name_hint(source, "MultiHeadAttention") is None
    fresh = source + "\n"
    assert load_hints.missing_name_hint(fresh, "MultiHeadAttention") is None      # three near names: no guess
    single = "import torch\nclass MultiheadAttention(torch.nn.Module):\n    pass\n"
    assert "defines MultiheadAttention (line 2)" in load_hints.missing_name_hint(single, "MultiHeadAttention")["en"]


@pytest.mark.slow
@pytest.mark.parametrize("attack", ["float_size", "view", "from_a_new_line", "missing_class"])
def test_an_error_in_every_call_of_a_large_file_costs_the_worker_what_an_unhinted_one_does(executor, attack):
    # The control: the same large file raising an error no note reads (its review and parse are paid there too).
    control = in_forward(CORRECT + PADDING, 'raise RuntimeError("mat1 and mat2 shapes cannot be multiplied")')
    if attack == "float_size":
        code = in_forward(CORRECT + PADDING, f"n = q.shape[-1] / 2\nraise TypeError({FLOAT_SIZE!r})")
    elif attack == "view":
        code = in_forward(CORRECT + PADDING, f"t = q.transpose(1, 2)\nraise RuntimeError({VIEW!r})")
    elif attack == "from_a_new_line":
        raisers = "".join(f"def _raise_{i}(q):\n    n = q.shape[-1] / 2\n    raise TypeError({FLOAT_SIZE!r})\n"
                          for i in range(900))
        code = in_forward(CORRECT + PADDING[:PADDING.index("def helper_1200(")] + raisers, '''
global _calls
_calls = globals().get("_calls", 0) + 1
globals()["_raise_%d" % _calls](q)''')
    else:
        code = "import torch\n" + "".join(f"class ScaledDotProductAttention_{i}(torch.nn.Module):\n    pass\n"
                                          for i in range(3500))
        control = "import torch\n" + "".join(f"class Helper_{i}(torch.nn.Module):\n    pass\n" for i in range(3500)) \
            + "raise RuntimeError('a top-level failure')\n"
    assert len(code.encode()) < 256 * 1024
    _grade(executor, CORRECT)                                   # the first grading's own warm-up
    base, base_cpu, _ = worker_cost(_grade, executor, control)
    result, cpu, wall = worker_cost(_grade, executor, code)
    print(attack, f"{cpu:.2f} s of the worker's CPU, control {base_cpu:.2f} s, wall {wall:.1f} s")
    assert result["status"] == base["status"] == "graded", result["message"]
    assert result["total"] == 0
    assert cpu < 2 * base_cpu + 0.3, f"{cpu:.2f} s of the worker's CPU against {base_cpu:.2f} s"
