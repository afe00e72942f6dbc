"""Round 34: ``torch.compiler.get_default_backend``/``set_default_backend`` and ``set_enable_guard_collectives``
imported torch._dynamo in each jail (1-1.6 s of its CPU, round 33's sweep) for a setting of a compiler that never runs
there, and the review flagged them for that (13 points pending review). Until dynamo is loaded each setting is kept
by a stand-in (grading/sandbox/lazy_torch.py, _backend_settings_without_dynamo) and handed to torch once dynamo is
loaded; the review passes them (static.COMPILER_SETTINGS). ``list_backends`` stays torch's and a finding."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grader_tests.attention import static
from tests.grading.test_lazy_torch_paths import assert_cheap_with_full_marks

HEADER = "import torch\n"
CALLS = {
    "set_then_get": "torch.compiler.set_default_backend('eager')\nb = torch.compiler.get_default_backend()\n",
    "imported_by_name": "from torch.compiler import get_default_backend, set_default_backend\n"
                        "set_default_backend(None)\nb = get_default_backend()\n",
    "guard_collectives": "was = torch.compiler.set_enable_guard_collectives(False)\n",
}


@pytest.mark.parametrize("code", CALLS.values(), ids=CALLS.keys())
def test_the_default_backend_and_guard_collectives_settings_are_no_review_finding(code):
    assert static.hidden_name_uses(HEADER + code) == ()


def test_list_backends_is_still_found():
    found = static.hidden_name_uses(HEADER + "names = torch.compiler.list_backends()\n")
    assert any("torch.compiler" in f for f in found), found


_BEFORE_DYNAMO = (
    "import sys, torch\nfrom grading.sandbox import lazy_torch\nlazy_torch._compiler_settings_without_dynamo()\n"
    "c = torch.compiler\n"
    "assert c.get_default_backend() == 'inductor'\n"
    "c.set_default_backend('eager')\nassert c.get_default_backend() == 'eager'\n"
    "c.set_default_backend(None)\nassert c.get_default_backend() == 'inductor'\n"
    "try:\n    c.set_default_backend(3)\nexcept TypeError:\n    pass\n"
    "else:\n    raise AssertionError('a backend of 3 was accepted')\n"
    "assert c.set_enable_guard_collectives(True) is False and c.set_enable_guard_collectives(True) is True\n"
    "c.set_default_backend('aot_eager')\n"
    "assert 'torch._dynamo' not in sys.modules, 'a setting loaded dynamo'\n"
)


def _run(probe: str) -> None:
    done = subprocess.run([sys.executable, "-c", probe + "print('ok')\n"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_the_settings_load_no_dynamo_and_answer_as_torch_does():
    """In a child with the zygote's stand-ins: torch's answers and torch's TypeError for a backend that is neither a
    name nor callable, with torch._dynamo never imported."""
    _run(_BEFORE_DYNAMO)


@pytest.mark.slow   # the child imports torch._dynamo (5-10 s on a busy host)
def test_what_was_kept_is_torchs_setting_once_dynamo_is_loaded():
    _run(_BEFORE_DYNAMO
         + "import torch._dynamo\nfrom torch._dynamo.backends import registry\n"
           "assert c.get_default_backend() == 'aot_eager' == registry.get_default_backend()\n"
           "assert c.set_enable_guard_collectives(False) is True    # the kept hook was set in torch\n"
           "assert c.set_enable_guard_collectives(False) is False\n")


@pytest.mark.slow   # 5-10 s on a busy host; torch's own calls took 1-1.6 s of the jail's CPU (refused by _timed)
def test_a_file_setting_the_default_backend_and_guard_collectives_is_cheap_with_full_marks_in_the_jail(executor):
    assert_cheap_with_full_marks(
        executor,
        "torch.compiler.set_default_backend('eager')\n_was = torch.compiler.set_enable_guard_collectives(False)\n"
        "_b = torch.compiler.get_default_backend()",
        "_b == 'eager' and _was is False",
    )
