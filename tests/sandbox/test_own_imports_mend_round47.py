"""Mend 47 (review RC, MED 1): the jail's own imports after the student's code ran (lazy_torch.own_import) go through
the import system the JAIL set up before that code (runtime.prepare_process: its written-modules finder first on
sys.meta_path, no writable folder on sys.path), not the zygote's, which had none of that guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Run in a fresh interpreter: prepare_process replaces stdio, makes and enters the working folder and rewrites sys.path
# and sys.meta_path for good, as it does in a jail.
_CHILD = textwrap.dedent("""
    import json, sys
    from grading.sandbox import lazy_torch, runtime

    out, workdir = sys.argv[1], sys.argv[2]
    runtime.prepare_process(workdir)
    seen = {}
    try:
        module = lazy_torch.own_import("r47_written_module")
        seen["imported_from"] = getattr(module, "__file__", None)
    except ImportError as exc:
        seen["refused"] = type(exc).__name__
    seen["first_finder"] = getattr(lazy_torch._IMPORT_STATE["meta_path"][0], "__name__", None)
    with open(out, "w") as fh:
        json.dump(seen, fh)
""")


def test_own_import_does_not_import_a_module_written_where_the_jail_can_write(tmp_path):
    """Before the mend: own_import kept the zygote's sys.path (here with a writable folder on it, as PYTHONPATH) and
    meta_path, so a module written into that folder was imported (its file returned) although the jail refuses it."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "r47_written_module.py").write_text("WRITTEN = True\n")
    out = tmp_path / "seen.json"
    env = {**os.environ, "PYTHONPATH": f"{lib}{os.pathsep}{ROOT}"}
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(out), str(tmp_path / "work")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    seen = json.loads(out.read_text())
    assert "imported_from" not in seen, seen
    assert seen["refused"] in ("ImportError", "ModuleNotFoundError") and seen["first_finder"] == "_NoWrittenModules", seen
