"""Static (ast) checks of the student's source, run on the trusted side: the source is parsed,
never executed."""

from __future__ import annotations

import ast
import builtins
import collections
import copy
import functools
import importlib.util
import pkgutil
import re
import sys
from collections.abc import Callable, Mapping, Sequence, Set
from typing import NamedTuple

from grading.i18n import Msg, msg
from grading.load_hints import is_main_guard
from grading.parsing import MAX_PARSE_TOKENS, TooManyTokens, parsed
from grading.review import Reason, class_and_base, reason
from grading.sandbox.pylab_names import (
    PYLAB_BUILTINS,
    PYLAB_NUMPY_MODULES,
    PYLAB_STDLIB_NAMES,
    PYPLOT_STDLIB_NAMES,
)
from grading.suite import DISPLAY_PACKAGES

# Attribute names of PyTorch's ready-made attention.
FORBIDDEN_EXACT = {"MultiheadAttention", "multi_head_attention_forward", "Transformer",
                   "TransformerEncoder", "TransformerEncoderLayer", "TransformerDecoder",
                   "TransformerDecoderLayer", "_native_multi_head_attention"}
FORBIDDEN_PARTS = ("scaled_dot_product", "scaled_dot_attention", "flash_attention", "efficient_attention",
                   "flex_attention", "varlen_attn")

# Runtime watch passed to the sandbox (names relative to the torch package / the student's module).
FORBID_RUNTIME = [
    "torch.nn.functional.scaled_dot_product_attention",
    "torch.nn.functional.multi_head_attention_forward",
    "torch.nn.MultiheadAttention.forward",
    "torch._C._nn.scaled_dot_product_attention",
    "torch._native_multi_head_attention",
    "torch._fused_sdp_choice",
    # the kernels behind it, public under torch's private names (a name missing from a build is
    # reported as missing and skipped)
    "torch._scaled_dot_product_attention_math",
    "torch._scaled_dot_product_flash_attention_for_cpu",
    "torch._scaled_dot_product_efficient_attention",
    "torch._scaled_dot_product_flash_attention",
    "torch._scaled_dot_product_cudnn_attention",
    "torch._flash_attention_forward_no_dropout_inplace",
    "torch._triton_multi_head_attention",
    "torch._triton_scaled_dot_attention",
    "torch._scaled_dot_product_attention_math_for_mps",
    # nn.TransformerEncoderLayer's fast path: a whole layer, attention included, in one kernel
    "torch._transformer_encoder_layer_fwd",
    "torch.nn.attention.flex_attention.flex_attention",
    # variable-length attention over packed sequences (torch 2.9+: flash kernels behind a public function)
    "torch.nn.attention.varlen.varlen_attn",
    "torch.nn.attention.varlen.varlen_attn_out",
    # the same kernels as dispatcher operators: ``torch.ops.aten.X`` and its overloads (``.default``) call
    # the operator, not the ``torch.X`` wrapped above
    *(f"torch.ops.aten.{op}" for op in (
        "scaled_dot_product_attention", "_scaled_dot_product_attention_math", "_fused_sdp_choice",
        "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_flash_attention", "_scaled_dot_product_cudnn_attention", "_native_multi_head_attention",
        "_triton_multi_head_attention", "_scaled_dot_product_attention_math_for_mps",
        "_scaled_dot_product_fused_attention_overrideable", "_transformer_encoder_layer_fwd",
        "_flash_attention_forward", "_efficient_attention_forward", "_triton_scaled_dot_attention")),
]
COUNT_RUNTIME = ["ScaledDotProductAttention.forward", "MultiHeadAttention.forward"]
# How test_no_fused_attention_runtime's feedback starts when the counters above saw a call (the
# outcome review below tells a counter hit from a call that failed)
RUNTIME_FUSED_EN = "at run time attention.py called "
# The names the grader builds by name inside the jail.
CONTRACT_NAMES = {"ScaledDotProductAttention", "MultiHeadAttention"}

SOFTMAX_NAMES = {"softmax", "log_softmax", "exp", "exp_", "logsumexp", "_softmax", "Softmax", "LogSoftmax",
                 "softmin", "Softmin", "exp2"}

# Ways to reach a function without writing its name, which no static check can follow. Code that
# uses them earns neither "no fused attention" point and is flagged for instructor review.
# The modules the review can follow. The standard library is full of ways to turn a string into an
# attribute or code (pydoc.locate, pkgutil.resolve_name, string.Formatter, operator.attrgetter,
# pickle, timeit, code, logging.config, os.sys.modules...), so any other import is flagged: it is
# allowed in the sandbox, but what it reaches cannot be checked (the assignment page lists these).
REVIEWABLE_MODULES = {"torch", "numpy", "einops", "math", "cmath", "typing", "dataclasses", "functools",
                      "itertools", "collections", "copy", "enum", "abc", "numbers", "warnings", "random", "time",
                      "__future__"} | set(DISPLAY_PACKAGES)   # inert stand-ins in the jail: they reach nothing
# Parts of torch with public helpers that turn a string into an object or code (fx's fetch_attr,
# torch.ao's getattr_from_fqn, torch.package, torch.overrides...): no attention code needs them.
TORCH_UNREVIEWABLE = {"ao", "fx", "package", "overrides", "utils", "distributed", "export", "onnx", "compiler",
                      "testing", "multiprocessing", "serialization", "hub", "library", "jit_internal", "quantization",
                      "_dynamo", "_inductor", "_export", "_functorch", "_higher_order_ops", "_library", "_subclasses"}
# torch.xpu is mostly ctypes' functions under its name (TORCH_DANGEROUS_REEXPORTS): flagged as a whole, as a value too
# (round 48 mend, review H3). Kept apart so that bench/torch_dangerous_reexports.py still lists what it re-exports.
TORCH_REEXPORT_HOLDERS = frozenset({"xpu"})
TORCH_UNREVIEWABLE |= TORCH_REEXPORT_HOLDERS
# Public names of torch's modules whose value is an object of a module no attention code needs, under a name of torch's
# own (``torch.xpu.cast``/``pointer``/``c_void_p`` are ctypes': raw process memory read and written, round 48 review
# H3; ``torch.cuda.amp.common.find_spec`` importlib's). Computed from the grader's torch in a fresh interpreter by
# bench/torch_dangerous_reexports.py (every public module, not only the loaded ones) and checked against it by a slow
# test; a name of a part of torch flagged as a whole (TORCH_UNREVIEWABLE) or flagged anywhere is left out. Read off
# torch (any alias of it or of its modules) or imported from a torch module, each is a finding.
TORCH_DANGEROUS_REEXPORTS: dict[str, frozenset[str]] = {
    "torch.cuda.amp.common": frozenset({"find_spec"}),
    "torch.cuda.memory": frozenset({"signature"}),
    "torch.cuda.tunable": frozenset({"shutil"}),
    "torch.numa.binding": frozenset({"shutil"}),
    "torch.profiler.profiler": frozenset({"shutil"}),
    "torch.storage": frozenset({"io"}),
    "torch.xpu": frozenset({"byref", "c_double", "c_uint32", "c_void_p", "cast", "pointer"}),
}
TORCH_REEXPORTED_NAMES = frozenset().union(*TORCH_DANGEROUS_REEXPORTS.values())
# ``__annotations__`` written by hand: dataclasses turn its keys into source code they exec with the
# module's globals (a key "d, globals().update(...)" runs that call), which no check can follow.
HIDING_BUILTINS = {"__import__", "eval", "exec", "compile", "globals", "vars", "locals", "breakpoint",
                   "__builtins__", "__loader__", "__spec__", "__annotations__"}
# Of these, the builtin functions: only reading the builtin reaches anything, so a name of the student's
# own (``compile = False``, a dataclass field ``compile: bool``, ``for vars in ...``) is no use of it,
# nor is a read of it inside the function that binds it. The dunders hide when written too.
SHADOWABLE_BUILTINS = {"eval", "exec", "compile", "globals", "vars", "locals", "breakpoint"}
# The attributes of reviewable modules that carry one of those builtins' names and are not the builtin (checked
# against the modules in tests/grading/test_fair_round31.py): ``from torch import compile`` then ``@compile`` or
# ``compile(model)`` is torch.compile (which the jail makes give back what it is given), and cost 13 points pending
# review when the name alone decided. What a name is bound to decides (_imported_over_builtins).
SHADOWING_IMPORTS: dict[str, frozenset[str]] = {"torch": frozenset({"compile"}),
                                                "torch.compiler": frozenset({"compile"}),
                                                "re": frozenset({"compile"})}
# ``x.__class__`` is not among them: it only leads to the student's own class, and every way on
# from a class to other code (``__mro__``, ``__base__``, ``__subclasses__``, ``__globals__``,
# ``__dict__``, a computed ``getattr``) is flagged itself.
HIDING_ATTRS = {"__wrapped__", "__dict__", "__getattribute__", "__getattr__", "__globals__", "__builtins__",
                "__annotations__",
                "__closure__", "__code__", "__subclasses__", "__func__", "__self__", "__base__", "__bases__",
                "__mro__", "__loader__", "__spec__", "ops", "_ops", "_C", "_c10d", "_dynamo", "_inductor",
                "_refs", "_decomp", "_prims", "library", "jit", "_jit_internal", "hub", "load"}
# ``compile`` is not among them: in the jail ``torch.compile`` and ``Module.compile`` give back what they are
# given (grading.sandbox.lazy_torch._compile_runs_eagerly), so compiled code runs as written, its calls are
# counted like any other, and the review reads it like any other. The builtin ``compile`` (source from a
# string) is a HIDING_BUILTIN.
# ``sys.modules`` hides; ``torch.nn.modules`` is only the package PyTorch's layers live in.
SYS_HIDING_ATTRS = {"modules"}
# Names that no attention code needs on any object, whatever it is called (``_T = torch;
# _T.ops...``): PyTorch's operator registries and internals, and the ways to a running frame.
ANYWHERE_HIDING_ATTRS = {"ops", "_ops", "_C", "_VF", "_VariableFunctions", "_nn", "_sources", "_c10d", "_dynamo", "_inductor", "_refs", "_decomp", "_prims",
                         "_jit_internal", "CompilationUnit", "tb_frame", "tb_next", "f_back", "f_globals",
                         "f_locals", "f_builtins", "gi_frame", "cr_frame", "ag_frame", "_getframe", "exc_info",
                         "last_traceback", "__traceback__", "_utils", "_import_dotted_name", "get_type_hints",
                         "_eval_type", "ForwardRef", "overrides", "attrgetter", "methodcaller",
                         # modules that other modules re-export under their own names (torch.sys, torch.os,
                         # torch.builtins.eval, dataclasses.builtins, enum.bltns, torch.inspect.unwrap...)
                         "sys", "os", "builtins", "bltns", "inspect", "importlib", "types", "linecache", "gc",
                         "ctypes", "weakref", "threading", "signal", "subprocess", "pickle", "marshal", "runpy",
                         "__get__",  # Cls.method.__get__(torch): a method run with torch as self
                         # the pickle protocol: F.__getstate__() is a module's namespace (every object has it
                         # since 3.11), x.abs.__reduce__()[0] is getattr itself
                         "__getstate__", "__setstate__", "__reduce__", "__reduce_ex__", "__getnewargs__",
                         "__getnewargs_ex__"}
# Functions of a module that load pickled code or native libraries (np.load(allow_pickle=True),
# np.ctypeslib), whatever the module's name in the source.
MODULE_LOADERS = {"load", "loads", "ctypeslib", "ctypes", "cpp_extension", "load_inline", "load_library",
                  "read_array", "open_memmap", "package", "PackageImporter"}
# Functions of the reviewable modules that evaluate strings as code (string annotations):
# singledispatch's register() calls typing.get_type_hints; make_dataclass execs its field names;
# update_wrapper(assigned=[...]) is a getattr/setattr with whatever names it is given.
EVALUATING_NAMES = {"singledispatch", "singledispatchmethod", "get_type_hints", "_eval_type", "ForwardRef",
                    "make_dataclass", "update_wrapper"}
# The parts of ``torch.jit`` that compile nothing from strings: fairseq-style guards and decorators.
# (``torch.jit.CompilationUnit``, ``torch.jit.load`` and the like compile or load code the source
# does not show.)
JIT_HARMLESS = {"is_scripting", "is_tracing", "unused", "ignore", "export", "Final", "annotate", "interface",
                "script", "script_if_tracing", "trace", "Attribute",
                # the pre-1.2 style: in the jail a ScriptModule subclass is a plain module and script_method
                # gives back the function (grading.sandbox.lazy_torch._scripting_runs_eagerly)
                "ScriptModule", "script_method",
                # the dynamic-parallelism tutorial's futures: in the jail fork calls the function in Python and
                # hands back a completed future (lazy_torch._scripting_runs_eagerly)
                "fork", "wait", "Future",
                # TorchScript-compatible code's container check (a type check, strings refused) and the exception
                # and warning classes (``warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)``)
                "isinstance", "Error", "TracerWarning", "ScriptWarning"}
# The same for ``torch.compiler``: guards that only answer whether the code is being compiled, and
# the decorator that keeps a function out of compilation.
# ``torch.compiler.compile`` only calls ``torch.compile``, which the jail makes return what it is given.
COMPILER_HARMLESS = {"is_compiling", "is_dynamo_compiling", "is_exporting", "disable", "compile",
                     # clears what torch.compile cached: nothing in the jail (round 33)
                     "reset"}
# The settings and step markers of compilers that never run in the jail (torch.compile gives back what it is given,
# torch.jit.script the function: lazy_torch._compile_runs_eagerly, _scripting_runs_eagerly): each takes no function to
# run (set_stance used as a decorator is a context manager that calls the function in Python, as written), evaluates
# no string and loads nothing, so none changes what runs or hides a call from the counters. gpt-fast's
# ``torch.compiler.cudagraph_mark_step_begin()`` before each decoding step and ``torch.compiler.set_stance("force_eager")``
# cost 13 points pending review (round 33 sweep, tests/grading/test_review_sweep_round33.py). The ones that load
# dynamo or inductor have a stand-in in the jail (lazy_torch._compiler_settings_without_dynamo). Kept as findings:
# what takes a function and changes how it runs (allow_in_graph, substitute_in_graph, nested_compile_region,
# assume_constant_result, wrap_numpy, torch.jit.freeze/trace_module/optimize_for_inference), what loads or saves
# compiled code (load_cache_artifacts, load_compiled_function, torch.jit.save/load), and the configs as values.
COMPILER_SETTINGS = {"compiler": frozenset({"set_stance", "cudagraph_mark_step_begin",
                                            # torch.compile's default backend and its guard collectives (round 34)
                                            "get_default_backend", "set_default_backend",
                                            "set_enable_guard_collectives"}),
                     # TorchScript's fuser switches (the C++ side's flags) and strict_fusion, an empty context manager
                     # outside a scripted function
                     "jit": frozenset({"set_fusion_strategy", "enable_onednn_fusion", "onednn_fusion_enabled",
                                       "strict_fusion"})}
# torch.compile's guard filters (``options={"guard_filter_fn": torch.compiler.skip_guard_on_globals_unsafe}``): pure
# functions from a list of guard entries to a list of bools, named ``skip_..._unsafe`` / ``keep_..._unsafe``.
GUARD_FILTER = re.compile(r"(skip|keep)_[a-z_]*_unsafe")
# The same for ``torch._dynamo``, as public code wrote it before torch.compiler existed (``@torch._dynamo.disable``,
# ``torch._dynamo.reset()``, ``torch._dynamo.mark_dynamic(x, 0)``; 13 points pending review): the decorator that keeps
# a function out of compilation, the guard, and the calls that forget or mark what a compilation traced. Nothing in
# the jail is compiled (grading.sandbox.lazy_torch), so none of them changes what runs; ``optimize``, ``export``,
# ``allow_in_graph``, the package's modules and its ``config`` as a value stay flagged (``config.load_config``
# unpickles). A constant assigned to a setting (``torch._dynamo.config.suppress_errors = True``) is
# _dynamo_setting's.
DYNAMO_HARMLESS = {"disable", "is_compiling", "reset", "mark_dynamic", "mark_static", "maybe_mark_dynamic",
                   # an empty function outside a compilation (round 33)
                   "graph_break"}
# ``import torch.compiler`` / ``import torch._dynamo`` / ``import torch.onnx`` (no ``as``) bind only ``torch``: each
# use, ``torch.compiler.X``, is judged where it stands (the harmless parts above), so the import itself is no finding.
# So does ``import torch.<package>`` of the packages a file may bind by name (BINDABLE_TORCH_PACKAGES: ``import
# torch.testing`` for a self-check under the main guard cost 17 points where ``torch.testing.assert_close`` alone cost
# none: review D round 43, MED 1): _binds_torch_only. The others (``import torch.utils.cpp_extension``) stay findings.
IMPORTS_BINDING_TORCH_ONLY = {"torch.compiler", "torch._dynamo", "torch.onnx"}


def _binds_torch_only(node: ast.Import, mod: str) -> bool:
    """Whether ``import <mod>`` in ``node`` binds only ``torch`` (no ``as``) for one of IMPORTS_BINDING_TORCH_ONLY or
    a package of BINDABLE_TORCH_PACKAGES: every read through it is ``torch.<package>.X``, judged where it stands as
    it is after a plain ``import torch``."""
    parts = mod.split(".")
    if parts[0] != "torch" or len(parts) < 2 or any(a.asname for a in node.names if a.name == mod):
        return False
    return mod in IMPORTS_BINDING_TORCH_ONLY or len(parts) == 2 and parts[1] in BINDABLE_TORCH_PACKAGES
# ``torch.onnx``'s guard (export-aware code keeps a branch for ``torch.onnx.is_in_onnx_export()``: cost 13
# points); its exporters and symbolic registries (register_custom_op_symbolic...) stay flagged.
ONNX_HARMLESS = {"is_in_onnx_export"}
# ``torch.testing`` / ``np.testing``: the assertions and the tensor maker a self-check uses; the
# packages' other contents (torch.testing._internal's operator database) stay flagged.
TESTING_HARMLESS_PREFIX = "assert_"
TESTING_HARMLESS = {"make_tensor", "assert_allclose", "assert_close"}
# Functions of torch's unreviewable packages that only run the function they are given: activation
# checkpointing (Rabe & Staats' memory-efficient attention, HF's gradient_checkpointing), written
# ``from torch.utils.checkpoint import checkpoint`` or ``import torch.utils.checkpoint`` and
# ``torch.utils.checkpoint.checkpoint(...)``. The module itself passed around (``from torch.utils import
# checkpoint``) stays flagged: it also holds torch.fx's traceback and _pytree; under a name of its own
# (``import torch.utils.checkpoint as c``) it is followed attribute by attribute (ALIASED_TORCH_MODULES).
# The same for the toy-task datasets and loaders tutorials define beside their modules (``from
# torch.utils.data import DataLoader, Dataset``: cost 13 points): classes that hold or batch tensors and
# call the functions they are given; the datapipes (``functional_datapipe`` registers names),
# DistributedSampler and the package's submodules (``dataloader.torch``, ``_utils``) stay flagged.
class NamesAndPattern(frozenset):
    """A set of names that also holds every name its pattern matches whole (a kind of name, as ``is_*``)."""

    def __new__(cls, names: Set[str], pattern: str) -> NamesAndPattern:
        made = super().__new__(cls, names)
        made.pattern = re.compile(pattern)
        return made

    def __contains__(self, name: object) -> bool:
        return super().__contains__(name) or (isinstance(name, str) and bool(self.pattern.fullmatch(name)))


TORCH_HARMLESS_FUNCTIONS = {"torch.utils.checkpoint": frozenset({"checkpoint", "checkpoint_sequential"}),
                            "torch.utils.data": frozenset({
                                "DataLoader", "Dataset", "IterableDataset", "TensorDataset", "StackDataset",
                                "ConcatDataset", "ChainDataset", "Subset", "random_split", "default_collate",
                                "default_convert", "get_worker_info", "Sampler", "BatchSampler", "RandomSampler",
                                "SequentialSampler", "SubsetRandomSampler", "WeightedRandomSampler"}),
                            # model-parallel code (fairscale, Megatron, DeepSpeed, HF) asks how many processes
                            # there are and falls back to one: ``if dist.is_available() and dist.is_initialized():
                            # world_size = dist.get_world_size()`` (cost 13 points). The questions answer a bool or
                            # an int; the collectives, process groups, rpc and the c10d internals stay flagged.
                            # Every predicate as well (``is_*``: is_nccl_available, is_torchelastic_launched,
                            # is_backend_available...): each answers a bool from a flag, the environment or a name of
                            # the form ``is_<backend>_available`` it looks up on the package itself (round 33 sweep).
                            "torch.distributed": NamesAndPattern({"get_rank", "get_world_size"}, r"is_[a-z0-9_]+")}
# Of those, the packages whose public submodules define the listed names (``torch.utils.data.sampler``'s
# SubsetRandomSampler is torch.utils.data's): imported from there they are the same objects. Not torch.distributed:
# ``torch.distributed.debug.get_rank`` is another function than ``torch.distributed.get_rank``.
DEFINED_IN_SUBMODULES = ("torch.utils.data",)
# Of those, the modules public code imports under a name of its own (Mofan's ``import torch.utils.data as
# Data``, then ``Data.TensorDataset``, ``Data.DataLoader``: cost 13 points): followed attribute by attribute as
# the standard library's are (SAFE_MODULE_ATTRS), so ``Data.dataloader``, ``Data._utils``,
# ``checkpoint.torch`` or the module passed around stay flagged.
ALIASED_TORCH_MODULES = ("torch.utils.data",
                         # Swin Transformer's ``import torch.utils.checkpoint as checkpoint`` and
                         # ``checkpoint.checkpoint(blk, x)``: cost 13 points
                         "torch.utils.checkpoint",
                         # fairscale's and Megatron's ``import torch.distributed as dist``
                         "torch.distributed")
NAME_FUNCS = {"getattr", "setattr", "hasattr", "delattr"}
# Functions that read or set attributes by the names they are given: functools.wraps(f, assigned=(n,))
# copies f.<n> onto its target, argparse's parse_args(args, namespace) sets each dest (any string) on
# the namespace. Called directly with only their ordinary arguments they name nothing; any other use
# (an alias, a starred argument, functools.partial or map over them) hands them names the source does
# not show: ``w = functools.wraps; w(F, (n,), ())(self)`` put F.scaled_dot_product_attention under the
# name of the student's own method, with no finding.
NAME_TAKING_CALLS = {"wraps": frozenset({"assigned", "updated", None}),
                     **dict.fromkeys(("parse_args", "parse_known_args", "parse_intermixed_args",
                                      "parse_known_intermixed_args"), frozenset({"namespace", None}))}
# argparse's actions set ``namespace.<dest>`` on whatever namespace they are called with: the action that
# ``parser.add_argument('--x', dest=n)`` returns, called as ``action(parser, torch, f)``, is ``setattr(torch, n, f)``
# (a computed torch.no_grad: no finding). add_argument as a statement and ``action=argparse.BooleanOptionalAction``
# stay fine; an action kept or built by hand counts.
ARGPARSE_ACTIONS = frozenset({"Action", "BooleanOptionalAction"})
# Methods that run on whatever object is passed as their self, and set attributes on it by names they
# are given: ``argparse.Namespace.__init__(torch, **{n: f})`` is ``setattr(torch, n, f)`` for every n (a
# computed ``no_grad``, then a method under @torch.no_grad() ran with F as self and read F's attention through
# its own ``self.<name>``: no finding). Taken off anything but ``super()``, they count unless called with
# ``self``/``cls`` first (``nn.Module.__init__(self)``, ``Base.__init__(self, ...)``) or on the object they
# came from with no argument that could be a self.
FOREIGN_SELF_DUNDERS = frozenset({"__init__", "__call__", "__set__", "__set_name__", "__init_subclass__"})
# Parts of torch that compile or load code, flagged on whatever object they are read from (an alias
# kept in a list, ``[torch][0].jit``, is not followed); torch.jit's guards and decorators stay fine.
ANYWHERE_TORCH_PARTS = {"jit", "hub", "library"}
# Standard-library modules students import for ordinary script chores, with the attributes the review
# lets them use (the first attribute after the module; "os.path" for the second after os.path). A
# module's other attributes are where the ways to a string's object live (os.sys.modules,
# logging.config, unittest.mock.patch("torch.softmax"), unittest.main(module=...)), so only these
# names are followed, and the module itself may not be passed around as a value. ``import os`` with
# ``os.environ["KMP_DUPLICATE_LIB_OK"] = "TRUE"`` (the usual fix for Anaconda's OpenMP error on Chinese
# Windows) cost 13 points pending review when any import outside REVIEWABLE_MODULES was flagged.
SAFE_MODULE_ATTRS: dict[str, frozenset[str]] = {name: frozenset(attrs.split()) for name, attrs in {
    "os": "environ getenv putenv getcwd chdir makedirs mkdir listdir scandir walk remove unlink rmdir rename "
          "replace stat cpu_count getpid sep linesep pathsep name devnull curdir fspath path urandom",
    "os.path": "join exists isfile isdir dirname basename abspath realpath normpath relpath splitext split "
               "expanduser expandvars getsize getmtime isabs sep",
    "sys": "argv path version version_info platform stdout stderr stdin exit maxsize float_info byteorder "
           "getrecursionlimit setrecursionlimit getsizeof executable implementation",
    "pathlib": "Path PurePath PosixPath PurePosixPath WindowsPath PureWindowsPath",
    "logging": "getLogger basicConfig debug info warning warn error critical exception log disable "
               "captureWarnings DEBUG INFO WARNING WARN ERROR CRITICAL FATAL NOTSET Logger LoggerAdapter Handler "
               "StreamHandler FileHandler NullHandler Formatter Filter LogRecord root",
    "argparse": "ArgumentParser Namespace ArgumentTypeError ArgumentError BooleanOptionalAction FileType Action "
                "HelpFormatter ArgumentDefaultsHelpFormatter RawTextHelpFormatter RawDescriptionHelpFormatter SUPPRESS",
    "datetime": "datetime date time timedelta timezone tzinfo MINYEAR MAXYEAR",
    "json": "load loads dump dumps JSONDecodeError JSONEncoder JSONDecoder",
    "re": "compile match fullmatch search sub subn split findall finditer escape purge Pattern Match error "
          "IGNORECASE I MULTILINE M DOTALL S VERBOSE X ASCII A UNICODE U",
    "unittest": "TestCase TestSuite TextTestRunner skip skipIf skipUnless expectedFailure SkipTest",
    "pprint": "pprint pformat pp PrettyPrinter",
    "textwrap": "dedent indent fill wrap shorten TextWrapper",
    "statistics": "mean median mode stdev pstdev variance pvariance fmean geometric_mean harmonic_mean quantiles",
    "platform": "system machine platform processor python_version release version node architecture",
    "glob": "glob iglob escape",
    "contextlib": "contextmanager nullcontext suppress ExitStack redirect_stdout redirect_stderr closing",
    "io": "StringIO BytesIO TextIOWrapper",
    "csv": "reader writer DictReader DictWriter excel QUOTE_MINIMAL QUOTE_ALL QUOTE_NONE QUOTE_NONNUMERIC",
    "string": "ascii_letters ascii_lowercase ascii_uppercase digits hexdigits octdigits punctuation printable "
              "whitespace capwords Template",
    # round 45 (B): everyday helpers where code runs, each answering a value of what it is given: a config's
    # fingerprint (``hashlib.sha1(json.dumps(cfg).encode()).hexdigest()``), a lock around a call counter, a weak
    # reference to a parent module (as a list holds one). Not weakref.proxy/finalize (an object under another
    # name, a call at exit), threading.Thread/local, hashlib.new (an algorithm by name)
    "hashlib": "md5 sha1 sha224 sha256 sha384 sha512 blake2b blake2s",
    "threading": "Lock RLock get_ident",
    "weakref": "ref WeakValueDictionary WeakKeyDictionary WeakSet",
    "heapq": "heappush heappop heapify heapreplace heappushpop nlargest nsmallest merge",
    "bisect": "bisect bisect_left bisect_right insort insort_left insort_right",
    "operator": "add sub mul truediv floordiv mod pow neg pos abs matmul eq ne lt le gt ge and_ or_ not_ "
                "itemgetter",
    "fractions": "Fraction",
    # ``locale.setlocale(locale.LC_ALL, "")`` at the top of a file written for a Chinese Windows console (cost 17
    # points: review RB round 44, LOW 5); the names only set and read the process's locale
    "locale": "setlocale getlocale getpreferredencoding getencoding LC_ALL LC_CTYPE LC_NUMERIC LC_TIME LC_COLLATE "
              "LC_MONETARY LC_MESSAGES",
    # ``except Exception: traceback.print_exc()`` around a debugging step where code runs (round 44, B): the printing
    # and formatting functions of a caught exception, which answer text (its __traceback__ or ``*sys.exc_info()``
    # handed straight to them: _caught_traceback_arguments). Not the stack's (print_stack, format_stack,
    # extract_stack, walk_stack): their text names the grader's frames below the file, so a file could tell it is
    # graded and hide a fault only then (review RB round 44, MED 3)
    "traceback": "print_exc format_exc print_exception format_exception format_exception_only print_tb format_tb",
    # ``gc.collect()`` before ``torch.cuda.empty_cache()`` (HF's release_memory, benchmark loops): cost 13
    # points. get_objects, get_referrers and get_referents hand out every live object (the grader's too)
    "gc": "collect",
    "decimal": "Decimal",
    # Ports of Hugging Face code that drop PretrainedConfig build the config as a SimpleNamespace of sizes
    # (``config.hidden_size``): cost 13 points. types' other names make functions, code objects, modules
    # and bound methods (FunctionType, CodeType, ModuleType, MethodType binding a function to torch).
    "types": "SimpleNamespace",
    # fairseq's FairseqIncrementalState keys each module's decoding state by ``str(uuid.uuid4())``: cost 13
    # points. uuid's module attributes (uuid.os, uuid.sys...) stay flagged.
    "uuid": "uuid4 UUID",
    # Stable Diffusion's ldm/modules/attention.py (and the lucidrains code its helpers come from) writes
    # ``default(val, d)`` with ``from inspect import isfunction``: cost 13 points. Only the predicates,
    # which answer a bool; getattr_static, getmembers, unwrap, signature (eval_str=True evaluates
    # annotations) and the modules inspect imports stay flagged.
    "inspect": "isfunction isclass ismethod ismodule isbuiltin isroutine iscoroutinefunction "
               "isgeneratorfunction isabstract",
    # installed with torch, which the jail lets a submission import (litgpt's ``from typing_extensions
    # import Self``): the typing names only. get_type_hints, get_annotations and evaluate_forward_ref
    # evaluate strings (``List["..."].__args__[0]`` is a ForwardRef).
    "typing_extensions": "Self Unpack TypedDict NotRequired Required ReadOnly Literal LiteralString Protocol "
                         "runtime_checkable Annotated TypeAlias ParamSpec Concatenate TypeVar TypeVarTuple "
                         "TypeGuard TypeIs Final final override overload deprecated Never NoReturn Any ClassVar "
                         "Optional Union Callable Generic NamedTuple NewType assert_never assert_type cast "
                         "dataclass_transform",
}.items()} | {name: TORCH_HARMLESS_FUNCTIONS[name] for name in ALIASED_TORCH_MODULES}
# PyTorch classes a submission may derive from: what attention code needs. Any other torch class
# brings methods under names the review does not see (torch.nn.attention.bias.CausalBias._dispatch
# runs the fused kernel).
TORCH_BASES = frozenset({"Module", "Linear", "LazyLinear", "Dropout", "Sequential", "ModuleList", "ModuleDict",
                         "Identity", "LayerNorm", "Softmax", "Function", "ParameterList", "ParameterDict",
                         "Parameter", "Tensor",
                         # torch.jit's, a plain module in the jail (its ``define`` compiles nothing there)
                         "ScriptModule",
                         # torch.utils.data's, whose methods are __getitem__ and __add__ (a ConcatDataset)
                         "Dataset", "IterableDataset"})
MAX_FINDINGS = 20
# The one finding of a source that does not parse: nothing can be checked (the load error says why).
UNPARSED = "the source does not parse"
# The one finding of a source past what the review reads: every check here walks the tree, some of
# them recursively, and the trusted side's time must stay bounded whatever is uploaded. Real files
# of this lab have 2,000-6,000 nodes, nested 20-30 deep; 256 KB of code can hold ~100,000 nodes.
MAX_REVIEW_NODES = 20_000
MAX_REVIEW_DEPTH = 100
UNREVIEWABLE = "the source is too large or too deeply nested to review"

# The student's file as a module (suite.py: module_name "attention"). An import of it is the file importing itself
# (``from attention import *``), which the review cannot follow as it cannot any module it does not know; round 34b:
# the student read "Remove the import" of an unknown module and was never told the module is their own file.
SELF_MODULE = "attention"
SELF_IMPORT = msg("attention.py imports attention ({}), which is attention.py itself: delete that import, since code "
                  "in attention.py uses the classes and functions defined in it directly. The check for PyTorch's "
                  "ready-made attention cannot follow a file importing itself (your instructor will review this)",
                  "attention.py 导入了 attention（{}），而 attention 就是 attention.py 本身：请删掉这个导入，"
                  "attention.py 中的代码可以直接使用文件里定义的类和函数。检查是否使用 PyTorch 现成 attention 时无法跟踪"
                  "文件对自身的导入（教师会人工复核）")


def self_imports(found: Sequence[str]) -> list[str]:
    """The places ("line 3") of review findings that import the student's own file (``import attention``)."""
    return [where for where, _, mod in (f.partition(": imports ") for f in found)
            if mod and mod.split(".")[0] == SELF_MODULE]


def self_import_text(places: Sequence[str]) -> Msg:
    """:data:`SELF_IMPORT` for the places ("line 3") where the file imports itself, in both languages."""
    return msg(SELF_IMPORT["en"].format(", ".join(places)),
               SELF_IMPORT["zh"].format("、".join(finding_zh(p + ": ").rstrip("：") for p in places)))


def _reviewed_parts(module: str) -> list[str]:
    """The parts of a module name the leading-underscore check reads: a display wheel's own top-level module
    (plotly's ``_plotly_utils``) is an inert stand-in in the jail, its name no private part (review D round 43,
    second review LOW 1)."""
    parts = module.split(".")
    return parts[1:] if parts[0] in DISPLAY_PACKAGES else parts


def _display_module_names(tree: ast.Module) -> frozenset[str]:
    """Names bound only by an import of a display package (``import _plotly_utils``, ``import plotly as py``,
    ``from _plotly_utils import utils``) and nowhere else in the file: inert stand-ins in the jail, whose
    ``.utils`` is no part of PyTorch (review D round 43, second review LOW 1)."""
    display, other = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                (display if a.name.split(".")[0] in DISPLAY_PACKAGES else other).add((a.asname or a.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                top = "" if node.level else (node.module or "").split(".")[0]
                (display if top in DISPLAY_PACKAGES else other).add(a.asname or a.name)
                if a.name == "*" and not node.level and node.module in _PYPLOT_STARS:
                    display.update(_PYPLOT_HOLDERS[node.module])    # round 46: ``plt`` after ``from pylab import *``
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            other.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            other.add(node.name)
        elif isinstance(node, ast.arg):
            other.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            other.add(node.name)
    return frozenset(display - other)


def _forbidden(name: str) -> bool:
    return name in FORBIDDEN_EXACT or any(p in name for p in FORBIDDEN_PARTS)


@functools.lru_cache(maxsize=4)
def _parsed(source: str) -> tuple[ast.Module | None, str | None]:
    """The source's tree, or why there is none to review (UNPARSED, UNREVIEWABLE); a ``getattr`` with a
    literal name in it is read as the attribute it names, a ``setattr``/``delattr`` with one as the store or
    deletion it makes (see _getattr_as_attribute)."""
    tree, failure = parsed(source)
    if tree is None:
        # nested too deeply for the parser here (the jail's compile may or may not manage it)
        return None, UNPARSED if isinstance(failure, SyntaxError) else UNREVIEWABLE
    count, todo, literal, computed = 0, [(tree, 0)], False, []
    while todo:
        node, depth = todo.pop()
        count += 1
        if count > MAX_REVIEW_NODES or depth > MAX_REVIEW_DEPTH:
            return None, UNREVIEWABLE
        literal = literal or _literal_name_call(node) is not None
        if _computed_name_call(node):
            computed.append(node)
        todo.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    if computed and _resolve_computed_names(tree, computed) or literal:
        tree = _getattr_as_attribute(tree)
    return _without_dead_try_code(_star_imports_expanded(_pylab_from_imports_expanded(_pyplot_from_imports_expanded(
        _pylab_stdlib_attributes_expanded(tree))))), None


# Star imports read as the names they bind (review D round 43, MED 2: ``from torch.nn import *`` then ``Module``
# and ``softmax`` cost 17 points and told the student to "write the names out" as if they hid a name). Only these
# modules, imported here in the trusted process: what ``import *`` binds from them is their ``__all__`` (torch) or
# their public names (torch.nn and torch.nn.functional have no ``__all__``), the same objects in the jail.
STAR_EXPANDED_MODULES = ("torch", "torch.nn", "torch.nn.functional", "pylab")
# ``from pylab import *`` binds numpy's star names (and numpy.fft's, numpy.random's, numpy.linalg's, later ones winning,
# as pylab.py imports them) as the real objects in the jail (grading/sandbox/runtime.py _pylab_stand_in), and ``np``;
# its matplotlib names are inert stand-ins there and bind nothing to review (review D round 43, second review MED 1).
# The standard library names pyplot passes on (PYLAB_STDLIB_NAMES: ``sys``, ``importlib``, ``cast``...) are the real
# objects there too, each read as its explicit import (round 44).
STAR_SOURCES = {"pylab": PYLAB_NUMPY_MODULES}


@functools.cache
def _star_names(module: str) -> frozenset[str] | None:
    """The names ``from <module> import *`` binds (None: the module could not be imported here)."""
    if module not in STAR_EXPANDED_MODULES:
        return None
    if module in STAR_SOURCES:
        parts = [_module_star_names(m) for m in STAR_SOURCES[module]]
        if any(p is None for p in parts):
            return None
        return frozenset().union(*parts) - set(PYLAB_BUILTINS) | {"np"} | set(PYLAB_STDLIB_NAMES)
    return _module_star_names(module)


@functools.cache
def _module_star_names(module: str) -> frozenset[str] | None:
    """The names ``from <module> import *`` binds, read off the module imported here (None: it could not be)."""
    try:
        mod = importlib.import_module(module)
    except Exception:  # noqa: BLE001 - the star import then stays as it is (a finding)
        return None
    names = getattr(mod, "__all__", None)
    if names is None:
        # its public names, and its public submodules whether or not anything imported them yet here: in the jail
        # one may be imported before the student's star import runs (review D round 43, second review LOW 3)
        names = [n for n in vars(mod) if not n.startswith("_")] + [
            m.name for m in pkgutil.iter_modules(getattr(mod, "__path__", None) or ()) if not m.name.startswith("_")]
    return frozenset(n for n in names if isinstance(n, str))


def _expanded_star(node: ast.ImportFrom) -> bool:
    """``from <one of STAR_EXPANDED_MODULES> import *``."""
    return not node.level and node.module in STAR_EXPANDED_MODULES and [a.name for a in node.names] == ["*"]


def _pylab_stdlib_import(name: str, where: ast.stmt, asname: str | None = None) -> ast.stmt:
    """The explicit import of a standard library name pylab binds (PYLAB_STDLIB_NAMES): ``import sys``,
    ``from typing import cast``, placed at ``where``; with ``asname`` (``from pylab import inspect as i``), bound
    as that name."""
    source, attr = PYLAB_STDLIB_NAMES[name]
    made = ast.ImportFrom(module=source, level=0, names=[ast.alias(name=attr, asname=asname)]) if attr \
        else ast.Import(names=[ast.alias(name=source, asname=asname)])
    return ast.copy_location(made, where)


def _pylab_numpy_sources() -> dict[str, str] | None:
    """Each numpy name ``from pylab import *`` binds, with the last of pylab's numpy modules binding it (later
    modules win, as in pylab.py), less the builtins pylab puts back; None when numpy cannot be imported here."""
    parts = [_module_star_names(m) for m in STAR_SOURCES["pylab"]]
    if any(p is None for p in parts):
        return None
    return {n: m for m, names in zip(STAR_SOURCES["pylab"], parts, strict=True) for n in names or ()
            if n not in PYLAB_BUILTINS}


def _pylab_name_import(name: str, asname: str | None, node: ast.stmt, numpy: Mapping[str, str],
                       alias_at: ast.AST | None = None) -> ast.stmt:
    """The explicit import of the object pylab's ``name`` is in the jail, bound as ``asname``, placed at ``node``
    (round 45: the one place the from-import and the star import decide it): a numpy name from the last numpy module
    binding it (``numpy``, ``_pylab_numpy_sources``; ``from numpy.linalg import norm``) before a standard library
    name of PYLAB_STDLIB_NAMES (numpy's star import comes later in pylab.py) as its own import (``import sys``),
    ``np`` as ``import numpy as np``, and pylab's own names (its display stand-ins, the builtins it puts back) from
    pylab. ``alias_at``: where the imported name's alias is placed (the star's ``*``)."""
    def alias() -> ast.alias:
        made = ast.alias(name, asname)
        return made if alias_at is None else ast.copy_location(made, alias_at)

    if name in numpy:
        made: ast.stmt = ast.ImportFrom(module=numpy[name], level=0, names=[alias()])
    elif name in PYLAB_STDLIB_NAMES:
        return _pylab_stdlib_import(name, node, asname)
    elif name == "np":
        made = ast.Import(names=[ast.alias("numpy", asname or "np")])
    else:
        made = ast.ImportFrom(module="pylab", level=0, names=[alias()])
    return ast.copy_location(made, node)


def _pylab_from_imports_expanded(tree: ast.Module) -> ast.Module:
    """The tree with each ``from pylab import NAME [as X]`` read as the explicit import of the object NAME is in the
    jail, as the star import and ``pylab.NAME`` are (mend round 44, review RD MED 2: ``from pylab import sys`` was a
    finding of its own while ``import sys`` is judged as what it is): a standard library name of PYLAB_STDLIB_NAMES as
    its own import (``import sys``), a numpy name from the last numpy module binding it (``from numpy.linalg import
    norm``), ``np`` as ``import numpy as np``; pylab's own names (its display stand-ins, the builtins it puts back)
    stay imported from pylab. Left as it is when numpy cannot be imported here. The shared tree is copied."""
    if not any(isinstance(n, ast.ImportFrom) and not n.level and n.module == "pylab"
               and any(a.name != "*" for a in n.names) for n in ast.walk(tree)):
        return tree
    numpy = _pylab_numpy_sources()
    if numpy is None:
        return tree

    class Expand(ast.NodeTransformer):
        def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | list[ast.stmt]:
            if node.level or node.module != "pylab" or any(a.name == "*" for a in node.names):
                return node
            return [_pylab_name_import(a.name, a.asname, node, numpy) for a in node.names]

    return ast.fix_missing_locations(Expand().visit(copy.deepcopy(tree)))


def _stdlib_handles(tree: ast.Module) -> tuple[dict[str, frozenset[str]], dict[int, frozenset[str]]]:
    """The names that hold the jail's pylab or matplotlib.pyplot, bound only by display imports, each with the
    standard library names read off it as the real objects (``pl`` after ``import pylab as pl``: PYLAB_STDLIB_NAMES;
    ``plt`` after ``import matplotlib.pyplot as plt`` or ``from matplotlib import pyplot as plt``, and the dotted
    ``matplotlib.pyplot`` after ``import matplotlib.pyplot``: PYPLOT_STDLIB_NAMES), and the first import statement
    binding each (by id) with the handles it binds first. A name bound as both keeps the names both read."""
    display = _display_module_names(tree)
    handles: dict[str, frozenset[str]] = {}
    binds: dict[int, frozenset[str]] = {}

    first: dict[str, ast.stmt] = {}

    def bound(node: ast.stmt, handle: str, names: frozenset[str]) -> None:
        handles[handle] = handles.get(handle, names) & names
        if handle not in first or (node.lineno, node.col_offset) < (first[handle].lineno, first[handle].col_offset):
            first[handle] = node

    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.name == "pylab" and (a.asname or a.name) in display:
                    bound(n, a.asname or a.name, frozenset(PYLAB_STDLIB_NAMES))
                    for held, what in _PYPLOT_HOLDERS["pylab"].items():    # round 46: pl.plt.sys, pl.mpl.pyplot.sys
                        bound(n, _pyplot_path(f"{a.asname or a.name}.{held}", what), PYPLOT_STDLIB_NAMES)
                elif a.name == "matplotlib.pyplot" and a.asname in display:
                    bound(n, a.asname or "", PYPLOT_STDLIB_NAMES)
                elif a.name.split(".")[0] == "matplotlib" and (a.asname or "matplotlib") in display \
                        and (a.name == "matplotlib" or not a.asname):
                    # round 45: matplotlib.pyplot.sys after ``import matplotlib.pyplot``; round 46: ``mpl.pyplot.sys``
                    # after ``import matplotlib as mpl`` (the jail's matplotlib's pyplot is pyplot)
                    bound(n, f"{a.asname or 'matplotlib'}.pyplot", PYPLOT_STDLIB_NAMES)
        elif isinstance(n, ast.ImportFrom) and not n.level and n.module in _PYPLOT_HOLDERS:
            held = _PYPLOT_HOLDERS[n.module]
            for a in n.names:
                # round 46: ``from pylab import plt``, ``from pylab import *`` (then ``plt.sys``, ``mpl.pyplot.sys``)
                for name, what in (held.items() if a.name == "*" and n.module in _PYPLOT_STARS else
                                   [(a.asname or a.name, held[a.name])] if a.name in held else []):
                    if name in display:
                        bound(n, _pyplot_path(name, what), PYPLOT_STDLIB_NAMES)
    for handle, node in first.items():      # imported once, after the first import binding the name
        binds[id(node)] = binds.get(id(node), frozenset()) | {handle}
    return handles, binds


# The modules a name reaching pyplot is imported from (round 46: every path to pyplot's names), each with those names
# and what each is: pyplot, or matplotlib (whose ``pyplot`` is pyplot in the jail). A star import of those in
# _PYPLOT_STARS binds them (matplotlib's own star binds no ``pyplot``, at home or in the jail).
_PYPLOT_HOLDERS = {"matplotlib": {"pyplot": "pyplot"},
                   "pylab": {"plt": "pyplot", "matplotlib": "matplotlib", "mpl": "matplotlib"},
                   "matplotlib.pyplot": {"matplotlib": "matplotlib"}}
_PYPLOT_STARS = ("pylab", "matplotlib.pyplot")


def _pyplot_path(name: str, what: str) -> str:
    """How pyplot is read off ``name``, which holds ``what`` (pyplot itself, or matplotlib: ``name.pyplot``)."""
    return name if what == "pyplot" else f"{name}.pyplot"


def _handle_of(node: ast.expr) -> str | None:
    """What a stdlib name is read off in ``node.NAME``: a bare name, or a dotted one (``matplotlib.pyplot``, round 46:
    ``mpl.pyplot``, ``pl.plt``, ``pl.mpl.pyplot``; the handles are at most three names long)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute) and len(parts) < 3:
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _pyplot_from_imports_expanded(tree: ast.Module) -> ast.Module:
    """The tree with each standard library name of ``from matplotlib.pyplot import NAME [as X]`` read as its explicit
    import (``import sys``, round 45: the jail's pyplot binds the real object, as pylab's does); pyplot's own names
    stay imported from it. ``from matplotlib.pyplot import *`` is followed by the explicit import of each of those
    names the file uses (mend round 45, review RD MED 3: pyplot has no ``__all__``, so at home and now in the jail the
    star binds ``sys``). The shared tree is copied."""
    def pyplot(n: ast.AST, star: bool) -> bool:
        return isinstance(n, ast.ImportFrom) and not n.level and n.module == "matplotlib.pyplot" \
            and any(a.name == "*" if star else a.name in PYPLOT_STDLIB_NAMES for a in n.names)

    if not any(pyplot(n, False) or pyplot(n, True) for n in ast.walk(tree)):
        return tree
    parents = _parents(tree)
    used = sorted(PYPLOT_STDLIB_NAMES & {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                                         and not _bound_in_function(n, parents)})

    class Expand(ast.NodeTransformer):
        def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | list[ast.stmt]:
            if node.level or node.module != "matplotlib.pyplot":
                return node
            if [a.name for a in node.names] == ["*"]:
                return [node, *(_pylab_stdlib_import(n, node) for n in used)]
            own = [a for a in node.names if a.name not in PYPLOT_STDLIB_NAMES]
            return [*([ast.copy_location(ast.ImportFrom(module=node.module, level=0, names=own), node)] if own else []),
                    *(_pylab_stdlib_import(a.name, node, a.asname) for a in node.names if a.name in PYPLOT_STDLIB_NAMES)]

    return ast.fix_missing_locations(Expand().visit(copy.deepcopy(tree)))


def _pylab_stdlib_attributes_expanded(tree: ast.Module) -> ast.Module:
    """The tree with each ``pylab.sys`` (``pl.importlib`` after ``import pylab as pl``, any name of
    PYLAB_STDLIB_NAMES read off a name only ``import pylab`` binds) read as the bare name, imported explicitly
    right after the ``import pylab``: the jail's pylab binds the real module (round 44), so ``pl.logging.config``
    is judged as ``logging.config`` after ``import logging``. Round 45: the same for pyplot's (``plt.sys``,
    ``pyplot.sys``, ``matplotlib.pyplot.sys``, PYPLOT_STDLIB_NAMES; ``getattr(plt, "sys")`` is ``plt.sys`` by
    then), imported right after the import binding pyplot. The shared tree is copied, never changed."""
    handles, binds = _stdlib_handles(tree)

    def read(node: ast.AST) -> str | None:
        if not isinstance(node, ast.Attribute):
            return None
        handle = _handle_of(node.value)
        return handle if handle is not None and node.attr in handles.get(handle, ()) else None

    if not handles or not any(read(n) for n in ast.walk(tree)):
        return tree
    tree = copy.deepcopy(tree)
    handles, binds = _stdlib_handles(tree)     # the copy's import statements, by id
    used: dict[str, set[str]] = {}

    class Expand(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if (handle := read(node)) is not None:
                used.setdefault(handle, set()).add(node.attr)
                return ast.copy_location(ast.Name(id=node.attr, ctx=node.ctx), node)
            return self.generic_visit(node)

    class Imports(ast.NodeTransformer):
        def visit_Import(self, node: ast.Import | ast.ImportFrom) -> ast.AST | list[ast.stmt]:
            names = set().union(*(used.get(h, ()) for h in binds.get(id(node), ())))
            return [node, *(_pylab_stdlib_import(n, node) for n in sorted(names))] if names else node

        visit_ImportFrom = visit_Import

    return ast.fix_missing_locations(Imports().visit(Expand().visit(tree)))


def _star_imports_expanded(tree: ast.Module) -> ast.Module:
    """The tree with each ``from <STAR_EXPANDED_MODULES> import *`` written out as the import of the names it binds
    that the file uses (a name read or bound anywhere in it: ``from torch.nn.functional import softmax, dropout``),
    or as ``pass`` when it uses none, so every check judges them as it judges the explicit import (a bare
    ``scaled_dot_product_attention(...)`` after ``from torch.nn.functional import *`` is PyTorch's fused attention).
    A star import of any other module is left as it is. The shared tree is copied, never changed."""
    stars = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and _expanded_star(n)]
    if not stars or any(_star_names(n.module or "") is None for n in stars):
        return tree
    # a name a function binds itself (a parameter ``export=False``, a local) is never the star import's there
    # (review D round 43, second review LOW 2)
    parents = _parents(tree)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not _bound_in_function(n, parents)} \
        | {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}

    class Expand(ast.NodeTransformer):
        def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
            if not _expanded_star(node):
                return node
            names = sorted(used & (_star_names(node.module) or frozenset()))
            if not names:
                return ast.copy_location(ast.Pass(), node)
            if node.module not in STAR_SOURCES:
                return ast.copy_location(ast.ImportFrom(module=node.module, level=0, names=[
                    ast.copy_location(ast.alias(name=n), node.names[0]) for n in names]), node)
            # each name as ``from pylab import NAME`` is read (_pylab_name_import), the numpy names then gathered
            # into one import per numpy module, in pylab.py's order, after the others and ``np``
            made = [_pylab_name_import(n, None, node, _pylab_numpy_sources() or {}, node.names[0]) for n in names]
            numpy = [s for s in made if isinstance(s, ast.ImportFrom) and s.module in STAR_SOURCES[node.module]]
            out = sorted((s for s in made if s not in numpy), key=lambda s: isinstance(s, ast.Import)
                         and s.names[0].name == "numpy")
            for m in STAR_SOURCES[node.module]:
                mine = [a for s in numpy if s.module == m for a in s.names]
                if mine:
                    out.append(ast.copy_location(ast.ImportFrom(module=m, level=0, names=mine), node))
            return out or ast.copy_location(ast.Pass(), node)

    return ast.fix_missing_locations(Expand().visit(copy.deepcopy(tree)))


def _failing_import_index(body: list[ast.stmt], parents: Mapping[int, ast.AST]) -> int | None:
    """The index in a try's body of the first import that fails where the file is graded (an absent
    optional package, see _absent_optional_import), or None."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Import) and any(_absent_optional_import(stmt, a.name, parents) for a in stmt.names) \
                or isinstance(stmt, ast.ImportFrom) and _absent_optional_import(stmt, stmt.module or "", parents):
            return i
    return None


def _without_dead_try_code(tree: ast.Module) -> ast.Module:
    """The tree without the code that follows a failing optional import in its try (and the try's
    ``else``): the import raises, the handler runs, and none of it ever runs where the file is graded.
    ``try: import lightning.pytorch as pl; Base = pl.LightningModule`` / ``except ImportError: Base =
    nn.Module`` then ``class Model(Base)`` cost 13 points: the review took ``Base`` for a class it cannot
    follow. The handler stays and is reviewed as any code; a copy is cut, never the parser's cached tree."""
    tries = [n for n in ast.walk(tree) if isinstance(n, ast.Try | ast.TryStar)
             and (len(n.body) > 1 or n.orelse) and any(isinstance(s, ast.Import | ast.ImportFrom) for s in n.body)]
    if not tries:
        return tree
    parents = {id(child): t for t in tries for child in t.body}
    cuts = {id(t): i for t in tries if (i := _failing_import_index(t.body, parents)) is not None
            and (i + 1 < len(t.body) or t.orelse)}
    if not cuts:
        return tree
    copied = copy.deepcopy(tree)
    for original, twin in zip(ast.walk(tree), ast.walk(copied), strict=True):
        if id(original) in cuts:
            twin.body, twin.orelse = twin.body[:cuts[id(original)] + 1], []
    return copied


# The arities of the name functions whose literal-name calls the review reads as attribute accesses.
LITERAL_ARITIES = {"getattr": (2, 3), "setattr": (3,), "delattr": (2,)}


def _super_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _literal_name_call(node: ast.AST) -> tuple[str, str, list[ast.expr], str] | None:
    """(function, how the source names it, arguments, name) of a getattr/setattr/delattr call -- or of
    ``object.__setattr__``/``__delattr__``, setattr under another name (not super()'s, which binds self) --
    with a plain string naming an attribute, or None. PyTorch's attention names keep the handling they have
    as strings (a getattr of one is a fused use; each is a string naming it)."""
    if not isinstance(node, ast.Call) or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    if isinstance(node.func, ast.Name) and node.func.id in LITERAL_ARITIES:
        function = shown = node.func.id
    elif isinstance(node.func, ast.Attribute) and node.func.attr in ("__setattr__", "__delattr__") \
            and not _super_call(node.func.value):
        function, shown = node.func.attr.strip("_"), ".".join(_dotted(node.func) or [node.func.attr])
    else:
        return None
    if len(node.args) not in LITERAL_ARITIES[function]:
        return None
    name = node.args[1]
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier()) \
            or _forbidden(name.value):
        return None
    return function, shown, node.args, name.value


def _literal_getattr(node: ast.AST) -> tuple[ast.expr, str, ast.expr | None] | None:
    """(object, name, default) of ``getattr(obj, "name")`` / ``getattr(obj, "name", default)`` with a
    plain string naming an attribute, or None."""
    found = _literal_name_call(node)
    if found is None or found[0] != "getattr":
        return None
    _, _, args, name = found
    return args[0], name, args[2] if len(args) == 3 else None


def _literal_setattr(node: ast.AST) -> tuple[str, ast.expr, str, ast.expr | None] | None:
    """(how the source names the function, object, name, value) of ``setattr(obj, "name", value)`` /
    ``delattr(obj, "name")`` (value None) and their ``object.__setattr__`` forms with a plain string naming
    an attribute, or None."""
    found = _literal_name_call(node)
    if found is None or found[0] == "getattr":
        return None
    function, shown, args, name = found
    return shown, args[0], name, args[2] if function == "setattr" else None


# ``getattr(obj, "name")`` / ``setattr(obj, "name", v)`` / ``delattr(obj, "name")`` as read in the review: the
# attribute node each stands for is marked with the function's name
LITERAL_GETATTR = "literal_getattr"
# ``setattr(obj, "name", value)`` inside an expression (a lambda's body, ``_ = setattr(...)``), read as the
# tuple (obj.name, value) with obj.name stored to: the tuple is marked so, and judged as ``obj.name = value``
LITERAL_SETATTR = "literal_setattr"


def _only_tested(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether the value of ``node`` is only tested where it stands (a bool, as from hasattr): ``if
    getattr(torch, "compile", None) is not None:``, ``not getattr(...)``. ``==``, ``in`` and the other
    comparisons hand it to the other operand's methods (a class of the student's ``__eq__``)."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Compare) and all(isinstance(op, ast.Is | ast.IsNot) for op in parent.ops):
        return True
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        return True
    if isinstance(parent, ast.If | ast.While | ast.IfExp | ast.Assert) and parent.test is node:
        return True
    return isinstance(parent, ast.BoolOp) and _only_tested(parent, parents)


def _getattr_as_attribute(tree: ast.Module) -> ast.Module:
    """``tree`` with each ``getattr(obj, "name")`` whose value is used replaced by ``obj.name``, so that
    every check judges it as that attribute read, in chains too (``getattr(torch, "utils").fx``,
    ``getattr(getattr(torch, "utils"), "checkpoint")``); a default is kept beside it as ``obj.name or
    default`` (None, a number or a bool is dropped). A getattr only tested is left as it is, as hasattr is.
    A statement ``setattr(obj, "name", value)`` becomes ``obj.name = value`` and ``delattr(obj, "name")``
    ``del obj.name``; inside an expression, each is the tuple ``(obj.name, value)`` / ``(obj.name,)`` with
    the attribute stored to or deleted (marked LITERAL_SETATTR, judged as the assignment).
    The shared tree is not changed: the nodes above a replaced call are copies, the rest is shared."""
    parents = {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}

    def rewrite(node: ast.AST) -> ast.AST:
        changed: dict[str, object] = {}
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                new = rewrite(value)
                if new is not value:
                    changed[field] = new
            elif isinstance(value, list):
                items = [rewrite(v) if isinstance(v, ast.AST) else v for v in value]
                if any(a is not b for a, b in zip(items, value, strict=True)):
                    changed[field] = items
        original = node
        if changed:
            node = copy.copy(node)
            for field, value in changed.items():
                setattr(node, field, value)
        if isinstance(node, ast.Expr) and (stored := _literal_setattr(node.value)) is not None:
            function, obj, name, value = stored
            target = _attribute(obj, name, ast.Store() if value is not None else ast.Del(), function, node)
            statement = ast.Assign(targets=[target], value=value) if value is not None else \
                ast.Delete(targets=[target])
            return ast.copy_location(statement, node)
        if (stored := _literal_setattr(node)) is not None and not isinstance(parents.get(id(original)), ast.Expr):
            function, obj, name, value = stored
            target = _attribute(obj, name, ast.Store() if value is not None else ast.Del(), function, node)
            pair = ast.copy_location(ast.Tuple(elts=[target] if value is None else [target, value],
                                               ctx=ast.Load()), node)
            setattr(pair, LITERAL_SETATTR, True)
            return pair
        found = _literal_getattr(node)
        resolved = getattr(node, RESOLVED_NAMES, None) if isinstance(node, ast.Call) and isinstance(
            node.func, ast.Name) and node.func.id == "getattr" else None
        if found is None and resolved is None or _only_tested(original, parents):
            return node
        if found is not None:
            obj, name, default = found
            attributes = [_attribute(obj, name, ast.Load(), "getattr", node)]
        else:
            # a name spelled by loops over literals: each attribute it may read (of a copy of the object
            # past the first, so that every node keeps one parent)
            obj, default = node.args[0], node.args[2] if len(node.args) == 3 else None
            attributes = [_attribute(obj if i == 0 else copy.deepcopy(obj), name, ast.Load(), "getattr", node)
                          for i, name in enumerate(sorted(resolved))]
        if default is None or isinstance(default, ast.Constant) and not isinstance(default.value, str | bytes):
            if len(attributes) == 1:
                return attributes[0]
        else:                     # (a string default is kept: the strings a lookup may use are read)
            attributes.append(default)
        return ast.copy_location(ast.BoolOp(op=ast.Or(), values=attributes), node)

    return rewrite(tree)  # type: ignore[return-value]


def _attribute(obj: ast.expr, name: str, ctx: ast.expr_context, function: str, call: ast.AST) -> ast.Attribute:
    """``obj.name`` standing for ``call``, a getattr/setattr/delattr with that literal name."""
    attribute = ast.copy_location(ast.Attribute(value=obj, attr=name, ctx=ctx), call)
    setattr(attribute, LITERAL_GETATTR, function)
    return attribute


# ---------------------------------------------------------------- names the source spells out in a loop
# ``for name in ("q", "k", "v"): getattr(self, f"{name}_proj")`` (Hugging Face, T5 and BART ports) and
# ``getattr(self, f"head_{i}")`` over ``range(n)`` (per-head modules registered with add_module) cost 13
# points as "a computed name". A name bound only by loops over literals takes only the values the source
# shows: such a getattr is read as the attributes it may read (``self.q_proj or self.k_proj or ...``), each
# judged as if written out, so ``for n in ("scaled_dot_product_attention",): getattr(F, n)`` is a fused use.
MAX_NAME_CHOICES = 32
# A part of a name that is a loop counter: some decimal integer (``range``, ``enumerate``'s index).
INT_PART = "\x00"
STR_REBOUND = "\x00str"      # (a key of _loop_values's answer: the file binds ``str`` itself)
# Marks a getattr/hasattr call whose name's every value is known (RESOLVED_NAMES: the set of them), or
# whose name holds a loop counter beside known text (NUMBERED_NAME: read on ``self``, see _numbered_self_reads).
RESOLVED_NAMES = "resolved_names"
FIELD_PART = "\x01field"     # (a loop name's value: a dataclass Field of the file's own, see _own_dataclass_fields_calls)
NUMBERED_NAME = "numbered_name"
_LOOP_BUILTINS = ("range", "enumerate", "zip")


def _loop_values(tree: ast.Module) -> dict[str, frozenset[str]]:
    """Name -> every value it can hold (strings, or INT_PART for a loop counter), for the names the
    source binds only as targets of ``for`` loops and comprehensions over literals: a tuple, list or set
    of strings (or of tuples of them), ``range(...)``, ``enumerate``/``zip`` of those, a literal dict's
    ``keys()``/``items()``. A name bound any other way anywhere in the file (a parameter, an assignment,
    a walrus, an import, ``global``...) is left out, and so is every name when the file binds
    ``range``, ``enumerate`` or ``zip`` itself."""
    values: dict[str, set[str]] = {}
    other: set[str] = set()
    loop_targets: set[int] = set()
    field_calls = _own_dataclass_fields_calls(tree)

    def elements(node: ast.AST, width: int | None) -> list[list[frozenset[str] | None]] | None:
        """Per element of a literal iterable: the values of each position (width None: the element
        itself is the value)."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and all(
                k.arg == "strict" and node.func.id == "zip" for k in node.keywords):   # zip(..., strict=True)
            if node.func.id == "range":
                return [[frozenset({INT_PART})]] if width is None else None
            if node.func.id == "enumerate" and width == 2 and len(node.args) == 1:
                # the index is a counter whatever is enumerated
                inner = elements(node.args[0], None)
                return [[frozenset({INT_PART}), None]] if inner is None else \
                    [[frozenset({INT_PART}), *e] for e in inner]
            if node.func.id == "zip" and width == len(node.args) and width:
                # zip(("q", "k"), (x, ctx)): an unknown column only leaves its own name unknown
                row: list[frozenset[str] | None] = []
                for arg in node.args:
                    column = elements(arg, None)
                    row.append(None if column is None or any(e[0] is None for e in column)
                               else frozenset().union(*(e[0] for e in column)))   # type: ignore[misc]
                return [row]
            if node.func.id in _LOOP_BUILTINS:
                return None
        if id(node) in field_calls:
            # ``for f in dataclasses.fields(self)``: Field objects, whose ``f.name`` is a field the file declares
            return [[frozenset({FIELD_PART, *field_calls[id(node)]})]] if width is None else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args \
                and isinstance(node.func.value, ast.Dict) and node.func.attr in ("keys", "items") \
                and None not in node.func.value.keys:
            keys = [_folded(k) for k in node.func.value.keys]   # type: ignore[arg-type]
            if any(k is None or INT_PART in k for k in keys):
                return None
            return [[frozenset(keys), None]] if node.func.attr == "items" and width == 2 else \
                [[frozenset(keys)]] if node.func.attr == "keys" and width is None else None  # type: ignore[arg-type]
        if not isinstance(node, ast.Tuple | ast.List | ast.Set):
            return None
        out: list[list[frozenset[str] | None]] = []
        for elt in node.elts:
            if width is None:
                text = _folded(elt)
                out.append([frozenset({text}) if text is not None and INT_PART not in text else None])
            elif isinstance(elt, ast.Tuple | ast.List) and len(elt.elts) == width:
                out.append([frozenset({t}) if (t := _folded(e)) is not None and INT_PART not in t else None
                            for e in elt.elts])
            else:
                return None
        return out

    for node in _nodes(tree):
        if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            target = node.target
            names = [target] if isinstance(target, ast.Name) else list(target.elts) \
                if isinstance(target, ast.Tuple) else []
            width = None if isinstance(target, ast.Name) else len(names)
            if not names or not all(isinstance(n, ast.Name) for n in names):
                continue                     # (its names count as bound otherwise, below)
            rows = elements(node.iter, width)
            for position, name in enumerate(names):
                loop_targets.add(id(name))
                column = None if rows is None else [r[position] for r in rows]
                if column is None or any(c is None for c in column):
                    other.add(name.id)       # type: ignore[attr-defined]
                else:
                    values.setdefault(name.id, set()).update(*column)   # type: ignore[attr-defined,arg-type]
    for node in _nodes(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in loop_targets:
            other.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            other.add(node.name)
        elif isinstance(node, ast.arg):
            other.add(node.arg)
        elif isinstance(node, ast.alias):
            other.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Global | ast.Nonlocal):
            other.update(node.names)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            other.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            other.add(node.rest)
    if other.intersection(_LOOP_BUILTINS):
        return {}
    loops = {name: frozenset(v) for name, v in values.items() if name not in other}
    if "str" in other:
        loops[STR_REBOUND] = frozenset()
    return loops


def _own_dataclass_fields_calls(tree: ast.Module) -> dict[int, frozenset[str]]:
    """``dataclasses.fields(X)`` calls (id -> the field names X can have) where X is the file's own dataclass: its
    name, ``self``/``cls`` in one of its methods, or a name bound once in the file to a new object of it, with
    every dataclass of the file deriving only from the file's dataclasses, the field names being every
    annotated name their bodies declare (round 46: ``{f.name: getattr(self, f.name) for f in fields(self)}``
    cost 17 points as a computed name). The names are those the source writes, judged as if spelled."""
    parents = _parents(tree)

    def stdlib(chain: list[str] | None, name: str) -> bool:
        # ``dataclasses.<name>`` or ``<name>``, bound by ``import dataclasses`` / ``from dataclasses import <name>``
        return chain == ["dataclasses", name] and _bound_only_by_import(tree, parents, "dataclasses", ("dataclasses",)) \
            or chain == [name] and _bound_only_by_import(tree, parents, name, ("dataclasses",))

    classes = [c for c in _nodes(tree) if isinstance(c, ast.ClassDef) and any(
        (_dotted(d.func if isinstance(d, ast.Call) else d) or [""])[-1] == "dataclass" for d in c.decorator_list)]
    if not all(stdlib(_dotted(d.func if isinstance(d, ast.Call) else d), "dataclass")
               for c in classes for d in c.decorator_list):
        return {}                   # a decorator of the file's or another library's: what the class is is unknown
    names = {c.name for c in classes}
    counts = _binding_counts(tree)
    if not classes or any(counts.get(n, 0) != 1 for n in names) or any(
            not (isinstance(b, ast.Name) and b.id in names) for c in classes for b in c.bases) \
            or any(c.keywords for c in classes):
        return {}
    fields = frozenset(t.id for c in classes for stmt in c.body if isinstance(stmt, ast.AnnAssign)
                       for t in [stmt.target] if isinstance(t, ast.Name))
    made = {t.id for n in _nodes(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
            for t in n.targets if isinstance(t, ast.Name) and counts.get(t.id) == 1 and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Name) and n.value.func.id in names}
    inside = {id(n) for c in classes for n in ast.walk(c)}
    found: dict[int, frozenset[str]] = {}
    for node in _nodes(tree):
        chain = _dotted(node.func) if isinstance(node, ast.Call) else None
        if not (stdlib(chain, "fields") and len(node.args) == 1 and not node.keywords and isinstance(arg := node.args[0], ast.Name)):
            continue
        if arg.id in names | made or (arg.id in ("self", "cls") and id(node) in inside):
            found[id(node)] = fields
    return found


def _name_values(node: ast.AST, loops: dict[str, frozenset[str]]) -> frozenset[str] | None:
    """Every string ``node`` may spell (with INT_PART standing for a loop counter's digits): constants,
    loop names of ``loops``, ``str()`` of a counter, and their concatenations and f-strings; None when
    unknown or more than MAX_NAME_CHOICES."""
    def product(parts: list[frozenset[str] | None]) -> frozenset[str] | None:
        out = frozenset({""})
        for part in parts:
            if part is None:
                return None
            out = frozenset(a + b for a in out for b in part)
            if len(out) > MAX_NAME_CHOICES:
                return None
        return out

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return frozenset({node.value}) if INT_PART not in node.value else None
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        held = loops.get(node.id)
        return None if held is not None and FIELD_PART in held else held    # a Field object is no name
    if isinstance(node, ast.Attribute) and node.attr == "name" and isinstance(node.value, ast.Name) \
            and isinstance(node.ctx, ast.Load) and FIELD_PART in (held := loops.get(node.value.id, frozenset())):
        return held - {FIELD_PART}              # ``f.name`` of a field of the file's own dataclass
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return product([_name_values(node.left, loops), _name_values(node.right, loops)])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" \
            and STR_REBOUND not in loops and len(node.args) == 1 and not node.keywords:
        # str() of a counter, or of a value known to be one of these exact strings (str() gives it back)
        return _name_values(node.args[0], loops)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STR_CASE_METHODS \
            and not node.args and not node.keywords:
        # ``level.upper()`` (getattr(logging, level.upper()), round 48): the receiver's every value is an exact
        # str the source writes, so the method is str's own and its results are known; on anything else
        # (a class of the file's, a namedtuple, a str subclass, an environment variable) it stays unknown
        inner = _name_values(node.func.value, loops)
        if inner is None or any(INT_PART in v for v in inner):
            return None
        return frozenset(getattr(str, node.func.attr)(v) for v in inner)
    if isinstance(node, ast.JoinedStr):
        parts: list[frozenset[str] | None] = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                inner = _name_values(value.value, loops) if value.conversion in (-1, ord("s")) else None
                spec = value.format_spec
                if spec is not None:
                    # ``f"layer_{i:02d}"``: a counter's digits, padded; any other format is unknown
                    text = _folded(spec)
                    inner = inner if inner == frozenset({INT_PART}) and text is not None \
                        and re.fullmatch(r"0?[0-9]*d", text) else None
                parts.append(inner)
            else:
                parts.append(_name_values(value, loops))
        return product(parts)
    return None


# The methods of str taking no argument whose result on a known string is read as a name (``level.upper()``).
STR_CASE_METHODS = frozenset({"upper", "lower", "casefold", "strip", "lstrip", "rstrip"})


def _constant_parameters(tree: ast.Module) -> dict[int, dict[str, frozenset[str]]]:
    """id of a module-level def -> its parameters whose every value is a str constant the source writes: the
    default and the argument of every call. The function is bound once, undecorated, and named only as the callee
    of plain calls (no ``*args``/``**kw``, never handed on, no ``f.__defaults__``); the parameter is bound nowhere
    else in the def (``def setup_logging(level="info")`` called as ``setup_logging()`` / ``setup_logging("DEBUG")``:
    ``getattr(logging, level.upper())`` reads logging.INFO or logging.DEBUG, round 48 review H1)."""
    counts = _binding_counts(tree)
    parents = _parents(tree)
    defs = {stmt.name: stmt for stmt in tree.body if isinstance(stmt, ast.FunctionDef)
            and not stmt.decorator_list and counts.get(stmt.name) == 1}
    calls: dict[str, list[ast.Call]] = {name: [] for name in defs}
    for node in _nodes(tree):
        if isinstance(node, ast.Name) and node.id in calls:
            call = parents.get(id(node))
            if isinstance(node.ctx, ast.Load) and isinstance(call, ast.Call) and call.func is node \
                    and not any(isinstance(a, ast.Starred) for a in call.args) \
                    and all(k.arg is not None for k in call.keywords) and calls[node.id] is not None:
                calls[node.id].append(call)
            else:
                calls[node.id] = None   # type: ignore[assignment]
    out: dict[int, dict[str, frozenset[str]]] = {}
    for name, fn in defs.items():
        if calls[name] is None:
            continue
        args = fn.args
        positional = [*args.posonlyargs, *args.args]
        defaults = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults,
                            strict=True))
        defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None})
        bound = collections.Counter(n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                                    and not isinstance(n.ctx, ast.Load))
        bound.update(a.arg for a in ast.walk(fn) if isinstance(a, ast.arg))
        bound.update(x for n in ast.walk(fn) if isinstance(n, ast.Global | ast.Nonlocal) for x in n.names)
        bound.update(n.name for n in ast.walk(fn) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef
                                                                 | ast.ClassDef | ast.ExceptHandler | ast.MatchAs
                                                                 | ast.MatchStar) and n is not fn and n.name)
        bound.update((a.asname or a.name).split(".")[0] for a in ast.walk(fn) if isinstance(a, ast.alias))
        known: dict[str, frozenset[str]] = {}
        for index, param in enumerate(positional + args.kwonlyargs):
            default = defaults.get(param.arg)
            if bound[param.arg] != 1 or not (isinstance(default, ast.Constant) and isinstance(default.value, str)):
                continue
            values = {default.value}
            for call in calls[name]:
                given = [k.value for k in call.keywords if k.arg == param.arg]
                if index < len(positional) and index < len(call.args):
                    given.append(call.args[index])
                values.update(g.value if isinstance(g, ast.Constant) and isinstance(g.value, str) else INT_PART
                              for g in given)
            if not any(INT_PART in v for v in values) and len(values) <= MAX_NAME_CHOICES:
                known[param.arg] = frozenset(values)
        if known:
            out[id(fn)] = known
    return out


def _parameters_around(node: ast.AST, tree: ast.Module,
                       known: Mapping[int, dict[str, frozenset[str]]]) -> dict[str, frozenset[str]]:
    """The _constant_parameters of the module-level def ``node`` sits in (none outside one)."""
    parents = _parents(tree)
    while (up := parents.get(id(node))) is not None and not isinstance(up, ast.Module):
        node = up
    return known.get(id(node), {})


def _computed_name_call(n: ast.AST) -> bool:
    """Whether ``n`` is ``getattr(obj, name[, default])`` or ``hasattr(obj, name)`` with a name that is no constant."""
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr") \
        and 2 <= len(n.args) <= (3 if n.func.id == "getattr" else 2) and not n.keywords \
        and not any(isinstance(a, ast.Starred) for a in n.args) and not isinstance(n.args[1], ast.Constant)


def _resolve_computed_names(tree: ast.Module, calls: list[ast.Call]) -> bool:
    """Marks each of ``calls`` (_computed_name_call) whose name is computed from loop names of literals
    (RESOLVED_NAMES, NUMBERED_NAME); whether any was marked."""
    loops = _loop_values(tree)
    marked = False
    parameters = functools.cache(lambda: _constant_parameters(tree))
    # (_loop_values answers {} when the file binds range/enumerate/zip, without saying whether it binds str)
    rebound = {STR_REBOUND: frozenset()} if _binding_counts(tree).get("str") else {}
    for call in calls:
        spelled = _name_values(call.args[1], {**loops, **_parameters_around(call, tree, parameters()), **rebound})
        if not spelled:
            continue
        if all(INT_PART not in s and s.isidentifier() for s in spelled):
            setattr(call, RESOLVED_NAMES, frozenset(spelled))
            marked = True
        elif all(INT_PART in s and s.replace(INT_PART, "0").isidentifier() for s in spelled) and not any(
                _forbidden(s) or set(re.findall(r"[A-Za-z_]\w*", s.replace(INT_PART, " ")))
                & (HIDING_ATTRS | ANYWHERE_HIDING_ATTRS | MATCH_HOOKS)
                or any(re.fullmatch("-?[0-9]+".join(map(re.escape, s.split(INT_PART))), n) for n in BASE_DIGIT_NAMES)
                for s in spelled):
            setattr(call, NUMBERED_NAME, True)
            marked = True
    return marked


# Sources whose review the worker stopped (it ran past settings.REVIEW_CPU_S): unreviewable from then
# on, in the worker and in the test process it forks, instead of starting the same analysis again.
# In order of arrival: a set's pop() could drop the source just given up (round 45 mend).
_GAVE_UP: dict[str, None] = {}


def give_up(source: str) -> None:
    """The Suite's ``review_gave_up`` hook."""
    _GAVE_UP.pop(source, None)
    _GAVE_UP[source] = None
    while len(_GAVE_UP) > 8:           # only the gradings at hand matter: the oldest goes
        del _GAVE_UP[next(iter(_GAVE_UP))]


def past_token_gate(source: str) -> bool:
    """The source was left unparsed by the grader's token gate (grading.parsing.MAX_PARSE_TOKENS), not past the
    review's own node or depth limits: its unreadability is said with that reason."""
    return isinstance(parsed(source)[1], TooManyTokens)


def review_stopped(source: str) -> bool:
    """Whether the worker stopped this source's review for its CPU time (give_up): UNREVIEWABLE then says that
    the review ran out of time, not that the source is past the size limits."""
    return source in _GAVE_UP


def _reviewable(source: str) -> tuple[ast.Module | None, str | None]:
    return (None, UNREVIEWABLE) if source in _GAVE_UP else _parsed(source)


def parse(source: str) -> ast.Module | None:
    """The source's tree, within the review's limits (cached: several checks of one grading read
    the same, unmodified tree)."""
    return _reviewable(source)[0]


# One index per tree, of the grading at hand only: the review's checks each read every node, and a
# list plus a parent map built once spare a walk of the whole tree per check.
_INDEX: dict[int, tuple[ast.Module, list[ast.AST], dict[int, ast.AST]]] = {}


def _indexed(tree: ast.Module) -> tuple[ast.Module, list[ast.AST], dict[int, ast.AST]]:
    kept = _INDEX.get(id(tree))
    if kept is None or kept[0] is not tree:
        _INDEX.clear()
        nodes = list(ast.walk(tree))
        kept = _INDEX[id(tree)] = (tree, nodes, {id(child): parent for parent in nodes
                                                 for child in ast.iter_child_nodes(parent)})
    return kept


def _nodes(tree: ast.Module) -> list[ast.AST]:
    """Every node of the tree, in ``ast.walk``'s order."""
    return _indexed(tree)[1]


def _parents(tree: ast.Module) -> dict[int, ast.AST]:
    """Each node's parent, by id."""
    return _indexed(tree)[2]


def _root(node: ast.AST) -> str | None:
    """The name an attribute chain or subscript starts from (``torch`` in ``torch.nn.functional``)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _operands(value: ast.AST, chosen: bool) -> list[ast.AST]:
    """The values ``value`` may be: itself, or with ``chosen`` each operand of an ``or``/``and`` and each
    branch of an if-else, through walruses (``getattr(torch, "nn", torch)`` is read as ``torch.nn or torch``)."""
    if not chosen:
        return [value]
    out, todo = [], [value]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.BoolOp):             # (in source order)
            todo.extend(reversed(node.values))
        elif isinstance(node, ast.IfExp):
            todo.extend((node.orelse, node.body))
        elif isinstance(node, ast.NamedExpr):
            todo.append(node.value)
        else:
            out.append(node)
    return out


def _module_aliases(tree: ast.Module, top: str, chosen: bool = False) -> set[str]:
    """Every name that may hold module ``top`` or one of its parts: its imports (``import torch as
    T``, ``from torch import nn``), then every name assigned from such a name, transitively
    (``_T = torch``, ``_F = T.nn.functional``, ``a, b = torch, sys``, ``x := torch``) and parameters
    defaulting to one (``def f(m=torch)``). With ``chosen``, also a name assigned a value that one of
    these may be chosen by ``or`` or if-else (``T = torch or nn``): for the checks that a name of torch
    makes stricter, never for those that trust it."""
    names = {top}
    pairs: list[tuple[ast.AST, ast.AST]] = []
    for node in _nodes(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == top or a.name.startswith(top + "."):
                    names.add((a.asname or a.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == top:
            for a in node.names:
                names.add(a.asname or a.name)
        elif isinstance(node, ast.Assign):
            pairs.extend((t, node.value) for t in node.targets)
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr | ast.AugAssign) and node.value is not None:
            pairs.append((node.target, node.value))
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            pairs.extend((ast.Name(a.arg), d) for a, d in zip(positional[len(positional) - len(node.defaults):],
                                                              node.defaults, strict=True))
            pairs.extend((ast.Name(a.arg), d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True)
                         if d is not None)

    # One pass instead of a fixed point over all pairs (quadratic in a chain ``b = a; c = b; ...``
    # written in reverse): each pair becomes edges from the name its value starts from to the names
    # it binds, then everything reachable from the imports is an alias.
    edges: dict[str, list[str]] = {}
    todo_pairs = list(pairs)
    while todo_pairs:
        target, value = todo_pairs.pop()
        if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List) \
                and len(target.elts) == len(value.elts):
            todo_pairs.extend(zip(target.elts, value.elts, strict=True))
        elif isinstance(target, ast.Name):
            for operand in _operands(value, chosen):
                root = _root(operand)
                if root is not None:
                    edges.setdefault(root, []).append(target.id)
    todo = list(names)
    while todo:
        for name in edges.get(todo.pop(), ()):
            if name not in names:
                names.add(name)
                todo.append(name)
    return names


def _torch_aliases(tree: ast.Module) -> set[str]:
    return _module_aliases(tree, "torch")


def _dotted(node: ast.AST) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def _own_method_accesses(tree: ast.Module, skip: frozenset[int] = frozenset()) -> set[int]:
    """Attribute nodes ``self.X`` that can only mean the student's own X: inside a method (a def
    directly in a class body, undecorated) whose first parameter is ``self``/``cls``, where the
    class defines X (a method, or ``self.X = ...``). Anything else that reads PyTorch's names is
    PyTorch's: a function with a ``self`` parameter can be called with ``torch`` as ``self``."""
    return _method_context(tree, skip)[0]


# PyTorch classes among TORCH_BASES with many attribute names holding digits (Tensor.log2, Tensor.int8):
# on an object of a class deriving from one, ``getattr(self, f"log{i}")`` may read PyTorch's attribute.
DIGIT_NAMED_BASES = frozenset({"Tensor", "Parameter"})
# The only such name of the other bases and of ``object`` (nn.Module.bfloat16): a numbered name that may
# spell it is not read as the student's own (tests/grading/test_fair_round19.py checks the list).
BASE_DIGIT_NAMES = frozenset({"bfloat16"})


def _self_methods(tree: ast.Module, skip: frozenset[int] = frozenset()) -> dict[int, frozenset[str]]:
    """The methods in which ``self`` can only be an instance of the file's own class, by id, each with the
    names of PyTorch classes that class derives from: a def in the body of a plain class (see
    _method_context), undecorated or under torch's decorators or ``property`` (not ``classmethod``:
    there ``self`` would be the class), whose first parameter is ``self``, that the source never
    reaches other than through an object (``Cls.method(torch)``, a string of its name: _methods_taken_off)
    and that binds ``self`` nowhere else (``self = torch``, a nested ``lambda self: ...``)."""
    return _method_context(tree, skip)[1]


def _method_context(tree: ast.Module, skip: frozenset[int]) -> tuple[set[int], dict[int, frozenset[str]]]:
    """(_own_method_accesses, _self_methods)."""
    own: set[int] = set()
    trusted: dict[int, frozenset[str]] = {}
    classes = {n.name: n for n in _nodes(tree) if isinstance(n, ast.ClassDef)}
    torch_names = _torch_aliases(tree)
    replaced, rebound = _replaced_names(tree, torch_names)

    def torchs(chain: list[str]) -> bool:
        """Whether a dotted name is PyTorch's as the source shows it: it starts from a name only ever bound
        to torch, and the file replaces (stores, deletes) no attribute of that name anywhere."""
        return chain[0] in torch_names and chain[0] not in rebound and replaced is not None \
            and not replaced.intersection(chain[1:])

    memo: dict[str, frozenset[str]] = {}

    def defined(cls: ast.ClassDef, seen: set[str]) -> frozenset[str]:
        """Names a class of the module defines, with those of its bases defined in the module (once
        per class: a chain of classes each listing every earlier one as a base has 2**n paths)."""
        if cls.name in memo:
            return memo[cls.name]
        names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        names |= {t.attr for n in ast.walk(cls) if isinstance(n, ast.Assign | ast.AnnAssign)
                  for t in (n.targets if isinstance(n, ast.Assign) else [n.target])  # ``self.x: T = ...`` too
                  if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in classes and base.id not in seen:
                names |= defined(classes[base.id], seen | {base.id})
        memo[cls.name] = frozenset(names)
        return memo[cls.name]

    plain_memo: dict[str, bool] = {}

    def plain(cls: ast.ClassDef) -> bool:
        """Every base is torch's (``nn.Module``), ``object`` or a plain class of the module, and no
        metaclass: only then is ``self`` an object whose attributes the class body shows. A base
        computed at run time (``class K(type(torch._VF))``) inherits a ``__getattr__`` that hands out
        PyTorch's operators under any name."""
        if cls.name not in plain_memo:
            plain_memo[cls.name] = False          # a cycle of bases is not plain
            # abc's metaclass and base only add abstract-method bookkeeping (ABC.register, which makes
            # isinstance true for other classes, is flagged where it is called)
            ok = all(k.arg == "metaclass" and (_dotted(k.value) or [""])[-1] == "ABCMeta" for k in cls.keywords)
            for base in cls.bases:
                chain = _dotted(base.value if isinstance(base, ast.Subscript) else base)
                if chain is not None and chain[-1] in ("Generic", "Protocol"):
                    continue                      # typing's, which forward no attribute
                if chain in (["ABC"], ["abc", "ABC"]):
                    continue
                if chain is None or isinstance(base, ast.Subscript):
                    ok = False
                elif len(chain) == 1 and chain[0] in classes:
                    ok = ok and plain(classes[chain[0]])
                elif not (chain == ["object"] and "object" not in rebound or torchs(chain)):
                    ok = False
            plain_memo[cls.name] = ok
        return plain_memo[cls.name]

    def harmless(decorator: ast.expr) -> bool:
        """torch's own decorators (torch.no_grad(), torch.autocast(...), torch.jit.unused) and
        property keep self the instance; anything else might call the method with another self."""
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        chain = _dotted(target) or [""]
        # classmethod keeps cls the class (or a subclass, which the file defines where the review reads it)
        return torchs(chain) or chain in (["property"], ["classmethod"]) and chain[0] not in rebound

    def torch_bases(cls: ast.ClassDef, seen: set[str]) -> frozenset[str]:
        """The last names of the torch classes a plain class derives from, through the file's own."""
        out: set[str] = set()
        for base in cls.bases:
            chain = _dotted(base.value if isinstance(base, ast.Subscript) else base) or [""]
            if len(chain) == 1 and chain[0] in classes and chain[0] not in seen:
                out |= torch_bases(classes[chain[0]], seen | {chain[0]})
            elif chain[0] in torch_names:
                out.add(chain[-1])
        return frozenset(out)

    taken = _methods_taken_off(tree, skip)
    for cls in classes.values():
        if not plain(cls):
            continue
        for fn in cls.body:
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and fn.args.args \
                    and fn.args.args[0].arg == "self" and fn.name not in taken \
                    and all(harmless(d) and (_dotted(d) or [""]) != ["classmethod"] for d in fn.decorator_list) \
                    and not any(isinstance(n, ast.Name) and n.id == "self" and not isinstance(n.ctx, ast.Load)
                                or isinstance(n, ast.arg) and n.arg == "self" and n is not fn.args.args[0]
                                or isinstance(n, ast.Global | ast.Nonlocal) and "self" in n.names
                                for n in ast.walk(fn)):
                trusted[id(fn)] = torch_bases(cls, {cls.name})
        names = defined(cls, {cls.name})
        inherited = frozenset().union(*(defined(classes[b.id], {cls.name, b.id}) for b in cls.bases
                                        if isinstance(b, ast.Name) and b.id in classes))
        for fn in cls.body:
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or not fn.args.args \
                    or not all(harmless(d) for d in fn.decorator_list):
                continue
            first = fn.args.args[0].arg
            if first not in ("self", "cls"):
                continue
            found = [node for node in ast.walk(fn) if isinstance(node, ast.Attribute)
                     and isinstance(node.value, ast.Name) and node.value.id == first and node.attr in names]
            # ``super().X`` in an override: X as one of the file's own bases defines it
            found += [node for node in ast.walk(fn) if isinstance(node, ast.Attribute) and node.attr in inherited
                      and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                      and node.value.func.id == "super" and not node.value.args and "super" not in rebound]
            if fn.name in taken and any(_forbidden(n.attr) for n in found):
                continue    # self may be anything here: the method is also reached off its object
            own.update(id(n) for n in found)
    own |= _own_class_reads(tree, classes, plain, replaced, rebound)
    return own, trusted


def _own_class_reads(tree: ast.Module, classes: dict[str, ast.ClassDef], plain, replaced: set[str] | None,
                     rebound: set[str]) -> set[int]:
    """Attribute nodes ``Attention.X`` that can only mean the student's own function X: read off a plain,
    undecorated class of the file whose body binds X once, by a def that is plain, a staticmethod or a
    classmethod (a TF-tutorial port's ``ScaledDotProductAttention.scaled_dot_product_attention(q, k, v)``),
    where the file binds the class's name nowhere else and stores or deletes no attribute X on anything."""
    if replaced is None:
        return set()
    bound: dict[str, int] = {}
    for node in _nodes(tree):
        names = ([node.id] if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) else
                 [node.name] if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else
                 [node.arg] if isinstance(node, ast.arg) else
                 [(node.asname or node.name).split(".")[0]] if isinstance(node, ast.alias) else
                 [node.name] if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name else
                 list(node.names) if isinstance(node, ast.Global | ast.Nonlocal) else [])
        for name in names:
            bound[name] = bound.get(name, 0) + 1
    # ``setattr(Attention, "X", f)`` replaces X as ``Attention.X = f`` does (any object: an alias may reach it)
    replaced = replaced | {n.args[1].value for n in _nodes(tree) if isinstance(n, ast.Call)
                           and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr")
                           and len(n.args) >= 2 and isinstance(n.args[1], ast.Constant)
                           and isinstance(n.args[1].value, str)}
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr")
           and not (len(n.args) >= 2 and isinstance(n.args[1], ast.Constant)) for n in _nodes(tree)):
        return set()                # a computed name may be any attribute
    builtin_ok = {d for d in ("staticmethod", "classmethod") if d not in rebound}
    reads: dict[str, list[ast.Attribute]] = {}      # ``Name.attr`` reads by Name, gathered once (linear)
    for n in _nodes(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) \
                and n.value.id in classes:
            reads.setdefault(n.value.id, []).append(n)
    own: set[int] = set()
    for cls in classes.values():
        if cls.name not in reads:
            continue
        if cls.decorator_list or bound.get(cls.name) != 1 or not plain(cls):
            continue
        in_body: dict[str, int] = {}
        for stmt in cls.body:
            names = [stmt.name] if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else [
                n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)]
            for name in names:
                in_body[name] = in_body.get(name, 0) + 1
        defs = {f.name for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                and in_body[f.name] == 1 and f.name not in replaced
                and all(isinstance(d, ast.Name) and d.id in builtin_ok for d in f.decorator_list)}
        own |= {id(n) for n in reads[cls.name] if n.attr in defs}
    return own


def _replaced_names(tree: ast.Module, torch_names: set[str]) -> tuple[set[str] | None, set[str]]:
    """(the attribute names the source stores or deletes on any object, with the names of the attributes
    those are reached through -- ``[torch][0].no_grad.__call__ = f`` gives no_grad and __call__ -- or None when
    it replaces a dunder of any object, or reaches ``__setattr__``/``__delattr__`` other than through super();
    the names it binds other than to torch: ``torch = FakeTorch``, ``property = ...``, a parameter, a class).
    A name of either kind is not PyTorch's as the source shows it."""
    replaced: set[str] | None = set()
    rebound: set[str] = set()
    parents = _parents(tree)
    for node in _nodes(tree):
        if isinstance(node, ast.Attribute) and replaced is not None:
            if node.attr in ("__setattr__", "__delattr__") and not (
                    isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                    and node.value.func.id == "super"):
                replaced = None
            elif not isinstance(node.ctx, ast.Load):
                link: ast.AST = node
                while isinstance(link, ast.Attribute):
                    if link.attr.startswith("__") and link.attr not in NAMING_DUNDERS:
                        replaced = None
                        break
                    replaced.add(link.attr)
                    link = link.value
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            parent = parents.get(id(node))
            direct = isinstance(parent, ast.Assign) and node in parent.targets or (
                isinstance(parent, ast.AnnAssign | ast.NamedExpr) and parent.target is node)
            if not (direct and parent.value is not None and _root(parent.value) in torch_names):
                rebound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            rebound.add(node.name)
        elif isinstance(node, ast.arg):
            rebound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            rebound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            rebound.add(node.rest)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            rebound.update(node.names)
        elif isinstance(node, ast.Import):
            rebound.update((a.asname or a.name).split(".")[0] for a in node.names
                           if a.name.split(".")[0] != "torch")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] != "torch" or (
                isinstance(node, ast.ImportFrom) and node.level):
            rebound.update(a.asname or a.name for a in node.names)
    return replaced, rebound


def _instance_classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """Classes of the file, bound once, for which ``isinstance(x, C)`` and ``x = C(...)`` mean that x is an object
    of the file's own class: no metaclass, no ``__new__``, and no hook that answers isinstance for other objects."""
    bound = _binding_counts(tree)
    return {c.name: c for c in _nodes(tree) if isinstance(c, ast.ClassDef) and bound.get(c.name) == 1
            and not c.keywords and not any(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.Assign)
                                           and ({f.name} if not isinstance(f, ast.Assign) else
                                                {getattr(t, "id", "") for t in f.targets}) & (MATCH_HOOKS | {"__new__"})
                                           for f in c.body)}


def _known_own_instance(node: ast.AST, parents: Mapping[int, ast.AST], classes: Mapping[str, ast.ClassDef]) -> bool:
    """Whether ``node``, a read of a name, can only be an object of one of the file's own classes (_instance_classes),
    so that ``node.method(...)`` runs the file's method with it as ``self``: minGPT's ``CfgNode`` writes
    ``v._str_helper(indent + 1)`` under ``if isinstance(v, CfgNode):``, ``v.to_dict() if isinstance(v, CfgNode) else v``
    and ``config = CfgNode(...); config.merge_from_dict(d)`` (cost 13 points: "reached off its object"). Known
    (a) under an ``isinstance(name, C)`` test: the body of its ``if`` or of its conditional expression, or a later
    operand of its ``and``, where the name is not rebound; or (b) when the function binds the name once, to ``C(...)``.
    A class in a variable (``K = CfgNode; K.method(torch)``) is neither."""
    if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or not classes:
        return False
    name = node.id

    def rebinds(region: list[ast.AST]) -> bool:
        return any((isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load))
                   or (isinstance(n, ast.arg) and n.arg == name)
                   or (isinstance(n, ast.Global | ast.Nonlocal) and name in n.names)
                   for r in region for n in ast.walk(r))

    child, up = node, parents.get(id(node))
    while up is not None and not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
        if isinstance(up, ast.If) and child in up.body and _isinstance_of(up.test, name, set(classes)) \
                and not rebinds(list(up.body)):
            return True
        if isinstance(up, ast.IfExp) and child is up.body and _isinstance_of(up.test, name, set(classes)) \
                and not rebinds([up.body]):
            return True
        if isinstance(up, ast.BoolOp) and isinstance(up.op, ast.And) and child in up.values:
            index = up.values.index(child)
            if any(_isinstance_of(v, name, set(classes)) for v in up.values[:index]) \
                    and not rebinds(list(up.values[:index + 1])):
                return True
        child, up = up, parents.get(id(up))
    if not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    bindings = [n for n in ast.walk(up) if (isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load))
                or (isinstance(n, ast.arg) and n.arg == name)
                or (isinstance(n, ast.Global | ast.Nonlocal) and name in n.names)]
    if len(bindings) != 1 or not isinstance(bindings[0], ast.Name):
        return False
    assign = parents.get(id(bindings[0]))
    return isinstance(assign, ast.Assign) and assign.targets == [bindings[0]] and isinstance(assign.value, ast.Call) \
        and isinstance(assign.value.func, ast.Name) and assign.value.func.id in classes


def _module_own_instance(node: ast.Name, tree: ast.Module, parents: Mapping[int, ast.AST],
                         classes: Mapping[str, ast.ClassDef]) -> bool:
    """Whether ``node`` reads a module-level name the whole file binds once, at module level, to ``C(...)`` for C
    one of the file's own classes (``m = MultiHeadAttention(8, 2)`` then ``m.describe()``), where no function it
    is read in binds it: a read before that line finds no name at all. For the methods called on it only
    (_methods_taken_off): what is written into its private parts stays judged as anything's."""
    name, scope = node.id, parents.get(id(node))
    while scope is not None and not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                                               | ast.ClassDef):
        scope = parents.get(id(scope))
    if isinstance(scope, ast.ClassDef | ast.Lambda) or scope is not None and name in _names_stored_in(scope):
        return False
    return _module_binding_counts(tree).get(name) == 1 and any(
        isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == name and _constructed_own(stmt.value, classes) for stmt in tree.body)


@functools.lru_cache(maxsize=16)
def _names_stored_in(scope: ast.AST) -> frozenset[str]:
    """Every name stored or taken as a parameter anywhere in ``scope`` (read once per function: asked for each
    read of a module-level object in it, 300 ``m.kernel()`` reads in one function walked it 600 times)."""
    return frozenset(n.id if isinstance(n, ast.Name) else n.arg for n in ast.walk(scope)
                     if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) or isinstance(n, ast.arg))


@functools.lru_cache(maxsize=4)
def _module_binding_counts(tree: ast.Module) -> dict[str, int]:
    """_binding_counts once per tree (asked for each module-level read of a method name)."""
    return _binding_counts(tree)


def _constructed_own(value: ast.AST, classes: Mapping[str, ast.ClassDef]) -> bool:
    """Whether ``value`` is ``C(...)`` for C one of the file's own classes (_instance_classes): a new object of it."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in classes


# Hooks through which copying an object may hand back something other than a copy of it.
COPY_HOOKS = frozenset({"__deepcopy__", "__copy__", "__reduce__", "__reduce_ex__", "__new__", "__class__"})


def _copy_of_own_self(node: ast.AST, tree: ast.Module, parents: Mapping[int, ast.AST],
                      methods: Mapping[int, frozenset[str]]) -> bool:
    """Whether ``node``, a read of a name, is bound once in its method, to ``copy.deepcopy(self)`` or
    ``copy.copy(self)`` (``deepcopy``/``copy`` imported from copy), ``self`` being the file's own object
    (_self_methods): a clone of the student's own object, whose ``other._cache = None`` or ``other._scale``
    is as much the student's own as ``self._scale`` (``new = copy.deepcopy(self); new._reset()`` in fairseq,
    timm and HF's ``clone`` helpers cost 13 points as "a private name of something not your own"). The copy
    module must be the only binding of its name and no class of the file may define a hook that decides what a
    copy is (COPY_HOOKS): copy then makes an object of ``type(self)`` with ``self``'s attributes."""
    if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
        return False
    function = _enclosing_function(node, parents)
    if not (isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) and _in_self_method(node, parents, methods)):
        return False
    name = node.id
    bindings = [n for n in ast.walk(function) if (isinstance(n, ast.Name) and n.id == name
                                                  and not isinstance(n.ctx, ast.Load))
                or (isinstance(n, ast.arg) and n.arg == name)
                or (isinstance(n, ast.Global | ast.Nonlocal) and name in n.names)]
    if len(bindings) != 1 or not isinstance(bindings[0], ast.Name):
        return False
    assign = parents.get(id(bindings[0]))
    if not (isinstance(assign, ast.Assign) and assign.targets == [bindings[0]] and isinstance(assign.value, ast.Call)
            and len(assign.value.args) == 1 and not assign.value.keywords
            and isinstance(assign.value.args[0], ast.Name) and assign.value.args[0].id == "self"):
        return False
    bound = _binding_counts(tree)
    chain = _dotted(assign.value.func)
    if chain is None or bound.get(chain[0]) != 1 or chain[-1] not in ("copy", "deepcopy") or len(chain) > 2:
        return False
    imported = any(
        (isinstance(n, ast.Import) and len(chain) == 2 and any(a.name == "copy" and a.asname is None for a in n.names))
        or (isinstance(n, ast.ImportFrom) and n.module == "copy" and len(chain) == 1
            and any(a.name == chain[0] and a.asname is None for a in n.names))
        for n in _nodes(tree))
    return imported and not any(
        (isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name in COPY_HOOKS)
        or (isinstance(n, ast.Name | ast.Attribute) and not isinstance(n.ctx, ast.Load)
            and (n.id if isinstance(n, ast.Name) else n.attr) in COPY_HOOKS)
        for n in _nodes(tree))


def _methods_taken_off(tree: ast.Module, skip: frozenset[int] = frozenset()) -> dict[str, int]:
    """Method names of the file's classes that the source reaches other than through ``self``/``cls``
    or ``super()`` (with the first line where it does): ``getattr(Ops, "kernel")``, ``type(o).kernel``,
    ``Box.Ops.kernel``, ``K = Ops; K.kernel``, a string ``"kernel"``. Such a method may run with any
    object as ``self`` (``kernel(torch._VF, ...)``), so what it reads through ``self`` is not the
    student's own. An object's ``forward`` called as ``model(x)`` names no method; code that never runs
    (``skip``: a main guard's demo) is not read."""
    methods = {f.name for c in _nodes(tree) if isinstance(c, ast.ClassDef) for f in c.body
               if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and not f.name.startswith("__")}
    taken: dict[str, int] = {}
    parents: dict[int, ast.AST] | None = None
    classes: dict[str, ast.ClassDef] | None = None
    for node in _nodes(tree):
        if id(node) in skip:
            continue
        name = None
        if isinstance(node, ast.Attribute) and node.attr in methods and not (
                isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")) and not (
                isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "super"):
            name = node.attr
            if isinstance(node.value, ast.Name | ast.Call):
                if parents is None or classes is None:
                    parents, classes = _parents(tree), _instance_classes(tree)
                if _known_own_instance(node.value, parents, classes) or _constructed_own(node.value, classes) \
                        or isinstance(node.value, ast.Name) and _module_own_instance(node.value, tree, parents, classes):
                    # ``v.method()`` with v an object of the file's class, or ``C(...).method()``: self is that object
                    name = None
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in methods:
            name = node.value
        if name is not None and name not in taken:
            taken[name] = getattr(node, "lineno", 0)
    return taken


# Attributes every class has that only name it.
NAMING_DUNDERS = {"__name__", "__qualname__", "__module__", "__doc__"}


def _only_called_by_name(function: ast.AST, tree: ast.Module, parents: Mapping[int, ast.AST]) -> bool:
    """Whether ``function`` is a def (no lambda, no decorator) whose name the file binds once and only ever calls,
    ``f(...)``: never stored, passed on or set on a class or object (``torch.Tensor.numpy = f``,
    ``Cls.forward = f``), where it would run as a method with whatever object as ``self``."""
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) or function.decorator_list \
            or _binding_counts(tree).get(function.name) != 1:
        return False
    for n in _nodes(tree):
        if isinstance(n, ast.Name) and n.id == function.name:
            call = parents.get(id(n))
            if not (isinstance(n.ctx, ast.Load) and isinstance(call, ast.Call) and call.func is n):
                return False
        elif isinstance(n, ast.Constant) and n.value == function.name:
            return False                      # a string of its name, for a lookup
    return True


def _reads_self_as_any_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, names: set[str],
                                 parents: Mapping[int, ast.AST]) -> bool:
    """Whether a function outside a class uses its ``self``/``cls`` parameter only as the review judges any other
    parameter: every use reads a public attribute off it (``self.dtype``, ``self.size(-1)``), none of a name the
    review looks for or trusts on the student's own object (a private name, also further along the chain as in
    ``self.A._x``; a dunder but the naming ones; a hiding or looked-for name), and the name is bound nowhere else
    in it. HF's ``softmax_backward_data(parent, grad_output, output, dim, self)`` in pytorch_utils, called by
    DeBERTa's XSoftmax with a tensor as ``self``, reads ``self.dtype`` only (cost 13 points). ``getattr(self, ...)``,
    ``vars(self)`` or ``self`` handed on stay findings: the review reads those as the student's own object."""
    def plain(attr: str) -> bool:
        return (not attr.startswith("_") or attr in NAMING_DUNDERS) and not _forbidden(attr) and attr not in (
            HIDING_ATTRS | ANYWHERE_HIDING_ATTRS | SYS_HIDING_ATTRS | TORCH_UNREVIEWABLE | MATCH_HOOKS)

    for n in ast.walk(function):
        if isinstance(n, ast.arg) and n.arg in names and n not in (
                *function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs):
            return False                      # a nested function's or lambda's own parameter of that name
        if not (isinstance(n, ast.Name) and n.id in names):
            continue
        chain = parents.get(id(n))
        if not (isinstance(n.ctx, ast.Load) and isinstance(chain, ast.Attribute) and chain.value is n):
            return False
        while isinstance(chain, ast.Attribute):
            if not plain(chain.attr):
                return False
            up = parents.get(id(chain))
            chain = up if isinstance(up, ast.Attribute) and up.value is chain else None
    return True


def unbound_calls(tree: ast.Module, signature_only: Set[int] = frozenset(),
                  skip: Set[int] = frozenset()) -> list[str]:
    """Places where a method can run with something else as ``self``: a function outside a class
    body with a ``self``/``cls`` parameter, or ``SomeClass.method(x, ...)`` on a class of the module
    with ``x`` not ``self`` (``super()`` and ``nn.Module.__init__(self)`` are fine). ``signature_only``: the
    ``SomeClass.__init__`` nodes only handed to ``inspect.signature`` (_own_signature), which reads the
    method's parameters and never calls it, so no object becomes its ``self``. ``skip``: code that never runs
    (_never_run): ``print(inspect.signature(MultiHeadAttention.forward))`` in the demo under the main guard
    cost 17 points (round 44, B)."""
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    # a staticmethod or classmethod takes no instance: SomeClass.helper(x) is its normal call
    unbound_ok = {(c.name, f.name) for c in tree.body if isinstance(c, ast.ClassDef) for f in c.body
                  if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                  and any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in f.decorator_list)}
    # anything inside a class body (methods, property(lambda self: ...)): what it reads through self is
    # checked by fused_attention_uses, which trusts only undecorated methods of the class
    in_class = {id(n) for c in _nodes(tree) if isinstance(c, ast.ClassDef) for n in ast.walk(c)}
    methods = {(c.name, f.name) for c in tree.body if isinstance(c, ast.ClassDef) for f in c.body
               if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}
    constructs_itself = {c.name for c in tree.body if isinstance(c, ast.ClassDef) and not c.keywords
                         and all(isinstance(b, ast.Name) and b.id == "object" for b in c.bases)
                         and not any(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.Assign)
                                     and "__new__" in ast.dump(f)[:200] for f in c.body)}
    parents = _parents(tree)
    found = []
    for node in _nodes(tree):
        # a function whose body never runs (one only the main guard calls: _never_run) has no self to be handed
        if id(node) in skip or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
                and all(id(stmt) in skip for stmt in node.body):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and id(node) not in in_class:
            params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
            # what it reads through self/cls could be anyone's (self may be torch); a class decorator
            # ``def register(cls)`` that reads only cls.__name__ and returns cls reads nothing so
            if any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
                   and n.value.id in params & {"self", "cls"} and n.attr not in NAMING_DUNDERS
                   for n in ast.walk(node)) and not (_only_called_by_name(node, tree, parents)
                                                     and _reads_self_as_any_parameter(node, params & {"self", "cls"},
                                                                                      parents)):
                found.append(_finding(node.lineno, "self_outside_class", ""))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                and node.value.id in classes and (node.value.id, node.attr) in methods \
                and (node.value.id, node.attr) not in unbound_ok and id(node) not in signature_only:
            call = parents.get(id(node))
            first = call.args[0] if isinstance(call, ast.Call) and call.func is node and call.args else None
            # ``Helper.split(Helper(), x)``: a new object of that very class is its own self
            # (unless a __new__ or a metaclass decides what ``Helper()`` returns)
            on_self = isinstance(first, ast.Name) and first.id in ("self", "cls") or (
                isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == node.value.id
                and node.value.id in constructs_itself)
            if not on_self:     # called with another self, or kept as a value to be (``m = Cls.kernel``)
                called = isinstance(call, ast.Call) and call.func is node
                found.append(_finding(node.lineno, "called_with_another_self" if called else "used_without_self",
                                      f"{node.value.id}.{node.attr}"))
    return found


def binds_contract_name(source: str) -> bool:
    """Whether the source defines or binds ScaledDotProductAttention or MultiHeadAttention where the grader's
    import binds a module name (a class, an assignment, an import, a star import); True when it cannot be
    reviewed (nothing is judged then). A check that looks for fused attention in the classes passes only when
    one is there. Round 34: a class under ``if __name__ == "__main__":`` (or ``if TYPE_CHECKING:``), or inside
    a function or another class, is not there when the grader imports the file; it earned this check's 3
    points while every other test said the classes were missing, and that one pass kept the result's message
    (what the tests saw, told once) from being given. A name a function declares ``global`` may be bound
    when it is called: it counts."""
    tree = parse(source)
    if tree is None:
        return True
    never_run = _never_run(source, uncalled_functions=False)
    if any(isinstance(node, ast.Global) and set(node.names) & set(CONTRACT_NAMES) for node in _nodes(tree)):
        return True
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if id(node) in never_run:
            continue
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name in CONTRACT_NAMES:
                return True
            # its decorators, defaults and bases run at import; its body binds names of its own scope
            todo.extend([*node.decorator_list, *getattr(node, "bases", ()), *getattr(node, "keywords", ())])
            if not isinstance(node, ast.ClassDef):    # a default may bind with := too
                todo.extend(d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in CONTRACT_NAMES:
            return True
        if isinstance(node, ast.alias) and (node.name == "*" or (node.asname or node.name) in CONTRACT_NAMES):
            return True
        todo.extend(ast.iter_child_nodes(node))
    return False


def fused_attention_uses(source: str) -> list[str]:
    """Human-readable list of places where PyTorch's fused attention is used: its names read as an
    attribute of anything but the student's own object, imported, or asked of ``getattr``."""
    return list(named_uses(source, _forbidden))


def branch_conditions(source: str, lines: Sequence[int]) -> list[str]:
    """For each of ``lines`` that sits in the body or else-branch of an ``if`` (or a conditional expression), the
    innermost such branch as code (``line 27: `if self.flash```, ``line 9: `if not self.flash: ... else:```,
    ``line 12: `elif self.flash```, ``line 30: `... if self.flash else```), once each: what the fused check's
    feedback says was seen when the fused call is behind nanoGPT's flash switch. A line inside a condition is in no
    branch (round 48 mend, review L1). The source is what is checked, so a call written there counts whether or not
    its branch runs when graded."""
    tree = parse(source)
    if tree is None:
        return []
    text = source.splitlines()

    def spans(nodes: Sequence[ast.AST], line: int, fused: bool) -> bool:
        # a statement over the line; in an expression (one line holds test, body and else), the fused name there
        return any(n.lineno <= line <= (n.end_lineno or n.lineno) and (not fused or any(
            isinstance(c, ast.Attribute | ast.Name) and getattr(c, "lineno", 0) == line
            and _forbidden(c.attr if isinstance(c, ast.Attribute) else c.id) for c in ast.walk(n))) for n in nodes)

    found: dict[tuple[int, str], str] = {}
    for line in lines:
        best: tuple[ast.If | ast.IfExp, str] | None = None
        for node in _nodes(tree):
            if not isinstance(node, ast.If | ast.IfExp) or not node.lineno <= line <= (node.end_lineno or node.lineno):
                continue
            expression = isinstance(node, ast.IfExp)
            body = [node.body] if expression else node.body
            orelse = [node.orelse] if expression else node.orelse
            part = "body" if spans(body, line, expression) else "else" if spans(orelse, line, expression) else None
            if part and (best is None or (node.lineno, node.col_offset) >= (best[0].lineno, best[0].col_offset)):
                best = (node, part)
        if best is None:
            continue
        node, part = best
        condition = ast.unparse(node.test)[:80]
        if isinstance(node, ast.IfExp):
            shown = f"... if {condition}" + (" else" if part == "else" else "")
        else:
            keyword = "elif" if text[node.lineno - 1][node.col_offset:].startswith("elif") else "if"
            shown = f"{keyword} {condition}" + (": ... else:" if part == "else" else "")
        found.setdefault((node.lineno, part), f"line {node.lineno}: `{shown}`")
    return list(found.values())


@functools.lru_cache(maxsize=4)
def named_uses(source: str, forbidden: Callable[[str], bool]) -> tuple[str, ...]:
    """Where code that runs at import or in a call names a function ``forbidden`` accepts: read as an attribute
    of anything but the student's own object, imported, or asked of ``getattr`` (the fused-attention check's
    rule, for any set of names)."""
    tree = parse(source)
    if tree is None:
        return ()
    skip = _never_run(source)          # the handout's parity check under a main guard never runs here
    own = _own_method_accesses(tree, skip)
    found: list[str] = []
    for node in _nodes(tree):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", "?")
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if forbidden(a.name) or any(forbidden(p) for p in (node.module or "").split(".")):
                    found.append(f"line {line}: from {node.module} import {a.name}")
        elif isinstance(node, ast.Attribute) and forbidden(node.attr) and id(node) not in own:
            chain = _dotted(node)
            found.append(f"line {line}: {'.'.join(chain) if chain else '...' + node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and forbidden(node.args[1].value):
            found.append(f"line {line}: getattr(..., {node.args[1].value!r})")
    return tuple(sorted(set(found), key=lambda s: (len(s.split(":")[0]), s)))


# Private helpers of torch that weight-initialisation code copies from nn.Linear.reset_parameters, and
# the pure tensor helpers of torch.nn.functional that code copied from nn.MultiheadAttention /
# F.multi_head_attention_forward calls (F._canonical_mask turning a bool key_padding_mask into a float
# one cost 13 points): each computes on the tensors it is given and looks nothing up by name.
PRIVATE_OK = {"_calculate_fan_in_and_fan_out", "_calculate_correct_fan", "_no_grad_uniform_", "_no_grad_normal_",
              "_assert", "_canonical_mask", "_none_or_dtype", "_in_projection_packed", "_in_projection",
              "_mha_shape_check",
              # torch.nn.modules.utils's tuple helpers (``_pair(3) == (3, 3)``), as PyTorch's conv and pooling
              # layers and the vision code copied from them normalise a size: cost 13 points
              "_single", "_pair", "_triple", "_quadruple", "_ntuple", "_reverse_repeat_tuple",
              # softmax's backward on the tensors given (HF's pytorch_utils.softmax_backward_data, which DeBERTa's
              # XSoftmax autograd.Function calls: ``from torch import _softmax_backward_data``; cost 13 points)
              "_softmax_backward_data"}
# A named tuple's public methods and fields, underscored so as not to clash with field names: an output
# ``AttentionOutput(out, weights)._asdict()`` (HF-style ModelOutput ports) cost 13 points as "a private name
# of something not your own". No public part of PyTorch has attributes of these names.
NAMEDTUPLE_API = {"_asdict", "_replace", "_make", "_fields", "_field_defaults"}
# Builtin classes whose match patterns read no attribute (``case int(x)`` matches the value itself).
MATCH_BUILTINS = {"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple"}
# Hooks that make a class pattern match any object, or name the attributes it reads; a metaclass's
# __prepare__ chooses the mapping a class body (and its annotations) is written to.
MATCH_HOOKS = {"__match_args__", "__instancecheck__", "__subclasscheck__", "__subclasshook__", "__prepare__",
               "__dataclass_fields__"}


def _folded(node: ast.AST) -> str | None:
    """The string a constant expression spells: "scaled_dot" + "_product", f"{'__wr'}apped__"."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _folded(node.left), _folded(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        parts = [_folded(v.value if isinstance(v, ast.FormattedValue) else v) for v in node.values]
        return None if None in parts else "".join(parts)
    return None


def _hidden_names_in_strings(tree: ast.Module) -> dict[int, str]:
    """String values (not docstrings) that spell a name the review looks for: such a string can
    only be meant for a lookup by name, which no check can follow."""
    docstrings = {id(n.value) for n in _nodes(tree) if isinstance(n, ast.Expr)} | _exported_own_names(tree) \
        | _literal_type_values(tree) | _hasattr_tested_names(tree)
    inner = {id(c) for n in _nodes(tree) if isinstance(n, ast.BinOp | ast.JoinedStr) for c in ast.walk(n)
             if c is not n}
    out: dict[int, str] = {}
    for node in _nodes(tree):
        if id(node) in docstrings or id(node) in inner or not isinstance(node, ast.Constant | ast.BinOp | ast.JoinedStr):
            continue
        text = _folded(node)
        if text is None or len(text) > 200 or not re.fullmatch(r"[\w.]+", text):
            continue                   # a message ("Transformer attention: ...") is no name to look up
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
        if any(_forbidden(w) for w in words) or words & (HIDING_ATTRS | ANYWHERE_HIDING_ATTRS | MATCH_HOOKS) \
                - {"load", "jit", "library", "hub", "ops", "overrides"}:
            out[id(node)] = text
    if out:
        parents, by_id = _parents(tree), {id(n): n for n in _nodes(tree)}
        loads: dict[str, list[ast.Name]] = {}
        for n in _nodes(tree):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                loads.setdefault(n.id, []).append(n)
        # print/getLogger... the file binds itself are no longer the harmless ones
        rebound = {name for n in _nodes(tree) for name in (
            [n.name] if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else
            [n.id] if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) else
            [n.asname or n.name] if isinstance(n, ast.alias) else [])} & (INERT_CALLEES | BUILTIN_EXCEPTIONS)
        sealed = _sealed_registry_uses(tree, loads) | _own_registry_keys(tree)
        scope_loads: dict[int, dict[str, list[ast.Name]]] = {}
        attribute_reads, inert_attributes = _attribute_reads(tree), {}
        out = {k: v for k, v in out.items() if not _inert_string(by_id[k], parents, loads, rebound, sealed, scope_loads,
                                                                 attribute_reads, inert_attributes)}
    return out


def _hasattr_tested_names(tree: ast.Module) -> set[int]:
    """Ids of the string constants only tested for by the builtin ``hasattr(obj, "name")``: nanoGPT's
    ``self.flash = hasattr(torch.nn.functional, "scaled_dot_product_attention")`` (cost 17 points as a lookup by
    name). hasattr hands back a bool, never the attribute; a use of it is a name read where it is written
    (``F.scaled_dot_product_attention(...)`` counts as using it), and the calls made at run time are counted. A file
    that binds ``hasattr`` itself gets nothing here."""
    if _binding_counts(tree).get("hasattr"):
        return set()
    return {id(n.args[1]) for n in _nodes(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id == "hasattr" and len(n.args) == 2 and not n.keywords
            and not any(isinstance(a, ast.Starred) for a in n.args) and isinstance(n.args[1], ast.Constant)}


def _binding_counts(tree: ast.Module) -> dict[str, int]:
    """How many times the file binds each name, in any scope and any way (assignment, loop, definition,
    parameter, import, ``global``, ``except ... as``, a match capture)."""
    bound: dict[str, int] = {}
    for node in _nodes(tree):
        names = ([node.id] if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) else
                 [node.name] if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else
                 [node.arg] if isinstance(node, ast.arg) else
                 [(node.asname or node.name).split(".")[0]] if isinstance(node, ast.alias) else
                 list(node.names) if isinstance(node, ast.Global | ast.Nonlocal) else
                 [node.name] if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name else
                 [node.rest] if isinstance(node, ast.MatchMapping) and node.rest else [])
        for name in names:
            bound[name] = bound.get(name, 0) + 1
    return bound


# What nn.Module.__getattr__ answers ``self.X`` from when X is no attribute of the object: whatever the file puts
# in them (``self._modules["cb"] = CausalBias``, ``self._buffers.update(...)``) is ``self.cb``.
MODULE_GETATTR_STORES = ("_parameters", "_buffers", "_modules")


def _foreign_holders(tree: ast.Module, bound_once: set[str], aliases: set[str]) -> set[str] | None:
    """Attribute names ``A`` for which ``self.A`` / ``cls.A`` may be something other than an object of a
    plain class of the file; None when that is every name. A private name read off ``self.A`` is the
    student's own, as one read off ``self`` is, only when every binding of ``A`` the file shows is
    ``<anything>.A = Own(...)`` with ``Own`` a class bound once, with no decorator but dataclasses', no
    metaclass or ``__new__``, and bases that are such classes or torch's allowed ones read off a name of
    torch (``self.config = LlamaConfig(...)``, then
    ``self.config._attn_implementation``: cost 13 points), or there is none (a submodule the grader or
    add_module sets, which can only be a module or tensor). Any other binding (``[torch][0]``, a list, a
    module, a tuple or loop target, a class attribute, a method or property named ``A``) marks ``A``; a
    setattr whose name the source does not spell (``setattr(self, n, torch)``, setattr passed as a value)
    may bind any name, and a ``__getattr__``/``__getattribute__`` of the file's or nn.Module's stores read by the
    file may answer any."""
    classes = {c.name: c for c in _nodes(tree) if isinstance(c, ast.ClassDef) and c.name in bound_once}
    # ``from dataclasses import dataclass`` as the one binding of the name (no ``def dataclass`` of the file's)
    dataclass = ["dataclass"] if "dataclass" in bound_once and any(
        isinstance(n, ast.ImportFrom) and n.module == "dataclasses" and any(
            a.name == "dataclass" and a.asname is None for a in n.names) for n in _nodes(tree)) else None
    qualified = ["dataclasses", "dataclass"] if "dataclasses" in bound_once else None

    def plain(name: str, seen: frozenset[str] = frozenset()) -> bool:
        cls = classes.get(name)
        # dataclasses' decorator hands back the class itself (with generated methods); any other may not
        if cls is None or name in seen or cls.keywords or any(
                _dotted(d.func if isinstance(d, ast.Call) else d) not in (dataclass, qualified)
                for d in cls.decorator_list) or any(
                isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name == "__new__" for f in cls.body):
            return False
        for base in cls.bases:
            chain = _dotted(base)
            if chain is None or not (chain == ["object"] or (len(chain) > 1 and chain[0] in aliases
                                                             and chain[-1] in TORCH_BASES)
                                     or (len(chain) == 1 and plain(chain[0], seen | {name}))):
                return False
        return True

    foreign: set[str] = set()
    for node in _nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in ("__getattr__", "__getattribute__"):
            return None                     # ``self.anything`` may be what it returns (``return torch.nn``)
        if isinstance(node, ast.Attribute) and node.attr in MODULE_GETATTR_STORES:
            return None                     # ``self._modules["cb"] = ...``: nn.Module.__getattr__ answers from it
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del) \
                and isinstance(node.value, ast.Attribute) and node.value.attr == "__dict__":
            return None                     # ``obj.__dict__[key] = value``: a setattr by a name the source does not spell
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "__dict__" and node.attr not in DICT_READING_METHODS:
            return None                     # ``self.__dict__.update(kwargs)``: the same, by the names kwargs holds
        if isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Name) and node.func.id == "setattr")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "__setattr__")):
            return None                     # a name the source does not spell (literal ones are rewritten)
        if isinstance(node, ast.Name) and node.id == "setattr":
            return None                     # setattr handed on (``partial(setattr, self)``)
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if not any(isinstance(parent, ast.Assign | ast.AnnAssign) and node in (
                    parent.targets if isinstance(parent, ast.Assign) else [parent.target])
                    and isinstance(parent.value, ast.Call) and isinstance(parent.value.func, ast.Name)
                    and plain(parent.value.func.id) for parent in [_parents(tree).get(id(node))]):
                foreign.add(node.attr)
    for cls in _nodes(tree):
        if isinstance(cls, ast.ClassDef):
            for stmt in ast.walk(cls):
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    foreign.add(stmt.name)
            for stmt in cls.body:
                for t in (stmt.targets if isinstance(stmt, ast.Assign) else
                          [stmt.target] if isinstance(stmt, ast.AnnAssign | ast.AugAssign) else []):
                    for name in ast.walk(t):
                        if isinstance(name, ast.Name):
                            foreign.add(name.id)
    return foreign


def _own_registers(tree: ast.Module) -> set[str]:
    """Names of the file's classes whose ``register`` is the student's own: the class, bound once, or one of
    its own bases (followed by name) defines ``register`` in its body, as AllenNLP's ``Registrable`` does for
    ``@Attention.register("dot_product")`` (cost 13 points as an ABC's register). A class attribute comes
    before its metaclass's (ABCMeta.register) and no PyTorch base class has one (test_fair_round19)."""
    bound = _binding_counts(tree)
    classes = {n.name: n for n in _nodes(tree) if isinstance(n, ast.ClassDef) and bound.get(n.name) == 1}
    memo: dict[str, bool] = {}

    def defines(name: str) -> bool:
        if name not in memo:
            memo[name] = False               # (a cycle of bases defines nothing)
            cls = classes.get(name)
            memo[name] = cls is not None and (
                any(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name == "register" for f in cls.body)
                or any(isinstance(b, ast.Name) and defines(b.id) for b in cls.bases))
        return memo[name]
    return {name for name in classes if defines(name)}


def _sealed_registry_uses(tree: ast.Module, loads: dict[str, list[ast.Name]]) -> set[int]:
    """The nodes that are only keys of a sealed registry: a name bound once in the file, to a dict literal,
    whose every read looks a key up in it (``ATTENTION_CLASSES[config.attn_type]``, ``.get(name)``, ``name
    in ATTENTION_CLASSES``, ``ATTENTION_CLASSES["extra"] = Kernel``). Its keys never leave it (no ``for k in``,
    ``.keys()``, no passing it on), so a key ``"scaled_dot_product"`` only picks one of its values, which
    are reviewed where they are written; the literal's keys, the subscripts and ``.get``'s first argument
    are such nodes. (A registry keyed by ``"scaled_dot_product"`` cost 13 points pending review as "a string
    that spells a looked-for name".)"""
    bound = _binding_counts(tree)
    dicts: dict[str, ast.Dict] = {}
    for node in _nodes(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Dict) \
                and None not in node.value.keys:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                dicts[targets[0].id] = node.value
    parents = _parents(tree)
    out: set[int] = set()
    for name, literal in dicts.items():
        if bound.get(name) != 1:
            continue
        picks: list[ast.AST] = []
        for use in loads.get(name, ()):
            parent = parents.get(id(use))
            if isinstance(parent, ast.Subscript) and parent.value is use:
                picks.append(parent.slice)
            elif isinstance(parent, ast.Attribute) and parent.attr == "get" and isinstance(
                    call := parents.get(id(parent)), ast.Call) and call.func is parent and call.args:
                picks.append(call.args[0])
            elif not (isinstance(parent, ast.Compare) and use in parent.comparators
                      and all(isinstance(op, ast.In | ast.NotIn) for op in parent.ops)):
                break
        else:
            out |= {id(k) for k in literal.keys if k is not None} | {id(p) for p in picks}
    return out


# Builtins that copy a registry's keys into a new list, tuple or set (``list(registry.keys())``).
LISTING_BUILTINS = frozenset({"list", "sorted", "tuple", "set"})


def _listed_for_messages(expr: ast.AST, tree: ast.Module, parents: Mapping[int, ast.AST],
                         classes: Mapping[str, ast.ClassDef], bound: Mapping[str, int]) -> bool:
    """Whether ``expr`` (a registry's dict of names) is listed only for error messages: AllenNLP's
    ``list_available()`` (``keys = list(Registrable._registry[cls].keys())``, the default implementation put
    first) whose every call is formatted into a message (``f"Available names are: {', '.join(available)}"`` in a
    ``raise``; cost 13 points, the keys registered with ``@Attention.register("scaled_dot_product")`` read as a
    string for a lookup). The listing runs in a method of a class of the file (undecorated or a classmethod,
    defined once, its name never written as a string) and its value reaches only that method's ``return``,
    through ``.keys()``, ``list``/``sorted``/``tuple``/``set``, ``+``, list displays, a comprehension's elements
    and local names bound once; every call of the method, kept or not under a local name bound once, is
    formatted, joined, compared, printed or logged, or given to a builtin exception or an exception class of
    the file (_message_use). Anything else (iterated elsewhere, handed to a function, kept on an object) stays
    a finding."""
    method = _enclosing_function(expr, parents)
    owner = parents.get(id(method)) if method is not None else None
    if not (isinstance(method, ast.FunctionDef) and isinstance(owner, ast.ClassDef) and owner.name in classes
            and [_dotted(d) for d in method.decorator_list] in ([], [["classmethod"]])
            and bound.get(method.name) == 1):
        return False
    rebound = {name for name in (*LISTING_BUILTINS, "str") if name in bound}
    if not _flows_to_return(expr, method, parents, rebound, 0):
        return False
    calls = []
    for node in _nodes(tree):
        if isinstance(node, ast.Constant) and node.value == method.name:
            return False                      # a lookup of the method by its name
        if isinstance(node, ast.Attribute) and node.attr == method.name:
            call = parents.get(id(node))
            if not (isinstance(node.ctx, ast.Load) and isinstance(call, ast.Call) and call.func is node):
                return False
            calls.append(call)
    exceptions = _own_exception_classes(tree, bound)
    return all(_message_use(call, parents, rebound, exceptions, 0) for call in calls)


def _flows_to_return(expr: ast.AST, method: ast.FunctionDef, parents: Mapping[int, ast.AST], rebound: set[str],
                     depth: int) -> bool:
    """Whether the value of ``expr`` only reaches ``method``'s own ``return`` (or is compared on the way)."""
    if depth > 8:
        return False
    parent = parents.get(id(expr))
    if isinstance(parent, ast.Compare):
        return True                           # ``default not in keys`` is a bool
    if isinstance(parent, ast.Return):
        return _enclosing_function(parent, parents) is method
    if isinstance(parent, ast.Attribute) and parent.value is expr and parent.attr == "keys":
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and call.func is parent and not call.args and not call.keywords \
            and _flows_to_return(call, method, parents, rebound, depth + 1)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in LISTING_BUILTINS \
            and parent.func.id not in rebound and parent.args == [expr] and not parent.keywords:
        return _flows_to_return(parent, method, parents, rebound, depth + 1)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add) \
            or isinstance(parent, ast.List | ast.Tuple) and isinstance(parent.ctx, ast.Load) \
            or isinstance(parent, ast.ListComp) and parent.elt is expr:
        return _flows_to_return(parent, method, parents, rebound, depth + 1)
    if isinstance(parent, ast.comprehension) and parent.iter is expr and isinstance(parent.target, ast.Name):
        comp = parents.get(id(parent))
        if not isinstance(comp, ast.ListComp) or len(comp.generators) != 1:
            return False
        uses = [n for n in ast.walk(comp) if isinstance(n, ast.Name) and n.id == parent.target.id
                and n is not parent.target]
        return all(isinstance(n.ctx, ast.Load) and _flows_to_return(n, method, parents, rebound, depth + 1)
                   for n in uses) and _flows_to_return(comp, method, parents, rebound, depth + 1)
    if isinstance(parent, ast.Assign) and parent.value is expr and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        found = [n for n in ast.walk(method) if isinstance(n, ast.Name) and n.id == name
                 or isinstance(n, ast.arg) and n.arg == name]
        return all(n is parent.targets[0] or (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                                              and _flows_to_return(n, method, parents, rebound, depth + 1))
                   for n in found)
    return False


def _own_exception_classes(tree: ast.Module, bound: Mapping[str, int]) -> set[str]:
    """Classes of the file, bound once, with no keywords (a metaclass), each base a builtin exception not rebound
    or another such class (AllenNLP's ``ConfigurationError(Exception)``): made with a message, they are what a
    builtin exception is, their own methods reviewed where they are written."""
    candidates = {c.name: c for c in _nodes(tree) if isinstance(c, ast.ClassDef) and bound.get(c.name) == 1
                  and not c.keywords and c.bases}
    own: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, cls in candidates.items():
            if name not in own and all(isinstance(b, ast.Name) and (
                    (b.id in BUILTIN_EXCEPTIONS and b.id not in bound) or b.id in own) for b in cls.bases):
                own.add(name)
                changed = True
    return own


def _message_use(node: ast.AST, parents: Mapping[int, ast.AST], rebound: set[str], exceptions: set[str],
                 depth: int) -> bool:
    """Whether the value of ``node`` only goes into a message: formatted, joined by a string constant
    (``", ".join(available)``), compared, printed or logged, or given to a builtin exception or one of the file's
    own exception classes; kept under a local name bound once in its function, each read of which is so."""
    if depth > 8:
        return False
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "join" \
            and isinstance(parent.func.value, ast.Constant) and isinstance(parent.func.value.value, str) \
            and parent.args == [node] and not parent.keywords:
        return _message_use(parent, parents, rebound, exceptions, depth + 1)
    if isinstance(parent, ast.FormattedValue) and parent.value is node:
        return _message_use(parents.get(id(parent)), parents, rebound, exceptions, depth + 1)  # type: ignore[arg-type]
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in exceptions \
            and node in parent.args:
        return True
    if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Name):
        function = _enclosing_function(parent, parents)
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return False
        # each read of the name, whatever else it is bound to (AllenNLP's register writes ``message = ...`` in
        # two branches), goes into a message; a global or nonlocal of that name would let other code read it
        name = parent.targets[0].id
        if any(isinstance(n, ast.Global | ast.Nonlocal) and name in n.names for n in ast.walk(function)):
            return False
        return all(_message_use(n, parents, rebound, exceptions, depth + 1) for n in ast.walk(function)
                   if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load))
    return _inert_use(node, parents, rebound)      # type: ignore[arg-type]


def _own_registry_keys(tree: ast.Module) -> set[int]:
    """The string arguments of a call of the file's own registry method that only keys a dict the method's own
    object holds (``@ATTENTION.register("scaled_dot_product")`` and ``ATTENTION.get("scaled_dot_product")`` with
    ``ATTENTION = Registry("attention")``, mmcv/detectron2/timm style; or the AllenNLP-style classmethod on the
    file's own class; cost 13 points). The call is ``R.m(...)`` where R is a class of the file bound once, or a
    module-level name bound once to an object of one; ``m`` is defined once in that class (or its own bases)
    with no decorator but ``classmethod``; the argument's parameter is bound nowhere else in it and each read of
    it is inert (compared, formatted into a message) or the key of ``self.A[...]`` / ``cls.A[...]`` (self or cls
    the method's own first parameter); and every binding of the attribute ``A`` in the file is an empty or literal
    dict (``self._module_dict = {}``, a class attribute ``_registry = {}``), every read of it a lookup
    (``[key]``, ``.get(key)``, ``key in``). The key then only picks one of the dict's values, which are reviewed
    where they are written, as a sealed registry's keys are (_sealed_registry_uses)."""
    bound = _binding_counts(tree)
    classes = {n.name: n for n in _nodes(tree) if isinstance(n, ast.ClassDef) and bound.get(n.name) == 1}
    if not classes:
        return set()
    owners: dict[str, ast.ClassDef] = dict(classes)
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and bound.get(stmt.targets[0].id) == 1 and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id in classes:
            owners[stmt.targets[0].id] = classes[stmt.value.func.id]
    parents = _parents(tree)

    def lookup(cls: ast.ClassDef, name: str, seen: frozenset[str]) -> list[ast.FunctionDef]:
        found = [f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == name]
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in classes and base.id not in seen:
                found += lookup(classes[base.id], name, seen | {base.id})
        return found

    dict_attrs: dict[str, bool] = {}

    def is_dict(value: ast.AST | None) -> bool:
        return isinstance(value, ast.Dict) and None not in value.keys or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict"
            and "dict" not in bound and not value.args and not value.keywords) or is_nested(value)

    def is_nested(value: ast.AST | None) -> bool:
        """``defaultdict(dict)`` (AllenNLP's ``Registrable._registry``: one dict of names per base class),
        defaultdict imported from collections or read off it, neither name bound again."""
        chain = _dotted(value.func) if isinstance(value, ast.Call) else None
        return isinstance(value, ast.Call) and chain in (["defaultdict"], ["collections", "defaultdict"]) \
            and bound.get(chain[0]) == 1 and not value.keywords and len(value.args) == 1 \
            and isinstance(value.args[0], ast.Name) and value.args[0].id == "dict" and "dict" not in bound

    nested_attrs: set[str] = set()

    def lookup_only(expr: ast.AST) -> bool:
        """``expr`` (an inner dict of a nested registry) is only looked up in (``[key]``, ``.get(key)``,
        ``key in``), or kept under a local name bound once in its function, each read of which is so."""
        parent = parents.get(id(expr))
        if isinstance(parent, ast.Subscript) and parent.value is expr:
            return True
        if isinstance(parent, ast.Attribute) and parent.attr == "get":
            call = parents.get(id(parent))
            return isinstance(call, ast.Call) and call.func is parent
        if isinstance(parent, ast.Compare):
            return expr in parent.comparators and all(isinstance(op, ast.In | ast.NotIn) for op in parent.ops)
        return local_alias(expr) is not None or _listed_for_messages(expr, tree, parents, classes, bound)

    def local_alias(expr: ast.AST) -> str | None:
        """The local name ``expr`` is kept under (``registry = Registrable._registry[cls]``), when that name
        is bound once in its function (nested functions reading it included) and only looked up in."""
        assign = parents.get(id(expr))
        if not (isinstance(assign, ast.Assign) and assign.value is expr and len(assign.targets) == 1
                and isinstance(assign.targets[0], ast.Name)):
            return None
        name, function = assign.targets[0].id, _enclosing_function(assign, parents)
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        uses = [n for n in ast.walk(function) if (isinstance(n, ast.Name) and n.id == name)
                or (isinstance(n, ast.arg) and n.arg == name)
                or (isinstance(n, ast.Global | ast.Nonlocal) and name in n.names)]
        if any(not isinstance(n, ast.Name) or (not isinstance(n.ctx, ast.Load) and n is not assign.targets[0])
               for n in uses):
            return None
        return name if all(lookup_only(n) for n in uses if n is not assign.targets[0]) else None

    def sealed(attr: str) -> bool:
        if attr not in dict_attrs:
            ok = True
            subscripts: list[ast.Subscript] = []
            for node in _nodes(tree):
                if isinstance(node, ast.Attribute) and node.attr == attr:
                    parent = parents.get(id(node))
                    if isinstance(node.ctx, ast.Store):
                        ok = isinstance(parent, ast.Assign | ast.AnnAssign) and is_dict(parent.value) and (
                            parent.targets == [node] if isinstance(parent, ast.Assign) else parent.target is node)
                        if ok and is_nested(parent.value):
                            nested_attrs.add(attr)
                    elif isinstance(parent, ast.Subscript) and parent.value is node:
                        ok = True
                        subscripts.append(parent)
                    elif isinstance(parent, ast.Attribute) and parent.attr == "get":
                        call = parents.get(id(parent))
                        ok = isinstance(call, ast.Call) and call.func is parent
                    else:
                        ok = isinstance(parent, ast.Compare) and node in parent.comparators \
                            and all(isinstance(op, ast.In | ast.NotIn) for op in parent.ops)
                elif isinstance(node, ast.Name) and node.id == attr and not isinstance(node.ctx, ast.Load):
                    parent = parents.get(id(node))
                    ok = isinstance(parents.get(id(parent)), ast.ClassDef) and isinstance(
                        parent, ast.Assign | ast.AnnAssign) and is_dict(parent.value)
                    if ok and is_nested(parent.value):
                        nested_attrs.add(attr)
                elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == attr:
                    ok = False
                if not ok:
                    break
            # a nested registry's ``A[base]`` is itself a dict of names: only looked up in, or kept locally so
            if ok and attr in nested_attrs:
                ok = all(lookup_only(sub) for sub in subscripts)
            dict_attrs[attr] = ok
        return dict_attrs[attr]

    def passed_on(call: ast.AST, use: ast.Name, first: str, owner: ast.ClassDef, depth: int) -> bool:
        """``self._do_register(name, obj)``: the key handed to another method of the same class, read the same
        way there."""
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(
                call.func.value, ast.Name) and call.func.value.id == first and depth < 4):
            return False
        methods = lookup(owner, call.func.attr, frozenset())
        # a classmethod's first parameter is the class (``cls.resolve_class_name(name)`` in AllenNLP's by_name)
        if len(methods) != 1 or not methods[0].args.args \
                or [_dotted(d) for d in methods[0].decorator_list] not in ([], [["classmethod"]]):
            return False
        params = [a.arg for a in methods[0].args.args[1:]]
        given = [params[i] for i, a in enumerate(call.args) if a is use and i < len(params)]
        given += [k.arg for k in call.keywords if k.value is use and k.arg in params]
        return len(given) == 1 and not any(isinstance(a, ast.Starred) for a in call.args) \
            and key_only(methods[0], given[0], owner, depth + 1)

    def key_only(method: ast.FunctionDef, param: str, owner: ast.ClassDef, depth: int = 0) -> bool:
        first = method.args.args[0].arg
        for n in ast.walk(method):
            if (isinstance(n, ast.arg) and n.arg in (param, first) and n not in method.args.args) \
                    or (isinstance(n, ast.Name) and n.id in (param, first) and not isinstance(n.ctx, ast.Load)) \
                    or (isinstance(n, ast.Global | ast.Nonlocal) and {param, first} & set(n.names)):
                return False
        holders = {first} | set(classes)      # ``self._obj_map``, ``cls._registry``, ``Registrable._registry``

        def registry(expr: ast.AST) -> bool:
            """``expr`` is a sealed registry: ``R.A``, a nested one's ``R.A[base]``, or a local name kept for
            one of these (``registry = Registrable._registry[cls]``, AllenNLP's ``register``)."""
            if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in holders:
                return sealed(expr.attr)
            if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) \
                    and isinstance(expr.value.value, ast.Name) and expr.value.value.id in holders:
                return sealed(expr.value.attr) and expr.value.attr in nested_attrs
            if isinstance(expr, ast.Name) and isinstance(expr.ctx, ast.Load):
                kept = [n for n in ast.walk(method) if isinstance(n, ast.Name) and n.id == expr.id
                        and not isinstance(n.ctx, ast.Load)]
                if len(kept) == 1 and isinstance(assign := parents.get(id(kept[0])), ast.Assign) \
                        and registry(assign.value) and local_alias(assign.value) == expr.id:
                    return True
            return False

        for use in ast.walk(method):
            if not (isinstance(use, ast.Name) and use.id == param):
                continue
            parent = parents.get(id(use))
            if isinstance(parent, ast.Subscript) and parent.slice is use and registry(parent.value):
                continue
            if isinstance(parent, ast.Call) and parent.args and parent.args[0] is use \
                    and isinstance(parent.func, ast.Attribute) and parent.func.attr == "get" \
                    and isinstance(parent.func.value, ast.Attribute) and isinstance(parent.func.value.value, ast.Name) \
                    and parent.func.value.value.id == first and sealed(parent.func.value.attr):
                continue
            if not (_inert_use(use, parents, set()) or passed_on(parent, use, first, owner, depth)
                    or _message_use(use, parents, rebound, exceptions(), 0)):
                return False
        return True

    exception_memo: list[set[str]] = []
    rebound = {name for name in (*LISTING_BUILTINS, "str") if name in bound}

    def exceptions() -> set[str]:
        if not exception_memo:
            exception_memo.append(_own_exception_classes(tree, bound))
        return exception_memo[0]

    # ``reg = Attention.register`` at module level, bound once: ``@reg("x")`` is ``@Attention.register("x")``
    # (the bound method keeps its class or object)
    method_aliases = {stmt.targets[0].id: stmt.value for stmt in tree.body
                      if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                      and bound.get(stmt.targets[0].id) == 1 and isinstance(stmt.value, ast.Attribute)
                      and isinstance(stmt.value.value, ast.Name) and stmt.value.value.id in owners}
    out: set[int] = set()
    for call in _nodes(tree):
        if not isinstance(call, ast.Call):
            continue
        func = method_aliases.get(call.func.id, call.func) if isinstance(call.func, ast.Name) else call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in owners):
            continue
        owner = owners[func.value.id]
        methods = lookup(owner, func.attr, frozenset())
        # read off the class, only a classmethod binds its first parameter (``Registry.get("x", y)`` would make
        # the string ``self``); off an object, only a plain method
        decorators = [["classmethod"]] if func.value.id in classes else []
        if len(methods) != 1 or not methods[0].args.args or any(isinstance(a, ast.Starred) for a in call.args) \
                or [_dotted(d) for d in methods[0].decorator_list] != decorators:
            continue
        method = methods[0]
        params = [a.arg for a in method.args.args[1:]]
        given = [(params[i], a) for i, a in enumerate(call.args) if i < len(params)]
        given += [(k.arg, k.value) for k in call.keywords if k.arg in params]
        for param, arg in given:
            # a string written there, or a name (a parameter defaulting to one: ``ATTENTION.get(attn_type)``)
            if (isinstance(arg, ast.Constant) and isinstance(arg.value, str) or isinstance(arg, ast.Name)) \
                    and key_only(method, param, owner):
                out.add(id(arg))
    return out


def _literal_type_values(tree: ast.Module) -> set[int]:
    """The string constants written directly as the values of ``typing.Literal[...]`` (HF-style configs:
    ``attn_implementation: Literal["eager", "sdpa", "flash_attention_2"] = "eager"``): a Literal holds its
    values and evaluates none of them. Only ``Literal`` imported from typing or typing_extensions and bound
    nowhere else, or read as ``typing.Literal`` with ``typing`` bound only by its import, counts; a
    concatenation inside the brackets, and the names that hide (``"__wrapped__"``, ``"ops"``), are still read."""
    imported: dict[str, int] = {}       # local name -> times bound
    typing_from_import: set[str] = set()
    for node in _nodes(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                names.append(a.asname or a.name)
                if node.module in ("typing", "typing_extensions") and not node.level and a.name == "Literal":
                    typing_from_import.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
            typing_from_import.update(a.asname or a.name for a in node.names
                                      if a.name in ("typing", "typing_extensions"))
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names = [node.id]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names = list(node.names)
        for name in names:
            imported[name] = imported.get(name, 0) + 1
    literal_names = {n for n in typing_from_import if imported.get(n) == 1}

    def is_literal(node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in literal_names
        return isinstance(node, ast.Attribute) and node.attr == "Literal" and isinstance(node.value, ast.Name) \
            and node.value.id in literal_names
    out: set[int] = set()
    for node in _nodes(tree):
        if isinstance(node, ast.Subscript) and is_literal(node.value):
            values = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            out |= {id(v) for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)
                    and not set(re.findall(r"\w+", v.value)) & (HIDING_ATTRS | ANYWHERE_HIDING_ATTRS | MATCH_HOOKS)}
    return out


def _exported_own_names(tree: ast.Module) -> set[int]:
    """The string nodes of a module-level ``__all__ = [...]`` (or ``+=``) that name a function or class the
    module defines (``__all__ = ["scaled_dot_product_attention", "MultiHeadAttention"]`` beside the student's
    own ``def scaled_dot_product_attention``): only ``import *`` reads them, and only when nothing in the file
    reads ``__all__`` itself."""
    if any(isinstance(n, ast.Name) and n.id == "__all__" and isinstance(n.ctx, ast.Load) for n in _nodes(tree)):
        return set()
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    out: set[int] = set()
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
            if isinstance(stmt, ast.AugAssign | ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and \
                isinstance(stmt.value, ast.List | ast.Tuple):
            out |= {id(e) for e in stmt.value.elts if isinstance(e, ast.Constant) and e.value in defined}
    return out


# Calls that only print, log or compare what they are given, never look a name up with it:
# ``logging.getLogger("Transformer")``, ``print("flash_attention_2 is not used")``.
INERT_CALLEES = {"print", "getLogger", "debug", "info", "warning", "warn", "error", "critical", "exception",
                 "log", "write", "startswith", "endswith"}


# The builtin exception and warning classes: made with a message, they look nothing up by it.
BUILTIN_EXCEPTIONS = frozenset(name for name, value in vars(builtins).items()
                               if isinstance(value, type) and issubclass(value, BaseException))


def _inert_use(node: ast.AST, parents: dict[int, ast.AST], rebound: set[str],
               sealed: Set[int] = frozenset()) -> bool:
    """Whether the value of ``node`` is only compared, printed or logged where it stands, or only picks
    a value of a sealed registry (``sealed``: _sealed_registry_uses)."""
    if id(node) in sealed:
        return True
    parent = parents.get(id(node))
    if isinstance(parent, ast.Compare):
        return True                        # ``if impl == "flash_attention_2":`` is a bool
    if isinstance(parent, ast.FormattedValue) and parent.value is node:
        # ``raise ValueError(f"unknown attention type {attn_type!r}")``: the message it is formatted into
        # is what the call gets
        node = parents.get(id(parent))     # type: ignore[assignment]
        parent = parents.get(id(node))
    if isinstance(parent, ast.keyword):
        node, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.Call) and parent.func is not node:
        func = parent.func
        if isinstance(func, ast.Name):
            return (func.id in INERT_CALLEES or func.id in BUILTIN_EXCEPTIONS) and func.id not in rebound
        return isinstance(func, ast.Attribute) and func.attr in INERT_CALLEES
    return False


def _inert_string(node: ast.AST, parents: dict[int, ast.AST], loads: dict[str, list[ast.Name]],
                  rebound: set[str], sealed: Set[int] = frozenset(),
                  scope_loads: dict[int, dict[str, list[ast.Name]]] | None = None,
                  attribute_reads: Mapping[str, list[ast.Attribute]] | None = None,
                  inert_attributes: dict[str, bool] | None = None) -> bool:
    """A string that only names something for a person: compared, printed or logged, or kept under
    names that are never read or only read that way (``ATTN_IMPLEMENTATION = "flash_attention_2"``);
    or one that only picks a value of a sealed registry, itself or as the default of a parameter read
    only so (``def __init__(self, attn_type="scaled_dot_product")`` and ``ATTENTION_CLASSES[attn_type]``),
    also once kept on ``self`` (``self.attn_type = attn_type``; see _kept_for_inert_reads).
    Any other use could be a lookup by name: the reflective functions are flagged on their own, and
    this is the second net under them."""
    if _inert_use(node, parents, rebound, sealed):
        return True
    parent = parents.get(id(node))
    if isinstance(parent, ast.arguments) and isinstance(node, ast.Constant):
        scope_loads = {} if scope_loads is None else scope_loads
        inert_attributes = {} if inert_attributes is None else inert_attributes
        positional = [*parent.posonlyargs, *parent.args]
        params = [a for a, d in zip(positional[len(positional) - len(parent.defaults):], parent.defaults,
                                    strict=True) if d is node]
        params += [a for a, d in zip(parent.kwonlyargs, parent.kw_defaults, strict=True) if d is node]
        function = parents.get(id(parent))
        if len(params) != 1 or function is None:
            return False
        if id(function) not in scope_loads:      # each function's body walked once, however many defaults
            body = function.body if isinstance(function.body, list) else [function.body]   # type: ignore[attr-defined]
            by_name: dict[str, list[ast.Name]] = {}
            for use in (n for stmt in body for n in ast.walk(stmt)):
                if isinstance(use, ast.Name) and isinstance(use.ctx, ast.Load):
                    by_name.setdefault(use.id, []).append(use)
            scope_loads[id(function)] = by_name
        return all(_inert_use(use, parents, rebound, sealed) or _kept_for_inert_reads(use, parents, rebound, sealed,
                                                                                   attribute_reads, inert_attributes)
                   for use in scope_loads[id(function)].get(params[0].arg, ()))
    if not isinstance(parent, ast.Assign | ast.AnnAssign) or parent.value is not node \
            or not isinstance(node, ast.Constant):   # a name spelled in pieces is being hidden
        return False
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
    return all(isinstance(t, ast.Name) for t in targets) and all(
        _inert_use(use, parents, rebound, sealed) for t in targets for use in loads.get(t.id, ()))  # type: ignore[union-attr]


# Ways to read every attribute of an object at once (its values, or its fields by position): past them an
# attribute's value may go anywhere, whatever the reads of its name show.
BULK_ATTRIBUTE_READERS = {"vars", "__dict__", "asdict", "astuple", "fields", "_asdict", "__getstate__", "__reduce__",
                          "__reduce_ex__", "__match_args__", "__slots__"}


def _attribute_reads(tree: ast.Module) -> dict[str, list[ast.Attribute]] | None:
    """Attribute name -> every read of it in the file (``x.attn_type``), or None when the file reads
    attributes in bulk (BULK_ATTRIBUTE_READERS, a match pattern reading fields by position or by keyword)."""
    reads: dict[str, list[ast.Attribute]] = {}
    for node in _nodes(tree):
        if isinstance(node, ast.Name) and node.id in BULK_ATTRIBUTE_READERS or isinstance(node, ast.MatchClass) \
                or isinstance(node, ast.Attribute) and node.attr in BULK_ATTRIBUTE_READERS:
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            reads.setdefault(node.attr, []).append(node)
    return reads


def _kept_for_inert_reads(use: ast.AST, parents: dict[int, ast.AST], rebound: set[str], sealed: Set[int],
                          attribute_reads: Mapping[str, list[ast.Attribute]] | None, memo: dict[str, bool]) -> bool:
    """Whether ``use`` (a read of a parameter) is only stored on ``self`` under a name every read of which, on
    any object, is inert (_inert_use: ``ATTENTION_TYPES[self.attn_type]``, ``if self.attn_type == ...``), in a
    file that reads no object's attributes in bulk (``attribute_reads`` is None then): OpenNMT-py's and
    Hugging Face's ``self.attn_type = attn_type`` before the registry picks (cost 13 points)."""
    parent = parents.get(id(use))
    if attribute_reads is None or not (isinstance(parent, ast.Assign | ast.AnnAssign) and parent.value is use):
        return False
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
    if not (len(targets) == 1 and isinstance(targets[0], ast.Attribute) and isinstance(targets[0].value, ast.Name)
            and targets[0].value.id == "self"):
        return False
    name = targets[0].attr
    if name not in memo:           # each attribute's reads judged once, however many parameters it keeps
        memo[name] = all(_inert_use(read, parents, rebound, sealed) for read in attribute_reads.get(name, ()))
    return memo[name]


def _harmless_part(package: str, attr: str) -> bool:
    """Whether ``<package>.<attr>`` is one of the harmless names of torch.jit, torch.compiler, torch.onnx,
    torch.distributed or a testing package."""
    if attr in COMPILER_SETTINGS.get(package, ()):
        return True
    if package == "jit":
        return attr in JIT_HARMLESS
    if package == "compiler":
        return attr in COMPILER_HARMLESS or bool(GUARD_FILTER.fullmatch(attr))
    if package == "distributed":
        return attr in TORCH_HARMLESS_FUNCTIONS["torch.distributed"]
    if package == "onnx":
        return attr in ONNX_HARMLESS
    if package == "_dynamo":
        return attr in DYNAMO_HARMLESS
    if package == "testing":
        return attr in TESTING_HARMLESS or (attr.startswith(TESTING_HARMLESS_PREFIX) and attr.isidentifier())
    return False


# The torch packages with harmless parts (_harmless_part), as a file may bind them to a name of its own.
PACKAGES_WITH_HARMLESS_PARTS = ("jit", "compiler", "onnx", "_dynamo", "distributed", "testing")
# The torch packages a file may bind to a name of its own (``from torch import testing``, ``import torch.signal as
# ts``), judged read by read as ``torch.<package>.X`` is, and no finding when never read, as ``import torch.jit`` is
# none (review D round 43, MED 1: ``from torch import jit`` was a finding): those with harmless parts, torch.types
# (whose names are harmless in annotations only) and torch.signal (whose name is the standard library's). The other
# unreviewable packages (``from torch import utils``, ``import torch.fx``) stay findings in every spelling.
BINDABLE_TORCH_PACKAGES = frozenset(PACKAGES_WITH_HARMLESS_PARTS) | {"types", "signal"}


def _harmless_package_aliases(tree: ast.Module) -> set[int]:
    """The ``import`` names (ast.alias nodes) that bind one of torch's packages with harmless parts to a name of the
    file's own, ``from torch import jit`` / ``compiler``, ``import torch.compiler as tc``, when that name is bound
    nowhere else, is read, and every read of it takes a harmless part off it (``@jit.script``,
    ``compiler.disable``): what the name is bound to decides, as ``torch.jit.script`` is no finding (13 points pending review before). The package
    passed around, or any other part read off it, leaves the import flagged."""
    counts = _binding_counts(tree)
    candidates: dict[str, tuple[int, str]] = {}
    for node in _nodes(tree):
        for a in node.names if isinstance(node, ast.Import | ast.ImportFrom) else ():
            if isinstance(node, ast.ImportFrom) and node.module == "torch" and not node.level \
                    and a.name in BINDABLE_TORCH_PACKAGES:
                package, bound = a.name, a.asname or a.name
            elif isinstance(node, ast.Import) and a.asname and a.name.startswith("torch.") \
                    and a.name.split(".", 1)[1] in BINDABLE_TORCH_PACKAGES:
                package, bound = a.name.split(".", 1)[1], a.asname
            else:
                continue
            if counts.get(bound) == 1:
                candidates[bound] = (id(a), package)
    if not candidates:
        return set()
    parents = _parents(tree)
    annotations = _annotation_nodes(tree) if any(p == "types" for _, p in candidates.values()) else frozenset()
    for node in _nodes(tree):
        if isinstance(node, ast.Name) and node.id in candidates:
            use = parents.get(id(node))
            package = candidates[node.id][1]
            if not (isinstance(node.ctx, ast.Load) and isinstance(use, ast.Attribute) and use.value is node
                    and (_harmless_part(package, use.attr) or package == "types" and id(use) in annotations
                         and not use.attr.startswith("_"))):
                del candidates[node.id]
    # A package imported and never read through its name is no finding, as ``import torch.jit`` never read is
    # none (review D round 43, MED 1: the spelling decided): nothing is reached through it.
    return {alias for alias, _ in candidates.values()}


def _annotation_nodes(tree: ast.Module) -> frozenset[int]:
    """The nodes inside the file's annotations: of parameters, of returns, and of annotated assignments."""
    roots = [n.annotation for n in _nodes(tree) if isinstance(n, ast.arg | ast.AnnAssign) and n.annotation] \
        + [n.returns for n in _nodes(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.returns]
    return frozenset(id(inner) for root in roots for inner in ast.walk(root))


def _dynamo_setting(node: ast.Attribute, parents: dict[int, ast.AST]) -> bool:
    """Whether ``node`` is ``<x>._dynamo.config.<name>`` assigned a constant (``torch._dynamo.config.suppress_errors =
    True``, ``.cache_size_limit = 64``): a setting of a compiler the jail never runs, and nothing is read from it."""
    config = node.value
    assign = parents.get(id(node))
    return isinstance(node.ctx, ast.Store) and not node.attr.startswith("_") and isinstance(config, ast.Attribute) \
        and config.attr == "config" and isinstance(config.value, ast.Attribute) and config.value.attr == "_dynamo" \
        and isinstance(assign, ast.Assign) and assign.targets == [node] and isinstance(assign.value, ast.Constant)


@functools.lru_cache(maxsize=16)
def _function_locals(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
    """The names a function binds in its own scope (parameters, assignments, loop and ``with``
    targets, imports, nested definitions), without those it declares global or nonlocal. Cached per function:
    asked for each read of a shadowable builtin, 300 ``locals()`` reads in one method walked it 300 times."""
    a = fn.args
    names = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None}
    declared: set[str] = set()
    todo = list(fn.body) if isinstance(fn.body, list) else [fn.body]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)      # its body is a scope of its own (its decorators are not)
            todo.extend(node.decorator_list)
            continue
        if isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return frozenset(names - declared)


def _bound_in_function(node: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """Whether a read of ``node`` inside a function is of a name that function (or one it is nested
    in) binds: then it is never the builtin of that name. Module and class bodies read the builtin
    until their own binding has run, so a read there is the builtin's."""
    child, scope = node, parents.get(id(node))
    while scope is not None:
        # a default, annotation or decorator is read where the function is defined, not in it
        in_body = isinstance(scope, ast.Lambda) and child is scope.body or (
            isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) and any(child is b for b in scope.body))
        if in_body and node.id in _function_locals(scope):
            return True
        child, scope = scope, parents.get(id(scope))
    return False


def _imported_over_builtins(tree: ast.Module) -> set[str]:
    """The shadowable builtins' names that, at module level, are bound to an import from SHADOWING_IMPORTS before
    anything could read them: a top-level ``from torch import compile`` (not in ``try``/``if``: it always runs),
    that binding the file's only one of the name (no ``del``, no ``global``, no other assignment), and only
    imports, docstrings, constants and undecorated definitions before it (nothing there runs code or names it).
    Every read of such a name, at module level or in a function, is the imported object, never the builtin."""
    counts = _binding_counts(tree)
    names: set[str] = set()
    for name in SHADOWABLE_BUILTINS:
        if counts.get(name) != 1:
            continue
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and not stmt.level and any(
                    (a.asname or a.name) == name and a.name in SHADOWING_IMPORTS.get(stmt.module or "", ())
                    for a in stmt.names):
                names.add(name)
                break
            # (a definition's body runs later, when it is called: after the import)
            run = [p for p in (stmt.args, stmt.returns) if p is not None] \
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) else [stmt]
            if not _runs_nothing(stmt) or any(isinstance(n, ast.Name) and n.id == name
                                              for r in run for n in ast.walk(r)):
                break
    return names


def _runs_nothing(stmt: ast.stmt) -> bool:
    """Whether running a top-level statement can call nothing of the file's: an import, a docstring or a
    constant, ``pass``, an undecorated ``def`` whose defaults and annotations call nothing (its body runs
    later), or a ``try`` of these (optional imports)."""
    if isinstance(stmt, ast.Import | ast.ImportFrom | ast.Pass):
        return True
    if isinstance(stmt, ast.Expr | ast.Assign | ast.AnnAssign):
        value = stmt.value
        return value is not None and all(isinstance(n, ast.Constant | ast.List | ast.Tuple | ast.Set | ast.Dict
                                                    | ast.Load | ast.UnaryOp | ast.USub) for n in ast.walk(value)) \
            and (isinstance(stmt, ast.Expr) or all(
                isinstance(t, ast.Name) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])))
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        return not stmt.decorator_list and not any(
            isinstance(n, ast.Call | ast.NamedExpr | ast.Lambda | ast.Await | ast.Yield)
            for part in (stmt.args, stmt.returns) if part is not None for n in ast.walk(part))
    if isinstance(stmt, ast.Try):
        return all(_runs_nothing(s) for s in (*stmt.body, *stmt.orelse, *stmt.finalbody,
                                              *(s for h in stmt.handlers for s in h.body))) \
            and all(h.type is None or isinstance(h.type, ast.Name) for h in stmt.handlers)
    return False


def _public_literal_argument(call: ast.Call) -> bool:
    """Whether ``call``'s one argument is a string constant naming a public attribute (``"attribute_map"``)."""
    return len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Constant) \
        and isinstance(call.args[0].value, str) and call.args[0].value.isidentifier() \
        and not call.args[0].value.startswith("_") and call.args[0].value not in HIDING_ATTRS | ANYWHERE_HIDING_ATTRS


def _super_call_of(node: ast.Attribute, calls: dict[int, ast.Call]) -> bool:
    """Whether ``node`` is ``super().<attr>`` (no arguments to super) and is called where it stands."""
    value = node.value
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super" \
        and not value.args and not value.keywords and id(node) in calls


def _in_body_of_method(node: ast.AST, name: str, parents: dict[int, ast.AST]) -> bool:
    """Whether ``node`` is in the body of a method ``name`` written in a class body, and in no function,
    lambda, comprehension or class nested in it (where ``super()`` means another object or none)."""
    child, scope = node, parents.get(id(node))
    while scope is not None and not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                                               | ast.ClassDef | ast.ListComp | ast.SetComp | ast.DictComp
                                               | ast.GeneratorExp):
        child, scope = scope, parents.get(id(scope))
    return isinstance(scope, ast.FunctionDef) and scope.name == name and any(child is b for b in scope.body) \
        and isinstance(parents.get(id(scope)), ast.ClassDef)


# Calls that copy or only read the dict they are given (``copy.deepcopy(self.__dict__)``, HF's to_dict()).
DICT_READERS = {"dict", "list", "tuple", "set", "frozenset", "sorted", "len", "repr", "str", "print", "deepcopy",
                "copy", "dumps", "pformat", "pprint", "OrderedDict"}
# Methods of a dict that read it without changing it or handing out a way to.
DICT_READING_METHODS = {"items", "keys", "values", "copy", "get"}


def _enclosing_function(node: ast.AST, parents: dict[int, ast.AST]) -> ast.AST | None:
    """The function, lambda or class body ``node`` runs in (comprehensions run in their function)."""
    scope = parents.get(id(node))
    while scope is not None and not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                                               | ast.ClassDef):
        scope = parents.get(id(scope))
    return scope


def _in_self_method(node: ast.AST, parents: dict[int, ast.AST], methods: Mapping[int, frozenset[str]]) -> bool:
    scope = _enclosing_function(node, parents)
    return scope is not None and id(scope) in methods


def _own_dict_read(node: ast.AST, parents: dict[int, ast.AST], methods: Mapping[int, frozenset[str]],
                   own_names: set[str]) -> bool:
    """Whether ``node`` (``vars(self)`` or ``self.__dict__``) reads the student's own object's attributes
    and only reads them: in a method where ``self`` is the file's own object (_self_methods), copied or
    read where it stands (``copy.deepcopy(vars(self))``, ``dict(self.__dict__)``, ``{**vars(self)}``,
    ``vars(self).items()``, ``self.__dict__["d_model"]``, ``"x" in vars(self)``) by a function the file
    does not define itself (``own_names``). Written to, it would put any object under any name of ``self``
    (``self.__dict__["t"] = torch``), where the review takes ``self.t...`` for the student's own."""
    return _in_self_method(node, parents, methods) and _dict_only_read(node, parents, own_names)


def _dict_only_read(node: ast.AST, parents: dict[int, ast.AST], own_names: set[str]) -> bool:
    """Whether the dict ``node`` gives is only read where it stands (copied by a function the file does not
    define, a reading method called, subscripted, unpacked with ``**`` or tested with ``in``)."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name | ast.Attribute):
        callee = _dotted(parent.func) or [""]
        return callee[-1] in DICT_READERS and not {callee[0], callee[-1]} & own_names
    if isinstance(parent, ast.Attribute) and parent.attr in DICT_READING_METHODS:
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and call.func is parent
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Dict):
        return any(k is None and v is node for k, v in zip(parent.keys, parent.values, strict=True))
    return isinstance(parent, ast.Compare) and node in parent.comparators \
        and all(isinstance(op, ast.In | ast.NotIn) for op in parent.ops)


def _function_locals_snapshot(call: ast.Call | None, parents: dict[int, ast.AST]) -> bool:
    """Whether ``call`` is ``locals()`` or ``vars()`` without arguments run in a function's body
    (``self.config = dict(locals())``, ``self.hparams = locals()``, ``save_hparams(locals())``: the config-saving
    habit; cost 17 points). In a function the dict is a snapshot of that function's own names, each bound where
    the review reads it, and writing to it changes no name (Python 3.11), so it is a dict like any other the file
    builds, whoever it is handed to; at module level or in a class body (or a default or decorator, which run
    there) it is the namespace itself (globals, ``__builtins__``), and stays a finding."""
    if call is None or call.args or call.keywords:
        return False
    child, scope = call, parents.get(id(call))
    while scope is not None and not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                                               | ast.ClassDef | ast.Module):
        child, scope = scope, parents.get(id(scope))
    in_body = isinstance(scope, ast.Lambda) and child is scope.body or (
        isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) and any(child is b for b in scope.body))
    return in_body


def _isinstance_of(test: ast.AST, name: str, classes: Set[str]) -> bool:
    """Whether ``test`` is ``isinstance(name, C)`` (or a tuple of such C) with every C a class of the file."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and not test.keywords and isinstance(test.args[0], ast.Name)
            and test.args[0].id == name):
        return False
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    return bool(kinds) and all(isinstance(k, ast.Name) and k.id in classes for k in kinds)


def _own_dict_equality(node: ast.Attribute, parents: dict[int, ast.AST], methods: Mapping[int, frozenset[str]],
                       classes: Set[str]) -> bool:
    """Whether ``node`` is one side of ``self.__dict__ == other.__dict__`` (HF's ``PretrainedConfig.__eq__``:
    ``return isinstance(other, PretrainedConfig) and self.__dict__ == other.__dict__``; cost 13 points) in a
    method where ``self`` is the file's own object, ``other`` a parameter of that method bound nowhere else
    in it and known to be an instance of the file's own plain class by an ``isinstance`` test before the
    comparison (the ``and`` before it, or an ``if not isinstance(other, C): return ...`` ahead of it). Both
    dicts then hold the student's own attributes, and ``==`` only answers a bool."""
    compare = parents.get(id(node))
    if not (isinstance(compare, ast.Compare) and len(compare.ops) == 1
            and isinstance(compare.ops[0], ast.Eq | ast.NotEq)):
        return False
    sides = [compare.left, *compare.comparators]
    if not all(isinstance(x, ast.Attribute) and x.attr == "__dict__" and isinstance(x.value, ast.Name)
               and isinstance(x.ctx, ast.Load) for x in sides):
        return False
    names = [x.value.id for x in sides]          # type: ignore[attr-defined]
    if "self" not in names:
        return False
    function = _enclosing_function(compare, parents)
    if not (isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) and id(function) in methods):
        return False
    others = {n for n in names if n != "self"}
    if len(others) > 1:
        return False
    if not others:
        return True
    other = others.pop()
    if other not in {a.arg for a in function.args.args[1:]} or any(
            (isinstance(n, ast.Name) and n.id == other and not isinstance(n.ctx, ast.Load))
            or (isinstance(n, ast.arg) and n.arg == other and n not in function.args.args)
            or (isinstance(n, ast.Global | ast.Nonlocal) and other in n.names) for n in ast.walk(function)):
        return False
    # the ``and`` the comparison is a later operand of
    child, up = compare, parents.get(id(compare))
    while up is not None and up is not function:
        if isinstance(up, ast.BoolOp) and isinstance(up.op, ast.And) and any(
                _isinstance_of(v, other, classes) for v in up.values[:up.values.index(child)]):
            return True
        child, up = up, parents.get(id(up))
    # an early return for anything else, at the top of the method's body, before the statement holding it
    for stmt in function.body:
        if any(n is compare for n in ast.walk(stmt)):
            return False
        if isinstance(stmt, ast.If) and not stmt.orelse and isinstance(stmt.test, ast.UnaryOp) \
                and isinstance(stmt.test.op, ast.Not) and _isinstance_of(stmt.test.operand, other, classes) \
                and stmt.body and isinstance(stmt.body[-1], ast.Return | ast.Raise):
            return True
    return False


def _own_dict_update(node: ast.Attribute, parents: dict[int, ast.AST], methods: Mapping[int, frozenset[str]],
                     own_names: Set[str]) -> bool:
    """Whether ``node`` is ``self.__dict__`` in a statement ``self.__dict__.update(...)`` (minGPT's ``CfgNode``:
    ``def __init__(self, **kwargs): self.__dict__.update(kwargs)``; cost 13 points) in a method where ``self`` is
    the file's own object: setattr on ``self`` by names the source does not spell, which ``setattr(self, k, v)``
    is too (it reaches nothing; every ``self.A`` is then a possible foreign holder, _foreign_holders)."""
    method = parents.get(id(node))
    call = parents.get(id(method))
    own_dict = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
        or isinstance(node, ast.Call) and not node.keywords and [getattr(a, "id", None) for a in node.args] == ["self"]
    if not (own_dict and isinstance(method, ast.Attribute)
            and method.attr == "update" and isinstance(call, ast.Call) and call.func is method
            and isinstance(parents.get(id(call)), ast.Expr) and _in_self_method(node, parents, methods)):
        return False
    # what the caller handed in, as minGPT writes it (``update(kwargs)``, ``update(d)``, ``update(**kwargs)``), or
    # names written out (``update(d_model=d, heads=h)``, ``update({"d_model": d})``): setattr on self by those
    # names, judged as ``self.d_model = d`` is (a name of torch as a value is "kept as an attribute", where the
    # caller checks the values); a name the review looks for stays flagged here
    function = _enclosing_function(node, parents)
    params = {a.arg for a in function.args.args[1:]} | ({function.args.kwarg.arg} if function.args.kwarg else set())

    def plain(name: object) -> bool:
        return isinstance(name, str) and name.isidentifier() and not name.startswith("__") and not _forbidden(name) \
            and name not in HIDING_ATTRS | ANYWHERE_HIDING_ATTRS | MATCH_HOOKS | SYS_HIDING_ATTRS

    if len(call.args) > 1 or any(k.arg is None and not (isinstance(k.value, ast.Name) and k.value.id in params)
                                 or k.arg is not None and not plain(k.arg) for k in call.keywords):
        return False
    if not call.args:
        return bool(call.keywords)
    given = call.args[0]
    if (snapshot := _locals_given(given)) is not None and _builtin_locals_call(snapshot, own_names):
        # ``self.__dict__.update(locals())`` (or ``vars(self).update``, or of a filtered ``{k: v for k, v in
        # locals().items() if ...}``): setattr on self by the method's own names, each judged as
        # ``self.d_model = d_model`` (the values: _dict_update_values). ``__class__`` (the cell super() makes)
        # in an instance's dict is shadowed by the type's data descriptor and reaches nothing
        written = _locals_at(snapshot, parents)
        return not call.keywords and written is not None and all(plain(n) or n == "__class__" for n in written[0])
    if isinstance(given, ast.Name) and given.id not in params:
        # ``d = {"t": torch}; self.__dict__.update(d)``: the dict written out once in the method, read only here
        given = _local_dict_display(given, parents) or given
    if isinstance(given, ast.Name) and given.id not in params:
        return _defaults_merged_with_params(given, parents, params, plain)
    return (isinstance(given, ast.Name) and given.id in params) or (
        isinstance(given, ast.Dict) and all(isinstance(k, ast.Constant) and plain(k.value) for k in given.keys)) or (
        _dict_call(given, parents) and all(plain(k.arg) for k in given.keywords))   # type: ignore[union-attr]


def _defaults_merged_with_params(given: ast.Name, parents: Mapping[int, ast.AST], params: Set[str],
                                 plain: Callable[[object], bool]) -> bool:
    """Whether the local ``given`` is ``defaults = {"heads": 2, ...}`` (plain names written out, bound once in the
    method's body) changed only by ``defaults.update(kwargs)`` statements of the method's parameters or of plain names
    written out: the names are then the caller's or written ones, as ``update(kwargs)`` itself (mend RB LOW; it was a
    bare ``.__dict__`` finding). The values: _dict_update_values."""
    function, uses, stores = _local_name_uses(given, parents)
    if function is None or len(stores) != 1 or not isinstance(assign := parents.get(id(stores[0])), ast.Assign) \
            or assign.targets != [stores[0]] or parents.get(id(assign)) is not function:
        return False

    def written(d: ast.AST) -> bool:
        return isinstance(d, ast.Dict) and all(isinstance(k, ast.Constant) and plain(k.value) for k in d.keys) \
            or _dict_call(d, parents) and all(plain(k.arg) for k in d.keywords)      # type: ignore[attr-defined]

    if not written(assign.value):
        return False
    for n in uses:
        up = parents.get(id(n))
        call = parents.get(id(up))
        if n is given or n is stores[0]:
            continue
        if not (isinstance(up, ast.Attribute) and up.value is n and up.attr == "update" and isinstance(call, ast.Call)
                and call.func is up and isinstance(parents.get(id(call)), ast.Expr) and not call.keywords
                and len(call.args) == 1 and (isinstance(a := call.args[0], ast.Name) and a.id in params
                                             or written(a))):
            return False
    return True


def _loop_dict_values(value: ast.AST, parents: Mapping[int, ast.AST]) -> list[ast.expr]:
    """The values a setattr loop's value can be, as far as the file writes them: ``v`` of ``for k, v in d.items()``
    (or ``.values()``, a comprehension's ``for``), ``d[k]`` of ``for k in d``, where ``d`` is a dict written out, a
    name's every written value (_written_dict_values: its display, ``d[k] = F``, ``d.update(...)``, in its function or
    at module level) or the file's own function's returned dicts; ``v`` of ``zip([...], [...])`` or a written list of
    pairs. ``setattr(self, k, v)`` in it is ``self.t = torch`` for each (round 46 and its mend; it was no finding)."""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        # ``for k in d: setattr(self, k, d[k])``: any value written into the dict
        return _written_dict_values(value.value, parents)
    if not isinstance(value, ast.Name):
        return []
    scope = parents.get(id(value))
    while scope is not None and not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                                               | ast.ClassDef | ast.Module):
        loops = [scope] if isinstance(scope, ast.For | ast.AsyncFor) else list(scope.generators) if isinstance(
            scope, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) else []
        for loop in loops:
            names = [n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)]
            if value.id in names:
                return _iterated_values(loop.iter, loop.target, value.id, parents)
        scope = parents.get(id(scope))
    return []


def _iterated_values(iterable: ast.AST, target: ast.AST, name: str, parents: Mapping[int, ast.AST]) -> list[ast.expr]:
    """What ``name`` (part of a loop's ``target``) may hold over ``iterable``, as the file writes it (see
    _loop_dict_values); nothing when that is unknown."""
    position = next((i for i, t in enumerate(target.elts) if isinstance(t, ast.Name) and t.id == name), None) \
        if isinstance(target, ast.Tuple) else None
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) \
            and iterable.func.attr in ("items", "values") and not iterable.args:
        return _dict_values(iterable.func.value, parents)
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "zip" \
            and position is not None and position < len(iterable.args) \
            and isinstance(column := iterable.args[position], ast.List | ast.Tuple):
        return list(column.elts)
    if isinstance(iterable, ast.List | ast.Tuple | ast.Set) and position is not None:
        return [e.elts[position] for e in iterable.elts if isinstance(e, ast.Tuple | ast.List)
                and position < len(e.elts)]
    return []


def _dict_values(given: ast.AST, parents: Mapping[int, ast.AST]) -> list[ast.expr]:
    """The values of the dict ``given``: written out, a name's written values, or what the file's own function it
    calls returns written out."""
    if isinstance(given, ast.Dict):
        return [v for v in given.values if v is not None]
    if _dict_call(given, parents):
        return [k.value for k in given.keywords]            # type: ignore[attr-defined]
    if isinstance(given, ast.Name):
        return _written_dict_values(given, parents)
    if isinstance(given, ast.Call) and isinstance(given.func, ast.Name):
        module: ast.AST | None = given
        while module is not None and not isinstance(module, ast.Module):
            module = parents.get(id(module))
        made = [f for f in getattr(module, "body", []) if isinstance(f, ast.FunctionDef) and f.name == given.func.id]
        return [v for f in made for r in ast.walk(f) if isinstance(r, ast.Return) and r.value is not None
                for v in _dict_values(r.value, parents)] if len(made) == 1 else []
    return []


def _written_dict_values(name: ast.Name, parents: Mapping[int, ast.AST]) -> list[ast.expr]:
    """Every value the file writes into the dict ``name`` names, in the function binding it (else the whole file):
    its displays and ``dict(...)``, ``d[k] = value``, ``d.update(...)``'s keywords and written dicts,
    ``d.setdefault(k, value)``."""
    function, uses, stores = _local_name_uses(name, parents)
    scope: ast.AST | None = function
    if function is None or not stores and not any(isinstance(u, ast.arg) for u in uses):
        scope = name
        while scope is not None and not isinstance(scope, ast.Module):
            scope = parents.get(id(scope))
    found: list[ast.expr] = []
    for n in ast.walk(scope) if scope is not None else ():
        if not (isinstance(n, ast.Name) and n.id == name.id):
            continue
        up = parents.get(id(n))
        if isinstance(n.ctx, ast.Store) and isinstance(up, ast.Assign | ast.AnnAssign) and up.value is not None \
                and isinstance(up.value, ast.Dict | ast.Call):
            found += _dict_values(up.value, parents) if not isinstance(up.value, ast.Call) \
                or _dict_call(up.value, parents) else []
        elif isinstance(up, ast.Subscript) and up.value is n and isinstance(up.ctx, ast.Store) \
                and isinstance(assign := parents.get(id(up)), ast.Assign):
            found.append(assign.value)
        elif isinstance(up, ast.Attribute) and up.value is n and isinstance(call := parents.get(id(up)), ast.Call) \
                and call.func is up:
            if up.attr == "update":
                found += [k.value for k in call.keywords] + [v for a in call.args for v in (
                    _dict_values(a, parents) if not isinstance(a, ast.Name) or a.id != name.id else [])]
            elif up.attr == "setdefault" and len(call.args) == 2:
                found.append(call.args[1])
    return found


NAMESPACE_MAKERS = (["argparse", "Namespace"], ["types", "SimpleNamespace"], ["Namespace"], ["SimpleNamespace"])


def _namespace_vars(call: ast.Call, parents: Mapping[int, ast.AST], own_names: Set[str],
                    aliases: Set[str] = frozenset()) -> bool:
    """Whether ``call`` is ``vars(args)`` of a namespace the function itself made: ``args`` bound once in it, to
    ``argparse.Namespace(...)`` or ``types.SimpleNamespace(...)`` (argparse-style configs: ``self.cfg =
    vars(args)``; cost 17 points in round 46). Its dict is that fresh object's own, holding what the file wrote
    into it, as a dict display would: reading or writing it reaches nothing of torch's or the grader's."""
    if len(call.args) != 1 or call.keywords or not isinstance(name := call.args[0], ast.Name):
        return False
    function = _enclosing_function(call, parents)
    up = parents.get(id(call))
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) or _bare_alias_in(function, frozenset(aliases)) \
            or isinstance(up, ast.Attribute) and up.attr not in DICT_READING_METHODS \
            or isinstance(up, ast.Subscript) and not isinstance(up.ctx, ast.Load):
        # torch taken as a value anywhere in the function (``Namespace(t=torch)``, ``vars(args).update(t=torch)``,
        # ``SimpleNamespace(**{'t': torch})``: mend RB MED 4), or the dict changed through vars() itself
        return False
    bindings = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name.id
                and not isinstance(n.ctx, ast.Load) or isinstance(n, ast.arg) and n.arg == name.id
                or isinstance(n, ast.Global | ast.Nonlocal) and name.id in n.names]
    if len(bindings) != 1 or not isinstance(bindings[0], ast.Name):
        return False
    assign = parents.get(id(bindings[0]))
    made = assign.value if isinstance(assign, ast.Assign) and assign.targets == [bindings[0]] else None
    if not (isinstance(made, ast.Call) and (chain := _dotted(made.func) or []) in NAMESPACE_MAKERS
            and _enclosing_function(assign, parents) is function):
        return False
    # the maker's root bound by its import alone (``Namespace = lambda: torch`` would hand vars() torch)
    module: ast.AST | None = call
    while module is not None and not isinstance(module, ast.Module):
        module = parents.get(id(module))
    return _bound_only_by_import(module, parents, chain[0], ("argparse", "types"))   # type: ignore[arg-type]
# What argparse's parser-building calls may be given for ``vars(parser.parse_args([]))`` to be read as a dict of
# written-out defaults: the values of their arguments are constants, the builtin converters or argparse's own action
PARSER_BUILDING = frozenset({"add_argument", "set_defaults", "add_argument_group", "add_mutually_exclusive_group"})
PLAIN_CONVERTERS = frozenset({"int", "float", "str", "bool"})


def _parsed_defaults_vars(call: ast.Call, tree: ast.Module, parents: Mapping[int, ast.AST],
                          aliases: Set[str]) -> bool:
    """Whether ``call`` is ``vars(parser.parse_args([...]))`` (or of a name bound once to it) only read, where
    ``parser`` is bound once to ``argparse.ArgumentParser(...)`` (by name, or returned by the file's own function)
    and every argument the file gives a parser-building call is written out (constants, ``int``/``float``/``str``/
    ``bool``, ``argparse.BooleanOptionalAction``): the dict holds those defaults and nothing else (argparse-default
    configs; cost 17 points until round 47). It holds only if argparse is argparse's own: argparse and the parser
    are only called (_argparse_untouched), as a write (``argparse.ArgumentParser.parse_known_args = ...``) could
    make parse_args return torch's module. torch taken as a value in the scope keeps the finding, as for ``vars()``
    of a namespace the method made. The file-wide facts are read once per tree (_argparse_facts)."""
    up = parents.get(id(call))
    if len(call.args) != 1 or call.keywords or isinstance(up, ast.Attribute) and up.attr not in DICT_READING_METHODS \
            or isinstance(up, ast.Subscript) and not isinstance(up.ctx, ast.Load):
        return False
    facts = _argparse_facts(tree)
    if not facts.untouched:
        return False
    bound = _module_binding_counts(tree)

    def is_parser(node: ast.expr | None) -> bool:
        if isinstance(node, ast.Name):
            if not _once_per_name(_only_built_on, node.id, facts, parents):
                return False
            node = facts.single.get(node.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args and not node.keywords \
                and bound.get(node.func.id) == 1:
            builder = facts.defs.get(node.func.id)
            returns = [r for r in ast.walk(builder) if isinstance(r, ast.Return)] if builder is not None else []
            return bool(returns) and _once_per_name(_builder_only_parsed, node.func.id, facts, parents) \
                and all(is_parser(r.value) for r in returns)
        return isinstance(node, ast.Call) and _dotted(node.func) == ["argparse", "ArgumentParser"]

    argument = call.args[0]
    if isinstance(argument, ast.Name) and not _once_per_name(_only_read, argument.id, facts, parents):
        return False
    parsed = argument if isinstance(argument, ast.Call) else facts.single.get(getattr(argument, "id", ""))
    if not (isinstance(parsed, ast.Call) and isinstance(parsed.func, ast.Attribute) and parsed.func.attr == "parse_args"
            and not parsed.keywords and len(parsed.args) <= 1 and all(_plain_argument(a, bound) for a in parsed.args)
            and is_parser(parsed.func.value)):
        return False
    scope = _enclosing_function(call, parents)
    if scope is not None:
        return not (_bare_alias_in(scope, frozenset(aliases)) or _torch_module_value_in(scope, frozenset(aliases)))
    return not _torch_as_value_outside_imports(tree, frozenset(aliases))


class _ArgparseFacts(NamedTuple):
    untouched: bool                         # _argparse_untouched
    single: dict[str, ast.expr]             # the value of each name bound once, by a one-name assignment
    defs: dict[str, ast.FunctionDef]        # the module-level defs
    loads: dict[str, list[ast.Name]]        # every read of each name
    memo: dict[tuple[str, str], bool]       # _only_built_on, _builder_only_parsed, _only_read by name, once each


@functools.lru_cache(maxsize=4)
def _argparse_facts(tree: ast.Module) -> _ArgparseFacts:
    """What _parsed_defaults_vars asks of the whole file, once per tree (it was asked for each ``vars(...)`` call:
    1500 of them took 96 s of CPU, round 47 review M4)."""
    bound = _module_binding_counts(tree)
    values: dict[str, list[ast.expr]] = {}
    loads: dict[str, list[ast.Name]] = {}
    for node in _nodes(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values.setdefault(node.targets[0].id, []).append(node.value)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads.setdefault(node.id, []).append(node)
    single = {name: found[0] for name, found in values.items() if len(found) == 1 and bound.get(name) == 1}
    defs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    return _ArgparseFacts(_argparse_untouched(tree, loads.get("argparse", []), bound), single, defs, loads, {})


def _once_per_name(check: Callable[[str, Mapping[str, Sequence[ast.Name]], Mapping[int, ast.AST]], bool], name: str,
                   facts: _ArgparseFacts, parents: Mapping[int, ast.AST]) -> bool:
    """``check(name, ...)`` read once per tree and name: each walks every read of the name, and a parser read
    by 1500 ``vars(parser.parse_args([]))`` calls was walked 1500 times (4.9 of 10 s of CPU)."""
    key = (check.__name__, name)
    if key not in facts.memo:
        facts.memo[key] = check(name, facts.loads, parents)
    return facts.memo[key]


# argparse's formatters, the one kind of class the parser's constructor is commonly given (``formatter_class=``)
ARGPARSE_FORMATTERS = frozenset({"HelpFormatter", "RawDescriptionHelpFormatter", "RawTextHelpFormatter",
                                 "ArgumentDefaultsHelpFormatter", "MetavarTypeHelpFormatter"})


def _argparse_untouched(tree: ast.Module, argparse_reads: Sequence[ast.Name], bound: Mapping[str, int]) -> bool:
    """Whether argparse is the standard library's, only called: bound only by ``import argparse``; every read of
    it is ``argparse.X(...)`` or a written-out argument (``argparse.BooleanOptionalAction``, a formatter) of a
    parser-building call or of ``ArgumentParser(...)``/``add_parser(...)``, never a write, a further attribute
    (``argparse.ArgumentParser.parse_known_args = lambda ...: (F, [])``, round 47 review H2) or a value handed on;
    every argument of those calls is written out (no ``argument_default=torch.nn``, ``parents=[...]``, ``**kw``,
    review M1; no ``fromfile_prefix_chars``, which reads the files the arguments name); and no function of the
    file is named parse_args."""
    parents = _parents(tree)
    if not _bound_only_by_import(tree, parents, "argparse", ("argparse",)) \
            or any(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name == "parse_args"
                   or _other_argparse_import(f) for f in _nodes(tree)):
        return False
    for read in argparse_reads:
        attribute, call = parents.get(id(read)), None
        if isinstance(attribute, ast.Attribute) and isinstance(attribute.ctx, ast.Load):
            call = parents.get(id(attribute))
            if isinstance(call, ast.keyword):
                call = parents.get(id(call))
        if not (isinstance(call, ast.Call) and (call.func is attribute or _parser_call(call))):
            return False
    for node in _nodes(tree):
        if isinstance(node, ast.Call) and _parser_call(node) and not all(
                k.arg is not None and k.arg != "fromfile_prefix_chars" and (_plain_argument(k.value, bound)
                                                                           or k.arg == "formatter_class"
                                       and _dotted(k.value) in (["argparse", f] for f in ARGPARSE_FORMATTERS))
                for k in node.keywords) or isinstance(node, ast.Call) and _parser_call(node) \
                and not all(_plain_argument(a, bound) for a in node.args):
            return False
    return True


def _other_argparse_import(node: ast.AST) -> bool:
    """An import of argparse other than ``import argparse``: ``from argparse import ArgumentParser`` or ``import
    argparse as ap`` reach the same classes under a name the reads above do not follow (a write to
    ``ArgumentParser.parse_known_args`` through it would change every parser)."""
    return isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "argparse" and not node.level \
        or isinstance(node, ast.Import) and any(a.name.split(".")[0] == "argparse" and (a.asname or a.name != "argparse")
                                                for a in node.names)


def _parser_call(call: ast.Call) -> bool:
    """A call that builds a parser: ``argparse.ArgumentParser(...)``, ``<subparsers>.add_parser(...)`` or one of
    PARSER_BUILDING on any object."""
    return _dotted(call.func) == ["argparse", "ArgumentParser"] or isinstance(call.func, ast.Attribute) \
        and call.func.attr in PARSER_BUILDING | {"add_parser"}


def _only_built_on(name: str, loads: Mapping[str, Sequence[ast.Name]], parents: Mapping[int, ast.AST]) -> bool:
    """Whether every read of ``name`` (a parser) calls a parser-building method or parse_args on it, or returns it:
    no ``parser.parse_known_args = ...``, ``setattr(parser, ...)`` or parser handed to anything else."""
    for read in loads.get(name, []):
        method = parents.get(id(read))
        if isinstance(parents.get(id(read)), ast.Return):
            continue
        if not (isinstance(method, ast.Attribute) and method.attr in PARSER_BUILDING | {"parse_args"}
                and isinstance(call := parents.get(id(method)), ast.Call) and call.func is method):
            return False
    return True


def _builder_only_parsed(name: str, loads: Mapping[str, Sequence[ast.Name]], parents: Mapping[int, ast.AST]) -> bool:
    """Whether every read of the builder ``name`` is ``name()``, then parsed where it stands
    (``name().parse_args(...)``) or bound to a name only built on (_only_built_on)."""
    targets: set[str] = set()                                   # each checked once, however often it is bound
    for read in loads.get(name, []):
        call = parents.get(id(read))
        up = parents.get(id(call))
        if isinstance(call, ast.Call) and call.func is read and isinstance(up, ast.Assign) and len(up.targets) == 1 \
                and isinstance(up.targets[0], ast.Name):
            targets.add(up.targets[0].id)
        elif not (isinstance(call, ast.Call) and call.func is read and isinstance(up, ast.Attribute)
                  and up.attr == "parse_args" and isinstance(parsed := parents.get(id(up)), ast.Call)
                  and parsed.func is up):
            return False
    return all(_only_built_on(target, loads, parents) for target in targets)


def _only_read(name: str, loads: Mapping[str, Sequence[ast.Name]], parents: Mapping[int, ast.AST]) -> bool:
    """Whether every read of ``name`` (the parsed namespace) is ``vars(name)`` or a public attribute read off it
    (``args.d_model``): no ``args.__class__ = ...`` or namespace handed to the file's own function to change."""
    for read in loads.get(name, []):
        up = parents.get(id(read))
        if not (isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id == "vars"
                and up.args == [read] or isinstance(up, ast.Attribute) and isinstance(up.ctx, ast.Load)
                and not up.attr.startswith("_")):
            return False
    return True


# dtypes are what a file commonly hands on off torch as a value (``M(dtype=torch.float32)``); modules are not
TORCH_VALUE_DTYPES = frozenset({"float32", "float16", "float64", "bfloat16", "float", "half", "double", "int64",
                                "int32", "int16", "int8", "uint8", "long", "int", "bool", "complex64"})


@functools.lru_cache(maxsize=8)
def _torch_as_value_outside_imports(tree: ast.Module, aliases: frozenset[str]) -> bool:
    """Whether the file reads torch or one of its modules as a value anywhere (``M(torch)``, ``M(torch.nn)``,
    ``def f(m=torch.nn.functional)``; _torch_module_value_in); its module-level imports do not count. Once per
    tree: it was asked for each save_hyperparameters caller (700 callers took 26 s of CPU, round 47 review M4)."""
    return any(_bare_alias_in(n, aliases) for n in tree.body if not isinstance(n, ast.Import | ast.ImportFrom)) \
        or _torch_module_value_in(tree, aliases, _torch_function_reads(tree))


@functools.lru_cache(maxsize=16)
def _torch_module_value_in(scope: ast.AST, aliases: frozenset[str], functions: frozenset[int] = frozenset()) -> bool:
    """Whether ``scope`` reads one of torch's modules as a value off a name of torch (``M(torch.nn)``,
    ``t = nn.functional``), not as the root of a call or of an attribute read further (round 47 review M1: only
    a bare name was counted). Modules are named in lower case: a class (``nn.Module`` as a base,
    ``norm_layer=nn.LayerNorm``) or a dtype (``torch.float32``) is a plain value; a function (``act=F.gelu``) is
    one only when it is among ``functions`` (_torch_function_reads: resolved through the file's imports, as a
    module is not told from a function by its name)."""
    for node in ast.walk(scope):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Attribute) and isinstance(child.ctx, ast.Load) and _root(child) in aliases \
                    and _dotted(child) is not None and child.attr[:1].islower() \
                    and child.attr not in TORCH_VALUE_DTYPES and not isinstance(node, ast.Attribute) \
                    and not (isinstance(node, ast.Call) and child is node.func) and id(child) not in functions:
                return True
    return False


@functools.lru_cache(maxsize=16)
def _torch_function_reads(tree: ast.Module) -> frozenset[int]:
    """Ids of the attribute reads ``F.gelu`` / ``torch.nn.functional.relu`` / ``torch.tanh`` whose root is bound
    once in the file, by a module-level import of torch or one of its modules, and whose dotted path is a function
    in the grader's own torch (round 47 left ``act=F.gelu`` handed to a d2l ``save_hyperparameters`` class a
    finding: a function was not told from a module by its name). A function object leads nowhere but through its
    dunders (``__globals__``, ``__self__``, ``__closure__``), each a finding of its own; a module, an object or a
    name torch does not have stays counted, as does any private part (``torch._C.x``)."""
    modules = _torch_imports(tree)
    return frozenset(id(node) for node in _nodes(tree) if isinstance(node, ast.Attribute)
                     and (path := _dotted(node)) and path[0] in modules and _torch_function(modules[path[0]], path[1:]))


def _torch_function_names(tree: ast.Module) -> frozenset[str]:
    """The names a module-level ``from torch.nn.functional import gelu`` binds once to a function of torch (read
    as _torch_function_reads reads ``F.gelu``)."""
    return frozenset(name for name, path in _torch_imports(tree).items()
                     if "." in path and _torch_function(path.rsplit(".", 1)[0], [path.rsplit(".", 1)[1]]))


@functools.lru_cache(maxsize=16)
def _torch_imports(tree: ast.Module) -> dict[str, str]:
    """Each name every binding of which, in any scope, is an import of the same part of torch, with the dotted path
    it names (``F`` -> ``torch.nn.functional``, ``gelu`` -> ``torch.nn.functional.gelu``): wherever it is read it is
    that object or unbound. A second ``import torch`` under the main guard, ``import torch.nn`` beside ``import
    torch``, or ``import torch.nn.functional as F`` again inside a helper are the same binding (round 48 review M2:
    a name had to be bound exactly once, at module level)."""
    counts = _binding_counts(tree)
    paths: dict[str, set[str]] = {}
    imports: dict[str, int] = {}
    for stmt in _nodes(tree):
        bound: list[tuple[str, str]] = []
        if isinstance(stmt, ast.Import):
            bound = [(a.asname or "torch", a.name if a.asname else "torch") for a in stmt.names
                     if a.name.split(".")[0] == "torch"]
        elif isinstance(stmt, ast.ImportFrom) and not stmt.level and (stmt.module or "").split(".")[0] == "torch":
            bound = [(a.asname or a.name, f"{stmt.module}.{a.name}") for a in stmt.names if a.name != "*"]
        for name, path in bound:
            paths.setdefault(name, set()).add(path)
            imports[name] = imports.get(name, 0) + 1
    return {name: next(iter(p)) for name, p in paths.items() if len(p) == 1 and counts.get(name) == imports[name]}


# The modules of torch whose functions are resolved (_torch_function): the ones ``import torch`` itself loads, so the
# answer is the same whatever else the process imported (round 48 review M1: live ``sys.modules`` made
# ``M(act=torch.onnx.is_in_onnx_export)`` 17 points or none by import order). Checked in a fresh interpreter by
# tests/grading/test_review_mend_round48.py.
TORCH_FUNCTION_MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.linalg",
                          "torch.special", "torch.fft")


def _torch_function(module: str, parts: Sequence[str]) -> bool:
    """Whether ``module`` (a dotted path in torch) then ``parts``, each read off a module, is a function (Python's
    or a builtin) of torch's own (its ``__module__`` in torch) in one of TORCH_FUNCTION_MODULES of the grader's
    torch; a private part, any other module (``torch.xpu.cast`` is ctypes' cast, round 48 review H3) or anything
    torch does not have is not. Modules are read through their ``__dict__``: nothing is imported for a student's
    file."""
    import inspect

    import torch  # noqa: F401  (the grader's own: its modules are what is read)

    if any(part.startswith("_") for part in [*module.split("."), *parts]) or module not in TORCH_FUNCTION_MODULES:
        return False
    value: object = sys.modules.get(module)
    for part in parts:
        if not inspect.ismodule(value) or value.__name__ not in TORCH_FUNCTION_MODULES or part not in vars(value):
            return False
        value = vars(value)[part]
    return (inspect.isfunction(value) or inspect.isbuiltin(value)) \
        and str(getattr(value, "__module__", None)).split(".")[0] == "torch"


def _plain_argument(node: ast.expr, bound: Mapping[str, int]) -> bool:
    """A written-out argument of a parser-building call: constants (in tuples and lists, signed), a builtin
    converter the file never rebinds, or ``argparse.BooleanOptionalAction``."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _plain_argument(node.operand, bound)
    if isinstance(node, ast.Tuple | ast.List):
        return all(_plain_argument(e, bound) for e in node.elts)
    if isinstance(node, ast.Name):
        return node.id in PLAIN_CONVERTERS and node.id not in bound
    return _dotted(node) == ["argparse", "BooleanOptionalAction"]


def _bound_only_by_import(module: ast.Module, parents: Mapping[int, ast.AST], name: str,
                          sources: Sequence[str]) -> bool:
    """Whether the file binds ``name`` and only ever by ``import <name>`` of one of ``sources`` or by ``from <source>
    import <name>`` (no ``as``): anything else binding it (a def, an assignment, a parameter) could hand over
    torch where the standard library's object is assumed."""
    bindings = [n for n in ast.walk(module) if isinstance(n, ast.Name) and n.id == name
                and not isinstance(n.ctx, ast.Load) or isinstance(n, ast.arg) and n.arg == name
                or isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.name == name
                or isinstance(n, ast.Global | ast.Nonlocal) and name in n.names
                or isinstance(n, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and n.name == name
                or isinstance(n, ast.alias) and (n.asname or n.name).split(".")[0] == name]
    return bool(bindings) and all(
        isinstance(n, ast.alias) and isinstance(imp := parents.get(id(n)), ast.Import | ast.ImportFrom)
        and not n.asname and (n.name in sources and isinstance(imp, ast.Import)
                              or isinstance(imp, ast.ImportFrom) and imp.module in sources and not imp.level
                              and n.name == name) for n in bindings)


def _local_name_uses(name: ast.Name, parents: Mapping[int, ast.AST]
                     ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef | None, list[ast.AST], list[ast.Name]]:
    """The function ``name`` is read in, every mention of that name in it (names, parameters, ``global``), and the
    names among them that bind it by assignment; (None, [], []) outside a function."""
    function = _enclosing_function(name, parents)
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return None, [], []
    uses = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name.id
            or isinstance(n, ast.arg) and n.arg == name.id
            or isinstance(n, ast.Global | ast.Nonlocal) and name.id in n.names]
    return function, uses, [n for n in uses if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _dict_call(node: ast.AST, parents: Mapping[int, ast.AST]) -> bool:
    """Whether ``node`` is ``dict(name=value, ...)``: names written out, nothing else given, and ``dict`` the
    builtin (a file's own ``def dict(**kw)`` returns what it likes)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict"
            and not node.args and all(k.arg is not None for k in node.keywords)):
        return False
    module: ast.AST | None = node
    while module is not None and not isinstance(module, ast.Module):
        module = parents.get(id(module))
    return isinstance(module, ast.Module) and "dict" not in _bound_names(module)


@functools.lru_cache(maxsize=8)
def _bound_names(tree: ast.Module) -> frozenset[str]:
    """Every name the file binds anywhere (_binding_counts' keys)."""
    return frozenset(_binding_counts(tree))


def _local_dict_display(name: ast.Name, parents: Mapping[int, ast.AST]) -> ast.Dict | ast.Call | None:
    """The dict ``{"t": torch}`` (or ``dict(t=torch)``) that the local ``name`` was given where it is its function's
    only binding of that name, made before ``name`` is read here and read nowhere else in the function (no
    ``d["t"] = F`` or ``d.update(...)`` after it, no ``global``), else None: ``update(d)`` is then ``update({...})``
    with the same names and values (round 46; it was a bare ``.__dict__`` finding, cost 17 points)."""
    function, uses, stores = _local_name_uses(name, parents)
    if function is None:
        return None
    if len(uses) != 2 or len(stores) != 1 or name not in uses or _enclosing_function(stores[0], parents) is not function:
        return None
    assign = parents.get(id(stores[0]))
    if not (isinstance(assign, ast.Assign | ast.AnnAssign) and parents.get(id(assign)) is function
            and (assign.targets if isinstance(assign, ast.Assign) else [assign.target]) == [stores[0]]
            and (assign.lineno, assign.col_offset) < (name.lineno, name.col_offset)):
        return None
    value = assign.value
    return value if isinstance(value, ast.Dict) or (value is not None and _dict_call(value, parents)) else None


def _locals_given(given: ast.AST) -> ast.AST | None:
    """The ``locals()`` call of ``locals()`` or of its filtered copy ``{k: v for k, v in locals().items() if ...}``
    (a subset of the same names and values), else None."""
    if isinstance(given, ast.DictComp) and len(given.generators) == 1 and not given.generators[0].is_async:
        gen = given.generators[0]
        if isinstance(gen.target, ast.Tuple) and [getattr(e, "id", None) for e in gen.target.elts] == [
                getattr(given.key, "id", 0), getattr(given.value, "id", 0)] and isinstance(gen.iter, ast.Call) \
                and not gen.iter.args and not gen.iter.keywords and isinstance(gen.iter.func, ast.Attribute) \
                and gen.iter.func.attr == "items":
            given = gen.iter.func.value
    return given if isinstance(given, ast.Call) and isinstance(given.func, ast.Name) else None


def _builtin_locals_call(node: ast.AST, own_names: Set[str]) -> bool:
    """Whether ``node`` is ``locals()`` of the builtin (no name ``locals`` of the file's own)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "locals" \
        and not node.args and not node.keywords and "locals" not in own_names


@functools.lru_cache(maxsize=16)
def _function_binding_events(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[
        set[str], list[ast.expr], list[tuple[tuple[int, int], set[str] | None, list[ast.expr]]]]:
    """A function's parameters, their defaults, and each other binding in it as (where it starts, the names it
    binds or None when it binds one another way than ``name = value`` (a loop, ``with ... as``, an import,
    ``global``...), the values written): read once per function (a method with 300 ``update(locals())`` calls
    took 13 s when walked per call)."""
    a = function.args
    names = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, [a.vararg, a.kwarg])]}
    defaults: list[ast.expr] = [*a.defaults, *filter(None, a.kw_defaults)]
    events: list[tuple[tuple[int, int], set[str] | None, list[ast.expr]]] = []
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        # a loop's or with's names are bound after its iterable or context runs: where its body starts
        at = node.body[0] if isinstance(node, ast.For | ast.AsyncFor | ast.With | ast.AsyncWith) else node
        where = (getattr(at, "lineno", 0), getattr(at, "col_offset", 0))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            events.append((where, {node.name}, []))   # the file's own code under its own name
            todo.extend([*node.decorator_list, *getattr(node, "bases", [])])
            continue
        if isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            continue                        # their names are their own (Python 3.11)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not all(isinstance(t, ast.Name | ast.Attribute | ast.Subscript) for t in targets):
                events.append((where, None, []))    # ``a, b = torch, 1``: which value each name gets is not written
            elif any(isinstance(t, ast.Name) for t in targets) and node.value is not None:  # ``x: int`` binds nothing
                events.append((where, {t.id for t in targets if isinstance(t, ast.Name)}, [node.value]))
        elif isinstance(node, ast.For | ast.AsyncFor | ast.With | ast.AsyncWith | ast.Import | ast.ImportFrom
                        | ast.ExceptHandler | ast.NamedExpr | ast.Global | ast.Nonlocal | ast.Delete
                        | ast.MatchAs | ast.MatchStar | ast.MatchMapping | ast.Try):
            if _binds_a_name(node):
                events.append((where, None, []))
        todo.extend(ast.iter_child_nodes(node))
    return names, defaults, events


def _locals_at(call: ast.AST, parents: Mapping[int, ast.AST]) -> tuple[set[str], list[ast.expr]] | None:
    """The names ``locals()`` at ``call`` holds and the values they were given (parameter defaults,
    ``name = value``) when all are written out, else None. Only bindings before the call count (one made after it
    is not in the snapshot yet) unless the call is in a loop; a function inside another function also holds the
    free names it reads of the enclosing one (``t = torch`` in ``make()``, then ``t`` read in ``__init__``), so
    there it is None."""
    function, in_loop, child, scope = None, False, call, parents.get(id(call))
    while scope is not None:
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            if function is not None:
                return None                 # free names of an enclosing function
            function = scope
        elif function is None and (isinstance(scope, ast.While) or isinstance(scope, ast.For | ast.AsyncFor)
                                   and child is not scope.iter):   # the iterable runs once, before the target
            in_loop = True
        child, scope = scope, parents.get(id(scope))
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    params, defaults, events = _function_binding_events(function)
    names, values = set(params), list(defaults)
    start = (getattr(call, "lineno", 0), getattr(call, "col_offset", 0))
    for where, bound, given in events:
        if in_loop or where < start:
            if bound is None:
                return None
            names |= bound
            values += given
    return names, values


@functools.lru_cache(maxsize=16)
def _bare_alias_in(function: ast.AST | None, aliases: frozenset[str]) -> bool:
    """Whether ``function`` reads a name of torch as a value anywhere (``d['t'] = torch``, ``d.update(t=torch)``,
    ``import torch as t``), not only as the root of an attribute read (``torch.softmax``)."""
    if function is None:
        return True
    for node in ast.walk(function):
        if isinstance(node, ast.Import | ast.ImportFrom):
            return True
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Name) and child.id in aliases and not (
                    isinstance(node, ast.Attribute) or isinstance(node, ast.Call) and child is node.func):
                return True
    return False


def _binds_a_name(node: ast.AST) -> bool:
    """Whether a statement or pattern of _function_binding_events' other kinds binds a name of the function."""
    if isinstance(node, ast.Try):
        return False                        # its handlers are walked on their own
    if isinstance(node, ast.Delete):
        return any(isinstance(t, ast.Name) for t in node.targets)
    if isinstance(node, ast.For | ast.AsyncFor):
        return any(isinstance(n, ast.Name) for n in ast.walk(node.target))
    if isinstance(node, ast.With | ast.AsyncWith):
        return any(i.optional_vars is not None and any(isinstance(n, ast.Name) for n in ast.walk(i.optional_vars))
                   for i in node.items)
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        return node.name is not None
    if isinstance(node, ast.MatchMapping):
        return node.rest is not None
    return True


def _dict_update_values(node: ast.Attribute, parents: Mapping[int, ast.AST]) -> list[ast.expr]:
    """The values ``self.__dict__.update(...)`` (_own_dict_update) writes under names the source spells, or
    the method's own values for ``update(locals())``."""
    call = parents[id(parents[id(node)])]
    assert isinstance(call, ast.Call)
    if call.args and (snapshot := _locals_given(call.args[0])) is not None \
            and getattr(snapshot.func, "id", None) == "locals" and (written := _locals_at(snapshot, parents)) is not None:
        return written[1]
    given = [(_local_dict_display(a, parents) or a) if isinstance(a, ast.Name) else a for a in call.args]
    merged = [v for a in given if isinstance(a, ast.Name) for v in _written_dict_values(a, parents)]
    return merged + [k.value for k in call.keywords if k.arg is not None] + [
        v for a in given if isinstance(a, ast.Dict) for v in a.values] + [
        k.value for a in given if isinstance(a, ast.Call) and _dict_call(a, parents) for k in a.keywords]


def _fresh_own_dict_write(node: ast.Attribute, parents: dict[int, ast.AST], classes: Set[str]) -> bool:
    """Whether ``node`` is ``config.__dict__`` in ``config.__dict__[key] = value`` (DeepSpeed's
    ``DeepSpeedTransformerConfig.from_dict``; cost 13 points) where ``config`` is bound once in its function,
    to a new object of the file's own class (``config = DeepSpeedTransformerConfig()``, or ``cls()`` in a
    classmethod of such a class), and nowhere else: a setattr with a computed name on an object the file just
    made, which setattr on ``self`` is too (it reaches nothing). Written anywhere else (``self.__dict__``, a
    parameter's, torch's), it may put any object under any name of something the review trusts."""
    target = parents.get(id(node))
    if not (isinstance(target, ast.Subscript) and target.value is node and isinstance(target.ctx, ast.Store)
            and isinstance(node.value, ast.Name) and isinstance(parents.get(id(target)), ast.Assign)):
        return False
    name = node.value.id
    function = _enclosing_function(node, parents)
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    owner = parents.get(id(function))
    made = {c.name for c in classes}
    if isinstance(owner, ast.ClassDef) and owner.name in made and any(
            (_dotted(d) or [""]) == ["classmethod"] for d in function.decorator_list) \
            and function.args.args and function.args.args[0].arg == "cls":
        made.add("cls")
    bindings = [n for n in ast.walk(function) if (isinstance(n, ast.Name) and n.id == name
                                                  and not isinstance(n.ctx, ast.Load))
                or (isinstance(n, ast.arg) and n.arg == name)
                or (isinstance(n, ast.Global | ast.Nonlocal) and name in n.names)]
    if len(bindings) != 1 or not isinstance(bindings[0], ast.Name):
        return False
    assign = parents.get(id(bindings[0]))
    return isinstance(assign, ast.Assign) and assign.targets == [bindings[0]] and isinstance(assign.value, ast.Call) \
        and isinstance(assign.value.func, ast.Name) and assign.value.func.id in made


def _numbered_self_read(call: ast.Call, parents: dict[int, ast.AST], methods: Mapping[int, frozenset[str]]) -> bool:
    """Whether ``call`` is ``getattr(self, f"head_{i}")`` (NUMBERED_NAME: known text around a loop counter's
    digits) in a method where ``self`` is the file's own object of a class none of whose PyTorch bases has
    an attribute name with a digit: no attribute of PyTorch's, nor of ``object``, can be read so, only the
    student's own (``self.add_module(f"head_{i}", ...)``)."""
    if not (getattr(call, NUMBERED_NAME, False) and isinstance(call.args[0], ast.Name) and call.args[0].id == "self"):
        return False
    scope = _enclosing_function(call, parents)
    return scope is not None and id(scope) in methods and not methods[id(scope)] & DIGIT_NAMED_BASES


def _on_self(call: ast.Call) -> bool:
    return bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == "self"


def _called_on_self(node: ast.Attribute, call: ast.Call | None) -> bool:
    """Whether ``X.__init__`` (a FOREIGN_SELF_DUNDERS method) is called with ``self``/``cls`` as its self, or
    with nothing that could be another self (no positional argument, no ``**``, no ``self=``)."""
    if call is None or call.func is not node:
        return False
    if call.args:
        first = call.args[0]
        return isinstance(first, ast.Name) and first.id in ("self", "cls")
    return not any(k.arg is None or k.arg in ("self", "cls") for k in call.keywords)


class Finding(str):
    """One place ``hidden_name_uses`` reports, as its English text (``line 3: getattr with a computed name``: what
    the tests and the run log read) carrying its parts, so a reader's language is built from ``kind`` (a
    FINDING_EN key) and ``subject`` (code, shown as it is) rather than from the English."""

    line: int
    kind: str
    subject: str


# kind -> the English text of a Finding. The instructor pages translate each kind (app/review_text.py).
FINDING_EN: dict[str, str] = {
    "code": "line {line}: {subject}",
    "computed_name": "line {line}: {subject} with a computed name",
    "used_as_value": "line {line}: {subject} used as a value",
    "imports": "line {line}: imports {subject}",
    "sets": "line {line}: sets {subject}",
    "defines": "line {line}: defines {subject}",
    "kept_attribute": "line {line}: {subject} kept as an attribute",
    # (the kinds below were English alone on zh pages until round 40; their texts are the log's as they were)
    "argparse_action": "line {line}: an argparse action kept or built ({subject})",
    "super_elsewhere": "line {line}: {subject} bound to something other than self",
    "another_self_or_value": "line {line}: {subject} called with another self or used as a value",
    "widens_isinstance": "line {line}: {subject}(...) makes isinstance true for other classes",
    "module_private": "line {line}: {subject} (a module's private name)",
    "foreign_private": "line {line}: {subject} (a private name of something not your own)",
    "match_reads": "line {line}: a match pattern reading {subject}",
    "match_by_position": "line {line}: a match pattern reading attributes by position",
    "computed_base": "line {line}: class {subject} with a base computed at run time",
    # subject ``Cls(base)``: the class and the PyTorch class it derives from, both code, read apart by the pages
    "foreign_base": "line {line}: class {name} derives from {base}, whose methods the review cannot follow",
    "class_attribute": "line {line}: a class attribute named {subject}",
    "string": "line {line}: the string {subject}",
    "self_outside_class": "line {line}: a function outside a class taking self",
    "called_with_another_self": "line {line}: {subject}(...) called with another self",
    "used_without_self": "line {line}: {subject} used without self",
    "taken_off_object": "line {line}: {subject} reached off its object, and it reads PyTorch's attention names "
                        "through self",
}


def _finding(line: int, kind: str, subject: str) -> Finding:
    found = Finding(FINDING_EN[kind].format(line=line, subject=subject, **class_and_base(subject)))
    found.line, found.kind, found.subject = line, kind, subject
    return found


def finding_parts(found: str) -> dict[str, str]:
    """A finding as stored in its review reason (``findings``): ``{line, kind, subject}``; one not (yet) built
    as a Finding is kind ``text`` with its whole English text as subject."""
    if isinstance(found, Finding):
        return {"line": str(found.line), "kind": found.kind, "subject": found.subject}
    return {"line": "", "kind": "text", "subject": str(found)}


def _name_func_use(node: ast.Name, call: ast.Call | None) -> tuple[str, str] | None:
    """(kind, subject) of a ``Finding``: why a use of ``getattr``/``hasattr``/``setattr``/``delattr`` hides a name, or None.
    Setting an attribute reaches nothing, so ``setattr``/``delattr`` count only with a computed
    name on something other than ``self``. Reading counts with a computed name on anything (even
    on ``self``: a method can be called with any object as ``self``), and with a private constant
    name on anything but ``self`` (``getattr(torch, '_C')``)."""
    if call is None or call.func is not node or len(call.args) < 2:
        return "used_as_value", node.id
    name = call.args[1]
    computed = not (isinstance(name, ast.Constant) and isinstance(name.value, str))
    if node.id in ("setattr", "delattr"):
        return ("computed_name", node.id) if computed and not _on_self(call) else None
    if computed and getattr(call, RESOLVED_NAMES, None) is not None:
        return None               # read as the attributes it may name (a getattr), or only tested (hasattr)
    if computed:
        return "computed_name", node.id
    if name.value.startswith("_") and not _on_self(call):
        return "code", f"{node.id}(..., {name.value!r})"
    return None


def _binds_dunder_name(tree: ast.Module) -> bool:
    """Whether the source binds ``__name__`` anywhere (then a main guard may run at import). A string
    holding it counts (``setattr(m, "__name__", ...)``) unless it is a statement of its own: a
    docstring that says "run it with ``if __name__ == '__main__'``" binds nothing (it lost 3 to 13
    points by putting the main guard's parity check under review)."""
    statements = {id(n.value) for n in _nodes(tree) if isinstance(n, ast.Expr)}
    for node in _nodes(tree):
        names: list[str | None] = []
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names = [node.id]
        elif isinstance(node, ast.alias):
            names = [node.asname or node.name]
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names = list(node.names)
        elif isinstance(node, ast.MatchAs | ast.MatchStar):
            names = [node.name]
        elif isinstance(node, ast.MatchMapping):
            names = [node.rest]
        elif isinstance(node, ast.ExceptHandler):
            names = [node.name]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        if "__name__" in names:
            return True
        # ``import attention; attention.__name__ = "__main__"``, ``setattr(m, "__name__", ...)``
        if isinstance(node, ast.Attribute) and node.attr == "__name__" and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "__name__" in node.value \
                and id(node) not in statements:
            return True
    return False


def _type_checking_blocks(tree: ast.Module) -> list[ast.If]:
    """The ``if TYPE_CHECKING:`` blocks (typing's or typing_extensions' flag, imported by name or read off the
    module), whose body runs only under a type checker: HF ports import ``PretrainedConfig`` from transformers
    there (cost 13 points: an import the review cannot follow). None when the file stores to the flag in any
    way the source shows (``typing.TYPE_CHECKING = True``, a name rebound); the ways it does not show (a
    computed setattr, ``vars(typing)``) are flagged on their own."""
    flags: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("typing", "typing_extensions"):
            flags.update(a.asname or a.name for a in node.names if a.name == "TYPE_CHECKING")
        elif isinstance(node, ast.Import):
            modules.update(a.asname or a.name for a in node.names if a.name in ("typing", "typing_extensions"))
    counts = _binding_counts(tree)
    if not (flags or modules) or any(counts.get(name, 0) != 1 for name in flags | modules) or any(
            isinstance(n, ast.Attribute) and n.attr == "TYPE_CHECKING" and not isinstance(n.ctx, ast.Load)
            for n in ast.walk(tree)):
        return []
    return [n for n in ast.walk(tree) if isinstance(n, ast.If) and (
        isinstance(n.test, ast.Name) and n.test.id in flags
        or isinstance(n.test, ast.Attribute) and n.test.attr == "TYPE_CHECKING"
        and isinstance(n.test.value, ast.Name) and n.test.value.id in modules)]


def _false_flag_blocks(tree: ast.Module) -> list[ast.If]:
    """The ``if DEBUG:`` blocks of a module-level flag set to False (or None, 0) once and bound nowhere else:
    ``breakpoint()`` there cost 17 points though it never runs (review RB round 44, LOW 5). Any other binding
    the source shows (``global DEBUG``, a parameter, ``del``) keeps the blocks reviewed; the ways it does not
    show (globals(), sys.modules) are flagged on their own."""
    counts = _binding_counts(tree)
    flags = {t.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign)
             for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
             if isinstance(t, ast.Name) and isinstance(node.value, ast.Constant) and node.value.value in (False, None)
             and not isinstance(node.value.value, float) and counts.get(t.id) == 1}
    return [n for n in _nodes(tree) if isinstance(n, ast.If) and isinstance(n.test, ast.Name) and n.test.id in flags] \
        if flags else []


@functools.lru_cache(maxsize=8)
def _never_run(source: str, uncalled_functions: bool | str = True) -> frozenset[int]:
    """Ids of the nodes that never run when the grader imports the file: the body of a top-level
    ``if __name__ == "__main__":`` (unless the source binds ``__name__``), and the bodies of
    module-level functions nothing else names (a parity check against F.scaled_dot_product_attention
    that the handout asks for, kept in an uncalled ``def check_parity():``). A function counts as
    named by a load of its name, an attribute or match keyword of that name, or a string equal to
    it (``getattr(module, "check_parity")``), anywhere outside these regions; every other way to
    reach it (globals(), __dict__, sys.modules, frames) is flagged on its own. The names-hidden review
    skips the main guard and the functions only it names (``uncalled_functions="guard"``: a self-check
    helper using ``torch.testing`` cost 13 points); what a function nothing names hides is flagged,
    as it is no demo and may be meant for a way in the source does not show."""
    tree = parse(source)
    if tree is None:
        return frozenset()
    guards = [] if _binds_dunder_name(tree) else [n for n in tree.body if isinstance(n, ast.If)
                                                   and is_main_guard(n.test)]
    guards += _type_checking_blocks(tree) + _false_flag_blocks(tree)
    guarded = {id(sub) for g in guards for stmt in g.body for sub in ast.walk(stmt)}
    # a dunder (module ``__getattr__``, ``__dir__``) is called by Python itself, by no name in the source
    # ...and the contract's names are looked up by the grader (``def MultiHeadAttention(...)``, a factory)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                 and not n.decorator_list and not (n.name.startswith("__") and n.name.endswith("__"))
                 and n.name not in CONTRACT_NAMES} if uncalled_functions else {}
    body_ids = {name: {id(sub) for stmt in fn.body for sub in ast.walk(stmt)} for name, fn in functions.items()}

    def named_in(nodes) -> set[str]:
        out: set[str] = set()
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                out.add(node.id)
            elif isinstance(node, ast.Attribute):
                out.add(node.attr)
            elif isinstance(node, ast.MatchClass):
                out.update(node.kwd_attrs)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.update(re.findall(r"[A-Za-z_]\w*", node.value))
        return out & set(functions)

    in_bodies = set().union(*body_ids.values()) if body_ids else set()
    reached = named_in(n for n in _nodes(tree) if id(n) not in guarded and id(n) not in in_bodies)
    todo = list(reached)
    while todo:
        name = todo.pop()
        for other in named_in(n for n in ast.walk(functions[name]) if id(n) in body_ids[name]) - reached:
            reached.add(other)
            todo.append(other)
    dead = set(functions) - reached
    if uncalled_functions == "guard":     # only what the guard names, and what those name in turn
        dead &= named_in(n for n in _nodes(tree) if id(n) in guarded)
        todo = list(dead)
        while todo:
            for other in named_in(n for n in ast.walk(functions[todo.pop()])) - reached - dead:
                dead.add(other)
                todo.append(other)
        # ...but not what a reviewed function (one nothing names) names: were it to run, so would they
        # (``def a(): return show(torch)`` with ``def show(self): return self._C`` the guard calls too; review RB
        # round 44, LOW 4)
        while back := dead & set().union(*(named_in(n for n in ast.walk(functions[f]) if id(n) in body_ids[f])
                                             for f in set(functions) - reached - dead)):
            dead -= back
    unreached = set().union(*(body_ids[n] for n in dead)) if functions else set()
    return frozenset(guarded | unreached)


def _own_signature(call: ast.AST, attr_node: ast.expr, tree: ast.Module, parents: Mapping[int, ast.AST],
                   skip: frozenset[int]) -> bool:
    """Whether ``call`` is ``inspect.signature(X)`` of one of the file's own callables, with no keyword (``eval_str``
    would evaluate string annotations): a config's ``from_dict`` keeping the keys its constructor takes
    (``k in inspect.signature(cls).parameters``, diffusers' ConfigMixin; cost 13 points). X is ``cls`` in a
    classmethod of a class of the file, ``self`` (``type(self)``, ``self.__class__``) in a method where self is
    the file's own object, or a class or function of the file bound once, optionally with ``.__init__``,
    ``.forward`` or a method of the file. The defaults and annotations it hands back are the file's own code."""
    if not (isinstance(call, ast.Call) and call.func is attr_node and len(call.args) == 1 and not call.keywords):
        return False
    bound = _binding_counts(tree)
    methods = {f.name for c in _nodes(tree) if isinstance(c, ast.ClassDef) for f in c.body
               if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}
    def own_type(t: ast.expr) -> ast.expr:
        """``type(self)`` / ``self.__class__`` as ``self``."""
        if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "type" and "type" not in bound \
                and len(t.args) == 1 and not t.keywords and isinstance(t.args[0], ast.Name) and t.args[0].id == "self":
            return t.args[0]
        if isinstance(t, ast.Attribute) and t.attr == "__class__" and isinstance(t.value, ast.Name) \
                and t.value.id == "self":
            return t.value
        return t

    target = own_type(call.args[0])
    if isinstance(target, ast.Attribute):
        if target.attr not in methods | {"__init__", "forward", "__call__"}:
            return False
        target = own_type(target.value)
    if not isinstance(target, ast.Name):
        return False
    classes = _instance_classes(tree)
    if target.id == "self":
        return _in_self_method(call, parents, _self_methods(tree, skip))
    if target.id == "cls":
        function = _enclosing_function(call, parents)
        owner = parents.get(id(function)) if function is not None else None
        return isinstance(function, ast.FunctionDef) and isinstance(owner, ast.ClassDef) and owner.name in classes \
            and [_dotted(d) for d in function.decorator_list] == [["classmethod"]] and function.args.args \
            and function.args.args[0].arg == "cls" and not any(
                (isinstance(n, ast.Name) and n.id == "cls" and not isinstance(n.ctx, ast.Load))
                or (isinstance(n, ast.arg) and n.arg == "cls" and n is not function.args.args[0])
                for n in ast.walk(function))
    return target.id in classes or (bound.get(target.id) == 1 and any(
        isinstance(f, ast.FunctionDef) and f.name == target.id for f in tree.body)) or (
        _decorated_function_parameter(target, tree, parents, bound))


def _decorated_function_parameter(target: ast.Name, tree: ast.Module, parents: Mapping[int, ast.AST],
                                  bound: Mapping[str, int]) -> bool:
    """Whether ``target`` is the only parameter of a module-level decorator of the file (bound once, its parameter's
    name bound nowhere else in the file) that the file uses only as ``@decorator`` on its own functions and methods: what it is
    given is one of them (``functools.wraps`` + ``inspect.signature(fn)`` in a logging or checking decorator; cost
    17 points until round 46)."""
    function = _enclosing_function(target, parents)
    chain = []                                                  # the functions from target's out to module level
    while isinstance(function, ast.FunctionDef):
        chain.append(function)
        if parents.get(id(function)) is tree:
            break
        function = _enclosing_function(function, parents)       # the decorator holding a nested wrapper
    if not (chain and parents.get(id(chain[-1])) is tree and bound.get(chain[-1].name) == 1
            and bound.get(target.id) == 1):
        return False
    function = chain[-1]
    if _only_parameter(function, target.id):
        return _used_only_as_decorator(function.name, tree, parents, bound, factory=False)
    # a decorator factory (``@logged("info")``): the module-level function only defines the decorator whose only
    # parameter is target and returns it as it is, so what the decorator is given is still the def below ``@``
    decorator = next((f for f in chain[:-1] if parents.get(id(f)) is function), None)
    returns = [r for r in ast.walk(function) if isinstance(r, ast.Return)
               and _enclosing_function(r, parents) is function]   # type: ignore[arg-type]
    return decorator is not None and _only_parameter(decorator, target.id) and bound.get(decorator.name) == 1 \
        and bool(returns) and all(isinstance(r.value, ast.Name) and r.value.id == decorator.name for r in returns) \
        and sum(isinstance(n, ast.Name) and n.id == decorator.name for n in ast.walk(function)) == len(returns) \
        and _used_only_as_decorator(function.name, tree, parents, bound, factory=True)


def _only_parameter(function: ast.FunctionDef, name: str) -> bool:
    """Whether ``function`` takes exactly one positional parameter, ``name``, and nothing else."""
    a = function.args
    return [p.arg for p in a.args] == [name] and not (a.kwonlyargs or a.vararg or a.kwarg or a.posonlyargs)


def _used_only_as_decorator(name: str, tree: ast.Module, parents: Mapping[int, ast.AST], bound: Mapping[str, int],
                            *, factory: bool) -> bool:
    """Whether every use of ``name`` is ``@name`` (``@name(...)`` for a factory) over one of the file's defs."""
    uses = [n for n in _nodes(tree) if isinstance(n, ast.Name) and n.id == name]
    if factory:
        calls = [parents.get(id(n)) for n in uses]
        # the factory given written-out values only (``@logged('info')``): its parameter is in the wrapper's
        # closure, where ``@logged(torch.nn)`` would hand torch on (round 47 review M3)
        if not all(isinstance(c, ast.Call) and c.func is n and all(_plain_argument(a, bound) for a in c.args)
                   and all(k.arg is not None and _plain_argument(k.value, bound) for k in c.keywords)
                   for c, n in zip(calls, uses, strict=True)):
            return False
        uses = calls                                            # type: ignore[assignment]
    # each ``@decorator`` with nothing below it that may hand it something else than the def (``@to_softmax``
    # returning F.softmax, ``@functools.partial(...)``): only the builtin staticmethod/classmethod, which keep it
    return bool(uses) and all(
        isinstance(d := parents.get(id(n)), ast.FunctionDef) and n in d.decorator_list
        and all(isinstance(b, ast.Name) and b.id in ("staticmethod", "classmethod") and b.id not in bound
                for b in d.decorator_list[d.decorator_list.index(n) + 1:]) for n in uses)


def _own_signature_import(alias: ast.alias, tree: ast.Module, skip: frozenset[int], checked: set[int]) -> bool:
    """``from inspect import signature`` (the from-import form of ``inspect.signature``) when the name it binds
    is bound nowhere else and every call of it is ``signature(X)`` of one of the file's own callables
    (_own_signature); any other use (kept, passed on, given a keyword such as ``eval_str=True``) stays flagged
    as the import of inspect. The ``Cls.__init__`` nodes read for their signature go to ``checked``."""
    name = alias.asname or alias.name
    if _binding_counts(tree).get(name) != 1:
        return False
    parents = _parents(tree)
    uses = [n for n in _nodes(tree) if isinstance(n, ast.Name) and n.id == name and id(n) not in skip]
    read: list[int] = []
    for use in uses:
        call = parents.get(id(use))
        if not _own_signature(call, use, tree, parents, skip):
            return False
        if isinstance(call.args[0], ast.Attribute):      # type: ignore[union-attr]
            read.append(id(call.args[0]))               # type: ignore[union-attr]
    checked.update(read)
    return bool(uses)


def _aliased_module(a: ast.alias) -> str:
    """The module an ``import`` names for _safe_stdlib: ``import os.path as osp`` and ``import torch.utils.data as
    Data`` the submodule, ``import torch.utils.data.sampler as S`` the package whose listed names its public
    submodules define (the same objects: DEFINED_IN_SUBMODULES; ``S.SubsetRandomSampler`` cost 13 points, round 34),
    any other the top-level package."""
    if a.asname and a.name in ("os.path", *ALIASED_TORCH_MODULES):
        return a.name
    package, _, sub = a.name.rpartition(".")
    if a.asname and package in DEFINED_IN_SUBMODULES and sub.isidentifier() and not sub.startswith("_"):
        return package
    return a.name.split(".")[0]


# Standard-library modules whose import alone does something beyond binding a name (prints, opens a browser).
_IMPORT_EFFECT_MODULES = frozenset({"this", "antigravity"})


def _unread_stdlib_imports(tree: ast.Module, never_run: frozenset[int]) -> set[int]:
    """Ids of the module-level imports of the standard library (and of their aliases) whose names no code that runs
    reads: ``import traceback`` or ``from timeit import timeit`` at the top of the file for the demo under ``if
    __name__ == "__main__":`` (round 44, B), an ``import pdb`` left over from debugging, an ``import timeit`` only an
    uncalled ``bench()`` reads (all cost 17 points pending review, with feedback that the file reaches names
    indirectly: review RB round 44, HIGH 1). ``never_run`` is _never_run's full set (the guard and the functions
    nothing names). Such an import binds a name nothing that runs reads, so it reaches nothing; every other way to
    the name (globals(), vars(), sys.modules, a frame, a star import, string annotations evaluated) is flagged on
    its own. Only plain top-level modules: a submodule (``idlelib.idle``, ``unittest.__main__``) or a private name
    may run a program when imported, and so do this and antigravity."""
    def plain(module: str) -> bool:
        # SAFE_MODULE_ATTRS's modules are followed attribute by attribute wherever they are read
        return module.isidentifier() and module in sys.stdlib_module_names and not module.startswith("_") \
            and module not in _IMPORT_EFFECT_MODULES and module not in SAFE_MODULE_ATTRS

    imports: list[tuple[ast.Import | ast.ImportFrom, list[ast.alias]]] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            # each module of ``import os, pickle`` on its own, as _safe_stdlib judges them
            imports.append((node, [a for a in node.names if plain(a.name)]))
        elif isinstance(node, ast.ImportFrom) and not node.level and plain(node.module or "") \
                and all(a.name != "*" and not a.name.startswith("_") for a in node.names):
            imports.append((node, list(node.names)))
    if not any(names for _, names in imports):
        return set()
    # any binding, deletion or global statement of the name where code runs counts as reading it
    read: set[str] = set()
    for node in _nodes(tree):
        if id(node) in never_run:
            continue
        if isinstance(node, ast.Name):
            read.add(node.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            read.update(node.names)
    ok: set[int] = set()
    for node, names in imports:
        unread = [a for a in names if (a.asname or a.name) not in read]
        if isinstance(node, ast.ImportFrom) and len(unread) < len(node.names):
            continue                                        # the statement is judged as one (its module)
        ok.update(id(a) for a in unread)
        if len(unread) == len(node.names):
            ok.add(id(node))
    return ok


def _safe_stdlib(tree: ast.Module, skip: frozenset[int], never_run: frozenset[int] = frozenset()
                 ) -> tuple[set[int], set[int], list[str]]:
    """(import nodes that only bring in SAFE_MODULE_ATTRS names, attribute nodes checked here, findings):
    every use of an alias of such a module must read one of its listed attributes. ``never_run``: see
    _unread_stdlib_imports."""
    aliases: dict[str, str] = {}          # local name -> "os" / "os.path" / ...
    ok_imports: set[int] = set()
    checked: set[int] = set()
    findings: list[str] = []
    ok_imports.update(_unread_stdlib_imports(tree, never_run | skip))
    for node in _nodes(tree):
        if id(node) in skip or id(node) in ok_imports:
            continue
        if isinstance(node, ast.Import):
            # ``import os.path as osp``, ``import torch.utils.data as Data``: the submodule under its own name
            keys = [_aliased_module(a) for a in node.names]
            # each module of the statement on its own (``import os, math, time``: os is followed attribute by
            # attribute, math is reviewable; the whole line was flagged as "imports os", 13 points)
            for k, a in zip(keys, node.names, strict=True):
                if k in SAFE_MODULE_ATTRS and (a.name in (k, "os.path") or k in DEFINED_IN_SUBMODULES):
                    ok_imports.add(id(a))
                    aliases[a.asname or a.name.split(".")[0]] = k
            if all(id(a) in ok_imports for a in node.names):
                ok_imports.add(id(node))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module in SAFE_MODULE_ATTRS:
            allowed = SAFE_MODULE_ATTRS[node.module]
            if all(a.name in allowed or (node.module == "inspect" and a.name == "signature"
                                         and _own_signature_import(a, tree, skip, checked)) for a in node.names):
                ok_imports.add(id(node))
                for a in node.names:
                    if node.module == "os" and a.name == "path":
                        aliases[a.asname or a.name] = "os.path"
    if not aliases:
        return ok_imports, checked, findings
    parents = _parents(tree)
    caught_traceback = _caught_traceback_arguments(tree, parents)
    frames = functools.cache(lambda: _callers_locals_frames(tree, parents) if "inspect" in aliases.values() else set())
    for node in _nodes(tree):
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in aliases) \
                or id(node) in skip:
            continue
        key, attr_node = aliases[node.id], parents.get(id(node))
        if not (isinstance(attr_node, ast.Attribute) and attr_node.value is node):
            findings.append(_finding(node.lineno, "used_as_value", node.id))
            continue
        # getfullargspec reads a signature as signature() does (eval_str left False): the habit of older code
        if key == "inspect" and attr_node.attr in ("signature", "getfullargspec") \
                and _own_signature(call := parents.get(id(attr_node)), attr_node, tree, parents, skip):
            if isinstance(call.args[0], ast.Attribute):      # type: ignore[union-attr]
                checked.add(id(call.args[0]))               # ``cls.__init__`` read for its signature only  # type: ignore[union-attr]
        elif attr_node.attr not in SAFE_MODULE_ATTRS[key] and id(attr_node) not in caught_traceback \
                and id(attr_node) not in frames():
            findings.append(_finding(node.lineno, "code", f"{node.id}.{attr_node.attr}"))
            continue
        elif key == "weakref" and attr_node.attr == "ref" and not _plain_weak_ref(attr_node, parents):
            # a callback runs code when the object goes (at exit too), as weakref.finalize does (review RB L1)
            findings.append(_finding(node.lineno, "code", f"{node.id}.ref"))
            continue
        checked.add(id(attr_node))
        if key == "os" and attr_node.attr == "path":
            inner = parents.get(id(attr_node))
            if not (isinstance(inner, ast.Attribute) and inner.value is attr_node
                    and inner.attr in SAFE_MODULE_ATTRS["os.path"]):
                findings.append(_finding(node.lineno, "used_as_value", f"{node.id}.path"))
            else:
                checked.add(id(inner))
    checked.update(frames() if "inspect" in aliases.values() else ())
    return ok_imports, checked, findings


def _callers_locals_frames(tree: ast.Module, parents: Mapping[int, ast.AST]) -> set[int]:
    """Ids of the attribute nodes of d2l's ``save_hyperparameters`` (``frame = inspect.currentframe().f_back``, then
    ``inspect.getargvalues(frame)`` or ``frame.f_locals``: the caller's arguments, set on ``self``; cost 17 points
    until round 46) where the caller's frame is known to be the file's own: a method of the file's classes whose
    name nothing else binds and nn.Module does not have (so neither PyTorch nor the grader calls it), called only as
    a statement ``self.save_hyperparameters(...)`` in the body of a method whose ``locals()`` there would be no
    finding (every name's value written out, none torch, and the method never takes torch as a value). What it
    reads is then that method's ``locals()``, a snapshot of values the review judged; the frame object itself is
    read for nothing else (no ``f_globals``, ``f_back`` of the caller, ``f_code``)."""
    counts = _binding_counts(tree)
    # a function of torch imported by name (``from torch.nn.functional import gelu``) handed on is no module
    aliases = frozenset(_module_aliases(tree, "torch", chosen=True)) - _torch_function_names(tree)
    if counts.get("inspect") != 1:
        return set()
    ok: set[int] = set()
    for method in _nodes(tree):
        if not (isinstance(method, ast.FunctionDef) and isinstance(owner := parents.get(id(method)), ast.ClassDef)
                and method.args.args and method.args.args[0].arg == "self" and counts.get(method.name) == 1
                and not method.decorator_list and not owner.decorator_list and not owner.keywords
                and not method.name.startswith("_") and method.name not in _implicitly_called_names()):
            # no decorator (one may wrap it, so that its caller's frame is the wrapper's) and a name neither
            # Python (``dict(obj)`` calls ``obj.keys()``) nor torch (nn.Linear's ``__init__`` calls
            # ``self.reset_parameters()``) calls: then only the file's own statements below call it
            continue
        frame_nodes = _caller_frame_reads(method, parents)
        if frame_nodes and _called_only_as_own_statement(tree, method.name, parents, aliases):
            ok |= frame_nodes
    return ok


# Names Python's own machinery calls on an object it is given, with no call written in the file (``dict(obj)`` and
# ``**obj`` call ``keys``, ``print(file=obj)`` ``write``/``flush``, ``pickle.load(obj)`` ``read``/``readline``,
# ``yield from obj`` ``send``/``throw``, a metaclass's ``mro`` at class creation, json's ``default``, logging's
# ``emit``/``filter``/``format``, threading's ``run``, import hooks, unittest); dunders are left out by name.
PROTOCOL_CALLED = frozenset({
    "keys", "items", "values", "get", "write", "writelines", "flush", "read", "read1", "readline", "readlines",
    "readinto", "seek", "tell", "close", "fileno", "isatty", "readable", "writable", "seekable", "send", "throw",
    "mro", "default", "encode", "iterencode", "decode", "emit", "handle", "filter", "format", "run", "find_spec",
    "find_module", "load_module", "exec_module", "create_module", "setUp", "tearDown", "runTest", "persistent_id",
    "persistent_load", "find_class", "register", "copy", "fromkeys", "format_map", "getvalue", "acquire", "release",
})


@functools.cache
def _implicitly_called_names() -> frozenset[str]:
    """Every method name Python or torch may call on an object by itself: PROTOCOL_CALLED, the names torch and the
    tests call on a module (grading.family's ``_CALLED_FOR_IT``), and every attribute of every torch.nn module class,
    autograd Function, optimizer, scheduler, dataset and sampler (what a file's class may inherit from, whose own
    code calls its methods by name: nn.Linear's ``__init__`` calls ``self.reset_parameters()``)."""
    import torch  # (the grader's own torch: which names its classes answer)
    import torch.utils.data

    from grading.family import _CALLED_FOR_IT
    names = set(PROTOCOL_CALLED) | set(_CALLED_FOR_IT)
    for space in (torch.nn, torch.nn.modules, torch.autograd, torch.optim, torch.optim.lr_scheduler,
                  torch.utils.data):
        for value in vars(space).values():
            if isinstance(value, type):
                names.update(dir(value))
    return frozenset(names)


def _caller_frame_reads(method: ast.FunctionDef, parents: Mapping[int, ast.AST]) -> set[int]:
    """The ids of ``inspect.currentframe``, its ``.f_back``, and each ``inspect.getargvalues``/``.f_locals`` reading
    the name it is given, when ``method`` binds that frame once, by ``frame = inspect.currentframe().f_back`` in its
    body, and reads it in no other way; else nothing."""
    found: set[int] = set()
    for stmt in method.body:
        back = stmt.value if isinstance(stmt, ast.Assign) else None
        if isinstance(back, ast.Attribute) and back.attr == "f_back" and isinstance(back.value, ast.Call) \
                and not back.value.args and not back.value.keywords \
                and _dotted(back.value.func) == ["inspect", "currentframe"] \
                and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):  # type: ignore[union-attr]
            if found:
                return set()
            frame = stmt.targets[0].id                  # type: ignore[union-attr]
            found = {id(back), id(back.value.func)}
    if not found:
        return set()
    for node in ast.walk(method):
        if isinstance(node, ast.Name) and node.id == frame:
            up = parents.get(id(node))
            if not isinstance(node.ctx, ast.Load):
                if not (isinstance(up, ast.Assign) and id(up.value) in found):
                    return set()
            elif isinstance(up, ast.Attribute) and up.attr == "f_locals" and isinstance(up.ctx, ast.Load):
                found.add(id(up))
            elif isinstance(up, ast.Call) and up.args == [node] and not up.keywords \
                    and _dotted(up.func) == ["inspect", "getargvalues"]:
                found.add(id(up.func))
            else:
                return set()
        elif isinstance(node, ast.arg) and node.arg == frame or isinstance(node, ast.Global | ast.Nonlocal) \
                and frame in node.names:
            return set()
    return found


def _called_only_as_own_statement(tree: ast.Module, name: str, parents: Mapping[int, ast.AST],
                                  aliases: frozenset[str]) -> bool:
    """Whether every mention of ``name`` in the file (other than its definition) is ``self.name(...)`` as a
    statement directly in the body of a method of the file's classes, where ``locals()`` holds only names whose
    values are written out, none of them torch (the caller's frame the method reads)."""
    calls = 0
    for node in _nodes(tree):
        if isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Constant) and node.value == name:
            return False
        if not (isinstance(node, ast.Attribute) and node.attr == name):
            continue
        call, stmt, caller = parents.get(id(node)), None, None
        if isinstance(call, ast.Call) and call.func is node:
            stmt = parents.get(id(call))
            caller = parents.get(id(stmt))
        if not (isinstance(node.value, ast.Name) and node.value.id == "self" and isinstance(stmt, ast.Expr)
                and isinstance(caller, ast.FunctionDef) and stmt in caller.body
                and isinstance(parents.get(id(caller)), ast.ClassDef)
                and caller.args.args and caller.args.args[0].arg == "self"):
            return False
        held = _locals_at(call, parents)
        if held is None or any(_kept_alias(v, set(aliases)) for v in held[1]) or _bare_alias_in(caller, aliases):
            return False
        a = caller.args
        if (a.args[1:] or a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg) \
                and _torch_as_value_outside_imports(tree, aliases):
            # the caller's parameters hold what its callers pass: ``M(torch)`` would put torch in the frame read
            # (round 47 hole), so any name of torch handed on as a value anywhere in the file keeps the finding
            return False
        calls += 1
    return calls > 0


def _plain_weak_ref(attr_node: ast.Attribute, parents: Mapping[int, ast.AST]) -> bool:
    """Whether ``weakref.ref`` is called with the object alone (no callback), or only named as a type
    (``weakref.ref[Parent]``, an annotation)."""
    parent = parents.get(id(attr_node))
    if isinstance(parent, ast.Call) and parent.func is attr_node:
        return len(parent.args) == 1 and not parent.keywords and not isinstance(parent.args[0], ast.Starred)
    return isinstance(parent, ast.Subscript) and parent.value is attr_node or isinstance(
        parent, ast.arg | ast.AnnAssign) and getattr(parent, "annotation", None) is attr_node


_TRACEBACK_PRINTERS = frozenset({"print_exception", "format_exception", "print_tb", "format_tb"})


def _caught_traceback_arguments(tree: ast.Module, parents: Mapping[int, ast.AST]) -> set[int]:
    """Ids of the ``e.__traceback__`` and ``sys.exc_info`` attribute nodes whose value goes straight to traceback's
    print_exception/format_exception, the usual ways to print a caught exception:
    ``traceback.print_exception(type(e), e, e.__traceback__)`` and ``traceback.format_exception(*sys.exc_info())``
    (cost 17 points: review RB round 44, HIGH 2). Those functions only turn the traceback into text; the same
    attributes anywhere else (``e.__traceback__.tb_frame``, ``sys.exc_info()[2]``) stay findings. The modules'
    names must be bound once, by their imports."""
    counts = _binding_counts(tree)
    modules: dict[str, str] = {}                       # local name -> "traceback" / "sys"
    printers: set[str] = set()                         # ``from traceback import print_exception [as pe]``
    for node in tree.body:
        if isinstance(node, ast.Import):
            modules.update({a.asname or a.name: a.name for a in node.names if a.name in ("traceback", "sys")})
        elif isinstance(node, ast.ImportFrom) and node.module == "traceback" and not node.level:
            printers.update(a.asname or a.name for a in node.names if a.name in _TRACEBACK_PRINTERS)
    modules = {k: v for k, v in modules.items() if counts.get(k) == 1}
    printers = {k for k in printers if counts.get(k) == 1}

    def printer(call: ast.AST | None) -> bool:
        if not isinstance(call, ast.Call):
            return False
        f = call.func
        return isinstance(f, ast.Name) and f.id in printers or isinstance(f, ast.Attribute) \
            and f.attr in _TRACEBACK_PRINTERS and isinstance(f.value, ast.Name) and modules.get(f.value.id) == "traceback"

    ok: set[int] = set()
    for node in _nodes(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name)):
            continue
        up = parents.get(id(node))
        if node.attr == "__traceback__":
            if isinstance(up, ast.keyword) and up.arg == "tb":
                up = parents.get(id(up))
            elif not (isinstance(up, ast.Call) and node in up.args):
                continue
            if printer(up):
                ok.add(id(node))
        elif node.attr == "exc_info" and modules.get(node.value.id) == "sys" and isinstance(up, ast.Call) \
                and up.func is node and not up.args and not up.keywords:
            starred = parents.get(id(up))
            if isinstance(starred, ast.Starred) and printer(call := parents.get(id(starred))) \
                    and starred in call.args:        # type: ignore[union-attr]
                ok.add(id(node))
    return ok


# The handlers that catch a failed import (a bare ``except:`` too).
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
# Optional packages of attention kernels (xformers, flash_attn...) stay flagged even guarded: wherever
# they are installed, the code around them is a ready-made attention.
_ATTENTION_WORDS = ("attn", "attention", "xformers", "flash", "sdpa", "fmha")


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    t = handler.type
    kinds = t.elts if isinstance(t, ast.Tuple) else [t]
    return t is None or any(isinstance(k, ast.Name) and k.id in _IMPORT_ERRORS for k in kinds)


def _absent_optional_import(node: ast.Import | ast.ImportFrom, mod: str, parents: Mapping[int, ast.AST]) -> bool:
    """``try: from apex.normalization import FusedLayerNorm`` / ``except ImportError:`` (an optional
    package, as public code imports it) of a package that is not installed where the file is graded:
    the import fails there, so it binds nothing and runs nothing, and the handler (reviewed as any
    code) runs instead. Only a statement of the try's own body, of an absolute import, under a
    handler that catches ImportError; never a module of the standard library (always there) nor a
    package named after attention kernels. A package cannot appear at run time: modules written by
    the submission are refused in the jail, and the ways to another importer (sys.meta_path,
    importlib, __import__) are flagged on their own."""
    top = mod.split(".")[0]
    words = [p.lower() for p in mod.split(".")] + [a.name.lower() for a in node.names]
    if not top or (isinstance(node, ast.ImportFrom) and node.level) or top in sys.stdlib_module_names \
            or any(w in part for part in words for w in _ATTENTION_WORDS):
        return False
    parent = parents.get(id(node))
    if not (isinstance(parent, ast.Try | ast.TryStar) and any(stmt is node for stmt in parent.body)
            and any(_catches_import_error(h) for h in parent.handlers)):
        return False
    try:
        return importlib.util.find_spec(top) is None
    except (ImportError, ValueError):
        return False


DISPATCHERS = frozenset({"singledispatch", "singledispatchmethod"})


def _string_annotations(tree: ast.Module) -> bool:
    """Whether any annotation of the file holds a string constant (``x: "Tensor"``, ``List["T"]``): what
    ``typing.get_type_hints`` evaluates as code. (Under ``from __future__ import annotations`` every annotation
    is kept as its own source text, which the review reads where it is written.)"""
    annotations: list[ast.AST] = []
    for node in _nodes(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            annotations.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
    return any(isinstance(c, ast.Constant) and isinstance(c.value, str) for a in annotations for c in ast.walk(a))


def _plain_update_wrappers(tree: ast.Module) -> set[int]:
    """The ``functools.update_wrapper`` reads (functools bound once, by its import) called with the wrapper and the
    wrapped alone, as a statement of its own, where the wrapper is what decorates and the wrapped what it was given
    (_wraps_what_it_decorates): with ``assigned``/``updated`` left to functools' own constants it copies what
    ``functools.wraps(fn)`` copies (a class-based decorator's ``__init__``; cost 17 points until round 47). Any
    other argument (``update_wrapper(self, F)`` copies F's ``__dict__`` into self, round 47 review H1), a starred
    one, or the function taken as a value stays flagged."""
    bound = _module_binding_counts(tree)
    if bound.get("functools") != 1:
        return set()
    parents = _parents(tree)
    return {id(node) for node in _nodes(tree)
            if isinstance(node, ast.Attribute) and node.attr == "update_wrapper" and _dotted(node) ==
            ["functools", "update_wrapper"] and isinstance(call := parents.get(id(node)), ast.Call)
            and call.func is node and len(call.args) == 2 and not call.keywords
            and _wraps_what_it_decorates(call, tree, parents, bound)}


def _wraps_what_it_decorates(call: ast.Call, tree: ast.Module, parents: Mapping[int, ast.AST],
                             bound: Mapping[str, int]) -> bool:
    """Whether ``update_wrapper(wrapper, fn)`` (its result unused) copies one of the file's own defs onto the
    object that decorates it: ``self`` in ``__init__(self, fn)`` of a module-level class used only as ``@cls``
    over the file's own defs, neither name rebound there; or a def of the decorator's own body as wrapper and fn
    the decorator's only parameter (_decorated_function_parameter, as for ``inspect.signature(fn)``)."""
    wrapper, wrapped = call.args
    stmt = parents.get(id(call))
    function = _enclosing_function(call, parents)
    if not (isinstance(stmt, ast.Expr) and isinstance(wrapper, ast.Name) and isinstance(wrapped, ast.Name)
            and isinstance(function, ast.FunctionDef) and stmt in function.body):
        return False
    if any(isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id in (wrapper.id, wrapped.id)
           or isinstance(n, ast.Global | ast.Nonlocal) for n in ast.walk(function)):
        return False
    cls = parents.get(id(function))
    if wrapper.id == "self":
        return function.name == "__init__" and isinstance(cls, ast.ClassDef) and parents.get(id(cls)) is tree \
            and not function.decorator_list and bound.get(cls.name) == 1 \
            and [a.arg for a in function.args.args] == ["self", wrapped.id] \
            and not (function.args.posonlyargs or function.args.kwonlyargs or function.args.vararg
                     or function.args.kwarg) \
            and _used_only_as_decorator(cls.name, tree, parents, bound, factory=False)
    return bound.get(wrapper.id) == 1 and any(isinstance(d, ast.FunctionDef) and d.name == wrapper.id
                                              for d in function.body) \
        and _decorated_function_parameter(wrapped, tree, parents, bound)


def _partial_of_own_call(node: ast.Attribute, parents: Mapping[int, ast.AST]) -> bool:
    """Whether ``node`` is ``self.__call__`` returned as ``functools.partial(self.__call__, obj)`` by ``__get__``
    (self, obj[, objtype]) of a class: the descriptor binding of a class-based decorator. Any other use of a
    dunder of self (``self.__init__(torch.nn)``, ``hook(self.__call__)``, round 47 review M2) stays flagged."""
    call = parents.get(id(node))
    get = _enclosing_function(node, parents)
    return node.attr == "__call__" and isinstance(node.value, ast.Name) and node.value.id == "self" \
        and isinstance(call, ast.Call) and _dotted(call.func) == ["functools", "partial"] and not call.keywords \
        and isinstance(get, ast.FunctionDef) and get.name == "__get__" and len(get.args.args) >= 2 \
        and len(call.args) == 2 and call.args[0] is node and isinstance(call.args[1], ast.Name) \
        and call.args[1].id == get.args.args[1].arg and isinstance(ret := parents.get(id(call)), ast.Return) \
        and ret in get.body


def _decorating_dispatchers(tree: ast.Module) -> set[int]:
    """The ``functools.singledispatch``/``singledispatchmethod`` nodes (a read of ``functools.X``, ``X`` imported
    from functools, or the import itself) that are safe: each use is a bare decorator of a def
    (``@functools.singledispatchmethod``, a mask helper per input type; cost 13 points), and no annotation of
    the file holds a string, the only code their ``register()`` evaluates (``get_type_hints``). An imported
    name must be bound once and used; an unused import, an alias or a call with arguments stays flagged."""
    if _string_annotations(tree):
        return set()
    bound = _binding_counts(tree)
    parents = _parents(tree)

    def decorates(node: ast.AST) -> bool:
        parent = parents.get(id(node))
        return isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef) and node in parent.decorator_list

    out: set[int] = set()
    for node in _nodes(tree):
        if isinstance(node, ast.Attribute) and node.attr in DISPATCHERS and isinstance(node.value, ast.Name) \
                and node.value.id == "functools" and bound.get("functools") == 1 and decorates(node):
            out.add(id(node))
    for node in _nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "functools" and not node.level:
            names = [a for a in node.names if a.name in DISPATCHERS]
            if names and all(a.asname is None and bound.get(a.name) == 1 for a in names):
                uses = [n for n in _nodes(tree) if isinstance(n, ast.Name) and n.id in {a.name for a in names}]
                if uses and all(decorates(u) for u in uses) and {u.id for u in uses} == {a.name for a in names}:
                    out.add(id(node))
                    out.update(id(u) for u in uses)
    return out


# The review's findings in Chinese: the patterns of the findings below (the code in them stays as written).
ZH_FINDING = [(re.compile(r"imports (\S+)"), r"导入 \1"),
               # (round 21's three forms, before the patterns that read their parts)
               (re.compile(r"(\S+) called with another self or used as a value"), r"\1 用另一个 self 调用或被当作值使用"),
               (re.compile(r"an argparse action kept or built \((.+)\)$"), r"保存或构造了 argparse 动作（\1）"),
               (re.compile(r"super\(\) bound to something other than self"), "super() 绑定到了 self 以外的对象"),
               (re.compile(r"(\S+) used as a value"), r"把 \1 当作值使用"),
               (re.compile(r" \(a module's private name\)"), "（模块的私有名字）"),
               (re.compile(r" \(a private name of something not your own\)"), "（不属于你的对象的私有名字）"),
               (re.compile(r"a function outside a class taking self"), "类外部带 self 参数的函数"),
               (re.compile(r"(\S+) with a computed name"), r"用计算出的名字调用 \1"),
               (re.compile(r"called with another self"), "用另一个 self 调用"),
               (re.compile(r"a class attribute named (\S+)"), r"名为 \1 的类属性"),
               (re.compile(r"the string "), "字符串 "), (re.compile(r": defines "), ": 定义了 "),
               (re.compile(r": sets "), ": 设置了 "),
               (re.compile(r"(\S+) makes isinstance true for other classes"), r"\1 让 isinstance 对其他类也成立"),
               (re.compile(r" used without self"), "（没有通过 self 使用）"),
               (re.compile(r"a match pattern reading attributes by position"), "按位置读取属性的 match 模式"),
               (re.compile(r"a match pattern reading (\S+)"), r"读取 \1 的 match 模式"),
               (re.compile(r"(\S+) kept as an attribute"), r"把 \1 保存为属性"),
               (re.compile(r"class (\S+) with a base computed at run time"), r"类 \1 的基类在运行时才计算出来"),
               (re.compile(r"class (\S+) derives from (\S+), whose methods the review cannot follow"),
                r"类 \1 继承自 \2，审阅无法跟踪它的方法"),
               (re.compile(r"(\S+) reached off its object, and it reads PyTorch's attention names through self"),
                r"\1 脱离其对象被取用，而它通过 self 读取 PyTorch 的 attention 名字"),
               (re.compile(r"^line (\d+): "), r"第 \1 行：")]   # last: the patterns above read "line N: "


def finding_zh(finding: str) -> str:
    """A finding of hidden_name_uses or named_uses in Chinese (the code in it stays as written)."""
    for pattern, repl in ZH_FINDING:
        finding = pattern.sub(repl, finding)
    return finding


@functools.lru_cache(maxsize=4)
def hidden_name_uses(source: str, packages: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Places where attention.py reaches a function through a computed or indirect name (the
    reason for each), which the static check cannot follow: ``getattr`` with a name that is not
    a plain string, ``torch.ops``, ``__wrapped__``, ``importlib``, ``sys.modules``, ``eval``...
    Unparseable source counts as hiding (nothing can be checked), and so does a source past the
    review's limits. ``packages``: more modules whose plain import is followed (another suite's own,
    whose caller checks what of them reaches names by strings)."""
    tree, why = _reviewable(source)
    if tree is None:
        return (why or UNPARSED,)
    try:
        return _hidden_name_uses(source, tree, packages)
    except (RecursionError, MemoryError):
        return (UNREVIEWABLE,)


def _hidden_name_uses(source: str, tree: ast.Module, packages: tuple[str, ...] = ()) -> tuple[str, ...]:
    skip = _never_run(source, uncalled_functions="guard")
    ok_imports, checked, stdlib_findings = _safe_stdlib(tree, skip, _never_run(source))
    # the names that may hold torch (or sys), also by ``or``/if-else, for every check a name of torch makes
    # stricter; ``torch_names`` (only names that are torch) where one is trusted
    torch_names = _torch_aliases(tree)
    aliases, sys_aliases = _module_aliases(tree, "torch", chosen=True), _module_aliases(tree, "sys", chosen=True)
    names_in_strings = _hidden_names_in_strings(tree)
    # a dataclass's positional pattern reads the fields its source shows (a hand-written
    # __match_args__ is flagged on its own)
    dataclasses_here = {c.name for c in _nodes(tree) if isinstance(c, ast.ClassDef) and any(
        (_dotted(d.func if isinstance(d, ast.Call) else d) or [""])[-1] == "dataclass" for d in c.decorator_list)}
    display_modules = _display_module_names(tree)
    imported = {(a.asname or a.name).split(".")[0] for node in _nodes(tree) if isinstance(node, ast.Import)
                for a in node.names} | {"torch"}
    calls = {id(node.func): node for node in _nodes(tree) if isinstance(node, ast.Call)}
    parents = _parents(tree)
    module_classes = {c.name for c in _nodes(tree) if isinstance(c, ast.ClassDef)}
    own_registers = _own_registers(tree) if module_classes else set()
    # ``Registrable._registry`` (AllenNLP): a private name read off the file's own class, bound once, whose
    # body binds it, is its own as ``self._registry`` is (cost 13 points)
    bound_once = {n for n, k in _binding_counts(tree).items() if k == 1} if module_classes else set()
    own_class_attrs = {(c.name, name) for c in _nodes(tree) if isinstance(c, ast.ClassDef) and c.name in bound_once
                       for stmt in c.body for name in (
                           [stmt.name] if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else
                           [t.id for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                            if isinstance(t, ast.Name)] if isinstance(stmt, ast.Assign | ast.AnnAssign) else [])}
    class_level = {id(stmt) for c in _nodes(tree) if isinstance(c, ast.ClassDef) for stmt in c.body}

    dispatch_memo: list[set[int]] = []
    shadowed_memo: list[set[str]] = []
    package_aliases = _harmless_package_aliases(tree)

    def imported_over_builtins() -> set[str]:
        if not shadowed_memo:
            shadowed_memo.append(_imported_over_builtins(tree))
        return shadowed_memo[0]

    def dispatchers() -> set[int]:
        if not dispatch_memo:
            dispatch_memo.append(_decorating_dispatchers(tree).union(_plain_update_wrappers(tree)))
        return dispatch_memo[0]

    plain_class_memo: list[list[ast.ClassDef]] = []

    def own_plain_class_nodes() -> list[ast.ClassDef]:
        """Classes of the file, bound once, with no metaclass (whose ``__instancecheck__`` could answer for
        any object) nor ``__new__``: ``isinstance(x, C)`` then means x is an object of the file's own class,
        and ``C()`` makes one."""
        if not plain_class_memo:        # once per tree: asked for each ``self.__dict__`` read
            plain_class_memo.append([
                c for c in _nodes(tree) if isinstance(c, ast.ClassDef) and c.name in bound_once and not c.keywords
                and not any(isinstance(f, ast.FunctionDef) and f.name == "__new__" for f in c.body)])
        return plain_class_memo[0]

    def own_plain_classes() -> set[str]:
        return {c.name for c in own_plain_class_nodes()}
    # ``torch.jit.export``, ``torch.compiler.is_compiling``, ``np.testing.assert_allclose``: the
    # package node and the harmless name read from it (``export`` and ``testing`` are also names of
    # packages the review cannot follow)
    @functools.cache
    def annotations() -> frozenset[int]:
        return _annotation_nodes(tree)
    harmless: set[int] = _caught_traceback_arguments(tree, parents)
    for node in _nodes(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and _harmless_part(node.value.attr, node.attr):
            harmless.update((id(node.value), id(node)))
        if isinstance(node, ast.Attribute) and _dynamo_setting(node, parents):
            harmless.update((id(node.value), id(node.value.value)))
        # ``x: torch.types.Number``: torch.types holds annotations (``from torch.types import Number`` was no
        # finding; its name is also the standard library's ``types``), and an annotation only stores what it names
        # (``__annotations__`` is a finding itself); the name read off it is judged on its own. Anywhere else
        # ``torch.types.X`` stays flagged (``torch.types.SimpleNamespace`` is no stand-in for the standard library's).
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "types" \
                and isinstance(node.value.value, ast.Name) and node.value.value.id in torch_names \
                and not node.attr.startswith("_") and id(node) in annotations():
            harmless.add(id(node.value))
        # ``torch.utils.checkpoint.checkpoint``: every link of the chain, from a name of torch itself
        chain = _dotted(node) if isinstance(node, ast.Attribute) else None
        if chain and len(chain) > 1 and chain[0] in torch_names \
                and node.attr in TORCH_HARMLESS_FUNCTIONS.get(".".join(["torch", *chain[1:-1]]), ()):
            link = node
            while isinstance(link, ast.Attribute):
                harmless.add(id(link))
                link = link.value
    found: list[str] = list(stdlib_findings)
    # methods where ``self`` is the file's own object: computed on demand (vars(self), self.__dict__,
    # getattr(self, f"head_{i}") are all it serves)
    methods: dict[int, frozenset[str]] | None = None
    own_names = {n.name for n in _nodes(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    own_names |= {n.id for n in _nodes(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    own_names |= {n.arg for n in _nodes(tree) if isinstance(n, ast.arg)}

    holders: set[str] | None = None
    holders_read = False

    def own_private(node: ast.Attribute) -> bool:
        """``self._x`` / ``cls._x``, or ``self.A._x`` where ``self.A`` can only be an object of the file's own
        class. Deeper (``self.t.nn.attention.bias.CausalBias._dispatch``, ``self.ts[0]._dispatch``), what
        sits in between may be PyTorch's, whatever name of ``self`` holds it."""
        nonlocal holders, holders_read
        value = node.value
        if isinstance(value, ast.Name):
            return value.id in ("self", "cls") or _known_own_instance(value, parents, instance_classes()) \
                or _copy_of_own_self(value, tree, parents, self_methods())
        if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                and value.value.id in ("self", "cls")):
            return False
        if not holders_read:
            holders, holders_read = _foreign_holders(tree, bound_once, aliases), True
        return holders is not None and value.attr not in holders

    instance_memo: list[dict[str, ast.ClassDef]] = []

    def instance_classes() -> dict[str, ast.ClassDef]:
        if not instance_memo:
            instance_memo.append(_instance_classes(tree))
        return instance_memo[0]

    def self_methods() -> dict[int, frozenset[str]]:
        nonlocal methods
        if methods is None:
            # a class of the file with a member named ``__dict__`` answers self.__dict__ itself
            methods = {} if "__dict__" in own_names else _self_methods(tree, skip)
        return methods

    bindings_here: dict[str, list[ast.AST]] | None = None
    counts_here: dict[str, int] | None = None

    def torch_base_alias(name: str) -> bool:
        """``Base = nn.Module`` (Lightning-style code: ``Base = pl.LightningModule`` when lightning imports,
        else nn.Module): a name every binding of which, all at module level, is a torch class that may be
        derived from (TORCH_BASES)."""
        nonlocal bindings_here, counts_here
        if bindings_here is None or counts_here is None:
            bindings_here, counts_here = _module_bindings(tree), _binding_counts(tree)
        values = bindings_here.get(name, [])
        return bool(values) and counts_here.get(name) == len(values) and all(
            (chain := _dotted(v)) is not None and len(chain) > 1 and chain[0] in torch_names
            and chain[-1] in TORCH_BASES for v in values)

    # the name-taking functions under the names the file gives them (``from functools import wraps as W``)
    name_takers = {name: name for name in NAME_TAKING_CALLS} | {
        a.asname: a.name for node in _nodes(tree) if isinstance(node, ast.ImportFrom)
        for a in node.names if a.asname and a.name in NAME_TAKING_CALLS}
    # argparse's actions under the names the file gives them, and the file's classes deriving from one
    argparse_names = {a.asname or a.name for node in _nodes(tree) if isinstance(node, ast.Import)
                      for a in node.names if a.name == "argparse"}

    def is_action(ref: ast.AST) -> bool:
        return isinstance(ref, ast.Name) and ref.id in action_names or isinstance(ref, ast.Attribute) \
            and ref.attr in ARGPARSE_ACTIONS and isinstance(ref.value, ast.Name) and ref.value.id in argparse_names

    action_names = {a.asname or a.name for node in _nodes(tree) if isinstance(node, ast.ImportFrom)
                    and node.module == "argparse" for a in node.names if a.name in ARGPARSE_ACTIONS}
    file_classes = [c for c in _nodes(tree) if isinstance(c, ast.ClassDef)]
    while derived := {c.name for c in file_classes if c.name not in action_names and any(map(is_action, c.bases))}:
        action_names |= derived
    for node in _nodes(tree):
        if len(found) >= MAX_FINDINGS:      # enough to decide and to explain; bounded cost
            break
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", "?")
        # (before the stdlib attributes checked elsewhere: ``argparse.BooleanOptionalAction`` is one)
        taken = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if is_action(node) and isinstance(node.ctx, ast.Load) and not (
                isinstance(parents.get(id(node)), ast.keyword) and parents[id(node)].arg == "action"
                or isinstance(parents.get(id(node)), ast.ClassDef) and node in parents[id(node)].bases):
            found.append(_finding(line, "argparse_action", taken))
        if id(node) in checked:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" \
                and (node.args or node.keywords) and not (
                    len(node.args) == 2 and not node.keywords and isinstance(node.args[1], ast.Name)
                    and node.args[1].id in ("self", "cls")):
            # ``super(type(torch), torch).__setattr__(n, f)`` is object.__setattr__(torch, n, f): every check that
            # trusts super() (it binds self) would trust torch; ``super(Cls, self)`` is as super()
            found.append(_finding(line, "super_elsewhere", "super()"))
        if isinstance(node, ast.Attribute) and node.attr in FOREIGN_SELF_DUNDERS and isinstance(node.ctx, ast.Load) \
                and not (isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                         and node.value.func.id == "super") and not _called_on_self(node, calls.get(id(node))) \
                and not (_partial_of_own_call(node, parents) and _in_self_method(node, parents, self_methods())):
            # ``self.__call__`` in ``__get__`` of the file's own object is bound to that object: it cannot be
            # handed another self (a class-based decorator's ``__get__`` returning ``partial(self.__call__, obj)``)
            found.append(_finding(line, "another_self_or_value", f".{node.attr}"))
        if taken in name_takers and isinstance(node.ctx, ast.Load) \
                and getattr(calls.get(id(node)), "func", None) is not node:
            found.append(_finding(line, "used_as_value", name_takers[taken]))
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) in ok_imports:
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            mods = [a.name for a in node.names if id(a) not in ok_imports and id(a) not in package_aliases] \
                if isinstance(node, ast.Import) else [node.module or ""]
            for mod in mods:
                parts = mod.split(".")
                guards_only = isinstance(node, ast.ImportFrom) and len(parts) == 2 and all(
                    _harmless_part(parts[1], a.name) for a in node.names)  # from torch.compiler import is_compiling
                if isinstance(node, ast.Import) and _binds_torch_only(node, mod):
                    guards_only = True
                if mod in TORCH_HARMLESS_FUNCTIONS:
                    # ``from torch.utils.checkpoint import checkpoint``; ``import torch.utils.checkpoint``
                    # binds only ``torch`` (each module of the statement is judged on its own)
                    guards_only = all(a.name in TORCH_HARMLESS_FUNCTIONS[mod] for a in node.names) \
                        if isinstance(node, ast.ImportFrom) else not any(a.asname for a in node.names if a.name == mod)
                package = mod.rpartition(".")[0]
                if isinstance(node, ast.ImportFrom) and package in DEFINED_IN_SUBMODULES and not parts[-1].startswith("_"):
                    # ``from torch.utils.data.sampler import SubsetRandomSampler``, ``from torch.utils.data.dataloader
                    # import default_collate``: the package's listed names from the public submodule that defines them
                    # (the same objects: test_review_sweep_round33), never a kind of name matched by pattern
                    guards_only = all(frozenset.__contains__(TORCH_HARMLESS_FUNCTIONS[package], a.name)
                                      for a in node.names)
                if (parts[0] not in REVIEWABLE_MODULES and mod not in packages) \
                        or (isinstance(node, ast.ImportFrom) and node.level) \
                        or (parts[0] == "torch" and len(parts) > 1 and parts[1] in TORCH_UNREVIEWABLE
                            and not guards_only) \
                        or (any(p.startswith("_") and not p.startswith("__") for p in parts[1:])
                            and not (guards_only and mod == "torch._dynamo")):
                    if not _absent_optional_import(node, mod, parents):
                        found.append(_finding(line, "imports", mod or "."))
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
                for a in node.names:     # ``from torch.xpu import cast``
                    if a.name in TORCH_REEXPORTED_NAMES:
                        found.append(_finding(line, "code", f"from {node.module} import {a.name}"))
            if isinstance(node, ast.ImportFrom) and node.module == "torch":
                for a in node.names:
                    if a.name in TORCH_UNREVIEWABLE and id(a) not in package_aliases:
                        found.append(_finding(line, "code", f"from torch import {a.name}"))
            # ``from torch.ops import aten``, ``from torch.jit import trace_module``, ``import torch.jit as J``: a hiding part
            # of torch as the statement's module (this check sat under ``node.module == "torch"``, where no module is
            # ``torch.<part>``, and let each of them through; round 33 sweep). ``import torch.jit`` binds only torch,
            # and each ``torch.jit.X`` is judged where it stands.
            hiding_mods = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names if a.asname and id(a) not in package_aliases]
            for mod in hiding_mods:
                parts = mod.split(".")
                # ``from torch.jit import script``, ``from torch._dynamo import disable``: only harmless parts
                guards = isinstance(node, ast.ImportFrom) and len(parts) == 2 \
                    and all(_harmless_part(parts[1], a.name) for a in node.names)
                # ``import torch.signal as ts`` read otherwise than harmlessly (_harmless_package_aliases): as
                # ``torch.signal.windows`` is a finding (review D round 43, MED 1)
                bound_package = isinstance(node, ast.Import) and len(parts) == 2 and parts[1] in BINDABLE_TORCH_PACKAGES
                if parts[0] == "torch" and (any(p in HIDING_ATTRS for p in parts[1:]) or bound_package) and not guards:
                    found.append(_finding(line, "imports", mod))
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if id(a) in package_aliases:
                        continue
                    if a.name in MODULE_LOADERS | ANYWHERE_HIDING_ATTRS or (
                            a.name in EVALUATING_NAMES and id(node) not in dispatchers()) or (
                            a.name.startswith("_") and not a.name.startswith("__")
                            and not (a.name in PRIVATE_OK and (node.module or "").split(".")[0] == "torch")) or (any(
                            p.startswith("_") and not p.startswith("__") for p in _reviewed_parts(node.module or ""))
                            and not (node.module == "torch._dynamo" and a.name in DYNAMO_HARMLESS)):
                        found.append(_finding(line, "code", f"from {node.module} import {a.name}"))
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("torch", "sys"):
                for a in node.names:
                    if id(a) in package_aliases:
                        continue
                    if a.name == "*" or (a.name in HIDING_ATTRS and not (node.module == "torch.jit"
                                                                         and a.name in JIT_HARMLESS)) \
                            or (node.module == "sys" and a.name in SYS_HIDING_ATTRS):
                        found.append(_finding(line, "code", f"from {node.module} import {a.name}"))
        elif isinstance(node, ast.Attribute):
            if id(node) in harmless:
                continue
            chain = _dotted(node)
            shown = ".".join(chain) if chain else "..." + node.attr
            if function := getattr(node, LITERAL_GETATTR, None):
                shown = f"{function}({'.'.join(chain[:-1]) if chain else '...'}, {node.attr!r}" \
                    + (", ...)" if "setattr" in function else ")")
            if node.attr == "__class__" and not isinstance(node.ctx, ast.Load):
                # ``torch.functional.__class__ = Hop``: the object becomes one of the student's classes,
                # whose ``self.X`` the review would take for the student's own
                found.append(_finding(line, "sets", shown))
                continue
            if node.attr in MATCH_HOOKS and not isinstance(node.ctx, ast.Load):
                # ``Cls.__match_args__ = ("ops",)``: which attributes a positional pattern reads
                found.append(_finding(line, "sets", shown))
                continue
            if node.attr == "register" and isinstance(node.value, ast.Name) and (
                    node.value.id in module_classes or node.value.id in ("ABC", "ABCMeta", "abc")) \
                    and node.value.id not in own_registers:
                # an ABC's register(type(torch)) makes isinstance() -- and so a class pattern -- true
                # for PyTorch's own objects
                found.append(_finding(line, "widens_isinstance", shown))
                continue
            # on any object, not only a known alias of torch (``[torch][0].fx``); ``nn.utils`` is PyTorch's
            # layer helpers (rnn packing, weight norm), ``nn.modules.utils`` its layers' tuple helpers
            if node.attr in TORCH_REEXPORTED_NAMES and (_root(node) in aliases | torch_names or chain is None):
                # ``torch.xpu.cast``, ``torch.cuda.memory.signature``: another module's function under torch's name
                found.append(_finding(line, "code", shown))
                continue
            if node.attr in TORCH_UNREVIEWABLE and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("nn", "F", "functional")) \
                    and _root(node) not in display_modules \
                    and not (node.attr == "utils" and ((chain or [""])[-2:-1] == ["nn"]
                                                       or (chain or [""])[-3:-1] == ["nn", "modules"])):
                found.append(_finding(line, "code", shown))
                continue
            if node.attr == "__setstate__" and _super_call_of(node, calls):
                # ``super().__setstate__(state)`` in a ``__setstate__`` override, as nn.MultiheadAttention
                # writes it (13 points): it sets attributes of the student's own object, which
                # super() guarantees self is, like setattr(self, computed, ...)
                continue
            if node.attr == "__getattr__" and _super_call_of(node, calls) \
                    and _in_body_of_method(node, "__getattr__", _parents(tree)):
                # ``return super().__getattr__(name)`` in a ``__getattr__`` override (deprecated names mapped
                # to new ones, HF and diffusers shims: 13 points): nn.Module's reads only the student's own
                # object's parameters, buffers and submodules, which self._modules[name] reads as well
                continue
            if node.attr == "__getattribute__" and _super_call_of(node, calls) \
                    and _in_self_method(node, parents, self_methods()) and (
                        _in_body_of_method(node, "__getattribute__", parents)
                        or _public_literal_argument(calls[id(node)])):
                # HF's PretrainedConfig maps names through ``attribute_map`` in its ``__getattribute__`` and
                # ``__setattr__`` overrides (13 points): ``super().__getattribute__("attribute_map")`` is
                # ``self.attribute_map``, and ``super().__getattribute__(key)`` in the ``__getattribute__`` override
                # reads the file's own object (super() binds it) by any name, as the override itself answers every
                # ``self.x`` (so no ``self.A`` is taken for the student's own: _foreign_holders). Elsewhere a computed
                # name could reach ``__dict__`` or ``_modules`` and write into them unseen.
                continue
            if node.attr == "__dict__" and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self" and _own_dict_read(node, parents, self_methods(), own_names):
                continue
            if node.attr == "__dict__" and isinstance(node.ctx, ast.Load) \
                    and "__dict__" not in own_names and _own_dict_equality(node, parents, self_methods(), own_plain_classes()):
                continue
            if node.attr == "__dict__" and isinstance(node.ctx, ast.Load) \
                    and "__dict__" not in own_names and _own_dict_update(node, parents, self_methods(), own_names):
                # ``update(t=torch)`` as ``self.t = torch`` and ``setattr(self, n, torch)``
                kept = next((k for v in _dict_update_values(node, parents) if (k := _kept_alias(v, aliases))), None)
                if kept:
                    found.append(_finding(line, "kept_attribute", kept))
                continue
            if node.attr == "__dict__" and isinstance(node.ctx, ast.Load) \
                    and "__dict__" not in own_names and _fresh_own_dict_write(node, parents, own_plain_class_nodes()):
                continue
            if node.attr.startswith("__") and node.attr in HIDING_ATTRS | ANYWHERE_HIDING_ATTRS:
                found.append(_finding(line, "code", f".{node.attr}"))
            elif node.attr in ANYWHERE_HIDING_ATTRS:
                found.append(_finding(line, "code", shown))
            elif node.attr in HIDING_ATTRS:
                if _root(node) in aliases | sys_aliases or chain is None or node.attr in ANYWHERE_TORCH_PARTS or (
                        node.attr in MODULE_LOADERS and _root(node) in imported):
                    found.append(_finding(line, "code", shown))
            elif node.attr in SYS_HIDING_ATTRS and _root(node) in sys_aliases:
                found.append(_finding(line, "code", shown))
            elif node.attr.startswith("_") and not node.attr.startswith("__") and _root(node) in imported \
                    and not _forbidden(node.attr) and node.attr not in PRIVATE_OK:
                found.append(_finding(line, "module_private", shown))
            elif node.attr in MODULE_LOADERS and _root(node) in imported:
                found.append(_finding(line, "code", shown))
            elif node.attr in EVALUATING_NAMES and id(node) not in dispatchers():
                found.append(_finding(line, "code", shown))
            elif node.attr.startswith("_") and not node.attr.startswith("__") and not _forbidden(node.attr) \
                    and node.attr not in PRIVATE_OK | NAMEDTUPLE_API and not own_private(node) \
                    and not (isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                             and node.value.func.id == "super") \
                    and not (isinstance(node.value, ast.Name) and (node.value.id, node.attr) in own_class_attrs):
                found.append(_finding(line, "foreign_private", shown))
        elif isinstance(node, ast.MatchClass):
            # ``case object(__dict__=d)`` reads attributes without an Attribute node, and ``case C(x)``
            # reads the attribute named by the string C.__match_args__[0]
            for attr in node.kwd_attrs:
                if attr in HIDING_ATTRS | ANYWHERE_HIDING_ATTRS or (attr.startswith("_") and not attr.startswith("__")) \
                        or _forbidden(attr):
                    found.append(_finding(line, "match_reads", f".{attr}"))
            cls_name = ".".join(_dotted(node.cls) or [""])
            if node.patterns and cls_name not in MATCH_BUILTINS and cls_name not in dataclasses_here \
                    and not (cls_name.split(".")[-1] == "Size" and cls_name.split(".")[0] in torch_names):
                found.append(_finding(line, "match_by_position", ""))
        elif isinstance(node, ast.Assign | ast.AnnAssign) and (kept := _kept_alias(node.value, aliases)) \
                and (id(node) in class_level or any(
                    isinstance(t, ast.Attribute) for t in (node.targets if isinstance(node, ast.Assign)
                                                           else [node.target]))):
            # ``t = torch`` in a class body, ``self.t = torch`` (or ``torch or nn``): torch under a name of the
            # object, where self.t._VF reads like the student's own attribute
            found.append(_finding(line, "kept_attribute", kept))
        elif isinstance(node, ast.Tuple) and getattr(node, LITERAL_SETATTR, False) and len(node.elts) == 2 \
                and (kept := _kept_alias(node.elts[1], aliases)):
            # ``_ = setattr(self, "t", torch)``: as ``self.t = torch``
            found.append(_finding(line, "kept_attribute", kept))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in MATCH_HOOKS:
            found.append(_finding(line, "defines", node.name))
        elif isinstance(node, ast.ClassDef) and any(
                _dotted(b) is None and not (isinstance(b, ast.Subscript) and (_dotted(b.value) or [""])[-1]
                                            in ("Generic", "Protocol")) for b in node.bases):
            # ``class K(type(torch._VF))``: a base computed at run time is no class the review can read
            found.append(_finding(line, "computed_base", node.name))
        elif isinstance(node, ast.ClassDef) and (foreign := [
                ".".join(chain) for b in node.bases
                if (chain := _dotted(b)) and chain[0] in aliases and chain[-1] not in TORCH_BASES
                and not (len(chain) == 1 and torch_base_alias(chain[0]))]):
            # a torch class's inherited methods (CausalBias._dispatch calls the fused kernel) are read
            # through cls/self, where the review trusts what the class shows
            found.append(_finding(line, "foreign_base", f"{node.name}({foreign[0]})"))
        elif isinstance(node, ast.ClassDef):
            # A name declared in a class body is an attribute name that generated code reads on other
            # objects: a dataclass's order/eq/repr methods and positional match patterns read each
            # field of whatever they are given (``field ops`` compares ``other.ops``: torch.ops).
            for stmt in node.body:
                targets = ([stmt.target] if isinstance(stmt, ast.AnnAssign) else
                           stmt.targets if isinstance(stmt, ast.Assign) else [])
                # (a field ``jit: bool``: every read of ``x.jit`` is flagged where it is written, and the
                # generated methods read fields only on objects of the class itself)
                for t in targets:
                    if isinstance(t, ast.Name) and (_forbidden(t.id) or t.id in (
                            HIDING_ATTRS | ANYWHERE_HIDING_ATTRS | SYS_HIDING_ATTRS) - ANYWHERE_TORCH_PARTS):
                        found.append(_finding(t.lineno, "class_attribute", t.id))
        elif isinstance(node, ast.Name) and node.id in MATCH_HOOKS and isinstance(node.ctx, ast.Store):
            found.append(_finding(line, "defines", node.id))
        elif isinstance(node, ast.Constant | ast.BinOp | ast.JoinedStr) and id(node) in names_in_strings:
            found.append(_finding(line, "string", repr(names_in_strings[id(node)])))
        elif isinstance(node, ast.Name) and node.id in EVALUATING_NAMES and id(node) not in dispatchers():
            found.append(_finding(line, "code", node.id))
        elif isinstance(node, ast.Name) and node.id in HIDING_BUILTINS and not (
                node.id in SHADOWABLE_BUILTINS and (not isinstance(node.ctx, ast.Load)
                                                    or _bound_in_function(node, _parents(tree))
                                                    or node.id in imported_over_builtins())):
            call = calls.get(id(node))
            if node.id == "vars" and call is not None and call.func is node and not call.keywords \
                    and [getattr(a, "id", None) for a in call.args] == ["self"] \
                    and _own_dict_read(call, parents, self_methods(), own_names):
                continue
            if node.id == "vars" and call is not None and call.func is node and "vars" not in own_names \
                    and (_namespace_vars(call, parents, own_names, aliases)
                         or _parsed_defaults_vars(call, tree, parents, aliases)):
                continue
            if node.id == "vars" and call is not None and call.func is node and "vars" not in own_names \
                    and _own_dict_update(call, parents, self_methods(), own_names):
                # ``vars(self).update(...)`` as ``self.__dict__.update(...)``
                kept = next((k for v in _dict_update_values(call, parents) if (k := _kept_alias(v, aliases))), None)
                if kept:
                    found.append(_finding(line, "kept_attribute", kept))
                continue
            if node.id in ("locals", "vars") and call is not None and call.func is node \
                    and _function_locals_snapshot(call, parents) and (held := _locals_at(call, parents)) is not None \
                    and not any(_kept_alias(v, aliases) for v in held[1]) \
                    and not _bare_alias_in(_enclosing_function(call, parents), frozenset(aliases)):
                # a snapshot whose every name's value is written out, none torch, in a function that never takes
                # torch as a value (``d['t'] = torch`` after it): a dict like any other, whatever it is handed to
                # (a setattr loop over it, ``self.__dict__.update(d)``, ``f(**d)``)
                continue
            found.append(_finding(line, "code", node.id))
        elif isinstance(node, ast.Name) and node.id in NAME_FUNCS:
            call = calls.get(id(node))
            if call is not None and call.func is node and _numbered_self_read(call, parents, self_methods()):
                continue
            reason = _name_func_use(node, calls.get(id(node)))
            if reason:
                found.append(_finding(line, *reason))
            elif node.id == "setattr" and (call := calls.get(id(node))) is not None and len(call.args) == 3 \
                    and (kept := _kept_alias(call.args[2], aliases) or next(
                        (k for v in _loop_dict_values(call.args[2], parents) if (k := _kept_alias(v, aliases))), None)):
                # ``setattr(self, name, torch)``: torch under a name of the object, as ``self.t = torch`` and
                # ``setattr(self, "t", torch)`` are (a literal name is rewritten to those before this)
                found.append(_finding(line, "kept_attribute", kept))
        elif isinstance(node, ast.Call):
            # functools.wraps(f, assigned=...) and argparse's parse_args(namespace=obj) read or set
            # attributes by the names they are given (a computed dest= sets any name on any object)
            callee = (_dotted(node.func) or [""])[-1] if isinstance(node.func, ast.Attribute | ast.Name) else ""
            keywords = {k.arg for k in node.keywords}
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("__setattr__", "__delattr__") \
                    and not _super_call(node.func.value) and len(node.args) >= 2 and not _on_self(node) \
                    and not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
                # ``object.__setattr__(torch, n, v)``: setattr with a computed name, under another name
                found.append(_finding(line, "computed_name", node.func.attr))
            if callee == "add_argument" and not isinstance(parents.get(id(node)), ast.Expr):
                found.append(_finding(line, "argparse_action", f"{callee}(...)"))
            taker = name_takers.get(callee)
            if taker is not None and (len(node.args) > 1 or keywords & NAME_TAKING_CALLS[taker]
                                      or any(isinstance(a, ast.Starred) for a in node.args)):
                found.append(_finding(line, "code", f"{taker}(..., assigned/updated)" if taker == "wraps"
                                      else f"{taker}(namespace=...)"))
    found.extend(unbound_calls(tree, checked, skip))
    taken = _methods_taken_off(tree, skip)
    for c in _nodes(tree):
        if isinstance(c, ast.ClassDef):
            for f in c.body:
                if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name in taken and any(
                        isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                        and n.value.id in ("self", "cls") and _forbidden(n.attr) for n in ast.walk(f)):
                    found.append(_finding(taken[f.name], "taken_off_object", f.name))
    found = found[:MAX_FINDINGS]
    return tuple(sorted(set(found), key=lambda s: (int(s.split()[1].rstrip(":"))
                                                   if s.split()[1].rstrip(":").isdigit() else 0, s)))


def _kept_alias(value: ast.AST | None, aliases: set[str]) -> str | None:
    """The name of torch that ``value`` may be (``torch``, ``torch or nn``), or None."""
    if value is None:
        return None
    return next((v.id for v in _operands(value, True) if isinstance(v, ast.Name) and v.id in aliases), None)


def _module_bindings(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Module-level name -> what is bound to it: a class or function definition, or the value of
    an assignment (also inside top-level ``if``/``try``/``with`` blocks)."""
    bindings: dict[str, list[ast.AST]] = {}

    def targets(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Name):
            return [node.id]
        if isinstance(node, ast.Tuple | ast.List):
            return [n for elt in node.elts for n in targets(elt)]
        return []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                bindings.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    for name in targets(target):
                        bindings.setdefault(name, []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                for name in targets(node.target):
                    bindings.setdefault(name, []).append(node.value)
            elif isinstance(node, ast.If | ast.Try | ast.With):
                for block in (getattr(node, "body", []), getattr(node, "orelse", []),
                              getattr(node, "finalbody", []), *(h.body for h in getattr(node, "handlers", []))):
                    visit(block)
    visit(tree.body)
    return bindings


def _aliases_of(bindings: dict[str, list[ast.AST]], name: str) -> set[str]:
    """``name`` and every module-level name that is the same object by plain assignment, in either
    direction (``Attn = ScaledDotProductAttention``, ``ScaledDotProductAttention = DotProductAttention``)."""
    same = {name}
    changed = True
    while changed:
        changed = False
        for bound, values in bindings.items():
            for value in values:
                if not isinstance(value, ast.Name):
                    continue
                if value.id in same and bound not in same:
                    same.add(bound)
                    changed = True
                elif bound in same and value.id not in same:
                    same.add(value.id)
                    changed = True
    return same


def _resolve_class(bindings: dict[str, list[ast.AST]], name: str) -> ast.ClassDef | None:
    """The class definition a module-level name denotes, through plain aliases."""
    seen: set[str] = set()
    while name not in seen:
        seen.add(name)
        values = bindings.get(name)
        if not values:
            return None
        value = values[-1]                # the last binding is the one the module ends with
        if isinstance(value, ast.ClassDef):
            return value
        if not isinstance(value, ast.Name):
            return None
        name = value.id
    return None


def _root_name(node: ast.AST) -> str | None:
    """The name an attribute, item or call chain starts from (``ATTENTION`` in
    ``ATTENTION.register_module()``, ``REGISTRY`` in ``REGISTRY["eager"]``), or None."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _holders_of(tree: ast.Module, bindings: dict[str, list[ast.AST]], wanted: set[str]) -> set[str]:
    """Module-level names of the file's own objects that the module-level code puts a ``wanted`` class
    into, as OpenMMLab's and fairseq's registries do: a decorator of the class rooted at the name
    (``@ATTENTION.register_module()``), a statement calling a method of it with the class
    (``ATTENTION.register_module(module=ScaledDotProductAttention)``) or storing the class in it
    (``REGISTRY["eager"] = ScaledDotProductAttention``), or a base class of the file's own registering its
    subclasses in ``__init_subclass__``. A module-level function is no holder: a decorator
    ``def register(cls)`` (fairseq's ``register_model(name)``) hands the class back, and what its body stores
    into (``MODEL_REGISTRY[name] = cls``) holds it. Imported names are not bound here, so
    ``@torch.jit.script`` makes torch no holder."""
    def own(name: str | None) -> bool:
        return name is not None and any(not isinstance(v, ast.FunctionDef | ast.AsyncFunctionDef)
                                        for v in bindings.get(name, ()))

    def names(node: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    def stored_into(body: ast.AST) -> set[str]:
        """The own names a decorator function's body stores into (``MODEL_REGISTRY[name] = cls``)."""
        found = set()
        for n in ast.walk(body):
            if isinstance(n, ast.Assign):
                found |= {_root_name(t) for t in n.targets if isinstance(t, ast.Subscript | ast.Attribute)}
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
                found.add(_root_name(n.func))
        return {r for r in found if own(r)}

    holders: set[str] = set()
    for name in wanted:
        for definition in bindings.get(name, ()):
            if not isinstance(definition, ast.ClassDef):
                continue
            for root in set(map(_root_name, definition.decorator_list)):   # each function read once
                if own(root):
                    holders.add(root)
                    # ``reg = Attention.register`` then ``@reg("x")``: the bound method stores into its object
                    holders |= {r for v in bindings.get(root, ()) if isinstance(v, ast.Attribute)
                                for r in [_root_name(v)] if own(r)}
                elif root is not None:
                    # fairseq's ``@register_model("name")``: a module-level function storing the class
                    for d in bindings.get(root, ()):
                        if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef):
                            holders |= stored_into(d)
            # a base of the file's own whose ``__init_subclass__`` registers each subclass (in itself,
            # ``cls.registry[name] = cls``, or wherever it stores)
            for root in set(map(_root_name, definition.bases)):
                for base in bindings.get(root or "", ()):
                    hooks = [f for f in getattr(base, "body", ()) if isinstance(f, ast.FunctionDef)
                             and f.name == "__init_subclass__"] if isinstance(base, ast.ClassDef) else []
                    if hooks:
                        holders.add(root)
                        holders |= {r for f in hooks for r in stored_into(f)}
    for stmt in tree.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                isinstance(stmt.value.func, ast.Attribute):
            root = _root_name(stmt.value.func)
            args = [*stmt.value.args, *(k.value for k in stmt.value.keywords)]
            if own(root) and any(names(a) & wanted for a in args):
                holders.add(root)
        elif isinstance(stmt, ast.Assign) and names(stmt.value) & wanted:
            holders |= {r for t in stmt.targets if isinstance(t, ast.Subscript | ast.Attribute)
                        for r in [_root_name(t)] if own(r)}
    return holders


@functools.lru_cache(maxsize=8)
def class_uses_class(source: str, class_name: str, used: str) -> bool:
    """Whether ``class_name`` refers to ``used``: in its own body or its bases, or through the
    module-level names it uses (an alias, an instance ``_core = ScaledDotProductAttention()``, a
    registry ``{"eager": ScaledDotProductAttention}`` or one the module-level code puts it into,
    ``@ATTENTION.register_module()``, a base class or factory that holds it).
    The trusted half of "MultiHeadAttention reuses the single-head module"; the in-jail call
    counter is only ever taken as evidence against."""
    tree = parse(source)
    if tree is None:
        return False
    bindings = _module_bindings(tree)
    if class_name not in bindings:
        return False
    wanted = _aliases_of(bindings, used)
    holders = _holders_of(tree, bindings, wanted) - {class_name}
    # the class's own registration (``@ATTENTION.register_module()`` on MultiHeadAttention too, or a
    # registering base class it shares) puts it beside the single-head module; it is no use of it
    own_decorators = {id(n) for d in bindings.get(class_name, ()) if isinstance(d, ast.ClassDef)
                      for dec in (*d.decorator_list, *d.bases, *d.keywords) for n in ast.walk(dec)}
    seen, todo = {class_name}, [class_name]
    while todo:
        name = todo.pop()
        for definition in bindings.get(name, ()):
            for node in ast.walk(definition):
                if not isinstance(node, ast.Name) or node.id in seen:
                    continue
                if node.id in wanted and node.id != class_name:
                    return True
                if node.id in holders and id(node) not in own_decorators:
                    return True
                if node.id in bindings:
                    seen.add(node.id)
                    todo.append(node.id)
    return False


# This suite's review codes, each translated by the web (app/review_text.py; a test holds them equal).
REVIEW_CODES = frozenset({"attention.unparsed", "attention.unreviewable", "attention.too_many_tokens",
                          "attention.indirect_names", "attention.fused_unseen"})


def review_reasons(source: str) -> list[Reason]:
    """Why an instructor should look at this submission (the Suite's trusted review hook). It runs
    every analysis the tests read, in the worker under its CPU limit, so that the forked test
    process finds them cached (or the source given up on) and never starts one itself."""
    fused_attention_uses(source)
    class_uses_class(source, "MultiHeadAttention", "ScaledDotProductAttention")
    class_softmax_calls(source, "MultiHeadAttention")
    hidden = hidden_name_uses(source)
    if not hidden:
        return []
    # Each reason's code is stable (the instructor pages translate it, app/review_text.py); its text is the log's.
    if hidden == (UNPARSED,):
        return [reason("attention.unparsed",
                       "attention.py does not parse (a SyntaxError: see the result's message): nothing to review")]
    if hidden == (UNREVIEWABLE,) and past_token_gate(source):
        # the grader's token gate left it unparsed: said as that, not as the review's node or depth limits
        tokens = f"{MAX_PARSE_TOKENS:,}"
        return [reason("attention.too_many_tokens",
                       f"attention.py has more than {tokens} tokens, past which the grader does not parse a source: "
                       "the fused-attention checks withheld their points; read it yourself", tokens=tokens)]
    if hidden == (UNREVIEWABLE,):
        nodes, depth = f"{MAX_REVIEW_NODES:,}", str(MAX_REVIEW_DEPTH)
        return [reason("attention.unreviewable",
                       f"attention.py is past what the source review reads ({nodes} syntax nodes, {depth} levels "
                       "of nesting): the fused-attention checks withheld their points; read it yourself",
                       nodes=nodes, depth=depth)]
    names = "; ".join(hidden[:5])
    out = reason("attention.indirect_names", "attention.py reaches functions through computed or indirect names, "
                 "which the fused-attention check cannot follow: " + names, names=names)
    out["findings"] = [finding_parts(f) for f in hidden[:5]]
    return [out]


def class_softmax_calls(source: str, class_name: str, reused: str = "ScaledDotProductAttention") -> list[str]:
    """Softmax/exp calls written directly inside ``class_name`` or the module's own classes it
    derives from (copied attention logic); an alias (``MultiHeadAttention = MultiHeadedAttention``)
    is followed, and ``reused`` (the module meant to hold that logic) is not searched."""
    return list(_class_softmax_calls(source, class_name, reused))


@functools.lru_cache(maxsize=8)
def _class_softmax_calls(source: str, class_name: str, reused: str) -> tuple[str, ...]:
    tree = parse(source)
    if tree is None:
        return ()
    bindings = _module_bindings(tree)
    allowed = {id(c) for c in map(lambda n: _resolve_class(bindings, n), _aliases_of(bindings, reused)) if c}
    # The class and its module bases, nearest first. The class's own body is read whole; a base's
    # methods only when the class's code reaches them (``self._normalise``, its forward/__init__/
    # dunders Python calls): a softmax helper in a base it shares with the single-head module, that
    # only the single-head module calls, was blamed on the multi-head class (3 points).
    chain: list[ast.ClassDef] = []
    todo, seen = [_resolve_class(bindings, class_name)], set()
    while todo:
        cls = todo.pop(0)
        if cls is None or id(cls) in seen or id(cls) in allowed:
            continue
        seen.add(id(cls))
        chain.append(cls)
        todo.extend(_resolve_class(bindings, base.id) for base in cls.bases if isinstance(base, ast.Name))
    if not chain:
        return ()
    members: dict[str, list[ast.AST]] = {}        # name -> the base-class statements defining it
    loose: list[ast.AST] = [chain[0]]              # read whole
    for cls in chain[1:]:
        for stmt in cls.body:
            names = ([stmt.name] if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) else
                     [t.id for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                      if isinstance(t, ast.Name)] if isinstance(stmt, ast.Assign | ast.AnnAssign) else [])
            if not names or any(n.startswith("__") or n == "forward" for n in names):
                loose.append(stmt)                 # called by Python or the grader, or unnamed
            for n in names:
                members.setdefault(n, []).append(stmt)
    found: list[str] = []
    done: set[int] = set()
    queue = list(loose)
    while queue:
        part = queue.pop()
        if id(part) in done:
            continue
        done.add(id(part))
        for sub in ast.walk(part):
            name = sub.attr if isinstance(sub, ast.Attribute) else sub.value \
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str) else None
            if name in members:                    # self.helper, cls.helper, getattr(self, "helper")
                queue.extend(members[name])
            if isinstance(sub, ast.Call):
                fn = sub.func
                called = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
                if called in SOFTMAX_NAMES:
                    found.append(f"line {sub.lineno}: {called}(...)")
    return tuple(sorted(set(found), key=lambda s: int(s.split()[1].rstrip(":"))))


def outcome_review(source: str, outcomes: Mapping[str, Mapping]) -> list[Reason]:
    """The Suite's ``outcome_review`` hook. The run-time counters live in the student's process: they
    can be rewritten to read zero, never to accuse, so a call they saw is a fact. When the source
    review found nothing, that call was reached in a way the review cannot read, and the checks that
    rest on it (hand-written attention, reuse, structure) passed on code nobody has read."""
    static_check = outcomes.get("test_no_fused_attention_static") or {}
    runtime_check = outcomes.get("test_no_fused_attention_runtime") or {}
    feedback = runtime_check.get("feedback")
    seen = isinstance(feedback, Mapping) and str(feedback.get("en", "")).startswith(RUNTIME_FUSED_EN)
    if static_check.get("outcome") != "passed" or runtime_check.get("outcome") != "failed" or not seen:
        return []
    calls = str(feedback["en"])[len(RUNTIME_FUSED_EN):].split(": write")[0]
    return [reason("attention.fused_unseen", f"PyTorch's ready-made attention ran ({calls}) though the "
                   "source review found no use of it: the review cannot read how it is reached, so the hand-written, "
                   "reuse and structure checks passed on code it did not follow; read the source", calls=calls)]
