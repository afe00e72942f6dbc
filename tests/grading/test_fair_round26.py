"""Fairness round 26: public styles that cost correct code 13 points pending review, each read for what it can
reach, with the cheats at each rule's edge still flagged; and faults put into the round's new correct files
(tests/fixtures/submissions/correct/, graded whole by test_grading.test_correct_styles_get_full_code_marks) that
must lose points in their category with the hint that names them.

- ``from inspect import signature`` (the from-import form of ``inspect.signature``, followed since round 22) when
  every call of the name is ``signature(X)`` of the file's own callable (static._own_signature_import).
- AllenNLP's ``Registrable.list_available()`` listing the registry's keys (``"scaled_dot_product"``) for
  ``resolve_class_name``'s error message, and ``register``'s ``message`` kept in a local in two branches: keys that
  leave the registry only for messages (static._listed_for_messages, static._message_use).
- HF's ``pytorch_utils.softmax_backward_data(parent, grad_output, output, dim, self)``, which DeBERTa's XSoftmax
  calls: a def outside a class with a ``self`` parameter that the file only calls by name, and that reads only
  public names off ``self``, uses ``self`` as any parameter (static._only_called_by_name,
  static._reads_self_as_any_parameter); and ``torch._softmax_backward_data`` it calls (static.PRIVATE_OK)."""

from __future__ import annotations

import pytest

from grader_tests.attention import static
from tests.grading.helpers import SUBMISSIONS, graded_mutant

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


# ------------------------------------------------------------------ AllenNLP's list_available()
REGISTRABLE = '''class ConfigurationError(Exception):
    def __init__(self, message):
        super().__init__()
        self.message = message


class Registrable:
    _registry = defaultdict(dict)
    default_implementation = "scaled_dot_product"

    @classmethod
    def register(cls, name, constructor=None, exist_ok=False):
        registry = Registrable._registry[cls]

        def add_subclass_to_registry(subclass):
            if name in registry:
                if exist_ok:
                    message = f"{{name}} has already been registered as {{registry[name][0].__name__}}"
                    logger.info(message)
                else:
                    message = f"Cannot register {{name}} as {{cls.__name__}}; name already in use"
                    raise ConfigurationError(message)
            registry[name] = (subclass, constructor)
            return subclass

        return add_subclass_to_registry

    @classmethod
    def by_name(cls, name):
        subclass, constructor = cls.resolve_class_name(name)
        return subclass

    @classmethod
    def resolve_class_name(cls, name):
        if name in Registrable._registry[cls]:
            subclass, constructor = Registrable._registry[cls][name]
            return subclass, constructor
        {resolve}

    @classmethod
    def list_available(cls):
        {listing}


class Attention(nn.Module, Registrable):
    pass


@Attention.register("scaled_dot_product")
class Kernel(Attention):
    pass


class Layer(nn.Module):
    def __init__(self, kind="scaled_dot_product"):
        super().__init__()
        self.attention = Attention.by_name(kind)()
{extra}'''
RESOLVE = ("available = cls.list_available()\n        raise ConfigurationError(f\"'{{name}}' is not a registered name. \"\n"
           "                                 f\"Available names are: {{', '.join(available)}}\")")
LISTING = ("keys = list(Registrable._registry[cls].keys())\n        default = cls.default_implementation\n"
           "        if default is None:\n            return keys\n        elif default not in keys:\n"
           "            raise ConfigurationError(f\"Default implementation {{default}} is not registered\")\n"
           "        else:\n            return [default] + [k for k in keys if k != default]")


def _listing(resolve: str = RESOLVE, listing: str = LISTING, extra: str = "", **replace: str) -> str:
    source = "import logging\nfrom collections import defaultdict\n\n" + HEADER + "logger = logging.getLogger(__name__)\n\n" \
        + REGISTRABLE.format(resolve=resolve.replace("{{", "{").replace("}}", "}"),
                             listing=listing.replace("{{", "{").replace("}}", "}"), extra=extra)
    for old, new in replace.items():
        assert old in source, old
        source = source.replace(old, new)
    return source


OK = {
    "allennlp_list_available": _listing(),
    "allennlp_list_available_sorted": _listing(listing="return sorted(Registrable._registry[cls])"),
    "allennlp_list_available_logged": _listing(resolve="logger.warning(f'known: {{cls.list_available()}}')\n"
                                                       "        raise KeyError(name)"),
    "allennlp_list_available_compared": _listing(resolve="assert name not in cls.list_available()\n"
                                                         "        raise KeyError(name)"),

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
    # 0. AllenNLP's listing, its keys going elsewhere than a message
    "listing_kept_at_module_level": (_listing(extra="\nNAMES = Attention.list_available()\n"), "scaled_dot_product"),
    "listing_iterated": (_listing(resolve="for k in cls.list_available():\n            print(k)"),
                         "scaled_dot_product"),
    "listing_indexed": (_listing(resolve="return cls.list_available()[0]"), "scaled_dot_product"),
    "listing_handed_to_a_function": (_listing(resolve="return tuple(cls.list_available())"), "scaled_dot_product"),
    "listing_joined_by_a_name": (_listing(resolve="sep = ', '\n        raise KeyError(sep.join(cls.list_available()))"),
                                 "scaled_dot_product"),
    "listing_kept_on_the_class": (_listing(listing="Registrable.names = list(Registrable._registry[cls])\n"
                                                   "        return []"), "scaled_dot_product"),
    "listing_yielded": (_listing(listing="yield from Registrable._registry[cls]"), "scaled_dot_product"),
    "listing_method_named_in_a_string": (_listing(extra="\nf = 'list_available'\n"), "scaled_dot_product"),
    "listing_method_taken_as_a_value": (_listing(extra="\nf = Attention.list_available\n"), "scaled_dot_product"),
    "listing_in_a_staticmethod": (_listing(**{"    @classmethod\n    def list_available(cls):":
                                              "    @staticmethod\n    def list_available(cls=Attention):"}),
                                  "scaled_dot_product"),
    "listing_given_to_a_class_that_is_no_exception": (_listing(extra="\nclass Holder:\n    def __init__(self, m):\n"
                                                                     "        self.m = m\n",
                                                               **{"raise ConfigurationError(f\"'":
                                                                  "raise Holder(f\"'"}), "scaled_dot_product"),
    "listing_given_to_an_exception_with_a_metaclass": (_listing(**{"class ConfigurationError(Exception):":
                                                                   "class ConfigurationError(Exception, metaclass=M):"}),
                                                       "scaled_dot_product"),
    "message_kept_in_a_global": (_listing(**{"                    message = f\"Cannot":
                                             "                    global message\n                    message = f\"Cannot"}),
                                 "scaled_dot_product"),
    "message_looked_up": (_listing(**{"                    logger.info(message)":
                                      "                    getattr(F, message)"}), "scaled_dot_product"),

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
    result = graded_mutant(executor, CORRECT / name, old, new)
    cats = result["categories"]
    assert cats[category]["score"] < cats[category]["max"], f"{name} with {new!r} kept full {category}"
    hinted = [t for t in result["tests"] if t["outcome"] != "passed" and hint in t["feedback"]["en"]]
    assert hinted, [t["feedback"]["en"] for t in result["tests"] if t["outcome"] != "passed"]
    assert all(t["feedback"]["zh"] for t in hinted)
