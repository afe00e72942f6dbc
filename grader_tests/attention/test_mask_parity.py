"""Mask semantics and reference parity (exit conditions: blocked key has weight 0, parity within the
agreed error; experiment B: padding keys)."""

import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grader_tests.attention.checks import (
    SEMI,
    Feedback,
    apart,
    cat,
    expect,
    expect_close,
    expect_finite,
    identical,
    max_err,
    msg,
    non_finite,
    row_sum_error,
)
from grader_tests.attention.drivers import weights_as_returned
from grading.i18n import Msg

D, H = 16, 4


def test_output_parity_reference(student, record_measurement):
    q, k, v = C.parity_case()
    out = student.sdpa(q, k, v)
    ref = C.ref_output(q, k, v)
    expect_finite(out, msg("output", "输出"))
    record_measurement("max_abs_error", max_err(out, ref))
    hint = diagnose.sdpa_output(out, q, k, v, student=student) if max_err(out, ref) > C.OUT_TOL else None
    expect_close(out, ref, C.OUT_TOL, msg("float32 output (vs torch.nn.functional.scaled_dot_product_attention)",
                                          "float32 输出（对比 torch.nn.functional.scaled_dot_product_attention）"),
                 hint=hint)
    # The contract lets dk and dv differ either way: the parity case has dv < dk, this one dv > dk
    # (a scale computed from the larger of the two passes the first and not this one).
    q, k, v = C.qkv(13, 2, 3, 5, 6, 4, 9)
    out = student.sdpa(q, k, v)
    ref = C.ref_output(q, k, v)
    hint = diagnose.sdpa_output(out, q, k, v, student=student) if max_err(out, ref) > C.OUT_TOL else None
    expect_close(out, ref, C.OUT_TOL, msg("float32 output with dv > dk (q, k [2,3,5|6,4], v [2,3,6,9])",
                                          "dv > dk 时的 float32 输出（q、k 为 [2,3,5|6,4]，v 为 [2,3,6,9]）"),
                 hint=hint)


def test_weights_parity_reference(student):
    with weights_as_returned(student):   # the weights' layout is graded here (drivers.read_back)
        # The rectangular parity case, then a square one: weights returned transposed (key x query)
        # fail the first by their shape and the second by their values.
        for what, (q, k, v) in (
                (msg("weights (vs a float64 softmax of QK^T/sqrt(dk))", "权重（对比 float64 计算的 softmax(QK^T/sqrt(dk))）"),
                 C.parity_case()),
                (msg("weights with Nq = Nk = 8 (vs a float64 softmax of QK^T/sqrt(dk))",
                     "Nq = Nk = 8 时的权重（对比 float64 计算的 softmax(QK^T/sqrt(dk))）"), C.square_case())):
            _, w = student.sdpa(q, k, v, return_weights=True)
            ref = C.ref_weights(q, k)
            hint = diagnose.sdpa_weights(w, q, k, v, student=student) if max_err(w, ref) > C.WEIGHT_TOL else None
            expect_close(w, ref, C.WEIGHT_TOL, what, names="b,h,q,k", hint=hint)


def _blocked_check(student, w: torch.Tensor, blocked: torch.Tensor, what, q, k, v, mask) -> None:
    """Weights at blocked positions are 0 and rows still sum to 1; a named mistake only when the
    student's weights match it."""
    if not bool(torch.isfinite(w).all()):
        expect_finite(w, cat(what, msg(": weights", "：权重")), diagnose.sdpa_weights(w, q, k, v, mask, student=student)
                      or diagnose.mask_nan(student, q, k, v, mask, w))
    on_blocked = float(w.double().masked_select(blocked).abs().max()) if blocked.any() else 0.0
    rs = row_sum_error(w)
    if on_blocked <= C.ZERO_TOL and rs <= C.ROW_SUM_TOL:
        return
    hint = diagnose.sdpa_weights(w, q, k, v, mask, student=student)
    again = student.sdpa(q, k, v, mask, return_weights=True)[1]
    if not identical(again, w):
        hint = diagnose.randomness(student, "ScaledDotProductAttention")
    seen = []
    if on_blocked > C.ZERO_TOL:
        # round 43: a mask applied in some heads only is read per head, as the padding test reads its heads
        per_head = torch.where(blocked, torch.nan_to_num(w.double(), nan=0.0).abs(), torch.zeros((), dtype=torch.float64))
        heads = _heads_reading(per_head.transpose(0, 1).reshape(w.shape[1], -1, 1)) if w.dim() == 4 else None
        # zh: one bracket (（只出现在 head 0 中；head 1 给它们的权重为 0；应为 0）)
        seen.append(msg(f"blocked positions get weight up to {on_blocked:.3g} (expected 0){heads['en']}",
                        f"被屏蔽位置的权重最大为 {on_blocked:.3g}{heads['zh'][:-1]}；应为 0）") if heads else
                    msg(f"blocked positions get weight up to {on_blocked:.3g} (expected 0)",
                        f"被屏蔽位置的权重最大为 {on_blocked:.3g}（应为 0）"))
    if rs > C.ROW_SUM_TOL:
        seen.append(msg(f"the row sums deviate from 1 by up to {rs:.3g}", f"行和与 1 最多相差 {rs:.3g}"))
    raise Feedback(cat(cat(what, msg(": ", "："), cat(*seen, sep=msg(" and ", "，"))), hint, sep=SEMI))


def test_blocked_key_gets_zero_weight(student):
    # Nq != Nk, then Nq == Nk: weights returned transposed would put the blocked key's zeros on a row
    j = 2
    for seed, nq in ((80, 4), (79, 6)):
        q, k, v = C.qkv(seed, 2, 2, nq, 6, 8, 5)
        mask = C.column_block_mask((2, 2, nq, 6), j)
        out, w = student.sdpa(q, k, v, mask, return_weights=True)
        blocked = torch.zeros(2, 2, nq, 6, dtype=torch.bool)
        blocked[..., j] = True
        what = msg(f"key {j} of 6 masked with -inf for {nq} queries", f"{nq} 个 query、第 {j} 个 key（共 6 个）用 -inf 屏蔽时")
        _blocked_check(student, w, blocked, what, q, k, v, mask)
        expect_close(out, C.ref_output(q, k, v, mask), C.OUT_TOL, cat(what, msg(": output", "：输出")))


def test_additive_mask_parity(student):
    # [B,H,Nq,Nk] with Nq != Nk, then with Nq == Nk (where weights returned transposed keep their shape)
    for seed, nq in ((81, 5), (78, 8)):
        q, k, v = C.qkv(seed, 2, 3, nq, 8, 8, 6)
        mask = C.random_block_mask(seed + 1, (2, 3, nq, 8))
        out, w = student.sdpa(q, k, v, mask, return_weights=True)
        what = msg(f"random 0/-inf mask [B,H,Nq,Nk] = [2,3,{nq},8]", f"随机 0/-inf mask [B,H,Nq,Nk] = [2,3,{nq},8]")
        _blocked_check(student, w, torch.isinf(mask), what, q, k, v, mask)
        ref_w = C.ref_weights(q, k, mask)
        hint = diagnose.sdpa_weights(w, q, k, v, mask, student=student) if max_err(w, ref_w) > C.WEIGHT_TOL else None
        expect_close(w, ref_w, C.WEIGHT_TOL, cat(what, msg(", the weights", "，权重")), names="b,h,q,k", hint=hint)
        expect_close(out, C.ref_output(q, k, v, mask), C.OUT_TOL, cat(what, msg(", the output", "，输出")))


def _label(shape) -> str:
    return "[" + ",".join(map(str, shape)) + "]"


def _masks_work(student, q, k, v, masks) -> bool:
    """Whether the student's weights and output are right with each of ``masks`` (a probe)."""
    for mask in masks:
        try:
            out, w = student.sdpa(q, k, v, mask, return_weights=True)
        except Feedback:
            return False
        if max_err(w, C.ref_weights(q, k, mask)) > C.WEIGHT_TOL or max_err(out, C.ref_output(q, k, v, mask)) > C.OUT_TOL:
            return False
    return True


def test_mask_broadcasts_over_batch_and_heads(student):
    B, Hh, Nq, Nk = 2, 3, 4, 6
    q, k, v = C.qkv(83, B, Hh, Nq, Nk, 8, 5)
    plain_ok = False  # the [Nq,Nk] mask (checked first) passed: a later failure is broadcasting
    shapes = [(Nq, Nk), (1, 1, Nq, Nk), (B, 1, Nq, Nk), (1, Hh, Nq, Nk)]
    for i, shape in enumerate(shapes):
        mask = C.random_block_mask(90 + i, shape)
        label = _label(shape)
        what = msg(f"with a mask of shape {label} for q [{B},{Hh},{Nq},8]",
                   f"q 为 [{B},{Hh},{Nq},8]、mask 的 shape 为 {label} 时")
        only_2d = msg(f"a [{Nq},{Nk}] mask works but {label} does not: the mask must broadcast over the "
                      "leading batch and head dimensions (add it to the [B,H,Nq,Nk] scores as it is)",
                      f"[{Nq},{Nk}] 的 mask 可以，但 {label} 不行：mask 的前导维度应能沿 batch 与 head 广播"
                      "（直接加到 [B,H,Nq,Nk] 的 score 上）") if plain_ok else None
        try:
            out, w = student.sdpa(q, k, v, mask, return_weights=True)
        except Feedback as exc:
            four_d = [C.random_block_mask(90 + j, s) for j, s in enumerate(shapes) if j > 0]
            if i == 0 and _masks_work(student, q, k, v, four_d):   # what a probe of the 4-D masks shows
                others = msg(", ".join(_label(s) for s in shapes[1:-1]) + " and " + _label(shapes[-1]),
                             "、".join(_label(s) for s in shapes[1:-1]) + " 和 " + _label(shapes[-1]))
                only_2d = msg(f"masks of shape {others['en']} work but {label} does not: a mask added to the "
                              "[B,H,Nq,Nk] scores as it is broadcasts from the last axis, so a [Nq,Nk] one "
                              "needs no axes added to it",
                              f"{others['zh']} 的 mask 可以，但 {label} 不行：直接加到 [B,H,Nq,Nk] 的 score 上的 mask "
                              "会从最后一维开始广播，所以 [Nq,Nk] 的 mask 不需要另加维度")
            raise Feedback(cat(cat(what, msg(": ", "："), exc.message), only_2d, sep=SEMI)) from None
        ref_w = C.ref_weights(q, k, mask)
        if max_err(w, ref_w) > C.WEIGHT_TOL:
            expect_close(w, ref_w, C.WEIGHT_TOL, cat(what, msg(", the weights", "，权重")), names="b,h,q,k",
                         hint=(diagnose.sdpa_weights(w, q, k, v, mask, student=student)
                               or diagnose.mask_nan(student, q, k, v, mask, w, out) or only_2d))
        expect_close(out, C.ref_output(q, k, v, mask), C.OUT_TOL, cat(what, msg(", the output", "，输出")),
                     hint=only_2d)
        plain_ok = plain_ok or i == 0


def _padding_case():
    params = C.mha_params(33, D, H, D // H)
    x, ctx = C.tokens(84, 2, 5, D), C.tokens(85, 2, 8, D)
    pad = torch.zeros(2, 8, dtype=torch.bool)
    pad[1, 5:] = True  # second sample: its last 3 keys are padding
    return params, x, ctx, pad


def test_padding_keys_get_zero_weight(student):
    params, x, ctx, pad = _padding_case()
    mha = student.mha(D, H, params=params)
    params = mha.params
    # Self-attention over the padded sequence first (Nq == Nk, where a mask put on the query axis
    # still runs and can be named), then cross-attention from 5 queries.
    for what, queries, context in (
            (msg("self-attention over the 8 tokens with key_padding_mask (sample 1: tokens 5..7 are padding)",
                 "对 8 个 token 做 self-attention 并使用 key_padding_mask 时（样本 1 的第 5..7 个 token 是 padding）"),
             ctx, None),
            (msg("with key_padding_mask (sample 1: keys 5..7 are padding)",
                 "使用 key_padding_mask 时（样本 1 的第 5..7 个 key 是 padding）"), x, ctx)):
        try:
            out, w = mha(queries, context, key_padding_mask=pad, return_weights=True)
        except Feedback as exc:   # the padding mask named only when the same call without it does not fail
            hint = diagnose.padding_failure(student, exc.message, H, pad, lambda q=queries, c=context: mha(q, c))
            raise Feedback(cat(cat(what, msg(": ", "："), exc.message), hint, sep=SEMI)) from None
        _padding_check(student, out, w, params, queries, context, pad, what,
                       lambda q=queries, c=context: mha(q, c, key_padding_mask=pad))


def _twice(first: torch.Tensor, second: torch.Tensor) -> Msg:
    return apart(first, second, msg("the first", "第一次的"), msg("the second", "第二次的"))


def _padding_check(student, out, w, params, x, ctx, pad, what, mha_again) -> None:
    ref, ref_w = C.ref_mha(params, H, D // H, x, ctx, key_padding_mask=pad)
    if max_err(w, ref_w) <= C.WEIGHT_TOL and max_err(out, ref) <= C.OUT_TOL:
        return
    wn = torch.nan_to_num(w.double(), nan=0.0, posinf=float("inf"), neginf=float("-inf"))  # inf stays inf
    # round 43: the heads this test's reading says are not said again by the hint (told "in those heads")
    hint = diagnose.mha(out, w, params, H, D // H, x, ctx, None, pad, student=student,
                        heads_told=_reading_heads(wn[1, :, :, 5:]))
    if not identical(mha_again(), out):      # changes from one call to the next: that is what was seen
        hint = diagnose.randomness(student, "MultiHeadAttention")
    on_pad = float(wn[1, :, :, 5:].abs().max())
    expect_finite(w, cat(what, msg(", the weights", "，权重")), hint)
    expect(on_pad <= C.ZERO_TOL,
           cat(cat(what, msg(f": padding keys get weight up to {on_pad:.3g}", f"：padding key 的权重最大为 {on_pad:.3g}"),
                   _heads_reading(wn[1, :, :, 5:]),
                   msg("; they must get exactly 0 from every head and query", "；它们在所有 head 和 query 上都应为 0")),
               hint, sep=SEMI))
    rs = row_sum_error(w)
    expect(rs <= C.ROW_SUM_TOL, cat(cat(what, msg(f": row sums deviate from 1 by up to {rs:.3g}",
                                                  f"：行和与 1 最多相差 {rs:.3g}")), hint, sep=SEMI))
    expect_close(w, ref_w, C.WEIGHT_TOL, cat(what, msg(", the weights", "，权重")), names="b,h,q,k", hint=hint)
    expect_close(out, ref, C.OUT_TOL, cat(what, msg(", the output", "，输出")), names="b,q,d", hint=hint)


def _reading_heads(on_pad: torch.Tensor) -> tuple[int, ...]:
    """The heads giving the padding keys weight above ZERO_TOL when some heads do and others do not; () otherwise.
    ``on_pad``: one sample's [H, Nq, padding keys] weights."""
    if on_pad.dim() != 3 or on_pad.shape[0] < 2:
        return ()
    reading = tuple(h for h in range(on_pad.shape[0]) if float(on_pad[h].abs().max()) > C.ZERO_TOL)
    return reading if len(reading) < on_pad.shape[0] else ()


def _heads_reading(on_pad: torch.Tensor) -> Msg | None:
    """Which heads give the padding keys weight, when some heads do and others do not (a mask written into
    one head only): what was seen, per head. ``on_pad``: one sample's [H, Nq, padding keys] weights."""
    reading = _reading_heads(on_pad)
    if not reading:
        return None
    clean = [h for h in range(on_pad.shape[0]) if h not in reading]
    listed, listed_zh = ", ".join(map(str, reading)), "、".join(map(str, reading))
    clean_en, clean_zh = ", ".join(map(str, clean)), "、".join(map(str, clean))
    return msg(f" in head{'s' if len(reading) > 1 else ''} {listed} only (head{'s' if len(clean) > 1 else ''} "
               f"{clean_en} give{'' if len(clean) > 1 else 's'} them 0)",
               f"（只出现在 head {listed_zh} 中；head {clean_zh} 给它们的权重为 0）")


def _sample_without_padding_differs(mha, fixed: bool, x, ctx, pad, padded, plain) -> Msg:
    """Why sample 0 (no padded key) gave different outputs with and without the padding mask, as seen: which call
    is off is said only when checked against the reference (fixed weights); otherwise only that the two differ.
    Round 43 review (LOW 1): a module leaking across samples without a mask was told the mask changed sample 0."""
    if fixed:
        ref = C.ref_mha(mha.params, H, D // H, x, ctx, None, pad)[0]
        off_with, off_without = max_err(padded[0], ref[0]), max_err(plain[0], ref[0])
        if off_without <= C.OUT_TOL < off_with and (bad := non_finite(padded[0])) is not None:
            # round 47: said "inf away" of an output holding NaN (max_err counts NaN as infinitely far)
            return msg(f"sample 0 has no padding, but with the padding mask its output holds {bad['en']}, while "
                       "without the mask it matches the reference: the mask must only affect the keys marked True",
                       f"样本 0 没有 padding，但给出 padding mask 后其输出含有 {bad['zh']}，而不给 mask 时与参考实现一致："
                       "mask 只应影响标记为 True 的 key")
        if off_with <= C.OUT_TOL < off_without and (bad := non_finite(plain[0])) is not None:
            return msg(f"sample 0 has no padding; with the padding mask its output matches the reference, but without "
                       f"the mask it holds {bad['en']}: the call without a padding mask is the one that differs",
                       f"样本 0 没有 padding；给出 padding mask 时其输出与参考实现一致，但不给 mask 时含有 {bad['zh']}："
                       "出错的是不带 padding mask 的调用")
        if off_without <= C.OUT_TOL < off_with:
            return msg(f"sample 0 has no padding, but with the padding mask its output is {off_with:.3g} away from "
                       "the reference (without the mask it matches): the mask must only affect the keys marked True",
                       f"样本 0 没有 padding，但给出 padding mask 后其输出与参考实现相差 {off_with:.3g}（不给 mask 时一致）："
                       "mask 只应影响标记为 True 的 key")
        if off_with <= C.OUT_TOL < off_without:
            return msg(f"sample 0 has no padding; with the padding mask its output matches the reference, but without "
                       f"the mask it is {off_without:.3g} away from it: the call without a padding mask is the one "
                       "that differs",
                       f"样本 0 没有 padding；给出 padding mask 时其输出与参考实现一致，但不给 mask 时相差 "
                       f"{off_without:.3g}：出错的是不带 padding mask 的调用")
    by0 = apart(padded[0], plain[0], msg("the one with the mask", "给出 mask 时"), msg("the one without", "不给时")) \
        if fixed else msg("", "不同")
    return msg(f"sample 0 has no padding, but its outputs with and without the padding mask differ{by0['en']}: for "
               "a sample with no padded keys both calls must give the same output",
               f"样本 0 没有 padding，但给出与不给 padding mask 时其输出{by0['zh']}：没有 padding key 的样本，"
               "两次调用的输出应相同")


def test_padding_leaves_valid_results_unchanged(student):
    _, x, ctx, pad = _padding_case()
    # Compared with itself, but with fixed weights all the same: the numbers in the feedback must
    # not change from one grading to the next (a random init made a regrade tell another story).
    try:
        mha, fixed = student.mha(D, H, params=C.mha_params(35, D, H, D // H)), True
    except Feedback:
        # Projections the reference weights cannot be loaded into (graded by test_mha_structure):
        # the module keeps its own random weights, and the feedback then states no amount.
        mha, fixed = student.mha(D, H), False
    padded = mha(x, ctx, key_padding_mask=pad)
    plain = mha(x, ctx)
    # Compared with itself: a module whose output changes from one call to the next would make any
    # difference look like the padding mask's doing.
    again = mha(x, ctx)
    # mend round 47 (review RD, MED 2): NaN in one call's output only was said as "up to inf apart"
    expect(identical(plain, again), lambda: cat(
        msg(f"MultiHeadAttention(x, context) called twice with the same inputs gives outputs that differ"
            f"{_twice(plain, again)['en']}, so what the padding mask changes cannot be measured: ",
            f"用相同输入调用两次 MultiHeadAttention(x, context)，输出{_twice(plain, again)['zh']}，"
            "因此无法衡量 padding mask 的影响："), diagnose.randomness(student, "MultiHeadAttention")))
    err0 = max_err(padded[0], plain[0])
    expect(err0 <= C.OUT_TOL, lambda: _sample_without_padding_differs(mha, fixed, x, ctx, pad, padded, plain))
    trimmed = mha(x[1:], ctx[1:, :5])
    err1 = max_err(padded[1], trimmed[0])
    by1 = apart(padded[1], trimmed[0], msg("its output", "其输出"), msg("the other", "后者")) if fixed else msg("", "不同")
    expect(err1 <= C.OUT_TOL, msg(f"sample 1 with 3 padded keys differs{by1['en']} from the same sample with "
                                  "those keys removed: padded keys must have no influence at all",
                                  f"样本 1（3 个 padding key）与去掉这些 key 后的同一样本{by1['zh']}："
                                  "padding key 不应有任何影响"))


def test_mha_additive_mask(student):
    params = C.mha_params(34, D, H, D // H)
    mha = student.mha(D, H, params=params)
    params = mha.params
    x, ctx = C.tokens(86, 2, 4, D), C.tokens(87, 2, 6, D)
    cases = [("[B,Nq,Nk]", C.random_block_mask(95, (2, 4, 6)), None),
             ("[B,H,Nq,Nk]", C.random_block_mask(96, (2, H, 4, 6)), None)]
    pad = torch.zeros(2, 6, dtype=torch.bool)
    pad[0, 4:] = True
    cases.append(("[B,Nq,Nk] + key_padding_mask", C.random_block_mask(97, (2, 4, 6)), pad))
    # self-attention last (Nq == Nk: weights returned transposed keep their shape, not their values)
    self_pad = torch.zeros(2, 4, dtype=torch.bool)
    self_pad[1, 3:] = True
    cases.append(("[B,N,N] + key_padding_mask", C.random_block_mask(94, (2, 4, 4)), self_pad))
    for label, mask, kpm in cases:
        what = msg(f"additive_mask {label}", f"additive_mask {label}")
        if mask.shape[-1] == x.shape[1]:
            what = msg(f"self-attention with additive_mask {label}", f"self-attention 使用 additive_mask {label} 时")
        context = None if mask.shape[-1] == x.shape[1] else ctx
        ref_out, ref_w = C.ref_mha(params, H, D // H, x, context, mask, kpm)
        try:
            out, w = mha(x, context, mask, key_padding_mask=kpm, return_weights=True)
        except Feedback as exc:   # named only when probes (batch == num_heads; a 3-D and a 4-D mask) show why
            hint = (diagnose.padding_failure(student, exc.message, H, kpm, lambda c=context, m=mask: mha(x, c, m))
                    or diagnose.mha_mask_failure(student, H, D // H, x, context, mask, kpm)
                    or diagnose.mha_mask_rank(student, H, D // H, x, context, mask, kpm))
            raise Feedback(cat(cat(what, msg(": ", "："), exc.message), hint, sep=SEMI)) from None
        if max_err(w, ref_w) <= C.WEIGHT_TOL and max_err(out, ref_out) <= C.OUT_TOL:
            continue
        hint = diagnose.mha(out, w, params, H, D // H, x, context, mask, kpm, student=student)
        if hint is None:
            hint = diagnose.mha_mask_rank(student, H, D // H, x, context, mask, kpm)
        if not identical(mha(x, context, mask, key_padding_mask=kpm), out):   # changes from call to call
            hint = diagnose.randomness(student, "MultiHeadAttention")
        expect_close(w, ref_w, C.WEIGHT_TOL, cat(what, msg(", the weights", "，权重")), names="b,h,q,k", hint=hint)
        expect_close(out, ref_out, C.OUT_TOL, cat(what, msg(", the output", "，输出")), names="b,q,d", hint=hint)
