"""Round 47 (B): the leftovers of round 46's famous-code styles. (1) a decorator factory (``@logged("info")``
returning a ``functools.wraps`` wrapper that reads ``inspect.signature(fn)``) applied only to the file's own defs
is read as round 46's plain decorator is; (2) ``vars(parser.parse_args([]))`` of an ``argparse.ArgumentParser``
whose every argument is written out is a dict of those defaults; (3) a HOLE closed: d2l's
``save_hyperparameters`` called from a method with parameters reads what its callers pass, so ``M(torch)``
anywhere in the file keeps the frame-reading finding (the honest style, which hands torch to nothing, stays
clean)."""

from __future__ import annotations

import pytest

from grader_tests.attention.static import hidden_name_uses

KERNEL = """import math
import torch
from torch import nn
import torch.nn.functional as F


class ScaledDotProductAttention(nn.Module):
    def forward(self, q, k, v, additive_mask=None, *, return_weights=False):
        w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
        return (w @ v, w) if return_weights else w @ v
"""
FACTORY = "import functools\nimport inspect\n" + KERNEL + """

def logged(level):
    def deco(fn):
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def inner(*args, **kwargs):
            sig.bind(*args, **kwargs)
            return fn(*args, **kwargs)
        return inner
    return deco


class M(nn.Module):
    @logged('info')
    def forward(self, x):
        return x

    @staticmethod
    @logged(level='debug')
    def helper(x):
        return x
"""


def test_a_decorator_factory_applied_with_at_to_the_files_own_defs_reads_their_own_signature():
    assert hidden_name_uses(FACTORY) == ()


@pytest.mark.parametrize("change", [
    ("    return deco\n", "    return F.softmax\n"),                        # the factory hands back something else
    ("    return deco\n", "    return deco if level else F.softmax\n"),
    ("    @logged('info')\n", "    @logged('info')(F.softmax)\n"),       # its decorator given torch's function
    ("class M(nn.Module):", "x = logged('info')\n\n\nclass M(nn.Module):"),  # the factory's result kept
    ("    def deco(fn):", "    def deco(fn, other=F.softmax):"),
    ("            return fn(*args, **kwargs)\n        return inner\n",
     "            return fn(*args, **kwargs)\n        return inner\n    deco = logged\n"),
])
def test_a_decorator_factory_that_may_hand_its_decorator_anything_else_keeps_the_signature_finding(change):
    found = hidden_name_uses(FACTORY.replace(*change))
    assert any("inspect.signature" in f for f in found), (change, found)


PARSER = "import argparse\n" + KERNEL + """

def get_parser():
    parser = argparse.ArgumentParser(description='attention')
    parser.add_argument('--d_model', type=int, default=8)
    parser.add_argument('--heads', type=int, default=2, choices=[1, 2, 4])
    parser.add_argument('--scale', type=float, default=-1.0)
    parser.add_argument('--causal', action=argparse.BooleanOptionalAction, default=False)
    parser.set_defaults(name='mha')
    return parser


class M(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = vars(get_parser().parse_args([]))
        self.heads = cfg['heads']
"""
MODULE_PARSER = "import argparse\n" + KERNEL + """
parser = argparse.ArgumentParser()
parser.add_argument('--d_model', type=int, default=8)
args = parser.parse_args([])
CONFIG = vars(args)
HEADS = CONFIG.get('heads', 2)
"""


@pytest.mark.parametrize("source", [PARSER, MODULE_PARSER, MODULE_PARSER.replace("parse_args([])", "parse_args()")])
def test_vars_of_parsed_written_out_argparse_defaults_is_no_finding(source):
    assert hidden_name_uses(source) == ()


@pytest.mark.parametrize("source, change", [
    (PARSER, ("default=8)", "default=torch)")),                          # torch as a default
    (PARSER, ("parser.set_defaults(name='mha')", "parser.set_defaults(t=F)")),
    (PARSER, ("type=float", "type=lambda s: torch")),                     # a converter of the file's own
    (PARSER, ("parse_args([])", "parse_args([], namespace=torch)")),
    (PARSER, ("argparse.ArgumentParser(description='attention')", "Parser()")),
    (PARSER, ("self.heads = cfg['heads']", "self.heads = cfg['heads']\n        cfg['t'] = torch")),
    (PARSER, ("parser.set_defaults(name='mha')", "parser.set_defaults(**{'t': 1})")),
    (MODULE_PARSER, ("CONFIG = vars(args)", "CONFIG = vars(args)\nCONFIG['t'] = torch")),
    (MODULE_PARSER, ("args = parser.parse_args([])", "args = parser.parse_args([])\nargs = torch")),
    (MODULE_PARSER, ("CONFIG = vars(args)", "vars(args).update(t=1)\nCONFIG = vars(args)")),
    (MODULE_PARSER, ("import argparse\n", "import argparse\nclass P:\n    def parse_args(self, a):\n        return a\n")),
])
def test_vars_of_a_parser_fed_anything_but_written_out_values_stays_a_finding(source, change):
    found = hidden_name_uses(source.replace("import argparse\n", "import argparse\nParser = object\n")
                             .replace(*change))
    assert any(f.endswith("vars") for f in found), (change, found)


D2L = """import inspect
""" + KERNEL + """

class HyperParameters:
    def save_hyperparameters(self, ignore=[]):
        frame = inspect.currentframe().f_back
        _, _, _, local_vars = inspect.getargvalues(frame)
        self.hparams = {k: v for k, v in local_vars.items() if k not in set(ignore + ['self'])}
        for k, v in self.hparams.items():
            setattr(self, k, v)


class M(nn.Module, HyperParameters):
    def __init__(self, lib=None, d_model=8, heads=2):
        super().__init__()
        self.save_hyperparameters()
"""


@pytest.mark.parametrize("tail", ["m = M(torch)\n", "m = M(lib=torch)\n", "m = M(*[F])\n", "m = M(**{'lib': nn})\n",
                                  "LIB = torch\nm = M(LIB)\n", "def make():\n    return M(torch)\n"])
def test_torch_handed_to_the_caller_of_save_hyperparameters_keeps_the_frame_finding(tail):
    found = hidden_name_uses(D2L + "\n\n" + tail)
    assert any("f_back" in f for f in found), (tail, found)


@pytest.mark.parametrize("tail", ["", "m = M(None, 16, heads=4)\n", "m = M(d_model=torch.zeros(1).numel())\n"])
def test_save_hyperparameters_given_plain_arguments_is_no_finding(tail):
    assert hidden_name_uses(D2L + "\n\n" + tail) == ()


TIMED = "import functools\nimport time\n" + KERNEL + """

class timed:
    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn

    def __get__(self, obj, objtype=None):
        return functools.partial(self.__call__, obj)

    def __call__(self, *args, **kwargs):
        start = time.perf_counter()
        out = self.fn(*args, **kwargs)
        self.elapsed = time.perf_counter() - start
        return out


class M(nn.Module):
    @timed
    def forward(self, x):
        return x
"""


def test_a_class_based_decorator_copying_its_defs_metadata_and_binding_its_own_call_is_no_finding():
    assert hidden_name_uses(TIMED) == ()


@pytest.mark.parametrize("change, finding", [
    (("update_wrapper(self, fn)", "update_wrapper(self, fn, assigned=('x',))"), "functools.update_wrapper"),
    (("update_wrapper(self, fn)", "update_wrapper(self, *[fn])"), "functools.update_wrapper"),
    (("        functools.update_wrapper(self, fn)\n", "        u = functools.update_wrapper\n        u(self, fn)\n"),
     "functools.update_wrapper"),
    (("partial(self.__call__, obj)", "partial(obj.__call__, obj)"), ".__call__"),
    (("partial(self.__call__, obj)", "partial(nn.Module.__call__, obj)"), ".__call__"),
])
def test_update_wrapper_given_names_and_a_dunder_of_another_object_stay_findings(change, finding):
    found = hidden_name_uses(TIMED.replace(*change))
    assert any(finding in f for f in found), (change, found)
