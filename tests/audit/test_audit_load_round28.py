"""Round 28: what an honest audit's figure or PDF costs the decoder on a loaded host.

A decoding child (grading/decode.py) ran the parent's __main__ again (multiprocessing's spawn
preparation) and imported numpy, yaml and the audit checker itself: 0.7 s of CPU per honest file in
the worker and the `autograder` CLI (their main module imports Flask, SQLAlchemy, Celery), 0.2 s in
gunicorn, for a decode of 0.01-0.05 s. On a 2-core host at load ~7 (six CPU hogs), four concurrent
uploads of the 50 honest audits' figures and PDFs with the CLI's main: 33 of 68 answered "server
busy" (every slot held by children importing), child CPU median 0.77 s, slowest 5.0 s; after: 0 of
68, 0.048 s, 0.52 s. Scores unchanged. Each test runs a fresh interpreter (a clean sys.modules)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(script: str, tmp_path: Path) -> str:
    path = tmp_path / "main_script.py"
    path.write_text(textwrap.dedent(script), encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_decoding_child_does_not_run_the_parents_main_module_again(tmp_path):
    """The main module's top level (the worker's `-m autograder.cli`, the `autograder` script) is not
    run in each decoding child: it cost the file's CPU limit and a busy host's time."""
    marker = tmp_path / "main_ran_in"
    out = _run(f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        with open({str(marker)!r}, "a") as f:      # what a heavy main's imports would cost, made visible
            f.write(__name__ + "\\n")
        if __name__ == "__main__":
            from grading.inputs import validate_audit, validate_figure
            from tests.audit.helpers import make_heatmap
            from tests.audit.hostile_files import pdf_with_text
            validate_figure("heatmap.png", make_heatmap())
            text = validate_audit("audit.pdf", pdf_with_text(["Row q0 puts 0.58 on key k1."]))
            print("k1" in text)
        """, tmp_path)
    assert out.strip() == "True"
    assert marker.read_text().split() == ["__main__"], "a decoding child ran the parent's main module again"


def test_the_fork_server_preloads_everything_a_decode_imports(tmp_path):
    """Decoding an honest figure (PNG and JPEG) and PDF after the fork server's preload imports no
    further module: each child pays for its file, not for numpy, yaml or the checker."""
    out = _run(f"""
        import importlib, io, json, sys
        sys.path.insert(0, {str(ROOT)!r})
        from tests.audit.helpers import make_heatmap
        from tests.audit.hostile_files import pdf_with_text
        png, jpeg = make_heatmap(), make_heatmap(fmt="JPEG")
        pdf = pdf_with_text(["Row q0 puts 0.58 on key k1; masked keys get 0."])
        before = set(sys.modules)
        from grading import decode
        for name in decode._PRELOAD:
            importlib.import_module(name)
        loaded = set(sys.modules)
        from grading import inputs
        inputs.decode_figure("heatmap.png", png)
        inputs.decode_figure("heatmap.jpg", jpeg)
        inputs.extract_audit("audit.pdf", pdf)
        print(json.dumps(sorted(set(sys.modules) - loaded)))
        """, tmp_path)
    assert json.loads(out) == []
