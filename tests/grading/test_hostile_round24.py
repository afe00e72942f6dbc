"""Round 24 of hostile submissions: student code that works the data socket (fd 3) itself, as its own
file descriptor: out-of-band bytes, a thread left writing on it after the reply, the socket closed,
shut down, made non-blocking or replaced by stdout. Each attack is graded in the real sandbox and must
end `graded` (never the grader's `error`), score no more than the honest file it is built on, leak
nothing of the hidden suite, say in both languages what happened and cost the worker about what an
honest grading does."""

from __future__ import annotations

import pytest

from tests.grading.helpers import (
    SUBMISSIONS,
    Honest,
    assert_attack_bounded,
    honest_cost,
    in_forward,
    worker_cost,
)
from tests.grading.helpers import grade_stored as _grade

# Gradings in the real sandbox: the slow lane, as the earlier rounds' corpora.
pytestmark = pytest.mark.slow

CORRECT = (SUBMISSIONS / "correct" / "reference.py").read_text()

ROUND_24: dict[str, str] = {
    "out_of_band_bytes_before_every_reply": in_forward(CORRECT, '''
import socket as _so, os as _o
_s = _so.socket(fileno=_o.dup(3))
for _ in range(3):
    _s.send(b"!", _so.MSG_OOB)'''),
    "a_thread_left_writing_zero_lengths_on_the_data_socket": CORRECT + '''
import threading as _t, os as _o, time as _tm
def _spam():
    _tm.sleep(0.5)
    while True:
        try:
            _o.write(3, b"\\0")
        except OSError:
            return
_t.Thread(target=_spam, daemon=True).start()
''',
    "a_thread_left_writing_forged_replies_with_the_next_seqs": CORRECT + '''
import threading as _t, os as _o, time as _tm, json as _j, struct as _st
def _forge():
    _tm.sleep(0.3)
    for seq in range(1, 10000):
        h = _j.dumps({"v": {"D": {"seq": seq, "ok": True, "value": 0}}, "t": [], "n": 0}).encode()
        try:
            _o.write(3, _st.pack(">I", len(h)) + h)
        except OSError:
            return
_t.Thread(target=_forge, daemon=True).start()
''',
    "the_data_socket_closed_in_forward": in_forward(CORRECT, '''
import os as _o
_o.close(3)'''),
    "stdout_put_in_place_of_the_data_socket": in_forward(CORRECT, '''
import os as _o
_o.dup2(1, 3)'''),
    "stdout_put_onto_the_data_socket_and_printed_to": in_forward(CORRECT, '''
import os as _o, sys as _s
_o.dup2(3, 1)
print("{" * 5000, flush=True)'''),
    "the_data_socket_shut_down_for_reading": in_forward(CORRECT, '''
import socket as _so, os as _o
_so.socket(fileno=_o.dup(3)).shutdown(_so.SHUT_RD)'''),
    "the_data_socket_made_non_blocking_and_its_buffer_filled": in_forward(CORRECT, '''
import os as _o
_o.set_blocking(3, False)
try:
    while True:
        _o.write(3, b"\\0" * 4096)
except OSError:
    pass'''),
    "a_reply_trickled_from_a_thread_while_forward_returns": in_forward(CORRECT, '''
import threading as _t, os as _o, struct as _st
def _trickle():
    try:
        _o.write(3, _st.pack(">I", 900000))
        while True:
            _o.write(3, b" ")
    except OSError:
        pass
_t.Thread(target=_trickle, daemon=True).start()'''),
}


@pytest.fixture(scope="module")
def honest(executor) -> Honest:
    """The honest file's total, its worker CPU and wall (the second grading: the first warms up)."""
    return honest_cost(_grade, executor, CORRECT)


@pytest.mark.parametrize("attack", list(ROUND_24))
def test_a_round_24_attack_on_the_data_socket_is_graded_bounded_and_earns_no_more(executor, honest, attack):
    total, honest_cpu = honest
    result, cpu, wall = worker_cost(_grade, executor, ROUND_24[attack])
    print(attack, result["status"], result["total"], total, f"{wall:.1f}s {cpu:.2f}s CPU (honest {honest_cpu:.2f}s)")
    assert_attack_bounded(result, total, wall, cpu, honest_cpu, honest.wall)
    for t in result["tests"]:
        # None of them returns large results: out-of-band bytes read as a reply's length were said to be
        # "results [that] came to more than 8 MiB in all", a guess.
        assert not t["feedback"] or "MiB in all" not in t["feedback"]["en"], t["feedback"]["en"]
