"""Suite configuration read by the grading runner (worker/grading.py)."""

from grader_tests.attention.static import COUNT_RUNTIME, FORBID_RUNTIME

STUDENT_FILE = "attention.py"
MODULE_NAME = "attention"
WATCH = {"count": list(COUNT_RUNTIME), "forbid": list(FORBID_RUNTIME)}
VERSION = "attention-suite 1.0"


def warm() -> None:
    from grader_tests.attention import cases

    cases.warm()
