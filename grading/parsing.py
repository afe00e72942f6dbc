"""One parse of a student's source for every trusted reader of it in a grading: the load hints, the
runner's notes and a suite's review all ask for the same file's tree, and parsing a long file
costs milliseconds each time. The tree is shared: readers must not modify it."""
from __future__ import annotations

import ast
import functools
import re
import sys

# Why a source has no tree, besides a SyntaxError: nested too deeply for the parser, or a NUL
ParseFailure = SyntaxError | ValueError | RecursionError | MemoryError

# Tokens of a source past which the trusted side does not parse it. Python's parse costs the worker ~2-8 us a token
# (more on a loaded host): one statement of 65,000 attribute reads filling the 256 KiB upload limit (260,000 tokens)
# cost 0.3-0.6 s of the worker's CPU to parse, about the whole hostile bound, before a reader looked at the tree
# (and the review gives up past 20,000 nodes anyway: static.MAX_REVIEW_NODES). An honest file of the lab is a few
# thousand tokens; one of 100,000 would be some 10,000 lines of code. The jail still compiles and runs such a file
# (on the student's own CPU allowance): only the trusted readers (review, hints) go without its tree.
MAX_PARSE_TOKENS = 100_000
_PEP_701 = sys.version_info >= (3, 12)
# What ``_token_count`` counts, in one left-to-right scan as Python's tokenizer reads a source: a string literal is
# one token whatever it holds (Python's parse pays for a literal once; round 45 review RC HIGH 1: a 120 KB CSV in a
# string counted 100,001 and an honest file lost its review), a comment none, a word (name, number) one, each other
# non-space character one (an over-count of operators such as ``**=``). An f-string's fields are code that Python
# parses: the f-string counts as its contents do. A literal left open (a SyntaxError, where Python's parse stops)
# ends at its line's end, or the source's for a triple quote: so every literal the scan starts ends it, in one
# pass (a literal that had to be closed could be tried and given up at each of 60,000 quotes, each a scan to the
# end: quadratic).
# Python 3.11 (the image's): an f-string cannot hold its own quote, so its end here is Python's. From 3.12 (PEP 701)
# a field may hold its own quote and the scan could take code for a literal: there the rest of a source from its
# first f-string is counted as words and characters, every literal's contents included.
_BODY = "|".join((
    r'"""(?:[^"\\]++|\\.|"(?!""))*+(?:"""|\Z)',
    r"'''(?:[^'\\]++|\\.|'(?!''))*+(?:'''|\Z)",
    r'"(?:[^"\\\n]++|\\.)*+(?:"|(?=\n)|\Z)',
    r"'(?:[^'\\\n]++|\\.)*+(?:'|(?=\n)|\Z)",
))
_TOKENISH = re.compile(rf"(?P<f>(?i:fr?|rf)(?:{_BODY}))|(?P<s>(?i:[rub]|br|rb)?(?:{_BODY}))|(?P<c>#[^\n]*+)"
                       r"|\w++|[^\w\s]", re.S)
_PLAIN = re.compile(r"\w+|[^\w\s]")        # every word and character: a literal's contents, or all past 3.12's f


class TooManyTokens(ValueError):
    """A source past ``MAX_PARSE_TOKENS``: not parsed by the trusted side (a ValueError, as a NUL byte's)."""


def _plain_count(text: str, cap: int) -> int:
    n = 0
    for _ in _PLAIN.finditer(text):
        n += 1
        if n > cap:
            break
    return n


def _token_count(source: str, cap: int) -> int:
    """About how many tokens ``source`` holds (never fewer than Python's tokenizer reads), counted up to ``cap`` + 1
    (no more is needed); 0 for a source no longer than ``cap`` characters, which cannot hold more (the count is
    skipped for every ordinary file)."""
    if len(source) <= cap:
        return 0
    n = 0
    for m in _TOKENISH.finditer(source):
        kind = m.lastgroup
        if kind == "c":
            continue
        if kind == "f":
            if _PEP_701:
                return n + _plain_count(source[m.start():], cap - n)
            n += _plain_count(m.group(), cap - n)
        else:
            n += 1
        if n > cap:
            break
    return n


@functools.lru_cache(maxsize=4)       # the gradings at hand: one worker grades one file at a time
def parsed(source: str) -> tuple[ast.Module | None, ParseFailure | None]:
    """The source's tree, or the exception ``ast.parse`` raised on it, or TooManyTokens (never raises itself)."""
    if _token_count(source, MAX_PARSE_TOKENS) > MAX_PARSE_TOKENS:
        return None, TooManyTokens(f"more than {MAX_PARSE_TOKENS} tokens: not parsed")
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
