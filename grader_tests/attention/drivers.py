"""How the attention tests call the student's code: typed calls over the generic proxy.

`AttentionStudent` is this assignment's driver (see `grading.suite.Suite.driver`): the tests
receive it as their `student` fixture and call `student.sdpa(...)` or `student.mha(...)`.
"""

from __future__ import annotations

from typing import Any

from torch import Tensor

from grading.proxy import Feedback, Handle, StudentProxy


class AttentionStudent(StudentProxy):
    """The student's `ScaledDotProductAttention` and `MultiHeadAttention`, called in the jail."""

    def sdpa_handle(self, eval_mode: bool = True) -> Handle:
        return self.new("ScaledDotProductAttention", eval_mode=eval_mode)

    def sdpa(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None, *,
             return_weights: bool = False, strict: bool = False, pass_flag: bool = False,
             eval_mode: bool = True):
        """``ScaledDotProductAttention()(q, k, v, mask, return_weights=...)``.

        Returns a tensor, or ``(output, weights)`` when ``return_weights``.  Unless ``strict``, an
        output returned inside a tuple when no weights were asked for is accepted (the return
        contract has its own test); ``pass_flag`` passes ``return_weights=False`` explicitly."""
        args = (q, k, v) if mask is None else (q, k, v, mask)
        kwargs = {"return_weights": True} if return_weights else (
            {"return_weights": False} if pass_flag else {})
        res = self.call(self.sdpa_handle(eval_mode), "__call__", *args, **kwargs)
        return normalise_result(res, "ScaledDotProductAttention", return_weights, strict)

    def sdpa_grad(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None,
                  grad_output: Tensor) -> list[Tensor]:
        args = (q, k, v) if mask is None else (q, k, v, mask)
        return self.grad(self.sdpa_handle(), args, {}, grad_output, wrt=[0, 1, 2])

    def mha(self, d_model: int, num_heads: int, head_dim: int | None = None,
            params: dict[str, Tensor] | None = None, *, eval_mode: bool = True) -> MHA:
        kwargs = {} if head_dim is None else {"head_dim": head_dim}
        handle = self.new("MultiHeadAttention", d_model, num_heads, params=params, eval_mode=eval_mode,
                          **kwargs)
        self.instantiate(handle)
        return MHA(self, handle)


class MHA:
    """Typed view of a student ``MultiHeadAttention`` instance."""

    def __init__(self, proxy: StudentProxy, handle: Handle):
        self._p, self.handle = proxy, handle

    def describe(self) -> dict:
        return self._p.describe(self.handle)

    def __call__(self, x: Tensor, context: Tensor | None = None, additive_mask: Tensor | None = None,
                 *, key_padding_mask: Tensor | None = None, return_weights: bool = False,
                 strict: bool = False):
        args = (x,) if context is None and additive_mask is None else (x, context, additive_mask)
        kwargs: dict[str, Any] = {}
        if key_padding_mask is not None:
            kwargs["key_padding_mask"] = key_padding_mask
        if return_weights:
            kwargs["return_weights"] = True
        res = self._p.call(self.handle, "__call__", *args, **kwargs)
        return normalise_result(res, "MultiHeadAttention", return_weights, strict)


def normalise_result(res: Any, who: str, return_weights: bool, strict: bool):
    if isinstance(res, list):
        res = tuple(res)
    if return_weights:
        if not (isinstance(res, tuple) and len(res) == 2 and all(isinstance(t, Tensor) for t in res)):
            raise Feedback(f"{who}(..., return_weights=True) must return a tuple (output, weights); "
                           f"it returned {_describe_value(res)}")
        return res
    if isinstance(res, Tensor):
        return res
    if not strict and isinstance(res, tuple) and res and isinstance(res[0], Tensor):
        return res[0]
    raise Feedback(f"{who}(...) with return_weights=False must return a single tensor; "
                   f"it returned {_describe_value(res)}")


def _describe_value(res: Any) -> str:
    if isinstance(res, Tensor):
        return f"a single tensor of shape {list(res.shape)}"
    if isinstance(res, tuple):
        inner = ", ".join("Tensor" if isinstance(t, Tensor) else type(t).__name__ for t in res[:4])
        return f"a tuple ({inner}{', ...' if len(res) > 4 else ''})"
    if res is None:
        return "None"
    return f"a {type(res).__name__}"


