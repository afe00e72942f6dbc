"""Torch's lazy first-use paths, taken once in the zygote before any jail forks from it.

Some ordinary torch calls import large stacks at their first use (the compiler: torch._dynamo,
torch._inductor, sympy), in each jail, twice per grading: seconds of CPU charged to the student's
import limit and to the service. Each function below either runs the path here once, so every jail
inherits it, or, where importing the stack here would cost every jail its address space and ~8 ms
per fork, settles the call so it no longer needs the import while that stack is not loaded (once
it is, torch's own code runs). Measured in tests/grading/test_lazy_torch_paths.py; the paths left
lazy, with their cost, are in the README's sandbox section.

Imported by the zygote only (after torch is made single-threaded), never by the trusted side.
"""

from __future__ import annotations

import builtins
import functools
import importlib._bootstrap as _bootstrap
import math
import sys
import types
from collections.abc import Callable

import torch
from torch.jit._script import ScriptMethodStub

# Private builtins, as protocol takes its own (see there): its stand-ins run when the student's code calls them.
__builtins__ = dict(builtins.__dict__)

# The import system as the jail set it up, before any student code ran (capture_import_state): the jail's own imports
# after that code ran (own_import) go through it. A file's ``sys.meta_path.insert(0, finder)`` whose finder raised
# SystemExit for every name made the runtime's own import of torch.nn.utils.prune, at the first weight load, fail each
# MultiHeadAttention that was created: said as the file's error, 52 of 85 where its code earns 68 (round 47).
_IMPORT_STATE: dict[str, object] = {}


def capture_import_state() -> None:
    """Keep the process's import system as it is now for own_import: called at this module's import (the zygote's) and
    again by runtime.prepare_process once the jail's own guard is in place (its written-modules finder first on
    sys.meta_path, no editable finders or hooks, no writable folder on sys.path). Kept only from the zygote, own_import
    had none of that guard: a module written where the jail can write, on the zygote's path, was imported (mend 47)."""
    _IMPORT_STATE.update(meta_path=list(sys.meta_path), path_hooks=list(sys.path_hooks),
                         path_importer_cache=dict(sys.path_importer_cache), path=list(sys.path))


capture_import_state()
_BOOTSTRAP = {name: getattr(_bootstrap, name) for name in ("_find_and_load", "_handle_fromlist", "_gcd_import")}
_sys_setattr, _sys_getattr = setattr, getattr


def own_import(name: str) -> types.ModuleType:
    """``import name`` through the import system kept by capture_import_state (the jail's once prepare_process ran:
    its finders, path hooks and path, and importlib's functions as the zygote had them), whatever the student's code
    did to the process's own; the process's import system is put back after it."""
    saved = {key: _sys_getattr(sys, key) for key in _IMPORT_STATE}
    saved_bootstrap = {key: _sys_getattr(_bootstrap, key) for key in _BOOTSTRAP}
    try:
        for key, value in _IMPORT_STATE.items():
            _sys_setattr(sys, key, type(value)(value))
        for key, value in _BOOTSTRAP.items():
            _sys_setattr(_bootstrap, key, value)
        _BOOTSTRAP["_gcd_import"](name)
        return sys.modules[name]
    finally:
        for key, value in saved.items():
            _sys_setattr(sys, key, value)
        for key, value in saved_bootstrap.items():
            _sys_setattr(_bootstrap, key, value)


def _warm_torch() -> None:
    """Take torch's lazy first-use paths here, once, so no jail pays them: the first autograd
    backward alone costs ~0.3 s, and inside the jail its lazy imports would also need the files.
    Single-threaded (set_num_threads(1) above), so nothing that breaks over fork is started."""
    q = torch.randn(1, 2, 3, 4, requires_grad=True)
    w = torch.softmax(torch.matmul(q, q.transpose(-2, -1)) / math.sqrt(4.0), dim=-1)
    out = torch.einsum("bhqk,bhkd->bhqd", w, q).masked_fill(torch.zeros(3, 4, dtype=torch.bool), 0.0)
    torch.nn.functional.linear(out, torch.ones(4, 4)).sum().backward()
    # autograd.grad takes another lazy path than backward() (~0.3-0.5 s of imports at first use).
    x = torch.randn(2, 3, requires_grad=True)
    torch.autograd.grad([torch.softmax(x, dim=-1)], [x], [torch.ones(2, 3)], allow_unused=True)
    torch.nn.Linear(4, 4)(out.detach().double().float())
    # Forward-mode AD's first dual tensor (torch.func.jvp, jacfwd, hessian, torch.autograd.forward_ad)
    # imports torch._decomp.decompositions_for_jvp: 0.13-0.2 s of CPU in each jail that used it, one
    # module and 4.6 MB of address space here.
    with torch.autograd.forward_ad.dual_level():
        torch.autograd.forward_ad.make_dual(torch.ones(2), torch.ones(2)).sin()


def _settle_dynamo_disables() -> None:
    """torch wraps torch.utils.checkpoint's checkpoint and checkpoint_sequential in
    ``torch._disable_dynamo`` (torch/_compile.py), which keeps them out of torch.compile by importing
    torch._dynamo at their first call: 1.6 s of CPU and 4-6 s of wall on a busy host, inside a call
    limited to 5 s. Nothing in a jail is compiled (torch.compile gives back what it is given,
    _compile_runs_eagerly; torch._dynamo is a review finding), and outside
    compilation dynamo's disable of a function is the function itself: each wrapper's cached answer is
    set to it here, before the forks, without importing dynamo (73 MB of every jail's 1 GiB address
    space and ~8 ms more per fork). The non-reentrant path also reads torch._dynamo.config: see
    runtime.Runtime.op_load.

    Every such wrapper in the torch modules loaded here is settled, not only checkpoint's: the
    optimizers' constructors are wrapped too (``torch.optim.Adam(...)`` at a module's top level, a
    Kaggle habit, cost 1.36 s of CPU and 822 imported modules in each of a grading's jails).
    ``Optimizer.step`` imports torch._dynamo itself: see _optimizer_steps_without_dynamo."""
    import gc
    import types

    import torch.optim  # its wrapped methods are settled below
    import torch.utils.checkpoint

    probe = torch._disable_dynamo(lambda: None).__code__
    fn_cell = probe.co_freevars.index("fn")

    def settle(fn: object) -> None:
        if type(fn) is types.FunctionType and "__dynamo_disable" not in fn.__dict__:
            fn.__dynamo_disable = fn

    # Every wrapper alive, not only those a module or class names: most sit under other wrappers or
    # in tables (torch._refs' out_wrapper functions wrap one each; torch.func.hessian's backward ran
    # through one of them and imported torch._dynamo). The collector lists every function object.
    # A wrapper made later, by a module first imported in a jail, is not settled: none was seen.
    for obj in gc.get_objects():
        if type(obj) is types.FunctionType and obj.__code__ is probe:
            settle(obj.__closure__[fn_cell].cell_contents)


def _deterministic_without_inductor() -> None:
    """``torch.use_deterministic_algorithms`` (the seed_everything() helper of PyTorch Lightning and
    Kaggle kernels, often called at a module's top level) imports torch._inductor.config only to copy
    the flag into the compiler's settings: 1.25-1.5 s of CPU and 822 modules (sympy, mpmath) in each
    jail, which under load pushed a correct file past its import limit. Nothing in a jail is compiled
    (see _settle_dynamo_disables), so the flag goes to the compiler's settings only once they
    are loaded; the flag itself is set as torch sets it."""
    import functools

    original = torch.use_deterministic_algorithms

    @functools.wraps(original)
    def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
        config = sys.modules.get("torch._inductor.config")
        if config is not None:
            config.deterministic = mode
        torch._C._set_deterministic_algorithms(mode, warn_only=warn_only)

    torch.use_deterministic_algorithms = use_deterministic_algorithms


def _assert_close_without_dtensor() -> None:
    """``torch.testing.assert_close`` (a self-check students leave at a file's top level) imports
    torch.distributed.tensor on every call to ask whether its arguments are DTensors: 0.8 s of CPU and
    519 modules in each jail. No object can be a DTensor before the module defining the class is
    loaded, so until then the answer is no without the import; once it is loaded, torch asks itself."""
    import torch.testing._comparison as comparison

    original = comparison._unwrap_dtensor_for_comparison

    def unwrap_dtensor_for_comparison(actual: object, expected: object) -> tuple[object, object]:
        if "torch.distributed.tensor" not in sys.modules:
            return actual, expected
        return original(actual, expected)

    comparison._unwrap_dtensor_for_comparison = unwrap_dtensor_for_comparison


def _optimizer_steps_without_dynamo() -> None:
    """Every ``step`` of torch.optim (a training loop or one sanity step at a file's top level) runs
    through ``_use_grad_for_differentiable``, which imports torch._dynamo at each call only to call
    ``torch._dynamo.graph_break()`` around the step: 0.7-0.95 s of CPU and 336 modules in each of a
    grading's jails. graph_break's body is empty; it matters only to a frame that dynamo is compiling,
    and nothing can be compiling before torch._dynamo is loaded. So until it is, each step sets the
    grad mode around the step as torch does, without the import; once it is loaded, torch's own
    wrapper runs. Every wrapped method of the loaded optimizers is replaced (found by the wrapper's
    code, not by name), keeping its name, docstring and ``__wrapped__``."""
    import functools
    import types

    import torch.optim.optimizer as optimizer

    probe = optimizer._use_grad_for_differentiable(lambda self: None).__code__

    def without_dynamo(torch_step: types.FunctionType) -> types.FunctionType:
        step = torch_step.__wrapped__

        @functools.wraps(step)
        def use_grad(*args: object, **kwargs: object) -> object:
            if "torch._dynamo" in sys.modules:
                return torch_step(*args, **kwargs)
            prev_grad = torch.is_grad_enabled()
            try:
                torch.set_grad_enabled(args[0].defaults["differentiable"])
                return step(*args, **kwargs)
            finally:
                torch.set_grad_enabled(prev_grad)

        return use_grad

    for name, module in list(sys.modules.items()):
        if not isinstance(module, types.ModuleType) or not name.startswith("torch.optim"):
            continue
        for cls in list(vars(module).values()):
            if not isinstance(cls, type) or not issubclass(cls, optimizer.Optimizer):
                continue
            for attr, value in list(vars(cls).items()):
                if (type(value) is types.FunctionType and value.__code__ is probe
                        and type(value.__dict__.get("__wrapped__")) is types.FunctionType):
                    setattr(cls, attr, without_dynamo(value))


def _functorch_grad_without_dynamo() -> None:
    """torch.func.grad, vjp and jacrev (a student's own gradient check) take their gradients through
    ``eager_transforms._autograd_grad``, which imports torch._dynamo at each call to switch compiled
    autograd off around ``torch.autograd.grad``: 0.74 s of CPU and 335 modules in each jail. Compiled
    autograd is switched on only through torch._dynamo; before that module is loaded the switch is
    settled with the C call that torch's ``compiled_autograd._disable()`` makes (its Python flags live
    in the unloaded module), and the rest is torch's function. Once torch._dynamo is loaded, torch's
    own function runs."""
    from collections.abc import Sequence

    import torch._functorch.eager_transforms as eager

    original = eager._autograd_grad
    set_compiler = torch._C._dynamo.compiled_autograd.set_autograd_compiler

    def autograd_grad(outputs: Sequence[torch.Tensor], inputs: Sequence[torch.Tensor],
                      grad_outputs: Sequence[torch.Tensor] | None = None, retain_graph: bool = False,
                      create_graph: bool = True) -> tuple[torch.Tensor, ...]:
        if "torch._dynamo" in sys.modules:
            return original(outputs, inputs, grad_outputs, retain_graph, create_graph)
        # torch's body (torch/_functorch/eager_transforms.py, 2.13), with the C switch for the import.
        if grad_outputs is None:
            diff_outputs = tuple(out for out in outputs if out.requires_grad)
        else:
            result = tuple((out, go) for out, go in zip(outputs, grad_outputs, strict=False) if out.requires_grad)
            if len(result) == 0:
                diff_outputs, grad_outputs = (), ()
            else:
                diff_outputs, grad_outputs = zip(*result, strict=False)
        if len(diff_outputs) == 0:
            return tuple(torch.zeros_like(inp) for inp in inputs)
        prior_compiler, prior_dynamic = set_compiler(None, False)
        try:
            grad_inputs = torch.autograd.grad(diff_outputs, inputs, grad_outputs, retain_graph=retain_graph,
                                              create_graph=create_graph, allow_unused=True)
        finally:
            set_compiler(prior_compiler, prior_dynamic)
        return tuple(torch.zeros_like(inp) if gi is None else gi for gi, inp in zip(grad_inputs, inputs, strict=False))

    eager._autograd_grad = autograd_grad


def _profiler_without_inductor() -> None:
    """``torch.profiler.profile`` (a student timing their attention) asks ``hasattr(torch, "_inductor")``
    when it starts, to read the compiler's ``triton.cudagraphs`` setting, and torch answers by importing
    torch._inductor: 0.6-0.66 s of CPU and 336 modules in each jail. Before that module is loaded its
    setting is its default (off: nothing can have changed it), which is what the profiler holds without
    asking (``has_cudagraphs = False``). So until it is loaded, the question finds no attribute, without
    the import; once it is loaded, torch's method runs as it is."""
    import torch.profiler.profiler as profiler

    original = profiler._KinetoProfile.prepare_trace
    lazy = vars(torch)["__getattr__"]     # torch's module __getattr__ (lazy submodules, deprecations)

    def without_inductor(name: str) -> object:
        if name == "_inductor":
            raise AttributeError(name)
        return lazy(name)

    def prepare_trace(self: profiler._KinetoProfile) -> None:
        if "torch._inductor" in sys.modules or vars(torch).get("__getattr__") is not lazy:
            return original(self)
        torch.__getattr__ = without_inductor
        try:
            return original(self)
        finally:
            torch.__getattr__ = lazy

    prepare_trace.__wrapped__ = original          # type: ignore[attr-defined]
    prepare_trace.__doc__ = original.__doc__
    profiler._KinetoProfile.prepare_trace = prepare_trace


def _config_default(module: str, name: str) -> object:
    """The literal a torch config module assigns to ``name`` at its top level, read from its source
    without importing it (``_MISSING`` when it is not one literal assignment)."""
    import ast
    import importlib.util

    try:
        spec = importlib.util.find_spec(module.rsplit(".", 1)[0])
        path = spec.submodule_search_locations[0] + "/" + module.rsplit(".", 1)[1] + ".py"
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (AttributeError, ImportError, IndexError, OSError, SyntaxError, TypeError, ValueError):
        return _MISSING
    found = [node.value for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
             and [getattr(t, "id", None) for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
             == [name]]
    if len(found) != 1 or not isinstance(found[0], ast.Constant):
        return _MISSING
    return found[0].value


_MISSING = object()
# Whether non-reentrant checkpoints run without torch._dynamo (read by runtime.Runtime.op_load).
NON_REENTRANT_CHECKPOINT_SETTLED = False


def _non_reentrant_checkpoint_without_dynamo() -> None:
    """``torch.utils.checkpoint.checkpoint(..., use_reentrant=False)`` reads
    ``torch._dynamo.config.error_on_nested_fx_trace`` before the forward it checkpoints, and its backward
    wraps a saved-tensor hook in ``torch._dynamo.disable``; torch answers both by importing torch._dynamo:
    1.6 s of CPU in a call, so the runtime imported it at the load of any source that names
    ``use_reentrant=False`` (0.67-0.81 s of the load's CPU). Before torch._dynamo is loaded nothing can be
    compiling and nothing can have changed its settings: the setting is its default, which
    torch/_dynamo/config.py assigns as a literal (read here from the source), and ``disable`` of a
    function is the function (as ``_settle_dynamo_disables`` settles torch's own wrappers). So until
    dynamo is loaded, those two steps of torch's (the pre-forward step, before the checkpointed function
    runs, and the recomputation hook's construction) find a stand-in holding just that; every other
    attribute, and everything once dynamo is loaded, is torch's own. The setting is read again only
    under non-strict tracing, which needs dynamo loaded."""
    global NON_REENTRANT_CHECKPOINT_SETTLED
    import contextlib
    import types

    import torch.utils.checkpoint as checkpoint

    default = _config_default("torch._dynamo.config", "error_on_nested_fx_trace")
    original = getattr(checkpoint, "_checkpoint_without_reentrant_generator", None)
    hook = getattr(checkpoint, "_recomputation_hook", None)
    lazy = vars(torch).get("__getattr__")
    if default is _MISSING or original is None or hook is None or lazy is None or "torch._dynamo" in sys.modules:
        return

    def disable(fn=None, recursive=True, **kwargs):
        return fn if fn is not None else (lambda f: f)

    stand_in = types.SimpleNamespace(config=types.SimpleNamespace(error_on_nested_fx_trace=default),
                                     disable=disable)

    def without_dynamo(name: str) -> object:
        if name == "_dynamo":
            return stand_in
        return lazy(name)

    @contextlib.contextmanager
    def standing_in():
        if "torch._dynamo" in sys.modules or vars(torch).get("__getattr__") is not lazy:
            yield
            return
        torch.__getattr__ = without_dynamo
        try:
            yield
        finally:
            torch.__getattr__ = lazy

    def resume(gen, value):
        """What ``yield from gen`` does, for a generator already advanced to ``value``."""
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                gen.close()
                raise
            except BaseException as e:  # noqa: BLE001 - handed on to torch's generator, as yield from does
                try:
                    value = gen.throw(e)
                except StopIteration as stop:
                    return stop.value
                continue
            try:
                value = gen.send(sent)
            except StopIteration as stop:
                return stop.value

    def generator(*args, **kwargs):
        gen = original(*args, **kwargs)
        try:
            with standing_in():
                first = next(gen)            # torch's pre-forward step: the one read of the setting
        except StopIteration as stop:
            return stop.value
        return (yield from resume(gen, first))

    generator.__wrapped__ = original          # type: ignore[attr-defined]
    generator.__doc__ = original.__doc__
    checkpoint._checkpoint_without_reentrant_generator = generator
    hook_init = hook.__init__

    def __init__(self, *args, **kwargs) -> None:
        with standing_in():
            hook_init(self, *args, **kwargs)

    __init__.__wrapped__ = hook_init          # type: ignore[attr-defined]
    hook.__init__ = __init__
    NON_REENTRANT_CHECKPOINT_SETTLED = True


def _compile_runs_eagerly() -> None:
    """``torch.compile`` (as a decorator, bare or with arguments, or on a module) and ``Module.compile``
    give back what they are given: the jail cannot compile (inductor writes a cache and runs a C++
    compiler, both refused), so each call of a compiled function raised InductorError after 2-30 s of
    tracing, and one ``@torch.compile`` helper used up a grading's whole budget (40 s: every test failed
    on PyTorch's internal message). Eager code is what the tests grade (the results are the same); a
    compiled function's ``backend`` is never called, so compiling can hide nothing from the run-time
    count, and the review reads compiled code as any other (round 30: the use is no finding)."""
    def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
                options=None, disable=False):
        return (lambda fn: fn) if model is None else model

    def module_compile(self, *args, **kwargs) -> None:
        return None

    compile.__doc__ = torch.compile.__doc__
    module_compile.__doc__ = torch.nn.Module.compile.__doc__
    torch.compile = compile
    torch.nn.Module.compile = module_compile


def _scripting_runs_eagerly() -> None:
    """``torch.jit.script`` and ``torch.jit.trace`` (as a decorator, or on a function or a module) give back
    what they are given, as torch.compile does (_compile_runs_eagerly). Scripting the kernel compiled its
    ``forward`` from source, and the grader's count of ``ScaledDotProductAttention.forward`` (runtime._wrap)
    had replaced it by a wrapper with no source: a correct file scripting its kernel module lost 32 of 85
    points, each on "Can't get source" (round 31). Scripted, the calls would not reach the counters at all
    (nor the forbidden-kernel watch: TorchScript calls aten directly), and TorchScript compiled the text
    ``inspect`` hands it, which the review need not have read as code (README, stop 23). Eager code computes
    what its scripted version computes, so the grade of correct math is the same; only TorchScript's own
    objects (``.code``, ``.graph``, ``save``) are missing, which no test reads.

    The pre-1.2 style (a class deriving from ``torch.jit.ScriptModule``, its methods decorated with
    ``@torch.jit.script_method``) compiled each instance's methods from source, once per class name per
    process: a correct file lost all 85 points (round 33) on "Can't redefine method" and on the counted
    ``F.softmax`` TorchScript no longer knew. It runs eagerly as ``PYTORCH_JIT=0`` makes torch run it:
    ``script_method`` gives back the function, and ScriptModule's metaclass leaves classes deriving from it
    as torch leaves its own (``_disable_script_meta``), so they are plain modules; ScriptModule's
    ``__setattr__`` still unwraps ``torch.jit.Attribute``, and ``define`` keeps its source uncompiled (a
    method it names does not exist), whatever a subclass sets (_script_meta_that_compiles_nothing).

    ``torch.jit.fork`` (the tutorial "Dynamic Parallelism in TorchScript": one fork per head, then
    ``torch.jit.wait``) runs a Python function at once in eager mode and hands back a completed future, but
    given a scripted function it runs the graph, past the counters: here it calls what it is given in Python
    and hands back a completed ``torch.jit.Future``, which torch's ``wait`` reads (round 33)."""
    def script(obj=None, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
        return obj

    def trace(func, example_inputs=None, *args, **kwargs):
        return func

    def script_method(fn):
        return fn

    def fork(func, *args, **kwargs):
        future = torch.jit.Future()
        future.set_result(func(*args, **kwargs))
        return future

    script.__doc__ = torch.jit.script.__doc__
    trace.__doc__ = torch.jit.trace.__doc__
    script_method.__doc__ = torch.jit.script_method.__doc__
    fork.__doc__ = torch.jit.fork.__doc__
    torch.jit.fork = fork
    torch.jit.script = script
    torch.jit.trace = trace
    torch.jit.script_method = script_method
    torch.jit.ScriptModule._disable_script_meta = True
    torch.jit._script.ScriptMeta.__init__ = _script_meta_that_compiles_nothing


def _script_meta_that_compiles_nothing(cls, name, bases, attrs) -> None:
    """ScriptModule's metaclass as torch runs it for its own classes (``_disable_script_meta``): the script
    methods and constants are gathered, nothing is compiled. torch reads that flag off the class, so a
    subclass that set ``_disable_script_meta = False`` in its body had its ``__init__`` wrapped again and
    ``self.define("...")`` compiled TorchScript from a string the review never reads as code (round 33's
    review). Whatever the class says, no instance is scripted here, so ``define`` only records its stub.
    (ScriptMethodStub is bound at the zygote's import of this module: this runs as the student's class is made,
    after its code may have changed the import system.)"""
    cls._methods = {}
    cls._constants_set = set(getattr(cls, "__constants__", ()))
    for base in reversed(bases):
        cls._methods.update(getattr(base, "_methods", {}))
        cls._constants_set = cls._constants_set.union(getattr(base, "_constants_set", set()))
    for key, value in sorted(attrs.items()):
        if isinstance(value, ScriptMethodStub):
            delattr(cls, key)
            cls._methods[value.original_method.__name__] = value
    # as torch's does: a metaclass mixed in beside ScriptMeta still runs its own __init__
    super(torch.jit._script.ScriptMeta, cls).__init__(name, bases, attrs)


def prepare() -> None:
    """Take or settle every path above, in this process, before the forks."""
    _warm_torch()
    _dynamo_stand_in()
    _settle_dynamo_disables()
    _deterministic_without_inductor()
    _assert_close_without_dtensor()
    _optimizer_steps_without_dynamo()
    _functorch_grad_without_dynamo()
    _profiler_without_inductor()
    _non_reentrant_checkpoint_without_dynamo()
    _compile_runs_eagerly()
    _scripting_runs_eagerly()
    _compiler_disable_without_dynamo()
    _compiler_settings_without_dynamo()


class DynamoStandIn(types.ModuleType):
    """``torch._dynamo`` as code reads it off torch before the module is loaded (_dynamo_stand_in): the
    parts that need no compiler answer here, as torch answers them while nothing is compiled; any other
    name loads torch._dynamo (torch's own import) and is read off it. Once dynamo is loaded, every part is
    torch's own."""

    def __init__(self) -> None:
        super().__init__("torch._dynamo")
        object.__setattr__(self, "config", DynamoConfigStandIn())

    def __getattr__(self, name: str) -> object:
        return getattr(_real_dynamo(), name)

    @staticmethod
    def disable(fn=None, recursive=True, *, reason=None, wrapping=True):
        if "torch._dynamo" in sys.modules or (fn is not None and type(fn) is not types.FunctionType):
            return _real_dynamo().disable(fn, recursive, reason=reason, wrapping=wrapping)
        if fn is None:          # @torch._dynamo.disable(recursive=False)
            return functools.partial(DynamoStandIn.disable, recursive=recursive, reason=reason, wrapping=wrapping)
        return _disabled_until_dynamo_loads(
            fn, lambda: sys.modules["torch._dynamo"].disable(fn, recursive, reason=reason, wrapping=wrapping))

    @staticmethod
    def is_compiling() -> bool:
        # nothing compiles before dynamo is loaded
        return sys.modules["torch._dynamo"].is_compiling() if "torch._dynamo" in sys.modules else False

    @staticmethod
    def reset() -> None:
        # nothing was compiled before dynamo is loaded: nothing to forget
        if "torch._dynamo" in sys.modules:
            sys.modules["torch._dynamo"].reset()

    @staticmethod
    def graph_break(msg: str = "") -> None:
        # a marker only a compilation reads (an empty function in torch)
        if "torch._dynamo" in sys.modules:
            sys.modules["torch._dynamo"].graph_break(msg)

    @staticmethod
    def mark_dynamic(t, index, **kwargs) -> None:
        # a mark only a compilation reads; torch's own marks once dynamo is loaded
        if "torch._dynamo" in sys.modules:
            sys.modules["torch._dynamo"].mark_dynamic(t, index, **kwargs)

    @staticmethod
    def mark_static(t, index=None) -> None:
        if "torch._dynamo" in sys.modules:
            sys.modules["torch._dynamo"].mark_static(t, index)

    @staticmethod
    def maybe_mark_dynamic(t, index) -> None:
        if "torch._dynamo" in sys.modules:
            sys.modules["torch._dynamo"].maybe_mark_dynamic(t, index)


class DynamoConfigStandIn:
    """``torch._dynamo.config`` before dynamo is loaded: a setting torch/_dynamo/config.py defines is kept
    here (``suppress_errors = True``, ``cache_size_limit = 64``) and given to torch's config when dynamo is
    loaded through the stand-in; it changes only what a compilation does, and nothing compiles before then.
    Anything else (reading a setting, a name the config does not define) is torch's own config."""

    def __init__(self) -> None:
        object.__setattr__(self, "pending", {})

    def __setattr__(self, name: str, value: object) -> None:
        if "torch._dynamo" not in sys.modules and name in _dynamo_setting_names():
            self.pending[name] = value
        else:
            setattr(_real_dynamo().config, name, value)

    def __getattr__(self, name: str) -> object:
        return getattr(_real_dynamo().config, name)


@functools.cache
def _dynamo_setting_names() -> frozenset[str]:
    """The names torch/_dynamo/config.py assigns at its top level, read from its source."""
    import ast
    import importlib.util

    try:
        spec = importlib.util.find_spec("torch._dynamo")
        with open(spec.submodule_search_locations[0] + "/config.py", encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (AttributeError, ImportError, IndexError, OSError, SyntaxError, TypeError, ValueError):
        return frozenset()
    return frozenset(t.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign)
                     for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                     if isinstance(t, ast.Name) and not t.id.startswith("_"))


DYNAMO_STAND_IN: DynamoStandIn | None = None


def _real_dynamo() -> types.ModuleType:
    """torch._dynamo, imported as torch imports it (through the import system the jail set up: own_import), with the
    settings the stand-in kept given to it."""
    dynamo = own_import("torch._dynamo")
    if DYNAMO_STAND_IN is not None:
        pending = DYNAMO_STAND_IN.config.pending
        while pending:
            name, value = next(iter(pending.items()))
            del pending[name]
            setattr(dynamo.config, name, value)
    return dynamo


def _dynamo_stand_in() -> None:
    """``import torch._dynamo`` with ``@torch._dynamo.disable``, ``torch._dynamo.config.suppress_errors =
    True``, ``reset()`` or ``mark_dynamic`` (code written for torch.compile before torch.compiler existed) loaded
    torch._dynamo in each jail: 1.4-1.6 s of CPU, a correct file so written graded in 10 s on a busy host.
    Until dynamo is loaded nothing can be compiling (the jail's torch.compile gives back what it is given), so
    ``torch._dynamo`` read off torch is a stand-in (DynamoStandIn) that answers those parts as torch does
    outside a compilation and loads dynamo for anything else; the file's own ``import torch._dynamo`` and
    ``from torch._dynamo import disable`` bind it without the import (runtime._limited_builtins). Read
    before the other settled paths capture torch's module ``__getattr__`` (their stand-ins go through it)."""
    global DYNAMO_STAND_IN
    lazy = vars(torch).get("__getattr__")
    if lazy is None or "torch._dynamo" in sys.modules:
        return
    DYNAMO_STAND_IN = stand_in = DynamoStandIn()

    def with_stand_in(name: str) -> object:
        if name == "_dynamo" and "torch._dynamo" not in sys.modules:
            return stand_in
        return lazy(name)

    with_stand_in.__wrapped__ = lazy         # type: ignore[attr-defined]
    torch.__getattr__ = with_stand_in


def _disabled_until_dynamo_loads(fn: types.FunctionType, make: Callable[[], Callable]) -> Callable:
    """``fn`` as dynamo's disable gives it back, before torch._dynamo is loaded: a thin wrapper that calls it
    and asks again at each call; once dynamo is loaded it calls torch's disabled function, made then by
    ``make()``, as torch would have (its skip marker is on the code that runs)."""
    made: list = []

    @functools.wraps(fn)
    def disabled(*args, **kwargs):
        if "torch._dynamo" not in sys.modules:
            return fn(*args, **kwargs)
        if not made:
            made.append(make())
        return made[0](*args, **kwargs)

    return disabled


def _compiler_disable_without_dynamo() -> None:
    """``torch.compiler.disable`` (``@torch.compiler.disable`` on a helper, a habit from code written for
    torch.compile) imports torch._dynamo to wrap the function: 1.4-1.6 s of CPU in each jail, and a
    correct file so decorated took 10 s to grade and once met its import limit. Outside compilation a
    disabled function is the function, and nothing can be compiling before torch._dynamo is loaded. So
    until it is, a plain function is given back in a thin wrapper that calls it; the wrapper asks again
    at each call, and once dynamo is loaded (the file's own ``import torch._dynamo``, say) it calls
    torch's disabled function, made then, as torch would have. Anything other than a plain function
    (a module, a class), and every call once dynamo is loaded, goes to torch's own ``disable``.
    ``torch._dynamo.disable`` is _dynamo_stand_in's."""
    import torch.compiler as compiler

    original = compiler.disable

    def disable(fn=None, recursive=True, *, reason=None):
        if "torch._dynamo" in sys.modules or (fn is not None and type(fn) is not types.FunctionType):
            return original(fn, recursive, reason=reason)
        if fn is None:          # @torch.compiler.disable(recursive=False)
            return functools.partial(disable, recursive=recursive, reason=reason)
        return _disabled_until_dynamo_loads(fn, lambda: original(fn, recursive, reason=reason))

    disable.__doc__ = original.__doc__
    disable.__wrapped__ = original          # type: ignore[attr-defined]
    compiler.disable = disable

    # ``torch.compiler.reset()`` (between benchmark runs, as torch's docs advise) imports torch._dynamo to
    # clear its caches: before dynamo is loaded nothing was compiled, so there is nothing to clear (round 33)
    original_reset = compiler.reset

    def reset() -> None:
        if "torch._dynamo" in sys.modules:
            original_reset()

    reset.__doc__ = original_reset.__doc__
    reset.__wrapped__ = original_reset      # type: ignore[attr-defined]
    compiler.reset = reset


def _compiler_settings_without_dynamo() -> None:
    """``torch.compiler.set_stance("force_eager")`` (a call, a context manager or a decorator) imports torch._dynamo,
    and ``torch.compiler.cudagraph_mark_step_begin()`` (gpt-fast's, before each decoding step) torch._inductor: seconds
    of CPU in each jail for a setting of a compiler that never runs there (_compile_runs_eagerly). Until dynamo is
    loaded a stance is kept nowhere: the stand-in checks its arguments as torch does and, as a decorator, calls the
    function in Python. Until inductor is loaded there is no CUDA graph tree whose step could begin. Once either is
    loaded, torch's own function answers (the review's side: static.COMPILER_SETTINGS)."""
    import torch.compiler as compiler
    from torch.utils._contextlib import _DecoratorContextManager

    original_stance, original_mark = compiler.set_stance, compiler.cudagraph_mark_step_begin

    class StanceWithoutDynamo(_DecoratorContextManager):
        def __init__(self, stance: str = "default", *, skip_guard_eval_unsafe: bool = False,
                     force_backend: object = None) -> None:
            if force_backend is not None and stance != "default":
                raise RuntimeError("non-default stance cannot have force_backend set")
            self.stance, self.skip, self.backend = stance, skip_guard_eval_unsafe, force_backend

        def __enter__(self) -> None:
            pass

        def __exit__(self, *exc_info: object) -> None:
            pass

        def clone(self) -> StanceWithoutDynamo:
            return StanceWithoutDynamo(self.stance, skip_guard_eval_unsafe=self.skip, force_backend=self.backend)

    def set_stance(stance: str = "default", *, skip_guard_eval_unsafe: bool = False,
                   force_backend: object = None) -> object:
        made = original_stance if "torch._dynamo" in sys.modules else StanceWithoutDynamo
        return made(stance, skip_guard_eval_unsafe=skip_guard_eval_unsafe, force_backend=force_backend)

    def cudagraph_mark_step_begin() -> None:
        if "torch._inductor" in sys.modules:
            original_mark()

    for stand_in, original in ((set_stance, original_stance), (cudagraph_mark_step_begin, original_mark)):
        stand_in.__doc__ = original.__doc__
        stand_in.__wrapped__ = original     # type: ignore[attr-defined]
        setattr(compiler, original.__name__, stand_in)
    _backend_settings_without_dynamo()


def _backend_settings_without_dynamo() -> None:
    """``torch.compiler.get_default_backend``/``set_default_backend`` and ``set_enable_guard_collectives`` import
    torch._dynamo (its backend registry, its guard hook): 1-1.6 s of the jail's CPU for a setting of a compiler that
    never runs there (round 34). Until dynamo is loaded each setting is kept here, checked as torch checks it; the
    first of these calls once dynamo is loaded hands torch what was kept, and torch's own functions answer from then
    on. ``list_backends`` stays torch's: the backends it lists are found by importing them."""
    import torch.compiler as compiler

    originals = (compiler.get_default_backend, compiler.set_default_backend, compiler.set_enable_guard_collectives)
    original_get, original_set, original_guard = originals
    kept: dict[str, object] = {}          # what was set before dynamo was loaded, until torch is told it

    def loaded() -> bool:
        if "torch._dynamo" not in sys.modules:
            return False
        if "backend" in kept:
            original_set(kept.pop("backend"))
        if "guard" in kept:
            original_guard(kept.pop("guard"))
        return True

    def get_default_backend() -> object:
        return original_get() if loaded() else kept.get("backend", "inductor")

    def set_default_backend(backend: object) -> None:
        if loaded():
            return original_set(backend)
        if backend is not None and not isinstance(backend, str) and not callable(backend):
            raise TypeError(f"backend must be a string or callable, got {type(backend)}")
        kept["backend"] = "inductor" if backend is None else backend
        return None

    def set_enable_guard_collectives(enabled: bool) -> bool:
        if loaded():
            return original_guard(enabled)
        before = bool(kept.get("guard", False))     # whether a guard hook was set: none before dynamo
        kept["guard"] = bool(enabled)
        return before

    for stand_in, original in zip((get_default_backend, set_default_backend, set_enable_guard_collectives),
                                  originals, strict=True):
        stand_in.__doc__ = original.__doc__
        stand_in.__wrapped__ = original     # type: ignore[attr-defined]
        setattr(compiler, original.__name__, stand_in)
