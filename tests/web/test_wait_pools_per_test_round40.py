"""Stop 44: the long-poll pools are per process and keyed by user id, and ids start at 1 again in each test's emptied
database. The attempts lists' pool remembers for TURN_S (75 s) whose wait ended and who was answered `now`: a test
run less than that after one that left its user 1 ended and its user 2 refused found its own user 1 giving way, and
its first list wait answered `now` (six round-38 wait tests failed so in a fast lane whose setup got cheaper). Each
test's app gets fresh pools (tests/helpers.fresh_wait_pools). The two tests run in this order."""

from __future__ import annotations

from app import longpoll


def test_a_test_that_leaves_user_1_ended_and_user_2_refused_in_the_lists_pool(app):
    with longpoll.list_waits.admit(1, per_user=1, slots=1) as verdict:
        assert verdict is longpoll.Admission.WAIT
    with longpoll.list_waits.admit(2, per_user=1, slots=0) as verdict:
        assert verdict is longpoll.Admission.NOW


def test_the_next_tests_first_list_wait_for_its_user_1_is_held(app):
    with longpoll.list_waits.admit(1, per_user=1, slots=1) as verdict:
        assert verdict is longpoll.Admission.WAIT
