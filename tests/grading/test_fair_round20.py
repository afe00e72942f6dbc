"""Fairness round 20: a private name read through ``self`` is the student's own only when what it is read off
can only be the student's own object. Round 19 trusted any chain rooted at ``self`` (``_root`` walks through
attributes and subscripts), so PyTorch's module, class or function kept under a name of ``self`` by any means
(``self.t = [torch][0]``, ``self.t = torch.nn``, a list or dict attribute, ``setattr(self, computed, ...)``)
turned ``self.t.nn.attention.bias.CausalBias._dispatch`` (which runs the fused kernel) into no finding.
Now ``self._x`` / ``cls._x`` stay trusted, ``self.A._x`` only when every binding of ``A`` the file shows is an
object of a plain class of the file (hf_llama_eager_forward's ``self.config = LlamaConfig(...)``, a dataclass,
then ``self.config._attn_implementation``), and anything deeper is judged as any other private name.
The run-time watch now also counts the attention kernels called as dispatcher operators (``torch.ops.aten.X``
and its overloads), which no wrapper of ``torch.X`` reached."""

from __future__ import annotations

import pytest

from grader_tests.attention import static
from tests.grading.helpers import SUBMISSIONS

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
INIT = "class C(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
DISPATCH = "torch.nn.attention.bias.CausalBias"


def _hidden(code: str) -> tuple[str, ...]:
    return static.hidden_name_uses(HEADER + code)


def _forward(body: str) -> str:
    return f"    def forward(self, q, k, v):\n        {body}\n"


HOSTILE = {
    "module_kept_as_attribute_chain": INIT + "        self.t = torch.nn\n"
    + _forward("return self.t.attention.bias.CausalBias._dispatch(q, k, v)"),
    "torch_in_a_list_indexed": INIT + "        self.t = [torch][0]\n"
    + _forward("return self.t.nn.attention.bias.CausalBias._dispatch(q, k, v)"),
    "class_in_a_list_attribute": INIT + f"        self.ts = [{DISPATCH}]\n" + _forward("return self.ts[0]._dispatch(q, k, v)"),
    "class_in_a_dict_attribute": INIT + f"        self.ts = {{'a': {DISPATCH}}}\n"
    + _forward("return self.ts['a']._dispatch(q, k, v)"),
    "class_kept_directly": INIT + f"        self.cb = {DISPATCH}\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "class_kept_under_a_private_name": INIT + f"        self._cb = {DISPATCH}\n"
    + _forward("return self._cb._dispatch(q, k, v)"),
    "setattr_with_a_computed_name": "import sys\nclass Own:\n    pass\n" + INIT
    + f"        self.cb = Own()\n        setattr(self, sys.argv[0], {DISPATCH})\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "setattr_handed_on": "import functools\nclass Own:\n    pass\n" + INIT
    + f"        self.cb = Own()\n        functools.partial(setattr, self)('cb', {DISPATCH})\n"
    + _forward("return self.cb._dispatch(q, k, v)"),
    "own_class_and_torch_bound_to_one_name": "class Own:\n    pass\n" + INIT
    + f"        self.cb = Own()\n    def reset(self):\n        self.cb = {DISPATCH}\n"
    + _forward("return self.cb._dispatch(q, k, v)"),
    "stored_by_a_tuple_target": "class Own:\n    pass\n" + INIT
    + f"        self.cb, self.d = {DISPATCH}, Own()\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "stored_by_a_loop_target": INIT + f"        for self.cb in [{DISPATCH}]:\n            pass\n"
    + _forward("return self.cb._dispatch(q, k, v)"),
    "stored_on_another_object": "class Own:\n    pass\nclass Box:\n    pass\nb = Box()\n"
    f"b.cb = {DISPATCH}\n" + INIT + "        self.cb = Own()\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "a_property_of_that_name": "class Own:\n    pass\n" + INIT + "        self.x = Own()\n"
    f"    @property\n    def cb(self):\n        return {DISPATCH}\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "a_class_attribute_of_that_name": f"class Own:\n    pass\nclass C(nn.Module):\n    cb = {DISPATCH}\n"
    + _forward("return self.cb._dispatch(q, k, v)"),
    "own_class_with_a_decorator": f"def deco(c):\n    return {DISPATCH}\n@deco\nclass Own:\n    pass\n" + INIT
    + "        self.cb = Own()\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "own_class_with_a_new": f"class Own:\n    def __new__(cls):\n        return {DISPATCH}\n" + INIT
    + "        self.cb = Own()\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "own_class_rebound": f"class Own:\n    pass\nOwn = {DISPATCH}\n" + INIT
    + "        self.cb = Own()\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "own_class_deriving_from_a_foreign_module": "import types\nx = types.SimpleNamespace(Module=nn.Module)\n"
    "class Own(x.Module):\n    pass\n" + INIT + "        self.cb = Own()\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "a_decorator_named_dataclass_of_the_files_own": f"def dataclass(c):\n    return {DISPATCH}\n@dataclass\n"
    "class Own:\n    pass\n" + INIT + "        self.cb = Own()\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "a_getattr_answering_any_name": "class C(nn.Module):\n    def __getattr__(self, name):\n"
    f"        return {DISPATCH}\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "a_getattribute_answering_any_name": "class C(nn.Module):\n    def __getattribute__(self, name):\n"
    f"        return {DISPATCH}\n" + _forward("return self.cb._dispatch(q, k, v)"),
    "put_in_nn_modules_own_modules_dict": INIT + f"        self._modules['cb'] = {DISPATCH}\n"
    + _forward("return self.cb._dispatch(q, k, v)"),
    "put_in_nn_modules_own_buffers_dict": INIT + f"        self._buffers.update(cb={DISPATCH})\n"
    + _forward("return self.cb._dispatch(q, k, v)"),
    "put_in_nn_modules_own_parameters_dict": INIT + f"        self._parameters.setdefault('cb', {DISPATCH})\n"
    + _forward("return self.cb._dispatch(q, k, v)"),
    "own_object_then_deeper": "class Own:\n    def __init__(self):\n        self.m = torch.nn\n" + INIT
    + "        self.cb = Own()\n" + _forward("return self.cb.m.attention.bias.CausalBias._dispatch(q, k, v)"),
}


@pytest.mark.parametrize("code", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_private_name_read_off_something_pytorch_may_have_put_on_self_is_flagged(code):
    found = _hidden(code)
    assert any("_dispatch (a private name of something not your own)" in f for f in found), found


HONEST = {
    "own_config_object": "class Config:\n    def __init__(self):\n        self._impl = 'eager'\n" + INIT
    + "        self.config = Config()\n" + _forward("return q if self.config._impl == 'eager' else k"),
    "own_dataclass": "from dataclasses import dataclass\n@dataclass\nclass Config:\n    _impl: str = 'eager'\n"
    + INIT + "        self.config = Config(_impl='eager')\n" + _forward("return q if self.config._impl else k"),
    "qualified_dataclass": "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass Config:\n    _impl: str = 'e'\n"
    + INIT + "        self.config = Config()\n" + _forward("return q if self.config._impl else k"),
    "own_submodule_deriving_from_nn_module": "class Inner(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self._last = None\n" + INIT + "        self.inner = Inner()\n"
    + _forward("return self.inner._last"),
    "own_private_attribute": INIT + "        self._scale = 2.0\n" + _forward("return q * self._scale"),
    "a_submodule_the_file_never_binds": "class C(nn.Module):\n" + _forward("return self.attention._last_shape"),
}


@pytest.mark.parametrize("code", HONEST.values(), ids=HONEST.keys())
def test_a_private_name_of_the_students_own_object_is_no_finding(code):
    assert _hidden(code) == ()


def test_the_llama_style_config_stays_unflagged():
    source = (SUBMISSIONS / "correct" / "hf_llama_eager_forward.py").read_text(encoding="utf-8")
    assert static.hidden_name_uses(source) == ()


# ------------------------------------------------------------------ the run-time watch, end to end
# A dispatcher operator called through torch.ops (its packet or an overload such as ``.default``) runs the
# kernel without passing through ``torch.X`` or ``F.scaled_dot_product_attention``, which were all the watch
# wrapped: these four ran the fused or math kernel with every counter at 0.
RUNTIME = {
    "ops_packet": "return torch.ops.aten.scaled_dot_product_attention(q, k, v)",
    "ops_overload": "return torch.ops.aten.scaled_dot_product_attention.default(q, k, v)",
    "ops_math_kernel": "return torch.ops.aten._scaled_dot_product_attention_math.default(q, k, v)[0]",
    "ops_flash_kernel": "return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v)[0]",
    "honest": "return torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, dim=-1) @ v",
}


@pytest.mark.parametrize("name", RUNTIME)
def test_the_run_time_watch_counts_the_kernels_called_as_operators(executor, name):
    import torch

    src = f"import torch\nclass A(torch.nn.Module):\n    def forward(self, q, k, v):\n        {RUNTIME[name]}\n"
    q = torch.randn(1, 2, 3, 4)
    with executor.session(src, "attention.py", "attention",
                          watch={"count": ["A.forward"], "forbid": static.FORBID_RUNTIME}) as s:
        s.load()
        out = s.call(s.new("A"), "__call__", q, q, q)
        stats = s.stats()
    assert torch.allclose(out, torch.nn.functional.scaled_dot_product_attention(q, q, q), atol=1e-5)
    assert not [n for n in stats["missing"] if n.startswith("torch.ops.")]
    assert (sum(stats["forbid"].values()) > 0) == (name != "honest"), stats["forbid"]
