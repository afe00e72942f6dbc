"""Round 45 of hostile submissions (the attacks: tests/grading/hostile_attacks_round45.py).

Each attack is graded in the real sandbox and must end `graded`, score no more than the honest file, say in both
languages what happened, cost the worker about what an honest grading does and leave nothing running.

Found open and fixed: the jail's side of the wire went through objects a student's module can patch at import
(``json.dumps``/``loads`` and json's encoder, ``math.prod``, ``torch.from_numpy``, ``socket.socket.sendall``,
``socket.SocketIO.readinto``): such a file was graded 0 and told it "did not load" or "exited with code 0 while
importing" (tests/sandbox/test_protocol_private_json_round45.py holds the wire's own tests). A jail whose loop
failed after the import was told "did not load", and one grading in four "killed by SIGKILL while importing" (the
trusted side's kill raced the jail's own exit once its channel closed)."""

from __future__ import annotations

import json

import pytest

from grading.proxy import RAN, load_error_text, load_seen, not_loaded_text
from grading.runner import GradeInput, grade
from grading.sandbox.client import INTERRUPTED_TEXT, SERVE_FAILED_TEXT, SandboxDied
from tests.grading.helpers import graded_attack, honest_cost
from tests.grading.hostile_attacks_round45 import ATTACKS, CORRECT
from tests.grading.test_hostile_round31 import _nothing_left


def _grade(executor, code: str | bytes) -> dict:
    return grade(GradeInput(code=code if isinstance(code, bytes) else code.encode()), "attention", executor)


@pytest.fixture(scope="module")
def honest(served) -> tuple[float, float]:
    return honest_cost(_grade, served, CORRECT)


@pytest.mark.slow
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_round_45_attack_is_graded_bounded_earns_no_more_and_leaves_nothing_running(served, honest, attack):
    graded_attack(attack, honest, _grade, served, ATTACKS[attack])
    _nothing_left(served)


# Each imports a module the static check cannot follow (json, struct, socket, ...): 68 of 85 is what the honest
# code earns then, every test run.
@pytest.mark.slow
@pytest.mark.parametrize("attack", ["json_encoder_internals_decoder_constants_and_error_class_patched_at_import",
                                    "struct_math_and_re_functions_replaced_at_import",
                                    "socket_classes_sendall_recv_into_and_socketio_readinto_replaced_at_import",
                                    "ctypes_string_at_and_torch_from_numpy_replaced_at_import"])
def test_a_file_patching_what_the_wire_is_built_from_is_graded_on_its_code(served, attack):
    """Before round 45: 0 of 85, every test "stopped answering", "did not load" or wrong inputs (16)."""
    result = _grade(served, ATTACKS[attack])
    assert result["status"] == "graded", result["message"]
    assert result["total"] == 68, json.dumps(result["tests"])[:2000]
    text = json.dumps(result, ensure_ascii=False)
    for said in ("did not load", "stopped answering", "exited with code"):
        assert said not in text


@pytest.mark.slow
def test_a_jail_whose_loop_fails_after_the_import_is_told_it_ran_never_that_it_did_not_load(served):
    """Its data descriptor replaced by /dev/null at import: the module ran, then the loop that answers the grader
    failed. Said "did not load" before round 45, and "killed by SIGKILL while importing" in one grading of four."""
    for _ in range(4):
        result = _grade(served, ATTACKS["the_data_descriptor_replaced_with_dev_null_by_dup2_at_import"])
        assert result["status"] == "graded" and result["total"] == 0
        assert result["message"]["en"].startswith("attention.py ran, but its sandbox ended before any test could run: "
                                                   + SERVE_FAILED_TEXT), result["message"]
        assert result["message"]["zh"].startswith("attention.py 已运行，但其沙箱在任何测试运行之前就结束了："), result["message"]
        assert {t["feedback"]["en"] for t in result["tests"]} == {
            "not run: attention.py ran, then its sandbox ended before any test could run"}
        assert "did not load" not in json.dumps([result["message"], result["load_error"], result["tests"]])


def test_a_test_not_run_after_the_loop_failed_says_the_module_ran_in_both_languages():
    for text in (SERVE_FAILED_TEXT, INTERRUPTED_TEXT):
        assert load_seen(SandboxDied(text)) == RAN
        said = not_loaded_text("attention.py", load_seen(SandboxDied(text)))
        assert said["en"] == "not run: attention.py ran, then its sandbox ended before any test could run"
        assert said["zh"] == "未运行：attention.py 运行之后，其沙箱在任何测试运行之前就结束了"
    other = SandboxDied("the sandboxed process exited with code 3")
    assert load_seen(other) is None and load_error_text(other)["en"].startswith("your code's process stopped")
    assert not_loaded_text("attention.py", load_seen(other))["en"] == "not run: attention.py did not load"
