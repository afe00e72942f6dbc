"""Round 38's broken and half-working attention.py files (kept apart from the tests so a script can grade them one by
one): lesson 2's modules as students break them, written from round 34's correct file, of kinds (or variants) the
corpora of rounds 34 to 37 did not try: an unpacked call to the file's own module, imports the grader does not have,
a softmax without dim, a Linear made in forward, a double mask, ..."""

from __future__ import annotations

from tests.web.test_broken_uploads_round34 import BASE, sub

SDPA_RETURN = "        if return_weights:\n            return out, weights\n        return out\n"


def both(*pairs: tuple[str, str], base: str = BASE) -> str:
    """``base`` with each (old, new) replaced once, every old present."""
    for old, new in pairs:
        assert old in base, old
        base = base.replace(old, new, 1)
    return base


CASES: dict[str, str] = {
    # ------------------------------------------------------------------ does not load
    "tab_in_forward_body": sub("        weights = F.softmax(scores, dim=-1)\n",
                               "        weights = F.softmax(scores, dim=-1)\n\tout = torch.matmul(weights, v)\n"),
    "import_einops_rearrange_typo": sub("import torch.nn.functional as F",
                                        "import torch.nn.functional as F\nfrom einops import rearange"),
    "import_sdpa_from_torch_nn": sub("import torch.nn.functional as F",
                                     "import torch.nn.functional as F\nfrom torch.nn import scaled_dot_product_attention"),
    "import_missing_package": sub("import torch.nn.functional as F",
                                  "import torch.nn.functional as F\nimport matplotlib.pyplot as plt"),
    # ------------------------------------------------------------------ fails building the module
    "sdpa_scale_in_init": sub("    def __init__(self):\n        super().__init__()",
                              "    def __init__(self):\n        super().__init__()\n        self.scale = 1 / math.sqrt(d_k)"),
    # ------------------------------------------------------------------ fails in forward
    "unpack_two_sdpa_returns_one": both((SDPA_RETURN, "        return out\n")),
    "unpack_two_sdpa_returns_three": both(("            return out, weights\n",
                                           "            return out, weights, scores\n")),
    "softmax_without_dim": sub("F.softmax(scores, dim=-1)", "torch.nn.functional.softmax(scores)"),
    "mask_eq_zero_on_float_mask": sub("            scores = scores + additive_mask",
                                      "            scores = scores.masked_fill(additive_mask == 0, float('-inf'))"),
    "view_after_transpose_merge": sub("out.transpose(1, 2).reshape(B, N, H * D)", "out.transpose(1, 2).view(B, N, H * D)"),
    "sdpa_builtin_used": sub("        weights = F.softmax(scores, dim=-1)\n        out = torch.matmul(weights, v)",
                             "        weights = F.softmax(scores, dim=-1)\n"
                             "        out = F.scaled_dot_product_attention(q, k, v, attn_mask=additive_mask)"),
    "dk_pow_on_shape": sub("math.sqrt(d_k)", "(q.shape[-1:] ** 0.5)"),
    "linear_built_in_forward": sub("        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))",
                                   "        self.out_proj = nn.Linear(H * D, x.size(-1))\n"
                                   "        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))"),
    "sdpa_super_init_missing_called": sub("    def __init__(self):\n        super().__init__()",
                                          "    def __init__(self):\n        self.dropout = None"),
    "mha_returns_weights_first": sub("reshape(B, N, H * D))\n        if return_weights:\n            return out, weights",
                                     "reshape(B, N, H * D))\n        if return_weights:\n            return weights, out"),
    "double_mask_float64": sub("            pad = torch.zeros(key_padding_mask.shape, dtype=q.dtype)",
                               "            pad = torch.zeros(key_padding_mask.shape, dtype=torch.double)"),
    "padding_mask_not_broadcast": sub("            pad = pad.masked_fill(key_padding_mask, float(\"-inf\"))[:, None, None, :]",
                                      "            pad = pad.masked_fill(key_padding_mask, float(\"-inf\"))[:, None, :]"),
    "k_dot_T_on_4d": sub("k.transpose(-2, -1)", "k.T"),
    "math_not_imported": sub("import math\n", ""),
    "softmax_dim_1": sub("F.softmax(scores, dim=-1)", "F.softmax(scores, dim=1)"),
    "heads_split_without_transpose": sub("return x.view(B, N, self.num_heads, self.head_dim).transpose(1, 2)",
                                         "return x.view(B, self.num_heads, N, self.head_dim)"),
}
