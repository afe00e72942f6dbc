"""Fairness round 22: four public styles that cost 13 points pending review, each now read for what it can
reach, with the cheats at each rule's edge still flagged; PyTorch's variable-length attention on the fused
list; 21 more correct files in styles the corpus lacked (graded end to end, 85/85 with no finding, by
test_grading.test_correct_styles_get_full_code_marks and test_fair_corpus.test_no_hint_fires_on_a_correct_style).

- HF's ``PretrainedConfig.__eq__``: ``isinstance(other, PretrainedConfig) and self.__dict__ == other.__dict__``
  (static._own_dict_equality: both objects the file's own, ``==`` only answers a bool).
- A registry object's decorator keyed by the name (``@ATTENTION.register("scaled_dot_product")``, mmcv /
  detectron2 / fvcore style; static._own_registry_keys: the key only indexes a dict the registry holds).
- ``functools.singledispatchmethod`` on a mask helper (static._decorating_dispatchers: a bare decorator in a
  file with no string annotation, the only code its register() evaluates; the bare import stays flagged,
  test_static_review's ``string_annotations_evaluated``).
- DeepSpeed's ``config.__dict__[key] = value`` on the config ``from_dict`` just made (static._fresh_own_dict_write).
- ``torch.nn.attention.varlen.varlen_attn`` (torch 2.9+): its name is a fused use and the jail counts it."""

from __future__ import annotations

import pytest

from grader_tests.attention import static
from tests.grading.helpers import SUBMISSIONS

HEADER = "import functools\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom torch import Tensor\n"


def _found(source: str) -> tuple[str, ...]:
    return tuple(static.fused_attention_uses(source)) + static.hidden_name_uses(source)


# ------------------------------------------------------------------ HF's __eq__
CONFIG = ("class Config:\n    def __init__(self, d=4):\n        self.d = d\n\n"
          "    def __eq__(self, other):\n{body}\n")
EQ_GUARDED_BY_AND = "        return isinstance(other, Config) and (self.__dict__ == other.__dict__)"
EQ_GUARDED_BY_RETURN = "        if not isinstance(other, Config):\n            return False\n        return self.__dict__ == other.__dict__"
EQ_NOT_EQUAL = "        return not (isinstance(other, Config) and self.__dict__ != other.__dict__)"

# ------------------------------------------------------------------ a registry object's decorator
REGISTRY = '''class Registry:
    def __init__(self, name):
        self._name = name
        self._obj_map = {{}}

    def _do_register(self, name, obj):
        if name in self._obj_map:
            raise KeyError(f"{{name}} is already registered in {{self._name}}")
        self._obj_map[name] = obj

    def register(self, name):
        def deco(cls):
            self._do_register(name, cls)
            return cls
        return deco

    def get(self, name):
{get}

ATTENTION = Registry("attention")
{rebind}

@ATTENTION.register("scaled_dot_product")
class Kernel(nn.Module):
    pass


class Layer(nn.Module):
    def __init__(self, attn_type="scaled_dot_product"):
        super().__init__()
        self.attn = ATTENTION.get(attn_type)()
'''
GET_BY_INDEX = "        return self._obj_map[name]"
GET_BY_GET = "        return self._obj_map.get(name)"


def _registry(get: str = GET_BY_INDEX, rebind: str = "", **replace: str) -> str:
    source = HEADER + REGISTRY.format(get=get, rebind=rebind)
    for old, new in replace.items():
        assert old.replace("_", " ") in source or old in source, old
        source = source.replace(old, new)
    return source


# ------------------------------------------------------------------ singledispatch
DISPATCH = '''class Layer(nn.Module):
    {decorator}
    def to_bias(self, mask):
        raise TypeError(type(mask).__name__)

    @to_bias.register
    def _(self, mask: {annotation}):
        return mask

    @to_bias.register(type(None))
    def _(self, mask):
        return 0.0
'''


def _dispatch(decorator: str = "@functools.singledispatchmethod", annotation: str = "Tensor", prelude: str = "") -> str:
    return HEADER + prelude + DISPATCH.format(decorator=decorator, annotation=annotation)


# ------------------------------------------------------------------ DeepSpeed's from_dict
FROM_DICT = '''class Config:
    def __init__(self):
        self.heads = 2

    @classmethod
    def from_dict(cls, json_object):
        config = {made}
        for key, value in json_object.items():
            {target}.__dict__[key] = value
        return config
'''


def _from_dict(made: str = "Config()", target: str = "config", extra: str = "") -> str:
    return HEADER + FROM_DICT.format(made=made, target=target) + extra


OK = {
    "hf_eq_guarded_by_and": HEADER + CONFIG.format(body=EQ_GUARDED_BY_AND),
    "hf_eq_guarded_by_an_early_return": HEADER + CONFIG.format(body=EQ_GUARDED_BY_RETURN),
    "hf_eq_not_equal": HEADER + CONFIG.format(body=EQ_NOT_EQUAL),
    "registry_decorator_and_get_by_index": _registry(),
    "registry_decorator_and_dict_get": _registry(GET_BY_GET),
    "singledispatchmethod_read_off_functools": _dispatch(),
    "singledispatchmethod_imported_from_functools": _dispatch("@singledispatchmethod",
                                                              prelude="from functools import singledispatchmethod\n"),
    "singledispatch_on_a_function": HEADER + "@functools.singledispatch\ndef to_bias(mask):\n    return mask\n\n"
    "@to_bias.register\ndef _(mask: Tensor):\n    return mask\n",
    "singledispatchmethod_under_future_annotations": "from __future__ import annotations\n" + _dispatch(),
    "deepspeed_from_dict_on_its_own_class": _from_dict(),
    "deepspeed_from_dict_on_cls": _from_dict("cls()"),
}


@pytest.mark.parametrize("source", OK.values(), ids=OK.keys())
def test_public_styles_that_only_touch_the_files_own_objects_are_no_finding(source):
    assert _found(source) == ()


NOT_OWN = "        return self.__dict__ == other.__dict__"
BAD = {
    # HF __eq__: other may be anything
    "eq_without_a_guard": HEADER + CONFIG.format(body=NOT_OWN),
    "eq_guarding_another_name": HEADER + CONFIG.format(body="        return isinstance(self, Config) and "
                                                       "self.__dict__ == other.__dict__"),
    "eq_guard_after_the_comparison": HEADER + CONFIG.format(body="        return self.__dict__ == other.__dict__ "
                                                            "and isinstance(other, Config)"),
    "eq_other_rebound_after_the_guard": HEADER + CONFIG.format(
        body="        if not isinstance(other, Config):\n            return False\n        other = F\n" + NOT_OWN),
    "eq_guard_by_a_class_with_a_metaclass": HEADER + "class Meta(type):\n    def __instancecheck__(cls, obj):\n"
    "        return True\n\nclass Any(metaclass=Meta):\n    pass\n\n"
    + CONFIG.format(body="        return isinstance(other, Any) and self.__dict__ == other.__dict__"),
    "eq_in_a_function_outside_a_class": HEADER + "class Config:\n    pass\n\ndef same(a, b):\n"
    "    return isinstance(b, Config) and a.__dict__ == b.__dict__\n",
    "eq_dict_kept": HEADER + CONFIG.format(body="        d = other.__dict__\n        return isinstance(other, Config)"
                                           " and self.__dict__ == d"),
    # registry: the key leaves the dict, or the dict or registry may be anything
    "registry_method_keeps_the_name": _registry(**{"self._obj_map[name] = obj": "self._obj_map[name] = obj\n"
                                                   "        self.last = name"}),
    "registry_keys_listed": _registry("        return list(self._obj_map)[0]"),
    "registry_dict_is_a_namespace": _registry(**{"self._obj_map = {}": "self._obj_map = vars(F)"}),
    "registry_name_rebound": _registry(rebind="ATTENTION = F"),
    "registry_key_handed_out": _registry("        return getattr(F, name)"),
    "registry_key_to_a_function_of_the_file": _registry("        return pick(name)") + "\ndef pick(n):\n    return n\n",
    "registry_method_read_off_the_class": _registry(rebind="KEY = Registry.get('scaled_dot_product', 'x')")
    .replace("        return self._obj_map[name]", "        return self"),
    "registry_staticmethod": _registry(**{"    def get(self, name):": "    @staticmethod\n    def get(self, name):"}),
    # singledispatch: register() evaluates string annotations
    "dispatch_string_annotation": _dispatch(annotation='"Tensor"'),
    "dispatch_string_inside_an_annotation": _dispatch(annotation='"list[Tensor]"'),
    "dispatch_with_a_string_annotation_elsewhere": _dispatch(prelude='LIMIT: "int" = 3\n'),
    "dispatch_kept_as_a_value": _dispatch(prelude="sd = functools.singledispatchmethod\n"),
    "dispatch_called_on_a_function": HEADER + "def f(x):\n    return x\n\ng = functools.singledispatch(f)\n",
    "dispatch_imported_under_another_name": _dispatch("@sdm", prelude="from functools import singledispatchmethod as sdm\n"),
    # DeepSpeed: __dict__ written on anything but an object the function just made of the file's own class
    "dict_write_on_self": _from_dict(target="self").replace("def from_dict(cls,", "def from_dict(self,")
    .replace("    @classmethod\n", ""),
    "dict_write_on_a_parameter": _from_dict(target="json_object"),
    "dict_write_on_a_module": _from_dict(made="F"),
    "dict_write_on_a_name_bound_twice": _from_dict().replace("        return config", "        config = F\n        return config"),
    "dict_write_on_a_class_answering_its_own_dict": _from_dict().replace(
        "        self.heads = 2\n", "        self.heads = 2\n\n    @property\n    def __dict__(self):\n        return vars(F)\n"),
    "dict_write_on_a_class_with_a_metaclass": _from_dict().replace("class Config:", "class Config(metaclass=type):"),
    # PyTorch's variable-length attention
    "varlen_attn_imported": HEADER + "from torch.nn.attention.varlen import varlen_attn\n",
    "varlen_attn_read_off_torch": HEADER + "f = torch.nn.attention.varlen.varlen_attn\n",
    "varlen_attn_out_read_off_its_module": HEADER + "import torch.nn.attention.varlen as V\nf = V.varlen_attn_out\n",
}


@pytest.mark.parametrize("source", BAD.values(), ids=BAD.keys())
def test_the_same_forms_on_something_the_file_does_not_own_are_still_flagged(source):
    assert _found(source), source


def test_a_bare_singledispatch_import_stays_flagged():
    """test_static_review's string_annotations_evaluated: an import whose use the file does not show."""
    assert any("singledispatch" in f for f in static.hidden_name_uses(HEADER + "from functools import singledispatch\n"
                                                                       "d = singledispatch\n"))


CORPUS = ["hf_config_eq_dict", "registry_object_register_decorator", "singledispatchmethod_mask_bias", "combined_import_lines",
          "mingpt_cfgnode_key_query_value", "config_from_dict_inspect_signature", "hf_config_attribute_map",
          "deepspeed_config_layer_counter"]


@pytest.mark.parametrize("name", CORPUS)
def test_the_corpus_files_in_these_styles_have_no_finding(name):
    source = (SUBMISSIONS / "correct" / f"{name}.py").read_text(encoding="utf-8")
    assert static.review_reasons(source) == [] and _found(source) == ()


def test_variable_length_attention_is_on_the_run_time_watch():
    # (not run in the jail: importing torch.nn.attention.varlen there takes more than 3 s, and its kernels
    # are CUDA-only, so on the grader's CPU a call fails anyway)
    assert {"torch.nn.attention.varlen.varlen_attn", "torch.nn.attention.varlen.varlen_attn_out"} <= set(
        static.FORBID_RUNTIME)


# ------------------------------------------------------------------ several modules on one import line
# ``import os, math, time``: the line was flagged as "imports os" (13 points) whenever a followed standard-library
# module (os, sys, json, operator...) shared it with a reviewable one (math, torch, numpy, functools); each
# module of the statement is now judged on its own.
ONE_LINE_OK = {
    "os_beside_math": "import math, os, time\nos.environ['KMP_DUPLICATE_LIB_OK'] = 'TRUE'\n",
    "torch_and_os": "import torch, os\np = os.path.join('a', 'b')\n",
    "numpy_aliased_and_sys": "import numpy as np, sys\nok = sys.version_info >= (3, 8)\n",
    "functools_and_operator": "import functools, operator\nn = functools.reduce(operator.mul, (2, 3), 1)\n",
    "json_and_math": "import json, math\ncfg = json.loads('{}')\n",
}
ONE_LINE_BAD = {
    "os_reaching_sys_modules": "import math, os\nm = os.sys.modules\n",
    "os_kept_as_a_value": "import math, os\nx = os\n",
    "an_unfollowed_module_beside_math": "import math, pydoc\nh = pydoc.render_doc\n",
    "operator_attrgetter": "import math, operator\nf = operator.attrgetter('x')\n",
    "importlib_beside_math": "import importlib, math\nm = importlib.import_module('math')\n",
}


@pytest.mark.parametrize("code", ONE_LINE_OK.values(), ids=ONE_LINE_OK.keys())
def test_each_module_of_an_import_line_is_judged_on_its_own(code):
    assert _found(HEADER + code) == ()


@pytest.mark.parametrize("code", ONE_LINE_BAD.values(), ids=ONE_LINE_BAD.keys())
def test_a_module_sharing_an_import_line_is_still_followed_attribute_by_attribute(code):
    assert _found(HEADER + code)


# ------------------------------------------------------------------ minGPT's CfgNode
# ``self.__dict__.update(kwargs)`` (setattr on self by the caller's names, as setattr(self, k, v) is) and methods
# called on an object known to be of the file's own class (``v._str_helper(...)`` under ``isinstance(v, CfgNode)``,
# ``config = CfgNode(...); config.merge_from_dict(d)``) were "reached off their object" / "a private name of something
# not your own": 13 points.
CFG = '''class CfgNode:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def _str_helper(self, indent):
        parts = []
        for k, v in self.__dict__.items():
            {loop}
        return "".join(parts)

    def merge_from_dict(self, d):
        self.__dict__.update(d)

{tail}'''
RECURSE_IF = "if isinstance(v, CfgNode):\n                parts.append(v._str_helper(indent + 1))"
RECURSE_IFEXP = "parts.append(v._str_helper(indent + 1) if isinstance(v, CfgNode) else str(v))"
RECURSE_AND = "parts.append(isinstance(v, CfgNode) and v._str_helper(indent + 1))"
FRESH = "def build(d):\n    config = CfgNode(n_embd=16)\n    config.merge_from_dict(d)\n    return config\n"


def _cfg(loop: str = RECURSE_IF, tail: str = FRESH) -> str:
    return HEADER + CFG.format(loop=loop, tail=tail)


CFG_OK = {"recursion_under_if_isinstance": _cfg(), "recursion_in_a_conditional_expression": _cfg(RECURSE_IFEXP),
          "recursion_after_and": _cfg(RECURSE_AND)}
CFG_BAD = {
    "the_class_in_a_variable": _cfg(tail="K = CfgNode\nK._str_helper(F, 0)\n"),
    "rebound_under_the_guard": _cfg("if isinstance(v, CfgNode):\n                v = F\n"
                                    "                parts.append(v._str_helper(indent + 1))"),
    "the_else_branch": _cfg("parts.append(str(v) if isinstance(v, CfgNode) else v._str_helper(indent + 1))"),
    "after_or": _cfg("parts.append(isinstance(v, CfgNode) or v._str_helper(indent + 1))"),
    "a_guard_naming_another_class": _cfg("if isinstance(v, (CfgNode, type)):\n"
                                         "                parts.append(v._str_helper(indent + 1))"),
    "a_class_with_a_metaclass": _cfg().replace("class CfgNode:", "class CfgNode(metaclass=type):"),
    "a_class_answering_isinstance": _cfg().replace("class CfgNode:", "class CfgNode:\n    @classmethod\n"
                                                  "    def __subclasshook__(cls, c):\n        return True\n"),
    "bound_twice": _cfg(tail=FRESH.replace("    config.merge", "    config = F\n    config.merge")),
    "a_parameter": _cfg(tail="def build(config, d):\n    config.merge_from_dict(d)\n"),
    "update_with_names_the_method_writes": _cfg().replace("self.__dict__.update(d)", "self.__dict__.update(t=torch)"),
    "update_outside_a_method": _cfg(tail="def put(self, d):\n    self.__dict__.update(d)\n"),
    "update_on_another_object": _cfg().replace("self.__dict__.update(d)", "d.__dict__.update(d)"),
}


@pytest.mark.parametrize("source", CFG_OK.values(), ids=CFG_OK.keys())
def test_mingpt_cfgnode_is_no_finding(source):
    assert _found(source) == ()


@pytest.mark.parametrize("source", CFG_BAD.values(), ids=CFG_BAD.keys())
def test_a_method_or_dict_write_on_an_object_not_known_to_be_the_files_own_is_still_flagged(source):
    assert _found(source), source


# ------------------------------------------------------------------ inspect.signature of the file's own callables
SIGNATURE = ("import inspect\nclass C:\n    def __init__(self, a=1):\n        self.a = a\n\n    @classmethod\n"
             "    def from_dict(cls, d):\n        keys = {sig}.parameters\n"
             "        return cls(**{{k: v for k, v in d.items() if k in keys}})\n\n"
             "    def names(self):\n        return list({own}.parameters)\n")
SIGNATURE_OK = {
    "of_cls": ("inspect.signature(cls)", "inspect.signature(type(self))"),
    "of_cls_init": ("inspect.signature(cls.__init__)", "inspect.signature(self.__class__)"),
    "of_the_class_and_a_bound_method": ("inspect.signature(C)", "inspect.signature(self.names)"),
}
SIGNATURE_BAD = {
    "evaluating_string_annotations": ("inspect.signature(cls, eval_str=True)", "inspect.signature(self)"),
    "of_a_torch_function": ("inspect.signature(F.softmax)", "inspect.signature(self)"),
    "of_a_parameter": ("inspect.signature(d)", "inspect.signature(self)"),
    "kept_as_a_value": ("(s := inspect.signature)(cls)", "inspect.signature(self)"),
    "of_something_off_the_class": ("inspect.signature(cls.mro)", "inspect.signature(self)"),
    "of_a_torch_init": ("inspect.signature(torch.nn.Module.__init__)", "inspect.signature(self)"),
}


@pytest.mark.parametrize(("sig", "own"), SIGNATURE_OK.values(), ids=SIGNATURE_OK.keys())
def test_the_signature_of_the_files_own_callable_is_no_finding(sig, own):
    assert _found(HEADER + SIGNATURE.format(sig=sig, own=own)) == ()


@pytest.mark.parametrize(("sig", "own"), SIGNATURE_BAD.values(), ids=SIGNATURE_BAD.keys())
def test_any_other_signature_stays_flagged(sig, own):
    assert _found(HEADER + SIGNATURE.format(sig=sig, own=own))


# ------------------------------------------------------------------ the review's findings in Chinese
# Three forms round 21 added were English (or garbled) in the zh feedback: ".__init__ 用另一个 self 调用 把 or 当作值使用",
# "an argparse action kept or built (...)", "super() bound to something other than self".
ROUND21_FINDINGS = [
    "line 9: .__init__ called with another self or used as a value",
    "line 9: an argparse action kept or built (add_argument(...))",
    "line 9: an argparse action kept or built (BooleanOptionalAction)",
    "line 9: super() bound to something other than self",
]


@pytest.mark.parametrize("finding", ROUND21_FINDINGS)
def test_round_21s_review_findings_read_as_chinese(finding):
    from grader_tests.attention.test_implementation import _zh
    from tests.grading.helpers import english_in_zh

    zh = _zh(finding)
    assert zh.startswith("第 9 行：") and english_in_zh(zh, frozenset({"argparse", "add_argument",
                                                                     "BooleanOptionalAction"})) == [], zh


# ------------------------------------------------------------------ HF's attribute_map
ATTRIBUTE_MAP = '''class Config:
    attribute_map = {{"n_embd": "hidden_size"}}

    def __setattr__(self, key, value):
        if key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        super().__setattr__(key, value)

    def __getattribute__(self, key):
        {body}
'''
MAP_OK = "if key != 'attribute_map' and key in super().__getattribute__('attribute_map'):\n" \
         "            key = super().__getattribute__('attribute_map')[key]\n        return super().__getattribute__(key)"
MAP_BAD = {
    "super_bound_to_torch": "return super(type(torch), torch).__getattribute__(key)",
    "object_getattribute_on_torch": "return object.__getattribute__(torch, key)",
    "kept_as_a_value": "g = super().__getattribute__\n        return g(key)",
}
# outside the __getattribute__ override, only a public name written out (a computed one could reach __dict__ or
# _modules and write into them; test_static_review's getattribute_of_super_in_getattr)
OUTSIDE_GETATTRIBUTE = {
    "a_computed_name_in_setattr": "super().__getattribute__(key)",
    "a_private_name_in_setattr": "super().__getattribute__('_modules')",
    "the_instance_dict_in_setattr": "super().__getattribute__('__dict__')",
}


def test_hfs_attribute_map_through_super_getattribute_is_no_finding():
    assert _found(HEADER + ATTRIBUTE_MAP.format(body=MAP_OK)) == ()


@pytest.mark.parametrize("body", MAP_BAD.values(), ids=MAP_BAD.keys())
def test_getattribute_on_anything_but_super_is_still_flagged(body):
    assert _found(HEADER + ATTRIBUTE_MAP.format(body=body))


def test_super_getattribute_outside_a_method_of_the_files_own_class_is_still_flagged():
    source = HEADER + "class M(type):\n    pass\n\n" + ATTRIBUTE_MAP.format(body=MAP_OK).replace(
        "class Config:", "class Config(metaclass=M):")
    assert _found(source)


@pytest.mark.parametrize("read", OUTSIDE_GETATTRIBUTE.values(), ids=OUTSIDE_GETATTRIBUTE.keys())
def test_super_getattribute_outside_the_override_only_reads_public_names_written_out(read):
    source = HEADER + ATTRIBUTE_MAP.format(body=MAP_OK).replace(
        '        super().__setattr__(key, value)\n', f"        {read}\n        super().__setattr__(key, value)\n")
    assert read in source and _found(source)
