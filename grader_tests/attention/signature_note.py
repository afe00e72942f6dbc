"""The result's one note on the constructors (the Suite's ``result_note`` hook): when building
``ScaledDotProductAttention()`` or ``MultiHeadAttention(d_model, num_heads, head_dim=None)`` raised
``TypeError`` (31 tests each showed the raw error, 3/85, and nothing said what the grader calls), one
summary of the contract's signatures against the source's ``__init__``, d2l.ai's signature (《动手学深度学习》,
which many students copy) named as such. Read from the source with ``ast``, never executed."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Mapping

from grader_tests.attention.static import MAX_REVIEW_NODES
from grading.i18n import Msg, cat, is_msg, listed, msg
from grading.load_hints import NAME_FILLERS, abbreviates, closeness, is_main_guard, name_words
from grading.load_hints import _walk as _walk_once
from grading.load_hints import parse_source as _parse

CONTRACT = msg("ScaledDotProductAttention() (no arguments) and MultiHeadAttention(d_model, num_heads, "
               "head_dim=None)",
               "ScaledDotProductAttention()（不带参数）和 MultiHeadAttention(d_model, num_heads, head_dim=None)")
D2L_WIDTHS = ("key_size", "query_size", "value_size", "num_hiddens")
# A TypeError of the construction call itself (no line of the file: Python refused the arguments). Round 35: one
# raised inside __init__ (a line of it: super().__init__(self), a size computed as a float) or an __init__ that
# returned a value had the summary "the grader builds ScaledDotProductAttention() (no arguments)...", which reads as
# the signature's fault and is not.
_CTOR = re.compile(r"creating (ScaledDotProductAttention|MultiHeadAttention)\([^)]*\) raised TypeError: "
                   r"(?!__init__\(\) should return None)")


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """Top-level classes by name, with ``Alias = SomeClass`` assignments followed."""
    found: dict[str, ast.ClassDef] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            found[node.name] = node
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.Name) and node.value.id in found):
            found[node.targets[0].id] = found[node.value.id]
    return found


def _init_params(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], depth: int = 0
                 ) -> tuple[list[str], list[str], bool] | None:
    """(positional parameter names after self, those without a default, takes ``**kwargs``) of the
    class's own ``__init__`` (or a base's in the same file); None when the source does not show one."""
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            a = node.args
            pos = [x.arg for x in [*a.posonlyargs, *a.args]][1:]
            required = pos[: len(pos) - len(a.defaults)] if a.defaults else pos
            return pos, required, a.kwarg is not None
    if depth < 3:
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in classes and classes[base.id] is not cls:
                return _init_params(classes[base.id], classes, depth + 1)
    return None


def _feedback_texts(outcomes: Mapping[str, Mapping]) -> Iterable[str]:
    for out in outcomes.values():
        fb = out.get("feedback") if isinstance(out, Mapping) else None
        if is_msg(fb):
            yield fb["en"]
        elif isinstance(fb, str):
            yield fb


def _usual_default(name: str) -> str | None:
    """The default the contract or the usual meaning of a parameter's name gives it; None when the name does not
    tell (round 34: every first name was shown ``=0.0``, ``head_dim=0.0`` among them, where the contract says None)."""
    low = name.lower()
    if low == "head_dim":
        return "None"
    if "drop" in low:
        return "0.0"
    if low in ("bias", "qkv_bias", "use_bias"):
        return "True"
    if low in ("causal", "is_causal", "batch_first"):
        return "False"
    return None


def _defaults(names: list[str]) -> Msg:
    shown = [f"{n}={d}" for n in names if (d := _usual_default(n)) is not None]
    return msg(f"give {listed(names)} a default" + (f" ({listed(shown)})" if shown else ""),
               f"给 {listed(names, zh=True)} 设默认值" + (f"（{listed(shown)}）" if shown else ""))


def _mha_advice(pos: list[str], required: list[str], kwargs: bool) -> Msg | None:
    """What to change in the source's ``MultiHeadAttention.__init__`` for the contract's call."""
    shown = f"MultiHeadAttention.__init__({listed(pos)})"
    widths = [p for p in pos if p in D2L_WIDTHS]
    if len(widths) >= 2:
        others = [p for p in required if p not in D2L_WIDTHS and p not in ("num_heads", "d_model")]
        extra = _defaults(others) if others else None
        return msg(f"Your {shown} looks like the signature of d2l.ai (Dive into Deep Learning): replace "
                   f"{listed(widths)} by one parameter d_model (they are all the model width here), make "
                   f"num_heads the second parameter, add head_dim=None" + (f", and {extra['en']}" if extra else ""),
                   f"你的 {shown} 看起来是《动手学深度学习》(d2l.ai) 的签名：请把 {listed(widths, zh=True)} 合并成一个参数 "
                   f"d_model（这里它们都等于模型宽度），num_heads 作为第二个参数，再加上 head_dim=None"
                   + (f"，并{extra['zh']}" if extra else ""))
    if pos[:2] == ["num_heads", "d_model"]:
        return msg(f"Your {shown} takes num_heads before d_model, but the grader passes them by position in "
                   "the contract's order: swap them",
                   f"你的 {shown} 把 num_heads 放在 d_model 前面，而评分器按契约的顺序按位置传参：请交换这两个参数")
    todo: list[Msg] = []
    if len(pos) < 2:
        todo.append(msg("take d_model and num_heads", "接收 d_model 和 num_heads 两个参数"))
    if len(required) > 2:
        todo.append(_defaults(required[2:]))
    if "head_dim" not in pos and not kwargs:
        todo.append(msg("add head_dim=None (meaning d_model // num_heads)",
                        "加上 head_dim=None（表示 d_model // num_heads）"))
    if not todo:
        return None
    return msg(f"Your {shown} should " + ", and ".join(t["en"] for t in todo),
               f"你的 {shown} 应" + "，并".join(t["zh"] for t in todo))


# What the grader passes to each forward (ASSIGNMENT.md §1).
FORWARD_CONTRACT = {
    "ScaledDotProductAttention": ("q, k, v, additive_mask=None, *, return_weights=False",
                                  ("q", "k", "v", "additive_mask", "return_weights"), 3),
    "MultiHeadAttention": ("x, context=None, additive_mask=None, *, key_padding_mask=None, return_weights=False",
                           ("x", "context", "additive_mask", "key_padding_mask", "return_weights"), 1),
}
_FORWARD = re.compile(r"(ScaledDotProductAttention|MultiHeadAttention)\.forward\(\) (got an unexpected keyword "
                      r"argument|missing \d+ required|takes \d+ positional)")


def _forward_params(cls: ast.ClassDef) -> tuple[list[str], list[str], bool] | None:
    """(parameter names after self, required positional ones, takes **kwargs) of the class's forward."""
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "forward":
            a = node.args
            pos = [x.arg for x in [*a.posonlyargs, *a.args]][1:]
            required = pos[: len(pos) - len(a.defaults)] if a.defaults else pos
            return pos + [x.arg for x in a.kwonlyargs], required, a.kwarg is not None
    return None


def forward_note(source: str | None, outcomes: Mapping[str, Mapping]) -> Msg | None:
    """One summary when calling a forward with the contract's arguments raised TypeError (blog code with
    ``forward(q, k, v, mask)`` in both classes: 26 tests each showed the raw error)."""
    failed: dict[str, int] = {}
    for text in _feedback_texts(outcomes):
        m = _FORWARD.search(text)
        if m:
            failed[m.group(1)] = failed.get(m.group(1), 0) + 1
    tree = _parse(source) if isinstance(source, str) and failed else None
    if tree is None:
        return None
    classes = _classes(tree)
    details: list[Msg] = []
    for name, (shown, names, inputs) in FORWARD_CONTRACT.items():
        cls = classes.get(name)
        params = _forward_params(cls) if name in failed and cls is not None else None
        if params is None:
            continue
        pos, required, kwargs = params
        lacking = [n for n in names[1:] if n not in pos] if not kwargs else []
        problems_en, problems_zh = [], []
        if len(required) > inputs:
            problems_en.append(f"requires {len(required)} inputs ({listed(required)}) where the grader passes "
                               f"{inputs}")
            problems_zh.append(f"需要 {len(required)} 个输入（{listed(required, zh=True)}），而评分器只传 {inputs} 个")
        if lacking:
            problems_en.append(f"has no {listed(lacking)}")
            problems_zh.append(f"没有 {listed(lacking, zh=True)} 参数")
        if problems_en:
            details.append(msg(f"your {name}.forward({listed(pos)}) " + " and ".join(problems_en)
                               + f": the grader calls forward({shown})",
                               f"你的 {name}.forward({listed(pos)}) " + "，并且".join(problems_zh)
                               + f"：评分器调用的是 forward({shown})"))
    if not details:
        return None
    n = sum(failed.values())
    lead = msg(f"calling forward with the contract's arguments raised TypeError in {n} test{'s' if n != 1 else ''}",
               f"按契约的参数调用 forward 时有 {n} 项测试抛出 TypeError")
    parts = [cat(msg(": ", "："), details[0])] + [
        cat(msg(". ", "。"), msg(d["en"][:1].upper() + d["en"][1:], d["zh"])) for d in details[1:]]
    return cat(lead, *parts, msg(".", "。"))


NOTHING_DEFINED = msg("attention.py defines nothing: expected classes ScaledDotProductAttention and "
                      "MultiHeadAttention, but the file holds only comments, docstrings and imports, so no test "
                      "was run",
                      "attention.py 没有定义任何内容：应定义类 ScaledDotProductAttention 和 MultiHeadAttention，"
                      "但文件中只有注释、文档字符串和 import 语句，因此没有运行任何测试")


def _binds_nothing(node: ast.stmt, importable: frozenset[str]) -> bool:
    """A top-level statement that can define no class: a docstring or other constant expression, ``pass``,
    or an import of the standard library or of ``importable`` that binds neither contract name (a star
    import may bind anything; another package or a module of the student's own may fail to import, and
    its load error, with its hint, says more)."""
    if isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
        return True
    if isinstance(node, ast.Import | ast.ImportFrom):
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        if isinstance(node, ast.ImportFrom) and node.level:
            return False
        known = all(m.split(".")[0] in sys.stdlib_module_names or m.split(".")[0] in importable for m in modules)
        names = [a.asname or a.name.split(".")[0] for a in node.names]
        return known and "*" not in names and not set(names) & set(FORWARD_CONTRACT)
    return False


def nothing_defined(source: str | None, importable: Iterable[str] = ()) -> Msg | None:
    """The Suite's ``nothing_defined``: one message, instead of the suite's run, when the source parses and
    holds only comments, docstrings, ``pass`` and imports of the standard library or of ``importable``
    (the packages the jail has; an empty file is refused before: inputs.py). Read with ``ast``, never
    executed; None for anything else (a source that does not parse is a load error)."""
    tree = _parse(source) if source is not None else None
    known = frozenset(importable)
    if tree is None or not all(_binds_nothing(node, known) for node in tree.body):
        return None
    return NOTHING_DEFINED


# Names through which code may bind a module name without a statement that names it: a file using
# any of them is run, whatever it seems to define.
_DYNAMIC = frozenset({"globals", "locals", "vars", "setattr", "exec", "eval", "compile", "__import__", "importlib",
                      "modules", "__dict__", "__builtins__", "builtins", "__getattr__", "__class__", "__all__"})
# The largest tree whose names are read for a note: the source review's own bound (honest files: a few
# thousand nodes); past it the review says the file cannot be reviewed, and no note is given.
MAX_NOTE_NODES = MAX_REVIEW_NODES
MAX_NOTE_DEFS = 300      # top-level classes, functions and names compared with the contract's (honest: < 60)
_KIND = {ast.ClassDef: msg("class", "类"), ast.FunctionDef: msg("function", "函数"),
         ast.AsyncFunctionDef: msg("function", "函数")}


def _runs_nothing_else(node: ast.stmt, importable: frozenset[str]) -> bool:
    """A top-level statement that only defines (a function, a class, a plain name) or imports a
    package the jail has: nothing of it can fail at import in a way its load error would explain
    better than the missing classes (a top-level call, loop or ``try`` is run as usual)."""
    if _binds_nothing(node, importable):
        return True
    if isinstance(node, ast.Import | ast.ImportFrom):
        return False
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return True
    if isinstance(node, ast.Assign):
        return all(isinstance(t, ast.Name) or (isinstance(t, ast.Tuple) and all(isinstance(e, ast.Name) for e in t.elts))
                   for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name)
    return isinstance(node, ast.If) and is_main_guard(node) and not node.orelse


def _calls_at_import(node: ast.AST) -> bool:
    """Whether running ``node`` at import calls anything (a function's or a lambda's body runs later; its
    decorators and defaults, a class body and its bases run now): a call may fail (``input()``,
    ``torch.load``, ``.cuda()``) with a load error whose hint says more than the missing classes. Read with a
    stack, not recursion (round 44: a 1,400-term expression that parses was past a recursive reader's depth)."""
    todo = [node]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Call):
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            todo.extend([*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)])
        elif isinstance(node, ast.Lambda):
            todo.extend(n for n in [*node.args.defaults, *node.args.kw_defaults] if n is not None)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return False


def _mentions(tree: ast.Module) -> set[str]:
    """Every name, attribute, parameter, keyword and string (docstrings aside) the source uses."""
    nodes = _walk_once(tree)
    docs = {id(n.value) for n in nodes if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    seen: set[str] = set()
    for n in nodes:
        if isinstance(n, ast.Name):
            seen.add(n.id)
        elif isinstance(n, ast.Attribute):
            seen.add(n.attr)
        elif isinstance(n, ast.alias):
            seen.update(filter(None, (n.name, n.asname)))
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            seen.add(n.name)
        elif isinstance(n, ast.arg | ast.keyword) and n.arg:
            seen.add(n.arg)
        elif isinstance(n, ast.Global | ast.Nonlocal):
            seen.update(n.names)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            seen.add(n.value)
    return seen


def _defs(tree: ast.Module) -> list[tuple[str, int, Msg]]:
    """(name, line, kind) of the module's top-level classes, functions and assigned names, in order; read
    no further than one past ``MAX_NOTE_DEFS``."""
    found: list[tuple[str, int, Msg]] = []
    for node in tree.body:
        if len(found) > MAX_NOTE_DEFS:
            break
        if isinstance(node, tuple(_KIND)):
            found.append((node.name, node.lineno, _KIND[type(node)]))
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                # (after a load error any statement may be here: ``x[0] = ...``, ``self.w = ...``)
                found.extend((e.id, node.lineno, msg("variable", "变量"))
                             for e in (t.elts if isinstance(t, ast.Tuple) else [t]) if isinstance(e, ast.Name))
    return found


def no_contract_class(source: str | None, importable: Iterable[str] = ()) -> Msg | None:
    """One message, instead of the suite's run (every test would say "does not define ..."), when the
    source defines code but neither contract class: its top level only defines functions, classes and
    plain names and imports packages the jail has, calling nothing at import (nothing there can fail), no
    statement, name or
    string anywhere names ScaledDotProductAttention or MultiHeadAttention, and nothing binds names
    another way (globals(), setattr, exec, sys.modules, a module ``__getattr__`` ...). The message names
    what the file defines, and a class or function whose name is a typo or a shortening of a contract
    name (``MultiheadAttention``, ``ScaledDotProductAttn``) as that name's likely stand-in. Read with
    ``ast``, never executed; None for anything else (that file is run as usual)."""
    tree = _parse(source) if source is not None else None
    known = frozenset(importable)
    if tree is None or not tree.body or not all(_runs_nothing_else(n, known) for n in tree.body):
        return None
    if any(_calls_at_import(n) for n in tree.body if not (isinstance(n, ast.If) and is_main_guard(n))):
        return None
    head = msg("attention.py defines neither ScaledDotProductAttention nor MultiHeadAttention, so no test was run",
               "attention.py 既没有定义 ScaledDotProductAttention，也没有定义 MultiHeadAttention，因此没有运行任何测试")
    return _names_note(tree, head)


def load_note(source: str | None) -> Msg | None:
    """After a load error (a demo at the top level that raised, a GPU asked for), what the source shows
    about the contract's names, when it defines neither class: the same account as ``no_contract_class``
    (what it defines, the near names), so that fixing the load error is not followed by 31 "does not
    define" failures. Read with ``ast``, never executed; None when the source may define them."""
    tree = _parse(source) if source is not None else None
    if tree is None or not tree.body:
        return None
    head = msg("Besides, attention.py defines neither ScaledDotProductAttention nor MultiHeadAttention",
               "此外，attention.py 既没有定义 ScaledDotProductAttention，也没有定义 MultiHeadAttention")
    return _names_note(tree, head)


def names_note(source: str | None, outcomes: Mapping[str, Mapping]) -> Msg | None:
    """A file that loaded (its top level calls code, so it was run) but defines neither contract class: every
    test failed on a missing name, each saying which; one summary of what the file defines instead, as
    ``no_contract_class`` gives a file that is not run. None when some test passed or the source may define them."""
    if not outcomes or any(isinstance(o, Mapping) and o.get("outcome") == "passed" for o in outcomes.values()):
        return None
    tree = _parse(source) if source is not None else None
    if tree is None or not tree.body:
        return None
    return _names_note(tree, msg("attention.py defines neither ScaledDotProductAttention nor MultiHeadAttention, so "
                                 "no test could run",
                                 "attention.py 既没有定义 ScaledDotProductAttention，也没有定义 MultiHeadAttention，"
                                 "因此没有一项测试能够运行"))


def nothing_tested(source: str | None, outcomes: Mapping[str, Mapping]) -> Msg | None:
    """The Suite's ``nothing_tested``: the file ran, no test passed, and tests found neither contract class (some
    said "does not define ScaledDotProductAttention", some "... MultiHeadAttention": seen at run time, not read from
    the source). The names note (what the file defines instead), else that head with the tests' own hint on a
    missing name (the class under the main guard); None otherwise."""
    if not outcomes or any(isinstance(o, Mapping) and o.get("outcome") == "passed" for o in outcomes.values()):
        return None
    texts = list(_feedback_texts(outcomes))
    if not all(any(f"does not define {c}" in t for t in texts) for c in FORWARD_CONTRACT):
        return None
    note = names_note(source, outcomes)
    if note is not None:
        return note
    head = msg("attention.py defines neither ScaledDotProductAttention nor MultiHeadAttention, so no test could run",
               "attention.py 既没有定义 ScaledDotProductAttention，也没有定义 MultiHeadAttention，因此没有一项测试能够运行")
    # one hint per missing class (round 34: both classes under the main guard were told of the first only)
    hints: dict[str, Msg] = {}
    for out in outcomes.values():
        fb = out.get("feedback") if isinstance(out, Mapping) else None
        if is_msg(fb) and fb["en"].startswith("attention.py does not define ") and " Hint: " in fb["en"] \
                and "提示：" in fb["zh"]:
            name = fb["en"].removeprefix("attention.py does not define ").split(".", 1)[0]
            hints.setdefault(name, msg(fb["en"].split(" Hint: ", 1)[1], fb["zh"].split("提示：", 1)[1]))
    if hints:
        told = [hints[c] for c in FORWARD_CONTRACT if c in hints]
        return cat(head, msg(". Hint: ", "。提示："), cat(*told, sep=msg(" ", "")))
    return cat(head, msg(". The lab asks for two classes with exactly these names, class ScaledDotProductAttention"
                         "(nn.Module) and class MultiHeadAttention(nn.Module) (see the assignment).",
                         "。本实验要求定义两个名字完全一致的类：class ScaledDotProductAttention(nn.Module) 和 "
                         "class MultiHeadAttention(nn.Module)（见作业说明）。"))


def missing_class_note(source: str | None, outcomes: Mapping[str, Mapping]) -> Msg | None:
    """Some tests passed, and others failed because the file does not define one contract class, which the
    source names nowhere: the class that stands in for it, when one does (``_names_note``: a typo, an
    abbreviation, or ``Attention`` whose signatures are the contract's, which the per-test hint cannot see)."""
    texts = list(_feedback_texts(outcomes))
    missing = tuple(c for c in FORWARD_CONTRACT if any(f"does not define {c}" in t for t in texts))
    passed = any(isinstance(o, Mapping) and o.get("outcome") == "passed" for o in outcomes.values())
    tree = _parse(source) if isinstance(source, str) and missing and passed else None
    if tree is None:
        return None
    shown = missing[0] if len(missing) == 1 else f"either {' or '.join(missing)}"
    return _names_note(tree, msg(f"attention.py does not define {shown}, so the tests that use "
                                 f"{'it' if len(missing) == 1 else 'them'} failed",
                                 f"attention.py 没有定义 {'、'.join(missing)}，因此用到它的测试都失败了"),
                       missing, only_near=True)


def _generic_stand_in(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> str | None:
    """The contract class a class named only "attention" (``Attention``, ``SelfAttention``,
    ``CausalSelfAttention``) stands in for, by its signatures: a forward taking q, k, v (three
    required inputs) is the single-head module; a constructor taking two sizes and a forward taking one or two
    inputs is the multi-head one. None when the name says more, or the signatures say neither."""
    if [w for w in name_words(cls.name) if w not in NAME_FILLERS] != ["attention"]:
        return None
    fwd, init = _forward_params(cls), _init_params(cls, classes)
    if fwd is None:
        return None
    if len(fwd[1]) >= 3:
        return "ScaledDotProductAttention"
    if init is not None and len(init[0]) >= 2 and 1 <= len(fwd[1]) <= 2:
        return "MultiHeadAttention"
    return None


def _signature(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> str:
    """The class's ``__init__`` and ``forward`` parameters as written, separated by NUL."""
    init, fwd = _init_params(cls, classes), _forward_params(cls)
    shown = [f"__init__({', '.join(init[0])})"] if init is not None else []
    return "\0".join([*shown, f"forward({', '.join(fwd[0]) if fwd else ''})"])   # joined per language


def _names_note(tree: ast.Module, head: Msg, contracts: tuple[str, ...] = tuple(FORWARD_CONTRACT),
                only_near: bool = False) -> Msg | None:
    """``head`` and what the module defines, when nothing in it can name or bind a contract class: no
    statement, name or string names ScaledDotProductAttention or MultiHeadAttention, and nothing binds
    names another way (globals(), setattr, exec, sys.modules, a star import, a module ``__getattr__`` ...).
    A class or function whose name is a typo or a shortening of a contract name (``MultiheadAttention``,
    ``ScaledDotProductAttn``), a class whose name abbreviates it (``MHA``, ``SDPA``, ``ScaledDotAttention``,
    ``MultiHeadSelfAttention``: ``load_hints.abbreviates``), or a class named only "attention" whose
    signatures are the contract's (``_generic_stand_in``, shown) is named as its likely stand-in. Only
    ``contracts`` are looked for; with ``only_near``, None when none has a stand-in.
    None, unread, past ``MAX_NOTE_DEFS`` top-level names or ``MAX_NOTE_NODES`` nodes: the note is computed
    in the worker, outside every limit of the jail (a 255 KiB file of 7,000 near names cost ~0.5 s of its
    CPU), and a stand-in picked among thousands of names would be a guess."""
    defs = _defs(tree)
    if not defs or len(defs) > MAX_NOTE_DEFS or len(_walk_once(tree)) > MAX_NOTE_NODES:
        return None
    mentioned = _mentions(tree)
    if mentioned & _DYNAMIC or "*" in mentioned or any(c in text for text in mentioned for c in contracts):
        return None
    classes = _classes(tree)
    nodes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    near: list[tuple[str, int, Msg, str]] = []
    for contract in contracts:
        scored = []
        for n, line, kind in defs:
            if kind["en"] == "variable" or any(n == m for m, *_ in near):
                continue
            score, sig = closeness(n, contract), ""
            if not score and n in nodes and abbreviates(n, contract):
                score = 0.5
            elif not score and n in nodes and _generic_stand_in(nodes[n], classes) == contract:
                # named for its signatures, which the message shows: what was seen, not a guess
                score, sig = 0.4, _signature(nodes[n], classes)
            if score:
                scored.append((score, n, line, kind, sig))
        best = max((t[0] for t in scored), default=0.0)
        top = [t for t in scored if t[0] == best]
        if len(top) == 1:       # two equally likely stand-ins: neither is named (a guess)
            near.append((top[0][1], top[0][2], top[0][3], contract, top[0][4]))
    if near:
        case = any(n.lower() == c.lower() for n, _, _, c, _ in near)
        case_en, case_zh = (" (Python names are case-sensitive)", "（Python 的名字区分大小写）") if case else ("", "")
        en = ", and ".join(f"{n} ({kind['en']}, line {line}{', with the signatures ' + sig.replace(chr(0), ' and ') if sig else ''}) where the "
                           f"class {c} is expected" for n, line, kind, c, sig in near)
        zh = "，以及".join(f"{kind['zh']} {n}（第 {line} 行{'，签名为 ' + sig.replace(chr(0), ' 和 ') if sig else ''}），而应为类 {c}"
                          for n, line, kind, c, sig in near)
        func = any(kind["en"] == "function" for _, _, kind, _, _ in near)
        return cat(head, msg(f". It defines {en}: the tests look up these exact names{case_en}. Rename "
                             f"{'it' if len(near) == 1 else 'them'}" + (", and write a class (nn.Module), not a function"
                                                                       if func else "") + ".",
                             f"。文件定义的是{zh}：测试按确切的名字查找{case_zh}。请改名"
                             + ("，并写成类（nn.Module）而不是函数" if func else "") + "。"))
    if only_near:
        return None
    shown = defs[:6]
    more = len(defs) - len(shown)
    en = ", ".join(f"{kind['en']} {n}" for n, _, kind in shown) + (f" and {more} more" if more else "")
    zh = "、".join(f"{kind['zh']} {n}" for n, _, kind in shown) + (f" 等另外 {more} 个" if more else "")
    return cat(head, msg(f". It defines only {en}. The lab asks for two classes with exactly these names, "
                         "class ScaledDotProductAttention(nn.Module) and class MultiHeadAttention(nn.Module) "
                         "(see the assignment). Helper functions may stay beside them.",
                         f"。文件中只定义了{zh}。本实验要求定义两个名字完全一致的类："
                         "class ScaledDotProductAttention(nn.Module) 和 class MultiHeadAttention(nn.Module)"
                         "（见作业说明）。辅助函数可以保留在它们旁边。"))


def result_note(source: str | None, outcomes: Mapping[str, Mapping]) -> Msg | None:
    """The Suite's ``result_note``: the constructor summary, the forward summary and the names summary, when
    they apply."""
    notes = [n for n in (constructor_note(source, outcomes), forward_note(source, outcomes),
                         names_note(source, outcomes), missing_class_note(source, outcomes)) if n is not None]
    return cat(*notes, sep=" ") if notes else None


def constructor_note(source: str | None, outcomes: Mapping[str, Mapping]) -> Msg | None:
    """One summary when the suite could not build the classes with the contract's arguments.

    Fires when a test's feedback says building ``ScaledDotProductAttention()`` or
    ``MultiHeadAttention(...)`` raised TypeError, or when the source's ``MultiHeadAttention.__init__``
    takes ``num_heads`` before ``d_model`` (the grader passes them by position, so nothing raises)."""
    failed: dict[str, int] = {}
    for text in _feedback_texts(outcomes):
        m = _CTOR.search(text)
        if m:
            failed[m.group(1)] = failed.get(m.group(1), 0) + 1
    tree = _parse(source) if isinstance(source, str) else None
    classes = _classes(tree) if tree is not None else {}
    mha = classes.get("MultiHeadAttention")
    mha_params = _init_params(mha, classes) if mha is not None else None
    swapped = bool(mha_params and mha_params[0][:2] == ["num_heads", "d_model"])
    if not failed and not swapped:
        return None
    details: list[Msg] = []
    if mha_params is not None and ("MultiHeadAttention" in failed or swapped):
        advice = _mha_advice(*mha_params)
        if advice is not None:
            details.append(advice)
    sdpa = classes.get("ScaledDotProductAttention")
    sdpa_params = _init_params(sdpa, classes) if sdpa is not None else None
    if sdpa_params is not None and "ScaledDotProductAttention" in failed and sdpa_params[1]:
        d = _defaults(sdpa_params[1])
        details.append(msg(f"ScaledDotProductAttention is built without arguments: {d['en']}",
                           f"ScaledDotProductAttention 构造时不带参数：请{d['zh']}"))
    n = sum(failed.values())
    if failed:
        lead = msg(f"building {' and '.join(failed)} with the contract's arguments raised TypeError in {n} "
                   f"test{'s' if n != 1 else ''}: the grader builds {CONTRACT['en']}",
                   f"按契约的参数构造 {' 和 '.join(failed)} 时有 {n} 项测试抛出 TypeError：评分器构造的是 {CONTRACT['zh']}")
    else:
        lead = msg(f"the grader builds {CONTRACT['en']}", f"评分器构造的是 {CONTRACT['zh']}")
    return cat(lead, *[cat(msg(". ", "。"), d) for d in details], msg(".", "。"))
