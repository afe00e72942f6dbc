"""Round 41: the padding note's rank tests (``pad.dim() == 2``, ``4 > pad.ndim``) compare through the
``operator`` module rather than int's dunder methods taken off the type (``int.__lt__``). A readability change,
not a bug fix: ``_rank_test`` only ever compares two ints (a rank and an int constant), where ``int.__lt__``
gives the same answer; a dunder taken off a type would answer NotImplemented (a true value) for an operand that is
no int, so a source scan keeps load_hints from taking one as a value. Each of the six comparisons reads as
Python's own, with the number on either side."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from grading import load_hints

OPS = ("==", "!=", "<", "<=", ">", ">=")
BUILTIN_TYPES = frozenset({"int", "float", "bool", "str", "bytes", "list", "tuple", "dict", "set", "frozenset"})


def test_load_hints_takes_no_dunder_method_off_a_builtin_type():
    tree = ast.parse(Path(load_hints.__file__).read_text(encoding="utf-8"))
    taken = [f"line {n.lineno}: {ast.unparse(n)}" for n in ast.walk(tree)
             if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in BUILTIN_TYPES
             and n.attr.startswith("__") and n.attr.endswith("__")]
    assert not taken, taken


def _read(test: str) -> bool | None:
    expr = ast.parse(test, mode="eval").body
    return load_hints._rank_test(expr, {"pad": ["B", "Nk"]})    # a rank-2 mask


@pytest.mark.parametrize(("op", "n"), list(itertools.product(OPS, range(5))))
def test_a_rank_test_reads_as_pythons_own_comparison_with_the_number_on_either_side(op, n):
    for of in ("pad.dim()", "pad.ndim", "len(pad.shape)", "pad.ndimension()"):
        assert _read(f"{of} {op} {n}") is eval(f"2 {op} {n}"), (of, op, n)
        assert _read(f"{n} {op} {of}") is eval(f"{n} {op} 2"), (of, op, n)


def test_a_chained_or_other_comparison_is_not_read():
    assert _read("1 < pad.dim() < 3") is None
    assert _read("pad.dim() is 2") is None
    assert _read("pad.dim() == x") is None
