"""Round 35's broken attention.py files (kept apart from the tests so a script can grade them one by one): runtime
errors inside forward and import-time problems that round 34's corpus (tests/web/test_broken_uploads_round34.py) did
not try, written from the same correct file as students of the course make them."""

from __future__ import annotations

from tests.web.test_broken_uploads_round34 import BASE, sub

SDPA_TAIL = "        if return_weights:\n            return out, weights\n        return out\n\n\nclass"
MHA_TAIL = "        if return_weights:\n            return out, weights\n        return out\n"
MERGE = "        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))"
SPLIT = "        return x.view(B, N, self.num_heads, self.head_dim).transpose(1, 2)"


def _mha_tail(new: str) -> str:
    head, tail = BASE.rsplit(MHA_TAIL, 1)
    return head + new + tail


def _sdpa_forward_indent(by: int) -> str:
    """BASE with ScaledDotProductAttention.forward moved ``by`` columns: out to the module (-4) or into __init__ (4)."""
    head, rest = BASE.split("    def forward(self, q, k, v", 1)
    body, tail = rest.split("\n\n\nclass", 1)
    lines = ("    def forward(self, q, k, v" + body).splitlines()
    moved = [line[-by:] if by < 0 else " " * by + line for line in lines]
    if by > 0:
        head = head.rstrip("\n") + "\n\n"
    return head + "\n".join(moved) + "\n\n\nclass" + tail


CASES: dict[str, str | bytes] = {
    # ------------------------------------------------------------------ runtime errors inside forward
    "matmul_v_transposed": sub("        out = torch.matmul(weights, v)", "        out = torch.matmul(weights, v.transpose(-2, -1))"),
    "k_dot_T_4d": sub("torch.matmul(q, k.transpose(-2, -1))", "torch.matmul(q, k.T)"),
    "view_non_contiguous": sub(MERGE, "        out = self.out_proj(out.transpose(1, 2).view(B, N, H * D))"),
    "true_division_head_dim": sub("d_model // num_heads", "d_model / num_heads"),
    "masked_fill_float_mask": sub("            scores = scores + additive_mask",
                                  "            scores = scores.masked_fill(additive_mask, float('-inf'))"),
    "inplace_on_input": sub("        d_k = q.size(-1)", "        d_k = q.size(-1)\n        q.div_(math.sqrt(d_k))")
    .replace(" / math.sqrt(d_k)\n", "\n", 1),
    "returns_list": sub(SDPA_TAIL, "        if return_weights:\n            return [out, weights]\n        return [out]\n\n\nclass"),
    "returns_numpy": sub("        out = torch.matmul(weights, v)", "        out = torch.matmul(weights, v).detach().numpy()"),
    "float64_scale_tensor": sub("/ math.sqrt(d_k)", "/ torch.sqrt(torch.tensor([d_k], dtype=torch.float64))"),
    "mha_forgets_return": _mha_tail("        self.weights = weights\n"),
    "print_instead_of_return": sub(SDPA_TAIL, "        print(out)\n\n\nclass"),
    "getattr_recursion": sub("    def _split(self, x):", "    def __getattr__(self, name):\n        return getattr(self, name)\n\n    def _split(self, x):"),
    "property_raises": sub("    def __init__(self):\n        super().__init__()\n",
                           "    def __init__(self):\n        super().__init__()\n\n    @property\n    def scale(self):\n"
                           "        raise NotImplementedError('TODO: 缩放因子')\n")
    .replace("/ math.sqrt(d_k)", "* self.scale", 1),
    "class_attribute_heads": sub("        self.num_heads = num_heads\n", "").replace(
        '    """多头注意力。"""\n', '    """多头注意力。"""\n\n    num_heads = 4\n', 1),
    "sdpa_foward_typo": sub("    def forward(self, q, k, v", "    def foward(self, q, k, v"),
    "sdpa_no_super_init": sub("    def __init__(self):\n        super().__init__()\n",
                              "    def __init__(self):\n        self.eps = 1e-9\n"),
    "init_args_swapped": sub("def __init__(self, d_model, num_heads, head_dim=None):",
                             "def __init__(self, num_heads, d_model, head_dim=None):"),
    "sdpa_mask_keyword_only": sub("def forward(self, q, k, v, additive_mask=None, *, return_weights=False):",
                                  "def forward(self, q, k, v, *, additive_mask=None, return_weights=False):"),
    "mha_mask_renamed": sub("def forward(self, x, context=None, additive_mask=None, *, key_padding_mask=None,",
                            "def forward(self, x, context=None, attn_mask=None, *, key_padding_mask=None,")
    .replace("        mask = additive_mask\n", "        mask = attn_mask\n"),
    "forward_missing_self": sub("def forward(self, q, k, v, additive_mask=None, *, return_weights=False):",
                                "def forward(q, k, v, additive_mask=None, *, return_weights=False):"),
    "super_without_self": sub("    def __init__(self, d_model, num_heads, head_dim=None):\n        super().__init__()",
                              "    def __init__(self, d_model, num_heads, head_dim=None):\n"
                              "        super(MultiHeadAttention).__init__()"),
    "super_init_given_self": sub("    def __init__(self):\n        super().__init__()\n",
                                 "    def __init__(self):\n        super().__init__(self)\n"),
    "init_returns_self": sub("        self.attn = ScaledDotProductAttention()\n",
                             "        self.attn = ScaledDotProductAttention()\n        return self\n"),
    "not_implemented_stub": sub("        d_k = q.size(-1)", "        raise NotImplementedError  # TODO\n        d_k = q.size(-1)"),
    "torch_sqrt_of_int": sub("/ math.sqrt(d_k)", "/ torch.sqrt(d_k)"),
    "softmax_axis_keyword": sub("F.softmax(scores, dim=-1)", "F.softmax(scores, axis=-1)"),
    "max_namedtuple": sub("        weights = F.softmax(scores, dim=-1)",
                          "        scores = scores - scores.max(dim=-1, keepdim=True)\n"
                          "        weights = F.softmax(scores, dim=-1)"),
    "assert_same_length": sub("        d_k = q.size(-1)", "        assert q.shape == k.shape, 'q 和 k 形状不一致'\n        d_k = q.size(-1)"),
    "bmm_on_4d": sub("torch.matmul(q, k.transpose(-2, -1))", "torch.bmm(q, k.transpose(-2, -1))"),
    "cross_uses_query_length": sub("        v = self._split(self.v_proj(context))",
                                   "        v = self.v_proj(context).view(x.size(0), x.size(1), self.num_heads, "
                                   "self.head_dim).transpose(1, 2)"),
    "self_attr_before_set": sub("        inner = num_heads * self.head_dim",
                                "        inner = self.d_model * self.head_dim // self.d_model * num_heads"),
    "no_grad_forward": sub("    def forward(self, q, k, v", "    @torch.no_grad()\n    def forward(self, q, k, v"),
    "weights_before_softmax": sub("            return out, weights\n        return out\n\n\nclass",
                                  "            return out, scores\n        return out\n\n\nclass"),
    "mask_inverted_nan": sub("            scores = scores + additive_mask",
                             "            scores = scores.masked_fill(additive_mask == 0, float('-inf'))"),
    # ------------------------------------------------------------------ import-time problems
    "coding_gbk_on_utf8": sub("# -*- coding: utf-8 -*-", "# -*- coding: gbk -*-").replace(
        "手写注意力。", "手写注意力：缩放点积、多头、交叉注意力。", 1),
    "coding_unknown": sub("# -*- coding: utf-8 -*-", "# -*- coding: utf8mb4 -*-"),
    "bom_with_coding_gbk": "\ufeff".encode() + sub("# -*- coding: utf-8 -*-", "# -*- coding: gbk -*-").encode(),
    "future_after_code": sub("import math\n", "import math\nfrom __future__ import annotations\n"),
    "sqrt_sign_identifier": sub("/ math.sqrt(d_k)", "/ √d_k"),
    "superscript_identifier": sub("        d_k = q.size(-1)", "        d_k = q.size(-1)\n        dk² = d_k ** 2"),
    "ipython_export": "#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n\n\nget_ipython().run_line_magic('matplotlib', 'inline')\n"
                      + BASE.split("\n", 1)[1].replace("\n\nclass MultiHeadAttention", "\n\n# In[2]:\n\n\nclass MultiHeadAttention"),
    "py2_except_comma": sub("    def _split(self, x):", "    def _split(self, x):\n        try:\n            pass\n"
                            "        except Exception, e:\n            raise e"),
    "py2_raise_comma": sub("        d_k = q.size(-1)", "        if q.dim() != 4:\n            raise ValueError, 'q 必须是四维'\n        d_k = q.size(-1)"),
    "py2_xrange": sub("        B, H, N, D = out.shape", "        for _ in xrange(1):\n            pass\n        B, H, N, D = out.shape"),
    "return_outside_function": sub("        return out\n\n\nclass", "    return out\n\n\nclass"),
    "forward_dedented_to_module": _sdpa_forward_indent(-4),
    "forward_nested_in_init": _sdpa_forward_indent(4),
}
CASES = {k: (v.encode() if isinstance(v, str) else v) for k, v in CASES.items()}
