"""The serving loop that runs inside the jail (generic, assignment-agnostic).

Imported by the zygote *before* any fork: the jail cannot import anything from the project tree.
Every request is ``{"op": ..., "seq": n, "mark": m, ...}``; every reply is ``{"seq": n, "mark": m, "ok": True,
"value": v}`` or ``{"seq": n, "mark": m, "ok": False, "error": {"kind", "message", "lineno", "offset"}}`` (offset: a
SyntaxError's column). The trusted side treats every reply as untrusted data (student code shares this process and
can forge anything it likes).
"""

from __future__ import annotations

import builtins
import functools
import importlib
import inspect
import io
import linecache
import os
import pkgutil
import re
import resource
import socket
import sys
import traceback  # noqa: F401  (pre-imported for student code that uses it)
import types

import numpy as np
import torch
import torch.nn
import torch.nn.functional

# Bound here, in the zygote, not where _load_reparametrized runs: that is after the student's code, which may have
# changed the import system (lazy_torch.own_import).
from torch.nn.utils import parametrize
from torch.nn.utils.prune import BasePruningMethod
from torch.nn.utils.weight_norm import WeightNorm

from grading.sandbox import lazy_torch, protocol
from grading.sandbox.pylab_names import (
    PYLAB_BUILTINS,
    PYLAB_DISPLAY_NAMES,
    PYLAB_NUMPY_MODULES,
    PYLAB_STDLIB_NAMES,
    PYPLOT_DISPLAY_NAMES,
    PYPLOT_STDLIB_NAMES,
)

# Private builtins, as protocol takes its own (see there): the loop that serves the grader runs here.
__builtins__ = dict(builtins.__dict__)


def _with_private_builtins(module: types.ModuleType) -> types.ModuleType:
    """A fresh copy of the pure-Python standard library ``module`` whose functions look their builtins up in a copy
    of their own (as this module's do): what the runtime calls of it after the student's module ran then works
    whatever that code did to ``builtins`` (``inspect.getattr_static`` read ``type.__dict__["__mro__"]`` of a
    student's ``builtins.type``: KeyError, said as the file's failing to load, round 46)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_runtime_{module.__name__}", module.__file__)
    copy = importlib.util.module_from_spec(spec)
    copy.__builtins__ = dict(builtins.__dict__)
    spec.loader.exec_module(copy)
    return copy


_getattr_static = _with_private_builtins(inspect).getattr_static

MESSAGE_CAP = 2000
# The tensor class and its C ``as_subclass`` as they were before student code ran (this module is imported in the
# zygote): ``torch.Tensor = Fake`` at import made every tensor argument or result "not a tensor" (round 45 review RC
# MED 2). The wire's own references are protocol's (``_Tensor``).
_Tensor, _as_subclass = torch.Tensor, torch._C.TensorBase.as_subclass

# The student's working directory: empty and writable, on the jail's own size-capped /tmp tmpfs
# (what ``python attention.py`` in a fresh folder of the student's own machine would give).
WORKDIR = "/tmp/work"
# input() has no keyboard in the grader: the first calls return "" (Enter pressed), then EOFError.
INPUT_CALLS = 10


class _Fail(Exception):
    """An error to report as-is (not an exception raised by the student's code)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


def _take(left: list[int], n: int) -> None:
    """Count ``n`` more values of a result against ``left``; past it, what the encoder says of them."""
    left[0] -= n
    if left[0] < 0:
        raise _Fail("InvalidResult", "too many values")


def _safe_str(e: BaseException) -> str:
    try:
        s = str(e)
    except BaseException:  # noqa: BLE001 - student-defined __str__ may do anything
        s = "<unprintable exception>"
    if not isinstance(s, str):
        s = "<unprintable exception>"
    return s[:MESSAGE_CAP]


def _exit_status(e: SystemExit) -> str:
    """What a SystemExit makes of the process as ``python attention.py`` would end: ``"exit code N"`` (its code an
    integer, 0 for None), or ``"exit code 1, message: TEXT"`` (any other code, which Python prints to stderr before
    exiting with status 1). str(e) alone said "3" for ``raise SystemExit(3)`` and "3" again for ``sys.exit("3")``,
    which exits with 1 (round 35); grading.proxy says it to the student in both languages."""
    try:
        code = e.code
        if code is None or isinstance(code, int):
            # The status the process exits with, as a parent sees it: the code's low byte (sys.exit(256) exits
            # with 0, sys.exit(-1) with 255), -1 (255) for one beyond a C long, as CPython's exit(). The code
            # itself was said ("exit code 256") though no process exits with that.
            code = int(code or 0)
            return f"exit code {(code if -(1 << 63) <= code < (1 << 63) else -1) & 0xFF}"
    except BaseException:  # noqa: BLE001 - a student subclass may make ``code`` anything
        return _safe_str(e)
    return f"exit code 1, message: {_safe_str(e)}"


def _size(v: int, what: str) -> int:
    """``v`` when it can be a size (0..MAX_SIZE, what a torch size can be), else the submission's
    error. The trusted side quotes sizes in feedback ("q_proj maps 16 -> 24 features"): a Linear
    whose ``in_features`` was set to 10**4299 was quoted whole (4,300 digits) in every test that
    looks at the projections, and one of 10**5000 failed to encode in an opaque way."""
    if 0 <= v <= protocol.MAX_SIZE:
        return v
    shown = str(v) if abs(v) < 10 ** 18 else f"an integer of about {int(v.bit_length() * 0.30103) + 1} digits"
    raise _Fail("ValueError", f"{what} is {shown}, which cannot be a number of features "
                              f"(a size is between 0 and {protocol.MAX_SIZE})")


class Runtime:
    def __init__(self):
        self.module: types.ModuleType | None = None
        self.filename = "<student>"
        self.handles: dict[int, object] = {}
        self.count: dict[str, int] = {}
        self.forbid: dict[str, int] = {}
        self.missing: list[str] = []
        self._guards: list[object] = []       # kept alive: torch mode guards set by _restore_defaults
        self.changed: list[int | str] = []    # the last call's tensor arguments changed in place (op_call)
        self.body_cap = protocol.BODY_CAP      # what one reply may carry (serve's body_cap)

    # ------------------------------------------------------------------ errors
    def error_info(self, e: BaseException) -> dict:
        if isinstance(e, _Fail):
            return {"kind": e.kind, "message": e.message[:MESSAGE_CAP], "lineno": None}
        try:
            kind = str(type(e).__name__)[:100]
        except BaseException:  # noqa: BLE001
            kind = "Exception"
        lineno = offset = None
        if isinstance(e, SyntaxError) and getattr(e, "filename", None) == self.filename:
            ln = getattr(e, "lineno", None)
            lineno = ln if type(ln) is int else None
            # The column Python's own traceback points its caret at (1-based, in characters of the
            # line): the result page names it and marks it in the line shown.
            col = getattr(e, "offset", None)
            offset = col if type(col) is int and col > 0 else None
        tb = e.__traceback__
        while tb is not None:
            try:
                if tb.tb_frame.f_code.co_filename == self.filename:
                    lineno = tb.tb_lineno
            except BaseException:  # noqa: BLE001
                pass
            tb = tb.tb_next
        if isinstance(e, SyntaxError):
            msg = getattr(e, "msg", None)
            message = msg[:MESSAGE_CAP] if isinstance(msg, str) else _safe_str(e)
        elif isinstance(e, SystemExit):
            message = _exit_status(e)[:MESSAGE_CAP]
        else:
            message = _safe_str(e)
        if offset is not None and lineno != getattr(e, "lineno", None):
            offset = None      # the line is a frame's (code compiling more code), not the error's own
        info = {"kind": kind, "message": message, "lineno": lineno, "offset": offset}
        memory = _past_memory_limit(e, message)
        if memory is not None:
            info["memory"] = memory
        return info

    # ------------------------------------------------------------------ watch wrappers
    @staticmethod
    def _resolve(root, dotted: str):
        parts = dotted.split(".")
        obj = root
        for p in parts[:-1]:
            obj = getattr(obj, p)
        return obj, parts[-1]

    def _wrap(self, owner, attr: str, counter: dict, name: str) -> None:
        static = _getattr_static(owner, attr)
        orig = getattr(owner, attr)
        if isinstance(static, staticmethod):
            target = static.__func__
        elif isinstance(static, classmethod):
            target = static.__func__
        elif isinstance(owner, type) and callable(static):
            target = static      # plain function / method descriptor: called with self
        else:
            target = orig

        def wrapper(*args, **kwargs):
            counter[name] = counter.get(name, 0) + 1
            return target(*args, **kwargs)

        # The names only, not functools.wraps: its ``__wrapped__`` (and the copied ``__dict__``) hand the
        # uncounted original to anyone who asks (inspect.unwrap, ``f.__wrapped__``).
        for attr_name in ("__name__", "__qualname__", "__doc__", "__module__"):
            try:
                setattr(wrapper, attr_name, getattr(target, attr_name))
            except (AttributeError, TypeError):
                pass

        if isinstance(static, staticmethod):
            setattr(owner, attr, staticmethod(wrapper))
        elif isinstance(static, classmethod):
            setattr(owner, attr, classmethod(wrapper))
        else:
            setattr(owner, attr, wrapper)

    @staticmethod
    def _wrap_operator(packet, counter: dict, name: str) -> None:
        """Count the calls of a dispatcher operator (``torch.ops.aten._scaled_dot_product_attention_math``)
        made through its packet or any overload (``.default``): each of them calls its own ``_op``, a
        builtin no wrapper of ``torch.X`` reaches, so each instance's ``_op`` is wrapped."""
        def counted(op):
            def wrapper(*args, **kwargs):
                counter[name] = counter.get(name, 0) + 1
                return op(*args, **kwargs)
            return wrapper

        for target in [packet, *(getattr(packet, overload) for overload in packet.overloads())]:
            target._op = counted(target._op)

    def _install_forbid(self, names: list[str]) -> None:
        for name in names:
            self.forbid[name] = 0
            path = name[len("torch."):] if name.startswith("torch.") else name
            try:
                owner, attr = self._resolve(torch, path)
                if path.startswith("ops."):
                    self._wrap_operator(getattr(owner, attr), self.forbid, name)
                else:
                    self._wrap(owner, attr, self.forbid, name)
            except AttributeError:
                self.missing.append(name)
                # Not imported yet (torch.nn.attention.flex_attention, which torch.compile also imports):
                # it is wrapped as soon as anything imports its module (_NoWrittenModules).
                module, attr = name.rsplit(".", 1)
                if module.startswith("torch.") and module not in sys.modules:
                    _LATE_WRAPS.setdefault(module, []).append((self, attr, name))

    def _install_count(self, names: list[str]) -> None:
        for name in names:
            self.count[name] = 0
            try:
                owner, attr = self._resolve(self.module, name)
                self._wrap(owner, attr, self.count, name)
                # A module whose class replaces nn.Module.__call__ (a JAX/Flax habit: the computation in
                # __call__, ``forward = __call__``) is called without its forward: ``self.attention(q, k, v)``
                # is a call of it all the same. A __call__ that hands on to forward counts twice; counts
                # are only compared before and after a call.
                if attr == "forward" and isinstance(owner, type) and issubclass(owner, torch.nn.Module) \
                        and _getattr_static(owner, "__call__") is not \
                        _getattr_static(torch.nn.Module, "__call__"):
                    self._wrap(owner, "__call__", self.count, name)
            except AttributeError:
                self.missing.append(name)

    # ------------------------------------------------------------------ results
    def result(self, value, obj=None, method: str = "__call__", depth: int = 0, left: list[int] | None = None):
        """``value`` as plain types; ``left``: how many more values the whole result may hold (the
        encoder's ``protocol.MAX_ITEMS``), counted before a container is walked: a tuple of a million
        Nones was walked whole, ~1 s of the jail's budget per call, and then refused by the encoder."""
        if left is None:
            left = [protocol.MAX_ITEMS]
        if obj is not None and value is obj:
            return None                      # e.g. module.eval() returns the module itself
        if isinstance(value, _Tensor):
            t = value if type(value) is _Tensor else _as_subclass(value, _Tensor)
            return _plain_tensor(t.detach(), self.body_cap)
        if isinstance(value, np.ndarray | np.generic):
            # Arrays (and NumPy scalars such as np.float64) go back as plain arrays; a subclass
            # (np.matrix, masked arrays, student classes) is reduced to its data. One over the reply's cap
            # is said as a tensor is (its shape and bytes), before it is copied.
            nbytes = int(np.ndarray.__getattribute__(value, "nbytes")) if isinstance(value, np.ndarray) else 0
            if nbytes > self.body_cap:
                shape = "[" + ",".join(str(int(n)) for n in np.ndarray.__getattribute__(value, "shape")) + "]"
                raise _Fail("InvalidResult", f"an array of shape {shape}, whose values take {nbytes} bytes: larger "
                                             f"than the {self.body_cap} bytes a reply may carry")
            return np.array(value, order="C", copy=True, subok=False)
        if value is None or type(value) in (bool, int, float, str):
            return value
        # Subclasses (a NamedTuple ``(output, weights)``, an OrderedDict of outputs) are read through
        # the base type's own storage, never the subclass's methods, and go back as the plain type:
        # only plain containers cross the boundary.
        if isinstance(value, tuple | list) and depth < 4:
            base = tuple if isinstance(value, tuple) else list
            _take(left, base.__len__(value))
            return base(self.result(v, None, method, depth + 1, left) for v in base.__iter__(value))
        if isinstance(value, dict) and depth < 4:
            _take(left, dict.__len__(value))
            items = list(dict.items(value))
            if all(type(k) is str for k, _ in items):
                return {k: self.result(v, None, method, depth + 1, left) for k, v in items}
        what = "forward" if method in ("__call__", "forward") else method
        try:
            tname = type(value).__name__
        except BaseException:  # noqa: BLE001
            tname = "object"
        raise _Fail("TypeError", f"{what} returned {tname}, expected a Tensor or an array")

    # ------------------------------------------------------------------ ops
    def op_load(self, req):
        if self.module is not None:
            raise _Fail("RuntimeError", "already loaded")
        source, filename, module_name = req["source"], req["filename"], req["module_name"]
        watch = req.get("watch") or {}
        self.filename = filename
        _STUDENT_FILES.add(filename)
        # The lines Python's tokenizer sees (it breaks lines at \n, \r\n and \r only): str.splitlines()
        # also breaks at form feeds, \x1c-\x1e, \x85 and \u2028, so a comment holding one of those
        # would shift every later line, and inspect.getsource() (torch.jit.script) would hand out
        # text the review read as a comment.
        linecache.cache[filename] = (len(source), None, io.StringIO(source, newline=None).readlines(), filename)
        self._install_forbid(list(watch.get("forbid", [])))
        mod = types.ModuleType(module_name)
        mod.__file__ = filename
        # Always set (the process's builtins, as a module imported at home has, when no imports are limited): without
        # it exec gave the module this module's private dict, and a file's ``__builtins__["isinstance"] = ...`` rebound
        # the loop's own isinstance (round 46 review RC LOW 1).
        mod.__dict__["__builtins__"] = _limited_builtins(list(watch["imports"]), module_name,
                                                         list(watch.get("inert", []))) \
            if "imports" in watch else builtins.__dict__
        self.module = mod
        sys.modules[module_name] = mod
        # What ``python attention.py`` sees on the student's machine, not the zygote's command line.
        sys.argv = [filename]
        sys.orig_argv = ["python", filename]
        try:
            code = compile(source, filename, "exec", dont_inherit=True)
            try:
                exec(code, mod.__dict__)
            except SystemExit as exc:
                # ``sys.exit()`` / ``sys.exit(0)`` ending a script is a successful run of its top level;
                # what it defined before the exit is the module. Any other exit code is a failure.
                if exc.code not in (None, 0):
                    raise
        finally:
            self._restore_defaults()
        if _NON_REENTRANT_CHECKPOINT.search(source) and "torch._dynamo" not in sys.modules \
                and not lazy_torch.NON_REENTRANT_CHECKPOINT_SETTLED:    # settled: no dynamo needed
            # torch.utils.checkpoint with use_reentrant=False reads torch._dynamo.config at every call:
            # its first call imported torch._dynamo, 1.6 s of CPU and 4-6 s of wall on a busy host,
            # inside a call limited to 5 s. Imported here it is load time, which has 10 s (the zygote
            # does not import it for everyone: 73 MB more of each jail's 1 GiB address space and ~8 ms
            # more per fork; the reentrant default needs none of it, see lazy_torch._settle_dynamo_disables).
            # Through the jail's import system, not the file's (a finder of its raising SystemExit ended the load).
            try:
                lazy_torch.own_import("torch._dynamo")
            except Exception:  # noqa: BLE001 - the student's call imports it itself, and reports its error
                pass
        self._install_count(list(watch.get("count", [])))
        return None

    def _restore_defaults(self) -> None:
        """Put back the process-wide torch defaults the grader's calls rely on (float32 inputs,
        autograd for the gradient tests, CPU, one thread), which a file's top level may change for
        its own demo (``torch.set_default_dtype(torch.float64)``, ``torch.set_grad_enabled(False)``).
        Everything the module built stays as it was built; what the grader builds afterwards (the
        student's classes, called with the grader's arguments) gets the defaults."""
        if torch.is_inference_mode_enabled():
            # Left entered by ``torch.inference_mode().__enter__()`` (a guard the module holds):
            # a guard of our own, kept for the life of the jail, turns it off again.
            guard = torch._C._InferenceMode(False)
            self._guards.append(guard)
        if not torch.is_grad_enabled():
            torch.set_grad_enabled(True)
        if torch.get_default_dtype() is not _DEFAULTS["dtype"]:
            torch.set_default_dtype(_DEFAULTS["dtype"])   # also undoes set_default_tensor_type
        # A default device is a torch.utils._device.DeviceContext: without that module imported
        # there is none (get_default_device() would import it: ~1.5 ms for every jail).
        if "torch.utils._device" in sys.modules and torch.get_default_device().type != "cpu":
            torch.set_default_device(None)
        if torch.get_float32_matmul_precision() != _DEFAULTS["matmul_precision"]:
            torch.set_float32_matmul_precision(_DEFAULTS["matmul_precision"])
        if torch.get_num_threads() != _DEFAULTS["num_threads"]:
            torch.set_num_threads(_DEFAULTS["num_threads"])

    def _need_module(self):
        if self.module is None:
            raise _Fail("RuntimeError", "module not loaded")
        return self.module

    def _handle(self, h):
        if type(h) is not int or h not in self.handles:
            raise _Fail("RuntimeError", f"unknown handle {h!r}")
        return self.handles[h]

    def op_new(self, req):
        """``name(*args, **kwargs)``; then, when asked, its parameters set and ``eval()`` called,
        in the same round trip (a handle is only registered once all of it succeeded). With
        ``describe`` (attributes), the reply is ``{"handle", "layout"}``: the object's describe reply too."""
        owner, attr = self._resolve(self._need_module(), req["name"])
        cls = getattr(owner, attr)
        obj = cls(*req.get("args", []), **req.get("kwargs", {}))
        if req.get("params") is not None:
            self._set_params(obj, req["params"])
        if req.get("eval"):
            self.result(obj.eval(), obj, "eval")
        h = len(self.handles) + 1
        self.handles[h] = obj
        if req.get("describe") is None:
            return h
        # The layout the trusted side reads next (client.Session.build, ``describe``): computed by the
        # describe op as a describe request would be dispatched (through OPS, which the submission can
        # rewrite), so it is what that request would answer now, and one round trip is spared. A layout
        # the op cannot give (it raised) is left to that request, which raises it as describe's error.
        try:
            layout = self.OPS["describe"](self, {"op": "describe", "handle": h, "attributes": req["describe"]})
        except BaseException:  # noqa: BLE001 - student code (a property, a rewritten op) may raise anything
            layout = None
        return {"handle": h, "layout": layout}

    def op_call(self, req):
        obj = self._handle(req["handle"])
        method = req["method"]
        fn = obj if method == "__call__" else getattr(obj, method)
        args, kwargs = req.get("args", []), req.get("kwargs", {})
        before = _snapshot(args, kwargs)
        out = fn(*args, **kwargs)
        # The inputs are the jail's own copies: a call that changes them in place (mask.masked_fill_(...))
        # changes nothing the grader holds, so it is told in the reply ("changed": positions and names).
        self.changed = _changed(before, args, kwargs)
        return self.result(out, obj, method)

    def op_fn(self, req):
        """Call a module-level function (``softmax(a, axis=-1)``): NumPy-style assignments."""
        owner, attr = self._resolve(self._need_module(), req["name"])
        fn = getattr(owner, attr)
        if not callable(fn):
            raise _Fail("TypeError", f"{req['name']} is a {type(fn).__name__}, not a function")
        out = fn(*req.get("args", []), **req.get("kwargs", {}))
        return self.result(out, None, req["name"])

    def op_set_params(self, req):
        self._set_params(self._handle(req["handle"]), req["params"])

    def _set_params(self, obj, params: dict) -> None:
        if not isinstance(obj, torch.nn.Module):
            raise _Fail("TypeError", f"{type(obj).__name__} is not a torch.nn.Module")
        with torch.no_grad():
            for name, value in params.items():
                p = _tensor_at(obj, name)
                if p is None:
                    raise _Fail("AttributeError", f"the model has no parameter {name!r}")
                if isinstance(p, _UNINITIALISED):
                    # A lazy module (nn.LazyLinear) gets its shape from the first input; the values
                    # being loaded fix it the same way, and its first forward then keeps them.
                    p.materialize(tuple(value.shape), dtype=value.dtype)
                if tuple(p.shape) != tuple(value.shape):
                    raise _Fail("ValueError", f"parameter {name!r} has shape {tuple(p.shape)}, "
                                              f"expected {tuple(value.shape)}")
                if not _load_reparametrized(obj, name, value):
                    p.copy_(value)

    def op_describe(self, req):
        obj = self._handle(req["handle"])
        is_module = isinstance(obj, torch.nn.Module)
        info = {"type": type(obj).__name__, "is_module": is_module, "training": None,
                "parameters": {}, "children": {}}
        if is_module:
            info["training"] = bool(obj.training)
            asked = {n for n in req.get("attributes", []) if type(n) is str}
            kept = _Kept(asked)
            info["parameters"] = {n: [int(s) for s in p.shape] for n, p in obj.named_parameters()
                                  if not isinstance(p, _UNINITIALISED) and kept(n, "p")}   # a lazy one has no shape yet
            # Every registered name, aliases included (named_children() drops a second name of the
            # same module, e.g. ``self.q_proj = self.linears[0]``), plus the attributes asked for.
            names = [n for n, c in obj._modules.items() if c is not None and kept(n, "c")]
            names += [n for n in req.get("attributes", []) if type(n) is str and n not in names and kept(n, "c")]
            for n in names:
                try:
                    c = getattr(obj, n)
                except Exception:  # noqa: BLE001 - a student property may raise
                    continue
                if not isinstance(c, torch.nn.Module):
                    continue
                child = {"type": type(c).__name__, "is_linear": isinstance(c, torch.nn.Linear)}
                for a in ("in_features", "out_features"):
                    v = getattr(c, a, None)
                    if type(v) is int:
                        child[a] = _size(v, f"{n}.{a}")
                if child["is_linear"]:
                    child["bias"] = isinstance(getattr(c, "bias", None), _Tensor)
                info["children"][n] = child
            # Every Linear inside, in registration order, with its dotted name and, for a second
            # name of the same module, the first one (so that aliases are not counted twice).
            first: dict[int, str] = {}
            for n, c in obj.named_modules(remove_duplicate=False):
                if n and isinstance(c, torch.nn.Linear) and n.count(".") < 3 and kept(n, "l"):
                    entry = {"name": n, "in_features": _size(int(c.in_features), f"{n}.in_features"),
                             "out_features": _size(int(c.out_features), f"{n}.out_features"),
                             "bias": isinstance(c.bias, _Tensor)}
                    if id(c) in first:
                        entry["alias_of"] = first[id(c)]
                    else:
                        first[id(c)] = n
                    info.setdefault("linears", []).append(entry)
        return info

    def op_grad(self, req):
        obj = self._handle(req["handle"])
        args = list(req.get("args", []))
        kwargs = req.get("kwargs", {})
        wrt = req.get("wrt", [])
        inputs = []
        for i in wrt:
            if not isinstance(args[i], _Tensor):
                raise _Fail("TypeError", f"argument {i} is not a tensor")
            args[i] = args[i].detach().clone().requires_grad_(True)
            inputs.append(args[i])
        before = _snapshot(args, kwargs)
        out = obj(*args, **kwargs)
        # As op_call: the tensor arguments the forward changed in place. Here it can also change a leaf
        # that requires grad, unseen by autograd (under torch.no_grad() or through .data), and the
        # gradient is then that of the changed values: the reply says which, as a call's does.
        self.changed = _changed(before, args, kwargs)
        g = req["grad_output"]
        if isinstance(out, (tuple, list)):
            out = (tuple if isinstance(out, tuple) else list).__iter__(out)   # a NamedTuple's own storage
            out = list(out)
            if isinstance(g, (tuple, list)):
                outs, gs = out[:len(g)], list(g)
            else:
                outs, gs = [out[0]], [g]
        else:
            outs, gs = [out], [g] if not isinstance(g, (tuple, list)) else [g[0]]
        for o in outs:
            if not isinstance(o, _Tensor):
                raise _Fail("TypeError", f"forward returned {type(o).__name__}, expected a Tensor")
        outs = [o if type(o) is _Tensor else _as_subclass(o, _Tensor) for o in outs]
        pairs = [(o, gg) for o, gg in zip(outs, gs, strict=False) if o.requires_grad]
        if not pairs:
            return [None] * len(inputs)
        # backward() and the inputs' .grad, as a student's own check reads them: torch.autograd.grad (and
        # backward(inputs=...)) is refused by torch.utils.checkpoint's reentrant default ("incompatible
        # with .grad()"), which cost correct code its gradient test. The inputs are leaves of this call
        # only; the module's parameters get a .grad no test reads.
        for x in inputs:
            x.grad = None                  # whatever the forward left there is not a gradient
        torch.autograd.backward([o for o, _ in pairs], [gg for _, gg in pairs])
        return [None if x.grad is None else self.result(x.grad) for x in inputs]

    def op_stats(self, req):
        return {"count": dict(self.count), "forbid": dict(self.forbid), "missing": list(self.missing)}

    OPS = {"load": op_load, "new": op_new, "call": op_call, "fn": op_fn, "set_params": op_set_params,
           "describe": op_describe, "grad": op_grad, "stats": op_stats}

    # ------------------------------------------------------------------ loop
    def serve(self, sock: socket.socket, body_cap: int) -> None:
        self.body_cap = body_cap
        # A plain buffered reader: one blocking recv per request. The requests come from the trusted side,
        # written whole (protocol.reader's FIONREAD before every read, and a peek while none is queued,
        # guard the trusted side against a jail that trickles its replies: here they cost three more
        # system calls per request and guarded nothing).
        # Through protocol's private references (jail_reader, send_all): a student's ``socket.SocketIO.readinto``
        # or ``socket.socket.sendall`` replaced at import no longer ends the loop.
        rfile = protocol.jail_reader(sock)
        while True:
            try:
                req = protocol.recv(rfile, header_cap=64 << 20, body_cap=body_cap)
            except protocol.PeerClosed:
                return
            seq = req.get("seq") if isinstance(req, dict) else None
            # The request's mark, echoed in its reply only: out of the request before any student code runs, so no
            # frame's ``req`` holds it while a call runs (a thread of the student's wrote a reply with the next seq,
            # which the trusted side took as the call's return: round 38). Held in this frame alone: code that reads
            # the runtime's own frames or memory can forge it, as it can rewrite the runtime.
            mark = req.pop("mark", None) if isinstance(req, dict) else None
            # What the trusted side will read of this reply ([header, body] bytes: client.ReplyAllowance
            # .reply_cap, 1 MiB of the grading's 8): a larger result is refused here, as this call's InvalidResult, and
            # the session goes on. Sent anyway, it was refused there, which ended the session: each of
            # the next sessions lost a test the same way, and every later test was "not run".
            caps = req.get("cap") if isinstance(req, dict) else None
            header_cap, reply_cap = protocol.HEADER_CAP, body_cap
            if type(caps) is list and len(caps) == 2 and all(type(c) is int and c > 0 for c in caps):
                header_cap, reply_cap = min(caps[0], protocol.HEADER_CAP), min(caps[1], body_cap)
            self.body_cap = reply_cap
            self.changed = []
            if isinstance(req, dict) and req.get("quiet") is True:
                _quiet()
            try:
                op = self.OPS[req["op"]]
                value = op(self, req)
                reply = {"seq": seq, "mark": mark, "ok": True, "value": value}
                if self.changed:
                    reply["changed"] = self.changed
            except BaseException as e:  # noqa: BLE001 - student code may raise anything
                reply = {"seq": seq, "mark": mark, "ok": False, "error": self.error_info(e)}
                e = None  # drop the traceback (frames of student code)
            _flush()
            try:
                data = protocol.encode(reply, reply_cap, protocol.TENSOR_WEIGHT, header_cap)
            except BaseException as e:  # noqa: BLE001
                data = protocol.encode({"seq": seq, "mark": mark, "ok": False,
                                        "error": {"kind": "InvalidResult", "message": _safe_str(e),
                                                  "lineno": None}}, body_cap)
            protocol.send_all(sock, data)


_UNINITIALISED = (torch.nn.parameter.UninitializedParameter, torch.nn.parameter.UninitializedBuffer)


# What torch's CPU allocator says when its request is refused (c10/core/impl/alloc_cpu.cpp): a RuntimeError, not a
# MemoryError, with the request's size in bytes.
_TORCH_REFUSED = re.compile(r"DefaultCPUAllocator: can't allocate memory: you tried to allocate (\d{1,20}) bytes")


# Bound here, in the zygote before any fork: the code shares the process and may replace resource.getrlimit,
# builtins.open or os.read; the account of a refused allocation reads the limit and /proc through these alone.
_getrlimit, _RLIMIT_AS, _RLIM_INFINITY = resource.getrlimit, resource.RLIMIT_AS, resource.RLIM_INFINITY
_os_open, _os_read, _os_close, _O_RDONLY = os.open, os.read, os.close, os.O_RDONLY
try:
    from numpy._core._exceptions import _ArrayMemoryError
except ImportError:     # NumPy 1.x
    from numpy.core._exceptions import _ArrayMemoryError  # type: ignore[no-redef]


def _address_space_in_use() -> int | None:
    """This process's address space in bytes (VmSize in /proc/self/status), what RLIMIT_AS counts."""
    fd = _os_open("/proc/self/status", _O_RDONLY)
    try:
        text = _os_read(fd, 1 << 16)
    finally:
        _os_close(fd)
    for line in text.split(b"\n"):
        if line.startswith(b"VmSize:"):
            return int(line.split()[1]) * 1024
    return None


def _past_memory_limit(e: BaseException, message: str) -> dict | None:
    """The account of a refused allocation under RLIMIT_AS, None when there is none or reading it failed: the code may
    have replaced anything these steps touch, and error_info must still report its error as raised.

    A request whose size is known (torch's allocator's RuntimeError, NumPy's own _ArrayMemoryError, whose size is
    read only from that exact class: a subclass's is the code's) and whose size plus the address space in use passes
    the limit: {"limit", "in_use", "asked"} in bytes. Python's own MemoryError, exactly that class and without
    arguments (``[0] * n``, ``'a' * n``, ``bytearray(n)``), names no size: {"limit", "in_use"}, that the page says the
    limit and what the process took of it, not that the request passed it."""
    try:
        if type(e) is _ArrayMemoryError:
            asked = e._total_size
        elif type(e) is RuntimeError and (m := _TORCH_REFUSED.search(message)) is not None:
            asked = int(m.group(1))
        elif type(e) is MemoryError and e.args == ():
            asked = None
        else:
            return None
        limit = _getrlimit(_RLIMIT_AS)[0]
        in_use = _address_space_in_use()
        if type(limit) is not int or limit == _RLIM_INFINITY or type(in_use) is not int or in_use > limit:
            return None
        if asked is None:
            return {"limit": limit, "in_use": in_use}
        if type(asked) is not int or asked <= 0 or asked + in_use <= limit:
            return None
        return {"limit": limit, "in_use": in_use, "asked": asked}
    except BaseException:  # noqa: BLE001 - code of the student's (a property, a patched module) may raise anything
        return None


class _Kept:
    """Which entries a describe reply lists (``protocol.DESCRIBE_ENTRIES``): of each kind, in registration
    order, the first ones under an attribute asked for, and the first ones of the others."""

    def __init__(self, asked: set[str]):
        self.asked, self.counts = asked, {}

    def __call__(self, name: str, kind: str) -> bool:
        key = (kind, name.split(".", 1)[0] in self.asked)
        self.counts[key] = self.counts.get(key, 0) + 1
        return self.counts[key] <= protocol.DESCRIBE_ENTRIES


def _plain_tensor(t: torch.Tensor, cap: int) -> torch.Tensor:
    """``t`` (detached, no subclass) as a dense contiguous CPU tensor, or an ``InvalidResult`` that says
    what kind of tensor could not be read. A tensor with no values to copy (on the ``meta`` device) or
    with no single shape (``torch.nested``) was reported as an exception of the student's forward
    ("forward raised NotImplementedError: Cannot copy out of meta tensor"), or as PyTorch's "Internal
    error ... Please file an issue" from the encoder: neither is what the code did, which is return it.
    One whose values take more than ``cap`` bytes is refused before they are copied: an expanded view
    (``torch.zeros(1).expand(2**20, 2**20)``) holds 4 bytes and its copy 4 TiB, which was reported as the
    allocator's "can't allocate memory", or took most of the jail's memory before the encoder refused it."""
    if t.device.type == "meta":
        raise _Fail("InvalidResult", "a tensor on the meta device, which has a shape but no values")
    if t.is_nested:
        raise _Fail("InvalidResult", "a nested tensor (torch.nested), which has no single shape")
    nbytes = t.numel() * t.element_size()
    if nbytes > cap:
        shape = "[" + ",".join(str(int(n)) for n in t.shape) + "]"
        raise _Fail("InvalidResult", f"a tensor of shape {shape}, whose values take {nbytes} bytes: larger than "
                                     f"the {cap} bytes a reply may carry")
    try:
        if t.layout != torch.strided:
            t = t.to_dense()
        t = t.cpu().contiguous()
        tuple(t.shape)                  # what the encoder reads next: a tensor without sizes fails here
        return t
    except Exception as e:  # noqa: BLE001 - a tensor of an exotic kind: said as such, with torch's words
        device, layout = _safe_str(t.device), _safe_str(t.layout).replace("torch.", "")
        raise _Fail("InvalidResult", f"a tensor ({layout}, on {device}) whose values could not be copied: "
                                     f"{type(e).__name__}: {_safe_str(e)[:200]}") from None


def _raw(t: torch.Tensor) -> tuple:
    """A tensor's shape, dtype and values as bytes, in order: NaN equals NaN, -0.0 differs from 0.0. One
    copy, by NumPy (``tobytes`` lays the values out in C order whatever the strides); what NumPy cannot
    hold (bfloat16, a conjugate or negative view) through torch. The torch path for every tensor
    (reshape, contiguous, view, clone, and torch.equal after the call) was ~10 torch calls per tensor
    argument of every call."""
    d = t.detach()
    try:
        data = d.numpy().tobytes()
    except (RuntimeError, TypeError):
        flat = d.reshape(-1).contiguous()
        data = flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
    return tuple(t.shape), t.dtype, data


def _snapshot(args: list, kwargs: dict) -> list[tuple[int | str, torch.Tensor, tuple]]:
    keyed = [*enumerate(args), *kwargs.items()]
    return [(key, t, _raw(t)) for key, t in keyed if type(t) is _Tensor]


def _changed(before: list[tuple[int | str, torch.Tensor, tuple]], args: list, kwargs: dict) -> list[int | str]:
    """The positions (ints) and keyword names of the tensor arguments whose shape, dtype or values differ
    after the call from before it (changed in place: ``masked_fill_``, ``add_``, ``transpose_``, ``t[...] = x``)."""
    out: list[int | str] = []
    for key, t, (shape, dtype, data) in before:
        try:
            same = _raw(t) == (shape, dtype, data)
        except Exception:  # noqa: BLE001 - a tensor left unreadable (resize_ to a storage of another size) changed
            same = False
        if not same:
            out.append(key)
    return out

# The zygote's torch defaults, read when it imports this module (it sets one thread first).
_DEFAULTS: dict = {}


def snapshot_defaults() -> None:
    """Record the zygote's torch defaults; ``Runtime._restore_defaults`` returns to them."""
    _DEFAULTS.update(dtype=torch.get_default_dtype(), num_threads=torch.get_num_threads(),
                     matmul_precision=torch.get_float32_matmul_precision())


snapshot_defaults()


def _guard_dataclasses() -> None:
    """dataclasses build ``__init__``/``__eq__``... by exec'ing source text that holds the field names, with
    the module's globals: a field "d, globals().update(...)" (from a hand-made ``__annotations__``, a
    metaclass's ``__prepare__`` or a base's ``Field.name`` changed afterwards) runs code the source review
    never sees. Every field name a dataclass is built from must be a plain identifier."""
    import dataclasses
    import keyword

    def plain(name: object) -> bool:
        return type(name) is str and name.isidentifier() and not keyword.iskeyword(name)

    def refuse(name: object) -> None:
        raise TypeError(f"dataclass field names must be plain identifiers, not {str(name)[:60]!r}")

    get_field, process_class = dataclasses._get_field, dataclasses._process_class

    def checked_field(cls, a_name, a_type, default_kw_only):
        if not plain(a_name):
            refuse(a_name)
        return get_field(cls, a_name, a_type, default_kw_only)

    def checked_class(cls, *args, **kwargs):
        for base in cls.__mro__[1:]:
            fields = getattr(base, "__dataclass_fields__", None)
            if fields is None:
                continue
            for key, f in dict.items(fields) if isinstance(fields, dict) else ():
                if not plain(key) or not plain(getattr(f, "name", None)):
                    refuse(getattr(f, "name", key))
        return process_class(cls, *args, **kwargs)

    dataclasses._get_field, dataclasses._process_class = checked_field, checked_class


_guard_dataclasses()


def prepare_process(workdir: str = WORKDIR) -> None:
    """Make the jailed process look like ``python attention.py`` run in an empty folder, not like the
    zygote: called by the jail after the uid drop and seccomp, before any student code.

    * fresh stdin/stdout/stderr text streams on fds 0-2 (the zygote's were opened on /dev/null, a
      seekable file, so ``sys.stdout.reconfigure(encoding=...)`` tried to seek the output pipe);
    * an empty, writable working directory on the jail's /tmp tmpfs (the root is read-only);
    * no trace of the zygote's command line, ``__main__`` module, project modules or editable
      install hooks in ``sys`` (see :func:`before_forks`); ``sys.path[0]`` is the working
      directory, as for a script;
    * ``input()`` answers as if Enter were pressed (there is no keyboard), see :func:`_no_keyboard_input`;
    * ``torch.set_num_threads`` keeps one thread, see :func:`_one_thread`.
    """
    _fresh_stdio()
    os.mkdir(workdir, 0o755)
    os.chdir(workdir)
    sys.argv = [""]
    sys.orig_argv = ["python"]
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main
    for name in _ZYGOTE_ONLY:
        sys.modules.pop(name, None)   # still reachable through gc: nothing in them is secret
    # Not the working directory: a file the submission writes there (statistics.py, einops.py) would
    # shadow a module the review allows and run code it never saw. Only one file is uploaded anyway.
    sys.path[:] = [p for p in sys.path if p.startswith("/") and p != "/" and "__editable__" not in p
                   and not _writable(p)]
    for key in ("", "/", workdir, *_ZYGOTE_ONLY_PATHS):
        sys.path_importer_cache.pop(key, None)
    sys.path_hooks[:] = [h for h in sys.path_hooks if not _editable(h)]
    sys.meta_path[:] = [_NoWrittenModules] + [f for f in sys.meta_path if not _editable(f)]
    lazy_torch.capture_import_state()   # the jail's own later imports keep this guard (lazy_torch.own_import)
    builtins.input = _no_keyboard_input
    torch.set_num_threads = _one_thread


_set_num_threads = torch.set_num_threads


def _one_thread(num: int) -> None:
    """``torch.set_num_threads`` in the jail: the argument is checked as torch checks it, and the
    process keeps its one thread (as after the top level, :meth:`Runtime._restore_defaults`). The
    jail allows 16 threads in all (RLIMIT_NPROC): asking for more, ``torch.set_num_threads(64)`` or
    ``os.cpu_count()`` on a big host, in a constructor or a forward, ended the process at the next
    parallel operation ("libgomp: Thread creation failed", exit code 1), in every test."""
    _set_num_threads(num)
    _set_num_threads(1)


# Modules of forbidden functions that were not imported when the watch was installed: wrapped on import.
_LATE_WRAPS: dict[str, list] = {}


def _writable(path: str) -> bool:
    """Whether the jailed process can write where ``path`` lies (its nearest existing part: a zip on
    sys.path is a file). Asked of the file system, not of the path's name: the project and its venv
    may themselves live under /tmp (a fresh clone in CI), read-only inside the jail."""
    real = os.path.realpath(path)
    while not os.path.lexists(real) and real not in ("/", ""):
        real = os.path.dirname(real)
    try:
        return os.access(real, os.W_OK)
    except (OSError, ValueError):
        return True


class _NoWrittenModules:
    """First on ``sys.meta_path`` in the jail: a module whose file lies where the submission can write
    (its working folder, /tmp) is refused, even if the submission puts that folder back on
    ``sys.path`` (``sys.path`` is one of the everyday names the review allows). Such a module would
    run code the source review never saw, under the name of one it allows."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        import importlib.machinery

        late = _LATE_WRAPS.get(name)

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        origin = getattr(spec, "origin", None) if spec is not None else None
        locations = [origin] if isinstance(origin, str) else []
        locations += list(getattr(spec, "submodule_search_locations", None) or []) if spec is not None else []
        if any(_writable(loc) for loc in locations if isinstance(loc, str) and loc.startswith("/")) \
                or any(not loc.startswith("/") for loc in locations if isinstance(loc, str)
                       and loc not in ("built-in", "frozen")):
            raise ImportError(f"module {name!r} comes from a file written at run time; the grader imports "
                              "only the standard library and the allowed packages", name=name)
        if late and spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
            run = spec.loader.exec_module

            def exec_module(module, run=run, late=late):
                run(module)
                for runtime, attr, full in late:      # forbidden functions of this module: counted
                    if hasattr(module, attr):
                        runtime._wrap(module, attr, runtime.forbid, full)

            spec.loader.exec_module = exec_module
            return spec
        return None          # the normal finders do the import


_NoWrittenModules.__module__ = "jail"     # sys.meta_path is visible to the submission: no project names


# Names of the project's modules (and of its editable-install hooks) in the zygote, and sys.path
# entries the jail drops: found once, before the forks (iterating over sys.modules in each jail
# costs it ~8 ms of copy-on-write page faults).
_ZYGOTE_ONLY: list[str] = []
_ZYGOTE_ONLY_PATHS: list[str] = []


_STUDENT_FILES: set[str] = set()


def _exact_findsource(real):
    """``inspect.findsource`` that, for the student's file, starts a function's source at its code
    object's first line. The stdlib walks up from there to the nearest line that looks like a
    ``def``, which can be one inside a string (above a ``def\\`` continued on the next line); then
    ``inspect.getsource`` and torch.jit.script (torch/_sources.py) read text the review never saw
    as code. The first line of the code object is where Python compiled the function."""
    @functools.wraps(real)
    def findsource(obj):
        lines, lnum = real(obj)
        code = obj.__func__ if inspect.ismethod(obj) else obj
        code = code.__code__ if inspect.isfunction(code) else code
        code = code.tb_frame if inspect.istraceback(code) else code
        code = code.f_code if inspect.isframe(code) else code
        if inspect.iscode(code) and code.co_filename in _STUDENT_FILES:
            return lines, code.co_firstlineno - 1
        return lines, lnum
    return findsource


def _no_module_scan(self, callback, key=None, completer=None, onerror=None) -> None:
    """``pydoc.ModuleScanner.run`` in the jail: it finds no module, and says so. The real one walks every package on
    sys.path, importing each (torch's hundreds of subpackages among them) to list its modules: ``help("modules")`` at a
    file's top level took the import's whole CPU limit (10 s) in every session of a grading, 30-39 s of its 60 s, and
    its grade changed with the host's load (round 46). ``help("modules")``, ``help("modules word")`` and
    ``pydoc.apropos`` go through it; nothing the tests ask of a file needs the list. A scanner put back (a fresh
    pydoc's) walks through :func:`_walk_packages_unimported`, which imports nothing."""
    # what asked: help("modules") scans with no key; help("modules word") calls pydoc.apropos("word"), as a file may
    word = None if key is None else repr(_safe_str(key)[:60])
    en, zh = ("help('modules')",) * 2 if word is None else \
        (f"help('modules ...') or pydoc.apropos({word})", f"help('modules ...') 或 pydoc.apropos({word})")
    try:
        sys.stderr.write(f"[grader] {en} lists no modules here: the grader does not scan the installed packages "
                         f"(评分程序不扫描已安装的包：{zh} 在此不列出任何模块)\n")
    except Exception:  # noqa: BLE001 - a student-replaced stderr may do anything
        pass


def _walk_packages_unimported(path=None, prefix="", onerror=None):
    """``pkgutil.walk_packages`` in the jail: the same modules, each package's submodules found from the folders its
    spec names (``submodule_search_locations``) instead of importing it to read its ``__path__``. The real walk imports
    every package it meets (over sys.path: torch's hundreds of subpackages and every installed distribution), and
    pydoc's module scan (``help("modules")``, ``pydoc.apropos``, a fresh copy of pydoc) goes through it: a file
    running it at its top level used the import's whole CPU or wall limit and was graded 0 or 58 of 85 as the host's
    load went (round 46 review RC MED 1). Here the whole of sys.path is ~12,000 modules in 0.21-0.24 s of the jail's CPU (mend MC), whatever the load,
    and no package's code runs. ``onerror(name)`` is called for a package whose spec cannot be read (nothing is
    imported, so an import cannot fail)."""
    seen: set[str] = set()

    def walk(path, prefix):
        for info in _ITER_MODULES(path, prefix):
            yield info
            if not info.ispkg:
                continue
            try:
                spec = _GET_SPEC(info.module_finder, info.name)
                found = list(getattr(spec, "submodule_search_locations", None) or ())
            except Exception:  # noqa: BLE001 - a finder on sys.path may raise anything, as an import would
                if onerror is not None:
                    onerror(info.name)
                continue
            found = [p for p in found if isinstance(p, str) and p not in seen]   # each folder once, as the real walk
            seen.update(found)
            yield from walk(found, info.name + ".")

    yield from walk(path, prefix)


_ITER_MODULES, _GET_SPEC = pkgutil.iter_modules, pkgutil._get_spec


def before_forks() -> None:
    """Called by the zygote once everything is imported, before the first jail is forked."""
    inspect.findsource = _exact_findsource(inspect.findsource)
    import pydoc

    pydoc.ModuleScanner.run = _no_module_scan
    pkgutil.walk_packages = _walk_packages_unimported
    _ZYGOTE_ONLY[:] = [n for n in sys.modules if n.split(".")[0] in ("grading", "autograder")
                       or n.startswith("__editable__")]
    _ZYGOTE_ONLY_PATHS[:] = [p for p in sys.path if "__editable__" in p]


def _editable(obj) -> bool:
    """A finder or path hook of an editable install (``pip install -e``): it maps the project's
    package names to its folder, which the jail does not have."""
    return "__editable__" in f"{getattr(obj, '__module__', '')} {type(obj).__module__}"


def _fresh_stdio() -> None:
    """New text streams on fds 0, 1 and 2, like the interpreter's own for a pipe: UTF-8, stdout strict,
    stderr backslashreplace, line-buffered and written through (output reaches the capture in order
    and nothing is left in a buffer at ``os._exit``)."""
    streams = []
    for fd, mode, errors in ((0, "rb", "strict"), (1, "wb", "strict"), (2, "wb", "backslashreplace")):
        raw = io.FileIO(fd, mode, closefd=False)
        raw.name = f"<{('stdin', 'stdout', 'stderr')[fd]}>"
        buf = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
        text = io.TextIOWrapper(buf, encoding="utf-8", errors=errors,
                                line_buffering=fd != 0, write_through=fd != 0)
        text.mode = "r" if fd == 0 else "w"
        streams.append(text)
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams
    _STDIO[:] = streams[1:]


# stdout and stderr as _fresh_stdio made them: what the loop flushes after each op (see _flush).
_STDIO: list[io.TextIOWrapper] = []


_input_calls = [0]


def _no_keyboard_input(prompt: object = "") -> str:
    """``input()`` in the jail: the prompt is printed as usual and the answer is "" (as if Enter were
    pressed), so a "press Enter to continue" line at a file's top level does not fail its import.
    A loop that keeps asking gets EOFError after INPUT_CALLS answers instead of hanging to a timeout."""
    _input_calls[0] += 1
    out = sys.stdout
    try:
        out.write(str(prompt))
        out.flush()
    except Exception:  # noqa: BLE001 - a student-replaced stdout may do anything
        pass
    if _input_calls[0] > INPUT_CALLS:
        raise EOFError(f"input() was called more than {INPUT_CALLS} times, but the grader has no "
                       "keyboard: put code that asks for input under if __name__ == '__main__':")
    try:
        out.write("\n")
        if _input_calls[0] == 1:
            sys.stderr.write("[grader] input() has no keyboard here: it returned '' as if Enter were "
                             "pressed (评分程序没有键盘输入：input() 返回空字符串，相当于直接按回车)\n")
    except Exception:  # noqa: BLE001
        pass
    return ""


def _tensor_at(obj, dotted: str, kind: type = torch.Tensor):
    """The tensor (or other ``kind``) reached by attribute access (``q_proj.weight``), aliases and
    properties included; ``named_parameters()`` lists an aliased module under one of its names only."""
    for part in dotted.split("."):
        try:
            obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - a student property may raise
            return None
    return obj if isinstance(obj, kind) else None


def _load_reparametrized(obj, dotted: str, value: torch.Tensor) -> bool:
    """Load ``value`` into a tensor the module computes from other parameters, and say whether it was
    one: copying into the computed tensor changes nothing the module uses. Weight normalisation is the
    public form of this on projections: ``torch.nn.utils.parametrizations.weight_norm`` (any
    ``torch.nn.utils.parametrize`` parametrization, set through its ``right_inverse``, or through its
    one ``original`` when it has none and is the identity there, as a LoRA's zero update is) and the
    legacy ``torch.nn.utils.weight_norm``, whose forward pre-hook rewrites ``weight`` from ``weight_g`` and
    ``weight_v`` before each call, and ``torch.nn.utils.prune`` (``weight_orig * weight_mask``, a mask of ones
    while nothing is pruned). A parametrization the values cannot be set through, or a pruned entry, is
    reported."""
    path, _, attr = dotted.rpartition(".")
    owner = _tensor_at(obj, path, torch.nn.Module) if path else obj
    if not isinstance(owner, torch.nn.Module):
        return False
    if parametrize.is_parametrized(owner, attr):
        chain = owner.parametrizations[attr]
        kinds = ", ".join(type(m).__name__ for m in chain)
        try:
            setattr(owner, attr, value)                     # each right_inverse, last one first
        except (RuntimeError, NotImplementedError, ValueError, TypeError):
            original = getattr(chain, "original", None)
            if not isinstance(original, _Tensor) or tuple(original.shape) != tuple(value.shape):
                raise _Fail("ValueError", f"the reference weights cannot be loaded into {dotted}: a "
                                          f"parametrization ({kinds}) computes it and cannot be set") from None
            original.copy_(value)
        if not torch.allclose(getattr(owner, attr), value, rtol=1e-6, atol=1e-7):
            raise _Fail("ValueError", f"the reference weights cannot be loaded into {dotted}: the "
                                      f"parametrization ({kinds}) that computes it does not give them back")
        return True
    for hook in owner._forward_pre_hooks.values():
        if isinstance(hook, WeightNorm) and hook.name == attr:
            g, v = getattr(owner, f"{attr}_g", None), getattr(owner, f"{attr}_v", None)
            if not (isinstance(g, _Tensor) and isinstance(v, _Tensor)):
                return False
            v.copy_(value)
            g.copy_(torch.norm_except_dim(value, 2, hook.dim))
            getattr(owner, attr).copy_(value)               # what the hook recomputes before each call
            return True
        if isinstance(hook, BasePruningMethod) and getattr(hook, "_tensor_name", None) == attr:
            orig, mask = getattr(owner, f"{attr}_orig", None), getattr(owner, f"{attr}_mask", None)
            if not (isinstance(orig, _Tensor) and isinstance(mask, _Tensor)):
                return False
            if not bool(mask.ne(0).all()):
                raise _Fail("ValueError", f"the reference weights cannot be loaded into {dotted}: it is pruned "
                                          f"({int(mask.eq(0).sum())} of {mask.numel()} entries masked to zero)")
            orig.copy_(value)
            getattr(owner, attr).copy_(value)
            return True
    return False


# ``checkpoint(fn, x, use_reentrant=False)``: activation checkpointing on the path that reads
# torch._dynamo.config (torch's default, reentrant, does not).
_NON_REENTRANT_CHECKPOINT = re.compile(r"\buse_reentrant\s*=\s*False\b")


# Installed with torch on every machine that has it (torch imports it itself), and only typing:
# litgpt's ``from typing_extensions import Self`` made the whole file fail to load (0 of 85). The review
# follows it name by name (grader_tests/attention/static.py SAFE_MODULE_ATTRS).
WITH_TORCH = frozenset({"typing_extensions"})


# What ``from torch._dynamo import ...`` may take off the stand-in without loading dynamo.
DYNAMO_STAND_IN_NAMES = frozenset({"disable", "is_compiling", "reset", "graph_break", "mark_dynamic", "mark_static",
                                   "maybe_mark_dynamic", "config"})


def _limited_builtins(packages: list[str], own: str, inert: list[str] = ()) -> dict:
    """Builtins for the student's module whose ``import`` accepts only the standard library and
    ``packages`` (the set the assignment page states); ``inert`` packages import as stand-ins
    (:class:`_Inert`). Only the student's own import statements are limited: torch keeps importing
    what it needs. This states the contract; the jail is the security boundary."""
    allowed = set(sys.stdlib_module_names) | set(packages) | {"torch", own, "__future__"} | WITH_TORCH
    stand_ins = {name: _Inert(name) for name in inert if name not in allowed}
    real_import = builtins.__import__

    def limited_import(name, globals=None, locals=None, fromlist=(), level=0):
        top = name.split(".")[0]
        if level == 0 and (name == "pylab" and "pylab" in stand_ins
                           or name == "matplotlib.pylab" and fromlist and "matplotlib" in stand_ins):
            return _pylab_stand_in(real_import)         # ``from matplotlib.pylab import *``: pylab's names
        if level == 0 and top in stand_ins:
            # ``import a.b`` binds the package; ``from a.b import c`` reads ``c`` from a.b
            return _Inert(name) if fromlist else stand_ins[top]
        if level == 0 and top not in allowed:
            raise ModuleNotFoundError(f"No module named {top!r} in the grader", name=top)
        if level == 0 and name == "torch._dynamo" and lazy_torch.DYNAMO_STAND_IN is not None \
                and "torch._dynamo" not in sys.modules and set(fromlist or ()) <= DYNAMO_STAND_IN_NAMES:
            # ``import torch._dynamo`` binds torch, whose ``_dynamo`` is the stand-in until dynamo is loaded;
            # ``from torch._dynamo import disable`` reads the stand-in's (lazy_torch._dynamo_stand_in)
            return lazy_torch.DYNAMO_STAND_IN if fromlist else sys.modules["torch"]
        return real_import(name, globals, locals, fromlist, level)

    table = dict(builtins.__dict__)
    table["__import__"] = limited_import
    if "IPython" in stand_ins:     # a notebook saved as .py calls get_ipython().run_line_magic(...)
        table["get_ipython"] = _Inert("get_ipython")     # and display(x): builtins in a notebook
        table["display"] = _Inert("display")
    return table


@functools.cache
def _pylab_stand_in(real_import) -> types.ModuleType:
    """``pylab`` in the jail binds what the real one binds (review D round 43, second review MED 1: ``from pylab
    import *`` bound nothing, so a file calling ``sqrt`` after it, as it works at home, failed every test with a
    NameError): matplotlib's names (grading/sandbox/pylab_names.py) as inert stand-ins, then, as pylab.py does in
    this order, numpy's star names and those of numpy.fft, numpy.random and numpy.linalg as the real objects, and
    ``np``; the builtins numpy's names would hide stay the builtins. The standard library names pyplot passes on
    (``sys``, ``cast``, ...) are the real objects."""
    module = types.ModuleType("pylab")
    bound = {name: _Inert(f"pylab.{name}") for name in sorted(PYLAB_DISPLAY_NAMES)}
    # the standard library names pyplot passes on, the real objects (round 44: ``pylab.sys`` was unbound, so a
    # file working at home failed); any stdlib module imports in the jail anyway. Before numpy's, as in pylab.py.
    for name, (source, attr) in PYLAB_STDLIB_NAMES.items():
        mod = real_import(source, None, None, (attr,) if attr else (), 0)
        bound[name] = getattr(mod, attr) if attr else mod
    for part in PYLAB_NUMPY_MODULES:
        mod = real_import(part, None, None, ("*",), 0)
        names = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
        bound.update((n, getattr(mod, n)) for n in names if hasattr(mod, n))
    for name in PYLAB_BUILTINS:
        bound.pop(name, None)
    bound["np"] = real_import("numpy", None, None, (), 0)
    vars(module).update(bound)
    module.__all__ = sorted(bound)
    return module


def _pyplot_stdlib(name: str) -> object:
    """The real object a standard library name pyplot binds is (round 45: ``plt.sys.modules`` was an inert stand-in
    here while it is ``sys.modules`` at home, as ``pylab.sys`` was before round 44); stdlib modules import in the
    jail anyway."""
    source, attr = PYLAB_STDLIB_NAMES[name]
    mod = importlib.import_module(source)
    return getattr(mod, attr) if attr else mod


# Stand-ins that are matplotlib or its pyplot reached another way (pylab's ``plt``, ``matplotlib`` and ``mpl``,
# pyplot's ``matplotlib``), named as those: every path to pyplot binds what ``matplotlib.pyplot`` does (round 46:
# ``pylab.plt.sys`` and, after ``from pylab import *``, ``plt.sys`` stayed inert while ``plt.sys`` is the real
# module). ``matplotlib``'s ``pyplot`` (``mpl.pyplot`` after ``import matplotlib as mpl``) is pyplot already.
# ``matplotlib.pylab`` (the module ``pylab`` re-exports) is the jail's pylab since round 47, so its ``plt``, ``mpl``
# and ``matplotlib`` are these (mend round 46 mapped them here one by one).
_SAME_STAND_IN = {"pylab.plt": "matplotlib.pyplot", "pylab.matplotlib": "matplotlib", "pylab.mpl": "matplotlib",
                  "matplotlib.pyplot.matplotlib": "matplotlib"}

# What ``from matplotlib.pyplot import *`` binds (pyplot has no ``__all__``: its public names): its display names, inert
# stand-ins, its standard library names and ``np``, the real objects (round 46: its display names were left unbound)
_PYPLOT_STAR = tuple(sorted(PYPLOT_DISPLAY_NAMES | PYPLOT_STDLIB_NAMES | {"np"}))


class _Inert:
    """A display package's name inside the jail: every attribute, call and item is another stand-in,
    assignments are ignored, iteration yields nothing, and ``with`` works. ``tqdm(xs)`` and
    ``trange(n)`` give back what they wrap, and ``plt.subplots()`` a (figure, axes) pair, so the
    usual lines at a file's top level run. (``unittest.mock.MagicMock`` would record every call:
    memory that grows with every forward that logs a plot.)"""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        object.__setattr__(self, "_name", _SAME_STAND_IN.get(name, name))

    @property
    def __all__(self) -> tuple[str, ...]:
        """What a star import of the stand-in binds: nothing (without ``__all__`` it raised ImportError, and the
        file did not load), but for ``from matplotlib.pyplot import *`` what it binds at home (``_PYPLOT_STAR``; mend
        round 45, review RD MED 3: a file reading ``sys`` after it failed here with a NameError, and round 46: one
        calling ``show()``)."""
        return _PYPLOT_STAR if self._name == "matplotlib.pyplot" else ()

    def __getattr__(self, attr: str):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        if self._name == "matplotlib.pyplot" and attr in PYPLOT_STDLIB_NAMES:
            return _pyplot_stdlib(attr)
        if self._name == "matplotlib.pyplot" and attr == "np":
            return importlib.import_module("numpy")      # pyplot's ``np`` is numpy, as pylab's is (round 46)
        if self._name == "matplotlib" and attr == "pylab":
            # ``import matplotlib.pylab as pl``, ``from matplotlib import pylab``: the module pylab re-exports, so
            # the jail's pylab (round 47: it was a bare stand-in, ``pl.sqrt`` inert and its star import empty)
            return _pylab_stand_in(builtins.__import__)
        return _Inert(f"{self._name}.{attr}")

    def __setattr__(self, attr: str, value) -> None:
        pass

    def __delattr__(self, attr: str) -> None:
        pass

    def __call__(self, *args, **kwargs):
        leaf = self._name.rsplit(".", 1)[-1]
        if leaf in ("tqdm", "tqdm_notebook") and self._name.startswith("tqdm"):
            return args[0] if args else kwargs.get("iterable", _Inert(f"{self._name}()"))
        if leaf == "trange" and self._name.startswith("tqdm"):
            return range(*args)
        if leaf == "subplots":
            return _Inert(f"{self._name}()[0]"), _Inert(f"{self._name}()[1]")
        return _Inert(f"{self._name}()")

    def __getitem__(self, key):
        return _Inert(f"{self._name}[]")

    def __setitem__(self, key, value) -> None:
        pass

    def __delitem__(self, key) -> None:
        pass

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def __repr__(self) -> str:
        return f"<inert stand-in for {self._name}>"


def _quiet() -> None:
    """From now on stdout and stderr go to /dev/null (the trusted side asks, once the jail has printed
    half its output limit): the grader reads none of it, and the pipe's reader would kill the jail at
    the limit."""
    _flush()
    try:
        null = os.open("/dev/null", os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
    finally:
        os.close(null)


def _flush():
    """Flush the output streams after an op, in the loop: the ones _fresh_stdio made, and what ``sys.stdout`` and
    ``sys.stderr`` now are only when that is a plain file stream (``io.TextIOWrapper(sys.stdout.buffer, ...)``, the
    usual re-encoding), whose flush runs no code of the file's. The loop called any object's ``flush`` put there: one
    that slept was "did not load: ... used 0.00 s of CPU", one that ended the process "exited with code 0", though the
    import had finished (round 46 review RC MED 2). Another object's flush runs when the file calls it, as at home."""
    streams = list(_STDIO)
    for f in (sys.stdout, sys.stderr):
        if type(f) is io.TextIOWrapper and type(f.buffer) is io.BufferedWriter and type(f.buffer.raw) is io.FileIO \
                and all(f is not s for s in streams):
            streams.append(f)
    for f in streams:
        try:
            _TEXT_FLUSH(f)
        except BaseException:  # noqa: BLE001
            pass


_TEXT_FLUSH = io.TextIOWrapper.flush
