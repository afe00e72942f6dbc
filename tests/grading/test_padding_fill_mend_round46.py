"""Mend round 46 (review RD, MED 3): heads filled the same way with different constants ({0: -5, 1: -5.4}) were
not named: ``_fills_per_head`` put both heads in one group (the 10 % rule of ``_same_fill``), no one c gives both
heads' numbers, and the check stayed silent. Now such heads are said as a finite fill, in those heads, without a
number, and only when that was checked: each head's own constant gives its numbers (on the case and the probe), no
one c gives every head's (said "from head to head", not "from check to check": each head's number is the same on
every check). Beside a head wrong another way, the same heads were silent too (the group's one c was tried)."""

from __future__ import annotations

import pytest

from tests.grading.helpers import english_in_zh
from tests.grading.test_padding_fill_round42 import ZH
from tests.grading.test_padding_fill_round45 import _said

FILLED = "the padding keys' scores set to a finite number (scores.masked_fill(key_padding_mask, c)), "
ADDED = "a finite number added to the padding keys' scores (scores + key_padding_mask * c), "
PER_HEAD = "but the number differs from head to head: no one c gives the numbers of every head"
PER_HEAD_ZH = "但这个数在各 head 中不同：没有一个 `c` 能给出每个 head 的数值"


@pytest.mark.parametrize("faults, said_as", [
    ({0: ("filled", -5.0), 1: ("filled", -5.4)}, FILLED),
    ({0: ("filled", -3.0), 1: ("filled", -3.2)}, FILLED),
    ({0: ("added", -5.0), 1: ("added", -5.4)}, ADDED),
], ids=["filled_-5_-5.4", "filled_-3_-3.2", "added_-5_-5.4"])
def test_heads_filled_alike_with_different_constants_are_said_without_a_number(faults, said_as):
    said = _said(faults)
    assert said is not None, faults
    en, zh = said["en"], said["zh"]
    assert f"in heads 0, 1 only (the other heads block the padding keys as -inf does), {said_as}{PER_HEAD}" in en, en
    assert "check to check" not in en and "about" not in en, en
    assert "float('-inf')" in en and PER_HEAD_ZH in zh and "各次检查" not in zh, zh
    assert english_in_zh(zh, ZH) == [], zh


def test_heads_filled_alike_beside_a_head_wrong_another_way_are_said_head_by_head_not_check_to_check():
    said = _said({0: ("filled", -5.0), 1: ("filled", -5.4), 2: ("added", 0.0)})
    assert said is not None
    en = said["en"]
    assert en.startswith("the heads are wrong in different ways: "), en
    assert f"in heads 0, 1, {FILLED}{PER_HEAD}" in en, en
    assert "check to check" not in en, en
    assert "in head 2, the padding keys' scores left as they are" in en, en


def test_heads_with_one_constant_are_still_said_with_its_number():
    said = _said({0: ("filled", -5.0), 1: ("filled", -5.0)})
    assert said is not None
    assert "in heads 0, 1 only (the other heads block the padding keys as -inf does), the padding keys' scores " \
        "set to about -5 (scores.masked_fill(key_padding_mask, -5))" in said["en"], said["en"]
