"""Static (ast) checks of the student's source, run on the trusted side: the source is parsed,
never executed."""

from __future__ import annotations

import ast

# Attribute names of PyTorch's ready-made attention.
FORBIDDEN_EXACT = {"MultiheadAttention", "multi_head_attention_forward", "Transformer",
                   "TransformerEncoder", "TransformerEncoderLayer", "TransformerDecoder",
                   "TransformerDecoderLayer", "_native_multi_head_attention"}
FORBIDDEN_PARTS = ("scaled_dot_product", "flash_attention", "efficient_attention", "flex_attention")

# Runtime watch passed to the sandbox (names relative to the torch package / the student's module).
FORBID_RUNTIME = [
    "torch.nn.functional.scaled_dot_product_attention",
    "torch.nn.functional.multi_head_attention_forward",
    "torch.nn.MultiheadAttention.forward",
    "torch._C._nn.scaled_dot_product_attention",
    "torch._native_multi_head_attention",
    "torch._fused_sdp_choice",
]
COUNT_RUNTIME = ["ScaledDotProductAttention.forward", "MultiHeadAttention.forward"]

SOFTMAX_NAMES = {"softmax", "log_softmax", "exp", "exp_", "logsumexp", "_softmax"}


def _forbidden(name: str) -> bool:
    return name in FORBIDDEN_EXACT or any(p in name for p in FORBIDDEN_PARTS)


def parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _torch_aliases(tree: ast.Module) -> set[str]:
    names = {"torch"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "torch" or a.name.startswith("torch."):
                    names.add((a.asname or a.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            for a in node.names:
                names.add(a.asname or a.name)
    return names


def _dotted(node: ast.AST) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def fused_attention_uses(source: str) -> list[str]:
    """Human-readable list of places where PyTorch's fused attention is used."""
    tree = parse(source)
    if tree is None:
        return []
    aliases = _torch_aliases(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            for a in node.names:
                if _forbidden(a.name):
                    found.append(f"line {line}: from {node.module} import {a.name}")
        elif isinstance(node, ast.Attribute) and _forbidden(node.attr):
            chain = _dotted(node)
            if chain and chain[0] in aliases:
                found.append(f"line {line}: {'.'.join(chain)}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and _forbidden(node.args[1].value):
            found.append(f"line {line}: getattr(..., {node.args[1].value!r})")
    return sorted(set(found), key=lambda s: (len(s.split(":")[0]), s))


def class_softmax_calls(source: str, class_name: str) -> list[str]:
    """Softmax/exp calls written directly inside ``class_name`` (copied attention logic)."""
    tree = parse(source)
    if tree is None:
        return []
    found = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call):
                    fn = sub.func
                    name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
                    if name in SOFTMAX_NAMES:
                        found.append(f"line {sub.lineno}: {name}(...)")
    return found
