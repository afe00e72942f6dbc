"""Mend 47 (review RC, LOW 4): the runtime's import of torch._dynamo at the load of a file naming
``use_reentrant=False`` goes through the jail's import system (lazy_torch.own_import), not through the finders the
file's top level installed: one raising SystemExit for every import ended the load there."""

from __future__ import annotations

import sys

from grading.sandbox import lazy_torch, runtime

_SOURCE = """import sys

class _Deny:
    @staticmethod
    def find_spec(name, path=None, target=None):
        raise SystemExit(f"no import of {name}")

sys.meta_path.insert(0, _Deny)
# torch.utils.checkpoint.checkpoint(f, x, use_reentrant=False)
"""


def test_the_loads_own_dynamo_import_does_not_meet_the_files_finders(monkeypatch):
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "orig_argv", list(sys.orig_argv))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))        # the file's finder is dropped afterwards
    monkeypatch.setattr(lazy_torch, "NON_REENTRANT_CHECKPOINT_SETTLED", False)
    monkeypatch.delitem(sys.modules, "torch._dynamo", raising=False)
    imported: list[str] = []
    # torch._dynamo itself is not imported here (seconds, and a test process without it is what other tests check)
    monkeypatch.setattr(lazy_torch, "own_import", imported.append)
    rt = runtime.Runtime()
    try:
        rt.op_load({"source": _SOURCE, "filename": "m_mend47.py", "module_name": "m_mend47", "watch": {}})
    except SystemExit as exc:   # before the mend: SystemExit('no import of torch._dynamo')
        raise AssertionError(f"the load ended on the file's finder: {exc!r}") from None
    finally:
        sys.modules.pop("m_mend47", None)
    assert imported == ["torch._dynamo"], imported
