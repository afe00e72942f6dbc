"""Fairness round 24: the four public styles round 22 left open, each read for what it can reach, with the cheats
at each rule's edge still flagged (13 points each while flagged: pending review).

- AllenNLP's ``Registrable``: ``registry = Registrable._registry[cls]`` (a ``defaultdict(dict)``, one dict of names
  per base class) kept under a local name in ``register``, and ``@reg("scaled_dot_product")`` through a module-level
  alias ``reg = Attention.register`` (static._own_registry_keys: the key only indexes dicts nobody lists).
- ``inspect.signature(Config.__init__)`` outside a method of Config: read for its parameters, never called, so no
  object becomes its ``self`` (static.unbound_calls' ``signature_only``).
- ``self.__dict__.update(...)`` and ``setattr(self, name, value)`` judged alike: both are setattr on the file's own
  object; names written out are judged as ``self.name = value`` is, and torch as a value is "kept as an attribute"
  either way (``setattr(self, computed, torch)`` passed before while ``update(t=torch)`` was flagged as __dict__).
- A private name off ``copy.deepcopy(self)`` / ``copy.copy(self)`` (a clone of the file's own object) is the
  student's own, as ``self._x`` is (static._copy_of_own_self)."""

from __future__ import annotations

import pytest

from grader_tests.attention import static

HEADER = "import copy\nimport inspect\nfrom collections import defaultdict\n\nimport torch\nimport torch.nn as nn\n" \
         "import torch.nn.functional as F\n"


def _found(source: str) -> tuple[str, ...]:
    return tuple(static.fused_attention_uses(source)) + static.hidden_name_uses(source)


# ------------------------------------------------------------------ AllenNLP's Registrable
REGISTRABLE = '''class Registrable:
    _registry = {store}

    @classmethod
    def register(cls, name):
        registry = Registrable._registry[cls]

        def add_subclass_to_registry(subclass):
            if name in registry:
                raise ValueError(f"Cannot register {{name}} as {{cls.__name__}}; name already in use")
            registry[name] = subclass
            return subclass

        return add_subclass_to_registry

    @classmethod
    def by_name(cls, name):
        return Registrable._registry[cls][name]


class Attention(nn.Module, Registrable):
    pass

{alias}
@{register}("scaled_dot_product")
class Kernel(Attention):
    pass


class Layer(nn.Module):
    def __init__(self, kind="scaled_dot_product"):
        super().__init__()
        self.attention = Attention.by_name(kind)()
{extra}'''


def _registrable(store: str = "defaultdict(dict)", alias: str = "", register: str = "Attention.register",
                 extra: str = "", **replace: str) -> str:
    source = HEADER + REGISTRABLE.format(store=store, alias=alias, register=register, extra=extra)
    for old, new in replace.items():
        assert old in source, old
        source = source.replace(old, new)
    return source


# ------------------------------------------------------------------ inspect.signature(C.__init__)
SIGNATURE = '''class Config:
    def __init__(self, heads=2, dim=8):
        self.heads = heads
        self.dim = dim

{code}'''

# ------------------------------------------------------------------ __dict__.update / setattr on self
MODULE = "class Block(nn.Module):\n    def __init__(self, name='d', **kwargs):\n        super().__init__()\n"

# ------------------------------------------------------------------ copies of self
CLONE = '''class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self._scale = 1.0
        self._cache = None

    def clone_scaled(self, scale):
{body}
{extra}'''


def _clone(body: str = "        other = copy.deepcopy(self)\n        other._scale = scale\n        other._cache = None\n"
           "        return other\n", extra: str = "", header: str = HEADER) -> str:
    return header + CLONE.format(body=body, extra=extra)


OK = {
    # 1. AllenNLP
    "allennlp_register_keeps_its_registry_locally": _registrable(),
    "allennlp_register_through_a_module_alias": _registrable(alias="reg = Attention.register\n", register="reg"),
    "allennlp_registry_from_collections": _registrable(store="collections.defaultdict(dict)",
                                                       **{"from collections import defaultdict": "import collections"}),
    # 2. inspect.signature of the file's own constructor, outside its class
    "signature_in_a_function": HEADER + SIGNATURE.format(
        code="def from_dict(d):\n    keys = inspect.signature(Config.__init__).parameters\n"
             "    return Config(**{k: v for k, v in d.items() if k in keys})\n"),
    "signature_at_module_level": HEADER + SIGNATURE.format(
        code="KEYS = set(inspect.signature(Config.__init__).parameters) - {'self'}\n"),
    "signature_in_a_staticmethod": HEADER + SIGNATURE.format(code="class Loader:\n    @staticmethod\n    def keys():\n"
                                                             "        return list(inspect.signature(Config.__init__).parameters)\n"),
    # 3. setattr on self through __dict__.update, names written out
    "dict_update_with_keywords": HEADER + MODULE + "        self.__dict__.update(d_model=4, heads=2)\n",
    "dict_update_with_a_dict_literal": HEADER + MODULE + "        self.__dict__.update({'d_model': 4, 'heads': 2})\n",
    "dict_update_with_starred_kwargs": HEADER + MODULE + "        self.__dict__.update(**kwargs)\n",
    "dict_update_kwargs_and_a_keyword": HEADER + MODULE + "        self.__dict__.update(kwargs, heads=2)\n",
    # 4. private names of a copy of self
    "deepcopy_of_self": _clone(),
    "copy_of_self": _clone("        other = copy.copy(self)\n        other._scale = scale\n        return other._scale\n"),
    "deepcopy_imported_by_name": _clone("        other = deepcopy(self)\n        other._reset()\n        return other\n",
                                        extra="    def _reset(self):\n        self._cache = None\n",
                                        header="from copy import deepcopy\n" + HEADER.replace("import copy\n", "")),
}


@pytest.mark.parametrize("source", OK.values(), ids=OK.keys())
def test_public_styles_that_only_touch_the_files_own_objects_are_no_finding(source):
    assert _found(source) == ()


BAD = {
    # 1. the registry's keys leave it, or it is not what it seems
    "registry_listed": (_registrable(extra="\nNAMES = list(Registrable._registry[Attention])\n"), "scaled_dot_product"),
    "registry_iterated_in_register": (_registrable(**{
        "            registry[name] = subclass\n": "            registry[name] = subclass\n"
        "            for k in registry:\n                print(k)\n"}), "scaled_dot_product"),
    "local_alias_rebound": (_registrable(**{"        return add_subclass_to_registry\n":
                                            "        registry = {}\n        return add_subclass_to_registry\n"}),
                            "scaled_dot_product"),
    "local_alias_handed_on": (_registrable(**{"        return add_subclass_to_registry\n":
                                              "        print(registry)\n        return add_subclass_to_registry\n"}),
                              "scaled_dot_product"),
    "registry_of_lists": (_registrable(store="defaultdict(list)"), "scaled_dot_product"),
    "defaultdict_rebound": (_registrable(extra="\ndefaultdict = lambda f: {}\n"), "scaled_dot_product"),
    "dict_rebound": (_registrable(extra="\ndict = list\n"), "scaled_dot_product"),
    "method_alias_bound_twice": (_registrable(alias="reg = Attention.register\nreg = Attention.by_name\n", register="reg"),
                                 "scaled_dot_product"),
    "method_alias_of_a_foreign_object": (_registrable(alias="reg = F.register\n", register="reg"), "scaled_dot_product"),
    # 2. the constructor called, kept, or its signature evaluated
    "init_kept_as_a_value": (HEADER + SIGNATURE.format(code="init = Config.__init__\n"), "used without self"),
    "init_called_on_torch": (HEADER + SIGNATURE.format(code="Config.__init__(torch)\n"), "called with another self"),
    "signature_evaluating_strings": (HEADER + SIGNATURE.format(
        code="KEYS = inspect.signature(Config.__init__, eval_str=True).parameters\n"), "inspect"),
    "signature_then_the_init_kept": (HEADER + SIGNATURE.format(
        code="KEYS = inspect.signature(Config.__init__).parameters\nINIT = Config.__init__\n"), "used without self"),
    # 3. torch under a name of self, by any route; names the review looks for
    "setattr_computed_torch": (HEADER + MODULE + "        setattr(self, name, torch)\n", "torch kept as an attribute"),
    "setattr_computed_functional": (HEADER + MODULE + "        setattr(self, name, F)\n", "F kept as an attribute"),
    "setattr_computed_torch_or": (HEADER + MODULE + "        setattr(self, name, kwargs or torch)\n",
                                  "torch kept as an attribute"),
    "dict_update_torch_keyword": (HEADER + MODULE + "        self.__dict__.update(t=torch)\n", "torch kept as an attribute"),
    "dict_update_torch_in_a_literal": (HEADER + MODULE + "        self.__dict__.update({'t': torch})\n",
                                       "torch kept as an attribute"),
    "dict_update_fused_name": (HEADER + MODULE + "        self.__dict__.update(scaled_dot_product_attention=kwargs)\n",
                               ".__dict__"),
    "dict_update_dunder_name": (HEADER + MODULE + "        self.__dict__.update(__class__=kwargs)\n", ".__dict__"),
    "dict_update_computed_keys": (HEADER + MODULE + "        self.__dict__.update({name: kwargs})\n", ".__dict__"),
    "dict_update_two_positionals": (HEADER + MODULE + "        self.__dict__.update(kwargs, kwargs)\n", ".__dict__"),
    "dict_update_a_built_dict": (HEADER + MODULE + "        self.__dict__.update(dict(t=torch))\n",
                                 "torch kept as an attribute"),
    # 4. not a copy of the file's own object
    "deepcopy_of_torch": (_clone("        other = copy.deepcopy(F)\n        return other._scale\n"), "other._scale"),
    "deepcopy_of_a_parameter": (_clone("        other = copy.deepcopy(scale)\n        return other._scale\n"),
                                "other._scale"),
    "copy_bound_twice": (_clone("        other = copy.deepcopy(self)\n        other = torch\n        return other._C\n"),
                         "other._C"),
    "class_with_its_own_deepcopy": (_clone(extra="    def __deepcopy__(self, memo):\n        return torch\n"),
                                    "other._scale"),
    "copy_module_rebound": (_clone(extra="copy = torch\n"), "other._scale"),
    "deepcopy_in_a_function_taking_self": (HEADER + "def clone(self):\n    other = copy.deepcopy(self)\n"
                                           "    return other._scale\n", "other._scale"),
    "deepcopy_of_an_attribute": (_clone("        other = copy.deepcopy(self.t)\n        return other._scale\n"),
                                 "other._scale"),
    "deepcopy_under_another_name": (_clone("        other = clone(self)\n        return other._scale\n",
                                           extra="clone = copy.deepcopy\n"), "other._scale"),
}


@pytest.mark.parametrize("source, reason", BAD.values(), ids=BAD.keys())
def test_cheats_at_each_rules_edge_stay_flagged(source, reason):
    found = _found(source)
    assert any(reason in f for f in found), found


# ------------------------------------------------------------------ reuse through the aliased registry
def test_a_kernel_registered_through_an_alias_of_the_register_method_is_reused_by_the_class_that_builds_it():
    """``reg = Attention.register; @reg("scaled_dot_product")`` puts the kernel into Attention's registry as
    ``@Attention.register(...)`` does, so a multi-head module that builds ``Attention.by_name(kind)()`` refers to
    it (static._holders_of; this cost 3 points, "never refers to ScaledDotProductAttention")."""
    source = _registrable(alias="reg = Attention.register\n", register="reg").replace(
        "class Kernel(Attention)", "class ScaledDotProductAttention(Attention)")
    assert static.class_uses_class(source, "Layer", "ScaledDotProductAttention")
    # a class that builds nothing from that registry still does not refer to it
    unrelated = source + "\n\nclass Other(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    assert not static.class_uses_class(unrelated, "Other", "ScaledDotProductAttention")
