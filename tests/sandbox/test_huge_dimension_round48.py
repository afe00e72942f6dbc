"""Round 48: a result with a dimension past what a reply may carry (``protocol.MAX_DIM``, 2^40) is told by its shape, in
English and Chinese. Before, a zero-element ``torch.empty(0, 2**62)`` returned from forward was told NumPy's words
("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size"): the encoder copied its
bytes through ``Tensor.numpy()``, whose dimensions' product overflows, before any check of the shape.
"""

from __future__ import annotations

import pytest
import torch

from grading.proxy import student_error_text
from grading.sandbox import StudentError, protocol
from tests.sandbox.helpers import assert_healthy
from tests.sandbox.test_sandbox_round35 import _call, _in_forward


@pytest.mark.parametrize("value, said", [
    (torch.empty(0, 2 ** 62), "a tensor of shape [0, 2^62]: its dimension of 2^62 is more than the 2^40"),
    (torch.empty(2 ** 40 + 1, 0), f"a tensor of shape [{2 ** 40 + 1}, 0]: its dimension of {2 ** 40 + 1} is more"),
    ((torch.ones(2), torch.empty(3, 0, 2 ** 50)), "a tensor of shape [3, 0, 2^50]: its dimension of 2^50"),
], ids=["two_to_the_62", "one_past_the_cap", "the_second_of_two"])
def test_the_encoder_refuses_a_dimension_past_the_readers_cap_in_its_own_words(value, said):
    with pytest.raises(protocol.ProtocolError) as refused:
        protocol.encode(value)
    assert said in str(refused.value), str(refused.value)
    assert "too big" not in str(refused.value)


def test_a_dimension_at_the_cap_and_a_zero_element_shape_whose_product_overflows_numpy_still_travel():
    # 0 x 2^40 x 2^22 (float32): NumPy's size check overflows ("array is too big"); torch's own copy sends no bytes
    for value in (torch.empty(0, protocol.MAX_DIM), torch.empty(0, 1 << 40, 1 << 22)):
        data = protocol.encode(value)
        n = protocol._LEN.unpack(data[:protocol._LEN.size])[0]
        back = protocol.decode(data[protocol._LEN.size:protocol._LEN.size + n], data[protocol._LEN.size + n:])
        assert back.shape == value.shape and back.numel() == 0


def test_forward_returning_a_dimension_of_two_to_the_62_is_told_its_shape_in_both_languages(executor):
    with pytest.raises(StudentError) as raised:
        _call(executor, _in_forward("return torch.empty(0, 2 ** 62)"))
    told = student_error_text("forward", raised.value, "m.py")
    assert told["en"] == ("forward returned something the grader could not carry out of the sandbox: a tensor of "
                          "shape [0, 2^62]: its dimension of 2^62 is more than the 2^40 a reply may carry"), told
    assert told["zh"] == ("forward 返回的内容无法从沙箱传回评分系统：一个 shape 为 [0, 2^62] 的 tensor：其中一维为 2^62，"
                          "超过一次回复可携带的上限 2^40"), told
    assert_healthy(executor)
