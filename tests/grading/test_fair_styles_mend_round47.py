"""Round 47 mend (B): the review's findings on round 47's fair-style readings. H1: ``functools.update_wrapper`` is
no finding only as ``update_wrapper(self, fn)`` in ``__init__(self, fn)`` of a class used only as ``@cls`` over the
file's own defs (or a def of a decorator wrapping its only parameter); ``update_wrapper(self, F)`` copied F's
``__dict__`` into self. H2: ``vars(parser.parse_args([]))`` is read as a dict of written-out defaults only while
argparse and the parser are only called: a write (``argparse.ArgumentParser.parse_known_args = ...``) made
parse_args return torch's module. M1: a module off torch handed on (``M(torch.nn)``), and argparse's constructor
given anything but written-out values, keep their findings. M2: a dunder of self is no finding only as
``functools.partial(self.__call__, obj)`` returned by ``__get__``. M3: a decorator factory is given written-out
values only. M4: the readings are linear in the file (once per tree, not once per call)."""

from __future__ import annotations

import time

import pytest

from grader_tests.attention.static import hidden_name_uses
from tests.grading.test_fair_styles_round47 import D2L, FACTORY, MODULE_PARSER, PARSER, TIMED


@pytest.mark.parametrize("change", [
    ("update_wrapper(self, fn)", "update_wrapper(self, F)"),               # F's __dict__ copied into self
    ("update_wrapper(self, fn)", "update_wrapper(self, torch.nn)"),
    ("update_wrapper(self, fn)", "update_wrapper(torch.nn, fn)"),          # fn's metadata written onto torch
    ("update_wrapper(self, fn)", "update_wrapper(torch.softmax, fn)"),
    ("        functools.update_wrapper(self, fn)\n", "        self.w = functools.update_wrapper(self, fn)\n"),
    ("        self.fn = fn\n", "        self.fn = fn\n        fn = F\n"),  # the wrapped name rebound
    ("class M(nn.Module):", "sm = timed(F.softmax)\n\n\nclass M(nn.Module):"),  # the class given torch's function
    ("    def __init__(self, fn):", "    def __init__(self, fn, other=None):"),
])
def test_update_wrapper_of_anything_but_the_decorated_def_onto_its_decorator_stays_a_finding(change):
    found = hidden_name_uses(TIMED.replace(*change))
    assert any("functools.update_wrapper" in f for f in found), (change, found)


def test_update_wrapper_of_a_decorators_only_parameter_onto_its_own_wrapper_def_is_no_finding():
    # the parameter's name bound once in the file, as _decorated_function_parameter asks of inspect.signature(fn)
    source = TIMED.replace("class timed:", """def traced(func):
    def inner(*args, **kwargs):
        return func(*args, **kwargs)
    functools.update_wrapper(inner, func)
    return inner


class timed:""") + "\n    @traced\n    def helper(self, x):\n        return x\n"
    assert hidden_name_uses(source) == ()


@pytest.mark.parametrize("source, change", [
    (PARSER, ("class M(nn.Module):", "argparse.ArgumentParser.parse_known_args = lambda self, args=None, "
                                     "namespace=None: (F, [])\n\n\nclass M(nn.Module):")),
    (PARSER, ("class M(nn.Module):", "setattr(argparse.ArgumentParser, 'parse_known_args', print)\n\n\n"
                                     "class M(nn.Module):")),
    (PARSER, ("class M(nn.Module):", "AP = argparse.ArgumentParser\n\n\nclass M(nn.Module):")),
    (PARSER, ("class M(nn.Module):", "argparse.Namespace = dict\n\n\nclass M(nn.Module):")),
    (PARSER, ("class M(nn.Module):", "from argparse import ArgumentParser\nArgumentParser.parse_known_args = "
                                     "lambda self, a=None, n=None: (F, [])\n\n\nclass M(nn.Module):")),
    (PARSER, ("class M(nn.Module):", "import argparse as ap\nap.ArgumentParser.parse_known_args = "
                                     "lambda self, a=None, n=None: (F, [])\n\n\nclass M(nn.Module):")),
    (PARSER, ("    return parser\n", "    parser.parse_known_args = lambda *a, **k: (F, [])\n    return parser\n")),
    (PARSER, ("    return parser\n", "    patch(parser)\n    return parser\n")),     # the parser handed on
    (PARSER, ("cfg = vars(get_parser().parse_args([]))", "p = get_parser()\n        p.parse_known_args = print\n"
                                                         "        cfg = vars(p.parse_args([]))")),
    (MODULE_PARSER, ("args = parser.parse_args([])\n", "args = parser.parse_args([])\nargs.__class__ = object\n")),
    (MODULE_PARSER, ("args = parser.parse_args([])\n", "args = parser.parse_args([])\npatch(args)\n")),
])
def test_vars_of_parsed_defaults_stays_a_finding_when_argparse_or_the_parser_is_not_only_called(source, change):
    found = hidden_name_uses(source.replace(*change))
    assert any(f.endswith("vars") for f in found), (change, found)


@pytest.mark.parametrize("source, change", [
    (PARSER, ("argparse.ArgumentParser(description='attention')", "argparse.ArgumentParser(argument_default=F)")),
    (PARSER, ("argparse.ArgumentParser(description='attention')",
              "argparse.ArgumentParser(argument_default=torch.nn)")),
    (PARSER, ("argparse.ArgumentParser(description='attention')", "argparse.ArgumentParser(parents=[OTHER])")),
    (PARSER, ("argparse.ArgumentParser(description='attention')", "argparse.ArgumentParser(**{'prog': 'x'})")),
    (PARSER, ("parser.set_defaults(name='mha')", "sub = parser.add_subparsers()\n"
                                                 "    sub.add_parser('a', argument_default=torch.nn)")),
    (PARSER, ("argparse.ArgumentParser(description='attention')",                    # reads the files it is given
              "argparse.ArgumentParser(fromfile_prefix_chars='@')")),
])
def test_vars_of_a_parser_built_with_anything_but_written_out_values_stays_a_finding(source, change):
    found = hidden_name_uses(source.replace("import argparse\n", "import argparse\nOTHER = None\n")
                             .replace(*change))
    assert any(f.endswith("vars") for f in found), (change, found)


def test_a_parser_given_argparses_own_formatter_class_is_no_finding():
    source = PARSER.replace("argparse.ArgumentParser(description='attention')",
                            "argparse.ArgumentParser(description='attention', "
                            "formatter_class=argparse.ArgumentDefaultsHelpFormatter)")
    assert hidden_name_uses(source) == ()


@pytest.mark.parametrize("tail", ["m = M(torch.nn)\n", "m = M(torch.nn.functional)\n", "m = M(nn.functional)\n",
                                  "m = M(lib=torch.nn.functional)\n", "m = M(lib=(torch.nn,))\n",
                                  "m = M(lib={'t': torch.nn})\n",
                                  "class Sub(M):\n    def __init__(self):\n        super().__init__(torch.nn)\n"])
def test_a_module_of_torch_handed_to_the_caller_of_save_hyperparameters_keeps_the_frame_finding(tail):
    found = hidden_name_uses(D2L + "\n\n" + tail)
    assert any("f_back" in f for f in found), (tail, found)


def test_a_module_of_torch_as_the_callers_default_keeps_the_frame_finding():
    found = hidden_name_uses(D2L.replace("lib=None", "lib=torch.nn.functional"))
    assert any("f_back" in f for f in found), found


@pytest.mark.parametrize("tail", ["m = M(nn.LayerNorm)\n", "m = M(lib=torch.float32)\n"])
def test_a_class_or_dtype_of_torch_handed_to_the_caller_of_save_hyperparameters_is_no_finding(tail):
    assert hidden_name_uses(D2L + "\n\n" + tail) == ()


@pytest.mark.parametrize("change, finding", [
    (("out = self.fn(*args, **kwargs)", "self.__set_name__(torch, 'softmax')\n        out = self.fn(*args, **kwargs)"),
     ".__set_name__"),
    (("out = self.fn(*args, **kwargs)", "self.__init__(torch.nn)\n        out = self.fn(*args, **kwargs)"),
     ".__init__"),
    (("out = self.fn(*args, **kwargs)",
      "torch.nn.modules.module.register_module_forward_hook(self.__call__)\n        out = self.fn(*args, **kwargs)"),
     ".__call__"),
    (("partial(self.__call__, obj)", "partial(self.__call__, torch)"), ".__call__"),
    (("return functools.partial(self.__call__, obj)", "f = self.__call__\n        return functools.partial(f, obj)"),
     ".__call__"),
])
def test_a_dunder_of_self_other_than_its_call_bound_in_get_stays_a_finding(change, finding):
    found = hidden_name_uses(TIMED.replace(*change))
    assert any(finding in f for f in found), (change, found)


@pytest.mark.parametrize("change", [("@logged('info')", "@logged(torch)"), ("@logged('info')", "@logged(torch.nn)"),
                                    ("@logged(level='debug')", "@logged(level=F)"),
                                    ("@logged('info')", "@logged(*['info'])")])
def test_a_decorator_factory_given_anything_but_written_out_values_keeps_the_signature_finding(change):
    found = hidden_name_uses(FACTORY.replace(*change))
    assert any("inspect.signature" in f for f in found), (change, found)


HEADER = "import argparse\nimport inspect\nimport torch\nfrom torch import nn\n"
BUILDER = "def get_parser():\n    parser = argparse.ArgumentParser()\n    parser.add_argument('--d', type=int, default=8)\n" \
          "    return parser\n"


@pytest.mark.parametrize("source", [
    # 1000 reads of one parser (review M4: 1500 took 96 s of CPU, one tree walk per read)
    HEADER + "parser = argparse.ArgumentParser()\nparser.add_argument('--d', type=int, default=8)\n"
    + "".join(f"def f{i}():\n    return vars(parser.parse_args([]))\n" for i in range(1000)),
    HEADER + BUILDER + "".join(f"def f{i}():\n    return vars(get_parser().parse_args([]))\n" for i in range(1000)),
    # 500 callers of save_hyperparameters (700 took 26 s)
    HEADER + "class HP:\n    def save_hyperparameters(self):\n        frame = inspect.currentframe().f_back\n"
    "        _, _, _, lv = inspect.getargvalues(frame)\n        for k, v in lv.items():\n            setattr(self, k, v)\n"
    + "".join(f"class M{i}(nn.Module, HP):\n    def __init__(self, a=1):\n        super().__init__()\n"
              "        self.save_hyperparameters()\n" for i in range(500)),
])
def test_the_config_readings_are_read_once_per_file_not_once_per_call(source):
    started = time.process_time()
    assert hidden_name_uses(source) == ()
    assert time.process_time() - started < 3.0
