"""Round 36's broken attention.py files (kept apart from the tests so a script can grade them one by one): code
that does not load or fails at run time, of kinds the corpora of rounds 34 and 35 (tests/web/test_broken_uploads_round34.py,
tests/grading/feedback_corpus_round35.py) did not try, written from the same correct file as students make them."""

from __future__ import annotations

import json

from tests.web.test_broken_uploads_round34 import BASE, sub

SDPA_TAIL = "        if return_weights:\n            return out, weights\n        return out\n\n\nclass"
HTML = ("<!DOCTYPE html>\n<html lang=\"zh\">\n<head><meta charset=\"utf-8\"><title>attention.py</title></head>\n"
        "<body><pre><code>" + BASE.replace("<", "&lt;").replace(">", "&gt;") + "</code></pre></body>\n</html>\n")
NOTEBOOK_PRETTY = json.dumps({"metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5,
                              "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# 第二课\n"]},
                                        {"cell_type": "code", "metadata": {}, "execution_count": 3, "outputs": [],
                                         "source": BASE.splitlines(True)}]}, ensure_ascii=False, indent=2)

CASES: dict[str, str | bytes] = {
    # ------------------------------------------------------------------ syntax errors
    "unclosed_paren_at_eof": BASE + "\nx = torch.zeros((2, 3)\n",
    "unclosed_bracket_at_eof": BASE + "\nSIZES = [16, 32,\n",
    "unclosed_brace_in_init": sub("        self.attn = ScaledDotProductAttention()",
                                  "        self.cfg = {'d_model': d_model, 'heads': num_heads\n"
                                  "        self.attn = ScaledDotProductAttention()"),
    "extra_closing_paren": sub("        weights = F.softmax(scores, dim=-1)", "        weights = F.softmax(scores, dim=-1))"),
    "fstring_unclosed_brace": sub("        d_k = q.size(-1)", "        d_k = q.size(-1)\n        tag = f'd_k={d_k'"),
    "fstring_empty_braces": sub("        d_k = q.size(-1)", "        d_k = q.size(-1)\n        tag = f'd_k={}'"),
    "fstring_backslash": sub("        d_k = q.size(-1)", "        d_k = q.size(-1)\n        tag = f'{\"\\n\".join([\"a\"])}'"),
    "walrus_as_statement": sub("        d_k = q.size(-1)", "        d_k := q.size(-1)"),
    "walrus_on_attribute": sub("        self.num_heads = num_heads", "        (self.num_heads := num_heads)"),
    "match_without_colon": sub("        if mask is not None and mask.dim() == 3:\n            mask = mask[:, None]",
                               "        match mask.dim() if mask is not None else 0\n            case 3:\n"
                               "                mask = mask[:, None]"),
    "case_outside_match": sub("        if mask is not None and mask.dim() == 3:\n            mask = mask[:, None]",
                              "        case 3:\n            mask = mask[:, None]"),
    "tab_after_spaces_block": sub("        if return_weights:\n            return out, weights\n        return out\n\n\nclass",
                                  "        if return_weights:\n\t    return out, weights\n        return out\n\n\nclass"),
    "fw_square_brackets": sub("mask = mask[:, None]", "mask = mask【:, None】"),
    "fw_period_line_end": sub("        inner = num_heads * self.head_dim", "        inner = num_heads * self.head_dim。"),
    "fw_semicolon": sub("        B, H, N, D = out.shape", "        B, H, N, D = out.shape；"),
    "zero_width_space_in_name": sub("        weights = F.softmax(scores, dim=-1)", "        weights = F.soft\u200bmax(scores, dim=-1)"),
    "zero_width_joiner_after_colon": sub("    def _split(self, x):", "    def _split(self, x):\u200d"),
    "crlf_with_syntax_error": sub("class MultiHeadAttention(nn.Module):", "class MultiHeadAttention(nn.Module)")
    .replace("\n", "\r\n").encode(),
    "lone_cr_with_syntax_error": sub("class MultiHeadAttention(nn.Module):", "class MultiHeadAttention(nn.Module)")
    .replace("\n", "\r").encode(),
    "percent_magic_line": sub("import math\n", "import math\n%matplotlib inline\n"),
    "cell_magic_time": sub("class MultiHeadAttention(nn.Module):", "%%time\nclass MultiHeadAttention(nn.Module):"),
    "bang_shell_midfile": sub("\n\nclass MultiHeadAttention", "\n\n!nvidia-smi\n\n\nclass MultiHeadAttention"),
    "notebook_json_pretty": NOTEBOOK_PRETTY,
    "html_saved_page": HTML,
    "missing_comma_in_call": sub("        self.q_proj = nn.Linear(d_model, inner)", "        self.q_proj = nn.Linear(d_model inner)"),
    "assign_to_call": sub("        d_k = q.size(-1)", "        q.size(-1) = d_k"),
    "keyword_as_name": sub("        d_k = q.size(-1)", "        lambda = 0.1\n        d_k = q.size(-1)"),
    "default_before_plain_parameter": sub("def forward(self, q, k, v, additive_mask=None, *, return_weights=False):",
                                          "def forward(self, q, k=None, v, additive_mask=None, *, return_weights=False):"),
    "elif_after_else": sub("        if context is None:\n            context = x\n",
                           "        if context is None:\n            context = x\n        else:\n            pass\n"
                           "        elif context is x:\n            pass\n"),
    # ------------------------------------------------------------------ imports
    "import_transformers_missing": sub("import torch.nn.functional as F\n",
                                       "import torch.nn.functional as F\nfrom transformers import AutoModel\n"),
    "import_typo_troch": sub("import torch.nn as nn\n", "import torch.nn as nn\nimport troch\n"),
    # ------------------------------------------------------------------ run time
    "long_value_matmul": sub("        out = torch.matmul(weights, v)", "        out = torch.matmul(weights, v.long())"),
    "bool_mask_subtracted": sub("            scores = scores + additive_mask",
                                "            scores = scores + (1 - (additive_mask == 0)) * -1e9"),
    "float_slice_index": sub("        B, N, _ = x.shape\n", "        B, N, _ = x.shape\n        x = x[:, :N / 1]\n"),
    "cuda_device_keyword": sub("        d_k = q.size(-1)",
                               "        d_k = q.size(-1)\n        scale = torch.tensor(d_k ** 0.5, device='cuda')"),
    "to_cuda_string": sub("        out, weights = self.attn(q, k, v, mask, return_weights=True)",
                          "        q, k, v = q.to('cuda'), k.to('cuda'), v.to('cuda')\n"
                          "        out, weights = self.attn(q, k, v, mask, return_weights=True)"),
    "mutual_recursion": sub("    def _split(self, x):\n", "    def _merge(self, x):\n        return self._split(x)\n\n"
                            "    def _split(self, x):\n        if x.dim() == 3:\n            return self._merge(x)\n"),
    "returns_weights_first": sub(SDPA_TAIL, "        if return_weights:\n            return weights, out\n"
                                 "        return out\n\n\nclass"),
    "returns_dict": sub(SDPA_TAIL, "        if return_weights:\n            return {'out': out, 'weights': weights}\n"
                        "        return {'out': out}\n\n\nclass"),
    "inplace_on_layer_weight": sub("        q = self._split(self.q_proj(x))",
                                   "        self.q_proj.weight.mul_(1.0)\n        q = self._split(self.q_proj(x))"),
    "str_plus_int_message": sub("        d_k = q.size(-1)", "        d_k = q.size(-1)\n        name = 'd_k=' + d_k"),
    "raise_own_value_error": sub("        d_k = q.size(-1)", "        d_k = q.size(-1)\n        if q.dim() == 4:\n"
                                 "            raise ValueError('q 应该是三维的 [B, N, d]')"),
    "out_proj_of_d_model_width": sub("        self.out_proj = nn.Linear(inner, d_model)",
                                     "        self.out_proj = nn.Linear(d_model, d_model)"),
    "yield_in_forward": sub(SDPA_TAIL, "        yield out\n\n\nclass"),
    # ------------------------------------------------------------------ loads as Python reads it
    "crlf_correct": BASE.replace("\n", "\r\n"),
    "chinese_identifier": sub("/ math.sqrt(d_k)", "/ 缩放").replace("        d_k = q.size(-1)\n",
                                                                   "        d_k = q.size(-1)\n        缩放 = math.sqrt(d_k)\n", 1),
}
CASES = {k: (v.encode() if isinstance(v, str) else v) for k, v in CASES.items()}
