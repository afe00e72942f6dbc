"""Which channel says what: a sandbox failure is only ever reported by the supervisor, from what the
jail wrote before any student code ran; whatever the submission writes is the submission's doing."""

from __future__ import annotations

import os
import resource

import pytest
import torch

from grading.sandbox import SandboxDied, SandboxUnavailable, StudentError
from tests.sandbox.helpers import GOOD, abuse_source, assert_healthy

RANDOM = '''
import torch


class Draw(torch.nn.Module):
    def forward(self, x):
        return torch.rand(8) + torch.nn.functional.dropout(x, 0.5, training=True)
'''


def test_a_forged_setup_error_on_the_data_socket_is_the_students_own_failure(executor):
    with executor.session(abuse_source("forged_setup_error.py"), "attention.py", "attention") as s:
        with pytest.raises((StudentError, SandboxDied)) as ei:
            s.load()
    assert not isinstance(ei.value, SandboxUnavailable)
    assert "contact your instructor" not in str(ei.value)
    assert_healthy(executor)


def test_a_real_jail_setup_failure_is_reported_as_sandbox_unavailable(executor):
    # A uid outside the jail range makes the jail's own setup refuse to continue (trusted side).
    real_uid = executor.uid
    executor.uid = 1
    try:
        session = executor.session(GOOD, "good.py", "good")
    finally:
        executor.uid = real_uid
    with session, pytest.raises(SandboxUnavailable, match="jail setup failed: ValueError: uid 1 outside"):
        session.load()
    assert_healthy(executor)


def test_two_sessions_do_not_share_random_draws(executor):
    """Jails fork from one zygote; each is seeded afresh, so dropout differs between sessions."""
    x = torch.ones(8)
    outs = []
    for _ in range(2):
        with executor.session(RANDOM, "draw.py", "draw") as s:
            s.load()
            outs.append(s.call(s.new("Draw"), "__call__", x))
    assert not torch.equal(outs[0], outs[1])


CHANNELS = '''
import os, socket, signal

def leave(secret):
    """Leave ``secret`` wherever another jail of the same uid might find it."""
    left = []
    for folder in ("/tmp", "/dev/shm", "/var/tmp", "/run"):
        try:
            with open(os.path.join(folder, "drop"), "w") as f:
                f.write(secret)
            left.append(folder)
        except OSError:
            pass
    global _server
    try:
        _server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _server.bind("\\0lane-drop")
        _server.listen(1)
        left.append("abstract socket")
    except OSError:
        pass
    return left

def find():
    """What this jail can see of the other one: files, an abstract socket, its processes."""
    found = []
    for folder in ("/tmp", "/dev/shm", "/var/tmp", "/run"):
        try:
            with open(os.path.join(folder, "drop")) as f:
                found.append(folder + ": " + f.read())
        except OSError:
            pass
    try:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect("\\0lane-drop")
        found.append("abstract socket")
    except OSError:
        pass
    found += [p for p in os.listdir("/proc") if p.isdigit() and p != str(os.getpid())]   # pid 2 since round 37
    return found
'''


def test_two_jails_open_at_once_cannot_reach_each_other(executor):
    """A grading's visible and hidden sessions are jails of the same uid alive at the same time
    (the hidden one is built while the visible tests run): what one of them leaves (files, an
    abstract socket) is invisible to the other, as are its processes."""
    with executor.session(CHANNELS, "a.py", "a") as first, executor.session(CHANNELS, "b.py", "b") as second:
        first.load()
        second.load()
        assert "/tmp" in first.call_function("leave", "hidden inputs")   # the attack ran (a jail makes no socket)
        assert second.call_function("find") == []
    assert_healthy(executor)


def test_a_zygote_out_of_file_descriptors_fails_that_session_as_unavailable_and_serves_the_next(executor):
    """Room for the session's four descriptors but not for the jail's own pipe: that session is
    the sandbox's failure (never the student's), and the zygote goes on serving."""
    zygote = executor.zygote_pid
    soft, hard = resource.prlimit(zygote, resource.RLIMIT_NOFILE)
    used = sorted(int(fd) for fd in os.listdir(f"/proc/{zygote}/fd"))
    resource.prlimit(zygote, resource.RLIMIT_NOFILE, (len(used) + 4, hard))
    try:
        with executor.session(GOOD, "good.py", "good") as s, pytest.raises(SandboxUnavailable, match="jail setup"):
            s.load()
    finally:
        resource.prlimit(zygote, resource.RLIMIT_NOFILE, (soft, hard))
    assert_healthy(executor)
