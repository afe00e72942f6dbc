"""Mend of round 41 (E): the thread watch's filter and its log line say what is so.

LOW 7: a new jail's first threads' events come before the zygote follows its pid; until then the socket's filter
follows the jails before it (none, after the last one ended) and would drop them: ThreadWatch.before_fork queues every
event from the fork on. LOW 8: a filter the kernel refuses left the old one in place while ``following`` said None
(every event): it is detached. LOW 6: the log line for a watch that is off no longer says a thread's fault is named
where no kernel log is read at all (docker-compose).
"""

from __future__ import annotations

import logging
import os
import socket

from grading.sandbox import client, zygote
from tests.sandbox.test_thread_churn_round41 import _Jail, _threads, watch  # noqa: F401

_SO_GET_FILTER = 26     # = SO_ATTACH_FILTER; a getsockopt gives the attached filter's instructions


def _filter_len(w: zygote.ThreadWatch) -> int:
    """The instructions of the filter the kernel holds on the watch's socket (0: none)."""
    sock = socket.socket(fileno=w.fileno())
    try:
        return len(sock.getsockopt(socket.SOL_SOCKET, _SO_GET_FILTER, 1024))
    finally:
        sock.detach()


def test_before_a_fork_every_event_is_queued_though_no_jail_was_followed(watch):  # noqa: F811
    me = _Jail(os.getpid())
    watch.follow([])            # as after the last jail ended: the filter drops everything
    watch.before_fork()         # the zygote, before forking the next jail (main)
    _threads(2)                 # its first threads, before the zygote knows its pid
    watch.drain({1: me})
    assert me.events == 4, me.events


def test_a_filter_the_kernel_refuses_leaves_no_old_filter_behind(watch, monkeypatch):  # noqa: F811
    watch.follow([os.getpid()])
    assert watch.following == (os.getpid(),) and _filter_len(watch) > 0
    monkeypatch.setattr(zygote, "follow_program", lambda pids: b"\xff\xff\x00\x00\x00\x00\x00\x00")  # no such code
    watch.follow([os.getpid(), 1])
    assert watch.following is None
    assert _filter_len(watch) == 0      # every event queued, as following says


def test_the_log_of_a_watch_that_is_off_says_no_fault_is_named_without_the_kernels_log(monkeypatch, caplog):
    monkeypatch.setattr(client, "_thread_watch_told", set())
    with caplog.at_level(logging.WARNING, logger="grading.sandbox.client"):
        client._log_thread_watch_off("not in the host's pid and user namespaces")
    said = [r.getMessage() for r in caplog.records if r.name == "grading.sandbox.client"]
    assert len(said) == 1 and "only where the zygote reads the kernel's log" in said[0], said
    assert "in docker-compose it does not, and no fault is named" in said[0], said
