"""One parse of a student's source for every trusted reader of it in a grading: the load hints, the
runner's notes and a suite's review all ask for the same file's tree, and parsing a long file
costs milliseconds each time. The tree is shared: readers must not modify it."""
from __future__ import annotations

import ast
import functools

# Why a source has no tree, besides a SyntaxError: nested too deeply for the parser, or a NUL
ParseFailure = SyntaxError | ValueError | RecursionError | MemoryError


@functools.lru_cache(maxsize=4)       # the gradings at hand: one worker grades one file at a time
def parsed(source: str) -> tuple[ast.Module | None, ParseFailure | None]:
    """The source's tree, or the exception ``ast.parse`` raised on it (never raises itself)."""
    try:
        return ast.parse(source), None
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return None, exc


def is_main_guard(node: ast.AST) -> bool:
    """An ``if __name__ == "__main__":`` statement (either way round), or its test expression."""
    test = node.test if isinstance(node, ast.If) else node
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(a, ast.Name) and a.id == "__name__" for a in sides) and any(
        isinstance(b, ast.Constant) and b.value == "__main__" for b in sides)
