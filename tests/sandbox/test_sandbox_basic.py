"""The sandbox API on correct and faulty (but not malicious) modules, and the wire protocol."""

from __future__ import annotations

import math
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

from grading.sandbox import Limits, StudentError, StudentIdle, StudentTimeout, protocol
from tests.sandbox.helpers import GOOD, TEST_LIMITS, assert_healthy, leftovers, roundtrip, wait_no_leftovers

# --------------------------------------------------------------------------- protocol (no processes)


def test_protocol_roundtrip_values():
    tensors = [torch.randn(2, 3), torch.randn(4, dtype=torch.float64), torch.randn(3).half(),
               torch.randn(2, 2).bfloat16(), torch.arange(5), torch.arange(5, dtype=torch.int32),
               torch.tensor([True, False]), torch.empty(0, 3), torch.tensor(3.5),
               torch.randn(4, 6)[:, ::2],  # non-contiguous view
               torch.randn(3, 4).t(), torch._neg_view(torch.randn(3)),  # transposed; a negated view
               torch.randn(2, 3, requires_grad=True)]
    value = {"t": tensors, "tup": (1, 2.5, None, True, "s"), "nan": float("nan"), "inf": -math.inf,
             "nested": {"D": [{"X": 1}]}}  # user dicts that look like tags stay dicts
    out = roundtrip(value)
    for a, b in zip(tensors, out["t"], strict=True):
        assert type(b) is torch.Tensor and b.dtype == a.dtype and b.shape == a.shape and b.is_contiguous()
        assert torch.equal(a.detach(), b) and not b.requires_grad
    assert out["tup"] == (1, 2.5, None, True, "s")
    assert math.isnan(out["nan"]) and out["inf"] == -math.inf
    assert out["nested"] == {"D": [{"X": 1}]}


def test_a_reader_returns_back_to_back_messages_in_order_and_each_whole():
    """The buffered reader may take in more than one message with one recv: what it holds past the
    first message is the start of the next one, never lost, never mixed in."""
    a, b = socket.socketpair()
    try:
        big = torch.randn(300_000)                                  # larger than the read buffer
        data = (protocol.encode({"seq": 1, "x": torch.arange(3)}) + protocol.encode({"seq": 2, "x": big})
                + protocol.encode({"seq": 3}))
        sender = threading.Thread(target=lambda: (a.sendall(data), a.close()))
        sender.start()
        reader = protocol.reader(b)
        first, second, third = (protocol.recv(reader) for _ in range(3))
        sender.join()
        assert first["seq"] == 1 and torch.equal(first["x"], torch.arange(3))
        assert second["seq"] == 2 and torch.equal(second["x"], big)
        assert third == {"seq": 3}
        with pytest.raises(protocol.PeerClosed):
            protocol.recv(reader)
    finally:
        b.close()


def test_protocol_decoded_tensor_owns_its_memory():
    header = b'{"v":{"X":0},"t":[{"dtype":"float32","shape":[2],"offset":0,"nbytes":8}],"n":8}'
    body = bytearray(struct.pack("<2f", 1.0, 2.0))
    t = protocol.decode(header, body)
    body[:] = b"\0" * 8
    assert t.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("bad", [
    {"dtype": "complex64", "shape": [1], "offset": 0, "nbytes": 8},    # dtype not allowed
    {"dtype": "float32", "shape": [3], "offset": 0, "nbytes": 8},      # shape vs bytes
    {"dtype": "float32", "shape": [-2], "offset": 0, "nbytes": 8},
    {"dtype": "float32", "shape": [2], "offset": 4, "nbytes": 8},      # outside the body
    {"dtype": "float32", "shape": [2.0], "offset": 0, "nbytes": 8},
    {"dtype": "bool", "shape": [8], "offset": 0, "nbytes": 8},         # bytes other than 0/1
    {"dtype": "object", "shape": [1], "offset": 0, "nbytes": 8},
])
def test_protocol_rejects_bad_tensors(bad):
    import json
    header = json.dumps({"v": {"X": 0}, "t": [bad], "n": 8}).encode()
    with pytest.raises(protocol.ProtocolError):
        protocol.decode(header, bytes(range(8)))


@pytest.mark.parametrize("descs", [
    [{"dtype": "float32", "shape": [2], "offset": 0, "nbytes": 8}] * 3,            # three names, one place
    [{"dtype": "float32", "shape": [1], "offset": 4, "nbytes": 4},                 # out of order
     {"dtype": "float32", "shape": [1], "offset": 0, "nbytes": 4}],
    [{"dtype": "float32", "shape": [1], "offset": 0, "nbytes": 4},                 # overlapping by half
     {"dtype": "float32", "shape": [1], "offset": 2, "nbytes": 4}],
    [{"dtype": "float32", "shape": [1], "offset": 4, "nbytes": 4}],                # a gap before
    [{"dtype": "float32", "shape": [1], "offset": 0, "nbytes": 4}],                # bytes nothing names
], ids=["same_bytes", "out_of_order", "overlap", "gap", "unnamed_tail"])
def test_protocol_descriptors_must_tile_the_body(descs):
    # Otherwise the decoded tensors can be thousands of times larger than the capped body.
    import json
    header = json.dumps({"v": {"T": [{"X": i} for i in range(len(descs))]}, "t": descs, "n": 8}).encode()
    with pytest.raises(protocol.ProtocolError, match="overlap|cover"):
        protocol.decode(header, bytes(8))


def test_one_descriptor_is_decoded_once_as_a_tensor_or_an_array_not_both():
    header = b'{"v":{"T":[{"X":0},{"A":0},{"X":0}]},"t":[{"dtype":"float32","shape":[2],"offset":0,"nbytes":8}],"n":8}'
    with pytest.raises(protocol.ProtocolError, match="both"):
        protocol.decode(header, bytes(8))
    same = protocol.decode(header.replace(b'{"A":0},', b''), bytes(8))
    assert same[0] is same[1]


def test_protocol_caps_checked_before_allocating():
    a, b = socket.socketpair()
    try:
        a.sendall(struct.pack(">I", 2 << 20))          # a 2 MiB header is refused before reading it
        with pytest.raises(protocol.ProtocolError, match="cap"):
            protocol.recv(b)
        hb = b'{"v":null,"t":[],"n":1099511627776}'     # 1 TiB body: refused from the header alone
        a.sendall(struct.pack(">I", len(hb)) + hb)
        with pytest.raises(protocol.ProtocolError, match="cap"):
            protocol.recv(b)
        with pytest.raises(protocol.ProtocolError):
            protocol.decode(b"[" * 100000, b"")           # deep nesting is an error, not a crash
        with pytest.raises(protocol.ProtocolError):
            protocol.encode(object())                     # never pickles
    finally:
        a.close()
        b.close()


# --------------------------------------------------------------------------- correct modules


def test_correct_module_roundtrip(executor):
    x = torch.randn(2, 3)
    with executor.session(GOOD, "good.py", "good",
                          watch={"count": ["Scale.forward"],
                                 "forbid": ["torch.nn.functional.linear", "torch.nn.functional.softmax"]}) as s:
        s.load()
        h = s.new("Scale", factor=2.0)
        out = s.call(h, "__call__", x, shift=0.5)
        assert type(out) is torch.Tensor and torch.equal(out, x * 2.0 + 0.5)
        a, b = s.call(h, "both", x)
        assert torch.equal(a, x + 1) and torch.equal(b, x - 1)
        assert s.call(h, "eval") is None
        info = s.describe(h)
        assert info["type"] == "Scale" and info["is_module"] is True and info["training"] is False
        assert info["parameters"] == {"lin.weight": [2, 3], "lin.bias": [2]}
        assert info["children"] == {"lin": {"type": "Linear", "is_linear": True, "in_features": 3, "out_features": 2,
                                            "bias": True}}
        assert info["linears"] == [{"name": "lin", "in_features": 3, "out_features": 2, "bias": True}]
        w, bias = torch.randn(2, 3), torch.randn(2)
        s.set_params(h, {"lin.weight": w, "lin.bias": bias})
        assert torch.allclose(s.call(h, "project", x), x @ w.T + bias)
        with pytest.raises(StudentError, match="shape"):
            s.set_params(h, {"lin.weight": torch.zeros(3, 3)})
        g = torch.randn(2, 3)
        (gx,) = s.grad(h, [x], {"shift": 1.0}, g, wrt=[0])
        assert torch.allclose(gx, 2.0 * g)
        stats = s.stats()
        assert stats["count"] == {"Scale.forward": 2}     # __call__ and grad
        assert stats["forbid"] == {"torch.nn.functional.linear": 1, "torch.nn.functional.softmax": 0}
    assert wait_no_leftovers(executor) == []


def test_sessions_sharing_a_reply_allowance_share_its_cap_and_each_can_still_load(executor, monkeypatch):
    # A grading's sessions share one allowance (grading.child.Budget.replies): with one each, six
    # sessions could make the worker read six times Limits.max_received.
    from grading.sandbox.client import ReplyAllowance

    # The jail is told a reply's cap and refuses a larger result itself (round 31); told
    # of no cap, it sends what a jail ignoring its cap would, which this side must refuse.
    monkeypatch.setattr(ReplyAllowance, "reply_cap", lambda self: 1 << 40)

    shared = ReplyAllowance(1 << 20)
    x = torch.zeros(180_000)                           # 720 KB a reply: one fits in 1 MiB, two do not
    with executor.session(GOOD, "good.py", "good", replies=shared) as s:
        s.load()
        assert s.call(s.new("Scale"), "__call__", x).shape == x.shape
    read = shared.spent
    assert 720_000 < read < 1 << 20
    with executor.session(GOOD, "good.py", "good", replies=shared) as s:
        s.load()                                       # small replies still fit (ReplyAllowance.FLOOR)
        h = s.new("Scale")
        with pytest.raises(StudentError) as ei:
            s.call(h, "__call__", x)
        assert ei.value.kind == "InvalidResult" and "came to more than 1 MiB in all" in ei.value.message
    assert shared.spent - read < ReplyAllowance.FLOOR
    with executor.session(GOOD, "good.py", "good") as s:   # a session of its own has its own cap
        s.load()
        assert s.call(s.new("Scale"), "__call__", x).shape == x.shape
    assert_healthy(executor)


def test_build_makes_the_object_sets_its_parameters_and_calls_eval_in_one_round_trip(executor):
    x = torch.randn(2, 3)
    w, bias = torch.randn(2, 3), torch.randn(2)
    with executor.session(GOOD, "good.py", "good") as s:
        s.load()
        before = s._seq
        h = s.build("Scale", (), {"factor": 3.0}, params={"lin.weight": w, "lin.bias": bias}, eval_mode=True)
        assert s._seq == before + 1                         # one request, one reply
        assert torch.allclose(s.call(h, "project", x), x @ w.T + bias)
        assert torch.equal(s.call(h, "__call__", x), x * 3.0)
        assert s.describe(h)["training"] is False
        plain = s.build("Scale")
        assert plain != h and s.describe(plain)["training"] is True   # no eval() unless asked
    assert wait_no_leftovers(executor) == []


def test_build_with_a_wrong_parameter_registers_nothing_and_keeps_the_session(executor):
    with executor.session(GOOD, "good.py", "good") as s:
        s.load()
        with pytest.raises(StudentError, match="parameter 'lin.weight' has shape"):
            s.build("Scale", params={"lin.weight": torch.zeros(3, 3)})
        with pytest.raises(StudentError, match="no parameter 'nope'"):
            s.build("Scale", params={"nope": torch.zeros(1)})
        h = s.build("Scale", (), {"factor": 2.0}, eval_mode=True)
        assert h == 1                                       # the failed builds left no handle
        assert torch.equal(s.call(h, "__call__", torch.ones(2)), torch.full((2,), 2.0))
    assert wait_no_leftovers(executor) == []


def test_print_is_captured(executor):
    src = "import sys\nprint('hello from the jail')\nprint('to stderr', file=sys.stderr)\n"
    with executor.session(src, "p.py", "p") as s:
        s.load()
        time.sleep(0.1)
        assert "hello from the jail" in s.output and "to stderr" in s.output


def test_jail_runs_as_unprivileged_uid_seen_from_host(executor):
    src = ("import os, time, resource\n"
           "def status():\n"
           "    keep = ('Uid', 'Gid', 'CapEff', 'NoNewPrivs', 'Seccomp', 'Groups')\n"
           "    return {l.split(':')[0]: l.split(':')[1].strip() for l in open('/proc/self/status')\n"
           "            if l.split(':')[0] in keep}\n"
           "class P:\n"
           "    def info(self):\n"
           "        return [status(), os.getpid(), resource.getrlimit(resource.RLIMIT_AS),\n"
           "                resource.getrlimit(resource.RLIMIT_CPU), sorted(os.listdir('/'))]\n"
           "    def sleep(self, t):\n"
           "        time.sleep(t)\n")
    with executor.session(src, "u.py", "u") as s:
        s.load()
        h = s.new("P")
        st, pid, rl_as, rl_cpu, root = s.call(h, "info")
        uid = int(st["Uid"].split()[0])                # one of the executor's, drawn (round 31)
        assert st["Uid"].split() == [str(uid)] * 4 and uid in executor.uids and uid >= 60000
        assert st["CapEff"] == "0000000000000000" and st["NoNewPrivs"] == "1" and st["Seccomp"] == "2"
        assert st["Groups"] == ""
        assert pid == 2       # pid 1 of its namespace is its init (round 37), where default actions are dropped
        assert rl_as == (TEST_LIMITS.memory,) * 2 and rl_cpu == (5, 6)
        venv_top = Path(sys.prefix).parts[1]       # the venv's site-packages is bound at its own path
        assert venv_top in root and "home" not in root and "etc" in root
        t = threading.Thread(target=s.call, args=(h, "sleep", 1.5))
        t.start()
        time.sleep(0.5)
        jailed = [p for p in leftovers(executor) if p["uid"] == uid]
        t.join()
    # From the host: exactly one sleeping jailed process, with the jail uid (not 0).
    assert len(jailed) == 1 and jailed[0]["stat"].startswith("S"), jailed
    out = subprocess.run(["ps", "-o", "uid=", "-p", str(jailed[0]["pid"])], capture_output=True, text=True)
    assert out.stdout.strip() in ("", str(uid))  # "" if it already exited
    assert wait_no_leftovers(executor) == []


def test_a_session_is_an_init_and_a_student_process_named_for_ps_both_children_of_the_zygote(executor):
    assert wait_no_leftovers(executor) == []
    with executor.session(GOOD, "good.py", "good") as s:
        s.load()
        seen = {}
        for p in leftovers(executor):
            out = subprocess.run(["ps", "-o", "comm=,ppid=", "-p", str(p["pid"])], capture_output=True, text=True)
            seen[p["pid"]] = out.stdout.split()
    # The jail's init (pid 1 of its namespace, round 37) and its student process (pid 2) are both the zygote's
    # children: the zygote forks the student's process into the namespace the init holds, and waits for it itself.
    assert sorted(seen.values()) == [["ag-jail", str(executor.zygote_pid)],
                                     ["ag-jail-init", str(executor.zygote_pid)]], seen
    assert wait_no_leftovers(executor) == []


def test_many_sessions_are_fast_and_clean(executor):
    times = []
    for _ in range(10):
        t0 = time.monotonic()
        with executor.session(GOOD, "good.py", "good") as s:
            s.load()
        times.append(time.monotonic() - t0)
    times.sort()
    assert times[len(times) // 2] < 0.5
    assert_healthy(executor)


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_a_session_that_cannot_start_closes_everything_it_opened_and_writes_nowhere_later():
    """The zygote is gone: opening a session fails as the sandbox's failure, leaves no descriptor
    open, and its finaliser never writes to a descriptor number that something else reuses."""
    import gc
    import os

    from grading.sandbox import Executor, SandboxUnavailable

    ex = Executor(TEST_LIMITS)
    ex.close()
    gc.collect()
    before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(SandboxUnavailable) as failed:
        ex.session(GOOD, "good.py", "good")
    pipes = [os.pipe() for _ in range(8)]    # the lowest free numbers: those the session closed
    try:
        del failed
        gc.collect()                         # the failed session is finalised now
        for r, _ in pipes:
            os.set_blocking(r, False)
            with pytest.raises(BlockingIOError):
                os.read(r, 1)                # nothing was written into a reused descriptor
    finally:
        for fds in pipes:
            for fd in fds:
                os.close(fd)
    # none of the session's descriptors is left (other tests' objects of this process may close theirs meanwhile)
    assert set(os.listdir("/proc/self/fd")) <= before


# --------------------------------------------------------------------------- faulty modules


def test_syntax_error_reports_line(executor):
    src = "import torch\n\nx = 1\ndef f(:\n    pass\n"
    with executor.session(src, "attention.py", "attention") as s:
        with pytest.raises(StudentError) as ei:
            s.load()
    assert ei.value.kind == "SyntaxError" and ei.value.lineno == 4


def test_exception_at_import_reports_type_and_line(executor):
    src = "import torch\n\n\ndef helper():\n    return {}['missing']\n\nhelper()\n"
    with executor.session(src, "attention.py", "attention") as s:
        with pytest.raises(StudentError) as ei:
            s.load()
    assert ei.value.kind == "KeyError" and ei.value.lineno == 5
    assert "missing" in ei.value.message


def test_exception_in_call_keeps_session_alive(executor):
    src = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
           "        return x @ torch.ones(7, 7)\n    def ok(self, x):\n        return x\n"
           "    def bad_type(self, x):\n        return object()\n    def exit(self):\n"
           "        raise SystemExit(3)\n")
    x = torch.ones(2, 3)
    with executor.session(src, "m.py", "m") as s:
        s.load()
        h = s.new("M")
        with pytest.raises(StudentError) as ei:
            s.call(h, "__call__", x)
        assert ei.value.kind == "RuntimeError" and ei.value.lineno == 4
        with pytest.raises(StudentError, match="returned object, expected a Tensor"):
            s.call(h, "bad_type", x)
        with pytest.raises(StudentError) as ei:
            s.call(h, "exit")
        assert ei.value.kind == "SystemExit"
        with pytest.raises(StudentError, match="no attribute"):
            s.new("Missing")
        assert torch.equal(s.call(h, "ok", x), x)


@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
def test_import_hang_times_out(executor):
    src = "import time\ntime.sleep(1000)\n"
    lim = Limits(cpu=5, wall=20, call_timeout=3, import_timeout=1.5)
    t0 = time.monotonic()
    with executor.session(src, "m.py", "m", limits=lim) as s:
        with pytest.raises(StudentTimeout) as ei:
            s.load()
        # The import limit counts CPU (round 32): a sleep is stopped by the idle watch, within its
        # window, before the wall backstop (1.5 s x 3).
        assert ei.value.during == "import" and isinstance(ei.value, StudentIdle)
        assert ei.value.seconds < lim.idle_window + 0.5
        with pytest.raises(StudentTimeout):           # a dead session stays dead
            s.new("X")
    assert time.monotonic() - t0 < 3.5
    assert_healthy(executor)


@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
def test_wall_limit_kills_the_session(executor):
    src = "import time\nclass M:\n    def nap(self, t):\n        time.sleep(t)\n"
    lim = Limits(cpu=5, wall=1.5, call_timeout=10, import_timeout=5)
    t0 = time.monotonic()
    with executor.session(src, "m.py", "m", limits=lim) as s:
        s.load()
        h = s.new("M")
        with pytest.raises(StudentTimeout):
            s.call(h, "nap", 30)
    assert time.monotonic() - t0 < 4
    assert_healthy(executor)


@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
def test_the_zygote_keeps_each_jails_wall_limit_while_it_serves_the_others(executor):
    """One loop in the zygote supervises every jail: a jail past its wall limit is killed on time
    while a second one, opened after it, keeps working, and each reports its own end."""
    src = "import time\nclass M:\n    def nap(self, t):\n        time.sleep(t)\n        return t\n"
    short = Limits(cpu=5, wall=1.5, call_timeout=10, import_timeout=5)
    t0 = time.monotonic()
    with executor.session(src, "m.py", "m", limits=short) as stuck, executor.session(src, "m.py", "m") as busy:
        stuck.load()
        busy.load()
        napping = threading.Thread(target=lambda: pytest.raises(StudentTimeout, stuck.call, stuck.new("M"), "nap", 30))
        napping.start()
        h = busy.new("M")
        answers = [busy.call(h, "nap", 0.1) for _ in range(25)]    # ~2.5 s, past the other's limit
        napping.join(timeout=10)
        assert not napping.is_alive() and answers == [0.1] * 25
        assert busy.alive
    assert time.monotonic() - t0 < 8
    assert stuck.status["status"] == "wall"
    # closed by its owner: the jail is killed, or has already ended on its own once its data socket
    # closed (which of the two the zygote sees first is a race): either way not its wall limit
    assert busy.status["status"] in ("closed", "exited")
    assert_healthy(executor)


def test_watch_forbid_counts_calls_through_any_alias(executor):
    src = ("import torch\nimport torch.nn.functional as F\nfrom torch.nn.functional import scaled_dot_product_attention as sdpa\n"
           "class A(torch.nn.Module):\n    def forward(self, q):\n        return sdpa(q, q, q)\n"
           "    def via_mha(self, q):\n        m = torch.nn.MultiheadAttention(4, 1, batch_first=True)\n"
           "        return m(q, q, q)[0]\n")
    forbid = ["torch.nn.functional.scaled_dot_product_attention", "torch._C._nn.scaled_dot_product_attention",
              "torch.nn.MultiheadAttention.forward", "torch.no_such_function"]
    q = torch.randn(1, 3, 4)
    with executor.session(src, "attention.py", "attention",
                          watch={"count": ["A.forward", "Missing.forward"], "forbid": forbid}) as s:
        s.load()
        h = s.new("A")
        assert torch.allclose(s.call(h, "__call__", q), torch.nn.functional.scaled_dot_product_attention(q, q, q))
        s.call(h, "via_mha", q)
        st = s.stats()
    assert st["count"] == {"A.forward": 1, "Missing.forward": 0}
    assert st["forbid"]["torch.nn.functional.scaled_dot_product_attention"] == 1
    assert st["forbid"]["torch.nn.MultiheadAttention.forward"] == 1
    assert sorted(st["missing"]) == ["Missing.forward", "torch.no_such_function"]


@pytest.mark.slow   # seconds each (5-10 s on a loaded host): off the fast lane's 10-minute budget (stop 46 durations run)
def test_session_used_from_a_forked_child(executor):
    """The grading runner forks a child that uses a session the parent owns: a timeout in the child
    must kill the jail even though the parent still holds the lifeline."""
    import os
    src = "import time\nclass M:\n    def spin(self):\n        while True:\n            pass\n    def ok(self):\n        return 7\n"
    with executor.session(src, "m.py", "m") as s:
        s.load()
        h = s.new("M")
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                assert s.call(h, "ok") == 7
                try:
                    s.call(h, "spin")
                except StudentTimeout:
                    code = 0
            finally:
                os._exit(code)
        _, st = os.waitpid(pid, 0)
        assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0
        assert [p for p in wait_no_leftovers(executor) if p["uid"] in executor.uids] == []
    assert_healthy(executor)


def test_site_packages_the_zygote_never_imported_are_importable(executor):
    """The venv is bound into the jail at its own path (even when it lives under /tmp, as in CI)."""
    src = "import yaml\n\nclass P:\n    def where(self):\n        return yaml.__file__\n"
    with executor.session(src, "u.py", "u") as s:
        s.load()
        assert s.call(s.new("P"), "where").startswith(sys.prefix)


def test_named_tuples_and_dict_subclasses_come_back_as_plain_containers_read_from_their_storage(executor):
    """``AttentionOutput(output, weights)`` as a NamedTuple is a correct result (it cost 34 to 72
    points when only exact tuples were accepted); a subclass's own methods are never what is read."""
    src = ("import collections\nfrom typing import NamedTuple\nimport torch\n\n"
           "class Out(NamedTuple):\n    output: torch.Tensor\n    weights: torch.Tensor\n\n"
           "class Liar(tuple):\n    def __iter__(self):\n        return iter([torch.zeros(1)])\n"
           "    def __getitem__(self, i):\n        return torch.zeros(1)\n\n"
           "class M(torch.nn.Module):\n    def forward(self, x):\n        return Out(x, x + 1)\n"
           "    def liar(self, x):\n        return Liar((x, x))\n"
           "    def ordered(self, x):\n        return collections.OrderedDict(out=x)\n")
    x = torch.ones(2, 3)
    with executor.session(src, "m.py", "m") as s:
        s.load()
        h = s.new("M")
        out = s.call(h, "__call__", x)
        assert type(out) is tuple and torch.equal(out[0], x) and torch.equal(out[1], x + 1)
        liar = s.call(h, "liar", x)
        assert type(liar) is tuple and len(liar) == 2 and torch.equal(liar[1], x)
        ordered = s.call(h, "ordered", x)
        assert type(ordered) is dict and torch.equal(ordered["out"], x)


def test_the_jail_is_the_out_of_memory_killers_first_choice_not_the_zygote(executor):
    """Round 34 review: a zygote killed by the OOM killer makes the worker retry the run; a submission that
    drove the host out of memory must lose its own jail, not the torch-sized zygote (which scores higher
    by size)."""
    with executor.session(GOOD, "good.py", "good") as s:
        s.load()
        jails = leftovers(executor)
        scores = [Path(f"/proc/{p['pid']}/oom_score_adj").read_text().strip() for p in jails]
    zygote = Path(f"/proc/{executor.zygote_pid}/oom_score_adj").read_text().strip()
    # both of the jail's processes (its init and its student process, round 37)
    assert scores == ["1000", "1000"] and zygote != "1000", (scores, zygote)
