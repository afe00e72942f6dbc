"""Projections Q = X Wq, K = X Wk, V = X Wv and scores S = Q K^T / sqrt(d_k) (page §01-03)."""

import numpy as np

from grader_tests.attention_numpy import cases as C
from grader_tests.attention_numpy.checks import diagnose_scores, expect, expect_close, msg


def test_returns_context_weights_scores(student):
    # n, d_model, d_k, d_v all differ, so every shape says which matrix it came from.
    x, wq, wk, wv = C.weights_for(5, 6, 4, 3, seed=21)
    context, weights, scores = student.attention(x, wq, wk, wv)   # types and shapes checked by the driver
    expect(context.shape == (5, 3) and weights.shape == (5, 5) and scores.shape == (5, 5),
           msg("expected context [n, d_v], weights [n, n], scores [n, n]",
               "应为 context [n, d_v]、weights [n, n]、scores [n, n]"))


def test_scores_are_query_key_dot_products(student):
    x, wq, wk, wv = C.weights_for(5, 6, 4, 3, seed=22)
    _, _, scores = student.attention(x, wq, wk, wv)
    expect_close(scores, C.ref_scores(x, wq, wk), "scores = (X Wq)(X Wk)^T / sqrt(d_k)",
                 hint=diagnose_scores(scores, x, wq, wk))


def test_scores_scaled_by_sqrt_dk(student):
    # d_k = 9 (sqrt 3), d_model = 12, n = 7: each wrong scale gives other numbers.
    x, wq, wk, wv = C.weights_for(7, 12, 9, 5, seed=23)
    _, _, scores = student.attention(x, wq, wk, wv)
    hint = diagnose_scores(scores, x, wq, wk) or msg("d_k is the width of Q (Q.shape[-1])",
                                                     "d_k 是 Q 的宽度（Q.shape[-1]）")
    expect_close(scores, C.ref_scores(x, wq, wk),
                 msg("scores with d_k = 9 (divide by sqrt(9) = 3)", "d_k = 9 时的分数（应除以 sqrt(9) = 3）"),
                 hint=hint)


def test_scale_keeps_score_variance_near_one(student):
    # X = I makes Q = Wq and K = Wk: unit-variance entries, d_k = 256. Var(q.k) = d_k, so the
    # scaled scores have variance close to 1 (page §03).
    d_k = 256
    g = C.rng(24)
    x, wq, wk, wv = np.eye(16), g.normal(size=(16, d_k)), g.normal(size=(16, d_k)), g.normal(size=(16, 4))
    _, _, scores = student.attention(x, wq, wk, wv)
    var = float(np.var(scores.astype(np.float64)))
    expect(0.5 < var < 2.0, msg(f"the scores have variance {var:.3g} for unit-variance Q and K with d_k = {d_k}; "
                                "dividing Q K^T by sqrt(d_k) brings it to about 1",
                                f"Q、K 各维方差为 1、d_k = {d_k} 时，分数的方差为 {var:.3g}；"
                                "Q K^T 除以 sqrt(d_k) 后应约为 1"))
