"""What the trusted source analysis (grader_tests/attention/static.py) accepts and flags.

A name the source writes out can be checked; a name computed at run time cannot, and only that
is flagged. MultiHeadAttention "refers to" ScaledDotProductAttention however public code wires
them: aliases, registries, base classes, factories."""

from __future__ import annotations

import time

import pytest

from grader_tests.attention import static

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

WRITTEN_OUT = {
    "setattr_constant": "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                        "        setattr(self, 'q_proj', nn.Linear(4, 4))\n",
    "setattr_computed_on_self": "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                "        for n in 'qkv':\n            setattr(self, f'{n}_proj', nn.Linear(4, 4))\n",
    "getattr_constant_private_on_self": "class M(nn.Module):\n    def f(self):\n"
                                        "        return getattr(self, '_cache', None)\n",
    "class_name_in_repr": "class M(nn.Module):\n    def extra_repr(self):\n"
                          "        return self.__class__.__name__\n",
    "fairseq_jit_guards": "class M(nn.Module):\n    def f(self, x):\n        if not torch.jit.is_scripting():\n"
                          "            assert x.dim() == 4\n        return x\n\n    @torch.jit.unused\n"
                          "    def g(self):\n        return 1\n",
    "jit_guard_imported": "from torch.jit import is_scripting\n",
    "ide_auto_import": "from torch.nn.modules.linear import Linear\nimport torch.nn.modules.dropout\n",
    "hasattr_constant": "def f(m):\n    return hasattr(m, 'bias')\n",
    "reviewable_imports": "import copy\nimport math\nfrom functools import partial\nfrom dataclasses import dataclass\n"
                          "from typing import Optional\nimport numpy as np\nfrom einops import rearrange\n",
    "module_method_named_like_a_module": "class M(nn.Module):\n    def f(self):\n        return list(self.modules())\n",
    "a_staticmethod_called_on_its_class": ("class M(nn.Module):\n    @staticmethod\n    def split(t):\n        return t\n\n"
                                           "    def forward(self, x):\n        return M.split(x)\n"),
    "a_private_helper_of_the_own_base_class": ("class B(nn.Module):\n    def _split(self, t):\n        return t\n\n"
                                               "class M(B):\n    def forward(self, x):\n        return super()._split(x)\n"),
    "a_private_attribute_of_an_own_submodule": ("class M(nn.Module):\n    def forward(self, x):\n"
                                                "        return self.attention._last_shape\n"),
    "weight_init_copied_from_nn_linear": ("fan_in, _ = nn.init._calculate_fan_in_and_fan_out(torch.empty(4, 4))\n"),
    "a_match_on_a_shape_or_a_dataclass": (
        "from dataclasses import dataclass\n\n@dataclass\nclass Cfg:\n    d: int\n    h: int\n\n"
        "def f(x, cfg):\n    match x.shape:\n        case torch.Size([b, n, d]):\n            pass\n"
        "    match cfg:\n        case Cfg(d, h):\n            return d // h\n"),
    "pytorchs_names_in_messages": ("assert True, 'Transformer attention: d_model must be divisible by num_heads'\n"
                                   "msg = 'same numbers as torch.nn.functional.scaled_dot_product_attention, checked'\n"),
    "docstrings_and_messages_name_what_they_like": (
        "class M(nn.Module):\n    \"\"\"Same numbers as F.scaled_dot_product_attention.\"\"\"\n\n"
        "    def f(self, x):\n        if x is None:\n            raise ValueError(f'no input for {self}')\n"
        "        match x.shape:\n            case (b, n, d):\n                return b\n            case int(n):\n"
        "                return n\n"),
}

HIDDEN = {
    "getattr_computed_on_a_module": ("def f(n):\n    return getattr(F, n + '_attention')\n", "computed name"),
    "getattr_computed_on_self": ("class M(nn.Module):\n    def f(self, n):\n        return getattr(self, n)\n",
                                 "computed name"),
    "getattr_private_on_a_module": ("k = getattr(torch, '_C')\n", "'_C'"),
    "getattr_as_a_value": ("g = getattr\n", "used as a value"),
    "setattr_computed_on_a_module": ("def f(n, v):\n    setattr(F, n, v)\n", "computed name"),
    "torch_ops": ("k = torch.ops.aten\n", "torch.ops"),
    "wrapped": ("k = F.softmax.__wrapped__\n", "__wrapped__"),
    "sys_modules": ("import sys\nt = sys.modules['torch']\n", "sys.modules"),
    "from_sys_import_modules": ("from sys import modules\n", "import modules"),
    "class_hierarchy": ("s = ().__class__.__base__.__subclasses__()\n", "__subclasses__"),
    "jit_compiles_a_string": ("cu = torch.jit.CompilationUnit('def f(x): return x')\n", "torch.jit"),
    "jit_module_imported": ("from torch import jit\ncu = jit.CompilationUnit\n", "import jit"),
    "importlib": ("import importlib\nm = importlib.import_module('math')\n", "importlib"),
    "eval": ("x = eval('1')\n", "eval"),
    "a_module_the_review_cannot_follow": ("import pydoc\nh = pydoc.render_doc\n", "imports pydoc"),
    "os_reaches_sys": ("import os\nm = os.sys.modules\n", "os.sys"),
    "builtins_by_name": ("g = __builtins__['getattr']\n", "__builtins__"),
    "match_class_pattern": ("match F:\n    case object(_scaled_dot_product_attention_math=f):\n        pass\n",
                            "match pattern"),
    "a_modules_private_name": ("import collections\ns = collections._sys\n", "private name"),
    "torch_utils": ("f = torch._utils._import_dotted_name\n", "_utils"),
    "a_private_name_deeper_in_a_module": ("f = torch.utils._pytree\n", "private name"),
    "pickles_loaded_by_numpy": ("import numpy as np\nw = np.load('/tmp/w.npy', allow_pickle=True)\n", "np.load"),
    "a_loader_imported_by_name": ("from numpy import load\n", "import load"),
    "a_loader_deeper_in_numpy": ("from numpy.lib.format import read_array\n", "read_array"),
    "string_annotations_evaluated": ("from functools import singledispatch\nd = singledispatch\n", "singledispatch"),
    # (round 26: a public name read off self, ``self.softmax(q)``, is judged as off any parameter; a private one is
    # what the review trusts on the student's own object)
    "a_function_taking_self_outside_a_class": ("def attend(self, q):\n    return self._softmax(q)\n", "taking self"),
    "a_method_called_with_another_self": ("class A:\n    def f(self):\n        return 1\n\nA.f(torch)\n",
                                          "another self"),
    "a_private_name_of_anything": ("lib = (torch,)[0]\nf = lib._C\n", "_C"),
    "attributes_read_by_a_positional_match_pattern": (
        "class Pick:\n    __match_args__ = ('softmax',)\n\nmatch F:\n    case Pick(f):\n        pass\n",
        "by position"),
    "a_class_that_matches_anything": ("class Any(type):\n    def __instancecheck__(cls, obj):\n        return True\n",
                                      "__instancecheck__"),
    "a_name_spelled_in_pieces": ("name = 'scaled_dot_product' + '_attention'\n", "the string"),
    "a_name_resolver_in_torch_ao": ("from torch.ao.quantization.utils import getattr_from_fqn\n", "torch.ao"),
    "a_name_resolver_in_torch_fx": ("g = torch.fx.Interpreter\n", "torch.fx"),
    "torch_utils_by_from_import": ("from torch import utils\n", "import utils"),
    "a_dunder_spelled_in_a_string": ("name = f\"{'__wr'}apped__\"\n", "the string"),
    "native_code_through_numpy": ("import numpy as np\nlib = np.ctypeslib\n", "ctypeslib"),
    "type_hints_evaluate_strings": ("import typing\nh = typing.get_type_hints\n", "get_type_hints"),
}


@pytest.mark.parametrize("code", WRITTEN_OUT.values(), ids=WRITTEN_OUT.keys())
def test_names_written_out_in_the_source_are_not_flagged(code):
    assert static.hidden_name_uses(HEADER + code) == ()


@pytest.mark.parametrize(("code", "reason"), HIDDEN.values(), ids=HIDDEN.keys())
def test_names_computed_or_hidden_at_run_time_are_flagged_with_their_line(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert found and any(reason in f for f in found), found
    assert all(f.startswith("line ") for f in found)


SDPA = "class ScaledDotProductAttention(nn.Module):\n    def forward(self, q, k, v):\n        return torch.softmax(q @ k.transpose(-2, -1), -1) @ v\n\n"

REUSES = {
    "attribute": "class MultiHeadAttention(nn.Module):\n    def __init__(self):\n"
                 "        self.attention = ScaledDotProductAttention()\n",
    "alias_of_the_class": "class MultiHeadedAttention(nn.Module):\n    def __init__(self):\n"
                          "        self.attn = ScaledDotProductAttention()\n\nMultiHeadAttention = MultiHeadedAttention\n",
    "registry": "ATTENTION_CLASSES = {'eager': ScaledDotProductAttention}\n\n"
                "class MultiHeadAttention(nn.Module):\n    def __init__(self, impl='eager'):\n"
                "        self.attn = ATTENTION_CLASSES[impl]()\n",
    "base_class": "class _Base(nn.Module):\n    def __init__(self):\n        self.attention = ScaledDotProductAttention()\n\n"
                  "class MultiHeadAttention(_Base):\n    def forward(self, x):\n        return self.attention(x, x, x)\n",
    "factory": "def make_attention():\n    return ScaledDotProductAttention()\n\n"
               "class MultiHeadAttention(nn.Module):\n    def __init__(self):\n        self.a = make_attention()\n",
    "instance": "_core = ScaledDotProductAttention()\n\n"
                "class MultiHeadAttention(nn.Module):\n    def forward(self, x):\n        return _core(x, x, x)\n",
    "sdpa_is_an_alias": "ScaledDotProductAttention = DotProductAttention\n\n"
                        "class MultiHeadAttention(nn.Module):\n    def __init__(self):\n"
                        "        self.attention = DotProductAttention()\n",
}


@pytest.mark.parametrize("code", REUSES.values(), ids=REUSES.keys())
def test_multi_head_refers_to_the_single_head_module_however_it_is_wired(code):
    source = HEADER + SDPA.replace("ScaledDotProductAttention", "DotProductAttention") + code \
        if "DotProductAttention()" in code and "= DotProductAttention" in code else HEADER + SDPA + code
    assert static.class_uses_class(source, "MultiHeadAttention", "ScaledDotProductAttention")
    assert static.class_softmax_calls(source, "MultiHeadAttention") == []


def test_multi_head_that_never_reaches_the_single_head_module_is_told_so():
    unrelated = HEADER + SDPA + "def helper(x):\n    return x\n\nclass MultiHeadAttention(nn.Module):\n" \
                                "    def forward(self, x):\n        return helper(x)\n"
    assert not static.class_uses_class(unrelated, "MultiHeadAttention", "ScaledDotProductAttention")
    assert not static.class_uses_class(HEADER + SDPA, "MultiHeadAttention", "ScaledDotProductAttention")


def test_softmax_copied_into_the_multi_head_class_is_found_through_aliases_and_base_classes():
    base = HEADER + SDPA + "class _Base(nn.Module):\n    def attend(self, s):\n        return s.softmax(-1)\n\n" \
                           "class MultiHeadedAttention(_Base):\n    def forward(self, x):\n" \
                           "        return torch.exp(self.attend(x))\n\nMultiHeadAttention = MultiHeadedAttention\n"
    assert [f.split(": ")[1] for f in static.class_softmax_calls(base, "MultiHeadAttention")] == ["softmax(...)", "exp(...)"]
    # deriving from the single-head module is reuse, not a copy
    derived = HEADER + SDPA + "class MultiHeadAttention(ScaledDotProductAttention):\n    pass\n"
    assert static.class_softmax_calls(derived, "MultiHeadAttention") == []


def test_a_softmax_helper_in_a_shared_base_counts_only_when_the_multi_head_class_calls_it():
    shared = HEADER + "class _Base(nn.Module):\n    @staticmethod\n    def _normalise(s):\n" \
                      "        return s.softmax(-1)\n\n" \
                      "class ScaledDotProductAttention(_Base):\n    def forward(self, q, k, v):\n" \
                      "        return self._normalise(q @ k.transpose(-2, -1)) @ v\n\n"
    reuses = shared + "class MultiHeadAttention(_Base):\n    def forward(self, x):\n" \
                      "        return ScaledDotProductAttention()(x, x, x)\n"
    assert static.class_softmax_calls(reuses, "MultiHeadAttention") == []
    copies = shared + "class MultiHeadAttention(_Base):\n    def forward(self, x):\n" \
                      "        return self._normalise(x @ x.transpose(-2, -1)) @ x\n"
    assert [f.split(": ")[1] for f in static.class_softmax_calls(copies, "MultiHeadAttention")] == ["softmax(...)"]
    inherited = shared + "class Core(_Base):\n    def forward(self, x):\n        return torch.exp(x)\n\n" \
                         "class MultiHeadAttention(Core):\n    pass\n"
    assert [f.split(": ")[1] for f in static.class_softmax_calls(inherited, "MultiHeadAttention")] == ["exp(...)"]


@pytest.mark.parametrize("code", [
    "lib = (torch,)[0]\nf = lib.nn.functional.scaled_dot_product_attention\n",
    "for lib in [torch]:\n    f = lib._scaled_dot_product_attention_math\n",
    "class B:\n    lib = torch\n\nf = B.lib.nn.functional.scaled_dot_product_attention\n",
    "f = (lambda self: self.MultiheadAttention)(torch.nn)\n",
    "def _scaled_dot_product_attention_math():\n    pass\n\nlib = (torch,)[0]\nf = lib._scaled_dot_product_attention_math\n",
], ids=["tuple_alias", "loop_alias", "class_attribute_alias", "lambda_self", "own_function_of_that_name"])
def test_pytorchs_attention_names_are_found_on_any_object(code):
    assert static.fused_attention_uses(HEADER + code)


def test_the_students_own_method_of_that_name_is_their_own_when_inherited_or_under_torchs_decorators():
    code = ("class Base(nn.Module):\n    def scaled_dot_product_attention(self, q, k, v):\n        return q\n\n"
            "class M(Base):\n    @torch.autocast(device_type='cpu', enabled=False)\n    def forward(self, q, k, v):\n"
            "        return self.scaled_dot_product_attention(q, k, v)\n")
    assert static.fused_attention_uses(HEADER + code) == [] and static.hidden_name_uses(HEADER + code) == ()
    wrapped = code.replace("@torch.autocast(device_type='cpu', enabled=False)", "@my_wrapper")
    assert static.fused_attention_uses(HEADER + wrapped)      # a decorator of its own may pass torch as self


def test_the_students_own_method_of_that_name_is_their_own():
    code = ("class M(nn.Module):\n    def scaled_dot_product_attention(self, q, k, v):\n        return q\n\n"
            "    def forward(self, q, k, v):\n        return self.scaled_dot_product_attention(q, k, v)\n")
    assert static.fused_attention_uses(HEADER + code) == [] and static.hidden_name_uses(HEADER + code) == ()


# ------------------------------------------------------------------ ordinary script chores (round 6)
SCRIPT_CHORES = {
    "kmp_duplicate_lib_ok": "import os\nos.environ['KMP_DUPLICATE_LIB_OK'] = 'TRUE'\n",
    "seed_everything": ("import os\nimport random\nimport numpy as np\n\ndef seed_everything(seed=0):\n"
                        "    random.seed(seed)\n    os.environ['PYTHONHASHSEED'] = str(seed)\n"
                        "    np.random.seed(seed)\n    torch.manual_seed(seed)\n\nseed_everything(42)\n"),
    "sys_path_and_argv": "import sys\nsys.path.append('..')\nprint(sys.argv[0], sys.version_info >= (3, 8))\n",
    "os_path_helpers": ("import os.path as osp\nfrom os.path import join\nimport os\n"
                        "ROOT = os.path.dirname(os.path.abspath('attention.py'))\nOUT = join(ROOT, osp.basename('x'))\n"),
    "from_os_import_environ": "from os import environ, makedirs\nenviron.setdefault('OMP_NUM_THREADS', '1')\n",
    "pathlib_logging_json_re": ("from pathlib import Path\nimport logging\nimport json\nimport re\n"
                                "logger = logging.getLogger(__name__)\nlogging.basicConfig(level=logging.INFO)\n"
                                "CFG = json.loads('{\"d\": 8}')\nPAT = re.compile(r'\\d+')\nHERE = Path('.')\n"),
    "datetime_argparse_in_main": ("import argparse\nfrom datetime import datetime\n\nif __name__ == '__main__':\n"
                                  "    p = argparse.ArgumentParser()\n    p.add_argument('--d', type=int, default=8)\n"
                                  "    args = p.parse_args()\n    print(datetime.now())\n"),
    "anything_under_the_main_guard": ("if __name__ == '__main__':\n    import importlib\n    import subprocess\n"
                                      "    subprocess.run(['nvidia-smi'])\n    m = importlib.import_module('numpy')\n"),
    "unittest_test_case": ("import unittest\n\nclass T(unittest.TestCase):\n    def test_shape(self):\n"
                           "        self.assertEqual(1, 1)\n\nif __name__ == '__main__':\n    unittest.main()\n"),
}


@pytest.mark.parametrize("code", SCRIPT_CHORES.values(), ids=SCRIPT_CHORES.keys())
def test_ordinary_script_chores_with_the_standard_library_are_not_flagged(code):
    """`import os` for the KMP_DUPLICATE_LIB_OK fix, a seed helper, sys.path, pathlib, logging, json,
    argparse in a main guard: each used to cost 13 points pending review (round 6 of the red team)."""
    assert static.hidden_name_uses(HEADER + code) == ()


STDLIB_STILL_HIDING = {
    "os_sys": ("import os\nm = os.sys.modules\n", "os.sys"),
    "os_system": ("import os\nos.system('ls')\n", "os.system"),
    "os_as_a_value": ("import os\nx = os\n", "os used as a value"),
    "getattr_on_os": ("import os\nm = getattr(os, 'sys')\n", "os.sys"),
    "os_path_module_as_a_value": ("import os\np = os.path\nm = p.os\n", "os.path used as a value"),
    "os_path_alias_reaches_os": ("import os.path as osp\nm = osp.os.sys\n", "osp.os"),
    "from_os_import_system": ("from os import system\n", "imports os"),
    "logging_config": ("import logging.config\n", "imports logging.config"),
    "logging_reaches_sys": ("import logging\nm = logging.sys.modules\n", "logging.sys"),
    "unittest_mock_patch": ("import unittest\nunittest.mock.patch('torch.softmax')\n", "unittest.mock"),
    "unittest_main_outside_a_guard": ("import unittest\nunittest.main(module='torch')\n", "unittest.main"),
    "json_decoder_module": ("import json\nd = json.decoder\n", "json.decoder"),
    "mixed_import_line": ("import os, subprocess\nsubprocess.run(['ls'])\n", "imports subprocess"),
    "name_rebound_then_guard": ("__name__ = '__main__'\nif __name__ == '__main__':\n    import importlib\n",
                                "imports importlib"),
    "own_module_renamed_then_guard": ("import attention\nattention.__name__ = '__main__'\n"
                                      "if __name__ == '__main__':\n    import importlib\n", "imports importlib"),
}


@pytest.mark.parametrize(("code", "reason"), STDLIB_STILL_HIDING.values(), ids=STDLIB_STILL_HIDING.keys())
def test_the_rest_of_those_modules_still_counts_as_hiding_names(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


PARITY_CHECK = ("def check_parity():\n    q = k = v = torch.randn(1, 1, 2, 4)\n"
                "    ref = F.scaled_dot_product_attention(q, k, v)\n    return ref\n")


@pytest.mark.parametrize("code", [
    "if __name__ == '__main__':\n    q = torch.randn(1, 1, 2, 4)\n    print(F.scaled_dot_product_attention(q, q, q))\n",
    "if '__main__' == __name__:\n    m = nn.MultiheadAttention(8, 2)\n",
    PARITY_CHECK,
    PARITY_CHECK + "\nif __name__ == '__main__':\n    check_parity()\n",
])
def test_the_handouts_parity_check_that_never_runs_on_import_is_not_a_use(code):
    """Handout §5 asks students to compare with F.scaled_dot_product_attention: under a main guard or
    in a function nothing calls, that comparison never runs in the grader (it lost 3 points)."""
    assert static.fused_attention_uses(HEADER + code) == []


@pytest.mark.parametrize("code", [
    "q = torch.randn(1, 1, 2, 4)\nprint(F.scaled_dot_product_attention(q, q, q))\n",     # runs on import
    PARITY_CHECK + "\ncheck_parity()\n",
    PARITY_CHECK + "\nclass A(nn.Module):\n    def forward(self, q, k, v):\n        return check_parity()\n",
    PARITY_CHECK + "\nclass A(nn.Module):\n    def forward(self, q, k, v):\n"
                   "        return getattr(attention, 'check_parity')()\n",
    "__name__ = '__main__'\nif __name__ == '__main__':\n    m = nn.MultiheadAttention(8, 2)\n",
    "import attention\nsetattr(attention, '__name__', '__main__')\nif __name__ == '__main__':\n"
    "    m = nn.MultiheadAttention(8, 2)\n",
])
def test_a_use_that_can_run_still_counts(code):
    assert static.fused_attention_uses(HEADER + code)


def test_a_file_that_does_not_parse_is_reported_as_such_to_the_instructor():
    assert [r["text"] for r in static.review_reasons("def f(:\n")] == [
        "attention.py does not parse (a SyntaxError: see the result's message): nothing to review"]


# ------------------------------------------------------------------ red-team round 7 (the rules above)
ROUND_7 = {
    "module_getattr_defines_the_class": (
        "def __getattr__(name):\n    global ScaledDotProductAttention\n"
        "    class ScaledDotProductAttention(nn.Module):\n"
        "        def forward(self, q, k, v):\n            return F.scaled_dot_product_attention(q, k, v)\n"
        "    return ScaledDotProductAttention\n", "fused", "F.scaled_dot_product_attention"),
    "dataclass_field_names_run_as_code": (
        "import dataclasses\n\n@dataclasses.dataclass\nclass C:\n"
        "    __annotations__ = {\"d, globals().update({'__name__': '__main__'})\": int}\n", "hidden", "__annotations__"),
    "make_dataclass_field_names": ("import dataclasses\nC = dataclasses.make_dataclass('C', ['a'])\n", "hidden",
                                   "make_dataclass"),
    "sys_through_another_module": ("import warnings\nm = torch.sys.modules\nw = warnings.sys\n", "hidden", "torch.sys"),
    "update_wrapper_as_a_getattr": ("import functools\nfunctools.update_wrapper(object(), F, assigned=[n])\n",
                                    "hidden", "update_wrapper"),
    "wraps_with_chosen_names": ("import functools\nd = functools.wraps(F, assigned=names)\n", "hidden", "wraps"),
    "argparse_sets_names_on_torch": ("import argparse\np = argparse.ArgumentParser()\n"
                                     "p.parse_args([], namespace=F)\n", "hidden", "parse_args(namespace=...)"),
}


@pytest.mark.parametrize(("code", "check", "reason"), ROUND_7.values(), ids=ROUND_7.keys())
def test_round_7_bypasses_are_flagged(code, check, reason):
    found = (static.fused_attention_uses if check == "fused" else static.hidden_name_uses)(HEADER + code)
    assert any(reason in f for f in found), found


def test_an_honest_functools_wraps_decorator_and_argparse_are_not_flagged():
    code = ("import argparse\nimport functools\n\ndef timed(fn):\n    @functools.wraps(fn)\n"
            "    def inner(*a, **k):\n        return fn(*a, **k)\n    return inner\n\n"
            "if __name__ == '__main__':\n    args = argparse.ArgumentParser().parse_args()\n")
    assert static.hidden_name_uses(HEADER + code) == ()


def test_messages_for_imports_and_torch_compile_say_what_was_seen_in_both_languages():
    from grader_tests.attention.test_implementation import _hidden_names

    imports = _hidden_names(HEADER + "import subprocess\nsubprocess.run(['ls'])\n")
    assert "imports subprocess (line 4)" in imports["en"] and "导入了 subprocess（第 4 行）" in imports["zh"]
    assert static.hidden_name_uses(HEADER + "class A(nn.Module):\n    pass\n\nm = torch.compile(A())\n") == ()
    compiler = _hidden_names(HEADER + "def f(x):\n    return x\n\ng = torch.compiler.allow_in_graph(f)\n")
    assert "uses torch.compiler (line 7)" in compiler["en"] and "torch.compiler（第 7 行）" in compiler["zh"]
    mixed = _hidden_names(HEADER + "import os\nx = os\n")
    assert "第 5 行：把 os 当作值使用" in mixed["zh"] and "line" not in mixed["zh"]


# ------------------------------------------------------------------ red-team round 8
ROUND_8 = {
    "builtins_re_exported_by_torch": ("m = torch.builtins.eval('1')\n", "hidden", "torch.builtins"),
    "builtins_re_exported_by_enum": ("import enum\nm = enum.bltns\n", "hidden", "enum.bltns"),
    "inspect_re_exported_by_torch": ("u = torch.inspect.unwrap\n", "hidden", "torch.inspect"),
    "torch_kept_in_a_list": ("_b = [torch][0]\nx = _b.fx\ny = _b.jit.CompilationUnit\n", "hidden", "_b.fx"),
    "method_bound_to_torch": ("class A(nn.Module):\n    def kernel(self):\n        return self.softmax\n\n"
                              "k = A.kernel.__get__(F)\n", "hidden", ".__get__"),
    "method_kept_as_a_value": ("class A(nn.Module):\n    def kernel(self):\n        return self.softmax\n\n"
                               "m = A.kernel\nm(F)\n", "hidden", "A.kernel used without self"),
    "contract_name_as_a_factory": ("def MultiHeadAttention(d_model, num_heads):\n"
                                   "    return F.scaled_dot_product_attention\n", "fused", "scaled_dot_product"),
    "metaclass_prepare": ("class Meta(type):\n    @classmethod\n    def __prepare__(mcs, name, bases):\n"
                          "        return {}\n", "hidden", "defines __prepare__"),
}


ROUND_13 = {
    "module_namespace_through_getstate": ("_ns = F.__getstate__()\n_f = [f for n, f in _ns.items()"
                                          " if n.endswith('product_attention')][0]\n", "hidden", "__getstate__"),
    "getattr_through_reduce": ("_g = torch.zeros(1).abs.__reduce__()[0]\n", "hidden", "__reduce__"),
    "getattr_through_reduce_ex": ("_g = torch.zeros(1).abs.__reduce_ex__(2)[0]\n", "hidden", "__reduce_ex__"),
}


@pytest.mark.parametrize(("code", "check", "reason"), ROUND_13.values(), ids=ROUND_13.keys())
def test_round_13_pickle_protocol_ways_to_a_namespace_are_flagged(code, check, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


@pytest.mark.parametrize(("code", "check", "reason"), ROUND_8.values(), ids=ROUND_8.keys())
def test_round_8_bypasses_are_flagged(code, check, reason):
    found = (static.fused_attention_uses if check == "fused" else static.hidden_name_uses)(HEADER + code)
    assert any(reason in f for f in found), found


def test_honest_eval_calls_nn_utils_and_methods_called_on_self_are_not_flagged():
    code = ("from torch.nn.utils.rnn import pad_sequence\nu = nn.utils.rnn.pad_sequence\n\n"
            "class M(nn.Module):\n    def f(self, other):\n        self.eval()\n        other.eval()\n"
            "        return M.g(self)\n\n    def g(self):\n        return torch.jit.is_scripting()\n")
    assert static.hidden_name_uses(HEADER + code) == ()


# ------------------------------------------------------------------ red-team round 9
ROUND_9 = {
    # a dataclass's generated __lt__/__eq__ and positional match patterns read each field on the
    # other object: a field named ops reads torch.ops
    "dataclass_field_named_like_a_registry": ("from dataclasses import dataclass\n\n@dataclass(order=True)\n"
                                              "class Ops:\n    ops: object\n", "hidden",
                                              "a class attribute named ops"),
    "field_named_like_the_fused_kernel": ("from dataclasses import dataclass\n\n@dataclass\nclass K:\n"
                                          "    _scaled_dot_product_attention_math: object = None\n", "hidden",
                                          "a class attribute named _scaled_dot_product_attention_math"),
    "class_attribute_assigned": ("class K:\n    _C = None\n", "hidden", "a class attribute named _C"),
}


def test_honest_class_attributes_and_dataclass_fields_are_not_flagged():
    code = ("from dataclasses import dataclass\n\n@dataclass\nclass Config:\n    d_model: int = 16\n"
            "    num_heads: int = 4\n    dropout: float = 0.0\n\nclass A(nn.Module):\n    scale = None\n")
    assert static.hidden_name_uses(HEADER + code) == ()


def test_aliases_are_followed_through_a_chain_written_in_reverse_in_linear_time():
    chain = "\n".join(f"a{i} = a{i + 1}" for i in range(3000)) + "\na3000 = torch\n"
    tree = static.parse(HEADER + "if 0:\n" + "".join(f"    {line}\n" for line in chain.splitlines()))
    started = time.process_time()
    aliases = static._torch_aliases(tree)
    assert {"a0", "a1500", "a3000"} <= aliases
    # the fixed point this replaced took ~3000 passes over 3000 pairs (seconds); one pass is milliseconds
    assert time.process_time() - started < 0.5


@pytest.mark.parametrize("tail", ["X = " + "1 + " * 2500 + "1", "X = " + "abs(" * 150 + "1" + ")" * 150,
                                  "\n".join(f"v{i} = {i}" for i in range(12_000))],
                         ids=["deep_but_compilable", "nested_calls", "too_many_nodes"])
def test_a_source_past_the_review_limits_is_one_bounded_finding_with_its_own_message(tail):
    from grader_tests.attention.test_implementation import _hidden_names

    source = HEADER + tail + "\n"
    started = time.process_time()
    assert static.hidden_name_uses(source) == (static.UNREVIEWABLE,)
    assert static.fused_attention_uses(source) == []
    assert time.process_time() - started < 2.0
    assert "too large or too deeply nested" in static.review_reasons(source)[0]["text"] or \
        "past what the source review reads" in static.review_reasons(source)[0]["text"]
    message = _hidden_names(source)
    assert "too deeply nested" in message["en"] and "嵌套太深" in message["zh"]


# ------------------------------------------------------------------ red-team round 10
ROUND_10 = {
    # a dataclass's positional pattern reads what __match_args__ names, and ABC.register makes the
    # pattern match torch itself: ``case _Probe(ops)`` on torch reads torch.ops
    "match_args_rewritten": ("from dataclasses import dataclass\n\n@dataclass\nclass P:\n    x: int = 0\n\n"
                             "P.__match_args__ = ('x',)\n", "hidden", "sets P.__match_args__"),
    "abc_register_on_a_module_class": ("import abc\nfrom dataclasses import dataclass\n\n@dataclass\n"
                                       "class P(abc.ABC):\n    x: int = 0\n\nP.register(type(torch))\n",
                                       "hidden", "P.register(...) makes isinstance true"),
}


def test_a_diamond_of_many_base_classes_is_reviewed_in_linear_time():
    # each class lists every earlier one as a base: 2**n paths through the bases (minutes at n = 24)
    classes = "class C0(nn.Module):\n    def f(self):\n        return self.g\n    def g(self):\n        return 1\n"
    for i in range(1, 40):
        classes += f"class C{i}({', '.join(f'C{j}' for j in range(i - 1, -1, -1))}):\n    pass\n"
    started = time.process_time()
    static.fused_attention_uses(HEADER + classes)
    static.hidden_name_uses(HEADER + classes)
    assert time.process_time() - started < 1.0


def test_a_source_given_up_on_is_unreviewable_for_every_later_check():
    source = HEADER + "class A(nn.Module):\n    pass\n# given up\n"
    static.give_up(source)
    assert static.hidden_name_uses(source) == (static.UNREVIEWABLE,)
    assert static.fused_attention_uses(source) == []
    assert not static.class_uses_class(source, "MultiHeadAttention", "ScaledDotProductAttention")


# ------------------------------------------------------------------ red-team round 11
ROUND_11 = {
    # self.X is the student's own only when self is an object of a class the review can read
    "base_computed_at_run_time": ("import torch._VF as VF\n\nclass K(type(VF)):\n    def reset(self):\n"
                                  "        self._scaled_dot_product_attention_math = None\n    def attend(self, q):\n"
                                  "        return self._scaled_dot_product_attention_math(q, q, q)\n", "fused",
                                  "self._scaled_dot_product_attention_math"),
    "computed_base_flagged": ("class K(type(torch)):\n    pass\n", "hidden", "class K with a base computed at run time"),
    "class_of_a_module_swapped": ("class Hop(nn.Module):\n    pass\n\ntorch.functional.__class__ = Hop\n", "hidden",
                                  "sets torch.functional.__class__"),
    "private_module_imported": ("import torch._VF\n", "hidden", "imports torch._VF"),
    "triton_kernel_name": ("f = torch._VF._triton_scaled_dot_attention\n", "fused", "_triton_scaled_dot_attention"),
}


ROUNDS_9_TO_11 = {**ROUND_9, **ROUND_10, **ROUND_11}


@pytest.mark.parametrize(("code", "check", "reason"), ROUNDS_9_TO_11.values(), ids=ROUNDS_9_TO_11.keys())
def test_rounds_9_to_11_bypasses_are_flagged(code, check, reason):
    found = (static.fused_attention_uses if check == "fused" else static.hidden_name_uses)(HEADER + code)
    assert any(reason in f for f in found), found


def test_own_attributes_of_plain_module_classes_stay_the_students_own():
    code = ("from typing import Generic, TypeVar\nT = TypeVar('T')\n\nclass Base(nn.Module):\n    pass\n\n"
            "class A(Base, Generic[T]):\n    def __init__(self):\n        super().__init__()\n"
            "        self.scaled_dot_product = nn.Identity()\n    def forward(self, x):\n"
            "        return self.scaled_dot_product(x)\n")
    assert static.fused_attention_uses(HEADER + code) == []
    assert static.hidden_name_uses(HEADER + code) == ()


# ------------------------------------------------------------------ red-team round 12
KERNEL_CLASS = ("class Ops:\n    def scaled_dot_product_attention(self, q, k, v):\n        return q\n\n"
                "    def kernel(self, q, k, v):\n        return self.scaled_dot_product_attention(q, k, v)\n\n")
ROUND_12 = {
    # a method that reads an attention name through self, run with torch's object as self
    "method_taken_by_getattr": (KERNEL_CLASS + "k = getattr(Ops, 'kernel')\nk(F, 1, 2, 3)\n",
                                "kernel reached off its object"),
    "method_taken_off_type": (KERNEL_CLASS + "o = Ops()\ntype(o).kernel(F, 1, 2, 3)\n", "kernel reached off its object"),
    "method_of_a_nested_class": ("class Box:\n" + "".join("    " + line + "\n" for line in KERNEL_CLASS.splitlines())
                                 + "Box.Ops.kernel(F, 1, 2, 3)\n", "kernel reached off its object"),
    "torch_kept_on_the_object": ("class A(nn.Module):\n    t = torch\n\n    def vf(self):\n        return self.t._VF\n",
                                 "torch kept as an attribute"),
    "torch_internals_through_self": ("class A(nn.Module):\n    def vf(self):\n        return self.t._VF\n", "self.t._VF"),
    "torch_class_with_hidden_methods": ("from torch.nn.attention.bias import CausalBias\n\nclass K(CausalBias):\n"
                                        "    pass\n", "derives from CausalBias"),
}


@pytest.mark.parametrize(("code", "reason"), ROUND_12.values(), ids=ROUND_12.keys())
def test_round_12_bypasses_are_flagged(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


def test_a_method_taken_off_its_object_no_longer_makes_self_attention_names_the_students_own():
    code = KERNEL_CLASS + "k = getattr(Ops, 'kernel')\n"
    assert any("self.scaled_dot_product_attention" in f for f in static.fused_attention_uses(HEADER + code))
    demo = KERNEL_CLASS + "if __name__ == '__main__':\n    print(Ops().kernel(1, 2, 3))\n"
    assert static.fused_attention_uses(HEADER + demo) == [] and static.hidden_name_uses(HEADER + demo) == ()


# ------------------------------------------------------------------ round 13: correct code that lost points
# Each cost a correct submission 3 to 64 points; the tests/fixtures/submissions/correct/ files
# hf_namedtuple_registry, compile_guards_selfcheck and abc_shared_softmax_base are them in context.
ROUND_13_HONEST = {
    "jit_export_decorator": "class M(nn.Module):\n    @torch.jit.export\n    def f(self, x):\n        return x\n",
    "compile_guard": "def f(x):\n    if torch.compiler.is_compiling():\n        return x\n    return x\n",
    "compile_guard_imported": "from torch.compiler import is_compiling\nfrom torch.testing import assert_close\n",
    "testing_assertions_at_import": "import numpy as np\nx = torch.ones(2)\ntorch.testing.assert_close(x, x)\n"
                                    "np.testing.assert_allclose(x.numpy(), x.numpy())\n",
    "a_helper_only_the_main_guard_calls": "def check():\n    return getattr(F, name)\n\n"
                                          "if __name__ == '__main__':\n    check()\n",
    "a_local_named_compile": "def f(x, compile=False):\n    if compile:\n        return x\n    vars = 2\n"
                             "    return vars\n",
    "a_config_field_named_compile": "from dataclasses import dataclass\n\n@dataclass\nclass C:\n"
                                    "    compile: bool = False\n",
    "a_logger_and_a_switch_named_like_pytorch": "import logging\nlog = logging.getLogger('Transformer')\n"
                                                "IMPL = 'flash_attention_2'\nif IMPL == 'scaled_dot_product_attention':\n"
                                                "    print('flash_attention_2')\n",
    "a_class_decorator": "REG = {}\n\ndef register(cls):\n    REG[cls.__name__] = cls\n    return cls\n",
    "a_method_called_on_a_new_object_of_its_class": "class H:\n    def f(self, x):\n        return x\n\n"
                                                    "y = H.f(H(), 1)\n",
    "a_docstring_naming_the_main_guard": "'''Run with if __name__ == \"__main__\".'''\n"
                                         "if __name__ == '__main__':\n    print(F.scaled_dot_product_attention)\n",
}


@pytest.mark.parametrize("code", ROUND_13_HONEST.values(), ids=ROUND_13_HONEST.keys())
def test_round_13_honest_code_is_neither_hiding_nor_fused(code):
    assert static.hidden_name_uses(HEADER + code) == ()
    assert static.fused_attention_uses(HEADER + code) == []


# ...and the hostile neighbours of each of those stay flagged
ROUND_13_STILL = {
    "compile_the_builtin_in_a_function": ("def f():\n    return compile('x', 'f', 'eval')\n", "compile"),
    "compile_read_at_module_level_before_binding": ("c = compile\ncompile = False\n", "compile"),
    "compile_as_a_default_argument": ("def f(x=compile):\n    compile = 1\n", "compile"),
    "compile_declared_global": ("def f():\n    global compile\n    compile = 1\n    return compile\n", "compile"),
    "the_rest_of_torch_compiler": ("c = torch.compiler.allow_in_graph\n", "torch.compiler"),
    "torch_testing_internals": ("t = torch.testing._internal\n", "torch.testing"),
    "a_name_kept_for_a_lookup": ("n = 'scaled_dot_product_attention'\nfs = [n]\n", "the string"),
    "print_rebound_to_a_lookup": ("def print(n):\n    return n\nprint('scaled_dot_product_attention')\n",
                                  "the string"),
    "a_helper_named_outside_the_guard_too": ("def check():\n    return getattr(F, name)\n\nx = check\n"
                                             "if __name__ == '__main__':\n    check()\n", "computed name"),
    "a_function_outside_a_class_reading_self": ("def attend(self, q):\n    return self._softmax(q)\n", "taking self"),
    "a_method_called_on_what_new_returns": ("class H:\n    def __new__(cls):\n        return torch\n"
                                            "    def f(self, x):\n        return x\n\ny = H.f(H(), 1)\n",
                                            "another self"),
    "a_field_named_like_a_registry": ("from dataclasses import dataclass\n\n@dataclass\nclass C:\n"
                                      "    ops: object = None\n", "a class attribute named ops"),
    "the_main_guard_named_in_a_string_that_binds_it": ("import attention\nsetattr(attention, '__name__', '__main__')\n"
                                                        "if __name__ == '__main__':\n    x = getattr(F, name)\n",
                                                        "computed name"),
}


@pytest.mark.parametrize(("code", "reason"), ROUND_13_STILL.values(), ids=ROUND_13_STILL.keys())
def test_round_13_hostile_neighbours_of_the_honest_cases_stay_flagged(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


def test_round_13_an_annotated_attribute_or_an_abc_base_is_the_students_own():
    code = ("import abc\n\nclass Base(nn.Module, abc.ABC):\n    def __init__(self):\n        super().__init__()\n"
            "        self.scaled_dot_product_attention: nn.Module = nn.Identity()\n\n"
            "    def forward(self, x):\n        return self.scaled_dot_product_attention(x)\n")
    assert static.fused_attention_uses(HEADER + code) == []
    # a base whose metaclass is not abc's may hand out anything as self.X
    meta = code.replace("(nn.Module, abc.ABC)", "(nn.Module, metaclass=Meta)")
    assert static.fused_attention_uses(HEADER + meta)


# ------------------------------------------------------------------ round 14: correct code that lost points
# Each cost a correct submission 13 points pending review; the tests/fixtures/submissions/correct/ files
# ldm_crossattention (Stable Diffusion's default() helper), pytorch_mha_packed_in_proj (code copied from
# F.multi_head_attention_forward) and memory_efficient_chunked (Rabe & Staats with activation
# checkpointing) are them in context.
ROUND_14_HONEST = {
    "inspect_predicate_imported_by_name": "from inspect import isfunction\n\ndef default(val, d):\n"
                                          "    return d() if isfunction(d) else d\n",
    "inspect_predicates_on_the_module": "import inspect\nok = inspect.isclass(int) or inspect.ismethod(len)\n",
    "pytorchs_mask_helpers_of_multi_head_attention_forward": (
        "m = F._canonical_mask(mask=None, mask_name='key_padding_mask', other_type=F._none_or_dtype(None),\n"
        "                      other_name='attn_mask', target_type=torch.float32)\n"
        "q, k, v = F._in_projection_packed(torch.ones(1, 4), torch.ones(1, 4), torch.ones(1, 4), torch.ones(12, 4))\n"),
    "pure_private_helpers_imported_from_torch": ("from torch.nn.functional import _canonical_mask, _in_projection\n"
                                                 "from torch.nn.init import _calculate_fan_in_and_fan_out\n"),
    "checkpoint_imported_by_name": "from torch.utils.checkpoint import checkpoint\n"
                                   "y = checkpoint(F.relu, torch.ones(2), use_reentrant=False)\n",
    "checkpoint_read_through_torch": "import torch.utils.checkpoint\n"
                                     "y = torch.utils.checkpoint.checkpoint(F.relu, torch.ones(2), use_reentrant=False)\n",
    "checkpoint_sequential_renamed": "from torch.utils.checkpoint import checkpoint_sequential as run_in_segments\n",
    "typing_extensions_names": "from typing_extensions import Self, Unpack, override\nimport typing_extensions as te\n"
                               "x: te.Optional[int] = None\n",
    "setstate_override_as_nn_multiheadattention_writes_it": (
        "class M(nn.Module):\n    def __setstate__(self, state):\n        if 'batch_first' not in state:\n"
        "            state['batch_first'] = True\n        super().__setstate__(state)\n"),
}


@pytest.mark.parametrize("code", ROUND_14_HONEST.values(), ids=ROUND_14_HONEST.keys())
def test_round_14_honest_code_is_neither_hiding_nor_fused(code):
    assert static.hidden_name_uses(HEADER + code) == ()
    assert static.fused_attention_uses(HEADER + code) == []


# ...and the hostile neighbours of each of those stay flagged
ROUND_14_STILL = {
    "inspect_getattr_static": ("import inspect\nf = inspect.getattr_static(F, 'softmax')\n", "inspect.getattr_static"),
    "inspect_unwrap_imported": ("from inspect import isfunction, unwrap\n", "imports inspect"),
    "inspect_signature_evaluates_annotations": ("import inspect\ns = inspect.signature(len, eval_str=True)\n",
                                                "inspect.signature"),
    "inspect_kept_as_a_value": ("import inspect\nm = inspect\n", "inspect used as a value"),
    "inspect_reaching_sys": ("import inspect\nm = inspect.sys.modules\n", "inspect.sys"),
    "inspect_reached_off_torch": ("f = torch.inspect.isfunction\n", "torch.inspect"),
    "another_private_name_of_F": ("k = F._add_docstr\n", "F._add_docstr"),
    "another_private_name_imported_from_F": ("from torch.nn.functional import _canonical_mask, _add_docstr\n",
                                             "import _add_docstr"),
    "a_helpers_name_imported_from_elsewhere": ("from numpy import _canonical_mask\n", "import _canonical_mask"),
    # round 18: the alias is followed attribute by attribute (Swin's ``import torch.utils.checkpoint as checkpoint``)
    "checkpoint_module_under_a_name_of_its_own": ("import torch.utils.checkpoint as ckpt\nt = ckpt.fx_traceback\n",
                                                  "ckpt.fx_traceback"),
    "checkpoint_module_from_utils": ("from torch.utils import checkpoint\n", "imports torch.utils"),
    "checkpoint_module_other_names": ("from torch.utils.checkpoint import checkpoint, fx_traceback\n",
                                      "imports torch.utils.checkpoint"),
    "checkpoint_module_kept_as_a_value": ("import torch.utils.checkpoint\nm = torch.utils.checkpoint\n",
                                          "torch.utils"),
    "checkpoint_module_other_attribute": ("import torch.utils.checkpoint\nt = torch.utils.checkpoint.fx_traceback\n",
                                          "torch.utils"),
    "the_rest_of_torch_utils_beside_it": ("import torch.utils.checkpoint, torch.utils.cpp_extension\n",
                                          "imports torch.utils.cpp_extension"),
    "checkpoint_off_another_object": ("f = [torch][0].utils.checkpoint.checkpoint\n", "utils"),
    "typing_extensions_evaluating_strings": ("import typing_extensions as te\nf = te.evaluate_forward_ref\n",
                                             "te.evaluate_forward_ref"),
    "typing_extensions_type_hints_imported": ("from typing_extensions import Self, get_type_hints\n",
                                              "import get_type_hints"),
    "typing_extensions_annotations": ("import typing_extensions\nf = typing_extensions.get_annotations\n",
                                      "typing_extensions.get_annotations"),
    "typing_extensions_reaching_sys": ("import typing_extensions\nm = typing_extensions.sys\n",
                                       "typing_extensions.sys"),
    "typing_extensions_as_a_value": ("import typing_extensions\nm = typing_extensions\n", "used as a value"),
    "setstate_of_super_with_an_object_given": ("class M(nn.Module):\n    def f(self, o, d):\n"
                                               "        super(M, o).__setstate__(d)\n", ".__setstate__"),
    "setstate_of_super_kept_as_a_value": ("class M(nn.Module):\n    def f(self):\n"
                                          "        return super().__setstate__\n", ".__setstate__"),
    "setstate_of_another_object": ("class M(nn.Module):\n    def f(self, d):\n        F.__setstate__(d)\n",
                                   ".__setstate__"),
    "setstate_called_unbound_on_torch": ("nn.Module.__setstate__(F, {})\n", ".__setstate__"),
    "getstate_of_super": ("class M(nn.Module):\n    def f(self):\n        return super().__getstate__()\n",
                          ".__getstate__"),
}


@pytest.mark.parametrize(("code", "reason"), ROUND_14_STILL.values(), ids=ROUND_14_STILL.keys())
def test_round_14_hostile_neighbours_of_the_honest_cases_stay_flagged(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


# ------------------------------------------------------------------ round 15: correct code that lost points
# Each cost a correct submission 13 points pending review; the tests/fixtures/submissions/correct/ files
# toy_task_dataloader (torch.utils.data beside the modules), gc_collect_memory_helper (gc.collect() before
# torch.cuda.empty_cache()), ntuple_pair_head_dims (torch.nn.modules.utils._pair) and
# getattr_deprecated_aliases (a __getattr__ override handing on to super().__getattr__) are them in context.
ROUND_15_FILES = ["toy_task_dataloader", "gc_collect_memory_helper", "ntuple_pair_head_dims",
                  "getattr_deprecated_aliases"]


@pytest.mark.parametrize("name", ROUND_15_FILES)
def test_round_15_correct_files_borrowing_public_code_are_neither_hiding_nor_fused(name):
    from tests.grading.helpers import SUBMISSIONS

    source = (SUBMISSIONS / "correct" / f"{name}.py").read_text(encoding="utf-8")
    assert static.hidden_name_uses(source) == ()
    assert static.fused_attention_uses(source) == []


ROUND_15_HONEST = {
    "torch_utils_data_read_through_torch": "import torch.utils.data\n\nclass D(torch.utils.data.Dataset):\n"
                                           "    pass\n\ndl = torch.utils.data.DataLoader(torch.utils.data."
                                           "TensorDataset(torch.ones(4, 2)), batch_size=2)\n",
    "torch_utils_data_names_imported": "from torch.utils.data import IterableDataset, random_split, default_collate\n",
    "torch_utils_data_beside_checkpoint_on_lines_of_their_own": "import torch.utils.data\nimport torch.utils.checkpoint\n",
    "torch_utils_data_beside_checkpoint_on_one_line": "import torch.utils.checkpoint, torch.utils.data\n",
    "gc_collect_imported_by_name": "from gc import collect\n\ndef free():\n    collect()\n    torch.cuda.empty_cache()\n",
    "gc_collect_on_the_module": "import gc\n\nclass M(nn.Module):\n    def reset(self):\n        gc.collect()\n",
    "ntuple_helpers_read_through_torch": "import torch.nn.modules.utils\n"
                                         "p = torch.nn.modules.utils._pair(3)\nt = nn.modules.utils._triple(2)\n",
    "ntuple_helpers_imported": "from torch.nn.modules.utils import _single, _ntuple, _quadruple\nto_4 = _ntuple(4)\n",
    "getattr_override_falling_back_to_nn_module": (
        "class M(nn.Module):\n    def __getattr__(self, name):\n        try:\n"
        "            return super().__getattr__(name)\n        except AttributeError:\n"
        "            if name == 'n_heads':\n                return 4\n            raise\n"),
}


@pytest.mark.parametrize("code", ROUND_15_HONEST.values(), ids=ROUND_15_HONEST.keys())
def test_round_15_honest_code_is_neither_hiding_nor_fused(code):
    assert static.hidden_name_uses(HEADER + code) == ()
    assert static.fused_attention_uses(HEADER + code) == []


# ...and the hostile neighbours of each of those stay flagged
ROUND_15_STILL = {
    # round 18: the alias is followed attribute by attribute (Mofan's ``import torch.utils.data as Data``)
    "torch_utils_data_under_a_name_of_its_own": ("import torch.utils.data as data\nm = data.dataloader\n",
                                                 "data.dataloader"),
    "torch_utils_data_other_names": ("from torch.utils.data import DataLoader, functional_datapipe\n",
                                     "imports torch.utils.data"),
    "torch_utils_data_internals": ("import torch.utils.data\nu = torch.utils.data._utils\n", "torch.utils"),
    "torch_utils_data_reaching_a_module": ("import torch.utils.data\nm = torch.utils.data.dataloader.torch\n",
                                           "torch.utils"),
    "torch_utils_cpp_extension": ("import torch.utils.cpp_extension\n", "imports torch.utils.cpp_extension"),
    "torch_utils_cpp_extension_from": ("from torch.utils.cpp_extension import load_inline\n",
                                       "imports torch.utils.cpp_extension"),
    "torch_utils_data_off_another_object": ("d = [torch][0].utils.data.DataLoader\n", "utils"),
    "gc_get_objects": ("import gc\nfs = [o for o in gc.get_objects() if callable(o)]\n", "gc.get_objects"),
    "gc_get_referrers": ("import gc\nr = gc.get_referrers(F.softmax)\n", "gc.get_referrers"),
    "gc_get_objects_imported": ("from gc import collect, get_objects\n", "imports gc"),
    "gc_as_a_value": ("import gc\ng = gc\n", "gc used as a value"),
    "gc_under_a_name_of_its_own": ("import gc as g\nr = g.get_referents(F)\n", "g.get_referents"),
    "gc_reached_off_torch": ("c = torch.gc.collect\n", "torch.gc"),
    "another_private_name_of_nn_modules_utils": ("from torch.nn.modules.utils import _pair, _addindent\n",
                                                 "import _addindent"),
    "ntuple_named_like_torchs_imported_from_elsewhere": ("from numpy import _pair\n", "import _pair"),
    "another_private_name_read_off_nn_modules_utils": ("d = torch.nn.modules.utils._list_with_default\n",
                                                       "private name"),
    "nn_modules_reaching_torch_utils": ("m = torch.nn.modules.module.torch.utils.cpp_extension\n",
                                        "torch.nn.modules.module.torch.utils"),
    "modules_utils_not_under_nn": ("m = torch.modules.utils\n", "torch.modules.utils"),
    "getattribute_of_super_in_getattr": ("class M(nn.Module):\n    def __getattr__(self, name):\n"
                                         "        return super().__getattribute__(name)\n", ".__getattribute__"),
    "getattr_of_super_in_another_method": ("class M(nn.Module):\n    def forward(self, name):\n"
                                           "        return super().__getattr__(name)\n", ".__getattr__"),
    "getattr_of_super_with_an_object_given": ("class M(nn.Module):\n    def __getattr__(self, name):\n"
                                              "        return super(M, F).__getattr__(name)\n", ".__getattr__"),
    "getattr_of_super_kept_as_a_value": ("class M(nn.Module):\n    def __getattr__(self, name):\n"
                                         "        return super().__getattr__\n", ".__getattr__"),
    "getattr_of_the_base_called_on_torch": ("class M(nn.Module):\n    def __getattr__(self, name):\n"
                                            "        return nn.Module.__getattr__(F, name)\n", ".__getattr__"),
    "getattr_of_super_in_a_module_level_getattr": ("def __getattr__(name):\n    return super().__getattr__(name)\n",
                                                   ".__getattr__"),
    "getattr_of_super_in_a_nested_function": ("class M(nn.Module):\n    def __getattr__(self, name):\n"
                                              "        def inner():\n            return super().__getattr__(name)\n"
                                              "        return inner()\n", ".__getattr__"),
}


@pytest.mark.parametrize(("code", "reason"), ROUND_15_STILL.values(), ids=ROUND_15_STILL.keys())
def test_round_15_hostile_neighbours_of_the_honest_cases_stay_flagged(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


# ------------------------------------------------------------------ getattr with a literal name
# ``getattr(obj, "name")`` reaches what ``obj.name`` reaches, so it is judged as that attribute read,
# by the same code, in chains too (``getattr(torch, "utils").cpp_extension``). A getattr whose value is
# only tested (``if getattr(torch, "compile", None) is not None:``) yields a bool, as hasattr does, and
# is judged as hasattr is; PyTorch's attention names asked of getattr keep their own handling.
GETATTR_LITERAL_HONEST = {
    "compile_only_tested_for": "if getattr(torch, 'compile', None) is not None:\n    pass\n",
    "compile_only_negated": "NO_COMPILE = not getattr(torch, 'compile', None)\n",
    "compile_asked_of_hasattr": "USE_COMPILE = hasattr(torch, 'compile')\n",
    # torch.compile gives back what it is given in the jail (lazy_torch._compile_runs_eagerly): kept and called,
    # it is read as ``torch.compile`` is
    "compile_kept_and_called": "c = getattr(torch, 'compile', None)\nm = c(nn.Linear(2, 2))\n",
    "compile_kept_by_a_walrus_in_a_test": ("if (c := getattr(torch, 'compile', None)) is not None:\n"
                                           "    m = c(nn.Linear(2, 2))\n"),
    "own_submodule_by_name": "class M(nn.Module):\n    def f(self, x):\n        return getattr(self, 'dropout')(x)\n",
    "activation_by_name": "act = getattr(nn, 'GELU')()\n",
    "dtype_by_name": "dt = getattr(torch, 'float16')\n",
    "dtype_by_name_with_a_default": "dt = getattr(torch, 'bfloat16', torch.float32)\n",
    "jit_guard_by_name": "s = getattr(torch.jit, 'is_scripting')()\n",
    "jit_package_by_name_then_its_guard": "s = getattr(torch, 'jit').is_scripting()\n",
    "checkpoint_function_by_name": "import torch.utils.checkpoint\nf = getattr(torch.utils.checkpoint, 'checkpoint')\n",
    "nn_utils_by_name": "clip = getattr(nn.utils, 'clip_grad_norm_')\n",
    "ntuple_helper_by_name": "p = getattr(torch.nn.modules.utils, '_pair')(3)\n",
    "os_environ_by_name": "import os\nv = getattr(os, 'environ').get('X')\n",
}


@pytest.mark.parametrize("code", GETATTR_LITERAL_HONEST.values(), ids=GETATTR_LITERAL_HONEST.keys())
def test_getattr_with_a_literal_name_is_allowed_where_the_attribute_read_is(code):
    assert static.hidden_name_uses(HEADER + code) == ()
    assert static.fused_attention_uses(HEADER + code) == []


GETATTR_LITERAL_HOSTILE = {
    "torch_fx": ("x = getattr(torch, 'fx')\n", "getattr(torch, 'fx')"),
    "torch_utils_then_cpp_extension": ("x = getattr(torch, 'utils').cpp_extension.load_inline\n",
                                       "getattr(torch, 'utils')"),
    "nested_getattr_reaching_checkpoint_module": ("x = getattr(getattr(torch, 'utils'), 'checkpoint')\n",
                                                  "getattr(torch, 'utils')"),
    "torch_utils_with_a_default": ("x = getattr(torch, 'utils', None)\n", "getattr(torch, 'utils')"),
    "torch_ops": ("x = getattr(torch, 'ops').aten\n", "getattr(torch, 'ops')"),
    "torch_jit": ("x = getattr(torch, 'jit')\n", "getattr(torch, 'jit')"),
    "torch_hub": ("x = getattr(torch, 'hub')\n", "getattr(torch, 'hub')"),
    "torch_compiler_beyond_its_guards": ("x = getattr(torch, 'compiler')\n", "getattr(torch, 'compiler')"),
    "fx_as_an_operand_of_or": ("x = getattr(torch, 'fx', None) or F\n", "getattr(torch, 'fx')"),
    "compared_by_an_own_eq": ("class Catch:\n    def __eq__(self, other):\n        return True\n\n"
                              "ok = Catch() == getattr(torch, 'fx')\n", "getattr(torch, 'fx')"),
    "tested_for_membership_of_an_own_container": ("ok = getattr(torch, 'fx') in CATCHER\n", "getattr(torch, 'fx')"),
    "a_string_default_is_read_too": ("x = getattr(torch, 'float16', '__wrapped__')\n", "the string '__wrapped__'"),
    "torch_load": ("x = getattr(torch, 'load')\n", "getattr(torch, 'load')"),
    "numpy_load": ("import numpy as np\nw = getattr(np, 'load')('w.npy', allow_pickle=True)\n",
                   "getattr(np, 'load')"),
    "a_string_evaluating_function": ("import functools\nd = getattr(functools, 'singledispatch')\n",
                                     "getattr(functools, 'singledispatch')"),
    "a_default_is_read_too": ("x = getattr(torch, 'float16', getattr(torch, 'fx'))\n", "getattr(torch, 'fx')"),
    "a_loader_read_off_an_alias_of_a_part_of_torch": ("N = getattr(torch, 'nn')\nw = N.load\n", "N.load"),
    "a_method_called_with_another_self": ("class A:\n    def f(self):\n        return 1\n\ngetattr(A, 'f')(torch)\n",
                                          "another self"),
    # the other ways to a part of torch by a string were flagged before and stay so
    "attrgetter_with_a_dotted_path": ("import operator\nx = operator.attrgetter('utils.cpp_extension')(torch)\n",
                                      "operator.attrgetter"),
    "vars_of_torch": ("x = vars(torch)['utils']\n", "vars"),
    "dict_of_torch": ("x = torch.__dict__['fx']\n", "__dict__"),
}


@pytest.mark.parametrize(("code", "reason"), GETATTR_LITERAL_HOSTILE.values(), ids=GETATTR_LITERAL_HOSTILE.keys())
def test_getattr_with_a_literal_name_is_flagged_where_the_attribute_read_is(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


@pytest.mark.parametrize("code", ["f = getattr(F, 'scaled_dot_product_attention', None)\n",
                                  "if getattr(F, 'scaled_dot_product_attention', None) is not None:\n    pass\n"])
def test_getattr_of_pytorchs_attention_by_a_literal_name_is_a_fused_use_and_a_hidden_name_as_before(code):
    assert static.fused_attention_uses(HEADER + code) == ["line 4: getattr(..., 'scaled_dot_product_attention')"]
    assert static.hidden_name_uses(HEADER + code) == ("line 4: the string 'scaled_dot_product_attention'",)


def test_torch_compiler_kept_from_a_literal_getattr_gets_the_torch_compiler_message():
    from grader_tests.attention.test_implementation import _hidden_names

    compiler = _hidden_names(HEADER + "c = getattr(torch, 'compiler', None)\nm = c.allow_in_graph(print)\n")
    assert "uses torch.compiler (line 4)" in compiler["en"] and "torch.compiler（第 4 行）" in compiler["zh"]


# ------------------------------------------------------------------ setattr/delattr with a literal name
# ``setattr(obj, "name", value)`` stores what ``obj.name = value`` stores and ``delattr(obj, "name")`` deletes
# what ``del obj.name`` deletes, so each is judged as that store or deletion, by the same code: what the
# dotted form is flagged for, the literal form is flagged for, and what it is allowed, the literal form is.
SETATTR_LITERAL_HONEST = {
    "a_number_on_self": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                         "        setattr(self, 'scale', 0.125)\n"),
    "computed_head_names_on_self": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                    "        for i in range(2):\n            setattr(self, f'head_{i}', nn.Linear(4, 4))\n"),
    "a_private_cache_on_self": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                "        setattr(self, '_cache', None)\n"),
    "a_weight_of_an_own_submodule": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                     "        self.lin = nn.Linear(4, 4)\n"
                                     "        setattr(self.lin, 'weight', nn.Parameter(torch.ones(4, 4)))\n"),
    "a_weight_in_an_init_function": ("def init(m):\n    setattr(m, 'weight', nn.Parameter(torch.ones(4, 4)))\n"
                                     "    setattr(m, 'bias', None)\n"),
    "a_bias_deleted_from_an_own_submodule": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                             "        self.lin = nn.Linear(4, 4)\n        delattr(self.lin, 'bias')\n"),
    "a_buffer_registered": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                            "        self.register_buffer('mask', torch.ones(4, 4))\n"),
    "set_in_a_lambda_on_an_own_module": "init = lambda m: setattr(m, 'bias', None)\n",
}


@pytest.mark.parametrize("code", SETATTR_LITERAL_HONEST.values(), ids=SETATTR_LITERAL_HONEST.keys())
def test_setattr_and_delattr_with_a_literal_name_are_allowed_where_the_dotted_store_is(code):
    assert static.hidden_name_uses(HEADER + code) == ()
    assert static.fused_attention_uses(HEADER + code) == []


SETATTR_LITERAL_HOSTILE = {
    "class_of_a_torch_module_replaced": ("class Hop(nn.Module):\n    pass\n\nsetattr(F, '__class__', Hop)\n",
                                         "sets setattr(F, '__class__', ...)"),
    "class_of_a_torch_module_replaced_in_a_lambda": ("class Hop(nn.Module):\n    pass\n\n"
                                                     "swap = lambda: setattr(F, '__class__', Hop)\n",
                                                     "sets setattr(F, '__class__', ...)"),
    "torch_kept_on_self": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                           "        setattr(self, 't', torch)\n\n    def f(self):\n        return self.t.load('w')\n",
                           "torch kept as an attribute"),
    "torch_kept_on_self_inside_an_expression": ("class M(nn.Module):\n    def __init__(self):\n"
                                                "        super().__init__()\n        _ = setattr(self, 't', torch)\n",
                                                "torch kept as an attribute"),
    "torch_utils_replaced": ("setattr(torch, 'utils', None)\n", "setattr(torch, 'utils', ...)"),
    "torch_jit_replaced": ("setattr(torch, 'jit', None)\n", "setattr(torch, 'jit', ...)"),
    "torch_jit_deleted": ("delattr(torch, 'jit')\n", "delattr(torch, 'jit')"),
    "a_private_name_of_torch_set": ("setattr(torch, '_hook', print)\n", "setattr(torch, '_hook', ...)"),
    "numpys_loader_replaced": ("import numpy as np\nsetattr(np, 'load', print)\n", "setattr(np, 'load', ...)"),
    "a_string_evaluating_function_replaced": ("import functools\nsetattr(functools, 'singledispatch', print)\n",
                                              "setattr(functools, 'singledispatch', ...)"),
    "the_value_is_judged_too": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                "        setattr(self, 'kernel', torch.ops.aten)\n", "torch.ops"),
}


@pytest.mark.parametrize(("code", "reason"), SETATTR_LITERAL_HOSTILE.values(), ids=SETATTR_LITERAL_HOSTILE.keys())
def test_setattr_and_delattr_with_a_literal_name_are_flagged_where_the_dotted_store_is(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


# ------------------------------------------------------------------ torch chosen by `or` / if-else
# ``T = getattr(torch, "nn", torch)`` (read as ``torch.nn or torch``), ``T = torch or nn`` and ``T = torch if c
# else nn`` may each hold torch, so T is followed as a name of torch where that makes the review stricter
# (what is read off it, classes derived from it, keeping it on an object). Where a name of torch is trusted
# (a base class the review can read, torch's decorators), only a name that is always torch counts.
TORCH_CHOSEN_HONEST = {
    "a_layer_class_off_nn_by_getattr_with_a_default": ("T = getattr(torch, 'nn', nn)\nclass M(T.Module):\n"
                                                       "    def forward(self, x):\n        return x\n"),
    "a_dtype_chosen_by_if_else": ("def pick(bf16):\n    dt = torch.bfloat16 if bf16 else torch.float32\n"
                                  "    return torch.ones(2, dtype=dt).to(dt)\n"),
    "an_activation_by_getattr_with_a_default": "act = getattr(nn, 'GELU', nn.ReLU)()\n",
    "a_scale_kept_on_self_by_or": ("class M(nn.Module):\n    def __init__(self, d, scale=None):\n"
                                   "        super().__init__()\n        self.scale = scale or d ** -0.5\n"),
}


@pytest.mark.parametrize("code", TORCH_CHOSEN_HONEST.values(), ids=TORCH_CHOSEN_HONEST.keys())
def test_a_name_chosen_by_or_or_if_else_is_allowed_where_the_plain_alias_is(code):
    assert static.hidden_name_uses(HEADER + code) == ()
    assert static.fused_attention_uses(HEADER + code) == []


TORCH_CHOSEN_HOSTILE = {
    "a_class_derived_off_getattr_with_a_default": ("T = getattr(torch, 'nn', nn)\n"
                                                   "class C(T.attention.bias.CausalBias):\n    pass\n",
                                                   "derives from T.attention.bias.CausalBias"),
    "a_loader_read_off_getattr_with_torch_as_default": ("T = getattr(F, 'gelu', torch)\nw = T.load('w.pt')\n",
                                                        "T.load"),
    "a_loader_read_off_torch_or_nn": ("T = torch or nn\nw = T.load('w.pt')\n", "T.load"),
    "a_loader_read_off_torch_if_else_nn": ("T = torch if F else nn\nw = T.load('w.pt')\n", "T.load"),
    "a_loader_read_off_a_walrus_in_or": ("T = (U := torch) or nn\nw = T.load('w.pt')\n", "T.load"),
    "torch_or_nn_kept_on_self": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                 "        self.t = torch or nn\n", "torch kept as an attribute"),
    "torch_as_a_default_kept_on_self_by_setattr": ("class M(nn.Module):\n    def __init__(self):\n"
                                                   "        super().__init__()\n"
                                                   "        setattr(self, 't', getattr(F, 'gelu', torch))\n",
                                                   "torch kept as an attribute"),
}


@pytest.mark.parametrize(("code", "reason"), TORCH_CHOSEN_HOSTILE.values(), ids=TORCH_CHOSEN_HOSTILE.keys())
def test_a_name_that_may_hold_torch_by_or_or_if_else_is_flagged_where_the_plain_alias_is(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


def test_a_name_only_sometimes_torch_is_not_trusted_as_torchs_decorator():
    code = ("class Evil:\n    pass\n\nT = torch if F else Evil\n\nclass M(nn.Module):\n"
            "    def scaled_dot_product_attention(self, q):\n        return q\n\n    @T.no_grad()\n"
            "    def forward(self, q):\n        return self.scaled_dot_product_attention(q)\n")
    assert static.fused_attention_uses(HEADER + code) == ["line 15: self.scaled_dot_product_attention"]


# ------------------------------------------------------------------ PyTorch's decorators replaced
# The review trusts PyTorch's decorators (a method under ``@torch.no_grad()`` keeps the instance as self, so
# what it reads through self is the student's own). A file that replaces one (``torch.no_grad = deco``, in
# any form: setattr, through an object the review cannot follow, its ``__call__``, or the name ``torch``
# or ``property`` rebound) could run such a method with F as self: there its self.<attention name> is
# PyTorch's. Replacing PyTorch's other functions (``F.softmax = f``, as monkeypatch_torch.py does) changes
# no verdict (the trusted side recomputes every one) and stays unflagged, in both forms alike.
NO_GRAD_SWAP = ("class M(nn.Module):\n    def scaled_dot_product_attention(self, q):\n        return q\n\n"
                "    @torch.no_grad()\n    def forward(self, q):\n        return self.scaled_dot_product_attention(q)\n")
DECORATOR_SWAPS = {
    "dotted": "torch.no_grad = lambda: (lambda fn: (lambda self, *a: fn(F, *a)))\n",
    "by_setattr": "setattr(torch, 'no_grad', lambda: (lambda fn: (lambda self, *a: fn(F, *a))))\n",
    "through_an_object_the_review_cannot_follow": "[torch][0].no_grad = lambda: (lambda fn: (lambda self, *a: fn(F, *a)))\n",
    "its_call_replaced": "[torch][0].no_grad.__call__ = lambda d, fn: (lambda self, *a: fn(F, *a))\n",
    "torch_rebound_to_an_own_class": ("class FakeTorch:\n    @staticmethod\n    def no_grad():\n"
                                      "        return lambda fn: (lambda self, *a: fn(F, *a))\n\n\ntorch = FakeTorch\n"),
}


@pytest.mark.parametrize("swap", DECORATOR_SWAPS.values(), ids=DECORATOR_SWAPS.keys())
def test_a_method_under_a_replaced_pytorch_decorator_no_longer_reads_its_own_attention_name(swap):
    code = HEADER + swap + "\n" + NO_GRAD_SWAP
    line = code.splitlines().index("        return self.scaled_dot_product_attention(q)") + 1
    assert static.fused_attention_uses(code) == [f"line {line}: self.scaled_dot_product_attention"]


def test_a_method_under_a_rebound_property_no_longer_reads_its_own_attention_name():
    code = HEADER + ("property = lambda fn: (lambda self: fn(F))\n\nclass M(nn.Module):\n"
                     "    def scaled_dot_product_attention(self):\n        return 1\n\n    @property\n"
                     "    def forward(self):\n        return self.scaled_dot_product_attention\n")
    assert static.fused_attention_uses(code) == ["line 12: self.scaled_dot_product_attention"]


DECORATOR_KEPT = {
    "stores_on_own_objects": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                              "        self.lin = nn.Linear(4, 4)\n        self.lin.bias = None\n\n"),
    "an_init_function_and_cudnn_switches": ("def init(m):\n    m.weight = nn.Parameter(torch.ones(4, 4))\n\n"
                                            "torch.backends.cudnn.benchmark = True\n\n"),
    "torch_under_an_alias": "import torch as T\n\nTT = T\n\n",
}


@pytest.mark.parametrize("before", DECORATOR_KEPT.values(), ids=DECORATOR_KEPT.keys())
def test_pytorchs_decorators_stay_trusted_where_nothing_replaces_them(before):
    assert static.fused_attention_uses(HEADER + before + NO_GRAD_SWAP) == []
    assert static.hidden_name_uses(HEADER + before + NO_GRAD_SWAP) == ()


@pytest.mark.parametrize("store", ["F.softmax = f\n", "setattr(F, 'softmax', f)\n", "del F.softmax\n",
                                   "delattr(F, 'softmax')\n", "nn.Linear.forward = f\n",
                                   "setattr(nn.Linear, 'forward', f)\n"])
def test_replacing_pytorchs_other_functions_is_judged_alike_in_both_forms(store):
    code = HEADER + "def f(x, dim=-1):\n    return x\n\n" + store
    assert static.hidden_name_uses(code) == ()
    assert static.fused_attention_uses(code) == []


# ------------------------------------------------------------------ object.__setattr__ / __delattr__
# ``object.__setattr__(obj, "name", value)`` is setattr under another name (a frozen dataclass's __post_init__
# writes it): judged as ``obj.name = value``; with a computed name, as setattr with one.
DUNDER_SETATTR_HONEST = {
    "a_frozen_dataclass_post_init": ("from dataclasses import dataclass\n\n@dataclass(frozen=True)\nclass Cfg:\n"
                                     "    d: int\n\n    def __post_init__(self):\n"
                                     "        object.__setattr__(self, 'scale', self.d ** -0.5)\n"),
    "a_setattr_override_falling_back_to_nn_module": ("class M(nn.Module):\n    def __setattr__(self, name, value):\n"
                                                     "        super().__setattr__(name, value)\n"),
    "a_computed_name_on_self": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                "        for n in 'qk':\n            object.__setattr__(self, n + '_scale', 1.0)\n"),
}


@pytest.mark.parametrize("code", DUNDER_SETATTR_HONEST.values(), ids=DUNDER_SETATTR_HONEST.keys())
def test_object_setattr_is_allowed_where_setattr_is(code):
    assert static.hidden_name_uses(HEADER + code) == ()
    assert static.fused_attention_uses(HEADER + code) == []


DUNDER_SETATTR_HOSTILE = {
    "class_of_a_torch_module_replaced": ("class Hop(nn.Module):\n    pass\n\nobject.__setattr__(F, '__class__', Hop)\n",
                                         "sets object.__setattr__(F, '__class__', ...)"),
    "torch_utils_replaced": ("object.__setattr__(torch, 'utils', None)\n", "object.__setattr__(torch, 'utils', ...)"),
    "torch_jit_deleted": ("type(torch).__delattr__(torch, 'jit')\n", "__delattr__(torch, 'jit')"),
    "torch_kept_on_self": ("class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                           "        object.__setattr__(self, 't', torch)\n", "torch kept as an attribute"),
    "a_computed_name_on_torch": ("def put(n, v):\n    object.__setattr__(torch, n, v)\n",
                                 "__setattr__ with a computed name"),
}


@pytest.mark.parametrize(("code", "reason"), DUNDER_SETATTR_HOSTILE.values(), ids=DUNDER_SETATTR_HOSTILE.keys())
def test_object_setattr_is_flagged_where_setattr_is(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found


# ------------------------------------------------------------------ optional packages that are not installed
# ``try: from apex.normalization import FusedLayerNorm`` / ``except ImportError:`` (pytorch-pretrained-bert,
# Megatron, old fairseq): the package is absent where the file is graded, so the import binds and runs
# nothing; it cost a correct file 13 points pending review.
ABSENT_OPTIONAL_HONEST = {
    "apex_layer_norm_with_a_fallback": ("try:\n    from apex.normalization import FusedLayerNorm as BertLayerNorm\n"
                                        "except ImportError:\n    BertLayerNorm = nn.LayerNorm\n"),
    "a_tuple_of_handlers": "try:\n    import apex\nexcept (ImportError, AttributeError):\n    apex = None\n",
    "module_not_found_error": "try:\n    import apex.amp\nexcept ModuleNotFoundError:\n    pass\n",
}


@pytest.mark.parametrize("code", ABSENT_OPTIONAL_HONEST.values(), ids=ABSENT_OPTIONAL_HONEST.keys())
def test_a_guarded_import_of_a_package_not_installed_is_not_flagged(code):
    assert static.hidden_name_uses(HEADER + code) == ()
    assert static.fused_attention_uses(HEADER + code) == []


ABSENT_OPTIONAL_STILL = {
    "not_guarded": ("import apex\n", "imports apex"),
    "a_handler_that_does_not_catch_it": ("try:\n    import apex\nexcept KeyError:\n    apex = None\n", "imports apex"),
    "in_the_handler": ("try:\n    import json\nexcept ImportError:\n    import apex\n", "imports apex"),
    "in_the_else_branch": ("try:\n    import json\nexcept ImportError:\n    pass\nelse:\n    import apex\n",
                           "imports apex"),
    "an_installed_package": ("try:\n    import sympy\nexcept ImportError:\n    sympy = None\n", "imports sympy"),
    "a_standard_library_module": ("try:\n    import ctypes\nexcept ImportError:\n    ctypes = None\n", "imports ctypes"),
    "an_attention_kernel_package": ("try:\n    from flash_attn import flash_attn_func\nexcept ImportError:\n"
                                    "    flash_attn_func = None\n", "imports flash_attn"),
    "xformers": ("try:\n    import xformers.ops as xops\nexcept ImportError:\n    xops = None\n", "imports xformers.ops"),
    "an_attention_name_from_an_absent_package": ("try:\n    from apex.contrib import fast_attn_kernel\n"
                                                 "except ImportError:\n    pass\n", "imports apex.contrib"),
    "a_loader_in_the_handler": ("try:\n    import apex\nexcept ImportError:\n    import importlib\n",
                                "imports importlib"),
}


@pytest.mark.parametrize(("code", "reason"), ABSENT_OPTIONAL_STILL.values(), ids=ABSENT_OPTIONAL_STILL.keys())
def test_hostile_neighbours_of_a_guarded_absent_import_stay_flagged(code, reason):
    found = static.hidden_name_uses(HEADER + code)
    assert any(reason in f for f in found), found
