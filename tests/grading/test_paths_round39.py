"""Round 39, the grader-path filter (grading.proxy.hide_grader_paths) made precise: grader paths only.

Found: with the interpreter installed under a two-folder prefix (/usr/local, as in the python Docker images), every
path under that prefix was cut, the student's own /usr/local/x/attention.py too; and the jail's working folder
itself, printed by the student (os.getcwd()), became "." ."""

from __future__ import annotations

import sys

import pytest

from grading import proxy
from grading.proxy import SANDBOX_WORKDIR, hide_grader_paths


@pytest.fixture
def usr_local(monkeypatch):
    """The grader's Python as the python Docker images install it: base prefix /usr/local."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    monkeypatch.setattr(sys, "base_prefix", "/usr/local")
    monkeypatch.setattr(sys, "base_exec_prefix", "/usr/local")
    monkeypatch.setattr(sys, "path", [*sys.path, f"/usr/local/lib/{version}", f"/usr/local/lib/{version}/lib-dynload"])
    proxy._grader_roots.cache_clear()
    yield version
    monkeypatch.undo()
    proxy._grader_roots.cache_clear()


def test_a_students_path_under_a_two_folder_interpreter_prefix_is_kept(usr_local):
    for own in ("/usr/local/x/attention.py", "/usr/local/share/data.npy", "/usr/local/lib/mine/a.py"):
        assert hide_grader_paths(f"[Errno 2] No such file or directory: '{own}'").endswith(f"'{own}'"), own


def test_the_interpreters_own_folders_under_that_prefix_are_still_cut(usr_local):
    version = usr_local
    assert hide_grader_paths(f"in /usr/local/lib/{version}/json/decoder.py") == "in …/json/decoder.py"
    assert hide_grader_paths("ran /usr/local/bin/python3 here") == "ran …/python3 here"
    assert "/usr/local" not in hide_grader_paths(f"(/usr/local/lib/{version}/lib-dynload/_ssl.so)")


def test_the_venvs_folder_stays_the_graders():
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests run outside a venv")
    assert hide_grader_paths(f"{sys.prefix}/lib/x.py.") == "…/lib/x.py."


def test_the_jails_working_folder_itself_is_kept_and_a_file_in_it_said_by_its_name():
    for said in (f"cwd: {SANDBOX_WORKDIR}", f"os.getcwd() is {SANDBOX_WORKDIR}.", f"'{SANDBOX_WORKDIR}/'"):
        assert hide_grader_paths(said) == said
    # the full stop after a file's path stays a full stop
    assert hide_grader_paths(f"module 'attention' ({SANDBOX_WORKDIR}/attention.py).") == \
        "module 'attention' (attention.py)."
