"""Mend of round 46 B after review RB: each new 'no finding' reading accepts only what it can prove. A frame-reading
``save_hyperparameters`` must be undecorated and named so that neither Python (``dict(obj)`` calls ``keys``) nor torch
(nn.Linear calls ``reset_parameters``) calls it; ``fields``/``dataclass`` must come from the dataclasses import;
``dict(...)`` must be the builtin; a decorator's ``inspect.signature(fn)`` must sit directly over the file's def; a
setattr loop over pairs the file writes out (a mutated local dict, ``zip``, a list of pairs, a module-level dict) is
read by the values it can hold."""

from __future__ import annotations

import pytest

from grader_tests.attention.static import hidden_name_uses
from tests.grading.test_fair_styles_round46 import D2L, INIT, KERNEL

FRAME = ("f_back", "currentframe")

DC = "import dataclasses\n" + KERNEL + """

@dataclasses.dataclass
class Config:
    d_model: int = 8
    heads: int = 2

    def as_dict(self):
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
"""

W = "import functools\nimport inspect\n" + KERNEL + """

def logged(fn):
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def inner(*args, **kwargs):
        sig.bind(*args, **kwargs)
        return fn(*args, **kwargs)
    return inner
"""


def _frame_found(source: str) -> bool:
    return any(any(f in found for f in FRAME) for found in hidden_name_uses(source))


# --- HIGH 1 / MED 1: whose frame f_back is
def test_a_frame_reading_method_under_a_decorator_stays_a_finding():
    source = D2L.replace("class HyperParameters:", "def deco(fn):\n    t = torch\n\n    def inner(self, *a):\n"
                         "        t\n        return fn(self, *a)\n    return inner\n\n\nclass HyperParameters:\n    @deco")
    assert "@deco\n    def save_hyperparameters" in source
    assert _frame_found(source)


@pytest.mark.parametrize("name", ["keys", "write", "flush", "read", "readline", "mro", "run", "send"])
def test_a_frame_reading_method_named_as_python_calls_it_stays_a_finding(name):
    assert _frame_found(D2L.replace("save_hyperparameters", name))


def test_the_keys_protocol_called_by_dict_from_a_torch_holding_frame_stays_a_finding():
    source = D2L.replace("save_hyperparameters", "keys").replace(
        "        self.keys()\n", "        self.keys()\n\n    def __getitem__(self, k):\n        return 0\n\n"
        "    def grab(self):\n        t = torch\n        dict(self)\n")
    assert _frame_found(source)


@pytest.mark.parametrize("base,name", [("nn.Linear", "reset_parameters"), ("nn.MultiheadAttention", "_reset_parameters"),
                                       ("nn.Module", "extra_repr"), ("nn.RNNBase", "flatten_parameters")])
def test_a_frame_reading_method_torch_calls_on_its_subclass_stays_a_finding(base, name):
    source = "import inspect\n" + KERNEL + f"""

class L({base}):
    def {name}(self):
        frame = inspect.currentframe().f_back
        local_vars = frame.f_locals
        for k, v in local_vars.items():
            if k != 'self':
                setattr(self, 'h_' + k, v)

    def again(self):
        self.{name}()
"""
    assert _frame_found(source)


def test_a_frame_reading_method_in_a_decorated_class_stays_a_finding():
    source = "import functools\n" + D2L.replace("class HyperParameters:", "@functools.total_ordering\nclass HyperParameters:")
    assert _frame_found(source)


@pytest.mark.parametrize("extra", ["", "\n\nclass N(nn.Module, HyperParameters):\n    def __init__(self, h=4):\n"
                                   "        super().__init__()\n        self.save_hyperparameters()\n"])
def test_d2l_save_hyperparameters_undecorated_still_gets_no_finding(extra):
    assert hidden_name_uses(D2L + extra) == ()


# --- HIGH 2: fields / dataclass bound by the dataclasses import only
FAKE_FIELDS = "\n\ndef fields(obj):\n    return [types.SimpleNamespace(name=chr(95) + 'C')]\n"


@pytest.mark.parametrize("source", [
    DC.replace("import dataclasses\n", "import dataclasses\nimport types\n").replace("dataclasses.fields(self)", "fields(self)")
    .replace("getattr(self, f.name)", "getattr(torch, f.name)") + FAKE_FIELDS,
    DC.replace("import dataclasses\n", "import types\n").replace("@dataclasses.dataclass", "@dataclass")
    .replace("dataclasses.fields(self)", "fields(self)").replace("getattr(self, f.name)", "getattr(torch, f.name)")
    + "\n\ndef dataclass(c):\n    return c\n" + FAKE_FIELDS,
    DC.replace("import dataclasses\n", "import dataclasses\nfrom dataclasses import fields\n")
    .replace("dataclasses.fields(self)", "fields(self)") + "\n\nfields = lambda obj: []\n",
    DC.replace("import dataclasses\n", "import dataclasses as dataclasses\n"),
    DC + "\n\ndataclasses = None\n"])
def test_fields_or_dataclass_bound_other_than_by_the_dataclasses_import_stays_a_computed_name(source):
    assert any("computed name" in f for f in hidden_name_uses(source))


@pytest.mark.parametrize("source", [
    DC, DC.replace("@dataclasses.dataclass", "@dataclasses.dataclass(frozen=True)"),
    DC.replace("import dataclasses\n", "from dataclasses import dataclass, fields\n")
    .replace("@dataclasses.dataclass", "@dataclass").replace("dataclasses.fields(self)", "fields(self)")])
def test_fields_of_the_files_own_dataclass_from_the_dataclasses_import_is_no_finding(source):
    assert hidden_name_uses(source) == ()


# --- HIGH 3: dict() the builtin only
SHADOW = "\n\ndef dict(**kw):\n    return {'t': torch}\n"


@pytest.mark.parametrize("body", ["        self.__dict__.update(dict(n=heads))\n",
                                  "        d = dict(n=heads)\n        self.__dict__.update(d)\n"])
def test_a_shadowed_dict_given_to_self_dict_stays_a_finding(body):
    assert any(".__dict__" in f for f in hidden_name_uses(KERNEL + INIT + body + SHADOW))
    assert any(".__dict__" in f for f in hidden_name_uses(KERNEL + INIT + body + "\n\ndict = lambda **kw: {}\n"))


@pytest.mark.parametrize("body", ["        self.__dict__.update(dict(n=heads))\n",
                                  "        d = dict(n=heads)\n        self.__dict__.update(d)\n"])
def test_the_builtin_dict_given_to_self_dict_is_no_finding(body):
    assert hidden_name_uses(KERNEL + INIT + body) == ()


# --- MED 2: the decorator's argument is the file's def only when nothing below can replace it
@pytest.mark.parametrize("tail", [
    "\n\ndef to_softmax(fn):\n    return F.softmax\n\n\nclass M(nn.Module):\n    @logged\n    @to_softmax\n"
    "    def forward(self, x):\n        return x\n",
    "\n\nclass M(nn.Module):\n    @logged\n    @functools.partial(lambda g, f: g, F.softmax)\n"
    "    def forward(self, x):\n        return x\n",
    "\n\nstaticmethod = lambda f: F.softmax\n\n\nclass M(nn.Module):\n    @logged\n    @staticmethod\n"
    "    def f(x):\n        return x\n"])
def test_a_decorator_signature_over_another_decorator_stays_a_finding(tail):
    assert any("inspect.signature" in f for f in hidden_name_uses(W + tail))


@pytest.mark.parametrize("tail", [
    "\n\nclass M(nn.Module):\n    @logged\n    def forward(self, x):\n        return x\n",
    "\n\nclass M(nn.Module):\n    @logged\n    @staticmethod\n    def f(x):\n        return x\n"])
def test_a_decorator_signature_directly_over_the_files_def_is_no_finding(tail):
    assert hidden_name_uses(W + tail) == ()


# --- MED 3: a setattr loop over pairs the file writes is read by every value it writes
@pytest.mark.parametrize("head,loop", [
    ('        d = {"n": 1}\n        d["t"] = torch\n', "for k, v in d.items():"),
    ('        d = {"n": 1}\n        d.update(t=torch)\n', "for k, v in d.items():"),
    ('        d = {"n": 1}\n        d.setdefault("t", torch)\n', "for k, v in d.items():"),
    ("", 'for k, v in zip(["t"], [torch]):'),
    ("", 'for k, v in [("t", torch)]:'),
    ("", "for k, v in D.items():"),
    ("", "for k, v in make().items():"),
    ("", "for k, v in dict(n=heads).items():")])
def test_a_setattr_loop_over_written_pairs_holding_torch_stays_a_finding(head, loop):
    prelude = "D = {'t': torch}\n\n\ndef make():\n    return {'t': torch}\n\n\n"
    if "dict(n=heads)" in loop:
        prelude = "def dict(**kw):\n    return {'t': torch}\n\n\n"
    source = KERNEL + prelude + INIT + head + f"        {loop}\n            setattr(self, k, v)\n"
    assert any("kept as an attribute" in f for f in hidden_name_uses(source)), source


@pytest.mark.parametrize("body", [
    '        d = {"n": 1}\n        d.update(t=torch)\n        for k in d:\n            setattr(self, k, d[k])\n',
    '        d = {"t": torch}\n        [setattr(self, k, v) for k, v in d.items()]\n'])
def test_a_setattr_by_key_or_in_a_comprehension_over_a_dict_holding_torch_stays_a_finding(body):
    assert any("kept as an attribute" in f for f in hidden_name_uses(KERNEL + INIT + body))


@pytest.mark.parametrize("source", [
    KERNEL + INIT.replace("heads=2", "heads=2, **kwargs") + "        for k, v in kwargs.items():\n"
    "            setattr(self, k, v)\n",                                                   # minGPT's **kwargs
    KERNEL + INIT + '        d = {"n": heads}\n        d["h"] = d_model // heads\n        for k, v in d.items():\n'
    "            setattr(self, k, v)\n",
    KERNEL + INIT + '        for k, v in zip(["d", "h"], [d_model, heads]):\n            setattr(self, k, v)\n',
    KERNEL + "D = {'dropout': 0.0}\n\n\n" + INIT + "        for k, v in D.items():\n            setattr(self, k, v)\n",
    KERNEL + INIT + '        for k, v in [("q", nn.Linear(d_model, d_model)), ("k", nn.Linear(d_model, d_model))]:\n'
    "            setattr(self, k, v)\n"])
def test_a_setattr_loop_over_plain_written_pairs_is_no_finding(source):
    assert hidden_name_uses(source) == ()


# --- MED 4: vars() of a namespace the method made, only when the method never takes torch as a value
@pytest.mark.parametrize("body", [
    "        args = argparse.Namespace(t=torch)\n        self.cfg = vars(args)\n",
    "        args = types.SimpleNamespace(**{'t': torch})\n        self.cfg = vars(args)\n",
    "        args = argparse.Namespace()\n        vars(args).update(t=torch)\n        self.cfg = args\n",
    "        args = argparse.Namespace()\n        vars(args)['__class__'] = 1\n        self.cfg = args\n"])
def test_vars_of_a_namespace_given_torch_or_changed_through_vars_stays_a_finding(body):
    source = "import argparse\nimport types\n" + KERNEL + INIT + body
    assert any(f.endswith(": vars") for f in hidden_name_uses(source)), body


@pytest.mark.parametrize("body", [
    "        args = argparse.Namespace(d=d_model, h=heads, act=F.gelu)\n        self.cfg = vars(args)\n",
    "        args = types.SimpleNamespace(d=d_model)\n        self.cfg = dict(vars(args).items())\n"])
def test_vars_of_a_namespace_of_plain_values_is_no_finding(body):
    assert hidden_name_uses("import argparse\nimport types\n" + KERNEL + INIT + body) == ()


# --- LOW: defaults merged with the caller's kwargs, given to self.__dict__
DEFAULTS = ("class M(nn.Module):\n    def __init__(self, d_model, **kwargs):\n        super().__init__()\n"
            "        defaults = {'heads': 2, 'dropout': 0.0}\n")


def test_defaults_updated_by_kwargs_given_to_self_dict_is_no_finding():
    body = "        defaults.update(kwargs)\n        self.__dict__.update(defaults)\n"
    assert hidden_name_uses(KERNEL + DEFAULTS + body) == ()


@pytest.mark.parametrize("body,finding", [
    ("        defaults.update({'t': torch})\n        self.__dict__.update(defaults)\n", "kept as an attribute"),
    ("        defaults.update(t=torch)\n        self.__dict__.update(defaults)\n", ".__dict__"),
    ("        defaults['t'] = torch\n        self.__dict__.update(defaults)\n", ".__dict__"),
    ("        defaults.update({'__class__': nn.Module})\n        self.__dict__.update(defaults)\n", ".__dict__"),
    ("        print(defaults)\n        self.__dict__.update(defaults)\n", ".__dict__")])
def test_defaults_changed_any_other_way_given_to_self_dict_stays_a_finding(body, finding):
    assert any(finding in f for f in hidden_name_uses(KERNEL + DEFAULTS + body)), body
