"""Hostile submissions (tests/fixtures/submissions/abuse/): each must be contained, the trusted side must
get a clean error, timeout or death, nothing may be left running, and a correct module must work right
after."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
import torch

from grading.sandbox import (
    Executor,
    Limits,
    SandboxDied,
    SandboxUnavailable,
    StudentError,
    StudentIdle,
    StudentTimeout,
)
from tests.sandbox.helpers import TEST_LIMITS, abuse_source, assert_healthy, processes, wait_no_leftovers

PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
X = torch.arange(6, dtype=torch.float32).reshape(2, 3)


def open_session(ex, name, limits=None):
    return ex.session(abuse_source(name), name, name[:-3], limits=limits)


def test_fork_flood(executor):
    with open_session(executor, "fork_flood.py") as s:
        s.load()
        h = s.new("Probe")
        res = s.call(h, "results")
        for way in ("fork", "posix_spawn", "subprocess", "system"):
            assert res[way] != "succeeded", (way, res[way])
        assert "PermissionError" in res["fork"]
        with pytest.raises(StudentError) as ei:
            s.call(h, "bomb")
        assert ei.value.kind == "PermissionError"
    assert_healthy(executor)


def test_thread_flood_is_capped_and_dies_with_the_session(executor):
    with open_session(executor, "thread_flood.py") as s:
        s.load()
        h = s.new("Probe")
        err, started = s.call(h, "flood")
        assert "can't start new thread" in err or "RuntimeError" in err or "MemoryError" in err
        assert started < TEST_LIMITS.nproc
        assert torch.equal(s.call(h, "__call__", X), X + 1)      # the jail still answers
    assert_healthy(executor)


@pytest.mark.parametrize("method", ["bytes_hog", "tensor_hog", "touch_hog"])
def test_memory_hog(executor, method):
    with open_session(executor, "memory_hog.py") as s:
        s.load()
        h = s.new("Hog")
        with pytest.raises((StudentError, SandboxDied)) as ei:
            s.call(h, method)
        if isinstance(ei.value, StudentError):
            assert ei.value.kind in ("MemoryError", "RuntimeError"), ei.value
            assert torch.equal(s.call(h, "__call__", X), X * 2)   # memory came back
    assert_healthy(executor)


def test_disk_filler(executor):
    with open_session(executor, "disk_filler.py") as s:
        s.load()
        h = s.new("Filler")
        status, written = s.call(h, "big_file")
        assert status != "ok" and written <= TEST_LIMITS.fsize        # EFBIG at RLIMIT_FSIZE
        status, written = s.call(h, "many_files")
        assert status != "ok" and "No space left" in status and written <= TEST_LIMITS.tmp
        elsewhere = s.call(h, "elsewhere")
        for path, result in elsewhere.items():
            assert result != "ok", path
            assert "Read-only" in result or "No such file" in result or "Permission" in result, (path, result)
        assert torch.equal(s.call(h, "__call__", X), X * 2)
    for path in ("/big", "/tmp/big", "/tmp/f0", os.path.join(PROJECT, "big")):
        assert not os.path.exists(path), path
    assert_healthy(executor)


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_stdout_flood_is_capped(executor):
    with open_session(executor, "stdout_flood.py") as s:
        s.load()
        h = s.new("Flood")
        t0 = time.monotonic()
        out = s.call(h, "__call__", X)
        assert torch.equal(out, X * 2)
        assert time.monotonic() - t0 < TEST_LIMITS.call_timeout
        text = s.output
        assert len(text) <= TEST_LIMITS.output + 200 and "discarded" in text
        # Past half the output limit (40 MB printed) the jail writes to /dev/null from its next request
        # on (round 32): printing forever then costs the worker nothing, and meets the call's CPU limit.
        # A session that has not printed half the limit is stopped at the limit
        # (test_sandbox_output_round32).
        with pytest.raises(StudentTimeout) as ei:
            s.call(h, "forever")
        assert ei.value.clock == "cpu" and s.quieted
        assert len(s.output) <= TEST_LIMITS.output + 200
    assert_healthy(executor)


@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
def test_infinite_loop_ignoring_signals_times_out(executor):
    with open_session(executor, "infinite_loop.py") as s:
        s.load()
        h = s.new("Spin")
        t0 = time.monotonic()
        with pytest.raises(StudentTimeout) as ei:
            s.call(h, "__call__", X)
        # The call's limit counts CPU (round 32): a loaded host makes it take longer, never past the
        # wall backstop.
        assert ei.value.seconds == TEST_LIMITS.call_timeout and ei.value.clock == "cpu"
        assert time.monotonic() - t0 < TEST_LIMITS.call_timeout * TEST_LIMITS.wall_backstop + 1
        with pytest.raises(StudentTimeout):
            s.call(h, "__call__", X)                            # dead stays dead
    assert_healthy(executor)


@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
def test_cpu_limit_kills_spinning_import(executor):
    lim = Limits(cpu=1, wall=20, call_timeout=3, import_timeout=10)
    t0 = time.monotonic()
    with open_session(executor, "import_spin.py", limits=lim) as s:
        with pytest.raises(SandboxDied, match="CPU time limit"):
            s.load()
    # The CPU limit (1 s of CPU), not the import timeout, ended it: on a loaded host 1 s of CPU
    # can take several seconds of wall time, so the bound is the timeout it must beat.
    assert time.monotonic() - t0 < lim.import_timeout
    assert_healthy(executor)


def test_left_behind_daemon(executor):
    with open_session(executor, "daemon.py") as s:
        s.load()
        h = s.new("Model")
        fork, beating = s.call(h, "info")
        assert "PermissionError" in fork and beating is True
        assert torch.equal(s.call(h, "__call__", X), X * 2)
    assert not os.path.exists("/tmp/heartbeat")
    assert_healthy(executor)


def test_network_is_unreachable(executor):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind(b"\0autograder-sandbox-test")
    abstract.listen(1)
    try:
        with open_session(executor, "network.py") as s:
            s.load()
            res = s.call(s.new("Net"), "probe", listener.getsockname()[1])
    finally:
        listener.close()
        abstract.close()
    for name, result in res.items():
        assert result != "connected", (name, result)
    # No socket at all (round 24): unix ones too, abstract (its own network namespace) or by path.
    for name in ("redis", "host_listener", "inet6", "udp", "raw", "netlink", "packet", "unix_abstract", "unix_path"):
        assert "PermissionError" in res[name], (name, res[name])
    assert_healthy(executor)


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_secrets_are_out_of_reach(executor, monkeypatch):
    # Secrets in the trusted process's environment *before* the Executor starts (as in a worker that
    # has DATABASE_URL from its unit file): the zygote must start from a clean environment.
    monkeypatch.setenv("SECRET_KEY", "sk-trusted-side-only-1234")
    monkeypatch.setenv("DATABASE_URL", "postgresql://grader:hunter2@db/grades")
    with Executor(TEST_LIMITS) as ex:
        with open_session(ex, "steal_secrets.py") as s:
            s.load()
            loot = s.call(s.new("Spy"), "loot", PROJECT)
    blob = repr(loot)
    for secret in ("sk-trusted-side-only-1234", "hunter2", "SECRET_KEY", "DATABASE_URL", "root:"):
        assert secret not in blob, secret
    assert set(loot["environ"]) <= {"PATH", "HOME", "LANG", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
    for path in ("/etc/shadow", "/etc/passwd", "/etc/hostname", "/root/.bashrc", "/root/.ssh/id_rsa",
                 f"{PROJECT}/pyproject.toml", f"{PROJECT}/docs/contracts.md", f"{PROJECT}/.env",
                 f"{PROJECT}/grader_tests/__init__.py"):
        assert loot[path] in ("FileNotFoundError", "PermissionError"), (path, loot[path][:100])
    # Pid 1 is the jail's init (round 37), hidden from the student's process (hidepid): not the host init either.
    assert loot["/proc/1/environ"] == "FileNotFoundError"
    assert loot["ls /proc"] == [p for p in loot["ls /proc"] if not p.isdigit() or p == "2"]
    assert set(loot[f"ls {PROJECT}"]) <= {".venv"}                   # only the bound site-packages path
    assert loot[f"ls {PROJECT}/grader_tests"] == "FileNotFoundError"
    assert loot["ls /root"] == [".pyenv"] and loot["ls /home"] == "FileNotFoundError"
    assert loot["ls /etc"] == ["ld.so.cache"] and loot["ls /run"] == "FileNotFoundError"
    assert_healthy(executor)


def test_killing_the_parent_harms_nothing_outside(executor):
    zygote = executor.zygote_pid
    with open_session(executor, "kill_parent.py") as s:
        s.load()
        h = s.new("Killer")
        try:
            res = s.call(h, "kill_all")
            assert res["ppid"] == 0                 # the supervisor is outside the jail's pid namespace
            assert torch.equal(s.call(h, "__call__", X), X * 2)
        except SandboxDied:
            pass                                    # killing itself is allowed; nothing else is
    os.kill(zygote, 0)
    assert executor.alive
    assert_healthy(executor)


def test_monkeypatching_torch_stays_in_the_jail(executor):
    real_allclose, real_equal, real_eq = torch.allclose, torch.equal, torch.Tensor.__eq__
    with open_session(executor, "monkeypatch_torch.py") as s:
        s.load()
        h = s.new("Cheat")
        assert s.call(h, "check") == [True, True]          # patched inside the jail
        out = s.call(h, "__call__", X)
    assert torch.allclose is real_allclose and torch.equal is real_equal and torch.Tensor.__eq__ is real_eq
    assert not torch.allclose(out, X * 2) and torch.equal(out, torch.zeros_like(X))
    assert_healthy(executor)


def test_lying_tensor_subclass_arrives_as_plain_tensor(executor):
    with open_session(executor, "lying_tensor.py") as s:
        s.load()
        h = s.new("Model")
        out = s.call(h, "__call__", X)
        assert type(out) is torch.Tensor and torch.equal(out, torch.zeros_like(X))
        assert not torch.equal(out, X) and out.tolist() == [[0.0] * 3] * 2
        a, b = s.call(h, "pair", X)
        assert type(a) is torch.Tensor and type(b) is torch.Tensor and torch.equal(b, X)
        with pytest.raises(StudentError, match="returned Fake, expected a Tensor"):
            s.call(h, "not_a_tensor", X)
    assert_healthy(executor)


def test_fake_results_and_forged_replies(executor):
    with open_session(executor, "fake_results.py") as s:
        try:
            s.load()
            h = s.new("Model")
            value = s.call(h, "__call__", X)
            assert type(value) is torch.Tensor        # whatever arrives is data, never a verdict
        except StudentError as e:
            assert e.kind == "InvalidResult"
            with pytest.raises(StudentError):
                s.new("Model")                         # the desynchronised session is dead
    for path in ("/tmp/result.json", f"{PROJECT}/result.json", "/results.json", "/var/lib/autograder/result.json"):
        assert not os.path.exists(path), path
    assert_healthy(executor)


def test_descriptors_naming_the_same_bytes_are_refused_before_anything_is_decoded(executor):
    # 4096 descriptors over one 256 KiB body: decoded one by one, 1 GiB in the trusted process.
    # With the default limits the 4096 tensors already weigh 64 MiB (protocol.TENSOR_WEIGHT), more
    # than a session's replies may; with room for them, the overlap is what refuses them.
    roomy = dataclasses.replace(executor.limits, max_received=1 << 30, max_message=1 << 30)
    for limits, refusal in ((None, "came to more than"), (roomy, "overlap")):
        with open_session(executor, "overlapping_descriptors.py", limits) as s:
            with pytest.raises(StudentError) as ei:
                s.load()
            assert ei.value.kind == "InvalidResult" and refusal in ei.value.message
            with pytest.raises(StudentError):
                s.new("Model")
    assert_healthy(executor)


@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
def test_a_reply_trickled_byte_by_byte_is_stopped_by_the_idle_window(executor):
    with open_session(executor, "trickled_reply.py") as s:
        s.load()
        h = s.new("Model")
        t0 = time.monotonic()
        with pytest.raises(StudentIdle) as ei:
            s.call(h, "__call__", X)
        elapsed = time.monotonic() - t0
        # A trickle uses no CPU: since round 33 the wait for the rest of a reply is watched as the wait for its
        # first byte, so the idle window stops it (round 32: the call's wall backstop; before: the session's
        # wall limit).
        assert ei.value.partial and "only part of the reply arrived" in str(ei.value)
        backstop = executor.limits.call_timeout * executor.limits.wall_backstop
        assert elapsed < backstop, elapsed
    assert_healthy(executor)


def test_exit_at_import(executor):
    with open_session(executor, "exit_at_import.py") as s:
        with pytest.raises(SandboxDied, match="exited with code 0"):
            s.load()
        with pytest.raises(SandboxDied):
            s.new("Anything")
    assert_healthy(executor)


def test_exit_mid_call(executor):
    with open_session(executor, "exit_mid_call.py") as s:
        s.load()
        h = s.new("Model")
        with pytest.raises(SandboxDied, match="exited with code 0"):
            s.call(h, "__call__", X)
    assert_healthy(executor)


def test_segfault(executor):
    with open_session(executor, "segfault.py") as s:
        s.load()
        h = s.new("Model")
        with pytest.raises(SandboxDied, match="SIGSEGV"):
            s.call(h, "__call__", X)
    assert_healthy(executor)


def test_oversized_and_odd_results(executor):
    lim = Limits(cpu=5, wall=20, call_timeout=3, import_timeout=5, max_message=8 << 20)
    with open_session(executor, "huge_result.py", limits=lim) as s:
        s.load()
        h = s.new("Model")
        with pytest.raises(StudentError) as ei:
            s.call(h, "__call__", X)
        assert ei.value.kind == "InvalidResult" and "larger than" in ei.value.message
        with pytest.raises(StudentError, match="expected a Tensor"):
            s.call(h, "nested")
        with pytest.raises(StudentError, match="dtype"):
            s.call(h, "complex_dtype")
    assert_healthy(executor)


def _nap_in_background(session):
    h = session.new("M")
    errors = []

    def nap():
        try:
            session.call(h, "nap")
        except (SandboxDied, StudentTimeout, SandboxUnavailable) as e:
            errors.append(e)

    t = threading.Thread(target=nap)
    t.start()
    time.sleep(0.3)
    return t, errors


NAPPER = "import time\nclass M:\n    def nap(self):\n        time.sleep(60)\n"


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
def test_executor_close_kills_running_jails():
    """Closing an Executor mid-session leaves nothing behind (its own Executor, slot != module's)."""
    ex = Executor(TEST_LIMITS)
    s = ex.session(NAPPER, "m.py", "m")
    s.load()
    t, errors = _nap_in_background(s)
    ex.close()
    t.join(timeout=10)
    assert not t.is_alive() and len(errors) == 1 and isinstance(errors[0], SandboxDied)
    assert wait_no_leftovers(ex, timeout=5) == []
    s.close()
    assert _gone(ex.zygote_pid)


@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
def test_zygote_death_kills_jails_and_is_reported():
    ex = Executor(TEST_LIMITS)
    try:
        s = ex.session(NAPPER, "m.py", "m")
        s.load()
        t, errors = _nap_in_background(s)
        os.kill(ex.zygote_pid, signal.SIGKILL)
        t.join(timeout=10)
        assert len(errors) == 1 and isinstance(errors[0], SandboxDied)
        assert wait_no_leftovers(ex, timeout=5) == []
        s.close()
        with pytest.raises(SandboxUnavailable):
            ex.session(NAPPER, "m.py", "m")
    finally:
        ex.close()


@pytest.mark.slow  # two torch imports in a fresh process: ~5 s on a busy 2-core machine
def test_trusted_process_death_kills_everything(tmp_path):
    """SIGKILL the trusted process mid-call: zygote, supervisor and jail all go away."""
    script = tmp_path / "trusted.py"
    script.write_text(
        "import os, sys, time\n"
        "from grading.sandbox import Executor, Limits\n"
        "ex = Executor(Limits(wall=60, call_timeout=60))\n"
        f"s = ex.session({NAPPER!r}, 'm.py', 'm')\n"
        "s.load()\n"
        "h = s.new('M')\n"
        "print(ex.zygote_pid, ','.join(map(str, ex.uids)), flush=True)\n"
        "s.call(h, 'nap')\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        zygote, listed = proc.stdout.readline().split()
        zygote, uids = int(zygote), {int(u) for u in listed.split(",")}   # the jail's is drawn among them
        time.sleep(0.3)
        assert any(p["uid"] in uids for p in processes())
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        left = [p for p in processes() if p["uid"] in uids or p["pid"] == zygote or p["ppid"] == zygote]
        if not left:
            break
        time.sleep(0.05)
    assert left == []
