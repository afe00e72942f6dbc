"""Round 24 of hostile submissions at the sandbox's level: the bytes a jail can make the trusted side
read, and the kernel memory it can queue outside RLIMIT_AS.

A reply written a byte at a time is one kernel buffer per byte; a read of "up to 64 KiB" kept copying
while the writer kept writing (~1 us of the reader's CPU per byte: 0.70-1.41 s of the worker's CPU per
grading). Reads now take at most what is queued when they start, the jail's end of the data socket
queues at most 32 KiB, and a message arriving in more than ``protocol.TRICKLE_READS`` small pieces is
refused. A jail makes no socket of its own (30 socketpairs queued 13 MiB with default buffers)."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import torch

from grading.sandbox import Limits, StudentError, protocol
from tests.sandbox.helpers import assert_healthy


def _one_byte_writer(sock: socket.socket, header_len: int) -> tuple[threading.Thread, list[int], threading.Event]:
    """A thread that announces a header of ``header_len`` bytes on ``sock``, then writes spaces one at a
    time until told to stop or the socket closes: the bytes it wrote, in ``written[0]``."""
    written, stop = [0], threading.Event()

    def run() -> None:
        try:
            sock.sendall(header_len.to_bytes(4, "big"))
            while not stop.is_set():
                written[0] += sock.send(b" ")
        except OSError:
            pass

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, written, stop


def _jail_end_pair() -> tuple[socket.socket, socket.socket]:
    """(the trusted end, the jail's end) as client.Session makes them."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, protocol.JAIL_SNDBUF)
    return mine, theirs


def test_a_message_written_a_byte_at_a_time_is_refused_after_a_bounded_number_of_bytes_read():
    mine, theirs = _jail_end_pair()
    mine.settimeout(10)
    rfile = protocol.reader(mine)
    writer, written, stop = _one_byte_writer(theirs, 900_000)
    deadline = time.monotonic() + 5

    def before_read() -> None:
        if time.monotonic() > deadline:
            raise TimeoutError
    t0 = time.thread_time()
    try:
        with pytest.raises(protocol.Trickled):
            protocol.recv_sized(rfile, before_read=before_read)
        cpu = time.thread_time() - t0
    finally:
        stop.set()
        rfile.close()
        mine.close()
        writer.join(5)
        theirs.close()
    print(f"{written[0]} bytes written, reader CPU {cpu * 1e3:.1f} ms")
    # Before: no refusal; the reads went on until the call's deadline. Now at most TRICKLE_READS + 1
    # reads, each of what was queued when it started: one-byte writes queue ~43 bytes in the jail's
    # buffer (the writer has written those too, and may be one byte further).
    assert written[0] <= (protocol.TRICKLE_READS + 2) * 256, written[0]


@pytest.mark.parametrize("size", [10, 10_000, 1 << 20, 6 << 20])
def test_an_honest_message_through_the_jails_small_buffer_arrives_whole_and_is_not_refused(size):
    mine, theirs = _jail_end_pair()
    mine.settimeout(10)
    rfile = protocol.reader(mine)
    value = {"seq": 1, "ok": True, "value": torch.arange(size // 4, dtype=torch.float32)}
    sender = threading.Thread(target=protocol.send, args=(theirs, value), daemon=True)
    try:
        sender.start()
        got, _ = protocol.recv_sized(rfile)
        sender.join(10)
    finally:
        rfile.close()
        mine.close()
        theirs.close()
    assert torch.equal(got["value"], value["value"])


def test_reader_closes_the_connection_only_when_both_it_and_the_socket_are_closed():
    mine, theirs = socket.socketpair()
    rfile = protocol.reader(mine)
    mine.close()
    theirs.sendall(b"\0\0\0\2{}")            # still readable through the reader
    assert rfile.read(6) == b"\0\0\0\2{}"
    rfile.close()
    theirs.settimeout(2)
    assert theirs.recv(1) == b""             # now closed
    theirs.close()


SOCKETS = '''
import socket


def make():
    """Every way of making a socket: what each one did."""
    out = {}
    for name, make in (("socketpair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)),
                       ("unix_stream", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
                       ("unix_dgram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)),
                       ("inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))):
        try:
            make()
            out[name] = "made"
        except OSError as e:
            out[name] = type(e).__name__
    return out


def data_socket():
    """The data socket's send buffer, and what asking for more did."""
    s = socket.socket(fileno=3)
    try:
        before = s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
            raised = "raised"
        except PermissionError:
            raised = "refused"
        return [before, raised, s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)]
    finally:
        s.detach()
'''


def test_a_jail_makes_no_socket_and_its_data_socket_keeps_a_small_send_buffer(executor):
    with executor.session(SOCKETS, "sockets.py", "sockets") as s:
        s.load()
        made = s.call_function("make")
        before, raised, after = s.call_function("data_socket")
    assert made == {"socketpair": "PermissionError", "unix_stream": "PermissionError",
                    "unix_dgram": "PermissionError", "inet": "PermissionError"}, made
    assert raised == "refused"
    assert before == after <= 2 * protocol.JAIL_SNDBUF, (before, after)
    assert_healthy(executor)


TRICKLER = '''
import os, struct, torch


class Model(torch.nn.Module):
    def forward(self, x):
        os.write(3, struct.pack(">I", 900000))
        while True:
            os.write(3, b" ")
'''


def test_a_reply_trickled_in_the_jail_fails_that_call_at_once_with_what_happened(executor):
    with executor.session(TRICKLER, "trickler.py", "trickler") as s:
        s.load()
        h = s.new("Model")
        t0 = time.monotonic()
        with pytest.raises(StudentError) as e:
            s.call(h, "__call__", torch.zeros(2))
        wall = time.monotonic() - t0
    assert e.value.kind == "InvalidResult"
    assert "pieces of less than" in e.value.message and "a few bytes at a time" in e.value.message
    assert wall < 1.0, f"{wall:.1f} s"        # before: the call's whole timeout (2 s here)
    assert_healthy(executor)


MANY = '''
import torch

_inner = [None] * 50_000


class Model(torch.nn.Module):
    def __init__(self, shape):
        super().__init__()
        self.shape = shape

    def forward(self, x):
        if self.shape == "flat":
            return (None,) * 1_000_000
        return [_inner] * 1000          # 50 million values, 51,000 objects
'''


@pytest.mark.parametrize("shape", ["flat", "shared"])
def test_a_result_of_millions_of_values_is_refused_before_it_is_walked(executor, shape):
    """The runtime walked the whole result before the encoder counted it: a tuple of a million Nones
    cost ~1 s of the jail's budget per call, a list holding one 50,000-long list 1000 times the call's
    whole timeout. Both are refused as the encoder refuses them, at once."""
    with executor.session(MANY, "many.py", "many") as s:
        s.load()
        h = s.new("Model", shape)
        t0 = time.monotonic()
        with pytest.raises(StudentError) as e:
            s.call(h, "__call__", torch.zeros(2))
        wall = time.monotonic() - t0
    assert (e.value.kind, e.value.message) == ("InvalidResult", "too many values")
    assert wall < 0.3, f"{wall:.2f} s"
    assert_healthy(executor)


FORGED_LENGTH = '''
import os, torch


class Model(torch.nn.Module):
    def __init__(self, length):
        super().__init__()
        self.length = length

    def forward(self, x):
        os.write(3, self.length.to_bytes(4, "big"))     # read as the reply's header length
        return x
'''


@pytest.mark.parametrize("length", [0x7FFFFFFF, (1 << 20) + 1])
def test_a_length_no_reply_may_have_is_not_said_to_be_results_over_the_gradings_allowance(executor, length):
    """Bytes written on the channel ahead of the reply (three out-of-band bytes did it too) were read as a
    header's length, and the feedback said "its results came to more than 8 MiB in all ... far more than
    the tests' inputs call for": a guess about results. A header past the 1 MiB any header may have is
    said as what it is."""
    with executor.session(FORGED_LENGTH, "forged.py", "forged") as s:
        s.load()
        h = s.new("Model", length)
        with pytest.raises(StudentError) as e:
            s.call(h, "__call__", torch.zeros(2))
    assert e.value.kind == "InvalidResult"
    assert "in all" not in e.value.message
    assert e.value.message == (f"invalid reply from the sandbox: header of {length} bytes exceeds the cap of "
                               f"{protocol.HEADER_CAP}")
    assert_healthy(executor)


NON_REENTRANT = '''
import sys, time
import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


def dynamo_imported():
    return "torch._dynamo" in sys.modules


def gradients():
    """(CPU seconds, checkpointed gradients equal to plain ones, the function's error passed on)."""
    t0 = time.process_time()
    torch.manual_seed(0)
    x = torch.randn(2, 3, requires_grad=True)
    layers = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    checkpoint(lambda t: layers(t).sin(), x, use_reentrant=False).sum().backward()
    checkpoint_sequential(layers, 2, x, use_reentrant=False).sum().backward()
    got = [x.grad.clone()] + [p.grad.clone() for p in layers.parameters()]
    spent = time.process_time() - t0
    for t in [x, *layers.parameters()]:
        t.grad = None
    layers(x).sin().sum().backward()
    layers(x).sum().backward()
    want = [x.grad] + [p.grad for p in layers.parameters()]
    try:
        checkpoint(lambda t: 1 / 0, x, use_reentrant=False)
        raised = None
    except ZeroDivisionError:
        raised = "ZeroDivisionError"
    return [spent, all(torch.allclose(a, b) for a, b in zip(got, want)), raised]


def with_dynamo_loaded():
    import torch._dynamo
    x = torch.ones(3, requires_grad=True)
    checkpoint(lambda t: t * 3, x, use_reentrant=False).sum().backward()
    return x.grad.tolist()
'''


def test_a_non_reentrant_checkpoint_computes_torchs_gradients_without_importing_the_compiler(executor):
    """It imported torch._dynamo (1.6 s of CPU at its first call; round 21 moved the import to the load of
    any source naming use_reentrant=False: 0.67-0.81 s). Now neither the load nor the call imports it."""
    with executor.session(NON_REENTRANT, "attention.py", "attention") as s:
        s.load()
        assert s.call_function("dynamo_imported") is False
        spent, same, raised = s.call_function("gradients")
        assert same is True and raised == "ZeroDivisionError"
        assert s.call_function("dynamo_imported") is False
        assert spent < 0.3, f"{spent:.2f} s of CPU"
    with executor.session(NON_REENTRANT, "attention.py", "attention", limits=Limits()) as s:
        s.load()                                          # torch's own path once the student loads dynamo
        assert s.call_function("with_dynamo_loaded") == [3.0, 3.0, 3.0]
    assert_healthy(executor)
