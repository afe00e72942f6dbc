"""Round 33's review found that a ScriptModule subclass could switch TorchScript back on in the jail. The jail set
``_disable_script_meta`` on ``torch.jit.ScriptModule`` only; torch's metaclass reads it off the class, so a
subclass that wrote ``_disable_script_meta = False`` (in its body, or through a metaclass property) had its
``__init__`` wrapped again, and ``self.define("...")`` compiled TorchScript from a string the source review does
not read as code. In the jail no instance is scripted, whatever the class says: ``define`` records its stub and
nothing else (``lazy_torch._script_meta_that_compiles_nothing``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PREPARED = "import torch\nfrom grading.sandbox import lazy_torch\nlazy_torch._scripting_runs_eagerly()\n"

DEFINED = (
    "        self.define('def forward(self, x):\\n    return x * 2.0\\n')\n"
)

CLASSES = {
    "the_flag_set_false_in_the_body": (
        "class M(torch.jit.ScriptModule):\n"
        "    _disable_script_meta = False\n"
        "    def __init__(self):\n        super().__init__()\n" + DEFINED
    ),
    "the_flag_a_property_of_a_metaclass": (
        "class Meta(type(torch.jit.ScriptModule)):\n"
        "    @property\n    def _disable_script_meta(cls):\n        return False\n"
        "class M(torch.jit.ScriptModule, metaclass=Meta):\n"
        "    def __init__(self):\n        super().__init__()\n" + DEFINED
    ),
}


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
@pytest.mark.parametrize("name", list(CLASSES))
def test_a_script_module_subclass_cannot_switch_torchscript_back_on_in_the_jail(name):
    probe = PREPARED + CLASSES[name] + (
        "m = M()\n"
        "assert '_actual_script_module' not in vars(m), 'scripted'\n"
        "try:\n    m(torch.ones(2))\nexcept (AttributeError, NotImplementedError):\n    pass\n"
        "else:\n    raise AssertionError('the defined forward was compiled and ran')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_a_metaclass_mixed_in_beside_script_meta_still_runs_its_own_init_in_the_jail():
    # torch's ScriptMeta ends with super().__init__, so a metaclass beside it runs; the jail's does the same.
    probe = PREPARED + (
        "class Other(type):\n"
        "    def __init__(cls, name, bases, attrs):\n        super().__init__(name, bases, attrs)\n"
        "        cls.other_ran = True\n"
        "class Both(type(torch.jit.ScriptModule), Other):\n    pass\n"
        "class M(torch.jit.ScriptModule, metaclass=Both):\n    pass\n"
        "assert getattr(M, 'other_ran', False), 'the mixed-in metaclass did not run'\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
