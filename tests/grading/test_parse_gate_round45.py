"""Round 45: the trusted side's one parse of a student's source is gated on its size in tokens.

Left open in round 44: one statement of ~65,000 attribute reads filling the 256 KiB upload limit cost 0.5-1.2 s of
the worker's CPU (measured here: 0.60 s, of which Python's ``ast.parse`` 0.49-0.60 s, run twice: once by
grading.parsing and once more by the suite's source_lines). Past MAX_PARSE_TOKENS the source is not parsed (the
review finds it unreviewable, as it did past its 20,000 nodes), counted in ~15 ms; every file under 100,000
characters skips the count."""

from __future__ import annotations

import time

import pytest

from grader_tests.attention import source_lines
from grading import parsing
from grading.runner import GradeInput, grade
from tests.grading.helpers import graded_attack, honest_cost
from tests.grading.test_hostile_round31 import CORRECT
from tests.grading.test_source_readers_mend_round44 import AT_THE_LIMIT, COSTLY


def test_a_source_of_one_huge_statement_is_not_parsed_and_costs_little_to_refuse():
    source = AT_THE_LIMIT + "# unique to this test\n"       # not in the parse cache
    t0 = time.process_time()
    tree, failure = parsing.parsed(source)
    assert time.process_time() - t0 < 0.1
    assert tree is None and isinstance(failure, parsing.TooManyTokens) and isinstance(failure, ValueError)


@pytest.mark.parametrize("name", ["honest", "comments", "long_names", "big_but_honest"])
def test_honest_and_comment_heavy_sources_are_still_parsed(name):
    source = {"honest": CORRECT, "comments": COSTLY["250_kb_of_comments_above_a_failing_forward"],
              "long_names": COSTLY["an_attribute_error_near_1000_long_attribute_names"],
              # 2,000 ordinary lines of code (~40,000 tokens, ~110 KB): counted, under the gate
              "big_but_honest": CORRECT + "".join(f"def helper_{i}(x, y):\n    return x * {i} + y - {i} / 2\n"
                                                  for i in range(1000))}[name]
    tree, failure = parsing.parsed(source)
    assert failure is None and tree is not None


def test_the_token_count_skips_short_sources_and_stops_past_the_cap():
    assert parsing._token_count("a.b," * 10, 100) == 0                  # 40 characters: never more tokens
    assert parsing._token_count("# " + "x" * 500 + "\n", 100) == 0      # a comment counts nothing
    assert parsing._token_count("a.b," * 1000, 100) == 101              # stops once past the cap


def test_the_suites_source_lines_read_the_gradings_one_tree():
    source = CORRECT + "# source_lines round 45\n"
    assert source_lines.tree_of(source) is parsing.parsed(source)[0]


def _grade(executor, code: str) -> dict:
    return grade(GradeInput(code=code.encode()), "attention", executor)


@pytest.mark.slow
def test_a_source_of_one_statement_at_the_upload_limit_is_graded_within_the_hostile_bound(served):
    """0.60 s of the worker's CPU before (honest: 0.08 s), 0.04-0.06 s after; still graded 0 with its NameError."""
    honest = honest_cost(_grade, served, CORRECT)
    result = graded_attack("one_statement_at_the_upload_limit", honest, _grade, served,
                           AT_THE_LIMIT + "# round 45\n")
    assert result["total"] == 0 and "NameError" in result["message"]["en"]
