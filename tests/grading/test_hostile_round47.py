"""Round 47 of hostile submissions (the attacks: tests/grading/hostile_attacks_round47.py).

Each attack is graded in the real sandbox and must end `graded`, score no more than the honest file, say in both
languages what happened, cost the worker about what an honest grading does and leave nothing running; an honest file
graded after it earns its full score (nothing it did outlived its jail).

Found open and fixed:
- the jail's own imports after the student's code ran went through the import system that code may have changed: a
  ``sys.meta_path`` finder raising SystemExit for every name failed the runtime's import of torch.nn.utils.prune at the
  first weight load, so every MultiHeadAttention "raised SystemExit at attention.py line 60": 52 of 85 where its code
  earns 68 (tests/sandbox/test_own_imports_round47.py holds the in-process tests);
- a session stopped at its CPU limit was counted as a crash: "not run: attention.py crashed 3 times already" after
  three stops each said "CPU time limit exceeded" (tests/grading/test_lost_causes_round47.py).
"""

from __future__ import annotations

import json

import pytest

from grading.runner import GradeInput, grade
from tests.grading.helpers import graded_attack, honest_cost
from tests.grading.hostile_attacks_round47 import ATTACKS, NOT_LOADING
from tests.grading.test_hostile_round31 import CORRECT, _nothing_left


def _grade(executor, code: str | bytes) -> dict:
    return grade(GradeInput(code=code if isinstance(code, bytes) else code.encode()), "attention", executor)


@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    return honest_cost(_grade, served, CORRECT)


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_47_attack_is_graded_bounded_earns_no_more_and_leaves_nothing_behind(served, honest, attack):
    result = graded_attack(attack, honest, _grade, served, ATTACKS[attack])
    _nothing_left(served)
    after = _grade(served, CORRECT)
    assert after["status"] == "graded" and after["total"] == honest[0], json.dumps(after)[:2000]
    if attack in NOT_LOADING:       # as at home, and said so
        assert result["total"] == 0 and NOT_LOADING[attack] in result["message"]["en"], result["message"]
        return
    text = json.dumps([result["message"], result["load_error"], result["tests"]])
    for said in ("exited with code", "sandbox ended"):
        assert said not in text, (said, text[:2000])
    if attack in FLOODS_BY_DRAIN_SPEED and "printed more than" in result["message"]["en"]:
        # The pipe drained fast enough for the flood to pass the output cap: the session that printed it was stopped,
        # and every test it took down says that cap was why, in both languages.
        for test in result["tests"]:
            if test["feedback"] and "did not load" in test["feedback"]["en"]:
                assert "printed more than" in test["feedback"]["en"], test
                assert "MiB 的内容" in test["feedback"]["zh"], test
        return
    assert "did not load" not in text, text[:2000]


# Attacks whose non-blocking writes succeed only as fast as the worker drains the pipe: how much they print, and so
# whether they pass the 64 MiB cap, depends on the host's load (CI saw 117 MiB printed over the sessions, graded 58; an idle host 85).
FLOODS_BY_DRAIN_SPEED = {"stdout_and_stderr_set_non_blocking_and_flooded_at_import"}


# Files whose attack changes nothing their honest code computes, and what that code earns: 68 when it names a module
# or a private name the static check cannot follow (ctypes, resource, importlib, sys.meta_path ...), 85 when not.
EARNS = {
    "a_meta_path_finder_raising_system_exit_for_every_import_after_the_top_level": 68,
    "sys_path_and_torchs_package_paths_pointed_at_an_empty_folder_at_import": 68,
    "importlib_import_module_and_the_bootstraps_find_and_load_rebound_to_fakes": 68,
    "torch_allclose_isclose_equal_and_assert_close_rebound_to_always_pass": 85,
    "time_functions_rebound_to_run_backwards_and_jump_a_day": 85,
    "every_writable_shared_mapping_it_inherited_overwritten_at_import": 68,
    "sigstop_and_the_lowest_priority_sent_to_every_visible_process_and_its_user": 68,
}


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(EARNS))
def test_a_file_that_changes_the_process_but_not_its_answers_is_graded_on_its_code(served, attack):
    """Before round 47 the meta_path finder's file was 52 of 85: the runtime's own import of torch.nn.utils.prune,
    made at the first weight load after the file ran, met the file's finder."""
    result = _grade(served, ATTACKS[attack])
    assert result["status"] == "graded" and result["total"] == EARNS[attack], json.dumps(result["tests"])[:3000]
