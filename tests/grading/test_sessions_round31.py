"""Round 31: what a submission sees of the session it runs in, and what one result too large to bring back
costs, in real gradings of both labs.

* The visible tests' session and the hidden tests' were told apart from inside: another uid (the executor's
  first for the visible tests, another for the session opened beside it), another RLIMIT_CPU (20 s against
  the 8 s left for the hidden tests) and another age at the import (the hidden tests' jail was started at
  collection and sat idle: 0.33-0.44 s old at its import, the visible tests' 0.06 s). Each import now prints
  what it can read of its process and both lines must agree (the uid is drawn: tests/sandbox/test_sandbox_round31).
* One result of 7 M floats (over the 8 MiB a grading's replies may come to) ended its session; each later
  session lost its first call the same way and the rest were "not run": 0 of 85, 86 of 100 for a file whose
  first call in each session returns it. It now costs the calls that got it, with the cap said in zh and en."""

from __future__ import annotations

import ast
import json

import pytest

from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()
PAGE = (SUBMISSIONS / "numpy" / "course_page.py").read_text()
BASES = {"attention": CORRECT, "attention_numpy": PAGE}

OBSERVE = r'''

def _observed():
    import os as _os, sys as _sys, resource as _res, socket as _socket, time as _time
    stat = open("/proc/self/stat").read().rpartition(")")[2].split()
    ticks = _os.sysconf("SC_CLK_TCK")
    age = _time.clock_gettime(_time.CLOCK_BOOTTIME) - int(stat[19]) / ticks
    keep = ("Uid", "Gid", "Groups", "CapEff", "CapBnd", "NoNewPrivs", "Seccomp", "Cpus_allowed_list", "NSpid")
    status = {l.split(":")[0]: l.split(":", 1)[1].strip() for l in open("/proc/self/status") if l.split(":")[0] in keep}
    return {
        "ids": [_os.getuid(), _os.geteuid(), _os.getgid(), _os.getegid(), _os.getgroups(), _os.getpid(), _os.getppid()],
        "status": status, "host": _socket.gethostname(), "cwd": _os.getcwd(), "env": dict(_os.environ),
        "argv": list(_sys.argv), "umask": _os.umask(0o022),
        "rlimits": {n: _res.getrlimit(getattr(_res, n)) for n in sorted(dir(_res)) if n.startswith("RLIMIT_")},
        "limits": open("/proc/self/limits").read(), "cgroup": open("/proc/self/cgroup").read(),
        "tree": {d: sorted(_os.listdir(d)) for d in ("/", "/tmp", "/tmp/work", "/dev", "/proc/self/fd")},
        "tmp_owner": [_os.stat("/tmp").st_uid, _os.stat("/tmp/work").st_uid],
        "threads": len(_os.listdir("/proc/self/task")), "affinity": sorted(_os.sched_getaffinity(0)),
        "priority": _os.getpriority(_os.PRIO_PROCESS, 0), "modules": len(_sys.modules),
        "idle_before_import": round(age - (int(stat[11]) + int(stat[12])) / ticks, 3),
    }


print("OBSERVED", repr(_observed()))
'''


def _observed(result: dict) -> list[dict]:
    lines = [line.split("OBSERVED ", 1)[1] for line in result["log"].splitlines() if "OBSERVED " in line]
    return [ast.literal_eval(line) for line in lines]


@pytest.mark.slow
@pytest.mark.parametrize("suite", list(BASES))
def test_the_hidden_tests_session_looks_like_the_visible_tests_from_inside(served, suite):
    result = grade(GradeInput(code=(BASES[suite] + OBSERVE).encode()), suite, served)
    assert result["status"] == "graded", result["message"]
    seen = _observed(result)
    assert len(seen) >= 2, result["log"][-2000:]         # the visible tests' session and the hidden tests'
    first, *others = seen
    for other in others:
        for key, value in first.items():
            if key == "idle_before_import":
                # started when first needed, each jail imports the file right away
                assert abs(other[key] - value) < 0.2, (key, value, other[key])
            elif key in ("ids", "status", "tmp_owner"):
                continue
            else:
                assert other[key] == value, (key, value, other[key])
        uid = first["ids"][0]
        assert first["ids"] == [uid, uid, uid, uid, [], 2, 0]     # pid 2: the jail's pid 1 is its init (round 37)
        assert other["ids"][1:] == [other["ids"][0]] * 3 + [[], 2, 0]
        assert {first["ids"][0], other["ids"][0]} <= set(served.uids)
        assert first["tmp_owner"] == [0, first["ids"][0]] and other["tmp_owner"] == [0, other["ids"][0]]


def _first_call_of_each_session_returns(base: str, suite: str) -> str:
    """``base`` whose first call of the lab's core function by a test, in each session, returns 7 M floats."""
    if suite == "attention":
        anchor = "        assert q.ndim == k.ndim == v.ndim == 4\n"
        assert anchor in base
        return base.replace(anchor, "        _calls.append(1)\n        if len(_calls) == 1:\n"
                                    "            return torch.zeros(7_000_000)\n" + anchor, 1) + "\n_calls = []\n"
    anchor = "def scaled_dot_attention("
    assert anchor in base
    head, tail = base.split(anchor, 1)
    signature, body = tail.split("\n", 1)
    # the page calls it once at its top level: the first call of a test is the second
    return ("_calls = []\n" + head + anchor + signature + "\n    _calls.append(1)\n    if len(_calls) == 2:\n"
            "        return np.zeros(7_000_000, dtype=np.float32)\n" + body)


@pytest.mark.slow
@pytest.mark.parametrize("suite", list(BASES))
def test_a_result_over_the_reply_cap_costs_only_the_tests_that_got_it(executor, suite):
    honest = grade(GradeInput(code=BASES[suite].encode()), suite, executor)
    result = grade(GradeInput(code=_first_call_of_each_session_returns(BASES[suite], suite).encode()), suite, executor)
    assert result["status"] == "graded", result["message"]
    json.dumps(result, allow_nan=False)
    failed = [t for t in result["tests"] if t["outcome"] != "passed"]
    sessions = int(next(line.split()[-1] for line in result["log"].splitlines() if line.startswith("sessions used:")))
    assert failed and len(failed) <= sessions, [(t["id"], t["feedback"]["en"][:120]) for t in failed]
    for t in failed:
        assert not t["feedback"]["en"].startswith("not run"), t["feedback"]["en"]
    said = [t for t in failed if "bytes a reply may carry" in t["feedback"]["en"]]
    assert said, [t["feedback"]["en"] for t in failed]
    for t in said:
        assert "超过一次回复可携带的" in t["feedback"]["zh"] and "评分系统的英文说明" not in t["feedback"]["zh"]
    assert result["total"] >= honest["total"] - sum(t["max_points"] for t in failed)
    assert result["total"] >= honest["total"] - 20, (result["total"], honest["total"])


@pytest.mark.parametrize("said", [
    "an array of shape [7000000], whose values take 28000000 bytes: larger than the 1048576 bytes a reply may carry",
    "message header larger than 1048576 bytes",
    "message body larger than 1048576 bytes (each tensor or array counting 16 KiB besides its data)",
])
def test_what_the_jail_refuses_over_the_reply_cap_is_said_in_chinese_too(said):
    from grading.proxy import student_error_text
    from grading.sandbox import StudentError
    from tests.grading.helpers import english_in_zh

    text = student_error_text("scaled_dot_attention()", StudentError("InvalidResult", said))
    assert said in text["en"]
    assert "1048576 字节" in text["zh"] and english_in_zh(text["zh"]) == [], text["zh"]
