"""What the jail watches while this suite runs (names relative to the torch package), and the trusted
review of the source that the pass of "written by hand in NumPy" rests on."""

from __future__ import annotations

import ast
import re

from grader_tests.attention import static as review

# Ready-made softmax and attention: the lab is NumPy by hand, so calling these loses the point.
FORBID_RUNTIME = [
    "torch.softmax",
    "torch.nn.functional.softmax",
    "torch.special.softmax",
    "torch.Tensor.softmax",
    "torch.nn.functional.scaled_dot_product_attention",
]

# The trusted side's own reading of the source (grader_tests.attention.static, whose review this lab shares).
# The counters above live in the student's process, which can rewrite them (through gc), and see only the
# names they wrap (torch.log_softmax then np.exp, torch.ops.aten._softmax are PyTorch's softmax too): they
# only ever count against a submission; "written by hand in NumPy" rests on this review.
# PyTorch's own softmax in any of its forms, and its attention.
READY_MADE_NAMES = frozenset({"softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax", "Softmin", "Softmax2d",
                              "_softmax", "_log_softmax", "gumbel_softmax", "scaled_dot_product_attention",
                              "MultiheadAttention", "multi_head_attention_forward"})
# The suite's own packages (suite.py), whose plain import the review follows; of them, pandas turns strings
# into calls: pd.eval("t.softmax(x, 1)", local_dict=...), DataFrame.eval/query and the parser behind them
# (pd.core.computation.expr.Expr) call what the string names, read_pickle/read_hdf (pd.io.pickle,
# pandas.compat.pickle_compat) whatever the pickle names.
PACKAGES = ("numpy", "pandas")
STRING_CALLERS = frozenset({"eval", "query", "computation", "read_pickle", "read_hdf", "pickle", "pickle_compat"})
# this lab's own finding, in Chinese (the attention review's are read by its finding_zh)
_ZH_OWN = (re.compile(r"(\S+)\(\.\.\.\) calls what a string names"), r"\1(...) 会调用字符串里写的名字")


def _ready_made(name: str) -> bool:
    return name in READY_MADE_NAMES


def ready_made_uses(source: str) -> tuple[str, ...]:
    """Where code that runs names PyTorch's softmax or attention ("line N: torch.log_softmax"), outside
    ``if __name__ == "__main__":`` and functions nothing calls (a comparison with PyTorch kept there)."""
    return review.named_uses(source, _ready_made)


def hidden_name_uses(source: str) -> tuple[str, ...]:
    """Where the source reaches a function by a name the review cannot follow (the attention lab's
    review, with this lab's packages followed), and where it hands pandas a string to call."""
    found = list(review.hidden_name_uses(source, PACKAGES))
    tree = review.parse(source)
    for node in ast.walk(tree) if tree is not None and found[:1] != [review.UNREVIEWABLE] else ():
        names = [node.attr] if isinstance(node, ast.Attribute) else \
            [a.name for a in node.names] + (node.module or "").split(".") if isinstance(node, ast.ImportFrom) else \
            [part for a in node.names for part in a.name.split(".")] if isinstance(node, ast.Import) else []
        found.extend(f"line {node.lineno}: {name}(...) calls what a string names"
                     for name in dict.fromkeys(names) if name in STRING_CALLERS)
    return tuple(found)


def finding_zh(finding: str) -> str:
    """A finding of ``ready_made_uses`` or ``hidden_name_uses`` in Chinese (the code in it stays as written)."""
    if finding in (review.UNREVIEWABLE, review.UNPARSED):
        return {review.UNREVIEWABLE: "源代码太大或嵌套太深，无法审阅", review.UNPARSED: "源代码无法解析"}[finding]
    return review.finding_zh(_ZH_OWN[0].sub(_ZH_OWN[1], finding))
