"""Round 37's broken attention.py files (kept apart from the tests so a script can grade them one by one): lesson 2's
ScaledDotProductAttention and MultiHeadAttention as Chinese-speaking students break them, each failing differently
(syntax, import, build, forward, dtype, device, shapes), written from the correct file of round 34's corpus."""

from __future__ import annotations

from tests.web.test_broken_uploads_round34 import sub

CASES: dict[str, str] = {
    # ------------------------------------------------------------------ does not load
    "raise_message_variable": sub(
        "        d_k = q.size(-1)",
        "        d_k = q.size(-1)\n        msg = f'q 和 k 的最后一维必须相同，现在是 {q.size(-1)} 和 {k.size(-1)}'\n"
        "        if q.size(-1) != k.size(-1) or q.dim() != 3:\n            raise ValueError(msg)"),
    "semicolon_fullwidth": sub("        inner = num_heads * self.head_dim", "        inner = num_heads * self.head_dim；"),
    "import_typo_functional": sub("import torch.nn.functional as F", "import torch.nn.funtional as F"),
    "softmax_from_torch_nn": sub("import torch.nn.functional as F", "import torch.nn.functional as F\n"
                                 "from torch.nn import softmax"),
    "self_missing_in_split": sub("    def _split(self, x):", "    def _split(x):"),
    # ------------------------------------------------------------------ fails building the module
    "super_init_missing": sub("        super().__init__()\n        self.num_heads", "        self.num_heads"),
    "head_dim_float": sub("else d_model // num_heads", "else d_model / num_heads"),
    "assert_divisible_message": sub("        super().__init__()\n        self.num_heads",
                                    "        super().__init__()\n        assert d_model % num_heads == 0, "
                                    "'d_model 必须能被 num_heads 整除'\n        assert num_heads < 4, '头数太多了'\n"
                                    "        self.num_heads"),
    # ------------------------------------------------------------------ fails in forward
    "transpose_wrong_axes": sub("k.transpose(-2, -1)", "k.transpose(-3, -1)"),
    "sqrt_of_tensor_shape": sub("math.sqrt(d_k)", "math.sqrt(q.shape)"),
    "mask_long_dtype": sub("            pad = torch.zeros(key_padding_mask.shape, dtype=q.dtype)",
                           "            pad = torch.zeros(key_padding_mask.shape, dtype=torch.long)"),
    "cuda_hardcoded": sub("        out = torch.matmul(weights, v)", "        out = torch.matmul(weights, v.cuda())"),
    "reshape_without_transpose": sub("out.transpose(1, 2).reshape(B, N, H * D)", "out.reshape(B, N, D)"),
    "unpack_two_from_attn": sub("        out, weights = self.attn(q, k, v, mask, return_weights=True)",
                                "        out, weights = self.attn(q, k, v, mask)"),
    "numpy_softmax": sub("        weights = F.softmax(scores, dim=-1)",
                         "        weights = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)"),
}
