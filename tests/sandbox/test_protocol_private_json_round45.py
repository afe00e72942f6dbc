"""Round 45: the wire format's JSON does not go through the ``json`` module the student's code can patch in the jail.

Before round 45 a file that replaced ``json.dumps`` (or ``json.loads``, ``json.encoder``'s encoder, the decoder's
constants) made every reply of its jail unreadable: it was graded 0 and told it "did not load"."""

from __future__ import annotations

import json
import json.decoder
import json.encoder
import math

import pytest
import torch

from grading.sandbox import protocol

_VALUE = {"seq": 3, "ok": True, "f": [1.5, math.inf, -math.inf], "s": "caf\u00e9 \u4e2d", "n": None,
          "t": (1, 2), "x": torch.arange(6.0).reshape(2, 3)}


def _round_trip(value):
    data = protocol.encode(value)
    hlen = protocol._LEN.unpack(data[:4])[0]
    return protocol.decode(data[4:4 + hlen], data[4 + hlen:])


def _patch_json(monkeypatch) -> None:
    def lie(*a, **k):
        return '{"status": "graded", "total": 100}'

    monkeypatch.setattr(json, "dumps", lie)
    monkeypatch.setattr(json, "loads", lambda *a, **k: {"status": "graded", "total": 100})
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    monkeypatch.setattr(json.encoder.JSONEncoder, "encode", lambda self, o: "[]")
    monkeypatch.setattr(json.encoder.JSONEncoder, "iterencode", lambda self, o, _one_shot=False: iter(["[]"]))
    monkeypatch.setattr(json.decoder.JSONDecoder, "decode", lambda self, s, _w=None: {})
    monkeypatch.setattr(json.decoder.JSONDecoder, "raw_decode", lambda self, s, idx=0: ({}, len(s)))
    monkeypatch.setattr(json, "_default_decoder", None)
    monkeypatch.setitem(json.decoder._CONSTANTS, "NaN", 100.0)
    monkeypatch.setitem(json.decoder._CONSTANTS, "Infinity", 100.0)
    monkeypatch.setattr(json.decoder, "JSONDecodeError", None)


def test_messages_round_trip_with_the_json_module_patched_throughout(monkeypatch):
    _patch_json(monkeypatch)
    got = _round_trip(_VALUE)
    assert got["seq"] == 3 and got["ok"] is True and got["n"] is None and got["t"] == (1, 2)
    assert got["f"][0] == 1.5 and got["f"][1] == math.inf and got["f"][2] == -math.inf
    assert got["s"] == _VALUE["s"]
    assert torch.equal(got["x"], _VALUE["x"])


def test_nan_still_crosses_as_nan_with_the_decoders_constants_patched(monkeypatch):
    _patch_json(monkeypatch)
    assert math.isnan(_round_trip([math.nan])[0])


def test_the_private_json_writes_what_json_dumps_wrote():
    value = {"v": [1, -2, 0.1, 1e300, math.nan, "\u00e9\ud800\n\"", None, False, {"D": {"k": []}}], "t": [], "n": 0}
    assert protocol.json_dumps(value) == json.dumps(value, allow_nan=True, separators=(",", ":"))


@pytest.mark.parametrize("text", ["", " ", "{", '{"a": 1} x', "\ufeff{}", "[1,]", '{"a" 1}', "nan", "{} {}"])
def test_the_private_json_refuses_what_json_loads_refused_as_a_value_error(text, monkeypatch):
    with pytest.raises(ValueError):
        json.loads(text)
    _patch_json(monkeypatch)     # its error class gone: still a ValueError, and so a ProtocolError
    with pytest.raises(ValueError):
        protocol.json_loads(text)
    with pytest.raises(protocol.ProtocolError):
        protocol._parse_header(text.encode())


def test_the_private_json_reads_what_json_loads_read():
    for text in ['{"v":[1,2.5,NaN,-Infinity,"\\ud800"],"t":[],"n":0}', ' \n[true, null, {"a": "b"}]\t', "7"]:
        assert repr(protocol.json_loads(text)) == repr(json.loads(text))


def test_the_jails_side_of_the_wire_reads_and_writes_with_stdlib_and_torch_functions_patched(monkeypatch):
    """What the jail calls to read a request and send a reply, patched as a student's module can at import: before
    round 45 ``math.prod`` or ``torch.from_numpy`` replaced made each request undecodable, and ``socket.socket``'s
    ``sendall`` or ``socket.SocketIO.readinto`` replaced made the replies vanish (the loop ended, exit code 0)."""
    import math as _math
    import socket

    import numpy as np

    a, b = socket.socketpair()
    with a, b:
        reader = protocol.jail_reader(b)
        monkeypatch.setattr(_math, "prod", lambda *x, **k: 0)
        monkeypatch.setattr(np, "frombuffer", lambda *x, **k: np.zeros(1))
        monkeypatch.setattr(torch, "from_numpy", lambda x: torch.zeros(1))
        monkeypatch.setattr(torch, "frombuffer", lambda *x, **k: torch.zeros(1))
        monkeypatch.setattr(torch.Tensor, "clone", lambda self, *x, **k: torch.zeros(1))
        monkeypatch.setattr(torch.Tensor, "reshape", lambda self, *x, **k: torch.zeros(1))
        monkeypatch.setattr(socket.socket, "sendall", lambda self, *x, **k: None)
        monkeypatch.setattr(socket.socket, "recv_into", lambda self, *x, **k: 0)
        monkeypatch.setattr(socket.SocketIO, "readinto", lambda self, buf: 0)
        monkeypatch.setattr(socket.SocketIO, "_checkClosed", lambda self, *x: None)
        x = torch.arange(12.0).reshape(3, 4)
        protocol.send_all(a, protocol.encode({"seq": 1, "x": x, "h": x.to(torch.bfloat16), "a": np.ones((2, 2))}))
        got = protocol.recv(reader)
        monkeypatch.undo()
        assert got["seq"] == 1 and torch.equal(got["x"], x) and torch.equal(got["h"].float(), x)
        assert got["a"].tolist() == [[1.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("kind", [str, type("S", (str,), {})])
def test_a_string_longer_than_the_header_cap_is_refused_before_it_is_written_out(kind):
    import time

    value = {"value": kind("x" * (8 << 20))}
    t0 = time.process_time()
    with pytest.raises(protocol.ProtocolError, match="message header larger than 1024 bytes"):
        protocol.encode(value, header_cap=1024)
    assert time.process_time() - t0 < 0.005     # escaping the 8 MiB first took ~0.03 s here
    assert len(protocol.encode({"value": kind("x" * 100)}, header_cap=1024)) < 1024
