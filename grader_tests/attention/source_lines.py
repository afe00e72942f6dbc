"""What a student's source shows about a mistake the numbers already named (round 29).

A named mistake is confirmed on the student's numbers (``diagnose.py``); these helpers only add the line
that does it, in the student's own terms, and say nothing when the source does not show one line
unambiguously. A class's code is its own methods, those of the base classes the file defines, those of the
file's classes it builds (``self.core = Core()``) and the file's functions it calls by name: a line found
in one of those is said with the class it is in, so "line N" points to the class that does it.
Trusted side only (the source is text here, never run).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterator

from grading.family import class_family, holder
from grading.i18n import Msg, msg
from grading.load_hints import where_in
from grading.parsing import parsed

_SHOWN = 60          # longest code quoted as it is written
MODULE = "attention"  # the name the tests import the file as (suite.SUITE.module_name): ``from attention import f``


@functools.lru_cache(maxsize=4)
def tree_of(source: str) -> ast.Module | None:
    """The source's tree, parsed once per grading however many hints read it (None: it does not parse)."""
    return parsed(source)[0]     # the grading's one parse (grading.parsing: shared, and gated on its size)


_IMPORTS_READ = ("torch", "functools")   # functools: ``functools.partial(F.softmax, dim=-2)`` is a softmax


def torch_names(tree: ast.Module) -> dict[str, str]:
    """What a name imported from torch (or functools) stands for, by its dotted path (``F`` ->
    torch.nn.functional, ``partial`` -> functools.partial)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in _IMPORTS_READ:
                    names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in _IMPORTS_READ:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def dotted_path(node: ast.AST, names: dict[str, str]) -> str | None:
    """The dotted torch path ``node`` names (``F.softmax`` -> torch.nn.functional.softmax), or None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in names:
        return None
    return ".".join([names[node.id], *reversed(parts)])


@functools.lru_cache(maxsize=8)
def family(source: str | None, cls_name: str) -> tuple[tuple[str, ast.AST], ...]:
    """``grading.load_hints.class_family`` of the source's tree: the class and the code it runs, by owner."""
    tree = tree_of(source) if isinstance(source, str) else None
    return () if tree is None else tuple(class_family(tree, cls_name, MODULE))


def _functions(members: list) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(owner, function) of every function, nested ones too, in the members ``family`` gives."""
    for owner, member in members:
        yield from ((owner, n) for n in ast.walk(member) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))


@functools.lru_cache(maxsize=8)
def holder_of(source: str | None, cls_name: str) -> str | None:
    """The name of the class ``cls_name`` holds (``grading.family.holder``): the owner of the class's own lines."""
    tree = tree_of(source) if isinstance(source, str) else None
    return None if tree is None else holder(tree, cls_name, MODULE)


def _code(source: str, node: ast.AST) -> str:
    """The code of ``node`` as written, or shortened: a method call keeps its method, so that a long
    ``torch.ones(n, m, dtype=torch.bool).triu()`` reads ``torch.ones(...).triu()``, not ``torch.ones(...)``."""
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    if len(text) <= _SHOWN and "\n" not in text:
        return text
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call):
        chained = f"{_code(source, node.func.value)}.{node.func.attr}({'...' if node.args or node.keywords else ''})"
        if len(chained) <= _SHOWN:
            return chained
    head = text.split("(", 1)[0]
    return f"{head}(...)" if len(head) <= _SHOWN and "\n" not in head else "..."


def _tensor_method(func: ast.AST, name: tuple[str, ...]) -> bool:
    """``func`` reads a method of that name off a value that may be a tensor (``scores.softmax``), not off the
    module itself: ``self.softmax(s)`` calls the module's own attribute (an ``nn.Softmax`` built in __init__,
    whose own line says its dim, or a method of the class, whose body is read)."""
    return isinstance(func, ast.Attribute) and func.attr in name and not (
        isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"))


def _own_first(found: list, source: str | None, cls_name: str) -> list:
    """The class's own findings when it has any (a wrapper computing its own softmax beside the module it
    builds), else those of the code it runs. The class is the family's first member: the one ``cls_name``
    holds, under its own name when ``cls_name`` is an alias of it."""
    name = holder_of(source, cls_name)
    own = [f for f in found if name is not None and f[1] == name]
    return own or found


def _int(node: ast.AST | None) -> int | None:
    """A constant integer as written (``-1``, ``2``), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


_SOFTMAX_FUNCTIONS = ("torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax")
SOFTMAX_MODULES = ("torch.nn.Softmax", "torch.nn.modules.activation.Softmax")
_UNREAD = object()       # a dim that cannot be read from the source (a variable, *args)


def _softmax_dim(call: ast.Call, names: dict[str, str]) -> object | None:
    """The dim of a softmax call (an int, or _UNREAD), None when ``call`` is no softmax. A
    ``functools.partial(torch.softmax, dim=-2)`` is the softmax its calls run, with the dim it binds."""
    path = dotted_path(call.func, names)
    if path == "functools.partial" and call.args and dotted_path(call.args[0], names) in _SOFTMAX_FUNCTIONS:
        call = ast.Call(func=call.args[0], args=call.args[1:], keywords=call.keywords)
        path = dotted_path(call.func, names)
    if path in _SOFTMAX_FUNCTIONS:
        position = 1
    elif path in SOFTMAX_MODULES or (path is None and _tensor_method(call.func, ("softmax",))):
        position = 0                     # nn.Softmax(dim) or tensor.softmax(dim)
    else:
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return _UNREAD
    given = [k.value for k in call.keywords if k.arg == "dim"]
    if len(call.args) > position:
        given.append(call.args[position])
    value = _int(given[0]) if len(given) == 1 else None
    return _UNREAD if value is None else value


def _calls(source: str | None, cls_name: str, pick) -> list[tuple[int, str, str, object]]:
    """(line, owner, code, what ``pick(call, torch names)`` says of it) of each call in the code class ``cls_name``
    runs (``family``) that ``pick`` does not answer None for, in line order."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return []
    names = torch_names(tree)
    found = []
    for owner, node in family(source, cls_name):
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and (value := pick(n, names)) is not None:
                found.append((n.lineno, owner, _code(source, n), value))
    return sorted(found, key=lambda f: f[:3])


def softmax_calls(source: str | None, cls_name: str) -> list[tuple[int, str, str, object]]:
    """(line, owner, code, dim) of each softmax in the code class ``cls_name`` runs (``family``)."""
    return _calls(source, cls_name, _softmax_dim)


def _query_key_names(node: ast.AST) -> tuple[str, str] | None:
    """The names of the first two parameters (after self) of a class's ``forward`` (or of a function): q and k."""
    fn = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None) \
        if isinstance(node, ast.ClassDef) else node
    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    args = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    args = args[1:] if args[:1] == ["self"] else args
    return (args[0], args[1]) if len(args) >= 2 else None


def _name_of(node: ast.AST) -> str | None:
    """The tensor a product operand reads: ``k`` for ``k``, ``k.transpose(-2, -1)``, ``k.mT``, ``k.permute(...)``."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute) and node.attr in ("mT", "T"):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("transpose", "permute", "contiguous", "float", "double", "to"):
            node = node.func.value
        else:
            return None


def keys_first_scores(source: str | None, cls_name: str) -> tuple[int, str, str] | None:
    """(line, owner, code) of the product that lays the scores out keys first, [.., Nk, Nq]: an einsum
    whose output puts k's sequence letter before q's (``einsum('bhqd,bhkd->bhkq', q, k)``), or
    ``k @ q.transpose(-2, -1)`` / ``torch.matmul(k, q...)``, q and k being the first two
    parameters of the ``forward`` (or function) it is in. None when the class shows no such product."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return None
    names = torch_names(tree)
    for owner, node in family(source, cls_name):
        if (qk := _query_key_names(node)) is None:
            continue
        q_name, k_name = qk
        for n in ast.walk(node):
            operands: list[ast.AST] = []
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
                operands = [n.left, n.right]
            elif isinstance(n, ast.Call) and dotted_path(n.func, names) in ("torch.matmul", "torch.bmm") and len(n.args) == 2:
                operands = list(n.args)
            elif isinstance(n, ast.Call) and dotted_path(n.func, names) == "torch.einsum" and len(n.args) == 3 \
                    and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
                spec = n.args[0].value.replace(" ", "")
                inputs, _, out = spec.partition("->")
                parts = inputs.split(",")
                if len(parts) == 2 and min(len(p) for p in parts) >= 2 and len(out) >= 2:
                    letters = {_name_of(n.args[1]): parts[0][-2], _name_of(n.args[2]): parts[1][-2]}
                    if q_name in letters and k_name in letters and out[-2:] == letters[k_name] + letters[q_name]:
                        return n.lineno, owner, _code(source, n)
                continue
            if len(operands) == 2 and [_name_of(o) for o in operands] == [k_name, q_name]:
                return n.lineno, owner, _code(source, n)
    return None


def softmax_axis_note(source: str | None, cls_name: str) -> Msg | None:
    """For weights normalised over the queries (confirmed on the numbers): the one softmax of the class,
    quoted with the axis it normalises; for a softmax over the last axis, the product that put the queries
    there, when the class shows it. None when the class has no single softmax with a readable dim: the
    feedback then says only what the numbers show."""
    calls = _own_first(softmax_calls(source, cls_name), source, cls_name)
    if len(calls) != 1 or calls[0][3] is _UNREAD:
        return None
    line, owner, code, dim = calls[0]
    where = where_in(line, owner, cls_name)
    if dim in (-2, 2):
        return msg(f"{where['en']}: {code} normalises over dim={dim}, the queries of [B, H, Nq, Nk]",
                   f"{where['zh']}：{code} 沿 dim={dim} 归一化，即 [B, H, Nq, Nk] 中的 query 轴")
    said = msg(f"{where['en']}: {code} normalises over dim={dim}, which holds the queries in the tensor it is "
               "given",
               f"{where['zh']}：{code} 沿 dim={dim} 归一化，而它得到的 tensor 在这一维上排列的是 query")
    if dim in (-1, 3) and (layout := keys_first_scores(source, cls_name)) is not None:
        l_line, l_owner, l_code = layout
        at = where_in(l_line, l_owner, cls_name)
        return msg(f"{said['en']}: {at['en']} computes the scores keys first ({l_code}, [B, H, Nk, Nq], i.e. "
                   "K Q^T); compute them as Q K^T, [B, H, Nq, Nk], or normalise over the keys' axis of this layout "
                   "(dim=-2)",
                   f"{said['zh']}：{at['zh']}按先 key 后 query 的顺序计算了 score（{l_code}，[B, H, Nk, Nq]，即 "
                   "K Q^T）；请按 Q K^T 计算成 [B, H, Nq, Nk]，或在这种排列下沿 key 所在的轴（dim=-2）归一化")
    return msg(f"{said['en']}: normalise over the axis that holds the keys",
               f"{said['zh']}：请沿 key 所在的轴归一化")


_AXES = {0: ("the batch axis", "batch 轴"), 1: ("the head axis", "head 轴"), 2: ("the query axis", "query 轴")}


def softmax_dim_note(source: str | None, cls_name: str, axis: int) -> Msg | None:
    """For weights normalised over ``axis`` (0, 1 or 2 of [B, H, Nq, Nk], confirmed on the numbers): the class's one
    softmax, quoted, when its dim is written and is that axis (``x.softmax(0)``, ``torch.softmax(x, -3)``). None
    otherwise (two softmaxes, a dim in a variable, another dim: what ran cannot be told from the line)."""
    calls = _own_first(softmax_calls(source, cls_name), source, cls_name)
    if len(calls) != 1 or calls[0][3] is _UNREAD or calls[0][3] not in (axis, axis - 4):
        return None
    line, owner, code, dim = calls[0]
    where, (en, zh) = where_in(line, owner, cls_name), _AXES[axis]
    return msg(f"{where['en']}: {code} normalises over dim={dim}, {en} of [B, H, Nq, Nk]",
               f"{where['zh']}：{code} 沿 dim={dim} 归一化，即 [B, H, Nq, Nk] 中的 {zh}")


def keys_first_note(source: str | None, cls_name: str) -> Msg | None:
    """For weights that are softmax(K Q^T) (confirmed on the numbers): the product of the class that lays
    the scores out keys first, quoted, or None when the class shows none."""
    layout = keys_first_scores(source, cls_name)
    if layout is None:
        return None
    line, owner, code = layout
    at = where_in(line, owner, cls_name)
    return msg(f"{at['en']} computes {code}: keys first, [B, H, Nk, Nq]",
               f"{at['zh']}计算的是 {code}：key 在前，[B, H, Nk, Nq]")


_TRIANGLES = ("torch.triu", "torch.tril")


def _triangle(call: ast.Call, names: dict[str, str]) -> bool | None:
    path = dotted_path(call.func, names)
    if path in _TRIANGLES or (path is None and _tensor_method(call.func, ("triu", "tril", "triu_", "tril_"))):
        return True
    return None


def triangle_calls(source: str | None, cls_name: str) -> list[tuple[int, str, str]]:
    """(line, owner, code) of each torch.triu / torch.tril / tensor.triu() / tensor.tril() in the code class
    ``cls_name`` runs: where a causal mask is built."""
    return [(line, owner, code) for line, owner, code, _ in _calls(source, cls_name, _triangle)]


def causal_note(source: str | None, cls_name: str) -> Msg | None:
    """For weights that match a causal mask (confirmed on the numbers): the line of the class that builds a
    triangular matrix, quoted, when it has exactly one; None otherwise (no line is guessed)."""
    calls = _own_first(triangle_calls(source, cls_name), source, cls_name)
    if len(calls) != 1:
        return None
    line, owner, code = calls[0]
    at = where_in(line, owner, cls_name)
    return msg(f"{at['en']} builds a triangular mask: {code}", f"{at['zh']}构造了三角形 mask：{code}")


# The names a student gives a role's tensor: ``q``, ``Q``, ``query``, ``queries``, ``q_heads``, ``k2`` (not ``kv``).
_ROLE_NAMES = {"q": ("q", "query", "queries"), "k": ("k", "key", "keys"), "v": ("v", "value", "values")}
_ROLE_WORDS = {"q": ("Q", "the queries", "query"), "k": ("K", "the keys", "key"), "v": ("V", "the values", "value")}


def _role_of(name: str) -> str | None:
    """The role (q, k or v) a variable's name says it holds, or None."""
    head = name.lower().split("_", 1)[0].rstrip("0123456789")
    return next((role for role, names in _ROLE_NAMES.items() if head in names), None)


def _projections_called(node: ast.AST) -> set[str]:
    """The ``*_proj`` attributes of self that ``node`` calls or reads the weight of (``self.k_proj(x)``,
    ``F.linear(x, self.k_proj.weight, ...)``)."""
    found = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in ("q_proj", "k_proj", "v_proj") \
                and isinstance(n.value, ast.Name) and n.value.id == "self":
            found.add(n.attr)
    return found


def projection_role_note(source: str | None, cls_name: str, roles: str) -> Msg | None:
    """For an output that matches projections in other roles (confirmed on the numbers; ``roles`` the projection
    each of Q, K, V used, ``"qkk"`` for V from k_proj): the lines of the class that do it, when the source shows
    them unambiguously, else None (no line is guessed). Either every wrong role is assigned on exactly one line
    from the other projection (``v = self._split(self.k_proj(kv))``), or one call passes the role-named tensors in
    that order (``self.attention(q, k, k, mask)``)."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return None
    wrong = {role: used for role, used in zip("qkv", roles, strict=True) if role != used}
    members = family(source, cls_name)
    assigned: dict[str, list[tuple[int, str, str]]] = {role: [] for role in wrong}
    passed: list[tuple[int, str, str, list[str]]] = []
    for owner, node in members:
        for n in ast.walk(node):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                role = _role_of(n.targets[0].id)
                if role in wrong and _projections_called(n.value) == {f"{wrong[role]}_proj"}:
                    assigned[role].append((n.lineno, owner, _code(source, n)))
            elif isinstance(n, ast.Call) and len(n.args) >= 3 and all(isinstance(a, ast.Name) for a in n.args[:3]):
                names = [a.id for a in n.args[:3] if isinstance(a, ast.Name)]
                if "".join(_role_of(name) or "?" for name in names) == roles:
                    passed.append((n.lineno, owner, _code(source, n), names))
    if wrong and all(len(found) == 1 for found in assigned.values()):
        parts_en, parts_zh = [], []
        for role, ((line, owner, code),) in assigned.items():
            at = where_in(line, owner, cls_name)
            word = _ROLE_WORDS[role][0]
            parts_en.append(f"{at['en']} computes {word} with {wrong[role]}_proj: {code}")
            parts_zh.append(f"{at['zh']}用 {wrong[role]}_proj 计算了 {word}：{code}")
        return msg("; ".join(parts_en), "；".join(parts_zh))
    if len(passed) == 1:
        line, owner, code, names = passed[0]
        at = where_in(line, owner, cls_name)
        said = [(names[i], role) for i, role in enumerate("qkv") if role in wrong]
        en = ", ".join(f"{name} as {_ROLE_WORDS[role][1]}" for name, role in said)
        zh = "、".join(f"把 {name} 作为 {_ROLE_WORDS[role][2]}" for name, role in said)
        return msg(f"{at['en']} passes {en}: {code}", f"{at['zh']}{zh} 传入：{code}")
    return None


# ----------------------------------------------------------------------------- round 38: the round 37 mistakes' lines
def _self_attr(node: ast.AST) -> str | None:
    """``X`` of ``self.X``, else None."""
    return node.attr if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
        and node.value.id == "self" else None


def _out_projection_names(members: tuple[tuple[str, ast.AST], ...]) -> set[str]:
    """The attributes of self that hold the output projection: ``out_proj``, the names bound to it or it to them
    (``self.out_proj = self.dense``), and a container built with it (``nn.Sequential(self.out_proj, ...)``)."""
    found = {"out_proj"}
    assigns: list[tuple[str | None, ast.AST]] = []
    for _, node in members:
        for n in ast.walk(node):
            if not isinstance(n, ast.Assign) or len(n.targets) != 1:
                continue
            target, value = n.targets[0], n.value
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
                # ``self.q_proj, ..., self.out_proj = self.query, ..., self.dense``: pair by pair
                assigns += [(_self_attr(t), v) for t, v in zip(target.elts, value.elts, strict=True)
                            if _self_attr(t)]
            elif _self_attr(target):
                assigns.append((_self_attr(target), value))
    for _ in range(3):                          # aliases of aliases: a short chain at most
        for target, value in assigns:
            if target in found:
                # self.out_proj = self.to_out[0]: the container holds it (round 39)
                if (alias := _self_attr(value.value if isinstance(value, ast.Subscript) else value)) is not None:
                    found.add(alias)
            elif any(_self_attr(n) in found for n in ast.walk(value)):
                found.add(target)
    return found


def _applies(call: ast.AST, names: set[str], tree_names: dict[str, str], own: set[str]) -> bool:
    """``call`` applies the output projection: ``self.out_proj(...)`` (or a name holding it), ``F.linear(...,
    self.out_proj.weight, ...)``, or a method of the class in ``own`` whose return applies it."""
    if not isinstance(call, ast.Call):
        return False
    attr = _self_attr(call.func)
    if attr in names or attr in own:
        return True
    return dotted_path(call.func, tree_names) == "torch.nn.functional.linear" and any(
        isinstance(a, ast.Attribute) and a.attr == "weight" and _self_attr(a.value) in names
        for a in (*call.args, *(k.value for k in call.keywords)))


def _loaded(node: ast.AST) -> set[str]:
    """The names ``node`` reads, an attribute of self as ``self.X``."""
    found = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return found | {f"self.{a}" for n in ast.walk(node) if (a := _self_attr(n)) is not None}


def _bound(stmt: ast.stmt) -> set[str]:
    """The names (and ``self.X`` attributes) an assignment binds."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
        if isinstance(stmt, ast.AugAssign | ast.AnnAssign) else []
    found = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return found | {f"self.{a}" for t in targets for n in ast.walk(t) if (a := _self_attr(n)) is not None}


def _on_output_path(fn: ast.FunctionDef) -> set[str]:
    """The names whose values reach what ``fn`` returns (through the assignments that bind them, in any order):
    a value bound to another name (``self.debug = ...``, a log) does not reach the output."""
    live = set().union(*(_loaded(r.value) for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value))
    assigns = [n for n in ast.walk(fn) if isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign)]
    for _ in range(8):
        grown = live.union(*(_loaded(a.value) for a in assigns if a.value is not None and _bound(a) & live))
        if grown == live:
            break
        live = grown
    return live


def _reaches(node: ast.AST, where: dict[int, ast.stmt], live: set[str]) -> bool:
    """``node``'s value is returned, or bound to a name on the output path (``where``: ``_statements``)."""
    stmt = where.get(id(node))
    return isinstance(stmt, ast.Return) or (stmt is not None and bool(_bound(stmt) & live))


def _passes(loop: ast.For) -> int | None:
    """How many times ``loop`` runs its body, when the source says it: ``for _ in range(2)``."""
    it = loop.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1:
        return _int(it.args[0])
    return len(it.elts) if isinstance(it, ast.Tuple | ast.List) else None


def out_proj_twice_note(source: str | None, cls_name: str) -> Msg | None:
    """For an output that is out_proj(out_proj(heads merged)) (confirmed on the numbers): where the code applies
    the output projection to a result of the output projection, on one line (``self.dense(self.dense(x))``), on
    two (``out = F.linear(out, self.out_proj.weight, ...)`` then ``self.out_proj(out)``) or in a loop that runs
    twice (``for _ in range(2): y = self.out_proj(y)``), when it does so exactly once on the way to what the
    class returns; None otherwise (two branches each applying it once are no second application, and a double
    application whose value is not returned, a debug copy, is not the one the numbers show)."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return None
    members = family(source, cls_name)
    names, tree_names = _out_projection_names(members), torch_names(tree)
    # a method whose every return applies it (``_merge`` ending in ``return self.out_proj(...)``)
    returns = {(owner, fn.name): [r for r in ast.walk(fn) if isinstance(r, ast.Return)] for owner, fn in members
               if isinstance(fn, ast.FunctionDef) and fn.name != "forward"}
    own_lines = {name: (rets[0].lineno, owner, _code(source, rets[0].value)) for (owner, name), rets in returns.items()
                 if len(rets) == 1 and rets[0].value is not None and _applies(rets[0].value, names, tree_names, set())}
    own = set(own_lines)
    found: set[tuple[int, str, str, tuple[int, str, str] | int | None]] = set()
    for owner, fn in members:
        if not isinstance(fn, ast.FunctionDef):
            continue
        maybe: list[tuple[ast.AST, tuple]] = []          # (the application, what is said of it) of fn
        applied: dict[str, tuple[int, str, str]] = {}   # a name the latest statement bound to an application
        for stmt in sorted((n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n is not fn),
                           key=lambda n: n.lineno):
            for call in (n for n in ast.walk(stmt) if _applies(n, names, tree_names, own)):
                inner = [a for a in call.args if any(_applies(n, names, tree_names, own) for n in ast.walk(a))]
                read = [applied[a.id] for a in call.args if isinstance(a, ast.Name) and a.id in applied]
                if inner:
                    # an own method's application is quoted from its return line, where it is seen
                    first = next((own_lines[a.func.attr] for a in inner if isinstance(a, ast.Call)
                                  and _self_attr(a.func) in own), None)
                    maybe.append((call, (call.lineno, owner, _code(source, call), first)))
                elif read:
                    maybe.append((call, (call.lineno, owner, _code(source, call), read[0])))
            if isinstance(stmt, ast.For) and (passes := _passes(stmt)) is not None and passes >= 2:
                # y = self.out_proj(y) in a loop of two passes: the second pass projects the first's result
                for a in (n for n in ast.walk(stmt) if isinstance(n, ast.Assign) and len(n.targets) == 1
                          and isinstance(n.targets[0], ast.Name) and _applies(n.value, names, tree_names, own)):
                    if any(isinstance(x, ast.Name) and x.id == a.targets[0].id for x in a.value.args):
                        maybe.append((a.value, (a.value.lineno, owner, _code(source, a.value), passes)))
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                if _applies(stmt.value, names, tree_names, own):
                    applied[stmt.targets[0].id] = (stmt.lineno, owner, _code(source, stmt.value))
                else:
                    applied.pop(stmt.targets[0].id, None)
        if maybe:                                       # read the data flow only where there is something to ask
            live, where = _on_output_path(fn), _statements(fn)
            found |= {said for node, said in maybe if _reaches(node, where, live)}
    if len(found) != 1:
        return None
    ((line, owner, code, first),) = found
    at = where_in(line, owner, cls_name)
    if first is None:
        said = msg(f"{at['en']} applies the output projection to its own result: {code}",
                   f"{at['zh']}把输出投影作用在了它自己的结果上：{code}")
    elif isinstance(first, int):
        said = msg(f"{at['en']} applies the output projection to its own result in a loop that runs {first} times: "
                   f"{code}",
                   f"{at['zh']}在执行 {first} 次的循环中把输出投影作用在了它自己的结果上：{code}")
    else:
        before = where_in(first[0], first[1], cls_name)
        said = msg(f"{before['en']} applies the output projection ({first[2]}) and {at['en']} applies it again to "
                   f"that result ({code})",
                   f"{before['zh']}应用了输出投影（{first[2]}），{at['zh']}又对其结果再次应用（{code}）")
    # the fault's text says out_proj: a projection of another name (to_out, dense) is tied to it by where it is built
    # the lines as written (the quote may be shortened): the second application's and, on two lines, the first's
    # (round 39 mend: ``y = self.dense(...)`` then ``y = self.out_proj(y)`` named no build)
    text = "\n".join(source.splitlines()[n - 1] for n in (line, *((first[0],) if isinstance(first, tuple) else ())))
    applied = {n for n in names - {"out_proj"} if f"self.{n}(" in text or f"self.{n}." in text}
    built = projection_build_note(source, cls_name, applied.pop()) if len(applied) == 1 else None
    return said if built is None else msg(f"{said['en']}; {built['en']}", f"{said['zh']}；{built['zh']}")


def projection_build_note(source: str | None, cls_name: str, attr: str) -> Msg | None:
    """Where the class builds its attribute ``attr`` (``line 30 builds self.to_out: nn.Linear(inner, d_model)``),
    through one alias (``self.out_proj = self.to_out`` or ``= self.to_out[0]``): the one assignment of it in the
    code the class runs whose value is a call (a layer built), else None (two assignments, none, a value passed in)."""
    members = family(source, cls_name) if isinstance(source, str) else ()
    index: int | None = None                    # self.out_proj = self.to_out[0]: the container's layer 0
    for _ in range(2):
        assigns = [(owner, a) for owner, m in members for a in ast.walk(m) if isinstance(a, ast.Assign)
                   and any(_self_attr(t) == attr for t in a.targets)]
        if len(assigns) != 1:
            return None
        owner, a = assigns[0]
        if isinstance(a.value, ast.Call):
            built, name = a.value, f"self.{attr}"
            # nn.Sequential(nn.Linear(...), nn.Dropout(p)): the layer itself, when the container lists it
            if index is not None and 0 <= index < len(a.value.args) and not a.value.keywords \
                    and isinstance(a.value.args[index], ast.Call):
                built, name = a.value.args[index], f"self.{attr}[{index}]"
            at = where_in(a.lineno, owner, cls_name)
            return msg(f"{at['en']} builds {name}: {_code(source, built)}",  # type: ignore[arg-type]
                       f"{at['zh']}构建了 {name}：{_code(source, built)}")  # type: ignore[arg-type]
        value = a.value
        if isinstance(value, ast.Subscript):    # round 39 mend: _self_attr of a subscript was None
            index, value = _int(value.slice), value.value
        attr = _self_attr(value)            # type: ignore[assignment]
        if attr is None:
            return None
    return None


# A head mean's operand must be the attention weights: a mean over dim 1 of ``x`` ([B, N, d]: the tokens) or of
# ``memory`` is a statistic of another tensor, and quoting it as the heads' mean would point the student to the
# wrong line (review RC, round 38). The weights are known by where they come from or go to, within one function.
_CARRIES = ("float", "double", "half", "to", "type_as", "detach", "clone", "contiguous", "masked_fill", "expand",
            "expand_as", "unsqueeze", "squeeze", "view", "reshape", "transpose", "permute", "nan_to_num")
_DROPOUTS = ("torch.nn.functional.dropout", "torch.dropout")


def _base(node: ast.AST, names: dict[str, str]) -> str | None:
    """The name the tensor ``node`` reads, past the calls that carry it on (``attn.float()``, ``attn[:, :1]``,
    ``self.dropout(attn)``, ``F.dropout(attn, p)``); ``"<softmax>"`` for a softmax's result; else None."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call):
            if _softmax_dim(node, names) is not None:
                return "<softmax>"
            f = node.func
            if _self_attr(f) is not None and len(node.args) == 1 and not node.keywords:
                node = node.args[0]                      # self.dropout(attn)
            elif dotted_path(f, names) in _DROPOUTS and node.args:
                node = node.args[0]
            elif isinstance(f, ast.Attribute) and f.attr in _CARRIES and dotted_path(f, names) is None:
                node = f.value
            else:
                return None
        else:
            return None


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
    return args[1:] if args[:1] in (["self"], ["cls"]) else args


def _products(node: ast.AST, names: dict[str, str]) -> list[list[ast.AST]]:
    """The operands of each product in ``node`` (``a @ b``, torch.matmul / bmm, the tensors of an einsum)."""
    found = []
    for n in ast.walk(node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
            found.append([n.left, n.right])
        elif isinstance(n, ast.Call) and dotted_path(n.func, names) in ("torch.matmul", "torch.bmm") \
                and len(n.args) == 2:
            found.append(list(n.args))
        elif isinstance(n, ast.Call) and dotted_path(n.func, names) == "torch.einsum" and len(n.args) >= 3:
            found.append(list(n.args[1:]))
    return found


def _weights_names(fn: ast.FunctionDef | ast.AsyncFunctionDef, names: dict[str, str]) -> set[str]:
    """The names of ``fn`` that hold the attention weights: bound to a softmax (or to weights carried on), the
    second of ``out, attn = self.attention(..., return_weights=True)``, multiplied with V, or returned second
    by a ``forward`` (``return (y, attn) if return_weights else y``)."""
    params = _params(fn)
    assigns = [n for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1]
    values = {t.id for a in assigns if isinstance(t := a.targets[0], ast.Name)
              and (_role_of(t.id) == "v" or _projections_called(a.value) == {"v_proj"})}
    values |= {p for p in params if _role_of(p) == "v"}
    found: set[str] = set()
    for operands in _products(fn, names):
        if any(_base(o, names) in values for o in operands):
            found |= {b for o in operands if (b := _base(o, names)) is not None and b not in values}
    if fn.name == "forward":
        for r in (n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None):
            for t in (r.value.body, r.value.orelse) if isinstance(r.value, ast.IfExp) else (r.value,):
                if isinstance(t, ast.Tuple) and len(t.elts) == 2 and (b := _base(t.elts[1], names)):
                    found.add(b)
    for a in assigns:
        target, value = a.targets[0], a.value
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name) \
                and isinstance(value, ast.Call) and any(k.arg in ("return_weights", "need_weights")
                                                        and isinstance(k.value, ast.Constant) and k.value.value is True
                                                        for k in value.keywords):
            found.add(target.elts[1].id)
    for _ in range(4):                         # carried on: attn = self.dropout(attn), w = attn.float()
        for a in assigns:
            if isinstance(a.targets[0], ast.Name) and _base(a.value, names) in (found | {"<softmax>"}):
                found.add(a.targets[0].id)
    return found - {"<softmax>"}


def _reduced_dim(call: ast.Call, names: dict[str, str], op: str) -> tuple[ast.AST, int] | None:
    """(operand, dim) of ``t.op(dim=1)`` or ``torch.op(t, 1)`` (op ``mean`` or ``sum``) over the heads' axis of
    [B, H, Nq, Nk], dim 1 or -3; None for any other call (another dim, several, or one not written out)."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == op and dotted_path(call.func, names) is None \
            and _self_attr(call.func) is None:
        operand, given = call.func.value, call.args[:1]
    elif dotted_path(call.func, names) == f"torch.{op}" and call.args:
        operand, given = call.args[0], call.args[1:2]
    else:
        return None
    dims = [k.value for k in call.keywords if k.arg in ("dim", "axis")] + list(given)
    return (operand, _int(dims[0])) if len(dims) == 1 and _int(dims[0]) in (1, -3) else None


def _head_reduce(node: ast.AST, names: dict[str, str]) -> tuple[ast.AST, int] | None:
    """(operand, dim) of a mean over the heads' axis of [B, H, Nq, Nk], dim 1 or -3: ``w.mean(dim=1)``,
    ``w.mean(axis=1, keepdim=True)``, ``w.mean(-3)``, ``torch.mean(w, 1)``, ``w.sum(dim=1) / H`` (or ``*
    (1.0 / H)``), or einops' ``reduce(w, "b h i j -> b i j", "mean")`` (or ``-> b 1 i j``); None for anything else."""
    if _heads_divisor(node) is not None and isinstance(node.left, ast.Call):
        return _reduced_dim(node.left, names, "sum")
    if not isinstance(node, ast.Call):
        return None
    if found := _reduced_dim(node, names, "mean"):
        return found
    f = node.func
    if ((isinstance(f, ast.Name) and f.id == "reduce") or (isinstance(f, ast.Attribute) and f.attr == "reduce"
                                                           and isinstance(f.value, ast.Name) and f.value.id == "einops")) \
            and len(node.args) == 3 and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                            for a in node.args[1:]) and node.args[2].value == "mean":
        left, _, right = node.args[1].value.partition("->")
        axes, kept = left.split(), right.replace("()", "1").split()
        if len(axes) == 4 and axes[1] not in kept and kept in (axes[:1] + axes[2:], [axes[0], "1", *axes[2:]]):
            return node.args[0], 1
    return None


def _heads_attrs(members: tuple[tuple[str, ast.AST], ...]) -> set[str]:
    """The attributes of self an ``__init__`` of the family sets to its num_heads parameter (the second, after
    d_model: ``self.h = num_heads``, ``self.n_heads = nheads``)."""
    found = set()
    for _, member in members:
        for init in (n for n in ast.walk(member) if isinstance(n, ast.FunctionDef) and n.name == "__init__"):
            params = _params(init)
            if len(params) < 2:
                continue
            for a in (n for n in ast.walk(init) if isinstance(n, ast.Assign) and len(n.targets) == 1):
                if isinstance(a.value, ast.Name) and a.value.id == params[1] and _self_attr(a.targets[0]):
                    found.add(_self_attr(a.targets[0]))
    return found


def _head_axis_size(node: ast.AST) -> bool:
    """``t.shape[1]``, ``t.size(1)`` (or -3): the size of the heads' axis of [B, H, Nq, Nk]."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return _int(node.slice) in (1, -3)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
        and len(node.args) == 1 and _int(node.args[0]) in (1, -3)


def _heads_divisor(node: ast.AST) -> ast.AST | None:
    """X of ``S / X`` or ``S * (1.0 / X)`` (``1 / X``); None for any other node."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return node.right
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and isinstance(node.right, ast.BinOp) \
            and isinstance(node.right.op, ast.Div) and isinstance(node.right.left, ast.Constant) \
            and node.right.left.value in (1, 1.0) and type(node.right.left.value) in (int, float):
        return node.right.right
    return None


def _divides_by_heads(node: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...], of: set[str]) -> bool:
    """A ``sum(dim=1) / X`` is a mean over the heads only when X is the number of heads: the size of the heads'
    axis of the tensor summed (``of``, its names), an attribute __init__ sets to num_heads, or a name ``fn`` binds
    once to either (round 39: ``attn.sum(1) / math.sqrt(self.d_k)`` was quoted as the heads' mean; round 40 mend:
    ``attn.sum(1) / x.size(1)`` divides by the tokens' number, x being [B, N, D]). Any other reduction passes."""
    divisor = _heads_divisor(node)
    return divisor is None or _heads_count(divisor, fn, members, of)


def _heads_count(x: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...],
                 of: set[str] | None = None) -> bool:
    """``x`` is the number of heads: the size of the heads' axis, an attribute __init__ sets to num_heads, or a
    name ``fn`` binds once to either. With ``of``, a size read counts only off a tensor of those names: once
    ``w = attn.sum(1)`` has dropped the heads, ``w.size(1)`` is the number of queries."""
    heads = _heads_attrs(members)

    def sized(node: ast.AST) -> bool:
        t = node.value if isinstance(node, ast.Subscript | ast.Attribute) else node.func
        return of is None or _tensor_root(t) in of
    if isinstance(x, ast.Name):
        binding = _binding(x, fn)
        if binding is None:
            return False
        target, value = binding
        if isinstance(target, ast.Tuple) and not (isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts)):
            # round 39 mend: ``_, H, _, _ = attn.shape`` (or ``= attn.size()``) binds the heads' axis size too
            at = next((i for i, t in enumerate(target.elts) if isinstance(t, ast.Name) and t.id == x.id), None)
            return len(target.elts) == 4 and at == 1 and _whole_shape(value) and sized(value)
        x = _bound_once(x, fn)          # round 40: ``H, D = self.num_heads, self.head_dim`` binds H to the attribute
    return (_head_axis_size(x) and sized(x)) or _self_attr(x) in heads


def _tensor_root(node: ast.AST) -> str | None:
    """The name ``attn.shape`` or ``attn.size`` reads the size of (``attn``), or None."""
    node = node.value if isinstance(node, ast.Attribute) else node
    return node.id if isinstance(node, ast.Name) else None


def _whole_shape(node: ast.AST) -> bool:
    """``t.shape`` or ``t.size()``: the whole shape, to unpack."""
    return (isinstance(node, ast.Attribute) and node.attr == "shape") or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
        and not node.args and not node.keywords)


def _statements(fn: ast.AST) -> dict[int, ast.stmt]:
    """The innermost statement of ``fn`` each node is in, by the node's id."""
    where: dict[int, ast.stmt] = {}
    for stmt in (n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n is not fn):
        for n in ast.walk(stmt):
            where[id(n)] = stmt           # ast.walk is breadth first: an inner statement comes later, and wins
    return where


def _discarded(stmt: ast.stmt, fn: ast.AST, read_attrs: set[str]) -> bool:
    """The value ``stmt`` computes is never read: an expression statement, ``_ = ...``, a name ``fn`` never
    reads, or an attribute of self no code of the class reads (``self.last_mean = ... .detach()``, a log)."""
    if isinstance(stmt, ast.Expr):
        return True
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return False
    target = stmt.targets[0]
    if isinstance(target, ast.Name):
        return target.id == "_" or not any(isinstance(n, ast.Name) and n.id == target.id
                                           and isinstance(n.ctx, ast.Load) for n in ast.walk(fn))
    return _self_attr(target) is not None and _self_attr(target) not in read_attrs


_DIVIDES = ("div", "divide", "true_divide", "div_", "divide_", "true_divide_")


def _divided(node: ast.AST, name: str, names: dict[str, str]) -> ast.AST | None:
    """The divisor when ``node`` divides the tensor ``name`` holds: ``name / X``, ``name.div(X)`` (``div_``,
    ``divide``, ``true_divide``) or ``torch.div(name, X)``; None for anything else (a rounding mode included)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(node.left, ast.Name) \
            and node.left.id == name:
        return node.right
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr in _DIVIDES and isinstance(f.value, ast.Name) and f.value.id == name \
            and len(node.args) == 1:
        return node.args[0]
    if dotted_path(f, names) in tuple(f"torch.{d}" for d in _DIVIDES[:3]) and len(node.args) == 2 \
            and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
        return node.args[1]
    return None


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _two_step_means(fn: ast.AST, names: dict[str, str], members: tuple[tuple[str, ast.AST], ...],
                    read_attrs: set[str]) -> list[tuple[ast.Call, ast.AST, ast.AST, int]]:
    """(sum, division, operand, dim) of each mean over the heads written in two statements (round 40): ``w =
    attn.sum(1)``, then, as the next statement of the same block that reads ``w`` (through aliases ``m = w``),
    ``w = w / self.h``, ``w /= H``, ``w.div_(h)``, ``torch.div(w, h)`` or ``matmul(w / h, v)``, dividing by the
    number of heads, and a result that is read. Nothing between the two rebinds or reads ``w`` otherwise, so the
    value divided is the sum."""
    found = []
    for body in (getattr(n, f) for n in ast.walk(fn) for f in ("body", "orelse", "finalbody")
                 if isinstance(getattr(n, f, None), list)):
        for i, stmt in enumerate(body):
            # ``w = attn.sum(1)``, or annotated ``w: Tensor = attn.sum(1)``
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else \
                stmt.target if isinstance(stmt, ast.AnnAssign) else None
            if not (isinstance(target, ast.Name) and isinstance(stmt.value, ast.Call)):
                continue
            reduced = _reduced_dim(stmt.value, names, "sum")
            if reduced is None:
                continue
            held = {target.id}
            root = _base(reduced[0], names)
            for later in body[i + 1:]:
                if not held & _names_in(later):
                    continue
                if isinstance(later, ast.Assign) and len(later.targets) == 1 \
                        and isinstance(later.targets[0], ast.Name) and isinstance(later.value, ast.Name) \
                        and later.value.id in held:
                    held.add(later.targets[0].id)          # an alias: m = w
                    continue
                step = _division_step(later, held, names, fn, members, read_attrs, {root} - {None})
                if step is not None:
                    found.append((stmt.value, step, *reduced))
                break
    return found


def _division_step(stmt: ast.stmt, held: set[str], names: dict[str, str], fn: ast.AST,
                   members: tuple[tuple[str, ast.AST], ...], read_attrs: set[str], of: set[str]) -> ast.AST | None:
    """The node of ``stmt`` that divides a name in ``held`` by the number of heads, when that is the one place
    ``stmt`` reads the held names and its result is read; else None. A loop or branch is no step: a division in
    a loop may run any number of times (round 40 mend: ``for _ in range(2): w = w / h`` divides by H squared)."""
    if not isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Expr | ast.Return):
        return None
    reads = [n for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id in held and isinstance(n.ctx, ast.Load)]
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Div) and isinstance(stmt.target, ast.Name) \
            and stmt.target.id in held and not reads:
        divisor, node, result = stmt.value, stmt, stmt.target.id
    else:
        hits = [(n, d) for n in ast.walk(stmt) for name in held if (d := _divided(n, name, names)) is not None]
        if len(hits) != 1 or len(reads) != 1:
            return None
        node, divisor = hits[0]
        in_place = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr.endswith("_")
        if in_place and isinstance(stmt, ast.Expr):
            result = reads[0].id
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            result = stmt.targets[0].id       # ``w = w / h`` reads w itself: the result must be read after
        elif _discarded(stmt, fn, read_attrs):
            return None
        else:
            result = None
    if not _heads_count(divisor, fn, members, of):
        return None
    if result is not None:
        where = _statements(fn)
        if not any(isinstance(n, ast.Name) and n.id == result and isinstance(n.ctx, ast.Load)
                   and n.lineno > stmt.end_lineno and not _discarded(where[id(n)], fn, read_attrs)
                   for n in ast.walk(fn)):
            return None                              # never read after, or only by a log nobody reads
    return node


def head_means(source: str | None, cls_name: str) -> list[tuple[int, str, str | tuple[str, int, str], int | None]]:
    """(line, owner, code, dim) of each mean over the heads' axis of the attention weights in the code class
    ``cls_name`` runs whose result is read, the class's own first (a mean in two statements has the code (the
    sum's, the division's line, the division's)); a mean of an operand that is neither the weights
    nor another tensor the source names (``self.cache.mean(1)``, ``torch.stack(ws).mean(1)``) is returned with
    dim None: it may be the one."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return []
    names, members = torch_names(tree), family(source, cls_name)
    read_attrs: set[str] | None = None          # read once a function has a head mean to ask about
    found = []
    for owner, fn in _functions(members):
        reductions = [(n, r) for n in ast.walk(fn) if (r := _head_reduce(n, names)) is not None
                      and _divides_by_heads(n, fn, members, {_base(r[0], names)} - {None})]
        if not reductions and not any(_reduced_dim(n, names, "sum") for n in ast.walk(fn)
                                      if isinstance(n, ast.Call)):
            continue
        weights, where = _weights_names(fn, names), _statements(fn)
        if read_attrs is None:
            read_attrs = {n.attr for _, m in members for n in ast.walk(m) if isinstance(n, ast.Attribute)
                          and isinstance(n.ctx, ast.Load) and _self_attr(n) is not None}
        for total, step, operand, dim in _two_step_means(fn, names, members, read_attrs):
            base = _base(operand, names)
            code = (_code(source, total), step.lineno, _code(source, step))
            if base == "<softmax>" or base in weights:
                found.append((total.lineno, owner, code, dim))
        bound = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.For)
                 for t in ast.walk(n.targets[0] if isinstance(n, ast.Assign) else n.target)
                 if isinstance(t, ast.Name)} | set(_params(fn))
        for n, reduced in reductions:
            if id(n) not in where:
                continue
            if _discarded(where[id(n)], fn, read_attrs):
                continue
            operand, dim = reduced
            base = _base(operand, names)
            if base == "<softmax>" or base in weights:
                found.append((n.lineno, owner, _code(source, n), dim))
            elif base not in bound:      # not a tensor of its own (x, memory, q): it may be the weights
                found.append((n.lineno, owner, _code(source, n), None))
    return _own_first(sorted(set(found), key=lambda f: (f[0], f[1], str(f[2]))), source, cls_name)


def head_mean_note(source: str | None, cls_name: str) -> Msg | None:
    """For weights averaged over the heads (confirmed on the numbers): the one line of the class that averages the
    attention weights over dim 1 (or -3), the heads' axis, and uses the result, quoted; None when there is no
    such line, more than one, or a mean over the heads of a tensor the source does not say (it may be the one)."""
    found = head_means(source, cls_name)
    if len(found) != 1 or found[0][3] is None:
        return None
    line, owner, code, dim = found[0]
    at = where_in(line, owner, cls_name)
    if isinstance(code, tuple):        # two statements (round 40): the sum's line and the division's, each quoted
        total, step_line, step = code
        return msg(f"{at['en']} sums over dim {dim}, the heads of [B, H, Nq, Nk] ({total}), and line {step_line} "
                   f"divides that by their number ({step})",
                   f"{at['zh']}沿 dim {dim}（即 [B, H, Nq, Nk] 中的 head 轴）求和（{total}），第 {step_line} 行再除以 "
                   f"head 数（{step}），即对各 head 取平均")
    return msg(f"{at['en']} averages over dim {dim}, the heads of [B, H, Nq, Nk]: {code}",
               f"{at['zh']}沿 dim {dim} 取平均，即 [B, H, Nq, Nk] 中的 head 轴：{code}")


def _query_axis_shape(node: ast.AST, names: dict[str, str]) -> ast.AST | None:
    """The [B, N] tensor ``node`` lays out as [B, 1, N, 1], or None: ``m[:, None, :, None]``,
    ``m.unsqueeze(1).unsqueeze(-1)`` (either order), ``m.view(B, 1, -1, 1)`` / ``m.reshape(B, 1, N, 1)`` /
    ``torch.reshape(m, (B, 1, N, 1))``, or einops' ``rearrange(m, "b j -> b 1 j 1")``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 4:
        e = node.slice.elts
        full = [isinstance(x, ast.Slice) and x.lower is None and x.upper is None and x.step is None for x in e]
        none = [isinstance(x, ast.Constant) and x.value is None for x in e]
        return node.value if full[0] and none[1] and full[2] and none[3] else None
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr == "unsqueeze" and len(node.args) == 1 \
            and isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Attribute) \
            and f.value.func.attr == "unsqueeze" and len(f.value.args) == 1:
        pair = (_int(f.value.args[0]), _int(node.args[0]))
        return f.value.func.value if pair in ((1, -1), (1, 3), (-1, 1), (2, 1)) else None
    sizes: list[ast.AST] = []
    operand: ast.AST | None = None
    if isinstance(f, ast.Attribute) and f.attr in ("view", "reshape") and dotted_path(f, names) is None:
        operand, sizes = f.value, list(node.args)
    elif dotted_path(f, names) == "torch.reshape" and len(node.args) == 2:
        operand, sizes = node.args[0], [node.args[1]]
    if operand is not None:
        if len(sizes) == 1 and isinstance(sizes[0], ast.Tuple | ast.List):
            sizes = list(sizes[0].elts)
        # [B, 1, N, 1]: the axis between the two ones is written as something other than 1 (-1, N, x.size(1))
        return operand if len(sizes) == 4 and _int(sizes[1]) == 1 and _int(sizes[3]) == 1 \
            and _int(sizes[2]) != 1 else None
    if isinstance(f, ast.Name) and f.id == "rearrange" and len(node.args) == 2 \
            and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        left, _, right = node.args[1].value.partition("->")
        axes, out = left.split(), right.split()
        return node.args[0] if len(axes) == 2 and out == [axes[0], "1", axes[1], "1"] else None
    return None


def _query_axis_code(source: str, node: ast.AST) -> str:
    """``node``'s code, a long one shortened with its [B, 1, N, 1] part kept: ``pad.masked_fill(...)[:, None, :,
    None]``, where ``_code`` would keep the call only."""
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    if len(text) <= _SHOWN and "\n" not in text:
        return text
    if isinstance(node, ast.Subscript):
        return f"{_code(source, node.value)}[{ast.get_source_segment(source, node.slice) or ast.unparse(node.slice)}]"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call) \
            and isinstance(node.func.value.func, ast.Attribute) and node.func.attr == "unsqueeze":
        inner = node.func.value
        return (f"{_code(source, inner.func.value)}.unsqueeze({ast.unparse(inner.args[0])})"
                f".unsqueeze({ast.unparse(node.args[0])})")
    return _code(source, node)


_SIZE_READS = ("shape", "size", "dim", "ndim", "dtype", "device", "numel")


def _reads(node: ast.AST, names: set[str]) -> bool:
    """``node`` reads the values of a tensor in ``names``: ``torch.ones(B, m.size(1))`` reads only m's size
    (a per-query scale built to m's length is no mask)."""
    if isinstance(node, ast.Attribute) and node.attr in _SIZE_READS:
        return False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SIZE_READS:
        return False
    if isinstance(node, ast.Name):
        return node.id in names
    return any(_reads(child, names) for child in ast.iter_child_nodes(node))


def _mask_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names of ``fn`` holding a mask's values: the parameters named for one (``key_padding_mask``,
    ``pad_mask``, ``attention_mask``) and the names bound to what reads them (``pad = torch.zeros(...).masked_fill(
    key_padding_mask, ...)``, ``keep = ~key_padding_mask``)."""
    found = {p for p in _params(fn) if "mask" in p.lower() or "pad" in p.lower()}
    assigns = [n for n in ast.walk(fn) if isinstance(n, ast.Assign)]
    for _ in range(4):
        for a in assigns:
            if _reads(a.value, found):
                found |= {t.id for target in a.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    return found


def _transposed(parent: ast.AST | None) -> bool:
    """``parent`` swaps the last two axes of what it is given (``[:, None, :, None].transpose(2, 3)``): the layout
    it reads is not the one the mask ends in."""
    if isinstance(parent, ast.Attribute) and parent.attr == "mT":
        return True
    return isinstance(parent, ast.Attribute) and parent.attr in ("transpose", "swapaxes", "transpose_")


def query_axis_layouts(source: str | None, cls_name: str) -> list[tuple[int, str, str, None]]:
    """(line, owner, code, None) of each line of the code class ``cls_name`` runs that lays a mask's values out
    as [B, 1, N, 1] and keeps that layout, the class's own first. A layout of another tensor (``q * torch.ones(B,
    N)[:, None, :, None]``, a per-query scale) is no padding mask's."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return []
    names = torch_names(tree)
    found = set()
    for owner, fn in _functions(family(source, cls_name)):
        layouts = [(n, o) for n in ast.walk(fn) if (o := _query_axis_shape(n, names)) is not None]
        if not layouts:
            continue
        masks = _mask_names(fn)
        parents = {id(c): p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
        for n, operand in layouts:
            if _reads(operand, masks) and not _transposed(parents.get(id(n))):
                found.add((n.lineno, owner, _query_axis_code(source, n), None))
    return _own_first(sorted(found, key=lambda f: f[:3]), source, cls_name)


def query_axis_pad_note(source: str | None, cls_name: str) -> Msg | None:
    """For a padding mask on the query axis (confirmed on the numbers): the one line of the class that lays the
    mask's [B, N] values out as [B, 1, N, 1], quoted; None when there is no such line or more than one."""
    found = query_axis_layouts(source, cls_name)
    if len({f[0] for f in found}) != 1:
        return None
    line, owner, code, _ = found[0]
    at = where_in(line, owner, cls_name)
    return msg(f"{at['en']} lays the padding mask out as [B, 1, N, 1], on the query axis: {code}",
               f"{at['zh']}把 padding mask 排成了 [B, 1, N, 1]，即放在 query 轴上：{code}")


def _pattern(node: ast.Call) -> tuple[list[list[str]], list[list[str]]] | None:
    """The two sides of ``rearrange(t, "... -> ...")``'s pattern, groups kept; None for another call."""
    f = node.func
    if not ((isinstance(f, ast.Name) and f.id == "rearrange") or (isinstance(f, ast.Attribute) and f.attr == "rearrange"
                                                                 and isinstance(f.value, ast.Name)
                                                                 and f.value.id == "einops")):
        return None
    if len(node.args) < 2 or not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
        return None
    left, arrow, right = node.args[1].value.partition("->")
    return (_einops_axes(left), _einops_axes(right)) if arrow else None


def _einops_axes(side: str) -> list[list[str]]:
    """``"b n (d h)"`` -> [["b"], ["n"], ["d", "h"]]: each axis, a bracketed group as one."""
    axes: list[list[str]] = []
    group: list[str] | None = None
    for part in side.replace("(", " ( ").replace(")", " ) ").split():
        if part == "(":
            group = []
        elif part == ")":
            axes.append(group or [])
            group = None
        elif group is not None:
            group.append(part)
        else:
            axes.append([part])
    return axes


_HEADS_PARAM = re.compile(r"(num_|n_?)?(attention_)?heads?|h", re.IGNORECASE)
# head_dim's names: ``self.head_dim = head_dim``, ``self.d_k = d_model // num_heads``
_HEAD_DIM_NAME = re.compile(r"d_?[kv]|d_?head|head_?dim|dim_?(per_)?head|head_?size|size_per_head", re.IGNORECASE)


def _binding(x: ast.Name, fn: ast.AST) -> tuple[ast.AST, ast.AST] | None:
    """(target, value) of the one assignment of ``fn`` that binds the name ``x``; None when there are more or none."""
    bound = [(a.targets[0], a.value) for a in ast.walk(fn) if isinstance(a, ast.Assign) and len(a.targets) == 1
             and any(isinstance(t, ast.Name) and t.id == x.id for t in ast.walk(a.targets[0]))]
    stores = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == x.id and isinstance(n.ctx, ast.Store | ast.Del)]
    return bound[0] if len(bound) == 1 == len(stores) else None     # ``for H in ...``, ``H += 1``: not bound once


def _bound_once(x: ast.AST, fn: ast.AST) -> ast.AST | None:
    """What the name ``x`` holds when ``fn`` binds it once, ``H = self.num_heads`` or one of a pair ``H, D =
    self.num_heads, self.head_dim``; ``x`` itself when it is no name; None when it is bound otherwise."""
    if not isinstance(x, ast.Name):
        return x
    binding = _binding(x, fn)
    if binding is None:
        return None
    target, value = binding
    if not isinstance(target, ast.Tuple):
        return value
    if not (isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts)):
        return None
    at = next((i for i, t in enumerate(target.elts) if isinstance(t, ast.Name) and t.id == x.id), None)
    return None if at is None else value.elts[at]      # None: nested, ``a, (H, D) = ...``


def _init_values(attr: str, members: tuple[tuple[str, ast.AST], ...]) -> list[tuple[ast.AST, list[str]]]:
    """(value, the __init__'s parameters) of each ``self.attr = value`` in an ``__init__`` of the family."""
    return [(a.value, _params(init)) for _, member in members for init in ast.walk(member)
            if isinstance(init, ast.FunctionDef) and init.name == "__init__" for a in ast.walk(init)
            if isinstance(a, ast.Assign) and len(a.targets) == 1 and _self_attr(a.targets[0]) == attr]


def _named_heads(x: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...]) -> bool:
    """``x`` is the number of heads by its name: an attribute of self an ``__init__`` of the family sets to a
    parameter named for the heads (``self.h = num_heads``, ``self.h = h``), or a name ``fn`` binds once to one
    (``H = self.num_heads``, ``H, D = self.num_heads, self.head_dim``). Sizes read off a tensor are not: a
    split's [B, 1, 1, M] mask layout ends in a size read too."""
    attr = _self_attr(_bound_once(x, fn))
    return attr is not None and any(isinstance(v, ast.Name) and _HEADS_PARAM.fullmatch(v.id) and v.id in params
                                    for v, params in _init_values(attr, members))


def _named_head_dim(x: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...]) -> bool:
    """``x`` is head_dim by its name or making: an attribute of self named for it (``self.head_dim``,
    ``self.d_k``) or that __init__ sets to a division by the heads (``self.dh = d_model // num_heads``), a
    division by the heads written in place (``C // self.h``), or a name ``fn`` binds once to either."""
    x = _bound_once(x, fn)
    if isinstance(x, ast.BinOp) and isinstance(x.op, ast.FloorDiv):
        return _named_heads(x.right, fn, members)
    attr = _self_attr(x) if x is not None else None
    if attr is None:
        return False
    return bool(_HEAD_DIM_NAME.fullmatch(attr)) or any(
        isinstance(v, ast.BinOp) and isinstance(v.op, ast.FloorDiv) and isinstance(v.right, ast.Name)
        and _HEADS_PARAM.fullmatch(v.right.id) is not None for v, _ in _init_values(attr, members))


def _split_dim_first(node: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...]) -> bool:
    """``node`` splits the features into (head_dim, heads), heads last, so that head h takes every H-th feature:
    ``view(B, N, D, H)`` / ``reshape`` with the heads' number last, ``unflatten(-1, (D, H))``, or ``rearrange(t,
    "b n (d h) -> b h n d")`` (the heads' axis, dim 1 of the result, is the group's second)."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr in ("view", "reshape") and _self_attr(f) is None:
        sizes = list(node.args[0].elts) if len(node.args) == 1 and isinstance(node.args[0], ast.Tuple | ast.List) \
            else list(node.args)
        # the third size head_dim by name (or -1 beside a named heads' number), the fourth the heads (or -1 after a
        # named head_dim): a per-head bias table's [1, Nq, Nk, H] is no split of the features (round 40 mend)
        third, fourth = (sizes[2:] + [None, None])[:2]
        return len(sizes) == 4 and (
            (_named_head_dim(third, fn, members) and (_int(fourth) == -1 or _named_heads(fourth, fn, members)))
            or (_int(third) == -1 and _named_heads(fourth, fn, members)))
    if isinstance(f, ast.Attribute) and f.attr == "unflatten" and len(node.args) == 2 \
            and _int(node.args[0]) in (-1, 2) and isinstance(node.args[1], ast.Tuple | ast.List) \
            and len(node.args[1].elts) == 2:
        pair = node.args[1].elts
        return _named_heads(pair[1], fn, members) and not _named_heads(pair[0], fn, members)
    sides = _pattern(node)
    if sides is None:
        return False
    left, right = sides        # the features' axis, the last, grouped heads second ('(b h) n d' is no split)
    if not (len(left) == 3 and len(left[2]) == 2 and len(right) == 4 and all(len(axis) == 1 for axis in right)):
        return False
    if right[1] == left[2][1:] and right[3] == left[2][:1]:
        return True
    # round 41: split first, moved after ('b n (d h) -> b n h d', then .transpose(1, 2), chained or not): the
    # heads are the letter given the heads' number (``h=self.h``), the group's second
    heads = [k.arg for k in node.keywords if k.arg is not None and _heads_size(k.value, fn, members)]
    return heads == left[2][1:] and left[2][:1] in right


_FLATTENS = ("reshape", "view", "flatten")


def _uncontiguous(node: ast.AST) -> ast.AST:
    """``t.contiguous()`` -> ``t``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "contiguous" \
            and not node.args:
        return node.func.value
    return node


def _dims(args: list[ast.AST]) -> list[int | None]:
    """The dims of a 4-D permute as written, ``(0, 2, -1, 1)`` or ``[0, 2, 3, 1]`` read as 0..3."""
    elts = args[0].elts if len(args) == 1 and isinstance(args[0], ast.Tuple | ast.List) else args
    return [d % 4 if (d := _int(a)) is not None else None for a in elts]


def _einops_moved(node: ast.Call, dims: tuple[int, ...]) -> ast.AST | None:
    """The tensor ``rearrange(t, pattern)`` permutes as ``t.permute(*dims)`` would, four single letters a side
    (``'b h n d -> b n d h'`` for (0, 2, 3, 1)); None for another pattern."""
    left, right = _pattern(node) or ([], [])
    return node.args[0] if len(left) == len(dims) == len(right) and all(len(a) == 1 for a in left + right) \
        and right == [left[d] for d in dims] else None


def _heads_last(node: ast.AST, names: dict[str, str]) -> ast.AST | None:
    """The tensor ``node`` reorders from [B, H, N, D] to [B, N, D, H]: ``t.permute(0, 2, 3, 1)`` (a list, a
    negative dim, ``torch.permute(t, ...)``), ``t.movedim(1, -1)`` (``torch.movedim``), or ``t.transpose(1,
    2).transpose(2, 3)``, or ``rearrange(t, 'b h n d -> b n d h')`` (round 42: einops in two steps, the flatten
    after); None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    if _pattern(node) is not None:
        return _einops_moved(node, (0, 2, 3, 1))
    if node.keywords:
        return None
    f = node.func
    torch_fn = (dotted_path(f, names) or "").removeprefix("torch.")
    if torch_fn in ("permute", "movedim") and node.args:
        tensor, args, op = node.args[0], node.args[1:], torch_fn
    elif isinstance(f, ast.Attribute) and dotted_path(f, names) is None:
        tensor, args, op = f.value, node.args, f.attr
    else:
        return None
    if op == "permute":
        return tensor if _dims(args) == [0, 2, 3, 1] else None
    if op == "movedim":
        return tensor if _dims(args) == [1, 3] else None
    first = tensor
    if op == "transpose" and len(args) == 2 and set(_dims(args)) == {2, 3} and isinstance(first, ast.Call) \
            and isinstance(first.func, ast.Attribute) and first.func.attr == "transpose" \
            and len(first.args) == 2 and set(_dims(first.args)) == {1, 2}:
        return first.func.value
    return None


def _merge_dim_first(node: ast.AST, fn: ast.AST, names: dict[str, str]) -> tuple[ast.AST, ast.AST] | None:
    """(the tensor merged, the node to quote) when ``node`` merges [B, H, N, D] heads last into the features, so
    that one position's features run across the heads first: ``permute(0, 2, 3, 1).reshape(...)`` (a permute
    alone may be a mask's or the keys' layout; ``movedim(1, -1)``, ``transpose(1, 2).transpose(2, 3)``), the
    permute bound on the statement before the reshape (``m = out.permute(0, 2, 3, 1).contiguous()``, then ``m =
    m.view(...)``: the permute is quoted), ``torch.stack(t.unbind(1), dim=-1)``, or ``rearrange(t, "b h n d -> b
    n (d h)")``; None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr in _FLATTENS:
        inner = _uncontiguous(f.value)
        if (tensor := _heads_last(inner, names)) is not None:
            return tensor, node
        if isinstance(inner, ast.Name):          # round 40 mend: the permute on the statement before
            before = [a for a in ast.walk(fn) if isinstance(a, ast.Assign) and len(a.targets) == 1
                      and isinstance(a.targets[0], ast.Name) and a.targets[0].id == inner.id
                      and a.end_lineno < node.lineno]
            last = max(before, key=lambda a: a.lineno, default=None)
            if last is not None and (tensor := _heads_last(_uncontiguous(last.value), names)) is not None:
                return tensor, last.value
        return None
    if dotted_path(f, names) == "torch.stack" and node.args and isinstance(node.args[0], ast.Call) \
            and isinstance(node.args[0].func, ast.Attribute) and node.args[0].func.attr == "unbind" \
            and [_int(a) for a in node.args[0].args] == [1]:
        dims = [k.value for k in node.keywords if k.arg == "dim"] + node.args[1:2]
        return (node.args[0].func.value, node) if len(dims) == 1 and _int(dims[0]) in (-1, 3) else None
    sides = _pattern(node)
    if sides is None:
        return None
    left, right = sides
    if len(left) == 4 and len(right) == 3 and len(right[2]) == 2 and left[1] == right[2][1:] \
            and left[3] == right[2][:1]:
        return node.args[0], node
    # round 42: the second of two einops steps, 'b n h d -> b n (d h)' of the output moved [B, N, H, D] first
    if len(left) == 4 and len(right) == 3 and right[:2] == left[:2] and right[2] == left[3] + left[2] \
            and all(len(a) == 1 for a in left) and (tensor := _positions_first(node.args[0], node.lineno, fn, names)):
        return tensor, node
    return None


def _positions_first(node: ast.AST, line: int, fn: ast.AST, names: dict[str, str]) -> ast.AST | None:
    """The tensor [B, H, N, D] that ``node`` (read at ``line``) moves to [B, N, H, D]: ``t.transpose(1, 2)``
    (``swapaxes``, ``swapdims``), ``t.permute(0, 2, 1, 3)`` or ``rearrange(t, 'b h n d -> b n h d')``, past
    ``contiguous()``, as written or held by a name through its plain bindings (``_plain_bindings``); None for
    anything else."""
    node = _uncontiguous(node)
    if isinstance(node, ast.Name):
        bindings = _plain_bindings(node.id, line, fn)
        if not bindings or _changed_in_place(node.id, bindings[-1].lineno, line, fn):
            return None
        node = _uncontiguous(bindings[-1].value)
    if not isinstance(node, ast.Call):
        return None
    if _pattern(node) is not None:
        return _einops_moved(node, (0, 2, 1, 3))
    f = node.func
    if not isinstance(f, ast.Attribute) or dotted_path(f, names) is not None or _self_attr(f) is not None \
            or node.keywords:
        return None
    return f.value if _swaps_heads_positions(node) else None


def _swaps_heads_positions(node: ast.Call) -> bool:
    """``node`` exchanges axes 1 and 2 of a 4-D tensor as a method: ``t.transpose(1, 2)`` (``swapaxes``,
    ``swapdims``) or ``t.permute(0, 2, 1, 3)``."""
    f = node.func
    if not isinstance(f, ast.Attribute) or node.keywords:
        return False
    if f.attr in ("transpose", "swapaxes", "swapdims"):
        return len(node.args) == 2 and set(_dims(node.args)) == {1, 2}
    return f.attr == "permute" and _dims(node.args) == [0, 2, 1, 3]


def _attention_value(value: ast.AST, weights: set[str], names: dict[str, str]) -> bool:
    """``value`` is the attention's output [B, H, N, D]: ``F.scaled_dot_product_attention(...)``, a module of self
    called on three tensors or more (``self.attention(q, k, v, mask)``), or a product with the weights or V."""
    if isinstance(value, ast.Call) and (
            dotted_path(value.func, names) == "torch.nn.functional.scaled_dot_product_attention"
            or (_self_attr(value.func) is not None and len(value.args) >= 3)):
        return True
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.MatMult)) and not (
            isinstance(value, ast.Call) and dotted_path(value.func, names) in ("torch.matmul", "torch.bmm",
                                                                               "torch.einsum")):
        return False
    bases = {_base(o, names) for o in _products(value, names)[0]} - {None}     # the value's own product first
    return bool(bases & weights) or any(_role_of(b) == "v" for b in bases)


def _attention_outputs(fn: ast.AST, names: dict[str, str]) -> set[str]:
    """The names of ``fn`` that hold the attention's output [B, H, N, D]: bound to it (the first of ``out, attn =
    self.attention(...)``), and carried on (``out = out.contiguous()``)."""
    weights = _weights_names(fn, names) if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) else set()
    found: set[str] = set()
    assigns = [a for a in ast.walk(fn) if isinstance(a, ast.Assign) and len(a.targets) == 1]
    for a in assigns:
        target = a.targets[0]
        if isinstance(target, ast.Tuple) and target.elts:
            target = target.elts[0]
        if isinstance(target, ast.Name) and _attention_value(a.value, weights, names):
            found.add(target.id)
    for _ in range(3):
        for a in assigns:
            if isinstance(a.targets[0], ast.Name) and _base(a.value, names) in found:
                found.add(a.targets[0].id)
    return found


def _merges_attention(tensor: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...],
                      names: dict[str, str]) -> bool:
    """The tensor a merge reads is the attention's output (round 40 mend: an image's ``x.permute(0, 2, 3,
    1).reshape(B, -1, C)`` into tokens, or the keys laid out [B, N, D, H], are no merge of the heads): a name
    ``fn`` binds to it, or a parameter of a helper (``merge_heads(self, t)``) that a function of the family calls
    with it."""
    if _attention_value(tensor, _weights_names(fn, names), names):
        return True                  # merged as computed: torch.matmul(attn, v).permute(0, 2, 3, 1).reshape(...)
    base = _base(tensor, names)
    if base is None:
        return False
    if base in _attention_outputs(fn, names):
        return True
    if base not in _params(fn) or getattr(fn, "name", "forward") == "forward":
        return False
    at = _params(fn).index(base)
    for _, caller in _functions(members):
        outputs = None
        for call in (n for n in ast.walk(caller) if isinstance(n, ast.Call) and len(n.args) > at):
            f = call.func
            if not ((isinstance(f, ast.Name) and f.id == fn.name) or _self_attr(f) == fn.name):
                continue
            outputs = _attention_outputs(caller, names) if outputs is None else outputs
            if _base(call.args[at], names) in outputs:
                return True
    return False


_MOVES = ("transpose", "permute", "swapaxes", "swapdims", "movedim", "moveaxis", "mT", "T", "rearrange", "einsum")


def _features_last(node: ast.Call, fn: ast.AST, names: dict[str, str]) -> bool:
    """The tensor the split ``node`` reshapes still has the features last, as far as ``fn`` shows: no axis moved in
    the expressions it is made of, through plain bindings only (``_plain_bindings``); ``q = self.q_proj(x)
    .transpose(1, 2)`` then ``q.reshape(B, H, D, -1)`` splits [B, features, N] rightly (round 41 mend)."""
    tensor = node.args[0] if _pattern(node) is not None and node.args else node.func.value \
        if isinstance(node.func, ast.Attribute) else None
    line = node.lineno
    for _ in range(6):
        tensor = _unmoved(tensor, names) if tensor is not None else None
        if not isinstance(tensor, ast.Name):
            break
        bindings = _plain_bindings(tensor.id, line, fn)
        if bindings is None:
            return False
        if not bindings:
            return True
        tensor, line = bindings[-1].value, bindings[-1].lineno
    else:
        return False
    return tensor is not None and not any(
        (isinstance(n, ast.Attribute) and n.attr in _MOVES) or (isinstance(n, ast.Name) and n.id in _MOVES)
        for n in ast.walk(tensor))


def _order_lines(source: str | None, cls_name: str, split: bool) -> list[tuple[int, str, str]]:
    """(line, owner, code) of each head split (``split``) or merge of the attention's output in the code class
    ``cls_name`` runs that puts the heads last, head_dim first."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return []
    members, found, names = family(source, cls_name), set(), torch_names(tree)
    for owner, fn in _functions(members):
        for n in ast.walk(fn):
            if split:
                if _split_dim_first(n, fn, members) and _features_last(n, fn, names):
                    found.add((n.lineno, owner, _code(source, n)))
            elif (merged := _merge_dim_first(n, fn, names)) is not None \
                    and _merges_attention(merged[0], fn, members, names):
                found.add((merged[1].lineno, owner, _code(source, merged[1])))
    return _own_first(sorted(found), source, cls_name)


def _first_and_others(found: list[tuple], cls_name: str) -> tuple[Msg, str, Msg]:
    """(where the first of ``found``'s (line, owner, code, ...) findings is, its code, " (so do lines ...)") for
    findings of one owner: the first line is quoted, the others are said after it."""
    line, owner, code = found[0][:3]
    more = [str(f[0]) for f in found[1:] if f[0] != line]
    verb = "does line" if len(more) == 1 else "do lines"
    also = msg(f" (so {verb} {', '.join(more)})", f"（第 {'、'.join(more)} 行也是如此）") if more else msg("", "")
    return where_in(line, owner, cls_name), code, also


def _one_owner(found: list[tuple], cls_name: str, say: Callable[[Msg, str, Msg], Msg]) -> Msg | None:
    """``say(*_first_and_others(found))`` for findings all of one owner, each on its own line; None when there is
    none, they are in different owners or two share a line (which one is meant is not read)."""
    if not found or len({f[1] for f in found}) != 1 or len({f[0] for f in found}) != len(found):
        return None
    return say(*_first_and_others(found, cls_name))


def _order_note(source: str | None, cls_name: str, split: bool) -> Msg | None:
    """The line that splits (or merges) the heads last, quoted; lines more, of one owner, are said after the
    first (q, k and v split alike on three lines); None when there is none or they are in different owners."""
    if split:
        return _one_owner(_order_lines(source, cls_name, split), cls_name, lambda at, code, also: msg(
            f"{at['en']} splits the features as (head_dim, heads), the heads last{also['en']}: {code}",
            f"{at['zh']}按先 `head_dim` 后 head 的顺序拆分特征{also['zh']}：{code}"))
    return _one_owner(_order_lines(source, cls_name, split), cls_name, lambda at, code, also: msg(
        f"{at['en']} merges the heads last, after head_dim{also['en']}: {code}",
        f"{at['zh']}合并时把 head 放在 `head_dim` 之后{also['zh']}：{code}"))


def split_dim_first_note(source: str | None, cls_name: str) -> Msg | None:
    """For heads split with view(B, N, head_dim, H) (confirmed on the numbers, round 40): the one line of the
    class that splits the features heads last, quoted; None when there is no such line or more than one."""
    return _order_note(source, cls_name, split=True)


def merge_dim_first_note(source: str | None, cls_name: str) -> Msg | None:
    """For heads merged heads last (confirmed on the numbers, round 40): the one line of the class that does it,
    quoted; None when there is no such line or more than one."""
    return _order_note(source, cls_name, split=False)


def split_merge_dim_first_note(source: str | None, cls_name: str) -> Msg | None:
    """Both lines, when the class shows each once: the split and the merge that match each other heads last; the
    one of the two the code shows when the other is written in a way no note reads (round 40 mend)."""
    split, merge = split_dim_first_note(source, cls_name), merge_dim_first_note(source, cls_name)
    if split is None or merge is None:
        return split or merge
    return msg(f"{split['en']}; {merge['en']}", f"{split['zh']}；{merge['zh']}")


def _fresh_output(name: str, line: int, fn: ast.AST, names: dict[str, str]) -> bool:
    """The tensor ``name`` holds at ``line`` is the attention's output as the core gave it, [B, H, N, D]: its
    last binding before the line binds it to the attention (``out, attn = self.attention(...)``, ``out =
    torch.matmul(attn, v)``), and no in-place method (``out.transpose_(1, 2)``) touches it in between."""
    bindings = [a for a in ast.walk(fn) if isinstance(a, ast.Assign) and len(a.targets) == 1 and a.lineno < line
                and isinstance(t := (a.targets[0].elts[0] if isinstance(a.targets[0], ast.Tuple) and a.targets[0].elts
                                     else a.targets[0]), ast.Name) and t.id == name]
    last = max(bindings, key=lambda a: a.lineno, default=None)
    weights = _weights_names(fn, names) if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) else set()
    if last is None or not _attention_value(last.value, weights, names):
        return False
    return not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_")
                   and isinstance(n.func.value, ast.Name) and n.func.value.id == name and last.lineno < n.lineno < line
                   for n in ast.walk(fn))


def _given_fresh_output(tensor: ast.AST, at_line: int, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...],
                        names: dict[str, str]) -> bool:
    """``tensor`` is the attention's output untouched, [B, H, N, D]: a name of ``fn`` bound to it (see
    _fresh_output), or a parameter of a helper (``merge_heads(self, t)``) that ``fn`` never rebinds, called
    from the family with such a name."""
    if not isinstance(tensor, ast.Name):
        return False
    if _fresh_output(tensor.id, at_line, fn, names):
        return True
    params = _params(fn) if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) else []
    if fn.name == "forward" or tensor.id not in params or any(
            isinstance(n, ast.Name) and n.id == tensor.id and isinstance(n.ctx, ast.Store) for n in ast.walk(fn)):
        return False
    at = params.index(tensor.id)
    for _, caller in _functions(members):
        for call in (n for n in ast.walk(caller) if isinstance(n, ast.Call) and len(n.args) > at):
            if _self_attr(call.func) == fn.name and isinstance(call.args[at], ast.Name) \
                    and _fresh_output(call.args[at].id, call.lineno, caller, names):
                return True
    return False


def _unmoved_merge(node: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...]) -> tuple[ast.AST, str] | None:
    """(the tensor, how) when ``node`` flattens a tensor as it is into [B, N, features]: ``t.reshape(B, N, H *
    D)`` or ``view`` (three sizes, ``.contiguous()`` before allowed; the first two no product and the second no
    heads' number: ``reshape(B * H, N, D)`` folds the heads into the batch, ``reshape(B, H, -1)`` keeps them, and
    ``t.flatten(2)`` too), ``how`` "flatten"; or concatenates its heads along dim 1, ``torch.cat(t.unbind(1),
    dim=1)``, ``how`` "cat"."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr in ("reshape", "view") and not node.keywords:
        sizes = node.args[0].elts if len(node.args) == 1 and isinstance(node.args[0], ast.Tuple | ast.List) \
            else node.args
        tensor = _uncontiguous(f.value)
        if len(sizes) != 3 or any(isinstance(a, ast.BinOp | ast.Starred) for a in sizes[:2]) \
                or _heads_count(sizes[1], fn, members, {_tensor_root(tensor)}) or _named_heads(sizes[1], fn, members):
            return None
        return tensor, "flatten"
    if isinstance(f, ast.Attribute) and f.attr == "cat" and isinstance(f.value, ast.Name) and f.value.id == "torch" \
            and node.args and isinstance(node.args[0], ast.Call) and isinstance(node.args[0].func, ast.Attribute) \
            and node.args[0].func.attr == "unbind" and [_int(a) for a in node.args[0].args] == [1]:
        dims = [k.value for k in node.keywords if k.arg == "dim"] + node.args[1:2]
        return (node.args[0].func.value, "cat") if len(dims) == 1 and _int(dims[0]) in (1, -2) else None
    return None


def _fresh_output_lines(source: str | None, cls_name: str, pick) -> list[tuple[int, str, str, object]]:
    """(line, owner, code, how) of each node of the code class ``cls_name`` runs that ``pick(node, fn,
    members)`` reads as (tensor, how) and whose tensor is the attention's output as the core gave it, the
    class's own first."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return []
    members, names, found = family(source, cls_name), torch_names(tree), set()
    for owner, fn in _functions(members):
        for n in ast.walk(fn):
            if (picked := pick(n, fn, members)) is not None \
                    and _given_fresh_output(picked[0], n.lineno, fn, members, names):
                found.add((n.lineno, owner, _code(source, n), picked[1]))
    return _own_first(sorted(found), source, cls_name)


def merge_no_transpose_note(source: str | None, cls_name: str) -> Msg | None:
    """For heads merged without moving them after the positions (confirmed on the numbers; round 40 mend, review
    RD MED 5): the one line of the class that flattens the attention's output [B, H, N, D] as the core gave it
    into [B, N, features], or concatenates its heads along the positions, quoted; None when there is none or
    more than one."""
    found = _fresh_output_lines(source, cls_name, _unmoved_merge)
    if len(found) != 1:
        return None
    line, owner, code, how = found[0]
    at = where_in(line, owner, cls_name)
    if how == "cat":
        return msg(f"{at['en']} concatenates the heads of the attention output [B, H, N, head_dim] along dim 1, "
                   f"the positions: {code}",
                   f"{at['zh']}沿 dim 1（即位置轴）拼接注意力输出 [B, H, N, head_dim] 的各个 head：{code}")
    return msg(f"{at['en']} flattens the attention output [B, H, N, head_dim] as it is, the heads never moved "
               f"after the positions (no transpose(1, 2)): {code}",
               f"{at['zh']}把注意力输出 [B, H, N, head_dim] 直接展平，没有先用 `transpose(1, 2)` 把 head 移到位置之后：{code}")


def _reversed_range(node: ast.AST) -> bool:
    """``reversed(range(H))`` or ``range(H - 1, -1, -1)``: the heads' indices backwards."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return False
    if node.func.id == "reversed" and len(node.args) == 1 and isinstance(node.args[0], ast.Call) \
            and isinstance(node.args[0].func, ast.Name) and node.args[0].func.id == "range" \
            and len(node.args[0].args) == 1:
        return True
    return node.func.id == "range" and len(node.args) == 3 and _int(node.args[1]) == -1 and _int(node.args[2]) == -1


def _heads_backwards(node: ast.AST) -> tuple[ast.AST, bool] | None:
    """(the tensor, its heads moved after the positions) when ``node`` puts its heads in reverse order:
    ``torch.cat([t[:, h] for h in reversed(range(H))], dim=-1)`` (or ``range(H - 1, -1, -1)``), ``t.flip(1)``
    of [B, H, N, D], or ``t.transpose(1, 2).flip(2)`` (``permute(0, 2, 1, 3)``)."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    f = node.func
    if f.attr == "cat" and isinstance(f.value, ast.Name) and f.value.id == "torch" and node.args \
            and isinstance(comp := node.args[0], ast.ListComp) and len(comp.generators) == 1:
        loop, elt = comp.generators[0], comp.elt
        if _reversed_range(loop.iter) and not loop.ifs and isinstance(loop.target, ast.Name) \
                and isinstance(elt, ast.Subscript) and isinstance(elt.slice, ast.Tuple) and len(elt.slice.elts) == 2 \
                and isinstance(elt.slice.elts[0], ast.Slice) and isinstance(elt.slice.elts[1], ast.Name) \
                and elt.slice.elts[1].id == loop.target.id:
            return elt.value, False
        return None
    if f.attr != "flip" or node.keywords:
        return None
    dims = _dims(node.args)
    inner = f.value
    if dims == [1]:
        return inner, False
    if dims == [2] and isinstance(inner, ast.Call) and _swaps_heads_positions(inner):
        return inner.func.value, True
    return None


def merge_heads_reversed_note(source: str | None, cls_name: str) -> Msg | None:
    """For the heads concatenated in reverse order (confirmed on the numbers; round 40 mend, review RD MED 5):
    the one line of the class that reverses the heads of the attention's output, quoted; None when there is
    none or more than one."""
    found = _fresh_output_lines(source, cls_name, lambda n, _fn, _members: _heads_backwards(n))
    if len(found) != 1:
        return None
    line, owner, code, _ = found[0]
    at = where_in(line, owner, cls_name)
    return msg(f"{at['en']} puts the heads of the attention output in reverse order, head H-1 first: {code}",
               f"{at['zh']}把注意力输出的各个 head 倒序排列，head H-1 在最前：`{code}`")   # code in a span: for, in


# ------------------------------------------------------------------ round 41: heads split with no axis moved
_KEEPS_ORDER = ("reshape", "view", "flatten", "unflatten", "contiguous")   # no element moves in memory


def _heads_size(x: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...]) -> bool:
    """``x`` is the number of heads: ``_named_heads`` or ``_heads_count``, or a parameter of ``fn`` named for the
    heads (``split_into_heads(x, n_heads)``), or a name ``fn`` binds once to one of those."""
    if _named_heads(x, fn, members) or _self_attr(_bound_once(x, fn)) in _heads_attrs(members):
        return True          # never a size read off a tensor: ``view(B, x.size(1), H, D)``'s is the positions'
    if not isinstance(x, ast.Name) or not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    if x.id in _params(fn):
        return _HEADS_PARAM.fullmatch(x.id) is not None and not any(
            isinstance(n, ast.Name) and n.id == x.id and isinstance(n.ctx, ast.Store) for n in ast.walk(fn))
    bound = _bound_once(x, fn)
    return isinstance(bound, ast.Name) and bound.id != x.id and _heads_size(bound, fn, members)


def _reshaped(node: ast.AST, names: dict[str, str]) -> tuple[ast.AST, list[ast.AST]] | None:
    """(the tensor, its new sizes) of ``t.view(...)``/``t.reshape(...)`` (sizes as a tuple too) or ``torch.reshape(t,
    (...))``; None for anything else."""
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    if dotted_path(node.func, names) == "torch.reshape" and len(node.args) == 2 \
            and isinstance(node.args[1], ast.Tuple | ast.List):
        return node.args[0], list(node.args[1].elts)
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr in ("view", "reshape") and dotted_path(f, names) is None \
            and _self_attr(f) is None and node.args:
        sizes = node.args[0].elts if len(node.args) == 1 and isinstance(node.args[0], ast.Tuple | ast.List) \
            else node.args
        return f.value, list(sizes)
    return None


def _unmoved(node: ast.AST, names: dict[str, str]) -> ast.AST:
    """The tensor ``node`` only re-reads in the same memory order: past ``reshape``, ``view``, ``flatten``,
    ``contiguous`` (``t.reshape(B * H, N, D).view(...)`` reads ``t``'s elements in ``t``'s order)."""
    while isinstance(node, ast.Call):
        reshaped = _reshaped(node, names)
        if reshaped is not None:
            node = reshaped[0]
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _KEEPS_ORDER \
                and dotted_path(node.func, names) is None and _self_attr(node.func) is None:
            node = node.func.value
        else:
            break
    return node


def _linear_attrs(members: tuple[tuple[str, ast.AST], ...], names: dict[str, str]) -> set[str]:
    """The attributes of self an ``__init__`` of the family sets to an ``nn.Linear``: the projections."""
    return {_self_attr(a.targets[0]) for _, member in members for init in ast.walk(member)
            if isinstance(init, ast.FunctionDef) and init.name == "__init__" for a in ast.walk(init)
            if isinstance(a, ast.Assign) and len(a.targets) == 1 and _self_attr(a.targets[0]) is not None
            and isinstance(a.value, ast.Call) and dotted_path(a.value.func, names) in ("torch.nn.Linear",
                                                                                       "torch.nn.modules.linear.Linear")}


_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match)


def _plain_bindings(name: str, line: int, fn: ast.AST) -> list[ast.Assign] | None:
    """The plain ``name = ...`` statements of ``fn`` before ``line``, in order, the last the one ``name`` holds at
    ``line``; None when that is not sure: ``fn`` binds ``name`` any other way too (``q, k = ...``, ``for q in``,
    ``with ... as q``, ``q := ...``, ``q += ...``, ``q: T = ...``, ``del q``, ``a = q = ...``) before ``line`` or
    later in a loop ``line`` is in, or one of those statements sits in a branch or loop that ``line`` is not in
    (which one ran is not read). A hint reads a name's
    value only through bindings it understands (round 41 mend)."""
    plain = [a for a in ast.walk(fn) if isinstance(a, ast.Assign) and len(a.targets) == 1
             and isinstance(a.targets[0], ast.Name) and a.targets[0].id == name]
    targets = {id(a.targets[0]) for a in plain}
    stores = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store | ast.Del)]
    if any(n.lineno <= line and id(n) not in targets for n in stores):
        return None           # bound some other way before: what it holds is not read
    blocks = [b for b in ast.walk(fn) if isinstance(b, _BLOCKS)]
    if any(isinstance(b, ast.For | ast.AsyncFor | ast.While) and b.lineno <= line <= b.end_lineno
           and b.lineno <= n.lineno <= b.end_lineno for b in blocks for n in stores if n.lineno > line):
        return None           # rebound later in a loop the line is in: the next pass reads that
    before = sorted((a for a in plain if a.lineno < line), key=lambda a: (a.lineno, a.col_offset))
    if any(b.lineno <= a.lineno <= b.end_lineno and not b.lineno <= line <= b.end_lineno for a in before for b in blocks):
        return None
    return before


def _changed_in_place(name: str, after: int, before: int, fn: ast.AST) -> bool:
    """``name`` may be changed in place between the two lines: an in-place method called on it (``t.transpose_(1,
    2)``), or any use but a read of it through an attribute (``t.size(1)``, ``t.shape``): passed to a function or
    method (``torch.Tensor.transpose_(q, 1, 2)``, ``self.heads_first_(q, k, v)``), put in a tuple or list looped
    over (``for t in (q, k, v): t.transpose_(1, 2)``), an attribute stored (``q.data = ...``). What such code does
    to the axes is not read (round 42 mend)."""
    parents = {id(c): p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
    for n in ast.walk(fn):
        if not (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and after < n.lineno < before):
            continue
        up = parents.get(id(n))
        if not (isinstance(up, ast.Attribute) and isinstance(up.ctx, ast.Load) and not up.attr.endswith("_")
                and up.attr != "data"):
            return True
    return False


def _projected(node: ast.AST, line: int, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...],
               names: dict[str, str], depth: int = 0) -> bool:
    """``node`` is a projection's output as the Linear gave it, [B, N, features]: ``self.q_proj(x)`` (an nn.Linear
    of the family's __init__), a name whose last binding before ``line`` is one (no in-place method between), or a
    parameter of a helper (``_split(self, t)``) never rebound that every call of it in the family gives one."""
    if depth > 3:
        return False
    node = _unmoved(node, names)
    if isinstance(node, ast.Call):
        return _self_attr(node.func) in _linear_attrs(members, names) and len(node.args) == 1
    if not isinstance(node, ast.Name):
        return False
    bindings = _plain_bindings(node.id, line, fn)
    if bindings is None:
        return False
    if bindings:
        last = bindings[-1]
        return not _changed_in_place(node.id, last.lineno, line, fn) \
            and _projected(last.value, last.lineno, fn, members, names, depth + 1)
    params = _params(fn) if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) else []
    if fn.name == "forward" or node.id not in params or any(
            isinstance(n, ast.Name) and n.id == node.id and isinstance(n.ctx, ast.Store) for n in ast.walk(fn)):
        return False
    at = params.index(node.id)
    calls = [(caller, call) for _, caller in _functions(members)
             for call in (n for n in ast.walk(caller) if isinstance(n, ast.Call) and len(n.args) > at)
             if _self_attr(call.func) == fn.name or (isinstance(call.func, ast.Name) and call.func.id == fn.name)]
    return bool(calls) and all(_projected(call.args[at], call.lineno, caller, members, names, depth + 1)
                               for caller, call in calls)


def _split_unmoved(node: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...],
                   names: dict[str, str]) -> bool:
    """``node`` lays a projection's output [B, N, H * head_dim] out as [B, H, N, head_dim] with no axis moved:
    a 4-D ``view``/``reshape``/``torch.reshape`` whose second size is the heads' number and first no product, of
    the projection read in its own order (``t.reshape(B * H, N, D).view(B, H, N, D)`` too). No [B, N, features]
    tensor becomes [B, H, ...] that way but by reading positions as heads."""
    reshaped = _reshaped(node, names)
    if reshaped is None:
        return False
    tensor, sizes = reshaped
    return len(sizes) == 4 and not any(isinstance(s, ast.BinOp | ast.Starred) for s in sizes[:1]) \
        and _heads_size(sizes[1], fn, members) and not _heads_size(sizes[2], fn, members) \
        and _projected(tensor, node.lineno, fn, members, names)


def split_no_transpose_lines(source: str | None, cls_name: str) -> list[tuple[int, str, str]]:
    """(line, owner, code) of each split of the code class ``cls_name`` runs that lays a projection's output out
    [B, H, N, head_dim] with no transpose, the class's own first."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return []
    members, names, found = family(source, cls_name), torch_names(tree), set()
    for owner, fn in _functions(members):
        found |= {(n.lineno, owner, _code(source, n)) for n in ast.walk(fn) if _split_unmoved(n, fn, members, names)}
    return _own_first(sorted(found), source, cls_name)


def split_no_transpose_note(source: str | None, cls_name: str) -> Msg | None:
    """For heads split with view(B, H, N, head_dim) and no transpose (confirmed on the numbers, round 41): the line
    of the class that does it, quoted (q, k and v split alike on three lines: the others said after the first);
    None when there is none, or the lines are in different owners."""
    return _one_owner(split_no_transpose_lines(source, cls_name), cls_name, lambda at, code, also: msg(
        f"{at['en']} lays the projection [B, N, H * head_dim] out as [B, H, N, head_dim] with no transpose(1, 2), "
        f"reading positions as heads{also['en']}: {code}",
        f"{at['zh']}没有先 `transpose(1, 2)`，直接把投影结果 [B, N, H * head_dim] 排成 [B, H, N, head_dim]，"
        f"把位置当作了 head{also['zh']}：{code}"))


def split_merge_no_transpose_note(source: str | None, cls_name: str) -> Msg | None:
    """Both lines, when the class shows each: the split and the merge that both leave the heads unmoved; the one the
    code shows when the other is written in a way no note reads."""
    split, merge = split_no_transpose_note(source, cls_name), merge_no_transpose_note(source, cls_name)
    if split is None or merge is None:
        return split or merge
    return msg(f"{split['en']}; {merge['en']}", f"{split['zh']}；{merge['zh']}")


# ------------------------------------------------------------------ round 42: heads given as the sequence
_KERNELS = ("ScaledDotProductAttention",)     # the lab's kernel, given [B, H, N, head_dim] by its interface
_SDPA_FUNCTIONS = ("torch.nn.functional.scaled_dot_product_attention",)


def _split_heads_third(node: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...],
                       names: dict[str, str]) -> bool:
    """``node`` splits a projection's output [B, N, H * head_dim] into [B, N, H, head_dim], the heads third:
    ``view(B, N, H, D)`` / ``reshape`` / ``torch.reshape`` (the third size the heads' number, the second not),
    ``unflatten(-1, (H, D))``, ``torch.stack(t.split(D, -1), dim=2)`` (``t.chunk(H, -1)``), or ``rearrange(t,
    'b n (h d) -> b n h d', h=H)``. Laid out so, the heads still have to be moved before the positions."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    tensor: ast.AST | None = None
    if (reshaped := _reshaped(node, names)) is not None:
        sizes = reshaped[1]
        if len(sizes) == 4 and not any(isinstance(s, ast.BinOp | ast.Starred) for s in sizes[:2]) \
                and _heads_size(sizes[2], fn, members) and not _heads_size(sizes[1], fn, members) \
                and not _heads_size(sizes[3], fn, members):
            tensor = reshaped[0]
    elif isinstance(f, ast.Attribute) and f.attr == "unflatten" and len(node.args) == 2 and not node.keywords \
            and _int(node.args[0]) in (-1, 2) and isinstance(node.args[1], ast.Tuple | ast.List) \
            and len(node.args[1].elts) == 2 and _self_attr(f) is None and dotted_path(f, names) is None:
        pair = node.args[1].elts
        if _heads_size(pair[0], fn, members) and not _heads_size(pair[1], fn, members):
            tensor = f.value
    elif dotted_path(f, names) == "torch.stack" and node.args and isinstance(parts := node.args[0], ast.Call):
        dims = [k.value for k in node.keywords if k.arg == "dim"] + node.args[1:2]
        pf, pa = parts.func, list(parts.args)
        if dotted_path(pf, names) in ("torch.chunk", "torch.split") and pa:
            op, piece_of, pa = dotted_path(pf, names).removeprefix("torch."), pa[0], pa[1:]
        elif isinstance(pf, ast.Attribute) and pf.attr in ("chunk", "split") and dotted_path(pf, names) is None:
            op, piece_of = pf.attr, pf.value
        else:
            return False
        pa += [k.value for k in parts.keywords if k.arg in ("chunks", "split_size_or_sections", "dim")]
        pieces = len(pa) == 2 and _int(pa[1]) in (-1, 2) and (
            (op == "chunk" and _heads_size(pa[0], fn, members))
            or (op == "split" and _named_head_dim(pa[0], fn, members)))
        if pieces and len(dims) == 1 and _int(dims[0]) == 2:
            tensor = piece_of
    elif (sides := _pattern(node)) is not None and node.args:
        left, right = sides
        heads = [k.arg for k in node.keywords if k.arg is not None and _heads_size(k.value, fn, members)]
        if len(left) == 3 and len(left[2]) == 2 and len(right) == 4 and right[:2] == left[:2] \
                and right[2:] == [[a] for a in left[2]] and heads == left[2][:1]:
            tensor = node.args[0]
    return tensor is not None and _projected(tensor, node.lineno, fn, members, names)


def _given_splits(node: ast.AST, line: int, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...],
                  names: dict[str, str], depth: int = 0) -> list[tuple[ast.AST, ast.AST]] | None:
    """(function, split) of the heads-third split (``_split_heads_third``) that ``node``, read at ``line`` of
    ``fn``, holds with no axis moved since: as written, through plain bindings (``_plain_bindings``, nothing done
    in place between), past calls that keep the axes (``contiguous()``, ``float()``), and through a helper of the
    family (``self.split_heads(x)``) with one ``return``; None when the code does not show one."""
    if depth > 5:
        return None
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SAME_AXES \
            and dotted_path(node.func, names) is None and _self_attr(node.func) is None:
        node = node.func.value
    if isinstance(node, ast.Name):
        bindings = _plain_bindings(node.id, line, fn)
        if not bindings or _changed_in_place(node.id, bindings[-1].lineno, line, fn):
            return None
        return _given_splits(bindings[-1].value, bindings[-1].lineno, fn, members, names, depth + 1)
    if _split_heads_third(node, fn, members, names):
        return [(fn, node)]
    if not isinstance(node, ast.Call) or node.keywords or len(node.args) != 1:
        return None
    called = _self_attr(node.func) or (node.func.id if isinstance(node.func, ast.Name) else None)
    helpers = [h for _, h in _functions(members) if h.name == called and h.name != "forward"]
    if len(helpers) != 1:
        return None
    returns = [r for r in ast.walk(helpers[0]) if isinstance(r, ast.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return None
    return _given_splits(returns[0].value, returns[0].lineno, helpers[0], members, names, depth + 1)


def _kernel_calls(fn: ast.AST, members: tuple[tuple[str, ast.AST], ...], names: dict[str, str]) -> list[ast.Call]:
    """The calls of ``fn`` that give q, k and v to the lab's kernel: a module of self an ``__init__`` of the family
    builds as ScaledDotProductAttention (``self.attention(q, k, v, mask)``), or F.scaled_dot_product_attention."""
    kernels = {_self_attr(a.targets[0]) for _, member in members for init in ast.walk(member)
               if isinstance(init, ast.FunctionDef) and init.name == "__init__" for a in ast.walk(init)
               if isinstance(a, ast.Assign) and len(a.targets) == 1 and _self_attr(a.targets[0]) is not None
               and isinstance(a.value, ast.Call) and (getattr(a.value.func, "id", None) in _KERNELS
                                                      or getattr(a.value.func, "attr", None) in _KERNELS)}
    return [n for n in ast.walk(fn) if isinstance(n, ast.Call) and len(n.args) >= 3
            and ((_self_attr(n.func) in kernels) or dotted_path(n.func, names) in _SDPA_FUNCTIONS)]


def _sequence_splits(source: str | None, cls_name: str) -> tuple[list[tuple[int, str, str]], set[str]]:
    """The splits ``heads_as_sequence_lines`` quotes, and the kernels they reach as the code names them
    (``F.scaled_dot_product_attention``; a module of the class, ScaledDotProductAttention)."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return [], set()
    members, names, found, kernels = family(source, cls_name), torch_names(tree), set(), set()
    owners = {id(fn): owner for owner, fn in _functions(members)}
    for _, fn in _functions(members):
        for call in _kernel_calls(fn, members, names):
            for arg in call.args[:3]:
                for where, split in _given_splits(arg, call.lineno, fn, members, names) or []:
                    found.add((split.lineno, owners[id(where)], _code(source, split)))
                    kernels.add(_code(source, call.func) if dotted_path(call.func, names) in _SDPA_FUNCTIONS
                                else "ScaledDotProductAttention")
    return _own_first(sorted(found), source, cls_name), kernels


def heads_as_sequence_lines(source: str | None, cls_name: str) -> list[tuple[int, str, str]]:
    """(line, owner, code) of each split that lays a projection's output out [B, N, H, head_dim] and reaches the
    kernel as its q, k or v with no axis moved in between (``_given_splits``), the class's own first."""
    return _sequence_splits(source, cls_name)[0]


def heads_as_sequence_note(source: str | None, cls_name: str) -> Msg | None:
    """For heads split [B, N, H, head_dim] and given to the kernel with no transpose (confirmed on the numbers,
    round 34): the split lines, quoted, the first with the others said after it (round 42), naming the kernel as
    the code calls it (round 42 mend); None when the class shows none such, or lines of several owners."""
    found, kernels = _sequence_splits(source, cls_name)
    kernel = ", ".join(sorted(kernels))
    return _one_owner(found, cls_name, lambda at, code, also: msg(
        f"{at['en']} splits the projection into [B, N, H, head_dim], and it reaches {kernel} with "
        f"no transpose(1, 2), the positions in dim 1 and the heads in dim 2{also['en']}: {code}",
        f"{at['zh']}把投影结果拆成 [B, N, H, head_dim]，未经 `transpose(1, 2)` 就传给了 {kernel}，"
        f"其中 dim 1 是位置、dim 2 是 head{also['zh']}：{code}"))


# ------------------------------------------------------------------ round 41: heads folded into the batch and back
_SWAPS = {"transpose": [0, 1], "swapaxes": [0, 1], "swapdims": [0, 1], "movedim": [0, 1]}
_SAME_AXES = ("contiguous", "float", "double", "half", "to", "type_as", "clone", "detach", "masked_fill", "expand",
              "expand_as")




def _batch_heads(node: ast.AST, line: int, fn: ast.AST, names: dict[str, str], depth: int = 0) -> str | None:
    """"bh" when ``node`` is laid out [B, H, ...] in the kernel (a parameter of its ``forward``: q, k, v, the mask,
    as ScaledDotProductAttention is given them), "hb" when its first two axes are exchanged (``transpose(0, 1)``,
    ``permute(1, 0, ...)``, ``torch.stack(t.unbind(1))``); None when the code does not show it."""
    if depth > 4:
        return None
    flip = {"bh": "hb", "hb": "bh", None: None}
    if isinstance(node, ast.Name):
        bindings = _plain_bindings(node.id, line, fn)
        if bindings is None:
            return None
        if bindings:
            return _batch_heads(bindings[-1].value, bindings[-1].lineno, fn, names, depth + 1)
        return "bh" if getattr(fn, "name", "") == "forward" and node.id in _params(fn) else None
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if dotted_path(f, names) == "torch.stack" and len(node.args) == 1 and not node.keywords \
            and isinstance(inner := node.args[0], ast.Call):
        given = [*inner.args, *(k.value for k in inner.keywords if k.arg == "dim")]
        if isinstance(inner.func, ast.Attribute) and inner.func.attr == "unbind" and _dims(given) == [1] \
                and dotted_path(inner.func, names) is None:
            return flip[_batch_heads(inner.func.value, line, fn, names, depth + 1)]
        if dotted_path(inner.func, names) == "torch.unbind" and len(given) == 2 and _int(given[1]) == 1:
            return flip[_batch_heads(given[0], line, fn, names, depth + 1)]
        return None
    if not isinstance(f, ast.Attribute) or dotted_path(f, names) is not None or _self_attr(f) is not None:
        return None
    if f.attr in _SWAPS and len(node.args) == 2 and not node.keywords \
            and sorted(_int(a) for a in node.args if _int(a) is not None) == [0, 1]:
        return flip[_batch_heads(f.value, line, fn, names, depth + 1)]
    if f.attr == "permute" and _dims(node.args)[:2] == [1, 0] and len(_dims(node.args)) == 4:
        return flip[_batch_heads(f.value, line, fn, names, depth + 1)]
    if f.attr in _SAME_AXES:
        return _batch_heads(f.value, line, fn, names, depth + 1)
    return None


def _heads_number(x: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...]) -> bool:
    """``x`` is the number of heads by its name or its making (``_heads_size``, or ``_heads_count``: in the kernel
    the heads' number is read off its [B, H, ...] input, ``B, H, N, D = q.shape``)."""
    return _heads_size(x, fn, members) or _heads_count(x, fn, members)


def _heads_letter(side: list[list[str]]) -> str | None:
    """The heads' letter of an einops side laid out [B, H, N, D] (``'b h n d'``: the second axis) or [B, N, H * D]
    (``'b n (h d)'``: the first of the last group); None for another layout (``'b n d'``: no heads to fold)."""
    if len(side) == 4 and all(len(axis) == 1 for axis in side):
        return side[1][0]
    if len(side) == 3 and len(side[2]) == 2 and len(side[0]) == len(side[1]) == 1:
        return side[2][0]
    return None


def _named_layout(sizes: list[ast.AST], line: int, fn: ast.AST) -> list[ast.AST]:
    """The sizes a reshape at ``line`` of ``fn`` is given through a name (``x.reshape(shape)``, ``x.view(*shape)``):
    those of the tuple (or list never changed after: no ``shape[0] = ...``, no ``shape.append(...)``) its one last
    plain binding holds (``shape = (B * H, N, D)``, ``_plain_bindings``; round 42); ``sizes`` as given otherwise."""
    named = sizes[0].value if len(sizes) == 1 and isinstance(sizes[0], ast.Starred) else sizes[0] if len(sizes) == 1 \
        else None
    if not isinstance(named, ast.Name):
        return sizes
    bindings = _plain_bindings(named.id, line, fn)
    value = bindings[-1].value if bindings else None
    changed = any(isinstance(n, ast.Subscript | ast.Attribute) and isinstance(n.value, ast.Name)
                  and n.value.id == named.id and (isinstance(n, ast.Attribute) or not isinstance(n.ctx, ast.Load))
                  for n in ast.walk(fn))          # ``shape[0] = ...``, ``shape.append(...)``: a list changed after
    if isinstance(value, ast.Tuple) or (isinstance(value, ast.List) and not changed):
        return sizes if any(isinstance(e, ast.Starred) for e in value.elts) else list(value.elts)
    return sizes


def _group_with(side: list[list[str]], letter: str) -> list[str] | None:
    """The one bracketed group of two letters of an einops side holding ``letter`` (``'n (b h) d'``, "b" -> ["b",
    "h"]; ``'(b h) (n d)'``, "b" -> ["b", "h"]); None for no such group or a group of other sizes. Read by the
    letter it must hold, a second group elsewhere on the side (``(n d)``) does not hide it (round 42 mend)."""
    groups = [axis for axis in side if len(axis) != 1 and letter in axis]
    return groups[0] if len(groups) == 1 and len(groups[0]) == 2 and len(set(groups[0])) == 2 else None


def _fold(node: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...], names: dict[str, str]) -> str | None:
    """The order ``node`` folds the heads into the batch in: "bh" (row b*H + h) for ``rearrange(t, 'b h n d -> (b h)
    n d')`` (or from ``'b n (h d)'``), a [B, H, ...] tensor reshaped with a first size of the heads times another
    (``reshape(B * H, N, D)``, ``flatten(0, 1)``); "hb" (row h*B + b) for ``'-> (h b) n d'``, the same of a tensor
    whose batch and heads axes were exchanged first, or the heads cut off the features or unbound and concatenated
    along dim 0 (``torch.cat(t.chunk(H, -1), 0)``, ``torch.cat(t.unbind(1))``); None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    sides = _pattern(node)
    if sides is not None:
        left, right = sides
        # the batch, left's first axis, grouped on the right with another axis of the left (the heads, of 'b h n d'
        # or of 'b n (h d)'): the rows' order is the group's, wherever the group stands ('(b h) n d', or 'n (b h)
        # d' of a layout transposed after; round 42)
        group = _group_with(right, left[0][0]) if left and len(left[0]) == 1 else None
        if group is not None and _heads_letter(left) in group:
            order = "bh" if group[0] == left[0][0] else "hb"
            # a [B, H, ...] pattern names the tensor's axes by place: of one whose batch and heads were exchanged
            # first ('b h n d' of q.transpose(0, 1)), the letters are the other way round (round 41 mend)
            if len(left) == 4 and node.args and _batch_heads(node.args[0], node.lineno, fn, names) == "hb":
                return {"bh": "hb", "hb": "bh"}[order]
            return order
        return None
    f = node.func
    if dotted_path(f, names) == "torch.cat" and node.args and isinstance(parts := node.args[0], ast.Call):
        dims = [k.value for k in node.keywords if k.arg == "dim"] + node.args[1:2]
        if not (dims == [] or (len(dims) == 1 and _int(dims[0]) == 0)):
            return None
        pf, pa = parts.func, list(parts.args)
        if dotted_path(pf, names) in ("torch.chunk", "torch.unbind", "torch.split") and pa:
            op, tensor, pa = dotted_path(pf, names).removeprefix("torch."), pa[0], pa[1:]
        elif isinstance(pf, ast.Attribute) and dotted_path(pf, names) is None and pf.attr in ("chunk", "unbind", "split"):
            op, tensor = pf.attr, pf.value
        else:
            return None
        pa += [k.value for k in parts.keywords if k.arg in ("chunks", "split_size_or_sections", "dim")]
        if op == "chunk" and len(pa) == 2 and _int(pa[1]) not in (None, 0) and _heads_number(pa[0], fn, members):
            return "hb"
        if op == "split" and len(pa) == 2 and _int(pa[1]) not in (None, 0) and _named_head_dim(pa[0], fn, members):
            return "hb"
        if op == "unbind" and [_int(a) for a in pa] == [1] \
                and _batch_heads(tensor, node.lineno, fn, names) == "bh":
            return "hb"
        return None
    if not isinstance(f, ast.Attribute) or dotted_path(f, names) is not None or _self_attr(f) is not None:
        return None
    if f.attr == "flatten" and [_int(a) for a in node.args] == [0, 1] and not node.keywords:
        return _batch_heads(f.value, node.lineno, fn, names)
    reshaped = _reshaped(node, names)
    if reshaped is None or not reshaped[1]:
        return None
    layout = _named_layout(reshaped[1], node.lineno, fn)
    first = layout[0] if layout else None     # ``shape = (); t.reshape(shape)``: no sizes to read
    if isinstance(first, ast.BinOp) and isinstance(first.op, ast.Mult) and (
            _heads_number(first.left, fn, members) or _heads_number(first.right, fn, members)):
        return _batch_heads(reshaped[0], node.lineno, fn, names)
    return None


def _kernel_heads(x: ast.AST, fn: ast.AST, names: dict[str, str]) -> bool:
    """``x`` is the second of the first sizes of a tensor the kernel is given [B, H, ...] (``_batch_heads``):
    ``n, h = q.shape[:2]``, ``b, h, n, d = q.size()`` (round 41 mend: a fold's unfold reads its heads' letter
    off the size given, ``rearrange(x, '(h n) s d -> n h s d', h=h)``)."""
    binding = _binding(x, fn) if isinstance(x, ast.Name) else None
    if binding is None or not isinstance(binding[0], ast.Tuple):
        return False
    target, value = binding
    at = next((i for i, t in enumerate(target.elts) if isinstance(t, ast.Name) and t.id == x.id), None)
    if isinstance(value, ast.Subscript) and isinstance(cut := value.slice, ast.Slice) and cut.step is None \
            and _int(cut.lower) in (None, 0) and _int(cut.upper) == len(target.elts):
        value = value.value
    elif len(target.elts) != 4:
        return False
    tensor = value.value if isinstance(value, ast.Attribute) else value.func.value \
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) else None
    return at == 1 and _whole_shape(value) and tensor is not None \
        and _batch_heads(tensor, binding[1].lineno, fn, names) == "bh"


def _unfold(node: ast.AST, fn: ast.AST, members: tuple[tuple[str, ast.AST], ...], names: dict[str, str]) -> str | None:
    """The order ``node`` reads folded rows back in: "bh" for ``rearrange(t, '(b h) n d -> b h n d')`` (or ``'-> b n
    (h d)'``), ``view(B, H, ...)``, ``unflatten(0, (B, H))``; "hb" for ``'(h b) ...'``, ``view(H, B, ...)`` (then
    transposed), ``unflatten(0, (H, B))``, ``torch.stack(t.chunk(H, 0), dim=1)`` (``t.split(B, 0)``); None for anything else. Read only
    in a function that folds (``_fold``): a split's ``view(B, H, N, D)`` unfolds nothing."""
    if not isinstance(node, ast.Call):
        return None
    sides = _pattern(node)
    if sides is not None:
        left, right = sides
        # the rows grouped on the left ('(b h) n d', or 'n (b h) d' of a layout transposed first; round 42): which
        # of the two letters the heads are is read off the sizes given (``h=H``), never off where the right side
        # puts them ('(h b) n d -> h b n d' reads the rows head by head, whatever is transposed after); no size of
        # the heads' number given, or both: not read (round 41 mend)
        # the rows are the batch's only when the right side keeps one of the group's letters as its first axis
        # (the batch, or the heads of a layout transposed after): a group of the features or the positions
        # ('b n (h d) -> b h n d', 'b (h n) d -> b h n d', 'b n (h d) -> (b h) n d') splits, it unfolds nothing
        # (round 42 mend)
        group = _group_with(left, right[0][0]) if right and len(right[0]) == 1 else None
        if not (group is not None and all(any(letter in axis for axis in right) for letter in group)):
            return None
        heads = [k.arg for k in node.keywords if k.arg in group and (
            _heads_number(k.value, fn, members) or _kernel_heads(k.value, fn, names))]
        if len(heads) != 1:
            return None
        return "hb" if group[0] == heads[0] else "bh"
    f = node.func
    if dotted_path(f, names) == "torch.stack" and node.args and isinstance(parts := node.args[0], ast.Call) \
            and isinstance(parts.func, ast.Attribute) and parts.func.attr in ("chunk", "split") \
            and len(parts.args) == 2 and _int(parts.args[1]) == 0:
        # pieces of consecutive rows stacked on dim 1: element [i, j] is row j * (rows a piece) + i, whatever the
        # pieces' number or size, the rows read head by head
        dims = [k.value for k in node.keywords if k.arg == "dim"] + node.args[1:2]
        return "hb" if len(dims) == 1 and _int(dims[0]) == 1 else None
    if isinstance(f, ast.Attribute) and f.attr == "unflatten" and len(node.args) == 2 and _int(node.args[0]) == 0 \
            and isinstance(node.args[1], ast.Tuple | ast.List) and len(node.args[1].elts) == 2:
        pair = node.args[1].elts
    elif (reshaped := _reshaped(node, names)) is not None \
            and len(sizes := _named_layout(reshaped[1], node.lineno, fn)) >= 3:
        pair = sizes[:2]
    else:
        return None
    if any(isinstance(s, ast.BinOp | ast.Starred) for s in pair):
        return None
    heads = [_heads_number(s, fn, members) for s in pair]
    return {(False, True): "bh", (True, False): "hb"}.get((heads[0], heads[1]))


def _unfold_lines(source: str, owner: str, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                  members: tuple[tuple[str, ast.AST], ...], names: dict[str, str]) -> set[tuple[int, str, str, str]]:
    """(line, owner, code, order) of each unfold of ``fn`` whose value reaches what ``fn`` returns (``dbg =
    o.view(B, H, ...)`` unused unfolds nothing); an unfold of another's result, or within one (``o.view(B, H,
    ...).transpose(0, 1).contiguous().view(H, B, ...)``), is not read: which order the rows end in is the chain's."""
    read = [(n, o) for n in ast.walk(fn) if (o := _unfold(n, fn, members, names)) is not None]
    ids = {id(n) for n, _ in read}
    nested = {id(n) for n, _ in read if any(id(m) in ids for m in ast.walk(n) if m is not n)}
    nested |= {id(m) for n, _ in read for m in ast.walk(n) if m is not n and id(m) in ids}
    live, where = _on_output_path(fn), _statements(fn)
    return {(n.lineno, owner, _code(source, n), o) for n, o in read
            if id(n) not in nested and _reaches(n, where, live)}


def fold_lines(source: str | None, cls_name: str) -> tuple[list[tuple[int, str, str, str]], list[tuple[int, str, str, str]]]:
    """(line, owner, code, order) of each fold, and of each unfold in a function that folds, of the code class
    ``cls_name`` runs, the class's own first."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return [], []
    members, names = family(source, cls_name), torch_names(tree)
    folded, unfolded = set(), set()
    for owner, fn in _functions(members):
        here = {(n.lineno, owner, _code(source, n), o) for n in ast.walk(fn)
                if (o := _fold(n, fn, members, names)) is not None}
        if here:
            folded |= here
            unfolded |= _unfold_lines(source, owner, fn, members, names)
    return _own_first(sorted(folded), source, cls_name), _own_first(sorted(unfolded), source, cls_name)


_ORDERS = {"bh": ("sample by sample, row b*H + h", "按样本顺序（第 b*H + h 行）"),
           "hb": ("head by head, row h*B + b", "按 head 顺序（第 h*B + b 行）")}


def _lines_said(found: list[tuple[int, str, str, str]], cls_name: str, what: tuple[str, str]) -> Msg:
    """"line N (so do lines ...) WHAT: CODE" of findings of one owner, the first quoted."""
    order = found[0][3]
    at, code, also = _first_and_others(found, cls_name)
    return msg(f"{at['en']} {what[0]} {_ORDERS[order][0]}{also['en']}: {code}",
               f"{at['zh']}{_ORDERS[order][1]}{what[1]}{also['zh']}：{code}")


def fold_note(source: str | None, cls_name: str, order: str) -> Msg | None:
    """For heads folded into the batch in one order and unfolded in the other (``folds.FOLDS``' ``order``, "bh_hb"
    or "hb_bh", confirmed on the numbers, round 41): the fold lines, when every fold the class shows is in the
    order the numbers name, and the unfold lines in the other order, when the class shows any; None when it shows
    no fold, a fold in another order, or lines of several owners."""
    folded, unfolded = fold_lines(source, cls_name)
    fold_order, unfold_order = order.split("_")
    if not folded or any(f[3] != fold_order for f in folded) or len({f[1] for f in folded}) != 1:
        return None
    said = _lines_said(folded, cls_name, ("folds the heads into the batch", "把 head 并入 batch"))
    unfolded = [f for f in unfolded if f[3] == unfold_order]
    if not unfolded or len({f[1] for f in unfolded}) != 1:
        return said
    back = _lines_said(unfolded, cls_name, ("unfolds them", "把它们拆开"))
    return msg(f"{said['en']}; {back['en']}", f"{said['zh']}；{back['zh']}")
