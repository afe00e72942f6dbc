"""Fixed-seed inputs and their references, computed once per suite version in the worker.

A suite's inputs come from fixed seeds and its references (float64 softmax, PyTorch's own
attention) are computed from those inputs alone, so they are the same in every grading. Each
grading runs in a child forked from the worker, and whatever a child computes dies with it: the
references were computed again by every grading (issue 14: ~18 ms of the test process's CPU).

``FixedCache`` memoises them where they cannot depend on a submission:
- ``@cache.input`` factories take plain arguments (seeds, shapes, dtypes); their results are
  cached by those arguments and remembered by identity as *fixed* objects.
- ``@cache.reference`` functions are memoised only when every tensor (or dict of tensors) they are
  given is a fixed object, so anything a student's code returned, or a test derived from it, is
  computed afresh, as before. A hit returns copies, so a caller may change what it is given.

The worker never runs a test, so it cannot know which cases the tests use. The child that graded
first tells it: its report carries the recipes (function, plain arguments, which fixed input) of
what it had to compute itself, the worker replays them (``learn``), and every later child of the
worker inherits them. A reloaded suite imports its modules anew, with an empty cache.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

MAX_ENTRIES = 1024      # inputs and references each: what a suite uses is a few dozen of either
MAX_MASK = 4096         # elements of a boolean mask keyed by its values
# Tags inside keys: a fixed input (by its factory's key), a dict of them, a boolean mask by value.
FIXED_TAG, DICT_TAG, MASK_TAG = "\x00fixed", "\x00dict", "\x00mask"


def _copy(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value.clone()
    if isinstance(value, tuple | list):
        return type(value)(_copy(v) for v in value)
    return value


def _encode(value: Any) -> Any:
    """A recipe as JSON: tuples, dtypes and floats (inf and NaN included) tagged, so that it
    decodes to the very key it was (the report's JSON turns non-finite floats into null)."""
    if isinstance(value, tuple):
        return {"t": [_encode(v) for v in value]}
    if isinstance(value, torch.dtype):
        return {"d": str(value).removeprefix("torch.")}
    if isinstance(value, float):
        return {"f": value.hex()}
    if value is None or isinstance(value, bool | int | str):
        return value
    raise TypeError(f"not a plain value: {type(value).__name__}")


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and len(value) == 1:
        (tag, inner), = value.items()
        if tag == "t" and isinstance(inner, list):
            return tuple(_decode(v) for v in inner)
        if tag == "d" and isinstance(inner, str) and isinstance(getattr(torch, inner, None), torch.dtype):
            return getattr(torch, inner)
        if tag == "f" and isinstance(inner, str):
            return float.fromhex(inner)
        raise ValueError(f"bad tagged value {value!r}")
    if value is None or isinstance(value, bool | int | str):
        return value
    raise ValueError(f"bad value {value!r}")


class FixedCache:
    """Inputs and references of one suite version (one per suite module: a reload starts empty)."""

    def __init__(self) -> None:
        self._inputs: dict[tuple, Any] = {}            # ("i", name, args, kwargs) -> result
        self._refs: dict[tuple, Any] = {}              # ("r", name, args, kwargs) -> result
        self._origin: dict[int, tuple[tuple, Tensor, int]] = {}  # id(fixed tensor) -> (recipe, it, version)
        self._functions: dict[tuple[str, str], Callable] = {}
        self._new: list[tuple] = []                    # recipes computed in this process since start()
        self.computed = 0                              # references computed (not found) in this process

    # ------------------------------------------------------------------ decorators
    def input(self, fn: Callable) -> Callable:
        """A factory of fixed inputs from plain arguments (a tuple of tensors, a tensor or a dict)."""
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = ("i", fn.__name__, args, tuple(sorted(kwargs.items())))
            try:
                hit = self._inputs.get(key)
            except TypeError:                         # an unhashable argument: not a fixed case
                return fn(*args, **kwargs)
            if hit is not None and not self._intact(hit):
                hit = None       # changed in place by a caller: built again, as it was
            if hit is None:
                hit = fn(*args, **kwargs)
                if len(self._inputs) < MAX_ENTRIES or key in self._inputs:
                    if key not in self._inputs:
                        self._new.append(key)
                    self._inputs[key] = hit
                    self._remember(key, hit)
            return hit
        self._functions[("i", fn.__name__)] = wrapper
        return wrapper

    def reference(self, fn: Callable) -> Callable:
        """A trusted computation memoised when all its tensors are fixed inputs."""
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = self._recipe(fn.__name__, args, kwargs)
            if key is None:
                return fn(*args, **kwargs)
            hit = self._refs.get(key)
            if hit is None:
                hit = fn(*args, **kwargs)
                self.computed += 1
                if len(self._refs) >= MAX_ENTRIES:
                    return hit
                self._refs[key] = hit
                self._new.append(key)
            return _copy(hit)
        self._functions[("r", fn.__name__)] = wrapper
        return wrapper

    # ------------------------------------------------------------------ keys
    @staticmethod
    def _parts(result: Any) -> list[tuple[Any, Tensor]]:
        """(index, tensor) of each tensor of an input's result (a dict is keyed by its items)."""
        if isinstance(result, Tensor):
            return [(None, result)]
        if isinstance(result, tuple):
            return [(i, t) for i, t in enumerate(result) if isinstance(t, Tensor)]
        if isinstance(result, dict):
            return [(n, t) for n, t in result.items() if isinstance(t, Tensor) and isinstance(n, str)]
        return []

    def _remember(self, key: tuple, result: Any) -> None:
        # With the tensor's version counter: an in-place change (``mask[..., 1:] = ...``) bumps
        # it, and the tensor is no longer the fixed input its references were computed from.
        for index, part in self._parts(result):
            self._origin[id(part)] = ((FIXED_TAG, key, index), part, part._version)

    def _intact(self, result: Any) -> bool:
        for _, part in self._parts(result):
            origin = self._origin.get(id(part))
            if origin is None or origin[1] is not part or origin[2] != part._version:
                return False
        return True

    def _plain(self, value: Any) -> Any:
        """``value`` as part of a key, or raise LookupError when it is not fixed."""
        if isinstance(value, Tensor | dict):
            origin = self._origin.get(id(value)) if isinstance(value, Tensor) else None
            if origin is not None and origin[1] is value and origin[2] == value._version:
                return origin[0]
            if isinstance(value, dict) and all(isinstance(k, str) for k in value):
                # Fixed parameters, or a copy of them (a test's reference for the student's layout):
                # keyed by its items, so a bias replaced by zeros is not fixed and is computed as before.
                return (DICT_TAG, tuple((k, self._plain(value[k])) for k in sorted(value)))
            if isinstance(value, Tensor) and value.dtype == torch.bool and value.numel() <= MAX_MASK \
                    and value.layout == torch.strided and not value.requires_grad:
                # A padding mask a test builds (zeros with a few True): keyed by its values.
                return (MASK_TAG, tuple(value.shape), "".join("1" if b else "0" for b in value.flatten().tolist()))
            raise LookupError
        if isinstance(value, tuple):
            return tuple(self._plain(v) for v in value)
        if value is None or isinstance(value, bool | int | str | torch.dtype):
            return value
        if isinstance(value, float) and not math.isnan(value):
            return value
        raise LookupError

    def _recipe(self, name: str, args: tuple, kwargs: dict) -> tuple | None:
        try:
            return ("r", name, self._plain(args), tuple((k, self._plain(v)) for k, v in sorted(kwargs.items())))
        except LookupError:
            return None

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, tuple) and len(value) == 3 and value[0] == FIXED_TAG:
            whole = self._call(value[1])
            return whole if value[2] is None else whole[value[2]]
        if isinstance(value, tuple) and len(value) == 2 and value[0] == DICT_TAG:
            return {k: self._resolve(v) for k, v in value[1]}
        if isinstance(value, tuple) and len(value) == 3 and value[0] == MASK_TAG:
            shape, bits = value[1], value[2]
            if not (isinstance(bits, str) and set(bits) <= {"0", "1"} and len(bits) == math.prod(shape)):
                raise ValueError("bad mask")
            return torch.tensor([c == "1" for c in bits], dtype=torch.bool).reshape(shape)
        if isinstance(value, tuple):
            return tuple(self._resolve(v) for v in value)
        return value

    def _call(self, key: tuple) -> Any:
        kind, name, args, kwargs = key
        fn = self._functions[(kind, name)]
        return fn(*self._resolve(args), **{k: self._resolve(v) for k, v in kwargs})

    # ------------------------------------------------------------------ between processes
    def start(self) -> None:
        """In a grading child: count what this process computes from here on."""
        self._new = []
        self.computed = 0

    def new_recipes(self) -> list:
        """What this process computed that its parent did not hold, as JSON for the child's report."""
        out = []
        for key in self._new[:MAX_ENTRIES]:
            try:
                out.append(_encode(key))
            except TypeError:
                continue
        return out

    def learn(self, recipes: object) -> int:
        """In the worker: compute what a child reported (``new_recipes``), so that every later
        child inherits it. Returns how many recipes were computed here; a recipe that does not
        decode or whose function fails is skipped (the children compute it, as before)."""
        if not isinstance(recipes, list):
            return 0
        threads = torch.get_num_threads()
        torch.set_num_threads(1)      # as in the grading child: the same arithmetic, bit for bit
        done = 0
        try:
            for raw in recipes[:MAX_ENTRIES]:
                try:
                    key = _decode(raw)
                    if not (isinstance(key, tuple) and len(key) == 4 and (key[0], key[1]) in self._functions):
                        continue
                    if key in self._inputs or key in self._refs:
                        continue
                    self._call(key)
                    done += 1
                except Exception:  # noqa: BLE001 - a recipe is an optimisation, never a failure
                    continue
        finally:
            torch.set_num_threads(threads)
            self._new = []
        return done

    def holds(self) -> tuple[int, int]:
        """(inputs, references) held in this process."""
        return len(self._inputs), len(self._refs)
