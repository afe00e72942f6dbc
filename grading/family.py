"""Which code of a student's file a class runs, for the hints that quote a line of it (round 31).

A hint that says "line N does it" must point at code the class really runs. ``class_family`` follows the
class's base classes, the file's classes it builds and the file's functions it calls, as round 29's did, and
also what reaches them under another name: a module-level alias (``ScaledDotProductAttention = MyAttention``,
``Attn = Head``), a local one (``attn = Head`` then ``attn()``), ``functools.partial(helper, ...)`` and a
name the file imports from itself (``from attention import helper``). It follows a name only when the file
says for sure what the name holds when that code runs: a name bound in an ``if``/``try``/loop block, by
``global``, by an import from elsewhere, or shadowed by a local variable or parameter is not followed, and
the class whose module-level name is rebound to something it cannot read has no family at all (no line is
then quoted, rather than one of a class the tests never ran). Trusted side only (the source is text here).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from grading.parsing import is_main_guard

_DEFS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)

# What binds a module-level name: a def, the value of a plain assignment, a name imported from a module (the
# ImportFrom and the alias), or None: a binding whose value cannot be read for sure.
Binding = ast.AST | tuple[ast.ImportFrom, ast.alias] | None


def _scope_nodes(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    """Every node of ``nodes`` in their own scope: a nested def, class or lambda is given (it binds its name)
    with what runs where it stands (decorators, default values, bases), never its body; a comprehension's
    parts are given (its loop names are counted with the scope's: shadowing is then over-counted, never
    missed)."""
    todo = list(reversed(nodes))
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, _FUNCTIONS):
            outside: list[ast.AST] = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None),
                                      *getattr(node, "decorator_list", [])]
        elif isinstance(node, ast.ClassDef):
            outside = [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
        else:
            outside = list(ast.iter_child_nodes(node))
        todo.extend(reversed(outside))


def _bound_in(nodes: list[ast.AST]) -> list[str]:
    """The names ``nodes`` bind in their own scope, once per binding."""
    names: list[str] = []
    for node in _scope_nodes(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.append(node.id)
        elif isinstance(node, _DEFS):
            names.append(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.extend((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.append(node.name)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            names.append(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.append(node.rest)
    return names


def _module_bindings(tree: ast.Module) -> dict[str, list[tuple[int, Binding]]]:
    """Module-level name -> (line, binding) in order. A statement of the main guard does not run when the
    tests import the file; a binding inside another block may not run (None), nor one by ``global``."""
    found: dict[str, list[tuple[int, Binding]]] = {}

    def bind(name: str, line: int, value: Binding) -> None:
        found.setdefault(name, []).append((line, value))

    for node in tree.body:
        if is_main_guard(node):           # its body does not run when the tests import the file; its else does
            for name in _bound_in(node.orelse):
                bind(name, node.lineno, None)
            continue
        if isinstance(node, _DEFS):
            bind(node.name, node.lineno, node)
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            for target in node.targets:
                bind(target.id, node.lineno, node.value)
            for name in _bound_in([node.value]):         # a walrus in the value
                bind(name, node.lineno, None)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            bind(node.target.id, node.lineno, node.value)
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                bind(a.asname or a.name, node.lineno, (node, a))
        else:
            for name in _bound_in([node]):
                bind(name, node.lineno, None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            for name in node.names:
                bind(name, node.lineno, None)
    return found


@dataclass
class _Scope:
    """A function's (or a class body's) local names, and those of them that are sure aliases of a module-level
    name (bound once, by ``name = Other`` or ``name = functools.partial(Other, ...)``)."""

    local: set[str]
    aliases: dict[str, str] = field(default_factory=dict)
    is_class: bool = False


@dataclass
class _File:
    bindings: dict[str, list[tuple[int, Binding]]]
    partials: set[str]              # names that are functools.partial (``partial``, ``ft.partial`` as "ft.")
    module: str | None

    def partial_target(self, node: ast.AST) -> str | None:
        """The name ``functools.partial(name, ...)`` wraps, or None when ``node`` is no such call."""
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name)):
            return None
        f = node.func
        if (isinstance(f, ast.Name) and f.id in self.partials) or (
                isinstance(f, ast.Attribute) and f.attr == "partial" and isinstance(f.value, ast.Name)
                and f"{f.value.id}." in self.partials):
            return node.args[0].id
        return None

    def alias_target(self, value: ast.AST) -> str | None:
        """The name a plain alias or a partial of one runs."""
        return value.id if isinstance(value, ast.Name) else self.partial_target(value)

    def resolve(self, name: str, before: int | None, seen: frozenset[str] = frozenset(),
                instances: bool = False) -> ast.AST | None:
        """The class or function definition module-level ``name`` holds: at line ``before`` (code that runs
        where it stands, a base class), or once the file is loaded (None: code in a function body). With
        ``instances``, also the class of an instance the name holds (``_core = Core()``: calling ``_core`` or
        reading its methods runs Core's code); a function's result is never followed. None when the file does
        not say for sure."""
        entries = self.bindings.get(name)
        if not entries or name in seen or any(value is None for _, value in entries):
            return None
        if before is not None:
            entries = [e for e in entries if e[0] < before]
            if not entries:
                return None
        line, value = entries[-1]           # the binding the name holds then
        if isinstance(value, _DEFS):
            return value
        if isinstance(value, tuple):        # from attention import helper: the file's own helper
            node, alias = value
            if node.level == 0 and self.module is not None and node.module == self.module:
                return self.resolve(alias.name, line, seen | {name})
            return None
        target = self.alias_target(value)
        if target is not None:
            return self.resolve(target, line, seen | {name}, instances)
        if instances and isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            built = self.resolve(value.func.id, line, seen | {name})
            return built if isinstance(built, ast.ClassDef) else None
        return None


def _partial_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(f"{a.asname or a.name}." for a in node.names if a.name == "functools")
        elif isinstance(node, ast.ImportFrom) and node.module == "functools" and node.level == 0:
            names.update(a.asname or a.name for a in node.names if a.name == "partial")
    return names


def _scope_of(node: ast.AST, file: _File) -> _Scope:
    """The local names of a function or class body, and the sure aliases among a function's."""
    if isinstance(node, ast.ClassDef):
        return _Scope(set(_bound_in(node.body)), is_class=True)
    body = node.body if isinstance(node.body, list) else [node.body]
    a = node.args
    params = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x))]
    bound = _bound_in(body)
    scope = _Scope(set(params) | set(bound))
    for stmt in _scope_nodes(body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name, target = stmt.targets[0].id, file.alias_target(stmt.value)
            if target is not None and name not in params and bound.count(name) == 1 and target not in scope.local:
                scope.aliases[name] = target
    return scope


# How code reaches a module-level name (``_names_run``): it runs it (calls it, builds it, wraps it in
# functools.partial, bases a class on it), reads an attribute off it (``Ops.normalise``, ``_core.attend``) or
# only passes it on (``self.attention = _shared``): the last two reach a class's code only through a class, or an
# instance of one, that the name holds.
RUN, ATTRIBUTE, LOAD = "run", "attribute", "load"


def _names_run(top: ast.AST, file: _File) -> list[tuple[str, int | None, str]]:
    """(module-level name, the line before which its binding is read or None, how: RUN, ATTRIBUTE or LOAD) of
    each name the code of ``top`` (a top-level class or function, or a member of a class) runs, reads an
    attribute off or passes on, in order."""
    found: list[tuple[str, int | None, str]] = []

    def module_name(name: str, chain: list[_Scope], at: int | None) -> tuple[str, int | None] | None:
        for scope in reversed(chain):
            if name in scope.local:          # a local name: followed only as a sure alias of a module-level one
                target = scope.aliases.get(name)
                return None if target is None else (target, None)
        return name, at

    def add(name: str, chain: list[_Scope], at: int | None, how: str = RUN) -> None:
        if (ref := module_name(name, chain, at)) is not None:
            found.append((*ref, how))

    # (node, enclosing scopes, line before which module-level names are read: None inside a function body)
    todo: list[tuple[ast.AST, list[_Scope], int | None]] = [(top, [], top.lineno)]
    while todo:
        node, chain, at = todo.pop()
        if isinstance(node, _FUNCTIONS):
            outside = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            todo.extend((d, chain, at) for d in reversed(outside))
            inner = [s for s in chain if not s.is_class] + [_scope_of(node, file)]   # a class body encloses no method
            body = node.body if isinstance(node.body, list) else [node.body]
            todo.extend((s, inner, None) for s in reversed(body))
            continue
        if isinstance(node, ast.ClassDef):
            for base in node.bases if node is not top else ():   # top's bases: read member by member
                if isinstance(base, ast.Name):
                    add(base.id, chain, node.lineno if at is not None else None)
            todo.extend((s, [*chain, _scope_of(node, file)], at) for s in reversed(node.body))
            continue
        read = None                          # the name just followed: not a LOAD of its own as well
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                add(node.func.id, chain, at)
                read = node.func
            if (wrapped := file.partial_target(node)) is not None:
                add(wrapped, chain, at)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            add(node.value.id, chain, at, ATTRIBUTE)
            read = node.value
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            add(node.id, chain, at, LOAD)
        todo.extend((child, chain, at) for child in reversed(list(ast.iter_child_nodes(node))) if child is not read)
    return found


def _member_names(stmt: ast.stmt) -> list[str]:
    """The class attributes a statement of a class body defines (a method, ``name = ...``)."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [stmt.name]
    if isinstance(stmt, ast.Assign | ast.AnnAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return [t.id for t in targets if isinstance(t, ast.Name)]
    return []


def _reached(nodes: list[ast.AST], bases: set[str]) -> tuple[set[str], set[str], bool]:
    """What ``nodes`` read of their objects: the attribute names (and string constants: ``getattr(self, "f")``),
    those read past an override (on ``super()`` or on a base class by name, ``Base.f(self)``), and whether
    they read attributes by computed names (then any member may run)."""
    names: set[str] = set()
    past: set[str] = set()
    computed = False
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Attribute):
                names.add(n.attr)
                v = n.value
                if (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super") or (
                        isinstance(v, ast.Name) and v.id in bases):
                    past.add(n.attr)
                computed |= n.attr == "__dict__"
            elif isinstance(n, ast.Constant) and isinstance(n.value, str):
                names.add(n.value)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "vars") \
                    and not (len(n.args) >= 2 and isinstance(n.args[1], ast.Constant)):
                computed = True
    return names, past, computed


# The members of an nn.Module that run without the file naming them: the tests call forward (through __call__)
# and eval() (which calls train(False)); nn.Linear's __init__ calls reset_parameters, printing calls extra_repr.
_CALLED_FOR_IT = frozenset({"forward", "eval", "train", "reset_parameters", "extra_repr"})


def _runs(name: str, below: frozenset[str], names: set[str], past: set[str], computed: bool) -> bool:
    """Whether a class's member ``name`` runs: Python calls the dunders, torch and the tests those of
    ``_CALLED_FOR_IT``, the code calls the rest by name; a member a class below defines again runs only when read
    past the override."""
    if name in past:
        return True
    if name in below:
        return False
    return (name.startswith("__") and name.endswith("__")) or name in _CALLED_FOR_IT or name in names or computed


def _reach(file: _File, name: str, at: int | None, how: str) -> ast.AST | None:
    """The class or function a name reached ``how`` (``_names_run``) brings into the code that runs."""
    found = file.resolve(name, at, instances=True)
    if how == RUN or isinstance(found, ast.ClassDef) and (how == ATTRIBUTE or file.resolve(name, at) is None):
        return found
    return None


def holder(tree: ast.Module, cls_name: str, module: str | None = None) -> str | None:
    """The name of the class module-level ``cls_name`` holds once the file is loaded (itself, or the class it is
    an alias of), or None when the file does not say for sure."""
    try:
        start = _File(_module_bindings(tree), _partial_names(tree), module).resolve(cls_name, None)
    except RecursionError:
        return None
    return start.name if isinstance(start, ast.ClassDef) else None


def class_family(tree: ast.Module, cls_name: str, module: str | None = None) -> list[tuple[str, ast.AST]]:
    """(owner, node) of the code class ``cls_name`` runs: the class ``cls_name`` holds once the file is loaded
    first (itself, or the class it is an alias of: then said with that class's own name), then the file's
    classes it builds (``self.core = Core()``, a ModuleList of ``Head(...)``), those whose instances it uses
    (``_core = Core()`` at module level, then ``_core(x)`` or ``_core.attend(x)``) or whose attributes it reads
    (``Ops.normalise(s)``), and the file's top-level functions it calls (and theirs in turn), by their own names
    or through sure aliases, ``functools.partial`` and imports of ``module`` (the name the tests import the file
    as), each once. A class is read member by member, its base classes the file defines too: only the members
    that run (the dunders and ``forward``, which Python and the tests call, and those the code reads by name),
    not one a class below overrides (unless read through ``super()``); a statement of a class body that defines
    no member runs with the class statement. A line a hint shows is found in the class or function that does it,
    and said with its name. Empty when the file does not say for sure which class ``cls_name`` is."""
    try:
        file = _File(_module_bindings(tree), _partial_names(tree), module)
        start = file.resolve(cls_name, None)
        if not isinstance(start, ast.ClassDef):
            return []
        found: list[tuple[str, ast.AST]] = []
        taken: set[int] = set()
        # each class whose members may run, with the member names the classes below it define (none for a class
        # reached itself, not only as a base), and the names of the bases (read past an override: Base.f(self))
        classes: list[tuple[ast.ClassDef, frozenset[str]]] = []
        bases: set[str] = set()
        queue: list[ast.AST] = [start]

        def take(owner: str, node: ast.AST) -> None:
            taken.add(id(node))
            found.append((owner, node))
            queue.extend(d for name, at, how in _names_run(node, file) if (d := _reach(file, name, at, how)) is not None)

        def add_class(cls: ast.ClassDef, below: frozenset[str]) -> None:
            classes.append((cls, below))
            below = below | {n for stmt in cls.body for n in _member_names(stmt)}
            for base in cls.bases:
                b = file.resolve(base.id, cls.lineno) if isinstance(base, ast.Name) else None
                if isinstance(b, ast.ClassDef) and all(b is not c for c, _ in classes):
                    bases.add(b.name)
                    add_class(b, below)

        while True:
            while queue:
                node = queue.pop(0)
                if id(node) in taken:
                    continue
                if not isinstance(node, ast.ClassDef):
                    take(node.name, node)
                    continue
                taken.add(id(node))
                if any(node is c for c, _ in classes):     # a base reached itself too: all it defines may run
                    classes[:] = [(c, frozenset() if c is node else b) for c, b in classes]
                else:
                    add_class(node, frozenset())
                for stmt in node.body:                     # what runs with the class statement (not a docstring)
                    if not _member_names(stmt) and not isinstance(stmt, ast.Pass) and not (
                            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                        take(node.name, stmt)
            names, past, computed = _reached([n for _, n in found], bases)
            before = len(found)
            for cls, below in classes:
                for stmt in cls.body:
                    members = _member_names(stmt)
                    if id(stmt) not in taken and members and any(_runs(m, below, names, past, computed)
                                                                 for m in members):
                        take(cls.name, stmt)
            if len(found) == before and not queue:    # a member taken may call another: read again until none is
                return found
    except RecursionError:
        return []
