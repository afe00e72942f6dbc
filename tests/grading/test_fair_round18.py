"""Fairness round 18: correct files in the styles of well-known public code that lost points, each
left alone now, with its hostile neighbours still flagged. The files themselves are in
tests/fixtures/submissions/correct/ (graded end to end by test_grading.test_correct_styles_get_full_code_marks)."""

from __future__ import annotations

import pytest

from grader_tests.attention import static
from tests.grading.helpers import SUBMISSIONS

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
SDPA = "class ScaledDotProductAttention(nn.Module):\n    def forward(self, q, k, v):\n        return torch.softmax(q @ k.transpose(-2, -1), -1) @ v\n\n"


def _source(name: str) -> str:
    return (SUBMISSIONS / "correct" / f"{name}.py").read_text(encoding="utf-8")


# ------------------------------------------------------------------ standard-library helpers of public code
# hf_vit_simplenamespace (a SimpleNamespace config in place of HF's PretrainedConfig) and
# fairseq_incremental_uuid (FairseqIncrementalState's str(uuid.uuid4()) key) each cost 13 points pending review.
@pytest.mark.parametrize("name", ["hf_vit_simplenamespace", "fairseq_incremental_uuid"])
def test_round_18_correct_files_importing_types_or_uuid_are_neither_hiding_nor_fused(name):
    assert static.hidden_name_uses(_source(name)) == ()
    assert static.fused_attention_uses(_source(name)) == []


STDLIB_HONEST = {
    "simple_namespace_imported": "from types import SimpleNamespace\ncfg = SimpleNamespace(hidden_size=8)\n",
    "simple_namespace_on_the_module": "import types\ncfg = types.SimpleNamespace(hidden_size=8)\n",
    "uuid4_on_the_module": "import uuid\nkey = str(uuid.uuid4())\n",
    "uuid4_imported": "from uuid import uuid4, UUID\nkey = UUID(str(uuid4()))\n",
}


@pytest.mark.parametrize("code", STDLIB_HONEST.values(), ids=STDLIB_HONEST.keys())
def test_a_simple_namespace_config_or_a_uuid_key_is_not_flagged(code):
    assert static.hidden_name_uses(HEADER + code) == ()
    assert static.fused_attention_uses(HEADER + code) == []


STDLIB_STILL = {
    "function_type": ("import types\nf = types.FunctionType\n", "types.FunctionType"),
    "method_type_binding_torch": ("import types as t\nm = t.MethodType(lambda self: self.ops, torch)\n",
                                  "t.MethodType"),
    "module_type_imported": ("from types import SimpleNamespace, ModuleType\n", "imports types"),
    "code_type_imported": ("from types import CodeType\n", "imports types"),
    "types_as_a_value": ("import types\nt = types\n", "types used as a value"),
    "uuid_reaching_os": ("import uuid\no = uuid.os\n", "uuid.os"),
    "uuid_other_names": ("import uuid\nn = uuid.getnode()\n", "uuid.getnode"),
    "simple_namespace_off_torch": ("n = torch.types.SimpleNamespace\n", "torch.types"),
}


@pytest.mark.parametrize(("code", "reason"), STDLIB_STILL.values(), ids=STDLIB_STILL.keys())
def test_the_rest_of_types_and_uuid_stays_flagged(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found
