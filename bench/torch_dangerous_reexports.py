"""Prints grader_tests.attention.static.TORCH_DANGEROUS_REEXPORTS for the installed torch, computed in this (fresh)
interpreter: the public names of torch's public modules whose value comes from a module no attention code needs
(ctypes, importlib, sys, os, inspect...), under a name of torch's own (``torch.xpu.cast`` is ctypes' cast; round 48
review H3). tests/grading/test_review_mend_round48.py compares it with the table (slow)."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import types
import warnings

DANGEROUS_SOURCES = frozenset({"ctypes", "_ctypes", "importlib", "sys", "os", "posix", "subprocess", "pickle",
                               "_pickle", "marshal", "runpy", "gc", "inspect", "linecache", "signal", "shutil",
                               "code", "codeop", "pydoc", "pkgutil", "zipimport", "mmap", "socket", "io", "_io",
                               "threading", "_thread", "builtins"})


def dangerous_reexports() -> dict[str, list[str]]:
    """Module path -> sorted names (a builtin type such as ``int`` given a name of torch's is no danger)."""
    import torch

    from grader_tests.attention import static

    flagged = static.ANYWHERE_HIDING_ATTRS | static.MODULE_LOADERS | static.HIDING_ATTRS

    def parts(name: str) -> set[str]:
        return set(name.split(".")[1:])

    unreviewable = (static.TORCH_UNREVIEWABLE - static.TORCH_REEXPORT_HOLDERS) | static.HIDING_ATTRS
    warnings.filterwarnings("ignore")
    names = ["torch"] + [m.name for m in pkgutil.walk_packages(torch.__path__, "torch.", onerror=lambda n: None)
                         if not any(p.startswith("_") for p in m.name.split("."))]
    found: dict[str, list[str]] = {}
    for name in names:
        try:
            module = importlib.import_module(name)
        except BaseException:   # noqa: BLE001 (a part needing a missing library: nothing of it can be read)
            continue
        for key, value in list(vars(module).items()):
            if key.startswith("_"):
                continue
            source = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
            if not isinstance(source, str) or source.split(".")[0] not in DANGEROUS_SOURCES:
                continue
            if source == "builtins" and (inspect.isclass(value) or not callable(value)) \
                    or isinstance(value, types.GenericAlias | types.UnionType) \
                    or type(value).__module__ == "typing":
                continue               # a type alias (``Args = tuple[Any, ...]``): no way to code
            if key in flagged or parts(name) & unreviewable:
                continue               # a finding wherever it is read, or in a part of torch flagged as a whole
            found.setdefault(name, []).append(key)
    return {name: sorted(keys) for name, keys in sorted(found.items())}


if __name__ == "__main__":
    print(json.dumps(dangerous_reexports(), sort_keys=True))
