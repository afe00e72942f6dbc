"""Round 31: every line the feedback of the faulty corpus quotes from the student's file is that line.

A hint that says "line 19 (in Attention): F.softmax(scores, dim=2) ..." must point at a line that holds that code,
inside the class or function it names; one that pointed at a class the tests never ran, or at a base helper nothing
calls, contradicted the code (grading/family.py). Read off the graded corpus results the other corpus modules share
(tests/grading/helpers.graded_corpus_file): no grading of its own when they run in the same session.
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.grading.helpers import SUBMISSIONS, graded_corpus_file

FAULTY = sorted((SUBMISSIONS / "faulty").glob("*.py"))
# The forms in which the hints quote a line with its code (grader_tests/attention/source_lines.py, diagnose.py):
# "line 8: CODE normalises over ...", "line 12 (in Core) builds a triangular mask: CODE", "line 7 computes CODE:
# keys first", "line 7 computes the scores keys first (CODE, [B, ...", "line 20 calls CODE, which drops ...",
# "line 5 calls CODE without dim", "line 52 computes V with k_proj: CODE", "line 60 passes k as the values: CODE".
# PyTorch's messages ("at attention.py line 21: ...") are not quotes.
_WHERE = r"(?<!attention\.py )line (\d+)(?: \(in (\w+)\))?"
_QUOTES = [re.compile(_WHERE + tail) for tail in (
    r": (.+?) normalises over", r" builds a triangular mask: (.+?)(?:; |$)", r" computes (?!the scores)(.+?): keys first",
    r" computes the scores keys first \((.+?), \[B", r" calls (.+?)(?:, which drops| without dim)",
    # round 34: a projection in another role ("line 52 computes V with k_proj: CODE", "line 60 passes k as the
    # values: CODE")
    r" computes [QKV] with [qkv]_proj: (.+?)(?:; |$)", r" passes \w+ as the (?:queries|keys|values)[^:]*: (.+?)(?:; |$)",
    r" builds and calls (.+?) in one go",
    # round 38: the round 37 multi-head mistakes ("line 47 averages over dim -3, the heads of [B, H, Nq, Nk]: CODE",
    # "line 44 lays the padding mask out as [B, 1, N, 1], on the query axis: CODE", "line 51 applies the output
    # projection to its own result[ in a loop that runs 2 times]: CODE", "line 46 applies the output projection
    # (CODE) and line 61 applies it again to that result (CODE)")
    r" averages over dim -?\d, the heads of \[B, H, Nq, Nk\]: (.+?)(?:; |$)",
    r" lays the padding mask out as \[B, 1, N, 1\], on the query axis: (.+?)(?:; |$)",
    r" applies the output projection to its own result(?: in a loop that runs \d+ times)?: (.+?)(?:; |$)",
    r" applies the output projection \((.+?)\) and line", r" applies it again to that result \((.+?)\)(?:; |$)",
    # round 39: where a projection of another name is built ("line 32 builds self.to_out: CODE", or
    # "self.to_out[0]: CODE" for a container's layer)
    r" builds self\.\w+(?:\[\d+\])?: (.+?)(?:; |$)",
    # round 40: the heads' mean in two statements ("line 47 sums over dim 1, the heads of [B, H, Nq, Nk] (CODE),
    # and line 48 divides that by their number (CODE)")
    r" sums over dim -?\d, the heads of \[B, H, Nq, Nk\] \((.+?)\), and line",
    r" divides that by their number \((.+?)\)(?:; |$)",
    # round 40: a split or merge heads last ("line 12 splits the features as (head_dim, heads), the heads last:
    # CODE", "line 40 merges the heads last, after head_dim: CODE")
    r" splits the features as \(head_dim, heads\), the heads last(?: \(so (?:does line|do lines) [\d, ]+\))?: (.+?)(?:; |$)",
    r" merges the heads last, after head_dim(?: \(so (?:does line|do lines) [\d, ]+\))?: (.+?)(?:; |$)",
    # round 40 mend: heads merged without a transpose ("line 54 flattens the attention output [B, H, N, head_dim]
    # as it is, the heads never moved after the positions (no transpose(1, 2)): CODE", "line 46 concatenates the
    # heads of the attention output [B, H, N, head_dim] along dim 1, the positions: CODE")
    r" flattens the attention output \[B, H, N, head_dim\] as it is, the heads never moved after the positions "
    r"\(no transpose\(1, 2\)\): (.+?)(?:; |$)",
    r" concatenates the heads of the attention output \[B, H, N, head_dim\] along dim 1, the positions: (.+?)(?:; |$)",
    # "line 47 puts the heads of the attention output in reverse order, head H-1 first: CODE"
    r" puts the heads of the attention output in reverse order, head H-1 first: (.+?)(?:; |$)",
    # round 41: "line 39 lays the projection [B, N, H * head_dim] out as [B, H, N, head_dim] with no transpose(1, 2),
    # reading positions as heads: CODE"
    r" lays the projection \[B, N, H \* head_dim\] out as \[B, H, N, head_dim\] with no transpose\(1, 2\), reading "
    r"positions as heads(?: \(so (?:does line|do lines) [\d, ]+\))?: (.+?)(?:; |$)",
    # "line 37 folds the heads into the batch head by head, row h*B + b (so do lines 38, 39): CODE; line 48 unfolds
    # them sample by sample, row b*H + h: CODE"
    r" (?:folds the heads into the batch|unfolds them) (?:sample by sample, row b\*H \+ h|head by head, row h\*B \+ b)"
    r"(?: \(so (?:does line|do lines) [\d, ]+\))?: (.+?)(?:; |$)",
    # round 42: "line 43 splits the projection into [B, N, H, head_dim], and it reaches ScaledDotProductAttention
    # with no transpose(1, 2), the positions in dim 1 and the heads in dim 2 (so do lines 44, 45): CODE"
    r" splits the projection into \[B, N, H, head_dim\], and it reaches ScaledDotProductAttention with no "
    r"transpose\(1, 2\), the positions in dim 1 and the heads in dim 2(?: \(so (?:does line|do lines) [\d, ]+\))?: "
    r"(.+?)(?:; |$)")]


def quoted_lines(feedback: str) -> list[tuple[int, str | None, str]]:
    """(line, owner or None, code) of each source line an English feedback quotes with its code, in order."""
    found = [(m.start(), int(m.group(1)), m.group(2), m.group(3)) for q in _QUOTES for m in q.finditer(feedback)]
    return [f[1:] for f in sorted(found)]


def _spans(source: str) -> dict[str, list[tuple[int, int]]]:
    spans: dict[str, list[tuple[int, int]]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            spans.setdefault(node.name, []).append((node.lineno, node.end_lineno or node.lineno))
    return spans


def _shown(code: str, line: str) -> bool:
    """The quoted code is on the line: as written, or shortened (``torch.ones(...).triu()``, ``torch.triu(...)``)."""
    if "(...)" not in code:
        return code in line
    return all(part.split("(")[0] in line for part in re.split(r"\(\.\.\.\)|\(\)", code) if part)


def test_the_quote_pattern_reads_each_form_of_quoted_line():
    said = ("raised at attention.py line 21: x; line 19 (in Attention): F.softmax(scores, dim=2) normalises over dim=2; "
            "line 8 builds a triangular mask: torch.ones(...).triu(); line 7 computes torch.einsum('bhqd,bhkd->bhkq', "
            "q, k): keys first, [B, H, Nk, Nq]; line 20 (in F) calls F.dropout(w, 0.1), which drops values")
    assert quoted_lines(said) == [(19, "Attention", "F.softmax(scores, dim=2)"), (8, None, "torch.ones(...).triu()"),
                                  (7, None, "torch.einsum('bhqd,bhkd->bhkq', q, k)"), (20, "F", "F.dropout(w, 0.1)")]
    assert _shown("torch.ones(...).triu()", "        blocked = torch.ones(a, b, dtype=torch.bool).triu()")
    assert not _shown("torch.triu(...)", "        keep = torch.tril(torch.ones(n, n))")


@pytest.mark.parametrize("path", FAULTY, ids=[p.stem for p in FAULTY])
def test_every_quoted_line_holds_the_code_quoted_in_the_class_named(executor, path):
    source = path.read_text(encoding="utf-8")
    lines, spans = source.splitlines(), _spans(source)
    wrong = []
    for t in graded_corpus_file(executor, path)["tests"]:
        fb = t["feedback"]
        if t["outcome"] == "passed" or not isinstance(fb, dict):
            continue
        for n, owner, code in quoted_lines(fb["en"]):
            inside = owner is None or any(a <= n <= b for a, b in spans.get(owner, ()))
            if not (1 <= n <= len(lines) and _shown(code, lines[n - 1]) and inside):
                wrong.append((t["id"], n, owner, code))
    assert wrong == [], wrong
