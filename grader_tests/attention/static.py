"""Static (ast) checks of the student's source, run on the trusted side: the source is parsed,
never executed."""

from __future__ import annotations

import ast
import functools

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

SOFTMAX_NAMES = {"softmax", "log_softmax", "exp", "exp_", "logsumexp", "_softmax", "Softmax", "LogSoftmax",
                 "softmin", "Softmin", "exp2"}

# Ways to reach a function without writing its name, which no static check can follow. Code that
# uses them earns neither "no fused attention" point and is flagged for instructor review.
HIDING_MODULES = {"importlib", "gc", "inspect", "ctypes", "builtins", "operator", "marshal", "pickle",
                  "types", "codecs", "zlib", "base64"}
HIDING_BUILTINS = {"__import__", "eval", "exec", "compile", "globals", "vars", "locals", "breakpoint"}
HIDING_ATTRS = {"__wrapped__", "__dict__", "__getattribute__", "__getattr__", "__globals__", "__builtins__",
                "__closure__", "__code__", "__subclasses__", "__func__", "__self__", "__module__",
                "__class__", "__bases__", "__mro__", "__loader__", "__spec__", "modules", "ops", "_ops",
                "_C", "_c10d", "_dynamo", "_inductor", "_refs", "_decomp", "_prims", "library", "jit",
                "compile", "_jit_internal", "hub", "load"}
NAME_FUNCS = {"getattr", "setattr", "hasattr", "delattr"}
MAX_FINDINGS = 20


def _forbidden(name: str) -> bool:
    return name in FORBIDDEN_EXACT or any(p in name for p in FORBIDDEN_PARTS)


@functools.lru_cache(maxsize=4)
def parse(source: str) -> ast.Module | None:
    """The source's tree (cached: several checks of one grading read the same, unmodified tree)."""
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


@functools.lru_cache(maxsize=4)
def hidden_name_uses(source: str) -> tuple[str, ...]:
    """Places where attention.py reaches a function through a computed or indirect name (the
    reason for each), which the static check cannot follow: ``getattr`` with a name that is not
    a plain string, ``torch.ops``, ``__wrapped__``, ``importlib``, ``sys.modules``, ``eval``...
    Unparseable source counts as hiding (nothing can be checked)."""
    tree = parse(source)
    if tree is None:
        return ("the source could not be analysed",)
    aliases = _torch_aliases(tree)
    calls = {id(node.func): node for node in ast.walk(tree) if isinstance(node, ast.Call)}
    found: list[str] = []
    for node in ast.walk(tree):
        if len(found) >= MAX_FINDINGS:      # enough to decide and to explain; bounded cost
            break
        line = getattr(node, "lineno", "?")
        if isinstance(node, ast.Import | ast.ImportFrom):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for mod in mods:
                if mod.split(".")[0] in HIDING_MODULES:
                    found.append(f"line {line}: imports {mod}")
                if mod.startswith("torch.") and any(p in HIDING_ATTRS for p in mod.split(".")[1:]):
                    found.append(f"line {line}: imports {mod}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("torch", "sys"):
                for a in node.names:
                    if a.name in HIDING_ATTRS or a.name == "*":
                        found.append(f"line {line}: from {node.module} import {a.name}")
        elif isinstance(node, ast.Attribute):
            if node.attr in HIDING_ATTRS and node.attr.startswith("__"):
                found.append(f"line {line}: .{node.attr}")
            elif node.attr in HIDING_ATTRS:
                chain = _dotted(node)
                if chain and (chain[0] in aliases or chain[0] == "sys"):
                    found.append(f"line {line}: {'.'.join(chain)}")
        elif isinstance(node, ast.Name) and node.id in HIDING_BUILTINS | NAME_FUNCS - {"getattr", "hasattr"}:
            found.append(f"line {line}: {node.id}")
        elif isinstance(node, ast.Name) and node.id in ("getattr", "hasattr"):
            call = calls.get(id(node))
            if call is None or len(call.args) < 2 or not (isinstance(call.args[1], ast.Constant)
                                                          and isinstance(call.args[1].value, str)):
                found.append(f"line {line}: {node.id} with a computed name")
            elif call.args[1].value.startswith("_"):
                found.append(f"line {line}: {node.id}(..., {call.args[1].value!r})")
    return tuple(sorted(set(found), key=lambda s: (int(s.split()[1].rstrip(":"))
                                                   if s.split()[1].rstrip(":").isdigit() else 0, s)))


def class_uses_class(source: str, class_name: str, used: str) -> bool:
    """Whether the body of ``class_name`` names ``used`` (directly, or through a module-level name
    bound to an instance of it): the trusted half of "MultiHeadAttention reuses the single-head
    module"; the in-jail call counter is only ever taken as evidence against."""
    tree = parse(source)
    if tree is None:
        return False
    # Module-level aliases in either direction (``ScaledDotProductAttention = DotProductAttention``,
    # ``Attn = ScaledDotProductAttention``) and instances (``_core = ScaledDotProductAttention()``).
    bound = {used}
    assigns = [(node.targets, node.value) for node in tree.body if isinstance(node, ast.Assign)]
    changed = True
    while changed:
        changed = False
        for targets, value in assigns:
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            source = value.func if isinstance(value, ast.Call) else value
            if not isinstance(source, ast.Name):
                continue
            if source.id in bound and not names <= bound:
                bound |= names
                changed = True
            elif names & bound and not isinstance(value, ast.Call) and source.id not in bound:
                bound.add(source.id)
                changed = True
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return any(isinstance(sub, ast.Name) and sub.id in bound for sub in ast.walk(node))
    return False


def review_reasons(source: str) -> list[str]:
    """Why an instructor should look at this submission (the Suite's trusted review hook)."""
    hidden = hidden_name_uses(source)
    if not hidden:
        return []
    return ["attention.py reaches functions through computed or indirect names, which the "
            "fused-attention check cannot follow: " + "; ".join(hidden[:5])]


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
