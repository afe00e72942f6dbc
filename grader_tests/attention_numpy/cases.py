"""Inputs and the float64 reference of the NumPy lab (trusted side only; never sent as code).

The reference softmax is PyTorch's, in float64: an implementation independent of the NumPy one
students write, so a shared mistake cannot pass unnoticed.
"""

from __future__ import annotations

import numpy as np
import torch

# Tolerances (float64 inputs; float32 arithmetic inside a submission still passes).
TOL = 1e-6
ROW_SUM_TOL = 1e-6
ZERO_TOL = 1e-9

TOKENS = ["policy", "raises", "wages", "jobs"]


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def weights_for(n: int, d_model: int, d_k: int, d_v: int, seed: int) -> tuple[np.ndarray, ...]:
    """(X, Wq, Wk, Wv) with the page's scaling of the projections (1/sqrt(d_model))."""
    g = rng(seed)
    x = g.normal(size=(n, d_model))
    wq, wk = (g.normal(size=(d_model, d_k)) / np.sqrt(d_model) for _ in range(2))
    wv = g.normal(size=(d_model, d_v)) / np.sqrt(d_model)
    return x, wq, wk, wv


def course_page_demo() -> tuple[np.ndarray, ...]:
    """Exactly the inputs of the course page's demo: seed 7, four tokens, d_model 6, d_k = d_v = 4,
    and the decoder-style causal mask."""
    g = np.random.default_rng(7)
    x = g.normal(size=(len(TOKENS), 6))
    wq = g.normal(size=(6, 4)) / np.sqrt(6)
    wk = g.normal(size=(6, 4)) / np.sqrt(6)
    wv = g.normal(size=(6, 4)) / np.sqrt(6)
    return x, wq, wk, wv, causal_mask(len(TOKENS))


def causal_mask(n: int) -> np.ndarray:
    """bool [n, n], True = visible: token i sees tokens j <= i."""
    return np.tril(np.ones((n, n), dtype=bool))


def ref_softmax(a: np.ndarray, axis: int = -1) -> np.ndarray:
    return torch.softmax(torch.from_numpy(np.asarray(a, dtype=np.float64)), dim=axis).numpy()


def ref_scores(x, wq, wk, *, scale: float | None = None, swap: bool = False) -> np.ndarray:
    """Unmasked Q K^T / sqrt(d_k) (or another ``scale``; ``swap`` gives K Q^T, for diagnoses)."""
    q, k = x @ wq, x @ wk
    if swap:
        q, k = k, q
    s = 1.0 / np.sqrt(q.shape[-1]) if scale is None else scale
    return (q @ k.T) * s


def ref_weights(x, wq, wk, mask=None, **kw) -> np.ndarray:
    """softmax over the keys of the (masked) scores; blocked positions get exactly 0 weight."""
    scores = ref_scores(x, wq, wk, **kw)
    return ref_softmax(scores if mask is None else np.where(mask, scores, -np.inf), axis=-1)


def ref_attention(x, wq, wk, wv, mask=None, **kw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(context, weights, unmasked scores) in float64."""
    weights = ref_weights(x, wq, wk, mask, **kw)
    return weights @ (x @ wv), weights, ref_scores(x, wq, wk, **kw)


def random_mask(n: int, seed: int) -> np.ndarray:
    """A random bool mask with at least one visible key per row (the diagonal)."""
    m = rng(seed).random((n, n)) < 0.5
    np.fill_diagonal(m, True)
    return m


def padding_mask(n: int, padded: int) -> np.ndarray:
    """The last ``padded`` keys are padding: no query may see them."""
    m = np.ones((n, n), dtype=bool)
    m[:, n - padded:] = False
    return m
