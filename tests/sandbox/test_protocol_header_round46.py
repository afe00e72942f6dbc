"""Round 46 (brief D 4): ``encode`` counts every string into the header's size at one place, exact ``str`` and its
subclasses alike (two checks stood beside the running total, one per branch). A tidy-up: these pin the behaviour the
one check keeps (they passed before it too)."""

from __future__ import annotations

import pytest

from grading.sandbox import protocol

S = type("S", (str,), {})


@pytest.mark.parametrize("first, second", [(str, S), (S, str), (S, S), (str, str)])
def test_exact_strings_and_subclasses_count_into_one_running_total_of_the_header(first, second):
    half = 600
    with pytest.raises(protocol.ProtocolError, match="message header larger than 1024 bytes"):
        protocol.encode({"a": first("x" * half), "b": [second("y" * half)]}, header_cap=1024)
    # each alone is under the cap, and the pair without the cap is sent as it was
    assert protocol.encode({"a": first("x" * half)}, header_cap=1024)
    assert protocol.encode({"a": first("x" * half), "b": [second("y" * half)]})


def test_a_string_subclass_key_and_value_both_count():
    with pytest.raises(protocol.ProtocolError, match="message header larger than 100 bytes"):
        protocol.encode({S("k" * 60): S("v" * 60)}, header_cap=100)


def test_plain_values_and_strings_are_encoded_as_before():
    """None, bools, ints, floats and strings (exact or subclass) reach the header as the same JSON."""
    value = {"n": None, "t": True, "i": 3, "f": 1.5, "s": "text", "u": S("sub"), "b": [False, 2, "x"]}
    assert protocol.encode(value, header_cap=1024) == protocol.encode(value)
    header = protocol.encode(value)
    for token in (b'"n":null', b'"t":true', b'"i":3', b'"f":1.5', b'"s":"text"', b'"u":"sub"'):
        assert token in header.replace(b" ", b"")
