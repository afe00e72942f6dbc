"""Mend of round 46 (review RC), in-process: the jail's package walk imports nothing (MED 1), the loop flushes only
the streams it made or plain file streams (MED 2), a loaded module always has its own ``__builtins__`` (LOW 1), and
pydoc's module scan says what asked for it (LOW 2). The graded files: tests/grading/test_hostile_mend_round46.py."""

from __future__ import annotations

import io
import pkgutil
import sys

import pytest

from grading.sandbox import runtime


def _package(root, name: str, init: str = "") -> None:
    pkg = root / name
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text(init)
    (pkg / "leaf.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text(init)
    (pkg / "sub" / "deep.py").write_text("")


def test_the_jails_package_walk_lists_what_pkgutils_lists_without_running_any_package(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _package(tmp_path, "mend46_walked")
    expected = [(m.name, m.ispkg) for m in pkgutil.walk_packages([str(tmp_path)])]
    for name in [n for n in sys.modules if n.startswith("mend46_walked")]:
        del sys.modules[name]
    # a package whose import would raise: the real walk imports it (onerror called, its submodules lost)
    _package(tmp_path, "mend46_raises", init="raise RuntimeError('imported')\n")
    errors: list[str] = []
    walked = [(m.name, m.ispkg) for m in runtime._walk_packages_unimported([str(tmp_path)], onerror=errors.append)]
    assert [w for w in walked if w[0].startswith("mend46_walked")] == expected
    assert ("mend46_raises.sub.deep", False) in walked and errors == []
    assert not [n for n in sys.modules if n.startswith(("mend46_walked", "mend46_raises"))]
    prefixed = [m.name for m in runtime._walk_packages_unimported([str(tmp_path / "mend46_walked")], "p.")]
    assert prefixed == ["p.leaf", "p.sub", "p.sub.deep"]


@pytest.mark.slow
def test_the_jails_walk_of_the_whole_sys_path_imports_nothing_and_costs_under_two_seconds():
    import time

    before = set(sys.modules)
    started = time.process_time()
    names = [m.name for m in runtime._walk_packages_unimported()]
    cpu = time.process_time() - started
    assert "torch.nn.functional" in names and "json.decoder" in names and len(names) > 1000
    assert set(sys.modules) == before and cpu < 2, cpu


def test_the_loop_does_not_call_the_flush_of_an_object_the_file_put_on_sys_stdout(monkeypatch):
    calls: list[str] = []

    class Stream:
        def write(self, s):
            return len(s)

        def flush(self):
            calls.append("flush")
            raise SystemExit(0)

    monkeypatch.setattr(sys, "stdout", Stream())
    monkeypatch.setattr(sys, "stderr", Stream())
    runtime._flush()
    assert calls == []


def test_the_loop_flushes_its_own_streams_and_a_plain_file_stream_the_file_rewrapped(tmp_path, monkeypatch):
    own = io.TextIOWrapper(io.BufferedWriter(io.FileIO(str(tmp_path / "own"), "w")), encoding="utf-8")
    rewrapped = io.TextIOWrapper(io.BufferedWriter(io.FileIO(str(tmp_path / "rewrapped"), "w")), encoding="utf-8")
    monkeypatch.setattr(runtime, "_STDIO", [own])
    monkeypatch.setattr(sys, "stdout", rewrapped)
    own.write("mine")
    rewrapped.write("学生")
    runtime._flush()
    assert (tmp_path / "own").read_text() == "mine" and (tmp_path / "rewrapped").read_text(encoding="utf-8") == "学生"


def test_a_module_loaded_without_limited_imports_gets_the_process_builtins_not_the_loops_private_copy(monkeypatch):
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "orig_argv", list(sys.orig_argv))
    rt = runtime.Runtime()
    try:
        rt.op_load({"source": "B = __builtins__\n", "filename": "m_mend46.py", "module_name": "m_mend46",
                    "watch": {}})
        assert rt.module.B is not vars(runtime)["__builtins__"]
        assert rt.module.B["isinstance"] is isinstance
    finally:
        sys.modules.pop("m_mend46", None)


@pytest.mark.parametrize(("key", "en", "zh"), [
    (None, "[grader] help('modules') lists no modules here", "help('modules') 在此不列出任何模块"),
    ("attention", "help('modules ...') or pydoc.apropos('attention') lists no modules",
     "help('modules ...') 或 pydoc.apropos('attention') 在此不列出任何模块"),
])
def test_pydocs_module_scan_says_on_one_line_what_asked_for_it_in_both_languages(monkeypatch, key, en, zh):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    runtime._no_module_scan(None, lambda *a: None, key)
    said = err.getvalue()
    assert said.count("\n") == 1 and en in said and zh in said, said
