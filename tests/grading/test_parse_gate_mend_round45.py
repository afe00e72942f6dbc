"""Round 45 mend, review RC HIGH 1: the trusted side's token gate (grading.parsing) counted the inside of string
literals, so an honest, correct file holding 120 KB of CSV in one string counted 100,001 tokens, was left unparsed
and lost 17 points (68 of 85, main 85) with feedback about "syntax nodes or levels of nesting" it never had. A string
literal now counts as one token (an f-string as its contents: its fields are code), and a file past the gate is told
of tokens. Also: the gate cut comments before counting, so a ``"#"`` cut the rest of its line (one statement filling
the upload limit after ``"#";`` was counted as 5 tokens and parsed)."""

from __future__ import annotations

import json
import re
import time

import pytest

from grader_tests.attention import static
from grader_tests.attention import test_implementation as ti
from grading import parsing
from grading.runner import GradeInput, grade
from tests.grading.test_hostile_round31 import CORRECT

CSV = ",".join(f"{(i % 97) / 10:.1f}" for i in range(30000))       # 122 KB of numbers and commas
WITH_CSV = CORRECT + f'\n_DATA = """{CSV}"""\n'
PAST_THE_GATE = CORRECT + "\n_X = [" + "1, " * 60000 + "]\n"        # 120,000 tokens, flat: the jail compiles it


@pytest.mark.parametrize("literal", [f'"""{CSV}"""', f"'''{CSV}'''", f'"{CSV}"', f"r'{CSV}'", f'b"{CSV}"',
                                     f'"""{CSV}\\"""{CSV}"""'])
def test_a_string_literal_of_120_kb_counts_as_one_token_and_its_file_is_parsed(literal):
    source = CORRECT + f"\n_DATA = {literal}\n"
    assert parsing._token_count(source, parsing.MAX_PARSE_TOKENS) < 5000
    tree, failure = parsing.parsed(source)
    assert failure is None and tree is not None


def test_code_after_a_hash_inside_a_string_is_counted_not_cut_as_a_comment():
    source = 'x = "#"; y = ' + ".".join(["a"] * 65000) + "\n"
    assert parsing._token_count(source, parsing.MAX_PARSE_TOKENS) > parsing.MAX_PARSE_TOKENS
    assert isinstance(parsing.parsed(source)[1], parsing.TooManyTokens)


def test_an_f_strings_fields_count_as_the_code_they_are():
    source = 'x = f"{' + "+".join(["a"] * 65000) + '}"\n'
    assert parsing._token_count(source, parsing.MAX_PARSE_TOKENS) > parsing.MAX_PARSE_TOKENS


def test_comments_and_quotes_in_them_count_nothing():
    assert parsing._token_count('# "\n' * 30000 + "x = 1\n", 100_000) == 3


@pytest.mark.parametrize("source", ["'''" + "\\'''" * 64000, '"' + '\\"' * 128000, "'''" * 90000,
                                    ('"a' + "\n") * 90000, '"""' + "x" * 250000])
def test_unterminated_or_escaped_quotes_are_counted_in_one_pass(source):
    """A literal that had to be closed would be tried, and given up, at each of 64,000 quotes: quadratic."""
    t0 = time.process_time()
    parsing._token_count(source, parsing.MAX_PARSE_TOKENS)
    assert time.process_time() - t0 < 0.2


def test_a_file_past_the_gate_is_told_of_tokens_never_of_syntax_nodes_or_nesting():
    assert static.past_token_gate(PAST_THE_GATE) and not static.past_token_gate(CORRECT)
    assert not static.past_token_gate(WITH_CSV)
    said = ti._hidden_names(PAST_THE_GATE)
    assert said == ti.TOKENS_UNREVIEWABLE
    assert "100,000 tokens" in said["en"] and "string literal counts as one" in said["en"]
    assert "nodes" not in said["en"] and "nest" not in said["en"]
    assert "100,000 个词法单元" in said["zh"] and "嵌套" not in said["zh"] and "节点" not in said["zh"]
    for text in (ti.TOKENS_UNREVIEWABLE["zh"], ti.REUSE_TOKENS_UNREVIEWABLE["zh"]):
        assert not re.search(r"[A-Za-z]", re.sub(r"attention\.py|PyTorch|attention|MultiHeadAttention|"
                                                 r"ScaledDotProductAttention", "", text)), text
        assert not re.search(r"[,.:;()](?!\d)", text.replace("100,000", "").replace("attention.py", "")), text
    # one past the review's own limits (nodes) is still told of nodes and nesting
    nested = "x = " + "1 + " * 25000 + "1\n"
    assert not static.past_token_gate(nested) and ti._hidden_names(nested) == ti.UNREVIEWABLE


def _grade(executor, code: str) -> dict:
    return grade(GradeInput(code=code.encode()), "attention", executor)


@pytest.mark.slow
def test_an_honest_file_with_a_120_kb_data_string_earns_what_it_earns_without_it(served):
    """68 of 85 before ("too large or too deeply nested ... 20,000 syntax nodes"), main 85."""
    result = _grade(served, WITH_CSV)
    assert result["status"] == "graded" and result["total"] == 85, json.dumps(result["tests"])[:2000]


@pytest.mark.slow
def test_a_correct_file_past_the_gate_is_graded_and_told_of_tokens(served):
    result = _grade(served, PAST_THE_GATE)
    assert result["status"] == "graded"
    text = json.dumps(result["tests"], ensure_ascii=False)
    assert ti.TOKENS_UNREVIEWABLE["en"] in text and ti.TOKENS_UNREVIEWABLE["zh"] in text
    assert "syntax nodes" not in text and "语法节点" not in text
