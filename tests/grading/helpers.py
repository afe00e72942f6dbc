"""Helpers of the grading tests, imported as a module (fixtures stay in conftest.py)."""

from __future__ import annotations

import ast
import difflib
import re
import resource
import time
from pathlib import Path

SUBMISSIONS = Path(__file__).resolve().parent.parent / "fixtures" / "submissions"

# Totals without an audit of faulty files the reliability tests submit in bursts. The fast lane
# (test_grading.py) checks them against the grader, so a rubric change that moves them fails there,
# in minutes, and not only in the slow lane's burst tests.
PINNED_TOTALS = {"no_scale": 34, "qk_swapped": 25, "padding_polarity": 72, "mask_2d_only": 58, "no_mha": 55}


def fault_texts() -> list[tuple[str, dict]]:
    """(key, text) of every name the feedback gives a mistake: ``FAULTS``, and ``ON_OUTPUT``'s wording of the same
    mistakes for the tests that see only an output (round 31). A check that no other mistake is named reads both."""
    from grader_tests.attention.diagnose import FAULTS, ON_OUTPUT
    from grader_tests.attention.folds import FOLDS

    # round 39: heads folded into the batch and unfolded in the other order (folds.py), "heads_fold_bh_hb"
    return [*FAULTS.items(), *ON_OUTPUT.items(), *((f"heads_fold_{k}", t) for k, t in FOLDS.items())]


def named_faults(feedback: dict) -> set[str]:
    """The keys of the mistakes ``feedback`` names, in English AND Chinese."""
    return {key for key, text in fault_texts() if text["en"] in feedback["en"] and text["zh"] in feedback["zh"]}


CODE_CATEGORIES = ("formula_shape", "implementation", "mask_parity")


def code_score(result: dict) -> float:
    """The points of the code categories (of 85; the audit left out)."""
    return sum(result["categories"][c]["score"] for c in CODE_CATEGORIES)


def failed_tests(result: dict) -> dict[str, dict]:
    """test id -> feedback of every test that did not pass."""
    return {t["id"]: t["feedback"] for t in result["tests"] if t["outcome"] != "passed"}


def declared_diagnoses(path: Path) -> list[str]:
    """The diagnoses a bug file declares: the first must be named; none other may be."""
    for line in path.read_text(encoding="utf-8").splitlines()[:5]:
        if line.startswith("# diagnosis:"):
            return line.split(":", 1)[1].split()
    return []


def named_in(result: dict) -> dict[str, set[str]]:
    """fault key -> ids of the tests whose feedback names it, in English AND Chinese."""
    from grading.i18n import is_msg

    named: dict[str, set[str]] = {}
    for t in result["tests"]:
        fb = t["feedback"]
        if t["outcome"] == "passed" or not is_msg(fb):
            continue
        for key in named_faults(fb):
            named.setdefault(key, set()).add(t["id"])
    return named


def changed_lines(correct: str, twin: str) -> list[str]:
    """The lines of ``twin``'s code (its three header lines left out) that differ from ``correct``'s."""
    body = twin.splitlines()[3:]
    return [d for d in difflib.unified_diff(correct.splitlines(), body, lineterm="", n=0)
            if d[:1] in "+-" and d[:3] not in ("+++", "---")]


def assert_twin_differs_by_one_declared_fault(name: str, twin: str) -> None:
    """``twin`` (faulty/) declares its fault in a three-line header and changes only a few lines of ``name``."""
    text = (SUBMISSIONS / "faulty" / f"{twin}.py").read_text(encoding="utf-8")
    header = text.splitlines()[:3]
    assert [h.split(":", 1)[0] for h in header] == ["# expect", "# diagnosis", "# fault"], twin
    changed = changed_lines((SUBMISSIONS / "correct" / f"{name}.py").read_text(encoding="utf-8"), text)
    # one fault: at most a few lines of the correct file changed, and some were
    assert 0 < len(changed) <= 8, (twin, changed)


def assert_twins_cover_the_rounds_styles(prefix: str, twins: dict[str, str]) -> None:
    """``twins`` names every correct file starting with ``prefix``, and each twin differs by its declared fault."""
    assert sorted(twins) == sorted(p.stem for p in (SUBMISSIONS / "correct").glob(f"{prefix}*.py"))
    for name, twin in twins.items():
        assert_twin_differs_by_one_declared_fault(name, twin)


def assert_style_gets_full_marks_with_no_review_finding(executor, name: str) -> None:
    """The correct corpus file ``name`` earns all 85 code points, fails no test and has no review finding."""
    result = graded_corpus_file(executor, SUBMISSIONS / "correct" / f"{name}.py")
    assert result["status"] == "graded", result["message"]
    assert failed_tests(result) == {} and result["review"] == [], (failed_tests(result), result["review"])
    assert code_score(result) == 85


def assert_twin_loses_points_and_is_named_as_declared(executor, twin: str) -> None:
    """``twin`` loses points in the category its header declares and is named as it declares (or never named)."""
    path = SUBMISSIONS / "faulty" / f"{twin}.py"
    result = graded_corpus_file(executor, path)
    assert result["status"] == "graded", result["message"]
    category = expected_category(path)
    assert result["categories"][category]["score"] < result["categories"][category]["max"]
    assert code_score(result) < 85
    named, declared = named_in(result), declared_diagnoses(path)
    if declared == ["none"]:    # no fault model matches it: described, never named
        assert named == {}, named
    else:
        assert declared[0] in named and set(named) <= set(declared), (declared, named)


# Corpus results by file, shared by the modules that check them (test_grading.py: points and
# categories; test_fair_corpus.py: hints and their language): grading is deterministic (checked
# there by grading files twice), and grading each of ~340 files once instead of twice saves minutes.
_CORPUS_RESULTS: dict[Path, dict] = {}
# The corpus files the collected tests will ask for, in order (tests/conftest.py sets it after the
# collection), and the process that grades them from the end (tests/grading/prefetch.py).
PLANNED: list[Path] = []
_PREFETCH: list = []


def graded_corpus_file(executor, path: Path) -> dict:
    """``path``'s result (no audit), graded with the first executor that asks for it this session, or
    by the corpus prefetch process on the other core (tests/grading/prefetch.py)."""
    from grading.runner import GradeInput, grade

    if path not in _CORPUS_RESULTS:
        prefetch = start_corpus_prefetch()
        result = prefetch.result(path) if prefetch is not None else None
        if result is None:
            result = grade(GradeInput(code=path.read_bytes()), "attention", executor)
        _CORPUS_RESULTS[path] = result
    return _CORPUS_RESULTS[path]


def graded_mutant(executor, path: Path, old: str, new: str) -> dict:
    """The grading of ``path`` with the last occurrence of ``old`` (the code's: a docstring may quote it first)
    replaced by ``new``, checked to be graded: a fault put into a correct corpus file."""
    from grading.runner import GradeInput, grade

    source = path.read_text(encoding="utf-8")
    assert old in source, old
    head, tail = source.rsplit(old, 1)
    result = grade(GradeInput(code=(head + new + tail).encode()), "attention", executor)
    assert result["status"] == "graded", result["message"]
    return result


def start_corpus_prefetch():
    """The prefetch process, started when the shared executor is (tests/conftest.py) or at the first
    request, if enough planned files are left: it grades while the tests before the corpus's run."""
    from tests.grading import prefetch

    if not _PREFETCH:
        left = [p for p in PLANNED if p not in _CORPUS_RESULTS]
        _PREFETCH.append(prefetch.CorpusPrefetch(left) if prefetch.enabled() and len(left) >= prefetch.MIN_FILES
                         else None)
    return _PREFETCH[0]


def close_corpus_prefetch() -> None:
    """End the prefetch process: nothing of its executor may be left running (tests/conftest.py).
    With AG_TEST_CORPUS_PREFETCH_REPORT=FILE, a line of what each process graded is added to FILE."""
    import json
    import os

    if not _PREFETCH or _PREFETCH[0] is None:
        return
    fetch = _PREFETCH[0]
    left = fetch.close()
    if os.environ.get("AG_TEST_CORPUS_PREFETCH_REPORT"):
        with open(os.environ["AG_TEST_CORPUS_PREFETCH_REPORT"], "a", encoding="utf-8") as f:
            f.write(json.dumps({"planned": len(fetch.paths), "graded_there": fetch.stats.get("graded"),
                                "cpu_there_s": fetch.stats.get("cpu_s"), "taken_from_there": fetch.received,
                                "graded_here": len(_CORPUS_RESULTS) - fetch.received,
                                "waited_here_s": round(fetch.waited_s, 3)}) + "\n")
    assert left == []


def syntax_error_of(source: str) -> tuple[str, int, str]:
    """What the sandbox reports for a source that does not parse: (kind, line, Python's msg)."""
    try:
        ast.parse(source)
    except SyntaxError as exc:
        return type(exc).__name__, exc.lineno, exc.msg
    raise AssertionError("the source parses")


def worker_cost(grade, *args):
    """``grade(*args)``, the CPU seconds it cost this process and its reaped children (the grading
    children: the worker's own cost, the jails' excluded) and its wall seconds."""
    def cpu() -> float:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    cpu0, t0 = cpu(), time.monotonic()
    result = grade(*args)
    return result, cpu() - cpu0, time.monotonic() - t0


def read(path: Path) -> bytes:
    return path.read_bytes()


def expected_category(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines()[:5]:
        if line.startswith("# expect:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path.name} has no '# expect: <category>' header")


# The ASCII words Chinese feedback deliberately keeps in English: the lab's technical terms, as the
# Chinese course text writes them, and code names too short or too plain to look like code.
ZH_KEPT_WORDS = frozenset({
    "softmax", "tensor", "shape", "head", "key", "query", "value", "mask", "padding", "score", "token", "batch",
    "context", "attention", "parity", "eval", "dropout", "inf", "logits", "transpose", "reshape", "view",
    "getattr", "isinstance", "import", "from", "if", "match", "self", "dim", "exp", "sqrt", "amax", "dtype",
    "torch", "numpy", "einops",
    "b", "h", "d", "q", "k", "v", "x", "dk", "dv",
})
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
# ASCII "; " or ": " joining Chinese clauses (where "；" and "：" belong)
_ASCII_SEPARATOR = re.compile(rf"(?<=[{_CJK}\])]); |; (?=[{_CJK}])|(?<=[{_CJK}]): ")
_CODE = re.compile(r"[_.()\[\]{}=/*^@<>|+\-#0-9A-Z`~\\]")


def code_names(source: str) -> frozenset[str]:
    """The names a Python source uses (variables, attributes, functions, classes, modules): feedback
    that quotes the student's code may show any of them."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.update(node.name.split("."))
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update(node.module.split("."))
    return frozenset(names)


def english_in_zh(zh: str, code: frozenset[str] = frozenset()) -> list[str]:
    """English left in a Chinese text: ASCII words that are neither code nor in ZH_KEPT_WORDS, and
    ASCII "; " or ": " between Chinese clauses. Not read: quoted strings and `code spans` (names, code), an
    exception's own message, which follows ORIGINAL_MESSAGE_ZH (or OWN_MESSAGE_ZH) up to the next "；", and the sandbox's
    English, which follows SANDBOX_ENGLISH_ZH up to the next "）". A word is code
    when it holds a digit, an upper-case letter or a character English words do not (``q_proj``,
    ``MultiHeadAttention``, ``softmax(...)``, ``[B,H,Nq,Nk]``, ``1e-05``), or when it is one of the
    names in ``code`` (``code_names`` of the student's source: ``torch``, ``fn``)."""
    from grading.proxy import ORIGINAL_MESSAGE_ZH, OWN_MESSAGE_ZH, SANDBOX_ENGLISH_ZH

    # a character the message quotes ('；', '（'), which may be the full-width "；" the original's end is read by
    text = re.sub(r"'[^'\s]{1,2}'", "", zh)
    text = re.sub(re.escape(ORIGINAL_MESSAGE_ZH) + "[^；]*", "", text)
    text = re.sub(re.escape(OWN_MESSAGE_ZH) + "[^；]*", "", text)     # the code's own message, quoted
    text = re.sub(re.escape(SANDBOX_ENGLISH_ZH) + "[^）]*", "", text)     # the sandbox's words, quoted
    text = re.sub(r"`[^`]*`", "", text)                    # code spans: code as written
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "", text)
    found = [f"separator {m.group()!r} in ...{text[max(0, m.start() - 12):m.end() + 6]}..."
             for m in _ASCII_SEPARATOR.finditer(text)]
    for token in re.findall(r"[!-~]+", text):
        word = token.strip(",;:.!?")
        if word and not _CODE.search(word) and word not in ZH_KEPT_WORDS and word not in code:
            found.append(word)
    return found


def grade_stored(executor, code: str) -> dict:
    """``code``'s result (attention, no audit), checked to serialise as the worker stores it and the
    CLI prints it (no NaN)."""
    import json

    from grading.runner import GradeInput, grade

    result = grade(GradeInput(code=code.encode()), "attention", executor)
    json.dumps(result, allow_nan=False)
    return result


def in_forward(base: str, body: str) -> str:
    """``base`` whose single-head forward first runs ``body`` (statements; ``q`` is the query)."""
    lines = "".join("    " + line + "\n" for line in body.strip("\n").splitlines())
    return base + f'''
_honest_forward = ScaledDotProductAttention.forward
def _attacked(self, q, *a, **k):
{lines}    return _honest_forward(self, q, *a, **k)
ScaledDotProductAttention.forward = _attacked
'''


def on_results(base: str, body: str) -> str:
    """``base`` whose single-head forward returns ``_form(o)`` for each tensor ``o`` it returned;
    ``body`` defines ``_form``."""
    return base + "\n" + body.strip("\n") + '''
_honest_results = ScaledDotProductAttention.forward
def _formed(self, *a, **k):
    out = _honest_results(self, *a, **k)
    return tuple(_form(o) for o in out) if isinstance(out, tuple) else _form(out)
ScaledDotProductAttention.forward = _formed
'''


# The share of a grading's wall time the worker's looks at a pending call's jail may cost (assert_attack_bounded).
WATCH_SHARE = 0.03


class Honest(tuple):
    """An honest grading's (total, worker CPU seconds), unpacked as before, and its wall seconds as ``wall``."""

    wall: float

    def __new__(cls, total: float, cpu: float, wall: float) -> Honest:
        self = super().__new__(cls, (total, cpu))
        self.wall = wall
        return self


# How much the honest grading's wall, measured once by a module's fixture, may grow before an attack graded minutes
# later at another host load. An assumption, not a measurement: the warm honest grading takes 0.6 s at load 10 here, so
# the factor weighs little next to the session-end waits below.
HONEST_WALL_DRIFT = 1.5
# The sessions of a grading whose ends the trusted side waits for: the visible tests' and the hidden tests' (runner).
GRADING_SESSIONS = 2


def trusted_allowance(honest_wall: float) -> float:
    """Seconds of a grading's wall that are the trusted side's own, outside the student's budget (mend round 48,
    review RC MEDIUM-2: a literal 5 s, which the round-47 __del__ attack passed at load 13-15 by 7.1 s): the work an
    honest grading does too (the grading child, opening sessions, each test's feedback, scoring), bounded by the
    honest grading's wall (HONEST_WALL_DRIFT for the load changing since); what a file can make the trusted readers of
    its source spend beyond an honest file's few ms (REVIEW_CPU_S + HINT_CPU_S); and, for each session the budget
    ended, the wait for its jail's end after the kill (client.END_STATUS_WAIT_S), which a loaded host spends on the
    jail's exit."""
    from autograder.settings import HINT_CPU_S, REVIEW_CPU_S
    from grading.sandbox.client import END_STATUS_WAIT_S

    return HONEST_WALL_DRIFT * honest_wall + REVIEW_CPU_S + HINT_CPU_S + GRADING_SESSIONS * END_STATUS_WAIT_S


def wall_bound(honest_wall: float) -> float:
    """A hostile grading's wall at most: the budget, the load credit it gives back, and the trusted side's share."""
    from autograder.settings import GRADING_BUDGET_S, GRADING_LOAD_CREDIT_S

    return GRADING_BUDGET_S + GRADING_LOAD_CREDIT_S + trusted_allowance(honest_wall)


def assert_attack_bounded(result: dict, total: float, wall: float, cpu: float, honest_cpu: float,
                          honest_wall: float) -> None:
    """A hostile submission's grading: `graded` (never a grader error), no more than its honest base's ``total``,
    within the grading budget (+ the trusted side's own time, from ``honest_wall``: trusted_allowance) and 3x the
    honest CPU (+0.3 s, + WATCH_SHARE of the wall), no hidden test's name in what the student reads,
    and every failed test's feedback in both languages."""
    import json

    assert result["status"] == "graded", result["message"]
    assert result["total"] <= total
    # The budget gives back what host load took from the jails, up to GRADING_LOAD_CREDIT_S (round 33); the rest of
    # the wall is the trusted side's.
    bound = wall_bound(honest_wall)
    assert wall < bound, f"{wall:.1f} s against {bound:.1f} s (honest grading {honest_wall:.1f} s)"
    # While a call is pending the worker waits on it and looks at the jail every IDLE_TICK_S (0.1 s): a cost that
    # grows with the wall time, whatever the attack. Here a 30 s spinning attack cost 0.07-0.10 s more than an
    # honest grading (0.15-0.18 s alone; 0.27 s over 50 s in a slow lane at load 14; one look at a one-thread
    # jail, sample_jail + cpu_seconds, 0.04 ms); CI's host spent 0.54-0.66 s more (0.65-0.77 s over 30 s, honest
    # 0.11 s: the cause there was not measured) and failed the bound without this share (stop 46). 3 % of the
    # wall covers it; a cost per byte or per call of the attack is still far past it, and round 22's trickles
    # are also held to a silent reply's cost.
    allowed = 3 * honest_cpu + 0.3 + WATCH_SHARE * wall
    assert cpu < allowed, f"{cpu:.2f} s of the worker's CPU against {honest_cpu:.2f} s honest, {wall:.1f} s of wall"
    text = json.dumps(result, ensure_ascii=False)
    # the suite's own files by name: "cases.py" as a word, not a package's test_cases.py that a search of the
    # interpreter's folders finds (annotated_types ships one: a fresh clone's CI failed on it)
    for word in ("grader_tests", "test_implementation", "test_mask_parity", r"(?<!\w)cases\.py"):
        assert re.search(word, text) is None, word
    for t in result["tests"]:
        if t["outcome"] != "passed":
            assert t["feedback"]["en"] and t["feedback"]["zh"] and t["feedback"]["en"] != t["feedback"]["zh"], t


def says(phrase: str, text: str) -> bool:
    """Does ``text`` hold ``phrase``, also as the start of a sentence? grading.i18n.cat capitalises a clause
    that follows one ending with "." (a PyTorch message: "...instead. Line 45 calls .view(...)")."""
    return phrase in text or phrase[:1].upper() + phrase[1:] in text


def honest_cost(grade, *args) -> Honest:
    """An honest file's total, the worker's CPU and the wall seconds for grading it: ``grade(*args)`` twice, the
    second measured (the first warms up)."""
    grade(*args)
    result, cpu, wall = worker_cost(grade, *args)
    return Honest(result["total"], cpu, wall)


def graded_attack(name: str, honest: tuple[float, float], grade, *args) -> dict:
    """``grade(*args)`` of the attack ``name``, checked by assert_attack_bounded against ``honest`` (its honest
    base's total and worker CPU, from honest_cost); a line of what it cost is printed for -s runs."""
    total, honest_cpu = honest
    result, cpu, wall = worker_cost(grade, *args)
    print(name, result["status"], result["total"], total, f"{wall:.1f}s {cpu:.2f}s CPU (honest {honest_cpu:.2f}s, "
          f"{honest.wall:.1f}s wall: bound {wall_bound(honest.wall):.1f}s)")
    assert_attack_bounded(result, total, wall, cpu, honest_cpu, honest.wall)
    return result
