"""Review D mend, round 43 (LOW 1): when sample 0 (no padded key) gives different outputs with and without the padding
mask, the feedback says which call is off only as checked against the reference. The PixArt twin that leaks across
samples without a mask was told "its output changed ... when the padding mask was given: the mask must only affect
the keys marked True", blaming the path that was right."""
from __future__ import annotations

from tests.grading.helpers import SUBMISSIONS, failed_tests, graded_corpus_file, graded_mutant

TEST = "test_padding_leaves_valid_results_unchanged"


def test_a_module_wrong_without_a_mask_is_told_the_call_without_the_mask_differs(executor):
    feedback = failed_tests(graded_corpus_file(executor, SUBMISSIONS / "faulty" /
                                               "r43_pixart_block_diagonal_left_out.py"))[TEST]
    assert "when the padding mask was given" not in feedback["en"]
    assert "without the mask it is" in feedback["en"] and "the call without a padding mask" in feedback["en"]
    assert "不给 mask 时相差" in feedback["zh"] and "不带 padding mask 的调用" in feedback["zh"]


def test_a_padding_mask_that_reaches_an_unpadded_sample_is_blamed_on_the_mask(executor):
    result = graded_mutant(executor, SUBMISSIONS / "correct" / "pep8_matplotlib_imports.py",
                           "key_padding_mask[:, None, None, :]", "key_padding_mask.any(0)[None, None, None, :]")
    feedback = failed_tests(result)[TEST]
    assert "with the padding mask its output is" in feedback["en"] and "(without the mask it matches)" in feedback["en"]
    assert "the mask must only affect the keys marked True" in feedback["en"]
    assert "不给 mask 时一致" in feedback["zh"]


def test_without_fixed_weights_the_two_calls_are_only_said_to_differ():
    import torch

    from grader_tests.attention.test_mask_parity import _sample_without_padding_differs

    padded, plain = torch.zeros(2, 3, 4), torch.ones(2, 3, 4)
    said = _sample_without_padding_differs(None, False, None, None, None, padded, plain)
    assert "outputs with and without the padding mask differ:" in said["en"]
    assert "changed" not in said["en"] and "reference" not in said["en"]
    assert "给出与不给 padding mask 时其输出不同" in said["zh"]
