"""Round 36: hints for faults in the multi-head wrapper.

1. Twenty faulty files of round 36 (tests/fixtures/submissions/faulty/r36_*.py), each a fault put into the
   MultiHeadAttention of one of the round's public styles (test_fair_round36.py): heads merged without the transpose,
   in the wrong order, reversed, or concatenated along the tokens; heads split with the head dim first or with no
   transpose; only the values split strided; out_proj skipped or applied twice; the query scaled in the wrapper and
   in the kernel; a [B, H, Nq, Nk] mask cut to its first head or folded into the batch; a [B, Nq, Nk] mask repeated
   head-major; padding on the query axis; keys and values swapped; weights averaged over the heads; dropout on the
   output in eval. Each is named as its ``# diagnosis:`` header declares and nothing else, in both languages, and
   every line a hint quotes holds the code quoted (slow lane).
2. One hint named the wrong line: mmpretrain's ``scaled_dot_product_attention_pyimpl`` calls
   ``torch.dropout(attn_weight, dropout_p, True)``, and its MultiheadAttention passes ``dropout_p=0.`` in eval;
   the file that put ``torch.dropout(self.proj(x), 0.1, True)`` in the wrapper was told "line 28 (in
   scaled_dot_product_attention_pyimpl) calls torch.dropout(attn_weight, dropout_p, True), which drops values
   whatever the mode", a call that drew nothing. The dropout calls the hint may quote now come with those whose
   probability is a constant (or the default) first, and a call given p=0 (a constant) is none of them: it drops
   nothing (diagnose.dropout_always_on).
"""

from __future__ import annotations

import pytest

from grader_tests.attention.diagnose import dropout_always_on, randomness
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, named_faults
from tests.grading.test_hints_round35 import _declared, _failed
from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines

FAULTY = SUBMISSIONS / "faulty"
ROUND = sorted(FAULTY.glob("r36_*.py"))


# ----------------------------------------------------------------------------- 1. the round's faulty files
def test_the_round_adds_20_multi_head_files_with_a_declared_diagnosis():
    assert len(ROUND) == 20
    for path in ROUND:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[1].startswith("# diagnosis: ") and lines[2].startswith("# fault: "), path.name
        assert "class MultiHeadAttention" in path.read_text(encoding="utf-8")
    # mistakes no model names: described only (round 37's models name three of the six: out_proj twice, weights averaged over the
    # heads, Funnel's -1e6 padding on the query axis)
    assert sum(_declared(p) == ["none"] for p in ROUND) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("path", ROUND, ids=[p.stem for p in ROUND])
def test_a_round_36_file_is_named_as_declared_and_quotes_only_its_own_lines(executor, path):
    declared = _declared(path)
    source = path.read_text(encoding="utf-8")
    lines, code = source.splitlines(), code_names(source)
    named: set[str] = set()
    for tid, fb in _failed(executor, path).items():
        named |= named_faults(fb)
        for n, _owner, quoted in quoted_lines(fb["en"]):
            assert 1 <= n <= len(lines) and _shown(quoted, lines[n - 1]) and not lines[n - 1].startswith("#"), \
                (tid, n, quoted)
        assert english_in_zh(fb["zh"], code) == [], (tid, fb["zh"])
    if declared == ["none"]:
        assert named == set(), named
    else:
        assert declared[0] in named and named <= set(declared), named


# ----------------------------------------------------------------------------- 2. the dropout call quoted
PYIMPL = '''import torch
import torch.nn as nn


def pyimpl(q, k, v, dropout_p=0.):
    w = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
    w = torch.dropout(w, dropout_p, True)
    return w @ v


class MultiHeadAttention(nn.Module):
    def forward(self, x):
        x = pyimpl(x, x, x, dropout_p=0.1 if self.training else 0.)
        return torch.dropout(self.proj(x), 0.1, True)
'''


def test_a_dropout_with_a_constant_probability_is_listed_and_one_whose_probability_is_0_in_eval_is_not():
    """Before: [7, 14], line order: the hint quoted line 7, whose probability is 0 in eval mode (round 36b: line 7,
    given ``0.1 if self.training else 0.``, is no longer listed at all)."""
    assert [n for n, _ in dropout_always_on(PYIMPL)] == [14]


@pytest.mark.parametrize("call", ["F.dropout(w, 0.0)", "F.dropout(w, p=0)", "torch.dropout(w, 0., True)"])
def test_a_dropout_given_the_constant_probability_0_is_not_listed(call):
    """Before: listed, and a hint could say it "drops values whatever the mode": it drops nothing."""
    source = f"import torch\nimport torch.nn.functional as F\n\n\ndef f(w):\n    return {call}\n"
    assert dropout_always_on(source) == []


def test_the_randomness_hint_quotes_the_dropout_that_draws_in_eval():
    class Student:
        source = PYIMPL

    said = randomness(Student(), "MultiHeadAttention")
    assert "line 14 calls torch.dropout(self.proj(x), 0.1, True)" in said["en"], said
    assert "第 14 行调用 torch.dropout(self.proj(x), 0.1, True)" in said["zh"], said
    assert "dropout_p" not in said["en"]


@pytest.mark.slow        # one grading: ~3 s alone, over 10 s on a loaded host
def test_mmpretrain_dropout_on_the_projection_is_quoted_not_the_kernel_s_zero_probability_one(executor):
    """Before: "line 28 (in scaled_dot_product_attention_pyimpl) calls torch.dropout(attn_weight, dropout_p, True)",
    the kernel's dropout, which eval mode calls with dropout_p=0."""
    path = FAULTY / "r36_mmpretrain_proj_drop_train_true.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(i for i, t in enumerate(lines, 1) if "x = torch.dropout(self.proj(x), 0.1, True)" in t)
    det = _failed(executor, path)["test_deterministic"]
    assert f"line {line} calls torch.dropout(self.proj(x), 0.1, True)" in det["en"], det
    assert f"第 {line} 行调用 torch.dropout(self.proj(x), 0.1, True)" in det["zh"], det
    assert "attn_weight, dropout_p" not in det["en"], det
