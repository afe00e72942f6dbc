"""Round 45 mend, review RC MED 2, MED 3 and LOW 4: the jail's side of the wire still read objects a student's module
can rebind at import (``socket.socket``, ``torch.Tensor``, ``torch.Tensor.dtype``, ``ctypes._string_at``), and its
refusal of a header's strings before they are escaped was per string: many strings each under the cap were all
escaped (30-60 MiB per call, 14-26 s of a grading's wall) and refused only after."""

from __future__ import annotations

import ctypes
import socket
import time

import pytest
import torch

from grading.sandbox import protocol


def _round_trip(value, **kw):
    data = protocol.encode(value, **kw)
    hlen = protocol._LEN.unpack(data[:4])[0]
    return protocol.decode(data[4:4 + hlen], data[4 + hlen:])


@pytest.mark.parametrize("guard", [object, lambda *a, **k: None])
def test_a_request_is_read_with_socket_socket_rebound_by_a_no_network_guard(guard, monkeypatch):
    """Before: ``isinstance(src, socket.socket)`` at each read raised TypeError or read through the wrong path:
    the jail's loop ended ("stopped answering", 0 of 85)."""
    a, b = socket.socketpair()
    with a, b:
        reader = protocol.jail_reader(b)
        monkeypatch.setattr(socket, "socket", guard)
        protocol.send_all(a, protocol.encode({"seq": 7, "x": torch.arange(4.0)}))
        got = protocol.recv(reader)
        monkeypatch.undo()
    assert got["seq"] == 7 and torch.equal(got["x"], torch.arange(4.0))


def test_a_reply_is_written_and_read_with_torch_tensor_rebound(monkeypatch):
    x = torch.arange(6.0).reshape(2, 3)
    monkeypatch.setattr(torch, "Tensor", type("Fake", (), {}))
    got = _round_trip({"out": x, "w": (x * 2,)})
    monkeypatch.undo()
    assert torch.equal(got["out"], x) and torch.equal(got["w"][0], x * 2)


def test_the_runtime_tells_tensors_by_the_class_it_saw_before_student_code(monkeypatch):
    from grading.sandbox import runtime

    x = torch.ones(2)
    monkeypatch.setattr(torch, "Tensor", type("Fake", (), {}))
    keyed = runtime._snapshot([x], {})
    monkeypatch.undo()
    assert [k for k, _, _ in keyed] == [0]


def test_a_tensors_dtype_and_shape_are_read_through_the_c_type_not_torch_tensors_attributes(monkeypatch):
    """Before: ``torch.Tensor.dtype = property(lambda s: torch.float64)`` made every reply invalid (0 of 85)."""
    x = torch.arange(6.0).reshape(2, 3)
    monkeypatch.setattr(torch.Tensor, "dtype", property(lambda s: torch.float64))
    monkeypatch.setattr(torch.Tensor, "shape", property(lambda s: torch.Size([1])))
    monkeypatch.setattr(torch.Tensor, "numel", lambda s: 1)
    got = _round_trip({"out": x})
    monkeypatch.undo()
    assert got["out"].dtype == torch.float32 and torch.equal(got["out"], x)


def test_the_slow_paths_bytes_are_read_through_ctypes_c_function_not_its_module_attribute(monkeypatch):
    """A negative view goes by the copy through ``string_at``; ``ctypes._string_at`` replaced zeroed it (19 -> 14)."""
    x = torch.arange(1.0, 7.0)
    neg = torch._neg_view(x)
    monkeypatch.setattr(ctypes, "_string_at", lambda p, n=-1: b"\0" * n)
    got = _round_trip({"out": neg, "h": x.to(torch.bfloat16)})
    monkeypatch.undo()
    assert torch.equal(got["out"], -x) and torch.equal(got["h"].float(), x)


@pytest.mark.parametrize("value", [{"a": ("y" * ((1 << 20) - 64),) * 60}, ["x" * ((1 << 20) - 64)] * 30,
                                   {("k" * (1 << 19)) + str(i): 1 for i in range(4)}])
def test_many_strings_each_under_the_header_cap_are_refused_before_any_is_written_out(value):
    """Before: each string under the cap was escaped (30-60 MiB, ~0.1-0.3 s here; 14-26 s of a grading's wall in
    the jail) and the header refused after."""
    t0 = time.process_time()
    with pytest.raises(protocol.ProtocolError, match="message header larger than 1048576 bytes"):
        protocol.encode(value, header_cap=protocol.HEADER_CAP)
    assert time.process_time() - t0 < 0.01


def test_strings_under_the_header_cap_in_all_are_still_sent():
    value = {"a": ["x" * 1000] * 500, "b": "y" * 400_000}
    assert _round_trip(value, header_cap=protocol.HEADER_CAP) == value
