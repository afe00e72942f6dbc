"""Review RE (round 40), MED 3, MED 4, LOW 7: the zygote's watch of the kernel's thread events (zygote.ThreadWatch).

MED 3: every zygote read every thread start and end of the whole host, jail or not (0.37 s of CPU in 4 s with no jail
under a host's thread churn): it now asks for events only while a jail lives, and reads at most DRAIN_MAX a turn.
MED 4: a pre-6.6 kernel drops a request of any length but 4 bytes (nothing was received), the request was never
withdrawn (the kernel's count of listeners stayed up past the zygote's end), and in a pid namespace of its own the
events' host ids were matched against the zygote's ids. LOW 7: only the kernel's messages (sender port 0) count.
"""

from __future__ import annotations

import os
import select
import socket
import struct
import threading
import time

import pytest


def _watch():
    from grading.sandbox.zygote import ThreadWatch

    watch = ThreadWatch()
    if watch.fileno() is None:
        pytest.skip("no proc connector here (not root in the host's namespaces)")
    return watch


def _start_threads(n: int = 5) -> None:
    for _ in range(n):
        t = threading.Thread(target=int)
        t.start()
        t.join()


def _readable(fd: int, timeout: float = 0.3) -> bool:
    return bool(select.select([fd], [], [], timeout)[0])


def test_no_event_reaches_the_watch_until_it_listens_nor_after():
    watch = _watch()
    try:
        _start_threads()
        assert not _readable(watch.fd), "events queued while no jail lives"
        watch.listen(True)
        _start_threads()
        assert _readable(watch.fd)
        watch.listen(False)
        watch.drain({})
        _start_threads()
        assert not _readable(watch.fd), "events queued after the request was withdrawn"
    finally:
        watch.close()


def test_a_turn_reads_at_most_its_share_of_events():
    watch = _watch()
    try:
        watch.listen(True)
        _start_threads(20)       # 40 events at least: forks and exits
        watch.listen(False)
        watch.drain({}, most=3)
        assert _readable(watch.fd, 0), "the turn read every event"
        watch.drain({})
    finally:
        watch.close()


def test_the_request_is_withdrawn_at_close():
    from grading.sandbox.zygote import _PROC_CN_MCAST_IGNORE, ThreadWatch, listen_request

    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    watch = object.__new__(ThreadWatch)
    watch.fd, watch.listening = a.detach(), True
    watch.close()
    assert b.recv(256) == listen_request(_PROC_CN_MCAST_IGNORE, os.uname().release)
    b.close()


@pytest.mark.parametrize(("release", "length"), [("5.15.0-91-generic", 4), ("6.1.0", 4), ("6.6.0", 8),
                                                 ("6.18.44-fc-v1300", 8), ("7.0-rc1", 8)])
def test_the_request_has_the_length_the_running_kernel_takes(release, length):
    from grading.sandbox.zygote import _PROC_CN_MCAST_LISTEN, listen_request

    msg = listen_request(_PROC_CN_MCAST_LISTEN, release)
    assert struct.unpack_from("=I", msg)[0] == len(msg) == 16 + 20 + length
    assert struct.unpack_from("=H", msg, 16 + 16)[0] == length          # cn_msg.len
    assert struct.unpack_from("=I", msg, 16 + 20)[0] == _PROC_CN_MCAST_LISTEN


def test_no_watch_outside_the_hosts_pid_and_user_namespaces():
    from grading.sandbox.zygote import in_host_namespaces

    # another namespace's inode (the network namespace's, never the host pid namespace's fixed one)
    assert not in_host_namespaces(pid_ns="/proc/self/ns/net")
    assert not in_host_namespaces(user_ns="/proc/self/ns/net")
    assert not in_host_namespaces(pid_ns="/nonexistent")


def test_a_message_from_another_process_is_not_a_kernel_event():
    from grading.sandbox.zygote import _CN_IDX_PROC, _CN_VAL_PROC, _NETLINK_CONNECTOR, _NLMSG_DONE
    from tests.sandbox.test_thread_faults_round40 import _jail

    watch = _watch()
    forger = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_CONNECTOR)
    own = socket.socket(fileno=os.dup(watch.fd))
    try:
        jail = _jail(4_000_000, 0)       # no such pid on the host: no real event names it
        event = struct.pack("=IIQIIII", 1, 0, time.monotonic_ns(), 1, 1, 4_000_001, 4_000_000)   # a fork
        cn_msg = struct.pack("=IIIIHH", _CN_IDX_PROC, _CN_VAL_PROC, 0, 0, len(event), 0) + event
        forger.sendto(struct.pack("=IHHII", 16 + len(cn_msg), _NLMSG_DONE, 0, 0, 0) + cn_msg,
                      (own.getsockname()[0], 0))
        assert _readable(watch.fd)
        watch.drain({1: jail})
        assert jail.threads == set() and jail.lives == {}
    finally:
        forger.close()
        own.close()
        watch.close()
