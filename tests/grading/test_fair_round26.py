"""Fairness round 26: public styles that cost correct code 13 points pending review, each read for what it can
reach, with the cheats at each rule's edge still flagged; and faults put into the round's new correct files
(tests/fixtures/submissions/correct/, graded whole by test_grading.test_correct_styles_get_full_code_marks) that
must lose points in their category with the hint that names them.

- ``from inspect import signature`` (the from-import form of ``inspect.signature``, followed since round 22) when
  every call of the name is ``signature(X)`` of the file's own callable (static._own_signature_import).
- HF's ``pytorch_utils.softmax_backward_data(parent, grad_output, output, dim, self)``, which DeBERTa's XSoftmax
  calls: a def outside a class with a ``self`` parameter that the file only calls by name, and that reads only
  public names off ``self``, uses ``self`` as any parameter (static._only_called_by_name,
  static._reads_self_as_any_parameter); and ``torch._softmax_backward_data`` it calls (static.PRIVATE_OK)."""

from __future__ import annotations

import pytest

from grader_tests.attention import static
from grading.runner import GradeInput, grade
from tests.grading.helpers import SUBMISSIONS

HEADER = "import inspect\nimport math\n\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
CORRECT = SUBMISSIONS / "correct"


def _found(source: str) -> tuple[str, ...]:
    return tuple(static.fused_attention_uses(source)) + static.hidden_name_uses(source)


# ------------------------------------------------------------------ from inspect import signature
SIGNATURE = '''{imports}

class Config:
    def __init__(self, heads=2, dim=8):
        self.heads = heads
        self.dim = dim

    @classmethod
    def from_dict(cls, d):
        params = {call}.parameters
        return cls(**{{k: v for k, v in d.items() if k in params}})
{extra}'''


def _signature(imports: str = "from inspect import signature", call: str = "signature(cls.__init__)",
               extra: str = "") -> str:
    return HEADER + SIGNATURE.format(imports=imports, call=call, extra=extra)


# ------------------------------------------------------------------ a helper taking self, outside a class
HELPER = '''{imports}

def softmax_backward_data(parent, grad_output, output, dim, self):
    {body}


class XSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(self, input, dim):
        self.dim = dim
        output = torch.softmax(input, dim)
        self.save_for_backward(output)
        return output

    @staticmethod
    def backward(self, grad_output):
        (output,) = self.saved_tensors
        return {call}, None
{extra}'''


def _helper(body: str = "return _softmax_backward_data(grad_output, output, parent.dim, self.dtype)",
            imports: str = "from torch import _softmax_backward_data",
            call: str = "softmax_backward_data(self, grad_output, output, self.dim, output)", extra: str = "") -> str:
    return HEADER + HELPER.format(imports=imports, body=body, call=call, extra=extra)


OK = {
    "signature_from_import": _signature(),
    "signature_from_import_aliased": _signature("from inspect import signature as sig", "sig(cls.__init__)"),
    "signature_from_import_beside_a_predicate": _signature("from inspect import isclass, signature"),
    "signature_of_the_class_in_a_function": _signature(
        extra="\ndef keys():\n    return set(signature(Config).parameters) - {'self'}\n"),
    "deberta_helper_and_its_private_import": _helper(),
    "deberta_helper_reading_torch_private_as_attribute": _helper(
        body="return torch._softmax_backward_data(grad_output, output, parent.dim, self.dtype)", imports=""),
    "helper_calling_a_public_method_of_self": _helper(body="return grad_output * self.size(-1) * parent.dim"),
    "helper_never_called": _helper(call="grad_output", imports=""),
}


@pytest.mark.parametrize("source", OK.values(), ids=OK.keys())
def test_public_styles_read_for_what_they_reach_are_no_finding(source):
    assert _found(source) == ()


BAD = {
    # 1. the name signature used otherwise, or what it is given not the file's own
    "signature_of_torch": (_signature(extra="\nS = signature(torch.nn.functional.softmax)\n"), "inspect"),
    "signature_evaluating_strings": (_signature(call="signature(cls.__init__, eval_str=True)"), "inspect"),
    "signature_kept": (_signature(extra="\ns = signature\n"), "inspect"),
    "signature_rebound": (_signature(extra="\nsignature = print\n"), "inspect"),
    "signature_and_getmembers": (_signature("from inspect import getmembers, signature"), "inspect"),
    "signature_of_another_self": (_signature(extra="\nS = signature(torch.Tensor.__init__)\n"), "inspect"),
    # 2. the helper may run as a method of something else, or reads through self what the review trusts on
    # the student's own object
    "helper_set_on_a_torch_class": (_helper(extra="\ntorch.Tensor.numpy = softmax_backward_data\n"), "taking self"),
    "helper_set_on_own_class": (_helper(extra="\nXSoftmax.helper = softmax_backward_data\n"), "taking self"),
    "helper_passed_on": (_helper(extra="\nHELPERS = [softmax_backward_data]\n"), "taking self"),
    "helper_named_in_a_string": (_helper(extra="\nNAME = 'softmax_backward_data'\n"), "taking self"),
    "helper_decorated": (_helper(body="return self.dtype").replace(
        "\ndef softmax_backward_data", "\n@torch.no_grad()\ndef softmax_backward_data"), "taking self"),
    "helper_defined_twice": (_helper(extra="\ndef softmax_backward_data(self):\n    return self.dtype\n"),
                             "taking self"),
    "a_lambda_taking_self": (HEADER + "numpy = lambda self: self.detach()\n", "taking self"),
    "helper_reading_a_private_name": (_helper(body="return self._C"), "taking self"),
    "helper_reading_private_further_on": (_helper(body="return self.nn._C"), "taking self"),
    "helper_reading_a_hiding_name": (_helper(body="return self.ops.aten"), "taking self"),
    "helper_reading_an_attention_name": (_helper(body="return self.scaled_dot_product_attention"),
                                         "scaled_dot_product_attention"),
    "helper_reading_self_by_getattr": (_helper(body="return getattr(self, '_C')"), "taking self"),
    "helper_handing_self_on": (_helper(body="return vars(self)"), "vars"),
    "helper_with_a_nested_self": (_helper(body="return (lambda self: self.x)(parent).dtype"), "taking self"),
    # 3. other private names of torch stay flagged
    "another_private_of_torch": (_helper(imports="from torch import _softmax_backward_data, _VF"), "_VF"),
    "a_private_softmax_helper_of_torch": (_helper(body="return torch._softmax(grad_output, -1, False)"),
                                          "torch._softmax"),
}


@pytest.mark.parametrize(("source", "reason"), BAD.values(), ids=BAD.keys())
def test_cheats_at_the_edges_of_these_rules_stay_flagged(source, reason):
    found = _found(source)
    assert any(reason in f for f in found), found


# ------------------------------------------------------------------ faults in the round's new correct files
# (file, text in it, the fault put in its place, the category that must lose points, words of the hint)
MUTANTS = {
    # the Set Transformer's own scale, sqrt(dim_V): all heads' features
    "set_transformer_scale_by_dim_V": ("set_transformer_mab.py", "S = Q_.bmm(K_.transpose(1, 2)) / math.sqrt(d)",
                                       "S = Q_.bmm(K_.transpose(1, 2)) / math.sqrt(d * H)", "formula_shape",
                                       "softmax(QK^T / sqrt(H * dk))"),
    "bentrevett_keep_mask_inverted": ("bentrevett_seq2seq_layer.py", "energy.masked_fill(mask == 0, -1e10)",
                                      "energy.masked_fill(mask == 1, -1e10)", "mask_parity", "the mask acts inverted"),
    # heads-last ibnd layout: dim=0 is the query axis there
    "trxl_softmax_over_queries": ("transformer_xl_ibnd_einsum.py", "F.softmax(attn_score, dim=1)",
                                  "F.softmax(attn_score, dim=0)", "formula_shape",
                                  "the softmax runs over the query axis"),
    "nemo_padding_dropped": ("nemo_asr_autocast.py",
                             '            mask = mask.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))\n',
                             "            pass\n", "mask_parity", "key_padding_mask had no effect"),
    "mlx_no_scale": ("mlx_nn_port.py", "scores = (queries * scale) @ keys", "scores = queries @ keys",
                     "formula_shape", "without the 1/sqrt(dk) scale"),
    "gpt2_tf_softmax_without_the_max": ("gpt2_tf_split_merge_states.py",
                                        "    x = x - torch.amax(x, dim=axis, keepdim=True)\n", "", "implementation",
                                        "subtract the row maximum"),
}


@pytest.mark.slow          # ~12 s together: the diagnoses of a wrong scale try every fault model
@pytest.mark.parametrize(("name", "old", "new", "category", "hint"), MUTANTS.values(), ids=MUTANTS.keys())
def test_a_fault_in_a_new_correct_style_loses_points_with_its_hint(executor, name, old, new, category, hint):
    source = (CORRECT / name).read_text(encoding="utf-8")
    assert old in source, old
    head, tail = source.rsplit(old, 1)          # the code's occurrence (a docstring may quote it first)
    result = grade(GradeInput(code=(head + new + tail).encode()), "attention", executor)
    assert result["status"] == "graded", result["message"]
    cats = result["categories"]
    assert cats[category]["score"] < cats[category]["max"], f"{name} with {new!r} kept full {category}"
    hinted = [t for t in result["tests"] if t["outcome"] != "passed" and hint in t["feedback"]["en"]]
    assert hinted, [t["feedback"]["en"] for t in result["tests"] if t["outcome"] != "passed"]
    assert all(t["feedback"]["zh"] for t in hinted)
