"""Round 33's corpus files (tests/fixtures/submissions/faulty/r33_*.py), graded in the slow lane (about 0.4 s a file;
test_fair_corpus.py, test_grading.py and test_quoted_lines_round31.py grade them with the whole corpus): every line
a hint quotes is the one the round's file marks as the code that ran, in the class that holds it, and a file whose
only softmax call sits in a method nothing calls has no line quoted at all."""

from __future__ import annotations

import pytest

from grading.i18n import is_msg
from tests.grading.helpers import SUBMISSIONS, graded_corpus_file
from tests.grading.test_quoted_lines_round31 import quoted_lines

ROUND = sorted((SUBMISSIONS / "faulty").glob("r33_*.py"))
pytestmark = pytest.mark.slow

# file -> (owner, code) of the one line its hints may quote: the code that ran (None: no line is quoted; the
# file's only readable softmax call is in a method nothing calls)
QUOTED = {
    "r33_core_subobject_two_softmaxes_one_used": ("Kernel", "torch.softmax(scores, dim=-2)"),
    "r33_module_instance_alias_softmax_dim_minus2": ("RowNorm", "torch.softmax(scores, dim=-2)"),
    "r33_module_instance_method_softmax_dim_minus2": ("AttentionOps", "F.softmax(scores, dim=-2)"),
    "r33_static_helper_class_softmax_dim_minus2": ("Ops", "s.softmax(dim=-2)"),
    "r33_core_subobject_causal_unused_helper": ("Masker", "torch.ones(nq, nk, dtype=torch.bool, device=device).triu(0)"),
    "r33_mha_module_instance_causal_mask": ("CausalMask", "torch.triu(...)"),
    "r33_mha_mixin_causal_diagonal": ("CausalMixin", "torch.ones(n, n, device=device).triu(0)"),
    "r33_module_instance_of_subclass_override": ("QueryNorm", "torch.softmax(s, dim=-2)"),
    "r33_module_instance_softmax_no_dim": ("Normaliser", "F.softmax(s)"),
    "r33_module_instance_dropout_always": ("WeightDropout", "F.dropout(w, 0.1)"),
    "r33_core_subobject_hand_softmax_query_axis": None,
    "r33_uncalled_method_softmax_hand_query_axis": None,
}


def test_the_round_adds_at_least_25_files_with_a_declared_diagnosis():
    assert len(ROUND) >= 25
    for path in ROUND:
        assert path.read_text(encoding="utf-8").splitlines()[1].startswith("# diagnosis: "), path.name


@pytest.mark.parametrize("name", sorted(QUOTED))
def test_a_hint_quotes_the_line_that_ran_in_the_class_that_holds_it(executor, name):
    path = SUBMISSIONS / "faulty" / f"{name}.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    quoted = set()
    for t in graded_corpus_file(executor, path)["tests"]:
        if t["outcome"] != "passed" and is_msg(t["feedback"]):
            quoted.update(quoted_lines(t["feedback"]["en"]))
    if QUOTED[name] is None:
        assert quoted == set(), quoted
        return
    owner, code = QUOTED[name]
    line = next(i for i, text in enumerate(lines, 1) if code.split("(...)")[0] in text and not text.startswith("#"))
    assert quoted == {(line, owner, code)}, quoted


def test_the_kernels_determinism_feedback_quotes_no_dropout_line_of_the_wrapper(executor):
    """The kernel is random through torch.bernoulli, the wrapper through its own F.dropout(..., 0.1): before, the
    kernel's determinism test quoted the wrapper's line, code that test never ran."""
    path = SUBMISSIONS / "faulty" / "r33_kernel_bernoulli_wrapper_dropout.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    wrapper = next(i for i, text in enumerate(lines, 1) if "F.dropout(" in text and not text.startswith("#"))
    by_test = {t["id"]: quoted_lines(t["feedback"]["en"]) for t in graded_corpus_file(executor, path)["tests"]
               if t["outcome"] != "passed" and is_msg(t["feedback"])}
    assert by_test["test_deterministic"] == [], by_test["test_deterministic"]
    quoting = {test for test, quoted in by_test.items() if quoted}
    assert quoting and all(test.startswith(("test_mha", "test_padding")) for test in quoting), quoting
    assert all(quoted == [(wrapper, None, "F.dropout(self.out_proj(self.merge_heads(out)), 0.1)")]
               for test, quoted in by_test.items() if quoted), by_test
