"""A jail cannot lower its own priority. Since round 33 a session's wall limit and the grading's budget give
back the time host load kept a jail off a CPU (`forking.load_credit`); a jail that made itself nice 19 or
SCHED_IDLE, or pinned itself to a busy CPU, would earn that credit for waiting it caused itself and hold its worker slot longer. The seccomp
filter refuses the calls that change a priority or a scheduling policy."""

from __future__ import annotations

import os

PRIORITY = '''
import os


def attempts():
    """Each way to lower its own priority: 'refused' when the kernel said no, else what it now has."""
    out = {}
    for name, act in (
        ("nice", lambda: os.nice(19)),
        ("setpriority", lambda: os.setpriority(os.PRIO_PROCESS, 0, 19)),
        ("sched_idle", lambda: os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))),
        ("sched_batch", lambda: os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))),
        ("sched_setparam", lambda: os.sched_setparam(0, os.sched_param(0))),
        ("affinity", lambda: os.sched_setaffinity(0, {0})),
    ):
        try:
            act()
            out[name] = "changed"
        except PermissionError:
            out[name] = "refused"
    out["policy"] = os.sched_getscheduler(0)
    out["niceness"] = os.getpriority(os.PRIO_PROCESS, 0)
    out["cpus"] = sorted(os.sched_getaffinity(0))
    return out
'''


def test_a_jail_cannot_make_itself_nice_idle_or_pinned_to_earn_load_credit(executor):
    with executor.session(PRIORITY, "priority.py", "priority") as s:
        s.load()
        seen = s.call_function("attempts")
    ways = ("nice", "setpriority", "sched_idle", "sched_batch", "sched_setparam", "affinity")
    assert {k: seen[k] for k in ways} == dict.fromkeys(ways, "refused")
    assert seen["policy"] == os.SCHED_OTHER
    assert seen["niceness"] == 0
    assert seen["cpus"] == sorted(os.sched_getaffinity(0))
