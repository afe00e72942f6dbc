"""What one request to a jail costs each side (issue 14 item 1, round 35): system calls and copies
that were made in every request and guarded nothing. The guarantees they sat next to (the call's
time bounds the whole reply, a trickled reply is stopped, in-place changes of the inputs are told)
are the other sandbox tests'."""

from __future__ import annotations

import socket
import threading

import pytest
import torch

from grading.sandbox import protocol, runtime
from tests.sandbox.helpers import GOOD


class _CountingSocket(socket.socket):
    """A socket that counts its reads (``recv_into``: what protocol's readers call) and timeouts set."""

    __slots__ = ()      # the layout of socket.socket: a session's socket can be made one (__class__)
    reads = 0
    timeouts_set = 0

    def recv_into(self, *args, **kwargs):
        type(self).reads += 1
        return super().recv_into(*args, **kwargs)

    def settimeout(self, value):
        type(self).timeouts_set += 1
        return super().settimeout(value)


def test_the_jails_serving_loop_reads_each_request_with_one_read_and_no_fionread(monkeypatch):
    # Before: a FIONREAD, a one-byte peek that waits, a second FIONREAD and the read: four system
    # calls per request, for requests the trusted side writes whole.
    queued = []
    real_queued = protocol._queued
    monkeypatch.setattr(protocol, "_queued", lambda sock: queued.append(sock) or real_queued(sock))

    class JailEnd(_CountingSocket):
        reads = 0

    # The jail reads through protocol's private reference to the C socket's recv_into (round 45: a student's
    # socket.socket.recv_into replaced at import no longer reaches it), so the reads are counted there.
    real_recv_into = protocol._RECV_INTO

    def counted(sock, *args):
        if sock is jail_end:
            JailEnd.reads += 1
        return real_recv_into(sock, *args)

    monkeypatch.setattr(protocol, "_RECV_INTO", counted)
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    jail_end = JailEnd(fileno=theirs.detach())
    server = threading.Thread(target=runtime.Runtime().serve, args=(jail_end, 1 << 20), daemon=True)
    server.start()
    mine.settimeout(10)
    rfile = protocol.reader(mine)
    try:
        for seq in range(1, 21):
            protocol.send(mine, {"op": "stats", "seq": seq, "cap": [1 << 20, 1 << 20]})
            reply = protocol.recv(rfile)
            assert reply["ok"] is True and reply["seq"] == seq
        # 20 requests; JailEnd counts its own reads only (the trusted end is a plain socket). The serving loop may
        # already be in its read of a 21st request when the 20th reply arrives here: counted as it starts.
        assert 20 <= JailEnd.reads <= 21, JailEnd.reads
        assert not [sock for sock in queued if sock is jail_end]   # the trusted end's reader asks, the jail's not
    finally:
        rfile.close()
        mine.close()
        server.join(timeout=5)
    assert not server.is_alive()


def test_a_request_answered_at_once_sets_the_socket_timeout_once(executor):
    # Before: once for the send and again before each of the reply's three reads (length, header,
    # body), each an ioctl, though only a read that waits uses it.
    with executor.session(GOOD) as s:
        s.load()
        h = s.new("Scale", 3.0)
        x = torch.ones(2, 3)
        s.call(h, "forward", x)
        s._sock.__class__ = _CountingSocket
        _CountingSocket.timeouts_set = 0
        for _ in range(10):
            assert torch.equal(s.call(h, "forward", x), x * 3.0)
        # a read that had to wait sets it again (the jail answered after the reply was looked for)
        assert 10 <= _CountingSocket.timeouts_set <= 12


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("inplace", [False, True])
def test_a_calls_tensor_arguments_are_compared_before_and_after_without_torch_copies(monkeypatch, inplace, dtype):
    # Before: reshape, contiguous, view and clone of each tensor argument before the call, and again after
    # it with torch.equal (~10 torch calls per argument, in every call). Now one bytes copy each by NumPy;
    # torch's path only for what NumPy cannot hold (bfloat16), and what was changed in place is still told.
    source = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, a, b, scale=None):\n"
              + ("        a.mul_(2)\n" if inplace else "") + "        return a + b\n")
    rt = runtime.Runtime()
    rt.op_load({"source": source, "filename": "m_round35.py", "module_name": "m_round35", "watch": {}})
    h = rt.op_new({"name": "M", "args": [], "kwargs": {}})
    copies = []
    real_clone = torch.Tensor.clone
    monkeypatch.setattr(torch.Tensor, "clone", lambda t, *a, **k: copies.append(1) or real_clone(t, *a, **k))
    args, kwargs = [torch.ones(3, dtype=dtype), torch.ones(3, dtype=dtype)], {"scale": torch.ones(1, dtype=dtype)}
    out = rt.op_call({"handle": h, "method": "__call__", "args": args, "kwargs": kwargs})
    assert copies == [] or dtype == torch.bfloat16
    assert rt.changed == ([0] if inplace else [])
    assert torch.equal(out, torch.full((3,), 3.0 if inplace else 2.0, dtype=dtype))
