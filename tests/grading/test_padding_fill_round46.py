"""Round 46 (brief D 1): a padding fill the probe shows of the case's kind, in the same heads, but with a number more
than 10 % (or 0.5) off the case's is said as the fill without a number, as one within 10 % is since round 45.

Before, the probe's number far off the case's left the check silent: the student read only "padding keys get weight
up to 0.333; they must get exactly 0 from every head and query" (true, no guess), while the same fault whose number
landed within 10 % on both was told what the weights and output match and how to block the padding keys. Whether a
number is said is ``_number_seen``'s check (one c giving every case's numbers); constants of the code keep theirs."""

from __future__ import annotations

import pytest

from grader_tests.attention import test_mask_parity as T
from grading.proxy import Feedback
from tests.grading.helpers import english_in_zh
from tests.grading.test_padding_fill_round42 import ZH
from tests.grading.test_padding_fill_round45 import VARIES, VARIES_ZH, _said, _Student

SEEN = "self-attention over the 8 tokens with key_padding_mask (sample 1: tokens 5..7 are padding): padding keys get " \
       "weight up to "
FILLED = "the padding keys' scores set to a finite number (scores.masked_fill(key_padding_mask, c)), "
ADDED = "a finite number added to the padding keys' scores (scores + key_padding_mask * c), "
INVERTED = "the real keys' scores set to a finite number and the padding keys' left as they are " \
           "(scores.masked_fill(~key_padding_mask, c)), "

# each fits the probe more than 10 % (or 0.5) off the case
FAR = {
    "filled_min_minus_1": (("filled", lambda s: s.min() - 1), FILLED),
    "filled_max_plus_1": (("filled", lambda s: s.max() + 1), FILLED),
    "filled_mean_minus_3_std": (("filled", lambda s: s.mean() - 3 * s.std()), FILLED),
    "added_minus_3_std": (("added", lambda s: -3 * s.std()), ADDED),
    "added_max": (("added", lambda s: s.max()), ADDED),
    "added_minus_abs_max": (("added", lambda s: -s.abs().max()), ADDED),
    "inverted_min_minus_1": (("inverted", lambda s: s.min() - 1), INVERTED),
}


@pytest.mark.parametrize("name", sorted(FAR))
def test_a_fill_whose_number_is_far_apart_on_the_probe_is_said_without_a_number(name):
    fault, said_as = FAR[name]
    for weights in (True, False):
        said = _said({None: fault}, weights=weights)
        assert said is not None, (name, weights)
        assert said_as + VARIES in said["en"] and VARIES_ZH in said["zh"], said["en"]
        assert "about" not in said["en"] and "约" not in said["zh"], said["en"]
        assert english_in_zh(said["zh"], ZH) == [], said["zh"]


@pytest.mark.parametrize("name", ["filled_max_plus_1", "added_max", "inverted_min_minus_1"])
def test_the_padding_test_says_what_was_seen_and_then_the_fill(name):
    fault, said_as = FAR[name]
    with pytest.raises(Feedback) as got:
        T.test_padding_keys_get_zero_weight(_Student({None: fault}))
    en = got.value.message["en"]
    assert en.startswith(SEEN) and "they must get exactly 0 from every head and query; the weights and the output " \
        "match " + said_as + VARIES in en, en
    assert "float('-inf')" in en


def test_a_head_with_a_far_apart_fill_beside_a_head_with_a_constant_is_said_head_by_head():
    said = _said({0: ("filled", lambda s: s.max() + 1), 1: ("added", -5.0)})
    assert said is not None
    assert "in head 0, " + FILLED + VARIES in said["en"], said["en"]
    assert "in head 1, the padding keys' scores lowered by only about 5" in said["en"], said["en"]
