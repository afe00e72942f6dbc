"""Round 35: hints that say what the code did.

1. ``raise SystemExit(3)`` at the top level: the load message quoted only "3" ("SystemExit at line 3: 3"), and
   ``sys.exit("3")``, which exits with 1 after printing "3", read the same. The sandbox's runtime now states the
   exit status as Python would end ``python attention.py`` (grading.sandbox.runtime._exit_status), and the load
   message says "the file raised SystemExit (exit code 3) at line 3", in both languages; the top-level hint says
   a ``raise SystemExit`` ends the import, as it said of sys.exit().
2. Twenty faulty files of round 35 (tests/fixtures/submissions/faulty/r35_*.py: mistakes made adapting the round's
   public styles, see test_fair_round35.py) are each named as their `# diagnosis:` header declares and nothing else,
   in both languages, and every line a hint quotes holds the code quoted (slow lane). One hint contradicted its code:
   sooftware/attentions' heads folded into the batch head-major and unfolded batch-major (samples and heads
   exchanged, every block a right result in the wrong place) was told "randomness is still active in eval mode
   (e.g. F.dropout without training=self.training ...)", named ``dropout``, in a file with no dropout: two copies
   of a sample in one batch differed, which the check took for random draws. Now the same call is repeated, and
   when it repeats itself and every (sample, head) block is the right result of some block of the batch, that is
   what the hint says (diagnose.results_exchanged); dropout is named only otherwise.
3. A padding mask put on the query axis with a finite fill (-1e9, finfo.min, -finfo.max) was named by no model
   (the pad_query_axis model blocks with -inf: NaN rows, where a finite fill gives uniform ones); now it is
   (``pad_query_axis_finite``, named as pad_query_axis).
"""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention import cases as C
from grader_tests.attention import diagnose
from grading.i18n import is_msg, msg
from grading.proxy import load_error_text
from grading.sandbox import StudentError
from tests.grading.helpers import (
    SUBMISSIONS,
    code_names,
    english_in_zh,
    grade_stored,
    graded_corpus_file,
    named_faults,
)
from tests.grading.test_quoted_lines_round31 import _shown, quoted_lines

FAULTY = SUBMISSIONS / "faulty"
ROUND = sorted(FAULTY.glob("r35_*.py"))


# ----------------------------------------------------------------------------- 1. SystemExit at import
@pytest.mark.parametrize(("code", "said"), [
    (3, "exit code 3"), (None, "exit code 0"), (True, "exit code 1"), (-2, "exit code 254"),
    (256, "exit code 0"), (-1, "exit code 255"), (1 << 70, "exit code 255"),   # the status a process exits with
    ("bye", "exit code 1, message: bye"), ("3", "exit code 1, message: 3"),     # a string exits with 1
])
def test_the_runtime_states_the_exit_status_python_would_give(code, said):
    from grading.sandbox.runtime import _exit_status

    assert _exit_status(SystemExit(code)) == said


def test_an_exit_whose_code_cannot_be_read_is_quoted_as_it_prints():
    from grading.sandbox.runtime import _exit_status

    class Odd(SystemExit):
        @property
        def code(self):
            raise RuntimeError("no")

        def __str__(self):
            return "odd"

    assert _exit_status(Odd()) == "odd"


@pytest.mark.parametrize(("message", "en", "zh"), [
    ("exit code 3", "the file raised SystemExit (exit code 3) at line 4",
     "文件在第 4 行抛出了 SystemExit（退出码 3）"),
    ("exit code 1, message: bye", 'the file raised SystemExit (exit code 1, with the message: "bye") at line 4',
     '文件在第 4 行抛出了 SystemExit（退出码 1，附带消息："bye"）'),
])
def test_the_load_message_says_the_file_raised_systemexit_with_its_exit_code(message, en, zh):
    source = "import torch\nfrom torch import nn\n\nraise SystemExit(3)\n"
    text = load_error_text(StudentError("SystemExit", message, 4), source=source)
    assert text["en"].startswith(en + ". Hint: line 4 runs when the grader imports your file (it ends the import)"), \
        text["en"]
    assert text["zh"].startswith(zh + "。提示：第 4 行在评分器导入你的文件时就会运行（它会结束导入）"), text["zh"]
    assert english_in_zh(text["zh"], code_names(source)) == []


def test_a_systemexit_message_the_runtime_did_not_write_is_quoted_as_before():
    text = load_error_text(StudentError("SystemExit", "3", 4), source="raise SystemExit(3)\n")
    assert text["en"].startswith("SystemExit at line 4: 3"), text["en"]


@pytest.mark.parametrize(("statement", "status"), [
    ("raise SystemExit(3)", "exit code 3"), ("sys.exit(3)", "exit code 3"),
    ("sys.exit('3')", 'exit code 1, with the message: "3"'),
])
def test_a_graded_file_that_exits_at_import_is_told_its_exit_code_and_line(executor, statement, status):
    """Before: "attention.py did not load: SystemExit at line 4: 3" for all three."""
    result = grade_stored(executor, f"import sys\nimport torch\n\n{statement}\n")
    assert result["status"] == "graded"
    assert f"the file raised SystemExit ({status}) at line 4." in result["message"]["en"], result["message"]
    assert "退出码" in result["message"]["zh"] and "第 4 行抛出了 SystemExit" in result["message"]["zh"]


# ----------------------------------------------------------------------------- 2. the round's faulty files
def _declared(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[1].removeprefix("# diagnosis: ").split()


def _failed(executor, path) -> dict[str, dict]:
    return {t["id"]: t["feedback"] for t in graded_corpus_file(executor, path)["tests"]
            if t["outcome"] != "passed" and is_msg(t["feedback"])}


def test_the_round_adds_20_files_with_a_declared_diagnosis():
    assert len(ROUND) == 20
    for path in ROUND:
        assert path.read_text(encoding="utf-8").splitlines()[1].startswith("# diagnosis: "), path.name
    # mistakes no model names: described only (round 39 names one, r35_sooftware_unfold_batch_major: heads_fold_hb_bh)
    assert sum(_declared(p) == ["none"] for p in ROUND) >= 4


@pytest.mark.slow
@pytest.mark.parametrize("path", ROUND, ids=[p.stem for p in ROUND])
def test_a_round_35_file_is_named_as_declared_and_quotes_only_its_own_lines(executor, path):
    declared = _declared(path)
    source = path.read_text(encoding="utf-8")
    lines, code = source.splitlines(), code_names(source)
    named: set[str] = set()
    for tid, fb in _failed(executor, path).items():
        named |= named_faults(fb)
        for n, _owner, quoted in quoted_lines(fb["en"]):
            assert 1 <= n <= len(lines) and _shown(quoted, lines[n - 1]) and not lines[n - 1].startswith("#"), \
                (tid, n, quoted)
        assert english_in_zh(fb["zh"], code) == [], (tid, fb["zh"])
    if declared == ["none"]:
        assert named == set(), named
    else:
        assert declared[0] in named and named <= set(declared), named


def _exchanged(out: torch.Tensor) -> torch.Tensor:
    """``out`` with its (sample, head) blocks read head-major as batch-major: the sooftware file's mistake."""
    B, H = out.shape[:2]
    return out.transpose(0, 1).reshape(B * H, *out.shape[2:]).view(B, H, *out.shape[2:])


def test_blocks_in_exchanged_places_are_said_to_be_exchanged():
    q, k, v = (torch.cat([t, t]) for t in C.parity_case())
    said = diagnose.results_exchanged(_exchanged(C.ref_output(q, k, v)), q, k, v)
    assert said is not None and said["en"].startswith("each (sample, head) block of the output is the right result")
    assert "the batch and head axes are exchanged somewhere" in said["en"], said
    assert "batch 轴与 head 轴在某处被互换了" in said["zh"] and english_in_zh(said["zh"]) == [], said


def test_no_exchange_is_said_of_right_results_or_of_dropped_values():
    q, k, v = (torch.cat([t, t]) for t in C.parity_case())
    right = C.ref_output(q, k, v)
    assert diagnose.results_exchanged(right, q, k, v) is None
    torch.manual_seed(0)
    w = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, -1)
    dropped = torch.nn.functional.dropout(w, 0.1, training=True) @ v
    assert diagnose.results_exchanged(dropped, q, k, v) is None
    assert diagnose.results_exchanged(right + 1e-3, q, k, v) is None          # no block is a right result


def test_samples_and_heads_exchanged_are_not_called_dropout(executor):
    """Before: "in eval() mode results that must be identical differ: randomness is still active in eval mode (e.g.
    F.dropout without training=self.training; use nn.Dropout)", named dropout, for a file with no dropout."""
    path = FAULTY / "r35_sooftware_unfold_batch_major.py"
    det = _failed(executor, path)["test_deterministic"]
    assert "dropout" not in named_faults(det) and "dropout" not in det["en"].lower(), det
    assert "(sample 0, head 1 holds that of sample 1, head 0): the batch and head axes are exchanged" in det["en"], det
    assert "样本 0 的 head 1 得到的是样本 1 的 head 0 的结果" in det["zh"], det


# ----------------------------------------------------------------------------- 3. padding on the query axis, finite
# krasserm's Perceiver IO blocks with -torch.finfo(dtype).max, many students with masked_fill(mask, -1e9): a padding
# mask put on the query axis so fills the padding queries' rows, which come out uniform over the keys (s - 1e9 rounds
# to -1e9 in float32), not NaN as with -inf. The pad_query_axis model (-inf) did not match them, and the file was
# told only "padding keys get weight up to 0.919" (r35_krasserm_pad_on_query_axis.py); ``pad_query_axis_finite``
# models them and is named as pad_query_axis (diagnose.mha_key), as pad_inverted_finite is named pad_inverted.
def _query_axis_fill(fill):
    return lambda kpm: torch.zeros(kpm.shape[0], 1, kpm.shape[1], 1).masked_fill(kpm[:, None, :, None], fill)


@pytest.mark.parametrize("fill", [-1e9, torch.finfo(torch.float32).min, -torch.finfo(torch.float32).max])
def test_a_padding_mask_on_the_query_axis_with_a_finite_fill_is_named_as_on_the_query_axis(fill):
    from tests.grading.test_hints_round26 import _padding_case, _student_mha

    params, x, kpm = _padding_case()
    out, w = _student_mha(params, x, kpm, _query_axis_fill(fill))
    assert diagnose.mha(out, w, params, 4, 4, x, None, None, kpm) == diagnose.FAULTS["pad_query_axis"]
    assert diagnose.mha_key("pad_query_axis_finite", 16, 4) == "pad_query_axis"


def test_the_finite_query_axis_model_needs_padding_float32_and_square_attention():
    from tests.grading.test_hints_round26 import _padding_case

    params, x, kpm = _padding_case()
    fault = "pad_query_axis_finite"
    assert C.mha_variant(params, 4, 4, x, None, None, kpm, fault=fault) is not None
    assert C.mha_variant(params, 4, 4, x, None, None, torch.zeros_like(kpm), fault=fault) is None     # no padding
    assert C.mha_variant(params, 4, 4, x, None, None, None, fault=fault) is None
    assert C.mha_variant(params, 4, 4, x.double(), None, None, kpm, fault=fault) is None             # float64
    context = C.tokens(43, 2, 7, 16)
    assert C.mha_variant(params, 4, 4, x, context, None, torch.zeros(2, 7, dtype=torch.bool), fault=fault) is None
    # and it is no other mistake's numbers: not the -inf model's (NaN rows), not an ignored padding mask
    finite = C.mha_variant(params, 4, 4, x, None, None, kpm, fault=fault)[0]
    for other in ("pad_ignored", "pad_query_axis"):
        out = C.mha_variant(params, 4, 4, x, None, None, kpm, fault=other)[0]
        assert not torch.allclose(torch.nan_to_num(out.float(), nan=0.0), finite.float(), atol=1e-3), other


def test_the_graded_file_on_the_query_axis_is_named(executor):
    """Before: "padding keys get weight up to 0.919; they must get exactly 0 from every head and query" alone."""
    fb = _failed(executor, FAULTY / "r35_krasserm_pad_on_query_axis.py")["test_padding_keys_get_zero_weight"]
    assert named_faults(fb) == {"pad_query_axis"}, fb


# ----------------------------------------------------------------------------- review R1 (round 35)
@pytest.mark.parametrize(("message", "en", "zh"), [
    ("exit code 3", "calling Scale raised SystemExit (exit code 3) at m.py line 7",
     "调用 Scale 在 m.py 第 7 行抛出了 SystemExit（退出码 3）"),
    ("exit code 1, message: bye", 'calling Scale raised SystemExit (exit code 1, with the message: "bye") at m.py line 7',
     '调用 Scale 在 m.py 第 7 行抛出了 SystemExit（退出码 1，附带消息："bye"）'),
])
def test_a_systemexit_raised_in_a_call_is_said_as_at_import_in_both_languages(message, en, zh):
    """Before: zh quoted the runtime's English "exit code 1, message: bye" as Python's own words
    (PyTorch/Python 报错原文)."""
    from grading.proxy import ORIGINAL_MESSAGE_ZH, student_error_text

    text = student_error_text(msg("calling Scale", "调用 Scale"), StudentError("SystemExit", message, 7), "m.py")
    assert text["en"] == en and text["zh"] == zh, text
    assert ORIGINAL_MESSAGE_ZH not in text["zh"] and "message:" not in text["zh"], text


@pytest.mark.parametrize(("statement", "status"), [
    ("sys.exit(256)", "exit code 0"), ("sys.exit(-1)", "exit code 255"), ("sys.exit('bye')", "exit code 1"),
])
def test_a_call_that_exits_is_told_the_status_a_process_exits_with(executor, statement, status):
    from grading.proxy import student_error_text
    from tests.sandbox.helpers import GOOD

    src = GOOD + f"\nimport sys\ndef _forward(self, x):\n    {statement}\nScale.forward = _forward\n"
    with executor.session(src, "m.py", "m") as s:
        s.load()
        with pytest.raises(StudentError) as raised:
            s.call(s.new("Scale"), "__call__", torch.ones(1))
    assert raised.value.kind == "SystemExit" and raised.value.message.startswith(status), raised.value.message
    text = student_error_text("calling Scale", raised.value, "m.py", (), src)
    assert f"raised SystemExit ({status}" in text["en"] and "退出码" in text["zh"], text


def test_samples_rolled_with_their_heads_kept_are_not_said_to_exchange_batch_and_head_axes():
    """/tmp/R1/exchanged_roll.py: every block is its own head's result of another sample; no axes are exchanged."""
    q, k, v = (torch.cat([t, t]) for t in C.parity_case())
    ref = C.ref_output(q, k, v)
    assert diagnose.results_exchanged(torch.roll(ref, 1, dims=0), q, k, v) is None
    assert diagnose.results_exchanged(torch.roll(ref, 1, dims=1), q, k, v) is None   # heads moved within samples
