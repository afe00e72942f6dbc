"""How the NumPy lab's tests call the student's code: two module-level functions, in the jail.

`NumpyAttentionStudent` is this assignment's driver (see `grading.suite.Suite.driver`): the tests
receive it as their `student` fixture. Arrays cross the boundary as plain `numpy.ndarray`s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
            raise Feedback("scaled_dot_attention(...) must return a tuple (context, weights, scores); "
                           f"it returned {_describe(res)}")
        n, d_v = x.shape[0], wv.shape[1]
        context, weights, scores = res
        return (_array(context, "context", (n, d_v)), _array(weights, "weights", (n, n)),
                _array(scores, "scores", (n, n)))


def _array(value: Any, what: str, shape: tuple[int, ...]) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise Feedback(f"{what} should be a NumPy array, got {_describe(value)}")
    if value.dtype.kind not in "fiu":
        raise Feedback(f"{what} has dtype {value.dtype}, expected floating-point numbers")
    if tuple(value.shape) != shape:
        raise Feedback(f"{what} has shape {list(value.shape)}, expected {list(shape)}")
    return value


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {list(value.shape)}"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} values"
    if value is None:
        return "None"
    return f"a {type(value).__name__}"
