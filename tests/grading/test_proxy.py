"""grading.proxy error mapping, with scripted sessions raising the real sandbox exception classes."""

from __future__ import annotations

import pytest
import torch

from grader_tests.attention.drivers import AttentionStudent
from grading.proxy import (
    Feedback,
    InfrastructureError,
    InheritedSession,
    SessionLost,
    StudentTimedOut,
)
from grading.sandbox import SandboxDied, SandboxUnavailable, StudentError, StudentTimeout


class ScriptedSession:
    """Answers like a sandbox Session; ``behaviour`` decides what ``call`` does."""

    def __init__(self, behaviour):
        self.behaviour, self.alive, self.output, self.closed = behaviour, True, "", False

    def load(self):
        if self.behaviour == "load-syntax":
            raise StudentError("SyntaxError", "invalid syntax", 12)
        if self.behaviour == "load-hang":
            raise StudentTimeout(10, "import")

    def build(self, name, args=(), kwargs=None, *, params=None, eval_mode=False, describe=None):
        return 1

    def call(self, h, method, *a, **k):
        if method == "eval":
            return None
        if self.behaviour == "raise":
            raise StudentError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied", 17)
        if self.behaviour == "hang":
            self.alive = False
            raise StudentTimeout(5, "call __call__")
        if self.behaviour == "die":
            self.alive = False
            raise SandboxDied("memory limit exceeded")
        if self.behaviour == "infra":
            raise SandboxUnavailable("zygote gone")
        return torch.zeros(1, 1, 2, 2)

    def close(self):
        self.closed = True


def _proxy(behaviour, **kw):
    """A proxy over its one session, as in a grading child (grading/child.py)."""
    return AttentionStudent(InheritedSession(ScriptedSession(behaviour)), **kw)


Q = torch.zeros(1, 1, 2, 2)


def test_student_exception_becomes_actionable_feedback():
    p = _proxy("raise")
    assert p.load()
    with pytest.raises(Feedback) as exc:
        p.sdpa(Q, Q, Q)
    assert str(exc.value) == ("ScaledDotProductAttention.forward raised RuntimeError at attention.py line 17: "
                              "mat1 and mat2 shapes cannot be multiplied")
    assert exc.value.outcome == "failed"
    # zh: a Chinese sentence that introduces PyTorch's own (English) text as such
    assert exc.value.message["zh"] == ("ScaledDotProductAttention.forward 抛出 RuntimeError（attention.py 第 17 行），"
                                       "PyTorch/Python 报错原文：mat1 and mat2 shapes cannot be multiplied")


def test_a_reply_the_sandbox_could_not_carry_is_said_as_the_graders_words_in_both_languages():
    from grading.proxy import ORIGINAL_MESSAGE_ZH, student_error_text

    text = student_error_text("MultiHeadAttention.forward",
                              StudentError("InvalidResult", "malformed reply from the sandbox"))
    assert text["en"] == ("MultiHeadAttention.forward returned something the grader could not carry out of "
                          "the sandbox: malformed reply from the sandbox")
    assert text["zh"] == "MultiHeadAttention.forward 返回的内容无法从沙箱传回评分系统：沙箱的回复格式不正确"
    assert ORIGINAL_MESSAGE_ZH not in text["zh"] and "raised" not in text["en"]
    # PyTorch's own errors are still introduced as its original words
    torch_error = student_error_text("f", StudentError("RuntimeError", "shape mismatch", 3))
    assert ORIGINAL_MESSAGE_ZH in torch_error["zh"]


def _reasons_the_client_writes() -> list[str]:
    """Every reason grading.sandbox.client gives for a reply it could not carry, read from its source
    (each placeholder of an f-string written as 7)."""
    import ast
    import inspect

    import grading.sandbox.client as client

    reasons = []
    for node in ast.walk(ast.parse(inspect.getsource(client))):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "StudentError" and len(node.args) == 2
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == "InvalidResult"):
            text = node.args[1]
            parts = text.values if isinstance(text, ast.JoinedStr) else [text]
            reasons.append("".join(str(v.value) if isinstance(v, ast.Constant) else "7" for v in parts))
    return reasons


def test_the_graders_own_reasons_for_a_reply_it_could_not_carry_are_said_in_chinese_and_guess_nothing():
    # They were quoted as English inside the Chinese text, one with a guess: "reply out of sequence
    # (forged by student code?)". What only the jail can say (its encoder's words, after "invalid reply
    # from the sandbox:") stays quoted as the sandbox's English.
    from grading.proxy import SANDBOX_ENGLISH_ZH, student_error_text
    from tests.grading.helpers import english_in_zh

    reasons = _reasons_the_client_writes()
    assert len(reasons) >= 8, reasons
    for reason in reasons:
        text = student_error_text("MultiHeadAttention.forward", StudentError("InvalidResult", reason))
        assert "?" not in text["en"], reason
        assert text["en"] == ("MultiHeadAttention.forward returned something the grader could not carry out of the "
                              f"sandbox: {reason}")
        if reason.startswith("invalid reply from the sandbox: "):
            assert f"（{SANDBOX_ENGLISH_ZH}7）" in text["zh"]
        else:
            assert SANDBOX_ENGLISH_ZH not in text["zh"], reason
            assert english_in_zh(text["zh"]) == [], text["zh"]


def test_load_errors_are_messages_not_exceptions():
    p = _proxy("load-syntax")
    assert not p.load()
    assert p.load_error == {"en": "SyntaxError at line 12: invalid syntax", "zh": "第 12 行出现 SyntaxError，PyTorch/Python 报错原文：invalid syntax"}
    with pytest.raises(Feedback, match="did not load"):
        p.sdpa(Q, Q, Q)
    p = _proxy("load-hang")
    assert not p.load()
    assert p.load_error == {"en": "timed out after 10 s of wall-clock time while importing attention.py",
                            "zh": "导入 attention.py 超时（实际经过 10 秒）"}


def test_crash_maps_to_feedback_and_infrastructure_propagates():
    p = _proxy("die")
    p.load()
    with pytest.raises(Feedback, match="memory limit exceeded"):
        p.sdpa(Q, Q, Q)
    p = _proxy("infra")
    p.load()
    with pytest.raises(InfrastructureError):
        p.sdpa(Q, Q, Q)


def test_inherited_session_is_never_closed_and_never_reopened():
    s = ScriptedSession("hang")
    p = AttentionStudent(InheritedSession(s))
    assert p.load()
    with pytest.raises(StudentTimedOut):
        p.sdpa(Q, Q, Q)
    with pytest.raises(SessionLost) as exc:
        p.sdpa(Q, Q, Q)
    assert exc.value.outcome == "timeout"
    assert not s.closed                                       # the parent owns it


def test_return_contract_normalisation():
    p = _proxy("ok")
    p.load()
    assert isinstance(p.sdpa(Q, Q, Q), torch.Tensor)
    with pytest.raises(Feedback, match="must return a tuple"):
        p.sdpa(Q, Q, Q, return_weights=True)


class DescribingSession(ScriptedSession):
    """Counts describe round trips; the layout it reports changes once the object has been called
    (as a lazy module's parameters appear at its first forward)."""

    def __init__(self):
        super().__init__("ok")
        self.describes = 0
        self.called = False

    def describe(self, handle, attributes=()):
        self.describes += 1
        return {"type": "MultiHeadAttention", "is_module": True, "training": False,
                "parameters": {"q_proj.weight": [16, 16]} if self.called else {}, "children": {}}

    def call(self, h, method, *a, **k):
        self.called = True
        return super().call(h, method, *a, **k)


def test_an_object_is_described_once_until_it_is_called_and_callers_get_their_own_copy():
    session = DescribingSession()
    student = AttentionStudent(InheritedSession(session))
    assert student.load()
    mha = student.mha(16, 4)
    first = mha.describe()
    first["parameters"]["edited by a caller"] = [1]
    assert mha.describe() == {**first, "parameters": {}}         # not the caller's edit
    assert session.describes == 1                                 # one round trip for both
    with pytest.raises(Feedback):              # the scripted forward returns the wrong shape
        mha(torch.zeros(1, 3, 16))
    assert mha.describe()["parameters"] == {"q_proj.weight": [16, 16]}   # a forward may change it
    assert session.describes == 2
