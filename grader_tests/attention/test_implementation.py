"""Implementation: hand-written attention, multi-head wrapper, gradients, dtype, determinism,
numerical stability."""

import torch

from grader_tests.attention import cases as C
from grader_tests.attention import static
from grader_tests.attention.checks import (
    Feedback,
    expect,
    expect_close,
    expect_finite,
    expect_shape,
    max_err,
)

D, H = 16, 4


def _mha_with_params(student, d_model=D, heads=H, head_dim=None, seed=30):
    hd = head_dim or d_model // heads
    params = C.mha_params(seed, d_model, heads, hd)
    return student.mha(d_model, heads, head_dim, params=params), params, hd


def _try_mha(student):
    """The student's MHA with reference weights, or None when it cannot be used at all
    (its absence is graded by the MHA tests, not here)."""
    try:
        return _mha_with_params(student)
    except Feedback:
        return None


HIDDEN_NAMES = ("attention.py reaches functions through computed or indirect names ({}), so it cannot be "
                "checked for PyTorch's ready-made attention: call torch functions by their plain names "
                "(your instructor will review this)")


def test_no_fused_attention_static(student_source):
    uses = static.fused_attention_uses(student_source)
    expect(not uses, "attention.py uses PyTorch's ready-made attention (" + "; ".join(uses[:3]) +
           "): the lab asks you to write QK^T / sqrt(dk), the softmax and the weighted sum yourself")
    hidden = static.hidden_name_uses(student_source)
    expect(not hidden, HIDDEN_NAMES.format("; ".join(hidden[:3])))


def test_no_fused_attention_runtime(student, student_source):
    # The counters below live in the student's process, which can rewrite them: they only ever
    # count against the submission. The pass rests on the trusted analysis of the source.
    hidden = static.hidden_name_uses(student_source)
    expect(not hidden, HIDDEN_NAMES.format("; ".join(hidden[:3])))
    q, k, v = C.parity_case()
    student.sdpa(q, k, v)
    got = _try_mha(student)
    if got is not None:
        try:
            got[0](C.tokens(40, 2, 5, D))
        except Feedback:
            pass
    forbid = student.stats().get("forbid", {})
    used = {name: n for name, n in forbid.items() if isinstance(n, int) and n > 0}
    expect(not used, "at run time attention.py called " +
           ", ".join(f"{name} ({n}x)" for name, n in sorted(used.items())) +
           ": write the attention computation yourself")


def test_mha_structure(student):
    info = student.mha(D, H).describe()
    expect(info.get("is_module"), "MultiHeadAttention must subclass torch.nn.Module")
    children = info.get("children", {})
    for name, fin, fout in (("q_proj", D, D), ("k_proj", D, D), ("v_proj", D, D), ("out_proj", D, D)):
        child = children.get(name)
        expect(child is not None, f"MultiHeadAttention({D}, {H}) has no attribute {name} "
               f"(expected nn.Linear({fin}, {fout}))")
        expect(child.get("type") == "Linear", f"{name} is a {child.get('type')}, expected nn.Linear")
        got = (child.get("in_features"), child.get("out_features"))
        expect(got == (fin, fout), f"{name} maps {got[0]} -> {got[1]} features, expected {fin} -> {fout} "
               f"(head_dim defaults to d_model // num_heads = {D // H})")


def test_mha_custom_head_dim(student):
    d_model, heads, hd = 12, 3, 8
    info = student.mha(d_model, heads, hd).describe()
    children = info.get("children", {})
    for name, fin, fout in (("q_proj", 12, 24), ("k_proj", 12, 24), ("v_proj", 12, 24), ("out_proj", 24, 12)):
        child = children.get(name) or {}
        got = (child.get("in_features"), child.get("out_features"))
        expect(got == (fin, fout), f"with head_dim={hd}, {name} should map {fin} -> {fout} features "
               f"(num_heads * head_dim = {heads * hd}), got {got[0]} -> {got[1]}")
    mha, params, _ = _mha_with_params(student, d_model, heads, hd, seed=31)
    x = C.tokens(41, 2, 4, d_model)
    ref, _ = C.ref_mha(params, heads, hd, x)
    expect_close(mha(x), ref, C.OUT_TOL, f"MultiHeadAttention({d_model}, {heads}, head_dim={hd}) output",
                 names="b,q,d")


def test_mha_self_attention_parity(student):
    mha, params, hd = _mha_with_params(student)
    x = C.tokens(42, 2, 5, D)
    ref, _ = C.ref_mha(params, H, hd, x)
    expect_close(mha(x), ref, C.OUT_TOL, "multi-head self-attention output", names="b,q,d",
                 hint="check the head split: view(B, N, H, head_dim).transpose(1, 2), and merge back "
                      "with transpose(1, 2).reshape(B, N, H * head_dim) before out_proj")


def test_mha_cross_attention_parity(student):
    mha, params, hd = _mha_with_params(student)
    x, ctx = C.tokens(43, 2, 3, D), C.tokens(44, 2, 7, D)
    ref, _ = C.ref_mha(params, H, hd, x, ctx)
    out = mha(x, ctx)
    expect_shape(out, [2, 3, D], "cross-attention output for x [2,3,16], context [2,7,16]",
                 "queries come from x, keys and values from the context")
    expect_close(out, ref, C.OUT_TOL, "multi-head cross-attention output", names="b,q,d",
                 hint="queries must be projected from x, keys and values from the context")


def test_mha_reuses_sdpa(student, student_source):
    copied = static.class_softmax_calls(student_source, "MultiHeadAttention")
    expect(not copied, "MultiHeadAttention computes the softmax itself (" + "; ".join(copied[:3]) +
           "): call a ScaledDotProductAttention module instead of copying its logic")
    # Trusted evidence first (the source); the in-jail counter below can only count against.
    expect(static.class_uses_class(student_source, "MultiHeadAttention", "ScaledDotProductAttention"),
           "MultiHeadAttention never refers to ScaledDotProductAttention: keep one "
           "ScaledDotProductAttention module (e.g. self.attention) and call it on the split heads")
    hidden = static.hidden_name_uses(student_source)
    expect(not hidden, HIDDEN_NAMES.format("; ".join(hidden[:3])))
    mha, _, _ = _mha_with_params(student)
    name = "ScaledDotProductAttention.forward"
    before = student.stats().get("count", {}).get(name, 0)
    mha(C.tokens(45, 2, 5, D))
    after = student.stats().get("count", {}).get(name, 0)
    expect(isinstance(after, int) and isinstance(before, int) and after > before,
           "MultiHeadAttention.forward never called ScaledDotProductAttention.forward: keep one "
           "ScaledDotProductAttention module (e.g. self.attention) and call it on the split heads")


def test_mha_weights_per_head(student):
    mha, params, hd = _mha_with_params(student)
    x, ctx = C.tokens(46, 2, 3, D), C.tokens(47, 2, 6, D)
    _, ref_w = C.ref_mha(params, H, hd, x, ctx)
    _, w = mha(x, ctx, return_weights=True)
    expect_shape(w, [2, H, 3, 6], "multi-head weights [B,H,Nq,Nk]")
    expect_close(w, ref_w, C.WEIGHT_TOL, "multi-head weights", names="b,h,q,k",
                 hint="head h must use projection features h*head_dim:(h+1)*head_dim, obtained by "
                      "view(B, N, H, head_dim).transpose(1, 2)")


def test_gradients_match_reference(student):
    q, k, v = C.qkv(50, 2, 2, 5, 6, 8, 4)
    mask = C.random_block_mask(51, (2, 2, 5, 6))
    g = C.tokens(52, 2, 2, 5, 4)
    grads = student.sdpa_grad(q, k, v, mask, g)
    for name, got, ref in zip("qkv", grads, C.ref_grads(q, k, v, mask, g), strict=True):
        expect_shape(got, ref.shape, f"gradient with respect to {name}")
        err = max_err(got, ref)
        expect(err <= 1e-4, f"gradient with respect to {name} differs from the reference by {err:.3g}: "
               "avoid in-place changes of tensors needed for backward, detach() and hard-coded constants")


def test_dtype_preserved(student):
    q, k, v = C.qkv(60, 2, 2, 4, 5, 8, 6, dtype=torch.float64)
    mask = C.random_block_mask(61, (2, 2, 4, 5)).double()
    out, w = student.sdpa(q, k, v, mask, return_weights=True)
    expect(out.dtype == torch.float64, f"float64 inputs gave a {str(out.dtype).replace('torch.', '')} "
           "output: do not cast to float32 (e.g. use torch.finfo(scores.dtype))")
    expect(w.dtype == torch.float64, f"float64 inputs gave {str(w.dtype).replace('torch.', '')} weights")
    expect_close(out, C.ref_output(q, k, v, mask), 1e-10, "float64 output")


def test_deterministic(student, fresh_student):
    """Checked on freshly built modules, i.e. in the (training) mode a new nn.Module starts in. The
    second call runs in a fresh session, so an answer remembered from an earlier call cannot hide
    randomness such as dropout."""
    q, k, v = C.parity_case()
    a = student.sdpa(q, k, v, return_weights=True, eval_mode=False)
    b = fresh_student.sdpa(q, k, v, return_weights=True, eval_mode=False)
    expect(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]),
           "two identical calls to ScaledDotProductAttention gave different results "
           f"(max difference {max(max_err(a[0], b[0]), max_err(a[1], b[1])):.3g}): remove dropout or "
           "any other randomness")
    # Equal twice is not enough: randomness seeded from the input (dropout under a fixed seed)
    # repeats itself. A freshly built module must already give the reference output.
    expect_close(a[0], C.ref_output(q, k, v), C.OUT_TOL, "the output of a freshly built (training-mode) module",
                 hint="attention in this lab has no dropout: nothing may change the weights in training mode")
    params = C.mha_params(62, D, H, D // H)
    try:
        x = C.tokens(62, 2, 5, D)
        o1 = student.mha(D, H, params=params, eval_mode=False)(x)
        o2 = fresh_student.mha(D, H, params=params, eval_mode=False)(x)
    except Feedback:
        o1 = None  # a missing or broken MultiHeadAttention is graded by the MHA checks
    if o1 is not None:
        expect(torch.equal(o1, o2), "two identical calls to MultiHeadAttention gave different results "
               f"(max difference {max_err(o1, o2):.3g}): remove dropout or any other randomness")


def test_large_logits_stable(student):
    q, k, v = C.qkv(70, 2, 2, 5, 7, 16, 8, scale=40.0)  # scores of several hundred
    out, w = student.sdpa(q, k, v, return_weights=True)
    hint = "exp() of large scores overflows unless the row maximum is subtracted first"
    expect_finite(w, "weights for very large scores", hint)
    expect_finite(out, "output for very large scores", hint)
    # scores of ~100 in float32 carry rounding of ~1e-5, hence the looser tolerance here
    expect_close(out, C.ref_output(q, k, v), 1e-4, "output for very large scores")
