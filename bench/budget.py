"""Cost of budget-exhausting submissions: how long one grading holds a worker, however the student
spends the budget (sleeping just under the call timeout in every call, or spinning in one call).

Before issue 10 the sleeping submission ran into the 120 s grading wall, ended `error` and was
retried MAX_TRIES times (about 6 worker-minutes). Now it must end `graded` within about
GRADING_BUDGET_S. Writes bench/results/budget.json.

    .venv/bin/python bench/budget.py [--budget 40]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import write  # noqa: E402

CORRECT = (ROOT / "tests" / "fixtures" / "submissions" / "correct" / "reference.py").read_text()

ATTACKS = {
    "every_call_sleeps_under_the_call_timeout": '''
import time as _time
_honest = ScaledDotProductAttention.forward
def _slow(self, *a, **k):
    _time.sleep(SLEEP)
    return _honest(self, *a, **k)
ScaledDotProductAttention.forward = _slow
''',
    "every_call_spins_forever": '''
_honest = ScaledDotProductAttention.forward
def _spin(self, *a, **k):
    while True:
        pass
ScaledDotProductAttention.forward = _spin
''',
    "spins_with_threads_at_import": '''
import threading as _threading
def _burn():
    while True:
        pass
for _ in range(8):
    _threading.Thread(target=_burn, daemon=True).start()
''',
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=float, default=None, help="GRADING_BUDGET_S (default: settings)")
    args = parser.parse_args()

    from autograder import settings
    from grading.runner import GradeInput, grade
    from grading.sandbox import Executor

    if args.budget:
        settings.GRADING_BUDGET_S = args.budget
        settings.GRADING_CPU_BUDGET_S = min(settings.GRADING_CPU_BUDGET_S, args.budget)
    rows = {}
    with Executor() as ex:
        for name, attack in ATTACKS.items():
            code = CORRECT + attack.replace("SLEEP", str(ex.limits.call_timeout * 0.95))
            t0 = time.perf_counter()
            cpu0 = os.times()
            result = grade(GradeInput(code=code.encode()), executor=ex)
            cpu1 = os.times()
            wall = time.perf_counter() - t0
            outcomes: dict[str, int] = {}
            for t in result["tests"]:
                outcomes[t["outcome"]] = outcomes.get(t["outcome"], 0) + 1
            rows[name] = {"status": result["status"], "total": result["total"], "wall_s": round(wall, 2),
                          "trusted_cpu_s": round((cpu1.user + cpu1.system + cpu1.children_user
                                                  + cpu1.children_system) - (cpu0.user + cpu0.system
                                                  + cpu0.children_user + cpu0.children_system), 2),
                          "outcomes": outcomes}
            print(f"{name:45s} {result['status']:7s} total {result['total']:5} in {wall:6.1f} s  {outcomes}")
    data = {"budget": {"GRADING_BUDGET_S": settings.GRADING_BUDGET_S,
                       "GRADING_CPU_BUDGET_S": settings.GRADING_CPU_BUDGET_S,
                       "CALL_TIMEOUT_S": settings.CALL_TIMEOUT_S,
                       "TASK_SOFT_TIME_LIMIT_S": settings.TASK_SOFT_TIME_LIMIT_S},
            "attacks": rows,
            "worst_wall_s": max(r["wall_s"] for r in rows.values())}
    path = write("budget", data)
    print(f"worst: {data['worst_wall_s']} s for a budget of {settings.GRADING_BUDGET_S:g} s; written to {path}")


if __name__ == "__main__":
    main()
