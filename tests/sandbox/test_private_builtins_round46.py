"""Round 46: the jail's loop and wire look their builtins up in copies of their own, taken before the student's code ran
(a file's ``builtins.isinstance = ...`` ended the loop on its first request: graded 0, told it "did not load" or "stopped
answering"). In-process: the builtins are rebound only while the wire's functions run."""

from __future__ import annotations

import builtins

import torch

from grading.sandbox import lazy_torch, protocol, runtime, zygote

# the builtins the wire and the runtime name (tests/grading/hostile_attacks_round46.py rebinds them in a jail)
_NAMES = ("isinstance", "type", "len", "dict", "list", "tuple", "str", "int", "float", "bool", "getattr", "setattr",
          "hasattr", "iter", "next", "super", "min", "max", "all", "any", "memoryview", "bytes", "bytearray", "range",
          "enumerate", "zip", "sorted", "set", "frozenset", "repr", "callable", "id", "abs", "round", "object",
          "__import__", "issubclass", "BaseException", "Exception", "ValueError", "TypeError", "KeyError",
          "RuntimeError", "AttributeError", "StopIteration", "RecursionError")


_setattr, _BaseException = setattr, BaseException


def _no(*args, **kwargs):
    raise SystemExit(9)


def _with_builtins_rebound(run):
    """``run()`` while every builtin of _NAMES is ``_no``; what it returned or raised (then restored)."""
    saved = {name: getattr(builtins, name) for name in _NAMES}
    try:
        for name in _NAMES:
            _setattr(builtins, name, _no)
        try:
            return run(), None
        except _BaseException as e:  # SystemExit(9): what a call of a rebound builtin raises
            return None, e
    finally:
        for name, value in saved.items():
            _setattr(builtins, name, value)


def test_a_reply_is_encoded_and_decoded_whatever_the_builtins_module_was_rebound_to():
    reply = {"seq": 3, "mark": 7, "ok": True, "value": (torch.arange(6.0).reshape(2, 3), [1, 2.5, "x", None])}
    header, body = _split(protocol.encode(reply))
    assert _split(_with_builtins_rebound(lambda: protocol.encode(reply))[0]) == (header, body)
    value, error = _with_builtins_rebound(lambda: protocol.decode(header, body))
    assert error is None, repr(error)
    assert value["seq"] == 3 and value["value"][1] == [1, 2.5, "x", None]
    assert torch.equal(value["value"][0], torch.arange(6.0).reshape(2, 3))


def test_the_runtime_reads_results_and_errors_and_wraps_methods_whatever_the_builtins_module_was_rebound_to():
    rt = runtime.Runtime()

    class Model(torch.nn.Module):
        def forward(self, x):
            return x

    value, failure = (torch.ones(2), {"w": torch.zeros(1)}, [3]), ValueError("bad")

    def run():
        plain = rt.result(value)
        info = rt.error_info(failure)
        rt._wrap(Model, "forward", rt.count, "Model.forward")
        return plain, info

    done, error = _with_builtins_rebound(run)
    assert error is None, repr(error)
    plain, info = done
    assert torch.equal(plain[0], torch.ones(2)) and plain[2] == [3]
    assert info["kind"] == "ValueError" and info["message"] == "bad"


def test_each_module_of_the_jails_loop_has_its_own_builtins_not_the_builtins_module():
    for module in (protocol, runtime, zygote, lazy_torch):
        assert vars(module)["__builtins__"] is not builtins.__dict__, module.__name__
    for function in (protocol.encode, protocol.json_loads, runtime.Runtime.serve, runtime._getattr_static,
                     zygote.run_jail):
        assert function.__builtins__ is not builtins.__dict__, function.__qualname__


def _split(data: bytes) -> tuple[bytes, bytes]:
    n = int.from_bytes(data[:4], "big")
    return data[4:4 + n], data[4 + n:]
