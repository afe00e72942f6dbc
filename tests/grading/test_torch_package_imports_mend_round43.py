"""Review D mend, round 43 (MED 1): a package of torch is judged as its reads are, whatever the import's spelling.
``import torch.testing`` (for a self-check under the main guard) and ``from torch import testing`` cost 17 points and
a review flag while ``from torch.testing import assert_close`` cost none; ``import torch.jit`` was no finding while
``from torch import jit`` was one (so were onnx, compiler, types, signal)."""
from __future__ import annotations

import pytest

from grader_tests.attention.static import hidden_name_uses
from tests.grading.helpers import SUBMISSIONS, code_score, failed_tests, grade_stored

HEADER = "import torch\nfrom torch import nn\n\n\nclass A(nn.Module):\n    pass\n\n\n"
PACKAGES = ["testing", "jit", "onnx", "compiler", "types", "signal", "distributed"]
# torch's other unreviewable packages stay findings in every spelling, read or not
UNREVIEWABLE = ["fx", "utils", "hub", "export", "ao"]
# each package with a harmless read (as torch.<package>.<attr> is no finding) and one that is a finding
READS = [("testing", "assert_close", False), ("testing", "make_tensor", False), ("jit", "script", False),
         ("jit", "CompilationUnit", True), ("jit", "load", True), ("compiler", "disable", False),
         ("compiler", "allow_in_graph", True), ("onnx", "is_in_onnx_export", False), ("onnx", "export", True),
         ("fx", "symbolic_trace", True), ("hub", "load", True), ("signal", "windows", True)]


def _flagged(code: str) -> bool:
    return bool(hidden_name_uses(HEADER + code))


@pytest.mark.parametrize("package", PACKAGES)
def test_a_torch_package_imported_and_not_read_is_no_finding_in_every_spelling(package):
    spellings = [f"import torch.{package}\n", f"from torch import {package}\n", f"import torch.{package} as tp\n"]
    assert [hidden_name_uses(HEADER + s) for s in spellings] == [(), (), ()]


@pytest.mark.parametrize("package", UNREVIEWABLE)
def test_another_unreviewable_torch_package_stays_a_finding_in_every_spelling(package):
    spellings = [f"from torch import {package}\n", f"import torch.{package} as tp\n",
                 f"def f():\n    return torch.{package}\n"]
    assert all(hidden_name_uses(HEADER + s) for s in spellings)


@pytest.mark.parametrize(("package", "attr", "flagged"), READS, ids=[f"{p}.{a}" for p, a, _ in READS])
def test_a_read_off_a_torch_package_is_judged_the_same_in_every_spelling(package, attr, flagged):
    spellings = {"through torch": f"def f():\n    return torch.{package}.{attr}\n",
                 "import torch.P": f"import torch.{package}\n\n\ndef f():\n    return torch.{package}.{attr}\n",
                 "from torch import P": f"from torch import {package}\n\n\ndef f():\n    return {package}.{attr}\n",
                 "import torch.P as": f"import torch.{package} as tp\n\n\ndef f():\n    return tp.{attr}\n"}
    assert {k: _flagged(v) for k, v in spellings.items()} == dict.fromkeys(spellings, flagged)


def test_torch_types_bound_by_name_is_harmless_in_annotations_only():
    assert not _flagged("from torch import types\n\n\ndef f(x: types.Number) -> None:\n    pass\n")
    assert _flagged("from torch import types\n\n\ndef f():\n    return types.Number\n")


def test_a_torch_package_bound_by_name_and_passed_around_stays_flagged():
    assert _flagged("from torch import testing\nt = testing\n")
    assert _flagged("from torch import jit\n\n\ndef g(jit):\n    return jit.script\n")


SELF_CHECK = "\n\nif __name__ == '__main__':\n    {}.assert_close(torch.ones(2), torch.ones(2))\n"
BASE = (SUBMISSIONS / "correct" / "pep8_matplotlib_imports.py").read_text()


@pytest.mark.parametrize(("imports", "owner"), [("import torch.testing\n", "torch.testing"),
                                                ("from torch import testing\n", "testing")],
                         ids=["import_torch_testing", "from_torch_import_testing"])
def test_a_correct_file_with_a_torch_testing_self_check_gets_full_code_marks(executor, imports, owner):
    result = grade_stored(executor, imports + BASE + SELF_CHECK.format(owner))
    assert code_score(result) == 85, failed_tests(result)
    assert not result["review"]
