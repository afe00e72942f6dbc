"""Round 34's corpus files (tests/fixtures/submissions/faulty/r34_*.py), graded in the slow lane (about 0.5 s a file;
test_fair_corpus.py, test_grading.py and test_quoted_lines_round31.py grade them with the whole corpus): each is named
as its header declares and nothing else, in both languages; every line a hint quotes holds the code quoted; a
projection hint quotes the file's own line or none; the files of the round's three new fault models, and the older
files that made those mistakes, are named."""

from __future__ import annotations

import pytest

from grading.i18n import is_msg
from tests.grading.helpers import SUBMISSIONS, code_names, english_in_zh, graded_corpus_file, named_faults
from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines

FAULTY = SUBMISSIONS / "faulty"
ROUND = sorted(FAULTY.glob("r34_*.py"))
pytestmark = pytest.mark.slow


def _declared(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[1].removeprefix("# diagnosis: ").split()


def _failed(executor, path) -> dict[str, dict]:
    return {t["id"]: t["feedback"] for t in graded_corpus_file(executor, path)["tests"]
            if t["outcome"] != "passed" and is_msg(t["feedback"])}


def test_the_round_adds_at_least_30_files_with_a_declared_diagnosis():
    assert len(ROUND) >= 30
    for path in ROUND:
        assert path.read_text(encoding="utf-8").splitlines()[1].startswith("# diagnosis: "), path.name
    assert sum(_declared(p) == ["none"] for p in ROUND) >= 5     # mistakes no model names: described only


@pytest.mark.parametrize("path", ROUND, ids=[p.stem for p in ROUND])
def test_a_round_34_file_is_named_as_declared_and_quotes_only_its_own_lines(executor, path):
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


# file -> the line its projection hints quote (None: no line; the roles are swapped in an unpacked tuple)
ROLE_LINES = {
    "r34_proj_k_for_queries": "line {q} computes Q with k_proj: q = self._split(self.k_proj(x))",
    "r34_proj_shared_k_proj_all": "line {q} computes Q with k_proj: q = self._split(self.k_proj(x)); line {v} computes "
                                  "V with k_proj: v = self._split(self.k_proj(kv))",
    "r34_proj_v_from_q_proj_of_context": "line {v} computes V with q_proj: v = self._split(self.q_proj(kv))",
    "r34_proj_k_used_as_value_in_call": "line {call} passes k as the values: self.attention(q, k, k, mask, "
                                        "return_weights=True)",
    "r34_proj_tuple_unpack_kv_swapped": None,
}


@pytest.mark.parametrize("name", sorted(ROLE_LINES))
def test_a_projection_hint_quotes_the_line_that_does_it_or_none(executor, name):
    path = FAULTY / f"{name}.py"
    lines = path.read_text(encoding="utf-8").splitlines()

    def at(text: str) -> int:
        return next((i for i, line in enumerate(lines, 1) if line.lstrip().startswith(text)), 0)

    said = [fb for fb in _failed(executor, path).values() if named_faults(fb)]
    assert len(said) >= 5, said
    for fb in said:
        assert "= self." not in fb["en"].replace(": q = self.", "").replace(": v = self.", ""), fb
        if ROLE_LINES[name] is None:
            assert quoted_lines(fb["en"]) == [] and " passes " not in fb["en"], fb
        else:
            expected = ROLE_LINES[name].format(q=at("q = "), v=at("v = "), call=at("out, weights = self.attention("))
            assert expected in fb["en"], fb


# Files of the round's new fault models written before it (declared `none` or described then).
OLDER = {"r33_mha_split_unflatten_no_transpose": "heads_as_sequence", "split_stack_heads_dim2": "heads_as_sequence",
         "r33_mha_unflatten_dh_permute": "split_merge_dim_first", "mha_single_head": "heads_not_split"}


@pytest.mark.parametrize("name", sorted(OLDER))
def test_an_older_file_of_a_new_model_is_named_now(executor, name):
    path = FAULTY / f"{name}.py"
    assert _declared(path) == [OLDER[name]]
    named = set().union(*(named_faults(fb) for fb in _failed(executor, path).values()))
    assert named == {OLDER[name]}, named
