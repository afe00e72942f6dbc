"""Round 39's broken attention.py files (kept apart from the tests so a script can grade them one by one), written
from round 34's correct file: a softmax over an axis of size 1 on the hand example (one sample, one head) in other
spellings, a padding mask not broadcast in other spellings, and a layer built per call in an inherited method."""

from __future__ import annotations

from tests.web.test_broken_uploads_round34 import sub

SOFTMAX = "F.softmax(scores, dim=-1)"
PAD = "            pad = pad.masked_fill(key_padding_mask, float(\"-inf\"))[:, None, None, :]\n"

CASES: dict[str, str] = {
    # ------------------------------------------------------------------ the softmax's axis
    "softmax_no_dim_on_x": sub(SOFTMAX, "F.softmax(scores)"),
    "softmax_method_dim0": sub(SOFTMAX, "scores.softmax(0)"),
    "softmax_torch_dim_minus3": sub(SOFTMAX, "torch.softmax(scores, -3)"),
    "softmax_torch_dim_minus2": sub(SOFTMAX, "torch.softmax(scores, -2)"),
    "softmax_module_dim1": sub(SOFTMAX, "nn.Softmax(dim=1)(scores)"),
    "softmax_dim_in_variable_1": sub(SOFTMAX, "F.softmax(scores, dim=self.axis)",
                                     base=sub("        super().__init__()\n\n    def forward(self, q, k, v",
                                              "        super().__init__()\n        self.axis = 1\n\n"
                                              "    def forward(self, q, k, v")),
    # ------------------------------------------------------------------ the padding mask's broadcast
    "pad_none_on_wrong_axis": sub(PAD, PAD.replace("[:, None, None, :]", "[:, :, None, None]")),
    "pad_not_unsqueezed": sub(PAD, PAD.replace("[:, None, None, :]", "")),
    "pad_view_b_1_tk": sub(PAD, PAD.replace("[:, None, None, :]", ".view(pad.shape[0], 1, -1)")),
    "pad_unsqueeze_1_only": sub(PAD, PAD.replace("[:, None, None, :]", ".unsqueeze(1)")),
    "pad_view_b_tk_1_1": sub(PAD, PAD.replace("[:, None, None, :]", ".view(pad.shape[0], -1, 1, 1)")),
}

# ------------------------------------------------------------------ a layer built per call, in an inherited method
_OUT = "        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))\n"
_MIXIN = ("class ProjectMixin:\n    def _project(self, x):\n        return nn.Linear(x.size(-1), x.size(-1))(x)\n\n\n")
CASES["linear_built_in_inherited_method"] = sub(_OUT, "        out = self._project(out.transpose(1, 2).reshape(B, N, H * D))\n",
                                                base=sub("class MultiHeadAttention(nn.Module):",
                                                         _MIXIN + "class MultiHeadAttention(ProjectMixin, nn.Module):"))
