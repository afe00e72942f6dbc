"""Round 40 (brief C): broken attention.py files whose padding mask is built in forms the diagnosis did not follow
(an if/else expression, a causal and a padding mask added together, torch.where over the scores), and their right
twins, written from round 34's correct file."""

from __future__ import annotations

from tests.web.test_broken_uploads_round34 import sub

PAD = "            pad = pad.masked_fill(key_padding_mask, float(\"-inf\"))[:, None, None, :]\n"
_IFEXP = ("            pad = pad.masked_fill(key_padding_mask, float(\"-inf\"))\n"
          "            pad = {} if pad.dim() == 2 else pad\n")

CASES: dict[str, str] = {
    # an if/else expression: the branch taken for a [B, Nk] key_padding_mask
    "ifexp_right": sub(PAD, _IFEXP.format("pad[:, None, None, :]")),
    "ifexp_unsqueeze_1_only": sub(PAD, _IFEXP.format("pad[:, None, :]")),
    "ifexp_wrong_axis": sub(PAD, _IFEXP.format("pad[:, :, None, None]")),
    "ifexp_query_axis_4d": sub(PAD, _IFEXP.format("pad[:, None, :, None]")),
}

# a padding mask and the caller's (causal) mask added together in if/else statements (mask + pad)
_ADD = ("            pad = pad.masked_fill(key_padding_mask, float(\"-inf\")){}\n"
        "            if mask is None:\n"
        "                mask = pad\n"
        "            else:\n"
        "                mask = mask + pad\n")
_ADD_OLD = PAD + "            mask = pad if mask is None else mask + pad\n"
CASES.update({
    "add_right": sub(_ADD_OLD, _ADD.format("[:, None, None, :]")),
    "add_unsqueeze_1_only": sub(_ADD_OLD, _ADD.format(".unsqueeze(1)")),
    "add_not_unsqueezed": sub(_ADD_OLD, _ADD.format("")),
    "add_wrong_axis": sub(_ADD_OLD, _ADD.format("[:, :, None, None]")),
})

# torch.where over the scores, the mask made in MultiHeadAttention and the scores computed there
_SCORES_OLD = "        out, weights = self.attn(q, k, v, mask, return_weights=True)\n"
_WHERE = ("        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n"
          "        if mask is not None:\n"
          "            scores = scores + mask\n"
          "        if key_padding_mask is not None:\n"
          "            pad = key_padding_mask{}\n"
          "            scores = torch.where(pad, float(\"-inf\"), scores)\n"
          "        weights = F.softmax(scores, dim=-1)\n"
          "        out = weights @ v\n")
_WHERE_BASE = sub(_ADD_OLD, "")
_WHERE_BASE = sub("        if key_padding_mask is not None:\n"
                  "            pad = torch.zeros(key_padding_mask.shape, dtype=q.dtype)\n", "", base=_WHERE_BASE)
CASES.update({
    "where_right": sub(_SCORES_OLD, _WHERE.format("[:, None, None, :]"), base=_WHERE_BASE),
    "where_unsqueeze_1_only": sub(_SCORES_OLD, _WHERE.format(".unsqueeze(1)"), base=_WHERE_BASE),
    "where_not_unsqueezed": sub(_SCORES_OLD, _WHERE.format(""), base=_WHERE_BASE),
    "where_wrong_axis": sub(_SCORES_OLD, _WHERE.format("[:, :, None, None]"), base=_WHERE_BASE),
})

# torch.where's result kept under a name of its own, assigned once: the scores' shape, never the padding mask's
CASES["where_kept_apart"] = sub(_SCORES_OLD, (
    "        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n"
    "        if mask is not None:\n"
    "            scores = scores + mask\n"
    "        if key_padding_mask is not None:\n"
    "            pad = key_padding_mask.unsqueeze(1)\n"
    "            masked = torch.where(pad, float(\"-inf\"), scores)\n"
    "            weights = F.softmax(masked, dim=-1)\n"
    "        else:\n"
    "            weights = F.softmax(scores, dim=-1)\n"
    "        out = weights @ v\n"), base=_WHERE_BASE)
