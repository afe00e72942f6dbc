"""How the NumPy lab's tests call the student's code: two module-level functions, in the jail.

`NumpyAttentionStudent` is this assignment's driver (see `grading.suite.Suite.driver`): the tests
receive it as their `student` fixture. Arrays cross the boundary as plain `numpy.ndarray`s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grading.i18n import Msg, msg
from grading.proxy import Feedback, StudentProxy


class NumpyAttentionStudent(StudentProxy):
    """The student's `softmax(a, axis=-1)` and `scaled_dot_attention(X, Wq, Wk, Wv, mask=None)`."""

    def softmax(self, a: np.ndarray, axis: int | None = None) -> np.ndarray:
        """``softmax(a)`` or ``softmax(a, axis=axis)``; the result must be an array shaped like ``a``."""
        res = self.function("softmax", a) if axis is None else self.function("softmax", a, axis=axis)
        call = "softmax(a)" if axis is None else f"softmax(a, axis={axis})"
        return _array(res, call, tuple(a.shape))

    def attention(self, x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray,
                  mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``scaled_dot_attention(X, Wq, Wk, Wv[, mask])`` -> ``(context, weights, scores)``, each
        checked to be an array of the contract's shape ([n, d_v], [n, n], [n, n])."""
        args = (x, wq, wk, wv) if mask is None else (x, wq, wk, wv, mask)
        res = self.function("scaled_dot_attention", *args)
        if isinstance(res, list):
            res = tuple(res)
        if not (isinstance(res, tuple) and len(res) == 3):
            d = _describe(res)
            raise Feedback(msg("scaled_dot_attention(...) must return a tuple (context, weights, scores); "
                               f"it returned {d['en']}",
                               "scaled_dot_attention(...) 必须返回元组 (context, weights, scores)；"
                               f"实际返回{d['zh']}"))
        n, d_v = x.shape[0], wv.shape[1]
        context, weights, scores = res
        return (_array(context, "context", (n, d_v)), _array(weights, "weights", (n, n)),
                _array(scores, "scores", (n, n)))


def _shape(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _array(value: Any, what: str, shape: tuple[int, ...]) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        d = _describe(value)
        raise Feedback(msg(f"{what} should be a NumPy array, got {d['en']}",
                           f"{what} 应为 NumPy 数组，实际为{d['zh']}"))
    if value.dtype.kind not in "fiu":
        raise Feedback(msg(f"{what} has dtype {value.dtype}, expected floating-point numbers",
                           f"{what} 的 dtype 为 {value.dtype}，应为浮点数"))
    if tuple(value.shape) != shape:
        raise Feedback(msg(f"{what} has shape {_shape(value.shape)}, expected {_shape(shape)}",
                           f"{what} 的形状为 {_shape(value.shape)}，应为 {_shape(shape)}"))
    return value


def _describe(value: Any) -> Msg:
    if isinstance(value, np.ndarray):
        return msg(f"an array of shape {_shape(value.shape)}", f"形状为 {_shape(value.shape)} 的数组")
    if isinstance(value, tuple):
        return msg(f"a tuple of {len(value)} values", f"含 {len(value)} 个值的元组")
    if value is None:
        return msg("None", " None")
    return msg(f"a {type(value).__name__}", f" {type(value).__name__}")
