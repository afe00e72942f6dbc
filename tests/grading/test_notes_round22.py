"""Round 22: the names notes of grader_tests/attention/signature_note.py are computed in the worker, outside
every limit of the jail. A file of thousands of top-level names near the contract's compared each with
difflib: ~0.5 s of the worker's CPU per grading for one 255 KiB upload. Past MAX_NOTE_DEFS names (or the
review's node bound) no note is given, and nothing is compared."""

from __future__ import annotations

import time

import pytest

from grader_tests.attention import signature_note
from grading import load_hints
from grading.inputs import MAX_CODE_BYTES


def _largest(line: str, tail: str = "raise RuntimeError('a demo at the top level')\n") -> str:
    """``import torch``, then ``line.format(i)`` for as many i as fit in an upload, then ``tail``."""
    head = "import torch\n"
    room = MAX_CODE_BYTES - len(head) - len(tail) - 1
    body, i = [], 0
    while room > len(line.format(i)):
        body.append(line.format(i))
        room -= len(line.format(i))
        i += 1
    return head + "".join(body) + tail


FLOODS = {
    "near_functions": _largest("def MultiHeadAttn{}(x): pass\n"),
    "near_classes": _largest("class ScaledDotProductAtt{}: pass\n"),
    "assigned_names": _largest("x{} = 1\n"),
}


@pytest.mark.parametrize("flood", list(FLOODS))
@pytest.mark.parametrize("note", ["load_note", "names_note"])
def test_a_note_on_thousands_of_names_is_skipped_at_little_cost(flood, note):
    source = FLOODS[flood]
    assert len(source.encode()) <= MAX_CODE_BYTES
    load_hints.parse_source(source)            # parsed once per grading, by the review, before any note
    ask = getattr(signature_note, note)
    args = (source,) if note == "load_note" else (source, {"test_sdpa_interface": {"outcome": "failed"}})
    t0 = time.process_time()
    answer = ask(*args)
    cost = time.process_time() - t0
    assert answer is None
    assert cost < 0.1, f"{cost:.2f} s of the worker's CPU"


def test_a_file_with_few_names_still_gets_its_stand_in_named():
    source = "import torch\n" + "".join(f"def helper_{i}(x):\n    return x\n" for i in range(50)) + '''
class MultiheadAttention(torch.nn.Module):
    pass

raise RuntimeError("a demo at the top level")
'''
    line = source.splitlines().index("class MultiheadAttention(torch.nn.Module):") + 1
    note = signature_note.load_note(source)
    assert note is not None and f"MultiheadAttention (class, line {line})" in note["en"], note
    assert "MultiheadAttention" in note["zh"]
