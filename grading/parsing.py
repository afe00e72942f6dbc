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
