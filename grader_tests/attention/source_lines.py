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

from grading.family import class_family, holder
from grading.i18n import Msg, msg
from grading.load_hints import where_in

_SHOWN = 60          # longest code quoted as it is written
MODULE = "attention"  # the name the tests import the file as (suite.SUITE.module_name): ``from attention import f``


@functools.lru_cache(maxsize=4)
def tree_of(source: str) -> ast.Module | None:
    """The source's tree, parsed once per grading however many hints read it (None: it does not parse)."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


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
                if (alias := _self_attr(value)) is not None:
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


def out_proj_twice_note(source: str | None, cls_name: str) -> Msg | None:
    """For an output that is out_proj(out_proj(heads merged)) (confirmed on the numbers): where the code applies
    the output projection to a result of the output projection, on one line (``self.dense(self.dense(x))``) or on
    two (``out = F.linear(out, self.out_proj.weight, ...)`` then ``self.out_proj(out)``), when it does so exactly
    once; None otherwise (two branches each applying it once are no second application)."""
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
    found: set[tuple[int, str, str, tuple[int, str, str] | None]] = set()
    for owner, fn in members:
        if not isinstance(fn, ast.FunctionDef):
            continue
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
                    found.add((call.lineno, owner, _code(source, call), first))
                elif read:
                    found.add((call.lineno, owner, _code(source, call), read[0]))
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                if _applies(stmt.value, names, tree_names, own):
                    applied[stmt.targets[0].id] = (stmt.lineno, owner, _code(source, stmt.value))
                else:
                    applied.pop(stmt.targets[0].id, None)
    if len(found) != 1:
        return None
    ((line, owner, code, first),) = found
    at = where_in(line, owner, cls_name)
    if first is None:
        return msg(f"{at['en']} applies the output projection to its own result: {code}",
                   f"{at['zh']}把输出投影作用在了它自己的结果上：{code}")
    before = where_in(first[0], first[1], cls_name)
    return msg(f"{before['en']} applies the output projection ({first[2]}) and {at['en']} applies it again to that "
               f"result ({code})",
               f"{before['zh']}应用了输出投影（{first[2]}），{at['zh']}又对其结果再次应用（{code}）")


def _head_mean(call: ast.Call, names: dict[str, str]) -> bool | None:
    """A mean over dim 1, the heads of [B, H, Nq, Nk] (``w.mean(dim=1)``, ``torch.mean(w, 1)``), or einops'
    ``reduce(w, "b h i j -> b i j", "mean")`` dropping the second axis."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "mean" and dotted_path(call.func, names) is None:
        dims = [k.value for k in call.keywords if k.arg == "dim"] + call.args[:1]
        return True if len(dims) == 1 and _int(dims[0]) == 1 else None
    if dotted_path(call.func, names) == "torch.mean":
        dims = [k.value for k in call.keywords if k.arg == "dim"] + call.args[1:2]
        return True if len(dims) == 1 and _int(dims[0]) == 1 else None
    if isinstance(call.func, ast.Name) and call.func.id == "reduce" and len(call.args) == 3 \
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args[1:]) \
            and call.args[2].value == "mean":
        left, _, right = call.args[1].value.partition("->")
        axes, kept = left.split(), right.split()
        return True if len(axes) == 4 and axes[1] not in kept and axes[:1] + axes[2:] == kept else None
    return None


def head_mean_note(source: str | None, cls_name: str) -> Msg | None:
    """For weights averaged over the heads (confirmed on the numbers): the one line of the class that takes a mean
    over dim 1, the heads' axis, quoted; None when there is no such line or more than one."""
    calls = _own_first(_calls(source, cls_name, _head_mean), source, cls_name)
    if len(calls) != 1:
        return None
    line, owner, code, _ = calls[0]
    at = where_in(line, owner, cls_name)
    return msg(f"{at['en']} averages over dim 1, the heads of [B, H, Nq, Nk]: {code}",
               f"{at['zh']}沿 dim 1 取平均，即 [B, H, Nq, Nk] 中的 head 轴：{code}")


def _query_axis_shape(node: ast.AST, names: dict[str, str]) -> bool:
    """``node`` lays a [B, N] mask out as [B, 1, N, 1]: ``m[:, None, :, None]``, ``m.unsqueeze(1).unsqueeze(-1)``
    (either order) or einops' ``rearrange(m, "b j -> b 1 j 1")``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 4:
        e = node.slice.elts
        full = [isinstance(x, ast.Slice) and x.lower is None and x.upper is None and x.step is None for x in e]
        none = [isinstance(x, ast.Constant) and x.value is None for x in e]
        return full[0] and none[1] and full[2] and none[3]
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr == "unsqueeze" and len(node.args) == 1 \
            and isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Attribute) \
            and f.value.func.attr == "unsqueeze" and len(f.value.args) == 1:
        return (_int(f.value.args[0]), _int(node.args[0])) in ((1, -1), (1, 3), (-1, 1), (2, 1))
    if isinstance(f, ast.Name) and f.id == "rearrange" and len(node.args) == 2 \
            and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        left, _, right = node.args[1].value.partition("->")
        axes, out = left.split(), right.split()
        return len(axes) == 2 and out == [axes[0], "1", axes[1], "1"]
    return False


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


def query_axis_pad_note(source: str | None, cls_name: str) -> Msg | None:
    """For a padding mask on the query axis (confirmed on the numbers): the one line of the class that lays a
    [B, N] mask out as [B, 1, N, 1], quoted; None when there is no such line or more than one."""
    tree = tree_of(source) if isinstance(source, str) else None
    if tree is None:
        return None
    names = torch_names(tree)
    found = sorted({(n.lineno, owner, _query_axis_code(source, n)) for owner, node in family(source, cls_name)
                    for n in ast.walk(node) if _query_axis_shape(n, names)})
    found = _own_first([(*f, None) for f in found], source, cls_name)
    if len({f[0] for f in found}) != 1:
        return None
    line, owner, code, _ = found[0]
    at = where_in(line, owner, cls_name)
    return msg(f"{at['en']} lays the padding mask out as [B, 1, N, 1], on the query axis: {code}",
               f"{at['zh']}把 padding mask 排成了 [B, 1, N, 1]，即放在 query 轴上：{code}")
