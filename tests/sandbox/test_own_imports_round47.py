"""Round 47: the jail's own imports after the student's code ran go through the import system the zygote had, not the
one that code may have changed (a ``sys.meta_path`` finder raising SystemExit failed the runtime's import of
torch.nn.utils.prune at the first weight load: each MultiHeadAttention "raised SystemExit at attention.py", 52 of 85
where the code earns 68). In-process: the import system is poisoned only while the jail's functions run."""

from __future__ import annotations

import importlib._bootstrap as bootstrap
import sys

import torch

from grading.sandbox import lazy_torch, runtime


class _Deny:
    """A finder as a hostile file installs it: every import it is asked about ends the process."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        raise SystemExit(f"no import of {name}")


def _poisoned(run, *, forget: tuple[str, ...] = ()):
    """``run()`` with a finder that exits in front of sys.meta_path, importlib's _find_and_load rebound to exit and the
    modules ``forget`` names dropped from sys.modules; what it returned or raised (everything put back after)."""
    saved_path, saved_find = sys.meta_path, bootstrap._find_and_load
    forgotten = {name: sys.modules.pop(name) for name in forget if name in sys.modules}
    try:
        sys.meta_path = [_Deny, *saved_path]

        def _exit(*args):
            raise SystemExit(9)

        bootstrap._find_and_load = _exit
        try:
            return run(), None
        except BaseException as e:  # noqa: BLE001 - SystemExit is what the poisoned import raises
            return None, e
    finally:
        sys.meta_path, bootstrap._find_and_load = saved_path, saved_find
        sys.modules.update(forgotten)


def test_a_weight_load_does_not_import_through_the_files_finders():
    """Before round 47: SystemExit('no import of torch.nn.utils.prune') (the import ran at each weight load)."""
    layer = torch.nn.Linear(3, 2)
    value, error = _poisoned(lambda: runtime._load_reparametrized(layer, "weight", torch.ones(2, 3)),
                             forget=("torch.nn.utils.prune",))
    assert error is None and value is False, error


def test_own_import_imports_through_the_zygotes_import_system_and_puts_the_files_back():
    """``json.tool`` (not imported by the test process's other tests) is imported although the finder in front of
    sys.meta_path and importlib's _find_and_load exit; the file's import system is what it was afterwards."""
    had = sys.modules.pop("json.tool", None)
    try:
        seen: dict[str, object] = {}

        def run():
            module = lazy_torch.own_import("json.tool")
            seen["meta_path"], seen["find"] = sys.meta_path[0], bootstrap._find_and_load
            return module

        module, error = _poisoned(run)
        assert error is None and module.__name__ == "json.tool", error
        assert seen["meta_path"] is _Deny and seen["find"].__name__ == "_exit"   # put back as the file left them
    finally:
        if had is not None:
            sys.modules["json.tool"] = had
