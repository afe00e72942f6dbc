"""How the attention tests call the student's code: typed calls over the generic proxy.

`AttentionStudent` is this assignment's driver (see `grading.suite.Suite.driver`): the tests
receive it as their `student` fixture and call `student.sdpa(...)` or `student.mha(...)`.

Every value that comes back is validated here before any test computes with it: a tuple where a
tensor belongs, a non-tensor, an integer or complex tensor, or a wrong shape is the student's
mistake and becomes feedback, never an error of the grader. Modules are driven in ``eval()`` mode.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

import numpy as np
import torch
from torch import Tensor

from grader_tests.attention import cases as C
from grader_tests.attention import source_lines
from grader_tests.attention.diagnose import FAULTS, kept_state, no_gradient
from grading.i18n import COLON, SEMI, Msg, cat, msg
from grading.load_hints import no_return_note
from grading.proxy import Feedback, Handle, NotLoaded, SessionLost, StudentProxy, StudentTimedOut, source_of

PROJECTIONS = ("q_proj", "k_proj", "v_proj", "out_proj")
# Twins built per session to tell a failure caused by state kept between calls (AttentionStudent.called).
TWIN_CALLS = 8


class AttentionStudent(StudentProxy):
    """The student's `ScaledDotProductAttention` and `MultiHeadAttention`, called in the jail."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._twins: dict[int, int] = {}        # twins built, by session generation
        # The weights' layout each class showed by its shape on a rectangular probe, by (session generation,
        # class): True when key x query, False when query x key, None when the probe could not tell (layout_probe).
        self._layouts: dict[tuple[int, str], bool | None] = {}

    @property
    def source(self) -> str | None:
        """The submitted text (the parent handed it to the session; never run here), for hints that a
        line of it confirms (grader_tests/attention/diagnose.py)."""
        return source_of(self._session)

    def sdpa_handle(self, eval_mode: bool = True) -> Handle:
        return self.new("ScaledDotProductAttention", eval_mode=eval_mode)

    def layout_probe(self, handle: Handle, lead: list[int], width: int, dtype: torch.dtype) -> bool | None:
        """Whether ``handle``'s class returns its weights key x query, seen on a second call whose Nq != Nk
        (3 queries, 5 keys), where the shape proves the layout: True, False, or None when that call gave no
        weights of either shape. Asked only for square weights whose values tell nothing (another mistake in them,
        or no reference), once per class and session. ``lead``: the leading dims (the kernel's [B, H], the wrapper's
        [B]); ``width``: the kernel's dk (= dv here) or the wrapper's d_model."""
        key = (self.generation, handle.cls_name)
        if key not in self._layouts:
            g = torch.Generator().manual_seed(61)
            rows = {n: torch.randn(*lead, n, width, generator=g, dtype=torch.float64).to(dtype) for n in (3, 5)}
            kernel = handle.cls_name == "ScaledDotProductAttention"
            args = (rows[3], rows[5], rows[5]) if kernel else (rows[3], rows[5])
            try:
                res = self.call(handle, "__call__", *args, return_weights=True)
                _, w = normalise_result(res, handle.cls_name, True, False, self.source)
            except Feedback:
                w = None
            shape = list(w.shape[-2:]) if isinstance(w, Tensor) and w.dim() >= 2 else None
            self._layouts[key] = True if shape == [5, 3] else False if shape == [3, 5] else None
        return self._layouts[key]

    def called(self, handle: Handle, run: Callable[[Handle], Any]) -> Any:
        """``run(handle)`` (a call of the student's object, its result checked); when it fails and the
        object answered earlier calls in this session, the same call on a newly built twin (same class,
        arguments and weights): if that one succeeds, the failure comes from what the object kept from
        its earlier calls, and the feedback says so (``diagnose.kept_state``). At most TWIN_CALLS twins
        per session: code that fails everywhere costs no more than that."""
        earlier = handle.calls if handle.calls_gen == self.generation else 0
        try:
            result = run(handle)
        except (StudentTimedOut, NotLoaded, SessionLost):
            raise
        except Feedback as exc:
            if not earlier or handle.calls_gen != self.generation or self._twins.get(self.generation, 0) >= TWIN_CALLS:
                raise               # no earlier answer, the session was lost (the object rebuilt), or enough twins
            self._twins[self.generation] = self._twins.get(self.generation, 0) + 1
            twin = Handle(self, handle.cls_name, handle.args, handle.kwargs, handle.params, handle.label,
                          handle.eval_mode)
            try:
                run(twin)
            except Feedback:
                raise exc from None
            raise Feedback(cat(exc.message, kept_state(handle.cls_name, earlier), sep=SEMI)) from None
        if handle.calls_gen != self.generation:
            handle.calls_gen, handle.calls = self.generation, 0
        handle.calls += 1           # answered: only an object that answered before can have kept something
        return result

    # Whether the weights are taken as returned (weights_as_returned) or read back (read_back).
    as_returned = False

    @contextmanager
    def weights_as_returned(self) -> Iterator[None]:
        """The tests whose subject is the returned weights' layout (shapes, the hand example, parity, per-head
        weights), and the diagnoses they ask for, take the weights as returned: elsewhere weights returned as
        the right ones transposed are read back, so that one layout mistake costs those tests only."""
        before, self.as_returned = self.as_returned, True
        try:
            yield
        finally:
            self.as_returned = before

    def sdpa(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None, *,
             return_weights: bool = False, strict: bool = False, pass_flag: bool = False,
             eval_mode: bool = True, check_shape: bool = True):
        """``ScaledDotProductAttention()(q, k, v, mask, return_weights=...)``.

        Returns a tensor, or ``(output, weights)`` when ``return_weights``.  Unless ``strict``, an
        output returned inside a tuple when no weights were asked for is accepted (the return
        contract has its own test); ``pass_flag`` passes ``return_weights=False`` explicitly. Outside
        ``weights_as_returned`` (the tests whose subject is the weights' layout), weights returned as the
        right ones transposed are read back as [..., Nq, Nk] (``read_back``)."""
        args = (q, k, v) if mask is None else (q, k, v, mask)
        kwargs = {"return_weights": True} if return_weights else (
            {"return_weights": False} if pass_flag else {})
        lead = list(q.shape[:-2])
        nq, nk, dv = q.shape[-2], k.shape[-2], v.shape[-1]
        out_shape, w_shape = [*lead, nq, dv], [*lead, nq, nk]

        def run(handle: Handle):
            res = self.call(handle, "__call__", *args, **kwargs)
            res = normalise_result(res, "ScaledDotProductAttention", return_weights, strict, self.source)
            if return_weights:
                out, w = res
                if check_shape and out_shape != w_shape and list(out.shape) == w_shape and list(w.shape) == out_shape:
                    raise Feedback(reversed_pair(out_shape, w_shape))
                validate(out, out_shape if check_shape else None, "ScaledDotProductAttention", "output",
                         swapped=[*lead, nk, dv] if nq != nk else None)
                if check_shape and not self.as_returned:
                    w = read_back(w, w_shape, lambda: C.ref_weights(q, k, mask),
                                  lambda: self.layout_probe(handle, lead, q.shape[-1], q.dtype))
                validate_weights(w, w_shape if check_shape else None, "ScaledDotProductAttention",
                                 [*lead, nk, nq] if nq != nk else None, lambda: C.ref_weights(q, k, mask), self.source)
                return out, w
            validate(res, out_shape if check_shape else None, "ScaledDotProductAttention", "output",
                     swapped=[*lead, nk, dv] if nq != nk else None)
            return res

        return self.called(self.sdpa_handle(eval_mode), run)

    def sdpa_grad(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None,
                  grad_output: Tensor) -> list[Tensor]:
        args = (q, k, v) if mask is None else (q, k, v, mask)
        grads = self.grad(self.sdpa_handle(), args, {}, grad_output, wrt=[0, 1, 2], missing_ok=True)
        if missing := [name for name, g in zip("qkv", grads, strict=True) if g is None]:
            raise Feedback(no_gradient(missing, self.source))
        for name, g, ref in zip("qkv", grads, (q, k, v), strict=True):
            validate(g, list(ref.shape), "ScaledDotProductAttention", f"gradient with respect to {name}")
        return grads

    def mha(self, d_model: int, num_heads: int, head_dim: int | None = None,
            params: dict[str, Tensor] | None = None, *, eval_mode: bool = True) -> MHA:
        """A student ``MultiHeadAttention``. With ``params`` (the reference projection weights), they
        are copied into the four projections however these are registered (aliases, properties,
        ``nn.Linear`` subclasses); a projection without a bias gets a zero bias in the reference
        (``MHA.params``), so the reference has the student's bias configuration."""
        kwargs = {} if head_dim is None else {"head_dim": head_dim}
        hd = head_dim or d_model // num_heads
        used = None
        if params is not None:
            info = self.mha_layout(d_model, num_heads, head_dim, eval_mode=eval_mode)
            problem = projection_problem(info, d_model, num_heads * hd, linear_only=False)
            layout = None if problem is None else layout_by_shape(info, d_model, num_heads * hd)
            if problem is not None and layout is not None:
                # The contract's names are missing (graded once, in test_mha_structure), but the
                # projections can be found by their shapes: drive them, and let parity decide.
                params, used = fill_layout(layout, params)
                handle = self.new("MultiHeadAttention", d_model, num_heads, params=used, eval_mode=eval_mode,
                                  **kwargs)
                self.instantiate(handle)
                return MHA(self, handle, d_model, num_heads, params)
            if problem is not None:
                raise Feedback(msg(
                    f"not checked: the reference weights cannot be loaded into MultiHeadAttention({d_model}, "
                    f"{num_heads}) because {problem['en']} (see test_mha_structure)",
                    f"未检查：参考权重无法载入 MultiHeadAttention({d_model}, {num_heads})，因为{problem['zh']}"
                    "（见 test_mha_structure）"))
            params, used = dict(params), {}
            for name in PROJECTIONS:
                if has_bias(info, name):
                    used[f"{name}.bias"] = params[f"{name}.bias"]
                else:
                    params[f"{name}.bias"] = torch.zeros_like(params[f"{name}.bias"])
                used[f"{name}.weight"] = params[f"{name}.weight"]
        handle = self.new("MultiHeadAttention", d_model, num_heads, params=used, eval_mode=eval_mode, **kwargs)
        self.instantiate(handle)
        return MHA(self, handle, d_model, num_heads, params)


    def mha_layout(self, d_model: int, num_heads: int, head_dim: int | None = None, *,
                   eval_mode: bool = True) -> dict:
        """``describe`` of the student's ``MultiHeadAttention`` (the one ``mha`` gives without weights),
        with the contract's projections asked by name. One not built yet in this session is built and
        described in one round trip (``StudentProxy.describe``)."""
        kwargs = {} if head_dim is None else {"head_dim": head_dim}
        return self.describe(self.new("MultiHeadAttention", d_model, num_heads, eval_mode=eval_mode, **kwargs),
                             PROJECTIONS)


def _linear_like(info: dict, name: str, fin: int, fout: int) -> bool:
    """A module that is not an ``nn.Linear`` but holds a ``weight`` [fout, fin] (and a ``bias`` [fout]
    or none), into which the reference weights load by name."""
    params = info.get("parameters", {})
    return params.get(f"{name}.weight") == [fout, fin] and params.get(f"{name}.bias", [fout]) == [fout]


def has_bias(info: dict, name: str) -> bool:
    child = info.get("children", {}).get(name, {})
    return bool(child.get("bias")) if child.get("is_linear") else f"{name}.bias" in info.get("parameters", {})


def projection_problem(info: dict, d_model: int, inner: int, *, linear_only: bool = True,
                       source: str | None = None) -> Msg | None:
    """Why the four projections are not the contract's (missing, not an ``nn.Linear``, wrong sizes), or
    None. With ``linear_only=False`` (can they be driven at all?) a module of another class passes when
    it holds a Linear's weight and bias by those names: parity then decides, and only the structure
    test asks for ``nn.Linear`` (as a submission that could forge its reported layout would get)."""
    children = info.get("children", {})
    for name, fin, fout in (("q_proj", d_model, inner), ("k_proj", d_model, inner), ("v_proj", d_model, inner),
                            ("out_proj", inner, d_model)):
        child = children.get(name)
        if child is None:
            return msg(f"it has no attribute {name} (expected nn.Linear({fin}, {fout}))",
                       f"它没有属性 {name}（应为 nn.Linear({fin}, {fout})）")
        if child.get("is_linear") and child.get("in_features") == 0 and child.get("out_features") == fout:
            continue                    # nn.LazyLinear before its first call: in_features comes from it
        if not child.get("is_linear"):
            if not linear_only and _linear_like(info, name, fin, fout):
                continue
            return msg(f"{name} is a {child.get('type')}, not an nn.Linear (or a subclass of it)",
                       f"{name} 是 {child.get('type')}，不是 nn.Linear（或其子类）")
        got = (child.get("in_features"), child.get("out_features"))
        if got != (fin, fout):
            # the line that builds it, when the source shows one (round 39: an alias of to_out was not named)
            return cat(msg(f"{name} maps {got[0]} -> {got[1]} features, expected {fin} -> {fout}",
                           f"{name} 把 {got[0]} 维映射到 {got[1]} 维，应为 {fin} -> {fout}"),
                       source_lines.projection_build_note(source, "MultiHeadAttention", name), sep=SEMI)
    # Two names of one module (self.q_proj = self.k_proj = nn.Linear(...)) cannot hold two weights.
    first = {x["name"]: x.get("alias_of", x["name"]) for x in info.get("linears") or []}
    shared: dict[str, list[str]] = {}
    for name in PROJECTIONS:
        shared.setdefault(first.get(name, name), []).append(name)
    for names in shared.values():
        if len(names) > 1:
            both = " and ".join(names)
            return msg(f"{both} are one and the same Linear module: each projection needs its own weights",
                       f"{'、'.join(names)} 是同一个 Linear 模块：每个投影都需要自己的权重")
    return None


def layout_by_shape(info: dict, d_model: int, inner: int) -> list[tuple[str, tuple[str, ...], bool]] | None:
    """The projections found among the module's Linears by their shapes, in registration order,
    when the contract's names are missing: [(linear name, (projections it holds), has bias)].
    Recognised: q, k, v, out as four Linears; one fused q|k|v Linear (minGPT's c_attn,
    vit-pytorch's to_qkv) or a q Linear and a fused k|v one (to_kv), each with the output Linear.
    A hypothesis only: the parity tests confirm it or fail."""
    lins = [x for x in info.get("linears") or [] if "alias_of" not in x]

    def shaped(fin: int, fout: int) -> list[dict]:
        return [x for x in lins if (x.get("in_features"), x.get("out_features")) == (fin, fout)]

    outs = shaped(inner, d_model)
    if not outs:
        return None
    out = outs[-1]                      # the output projection is registered after the inputs
    ins = [x for x in shaped(d_model, inner) if x is not out]
    qkv, kv = shaped(d_model, 3 * inner), shaped(d_model, 2 * inner)
    if len(lins) == 2 and len(qkv) == 1:
        return [(qkv[0]["name"], ("q_proj", "k_proj", "v_proj"), qkv[0]["bias"]), (out["name"], ("out_proj",), out["bias"])]
    if len(lins) == 3 and len(kv) == 1 and len(ins) == 1:
        return [(ins[0]["name"], ("q_proj",), ins[0]["bias"]), (kv[0]["name"], ("k_proj", "v_proj"), kv[0]["bias"]),
                (out["name"], ("out_proj",), out["bias"])]
    if len(lins) == 4 and len(ins) == 3:
        return [*((x["name"], (p,), x["bias"]) for x, p in zip(ins, ("q_proj", "k_proj", "v_proj"), strict=True)),
                (out["name"], ("out_proj",), out["bias"])]
    return None


def fill_layout(layout: list[tuple[str, tuple[str, ...], bool]], params: dict[str, Tensor]
                ) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """(the reference's parameters, the tensors to copy into the student's Linears) for a layout."""
    params, used = dict(params), {}
    for name, parts, bias in layout:
        used[f"{name}.weight"] = torch.cat([params[f"{p}.weight"] for p in parts], dim=0)
        if bias:
            used[f"{name}.bias"] = torch.cat([params[f"{p}.bias"] for p in parts], dim=0)
        else:
            for p in parts:
                params[f"{p}.bias"] = torch.zeros_like(params[f"{p}.bias"])
    return params, used


class MHA:
    """Typed view of a student ``MultiHeadAttention`` instance; ``params`` are the weights the
    reference must use (None when the student's own initialisation is kept)."""

    def __init__(self, proxy: StudentProxy, handle: Handle, d_model: int, num_heads: int,
                 params: dict[str, Tensor] | None):
        self._p, self.handle = proxy, handle
        self.d_model, self.num_heads, self.params = d_model, num_heads, params

    def describe(self, attributes=PROJECTIONS) -> dict:
        return self._p.describe(self.handle, attributes)

    def __call__(self, x: Tensor, context: Tensor | None = None, additive_mask: Tensor | None = None,
                 *, key_padding_mask: Tensor | None = None, return_weights: bool = False,
                 strict: bool = False):
        """The module called in the jail; its weights read back as ``AttentionStudent.sdpa`` reads the kernel's
        (for square ones, against the reference of ``params`` when the module holds them)."""
        args = (x,) if context is None and additive_mask is None else (x, context, additive_mask)
        kwargs: dict[str, Any] = {}
        if key_padding_mask is not None:
            kwargs["key_padding_mask"] = key_padding_mask
        if return_weights:
            kwargs["return_weights"] = True
        B, Nq = x.shape[0], x.shape[1]
        Nk = (x if context is None else context).shape[1]
        out_shape = [B, Nq, self.d_model]

        def run(handle: Handle):
            res = self._p.call(handle, "__call__", *args, **kwargs)
            res = normalise_result(res, "MultiHeadAttention", return_weights, strict, getattr(self._p, "source", None))
            if return_weights:
                out, w = res
                w_shape = [B, self.num_heads, Nq, Nk]
                # round 38: (weights, output) from the wrapper was "the output has shape [2,4,2,11]" alone
                if list(out.shape) == w_shape and list(w.shape) == out_shape:
                    raise Feedback(reversed_pair(out_shape, w_shape))
                validate(out, out_shape, "MultiHeadAttention", "output",
                         swapped=[B, Nk, self.d_model] if Nk != Nq else None)
                if not getattr(self._p, "as_returned", True):
                    probe = getattr(self._p, "layout_probe", None)
                    w = read_back(w, w_shape, lambda: self._reference_weights(
                        x, context, additive_mask, key_padding_mask),
                        None if probe is None else lambda: probe(handle, [B], self.d_model, x.dtype))
                validate_weights(w, w_shape, "MultiHeadAttention",
                                 [B, self.num_heads, Nk, Nq] if Nk != Nq else None,
                                 lambda: self._reference_weights(x, context, additive_mask, key_padding_mask),
                                 getattr(self._p, "source", None))
                return out, w
            validate(res, out_shape, "MultiHeadAttention", "output",
                     swapped=[B, Nk, self.d_model] if Nk != Nq else None)
            return res

        called = getattr(self._p, "called", None)
        return called(self.handle, run) if called is not None else run(self.handle)


    def _reference_weights(self, x: Tensor, context: Tensor | None, additive_mask: Tensor | None,
                           key_padding_mask: Tensor | None) -> Tensor | None:
        """The reference's per-head weights for this call, when the module holds the reference's projections."""
        if self.params is None:
            return None
        head_dim = self.params["q_proj.weight"].shape[0] // self.num_heads
        return C.ref_mha(self.params, self.num_heads, head_dim, x, context, additive_mask, key_padding_mask)[1]


def weights_as_returned(student: Any) -> AbstractContextManager[None]:
    """``student.weights_as_returned()``, or nothing to change for a caller that reads no weights back (a stand-in
    of the student's code in the grader's own tests)."""
    method = getattr(student, "weights_as_returned", None)
    return method() if method is not None else nullcontext()


# How far the weights read back may be from the reference to tell their orientation (the tests judge precision)
ORIENTATION_TOL = {torch.float16: 1e-2, torch.bfloat16: 5e-2}
ORIENTATION_TOL_DEFAULT = 1e-3


def read_back(w: Any, want: list[int], reference: Callable[[], Tensor | None],
              probe: Callable[[], bool | None] | None = None) -> Any:
    """Weights returned as the expected ones transposed (one row per key), as [..., Nq, Nk]: one layout mistake
    is graded by the tests of the weights' layout (shapes, hand example, parity, per-head weights), and the others
    judge what the weights say read the student's way. Where Nq != Nk the shape shows it: the axis of size Nk is
    the keys'. Where Nq == Nk the values can: the weights are read back when their transpose is the reference's
    (``reference()``, None when unknown) and they themselves are not. When the values tell nothing (neither they
    nor their transpose are the reference's: a second mistake in them, or no reference), ``probe()`` asks the same
    class once more with Nq != Nk (AttentionStudent.layout_probe): weights of shape [..., Nk, Nq] there prove the
    layout, and these are read back too, so the second mistake alone is graded (round 31: a kernel returning its
    weights transposed without the scale failed the row sums' square case, 3 points, on the layout only).
    Anything else is left as it came, for ``validate`` and the tests to judge."""
    if not isinstance(w, Tensor) or not w.is_floating_point() or w.dim() < 2 or list(w.shape[:-2]) != want[:-2]:
        return w
    if want[-2] != want[-1]:
        return w.transpose(-2, -1) if list(w.shape[-2:]) == [want[-1], want[-2]] else w
    if list(w.shape) != want:
        return w
    reference = functools.cache(reference)      # asked by both checks below: one forward of the reference
    if reference_transposed(w, reference):
        return w.transpose(-2, -1)
    if probe is not None and not _is_reference(w, reference) and probe() is True:
        return w.transpose(-2, -1)
    return w


def _is_reference(w: Tensor, reference: Callable[[], Tensor | None]) -> bool:
    """Whether ``w`` is the reference's weights as they are (then no probe is needed), within ORIENTATION_TOL."""
    try:
        ref = reference()
    except Exception:  # noqa: BLE001 - an input the reference cannot take tells nothing
        return False
    if ref is None or list(ref.shape) != list(w.shape):
        return False
    got = w.detach().to(torch.float64)
    return bool(torch.isfinite(got).all()) and bool(
        (got - ref).abs().max() <= ORIENTATION_TOL.get(w.dtype, ORIENTATION_TOL_DEFAULT))


def reference_transposed(w: Tensor, reference: Callable[[], Tensor | None]) -> bool:
    """Whether ``w`` is the reference's weights transposed (and, when square, not the reference's itself), within
    what tells an orientation (the tests judge the precision): checked on the values, never on a shape alone."""
    try:
        ref = reference()
    except Exception:  # noqa: BLE001 - an input the reference cannot take (a bool mask) tells no orientation
        return False
    if ref is None or w.dim() < 2 or list(ref.shape) != list(w.transpose(-2, -1).shape) \
            or not bool(torch.isfinite(ref).all()):
        return False
    got = w.detach().to(torch.float64)
    if not bool(torch.isfinite(got).all()):
        return False
    tol = ORIENTATION_TOL.get(w.dtype, ORIENTATION_TOL_DEFAULT)
    if (got.transpose(-2, -1) - ref).abs().max() > tol:
        return False
    return got.shape != ref.shape or bool((got - ref).abs().max() > tol)


def validate_weights(w: Any, shape: list[int] | None, who: str, swapped: list[int] | None,
                     reference: Callable[[], Tensor | None], source: str | None = None) -> None:
    """``validate`` for returned weights: weights of the swapped shape whose values are the reference's transposed
    are said to be so (seen on the values, not guessed from the shape). Weights whose values are the heads' mean are
    said to be so with the line of ``source`` (the submitted file) that averages the attention weights over the
    heads, when it shows exactly one (``source_lines.head_mean_note``: its operand checked to be the weights; round
    39: the mean was named with no line, where the parity tests quoted it)."""
    try:
        validate(w, shape, who, "weights", swapped=swapped)
    except Feedback as exc:
        if swapped is not None and isinstance(w, Tensor) and list(w.shape) == list(swapped) \
                and reference_transposed(w, reference):
            raise Feedback(cat(exc.message, FAULTS["weights_transposed"], sep=SEMI)) from None
        if shape is not None and isinstance(w, Tensor) and reference_head_mean(w, shape, reference):
            # [B, Nq, Nk]'s shape message already says to return every head's weights; [B, 1, Nq, Nk]'s does not
            advice = None if w.dim() == 3 else _PER_HEAD
            raise Feedback(cat(exc.message, cat(FAULTS["weights_head_mean_values"], advice, sep=COLON),
                               source_lines.head_mean_note(source, who), sep=SEMI)) from None
        raise


_PER_HEAD = msg("return each head's own weights, one [Nq, Nk] matrix per head",
                "应分别返回每个 head 自己的权重，每个 head 一个 [Nq, Nk] 矩阵")


def reference_head_mean(w: Tensor, shape: list[int], reference: Callable[[], Tensor | None]) -> bool:
    """Whether ``w``, of shape [B, 1, Nq, Nk] or [B, Nq, Nk] where [B, H, Nq, Nk] with H > 1 is expected, is the
    reference's weights averaged over the heads (``weights.mean(dim=1)``, nn.MultiheadAttention's default), checked on
    the values within what tells an orientation: one head's weights, or any other matrix of that shape, are not."""
    if len(shape) != 4 or shape[1] < 2 or list(w.shape) not in ([shape[0], 1, *shape[2:]], [shape[0], *shape[2:]]):
        return False
    try:
        ref = reference()
    except Exception:  # noqa: BLE001 - an input the reference cannot take tells nothing
        return False
    if ref is None or list(ref.shape) != list(shape) or not bool(torch.isfinite(ref).all()):
        return False
    got = w.detach().to(torch.float64).reshape(shape[0], 1, *shape[2:])
    if not bool(torch.isfinite(got).all()):
        return False
    mean = ref.mean(1, keepdim=True)
    tol = ORIENTATION_TOL.get(w.dtype, ORIENTATION_TOL_DEFAULT)
    # heads whose weights all equal their mean (one mask blocking all but one key) show no averaging
    return bool((got - mean).abs().max() <= tol) and bool((ref - mean).abs().max() > tol)


_ZH_PART = {"output": "输出", "weights": "权重"}


def validate(t: Any, shape: list[int] | None, who: str, part: str, swapped: list[int] | None = None) -> None:
    """A returned tensor must be a real floating-point tensor of the contract's shape."""
    zh_part = _ZH_PART.get(part, part)
    if not isinstance(t, Tensor):
        raise Feedback(msg(f"the {part} of {who} should be a tensor, got {_describe_value(t)['en']}",
                           f"{who} 的{zh_part}应为 tensor，实际为 {_describe_value(t)['zh']}"))
    if not (t.is_floating_point()):
        dt = str(t.dtype).replace("torch.", "")
        raise Feedback(msg(f"the {part} of {who} is a {dt} tensor; attention returns floating-point values "
                           "in the dtype of q",
                           f"{who} 的{zh_part}是 {dt} 类型的 tensor；attention 应返回与 q 相同 dtype 的浮点数"))
    if shape is None or list(t.shape) == list(shape):
        return
    got, want = _shape(t.shape), _shape(shape)
    has = "have" if part == "weights" else "has"
    if swapped is not None and list(t.shape) == list(swapped):
        raise Feedback(msg(f"the {part} of {who} {has} shape {got}, expected {want}: it has one row per key "
                           "instead of one per query (the output length follows the queries)",
                           f"{who} 的{zh_part} shape 为 {got}，应为 {want}：它每个 key 一行，而不是每个 query 一行"
                           "（输出长度跟随 query）"))
    if part == "weights" and len(shape) == 4 and list(t.shape) == [shape[0], *shape[2:]]:
        raise Feedback(msg(f"the weights of {who} have shape {got}, expected {want}: that is the expected shape "
                           f"without the head axis (dim 1, of size {shape[1]}): return the weights of every head "
                           "separately, one [Nq, Nk] matrix per head",
                           f"{who} 的权重 shape 为 {got}，应为 {want}：这是去掉 head 轴（dim 1，大小为 {shape[1]}）"
                           "后的 shape：应分别返回每个 head 的权重，每个 head 一个 [Nq, Nk] 矩阵"))
    if part == "weights" and len(shape) == 4 and shape[0] != shape[2] == shape[3] and \
            list(t.shape) == [shape[2], shape[1], shape[0], shape[0]]:
        raise Feedback(msg(f"the weights of {who} have shape {got}, expected {want}: that is [N, H, B, B], the shape "
                           "of attention over the batch axis, as when x of shape [B, N, d_model] is read as [N, B, "
                           "d_model] (sequence first, nn.MultiheadAttention's default): the inputs are batch-first, "
                           "B, N, _ = x.shape",
                           f"{who} 的权重 shape 为 {got}，应为 {want}：这是 [N, H, B, B]，即沿 batch 轴做 attention 的 "
                           "shape，就像把 [B, N, d_model] 的 x 当作 [N, B, d_model]（序列维在前，nn.MultiheadAttention "
                           "的默认布局）读取时那样：输入是 batch 在前的，B, N, _ = x.shape"))
    ones = [i for i, n in enumerate(shape) if n == 1]
    if ones and list(t.shape) == [n for n in shape if n != 1]:
        # e.g. weights.squeeze() kept for a heatmap: right only where no axis happens to be of size 1
        axes = ", ".join(str(i) for i in ones)
        raise Feedback(msg(f"the {part} of {who} {has} shape {got}, expected {want}: that is the expected shape with "
                           f"its axes of size 1 (dim {axes}) removed, as .squeeze() does: keep every axis, whatever "
                           "its size",
                           f"{who} 的{zh_part} shape 为 {got}，应为 {want}：这是去掉大小为 1 的轴（dim {axes}）后的 "
                           "shape，就像 .squeeze() 所做的那样：无论大小如何，每个轴都应保留"))
    raise Feedback(msg(f"the {part} of {who} {has} shape {got}, expected {want}",
                       f"{who} 的{zh_part} shape 为 {got}，应为 {want}"))


def reversed_pair(out_shape: list[int], w_shape: list[int]) -> Msg:
    """(weights, output) returned for (output, weights): seen by their shapes, each the other's (checked
    by the caller, where the two expected shapes differ)."""
    out, w = _shape(out_shape), _shape(w_shape)
    return msg(f"with return_weights=True the first tensor returned has the weights' shape {w} and the second the "
               f"output's shape {out}: return (output, weights), in this order",
               f"return_weights=True 时返回的第一个 tensor 是权重的 shape {w}，第二个是输出的 shape {out}："
               "应按 (output, weights) 的顺序返回")


def _shape(shape) -> str:
    return "[" + ",".join(str(int(s)) for s in shape) + "]"


def normalise_result(res: Any, who: str, return_weights: bool, strict: bool, source: str | None = None):
    """``res`` as (output, weights) or output, or the Feedback saying what it was instead (with, for None, where the
    source's forward returns nothing: ``source`` is the file's text)."""
    try:
        return _normalised(res, who, return_weights, strict)
    except Feedback as fb:
        note = no_return_note(source, who) if res is None else None
        if note is None:
            raise
        raise Feedback(cat(fb.message, note, sep=SEMI)) from None


def _normalised(res: Any, who: str, return_weights: bool, strict: bool):
    returned = res
    if isinstance(res, list):
        res = tuple(res)
    if return_weights:
        if not (isinstance(res, tuple) and len(res) == 2 and all(isinstance(t, Tensor) for t in res)):
            d = _describe_value(returned)
            raise Feedback(msg(f"{who}(..., return_weights=True) must return a tuple (output, weights); "
                               f"it returned {d['en']}",
                               f"{who}(..., return_weights=True) 应返回元组 (output, weights)；实际返回了{d['zh']}"))
        return res
    if isinstance(res, Tensor):
        return res
    if not strict and isinstance(res, tuple) and res and isinstance(res[0], Tensor):
        return res[0]
    d = _describe_value(returned)
    raise Feedback(msg(f"{who}(...) with return_weights=False must return a single tensor; it returned {d['en']}",
                       f"{who}(...) 在 return_weights=False 时应只返回一个 tensor；实际返回了{d['zh']}"))


def _describe_value(res: Any) -> Msg:
    """What a forward returned, as it was: a list is a list (round 35: ``return [out]`` read "it returned a tuple
    (Tensor)"), a NumPy array is named as one, with what to return instead. The Chinese follows "实际返回了" as
    written, with a space only before a Latin word."""
    numpy = msg("", "")
    if isinstance(res, np.ndarray) or (isinstance(res, tuple | list) and any(isinstance(t, np.ndarray) for t in res)):
        numpy = msg(": a NumPy array (numpy.ndarray) is not a torch.Tensor, return the tensor itself, not a NumPy copy "
                    "of it (as .numpy() makes, which also cuts the result off from autograd)",
                    "：NumPy 数组（numpy.ndarray）不是 torch.Tensor，请直接返回 tensor 本身，而不是它的 NumPy 副本"
                    "（例如 .numpy() 得到的副本，它还会让结果脱离自动求导）")
    if isinstance(res, Tensor):
        return msg(f"a single tensor of shape {_shape(res.shape)}", f"一个 shape 为 {_shape(res.shape)} 的 tensor")
    if isinstance(res, tuple | list):
        inner = ", ".join("Tensor" if isinstance(t, Tensor) else type(t).__name__ for t in res[:4])
        inner += ", ..." if len(res) > 4 else ""
        if isinstance(res, list):
            return cat(msg(f"a list [{inner}]", f"列表 [{inner}]"), numpy)
        return cat(msg(f"a tuple ({inner})", f"元组 ({inner})"), numpy)
    if res is None:
        return msg("None", " None")
    if isinstance(res, np.ndarray):
        # the tail names the NumPy array: the head says only what it held (round 35 R3: "a NumPy array: a NumPy
        # array (numpy.ndarray) is not ..." read twice)
        return cat(msg(f"an array of shape {_shape(res.shape)}", f"一个 shape 为 {_shape(res.shape)} 的数组"), numpy)
    return msg(f"a value of type {type(res).__name__}", f" `{type(res).__name__}` 类型的值")
