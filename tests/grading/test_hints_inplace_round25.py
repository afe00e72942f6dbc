"""Round 25, read on the result page: the out-of-place form an in-place hint quotes is the student's line.

sdpa_mask_clamped_in_place.py writes `additive_mask.clamp_(min=-1e9)`; the hint said "compute a new tensor
instead: additive_mask = additive_mask.clamp(min=-1000000000.0)" (ast.unparse's spelling), and
`float("-inf")` came back as `float('-inf')`. Worse, `q /= a * b` was quoted as `q = q / a * b`, which is
(q / a) * b: a fix that changes the result. The fix now copies the student's own text and brackets a
right-hand side that binds more loosely than the operator in front of it."""

from __future__ import annotations

import pytest

from grading.i18n import is_msg
from grading.load_hints import inplace_lines_note, inplace_note

LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
FORWARD = ("import math\n\n\nclass A:\n    def forward(self, q, k, v, mask=None):\n        scores = q @ k.T\n"
           "        {line}\n        return scores\n")


def en(note) -> str:
    assert is_msg(note), note
    return note["en"]


@pytest.mark.parametrize("line, fix", [
    ("mask.clamp_(min=-1e9)", "mask = mask.clamp(min=-1e9)"),
    ('mask.masked_fill_(mask == 0, float("-inf"))', 'mask = mask.masked_fill(mask == 0, float("-inf"))'),
    ("q.div_(2 ** 0.5)", "q = q.div(2 ** 0.5)"),
    ("q /= math.sqrt(q.shape[-1]) * 2", "q = q / (math.sqrt(q.shape[-1]) * 2)"),
    ("q -= a - b", "q = q - (a - b)"),
    ("k *= 1e-2", "k = k * 1e-2"),
    ("k *= -0.5", "k = k * -0.5"),
])
def test_the_quoted_fix_keeps_the_students_spelling_and_its_meaning(line, fix):
    source = FORWARD.format(line=line).replace("mask=None", "mask=None, a=1, b=2")
    assert en(inplace_note(source, 7, LEAF)).endswith(f"compute a new tensor instead: {fix}")
    argument = "mask" if line.startswith("mask") else line[0]
    assert en(inplace_lines_note(source, "A", "forward", argument)).endswith(f"compute a new tensor instead: {fix}")


def test_a_call_written_over_two_lines_is_still_given_a_fix():
    source = FORWARD.format(line="mask.masked_fill_(\n            mask == 0, -1e9)")
    assert en(inplace_lines_note(source, "A", "forward", "mask")).endswith(
        "compute a new tensor instead: mask = mask.masked_fill(mask == 0, -1000000000.0)")


@pytest.mark.parametrize("cls, changed, name", [("ScaledDotProductAttention", [1], "k"),
                                                 ("ScaledDotProductAttention", [3], "additive_mask"),
                                                 ("MultiHeadAttention", [0], "x")])
def test_the_example_of_a_later_call_names_the_tensor_that_was_changed(cls, changed, name):
    """k_transposed_in_place.py: 'changed the tensor k ... (the same mask given to another layer ...)', a mask
    the file never touched."""
    from grader_tests.attention.diagnose import inputs_changed

    note = inputs_changed([(cls, "__call__", changed)], None)
    assert f"(the same {name} given to another layer" in note["en"], note["en"]
    assert f"例如把同一个 {name} 传给另一层" in note["zh"], note["zh"]
