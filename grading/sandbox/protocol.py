"""Framing between the trusted side and the jailed process.

One message on the (blocking) stream socket is::

    4 bytes   big-endian uint32: length H of the JSON header   (H <= header cap)
    H bytes   UTF-8 JSON header: {"v": <encoded value>, "t": [tensor descriptors], "n": body length}
    n bytes   raw little-endian tensor bytes, concatenated     (n <= body cap)

Every cap is checked *before* anything of that size is allocated. Nothing is ever pickled. The
descriptors tile the body in order (each starts where the one before ended), so what is decoded is
never larger than the body.

Encoded values (a raw JSON object is always a tag, so user dicts cannot be confused with tags):

* ``None``, ``bool``, ``int``, ``float`` (``NaN``/``Infinity`` allowed), ``str``: as JSON
* ``list``: a JSON array
* ``tuple``: ``{"T": [...]}``
* ``dict`` with ``str`` keys: ``{"D": {...}}``
* ``torch.Tensor``: ``{"X": i}`` where ``t[i] = {"dtype", "shape", "offset", "nbytes"}``
* ``numpy.ndarray``: ``{"A": i}``, the same descriptor table and the same raw little-endian bytes
  (bfloat16 excepted, which NumPy lacks), so NumPy assignments send and receive arrays as arrays

On decoding, each tensor becomes a fresh, plain, contiguous CPU tensor made from the body with
``torch.frombuffer(...).clone()``, and each array a fresh, plain, C-contiguous ``numpy.ndarray``
made with ``numpy.frombuffer(...).copy()``: never a view of the receive buffer, never a subclass.
"""

from __future__ import annotations

import _io
import _json
import _socket
import builtins
import ctypes
import fcntl
import io
import math
import re
import socket
import struct
import sys
import termios
from collections.abc import Callable

import numpy as np
import torch

# The builtins every function below looks up, a copy taken when this module is imported (in the jail: before the
# student's module runs). A function looks its builtins up in the dict its module's ``__builtins__`` was when the
# function was made; the builtins module itself is one the student's code may rewrite (``builtins.isinstance =
# ...``, ``builtins.len = ...``, ``builtins.ValueError = ...``: its own module has a copy and is not touched by it), and
# the jail's loop then failed on its first request: graded 0, "stopped answering" or "exited with code 0 while
# importing" (round 46). grading/sandbox/runtime.py, zygote.py and lazy_torch.py take theirs the same way.
__builtins__ = dict(builtins.__dict__)

HEADER_CAP = 1 << 20          # 1 MiB
# The jail's exit code when its serving loop itself raised (zygote.run_jail): after the student's module
# ran, something it replaced (json.dumps, isinstance, ...) broke reading a request or writing a reply.
# It exited 0 then, which read as "crashed while importing: exited with code 0" after a good import.
SERVE_FAILED_EXIT = 71
# Its exit code when a SIGINT raised KeyboardInterrupt in that loop, between calls (client.INTERRUPTED_TEXT).
INTERRUPTED_EXIT = 72
BODY_CAP = 64 << 20           # 64 MiB (configurable per call)
MAX_DEPTH = 32
MAX_ITEMS = 100_000           # values in one message
MAX_TENSORS = 4096
MAX_DIMS = 16
# The largest dimension a message may carry, of a tensor or an array (the reader refuses more: ``_check_shape``).
# The encoder refuses it first, in its own words: NumPy's "array is too big" for a zero-element ``torch.empty(0, 2**62)``
# (its shape's product, 0, is no size; NumPy multiplies the dimensions and overflows) named no shape (round 48).
MAX_DIM = 1 << 40
MAX_SIZE = (1 << 63) - 1      # the largest size torch has (an int64): of a dimension, of a Linear's features
READ_BUFFER = 1 << 16         # bytes read at once by ``reader``
# Every read of a socket takes at most what is queued on it when the read starts (FIONREAD): a read
# of "up to 64 KiB" kept copying while the writer kept writing, and a reply written a byte at a time
# cost the reader ~1 us per byte (a kernel buffer per write), 0.70-1.41 s of the worker's CPU per
# grading. What is queued is bounded by the writer's send buffer: the jail's end of the data socket
# gets JAIL_SNDBUF (set by the trusted side before the jail starts; seccomp keeps the jail from
# raising it), which the kernel doubles: 32 KiB, up to 43 one-byte writes queued (278 by default),
# and an honest reply (none over 10 KB) still in one read. A message that keeps arriving in small
# pieces (more than TRICKLE_READS reads of less than TRICKLE_BYTES, in its length, header or body)
# is refused (``Trickled``): an honest one arrives in one read or a few of a kernel buffer (16 KiB)
# each, and only its last piece is small.
TRICKLE_BYTES, TRICKLE_READS = 4096, 128
JAIL_SNDBUF = 16 << 10
# What one tensor of a message weighs in ``recv_sized``, besides its bytes: decoding it costs about
# what copying 16 KiB does (4000 empty tensors per reply cost the worker 8 times an honest grading).
TENSOR_WEIGHT = 16 << 10

# Entries of each kind (parameters, children, Linears) a describe reply lists of the attributes asked for,
# and as many of the others, in registration order: a module holding 60,000 parameters (a ParameterList)
# made a reply of "too many values", so its MultiHeadAttention could not be driven at all, and 25,000 cost
# the worker 4 times an honest grading's CPU. The tests read the projections and a handful of Linears.
DESCRIBE_ENTRIES = 256

_LEN = struct.Struct(">I")
_INT = struct.Struct("i")

DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "bool": torch.bool,
}
_DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
_ITEMSIZE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "bool": 1}
# NumPy dtypes that may cross the boundary: the tensor dtypes NumPy has, little-endian.
NP_DTYPES: dict[str, np.dtype] = {name: np.dtype(name).newbyteorder("<")
                                  for name in DTYPES if name != "bfloat16"}

assert sys.byteorder == "little", "the wire format is little-endian"


# JSON through private references to the C encoder and scanner, taken when this module is imported (in the jail:
# before the student's module runs). ``json.dumps``/``json.loads`` are looked up at each call in a module the
# student's code can patch (as can ``json.encoder.c_make_encoder``, ``JSONEncoder.encode``, ``json._default_decoder``
# or ``json.decoder._CONSTANTS``): a file that replaced ``json.dumps`` made every reply unreadable, and was told it
# "did not load". The C objects read nothing from those modules while they run (floats and ints by their types'
# own repr, strings by ``encode_basestring_ascii``), so what the student patches there no longer reaches the wire.
def _not_serialisable(o):
    raise TypeError(f"cannot encode a value of type {type(o).__name__}")


_JSON_ENCODE = _json.make_encoder(None, _not_serialisable, _json.encode_basestring_ascii, None, ":", ",",
                                  False, False, True)


class _ScanContext:
    """What ``_json.make_scanner`` reads from a decoder, once, when it is made (json.decoder.JSONDecoder's
    defaults; the constants from a dict of this module's own)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.__getitem__
    memo: dict = {}


_JSON_SCAN = _json.make_scanner(_ScanContext())
_JSON_SPACE = " \t\n\r"


# What the jail's side of the wire (decoding a request, sending a reply, reading the next) calls, bound here for the
# same reason: a student's ``math.prod = ...``, ``torch.from_numpy = ...`` or ``socket.socket.sendall = ...`` at
# import made every later request undecodable or every reply vanish, which ended the session as the sandbox
# "stopped answering" or "exited with code 0 while importing". Tensor methods go through ``torch._C.TensorBase``
# and the reader is built on ``_io._RawIOBase``: immutable C types, where ``torch.Tensor`` and ``socket.SocketIO``
# are Python classes any code in the process may rewrite.
_prod = math.prod
_np_frombuffer, _np_empty = np.frombuffer, np.empty
_from_numpy, _torch_frombuffer, _torch_empty = torch.from_numpy, torch.frombuffer, torch.empty
_TensorBase = torch._C.TensorBase
# The classes the wire tells values by, as they were before student code ran: a module attribute such as
# ``socket.socket = guard`` or ``torch.Tensor = Fake`` at import (a "no network" guard) made every read or reply
# raise (round 45 review RC MED 2: graded 0, "stopped answering"). The classes themselves stay the real ones.
_Tensor, _SOCKET = torch.Tensor, socket.socket
# The tensor's facts read through the C type's descriptors, not through ``torch.Tensor``'s attributes, which any
# code may replace (``torch.Tensor.dtype = property(...)`` made every reply "invalid", round 45 review RC LOW 4).
_DTYPE_OF, _SHAPE_OF, _NUMEL = _TensorBase.dtype.__get__, _TensorBase.shape.__get__, _TensorBase.numel
# ctypes.string_at is a Python function that looks ``ctypes._string_at`` up when called: the C function itself.
_string_at = ctypes._string_at
_SENDALL, _RECV_INTO = _socket.socket.sendall, _socket.socket.recv_into


class _JailReader(_io._RawIOBase):
    """The raw stream under the jail's reader of requests (``jail_reader``): one ``recv_into`` per read."""

    def __init__(self, sock: socket.socket):
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        return _RECV_INTO(self._sock, b)


def jail_reader(sock: socket.socket) -> io.BufferedReader:
    """A buffered reader of the jail's requests, one blocking ``recv`` per request (Runtime.serve), that reads
    through nothing the student's code can patch (``_SENDALL`` comment)."""
    return _io.BufferedReader(_JailReader(sock), READ_BUFFER)


def send_all(sock: socket.socket, data: bytes) -> None:
    """``sock.sendall(data)`` through the private reference (``_SENDALL`` comment)."""
    _SENDALL(sock, data)


def json_dumps(value) -> str:
    """``json.dumps(value, allow_nan=True, separators=(",", ":"))`` of plain values (None, bool, int, float,
    str, list, dict with str keys), through the private encoder (above)."""
    return "".join(_JSON_ENCODE(value, 0))


def json_loads(text: str):
    """``json.loads(text)`` through the private scanner (above); ValueError for anything that is not one JSON
    value (what the scanner raises for a malformed one, StopIteration among it, becomes ValueError: its
    JSONDecodeError is looked up in ``json.decoder``, which the jail's student code can replace)."""
    start = len(text) - len(text.lstrip(_JSON_SPACE))
    try:
        value, end = _JSON_SCAN(text, start)
    except RecursionError:
        raise
    except Exception as e:  # noqa: BLE001 - see the docstring
        raise ValueError(f"not JSON: {type(e).__name__}") from None
    if text[end:].strip(_JSON_SPACE):
        raise ValueError("extra data after the JSON value")
    return value


class ProtocolError(Exception):
    """The peer sent something malformed, oversized or of a forbidden type."""


class PeerClosed(ProtocolError):
    """The peer closed the connection (cleanly, before a new message started)."""


class TooLarge(ProtocolError):
    """A message announced a header or body (``part``) of ``size`` bytes, past the reader's ``cap``."""

    def __init__(self, message: str, part: str, size: int, cap: int):
        super().__init__(message)
        self.part, self.size, self.cap = part, size, cap


class Trickled(ProtocolError):
    """A message kept arriving in small pieces (``TRICKLE_READS`` reads of less than ``TRICKLE_BYTES``)."""


# --------------------------------------------------------------------------- encoding

def tensor_bytes(t: torch.Tensor) -> bytes:
    """Raw bytes of a plain CPU strided tensor (copied into a fresh contiguous buffer first)."""
    if type(t) is _Tensor and t.layout == torch.strided and t.device.type == "cpu" \
            and t.dtype is not torch.bfloat16:
        try:
            # One copy, in C order whatever the strides (numpy() refuses conj/neg views: below).
            return _TensorBase.numpy(_TensorBase.detach(t)).tobytes()
        except (RuntimeError, TypeError, ValueError):
            # ValueError: NumPy's "array is too big" for a zero-element shape whose dimensions' product overflows
            # (0 x 2^40 x 2^22 of float32); torch's own copy below has no such limit.
            pass
    tb = _TensorBase      # methods of the immutable C type (``_SENDALL`` comment)
    t = tb.as_subclass(t, _Tensor) if type(t) is not _Tensor else t
    t = tb.detach(t)
    if t.layout != torch.strided:
        t = tb.to_dense(t)
    t = tb.clone(tb.contiguous(tb.cpu(t)))   # fresh storage of exactly numel * itemsize bytes
    n = tb.numel(t) * tb.element_size(t)
    if n == 0:
        return b""
    return _string_at(tb.data_ptr(t), n)


def dim_text(n: int) -> str:
    """A dimension as a person reads it: ``2^62`` for a power of two past a million, else its digits."""
    return f"2^{n.bit_length() - 1}" if n > 1 << 20 and n & (n - 1) == 0 else str(n)


def array_bytes(a: np.ndarray) -> bytes:
    """Raw little-endian bytes of a NumPy array, copied into a fresh C-contiguous base array."""
    return np.array(a, dtype=NP_DTYPES[a.dtype.name], order="C", copy=True, subok=False).tobytes()


# Exact types that are sent as they are (their subclasses are converted in ``enc``).
_PLAIN = frozenset({type(None), bool, str, int, float})
# The plain types ``encode`` returns as they are at once: strings go on to the one check of the header's size
_SCALARS = _PLAIN - {str}


def encode(value, body_cap: int = BODY_CAP, weight: int = 0, header_cap: int | None = None) -> bytes:
    """``value`` as one message. ``weight``: what each tensor or array weighs against ``body_cap``
    besides its bytes, as ``recv_sized`` weighs it (``TENSOR_WEIGHT``); ``header_cap``: the longest
    header the reader takes. A message the reader would refuse is refused here, before it is sent."""
    tensors: list[dict] = []
    chunks: list[bytes] = []
    size = 0
    count = 0
    text = 0            # characters of every string so far: what the header will hold at least

    def blob(tag: str, dtype: str | None, shown, shape, numel: int, to_bytes, v) -> dict:
        """A tensor ("X") or an array ("A"): checked, copied into the body, referenced by index."""
        nonlocal size
        what = "tensor" if tag == "X" else "array"
        if dtype is None:
            raise ProtocolError(f"{what} dtype {shown} is not allowed")
        if len(shape) > MAX_DIMS:
            raise ProtocolError(f"{what} has too many dimensions")
        if len(tensors) >= MAX_TENSORS:
            raise ProtocolError("too many tensors")
        dims = [int(s) for s in shape]
        if dims and max(dims) > MAX_DIM:
            shown = ", ".join(dim_text(d) for d in dims)
            raise ProtocolError(f"a{'n' if tag == 'A' else ''} {what} of shape [{shown}]: its dimension of "
                                f"{dim_text(max(dims))} is more than the {dim_text(MAX_DIM)} a reply may carry")
        # Check the size before copying: a huge result must fail cleanly, not run the
        # jail out of address space while being serialised.
        if size + numel * _ITEMSIZE[dtype] + weight * (len(tensors) + 1) > body_cap:
            raise ProtocolError(f"message body larger than {body_cap} bytes" + (
                f" (each tensor or array counting {weight >> 10} KiB besides its data)" if weight else ""))
        data = to_bytes(v)
        tensors.append({"dtype": dtype, "shape": dims, "offset": size, "nbytes": len(data)})
        chunks.append(data)
        size += len(data)
        return {tag: len(tensors) - 1}

    def chars(v: str) -> None:
        """Counts ``v`` into the header's strings; refused once they pass ``header_cap``, before any is escaped
        (round 45 review RC MED 3: 60 strings of 1 MiB, each under the cap, cost 26 s of a grading's wall to write
        out and be refused after)."""
        nonlocal text
        text += len(v)
        if header_cap is not None and text > header_cap:
            raise ProtocolError(f"message header larger than {header_cap} bytes")

    def enc(v, depth):
        nonlocal count
        count += 1
        if count > MAX_ITEMS:
            raise ProtocolError("too many values")
        if depth > MAX_DEPTH:
            raise ProtocolError("value nested too deeply")
        if type(v) in _SCALARS:
            return v
        if isinstance(v, _Tensor):
            dtype = _DTYPE_OF(v)
            return blob("X", _DTYPE_NAMES.get(dtype), dtype, _SHAPE_OF(v), _NUMEL(v), tensor_bytes, v)
        if isinstance(v, dict):
            out = {}
            for k, x in v.items():
                if not isinstance(k, str):
                    raise ProtocolError("dict keys must be str")
                chars(k)
                out[str(k)] = enc(x, depth + 1)
            return {"D": out}
        if isinstance(v, list):
            return [enc(x, depth + 1) for x in v]
        if isinstance(v, tuple):
            return {"T": [enc(x, depth + 1) for x in v]}
        # Strings (their exact type and subclasses: one check, round 46) and subclasses of the other plain types (no
        # class is both one of these and a container), and arrays. A string longer than the header is refused before
        # it is written out: 30 MiB returned in each call cost its jail 0.4 s a call to escape and was refused after
        # (16 s of a grading's wall, round 45).
        if isinstance(v, str):
            chars(v)
            return v
        if isinstance(v, bool):
            return v
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return float(v)
        if isinstance(v, np.ndarray):
            name = v.dtype.name
            return blob("A", name if name in NP_DTYPES else None, name, v.shape, v.size, array_bytes, v)
        raise ProtocolError(f"cannot send a value of type {type(v).__name__}")

    header = {"v": enc(value, 0), "t": tensors, "n": size}
    hb = json_dumps(header).encode()
    if header_cap is not None and len(hb) > header_cap:
        raise ProtocolError(f"message header larger than {header_cap} bytes")
    return b"".join((_LEN.pack(len(hb)), hb, *chunks))


def send(sock: socket.socket, value, body_cap: int = BODY_CAP) -> None:
    sock.sendall(encode(value, body_cap))


# --------------------------------------------------------------------------- decoding

def _queued(sock: socket.socket) -> int:
    """Bytes waiting to be read on ``sock`` (FIONREAD), 0 when the kernel will not say."""
    try:
        return _INT.unpack(fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0" * _INT.size))[0]
    except OSError:
        return 0


def _read_queued(sock: socket.socket, buf, wait: Callable[[], object] | None = None) -> int:
    """One read of ``sock`` into ``buf`` of at most the bytes queued when it starts (``READ_BUFFER``
    comment): when nothing is queued, calls ``wait`` (if given) and then waits for the first byte
    without taking it (the socket's timeout applies), then takes what is there. 0 at the end of the
    stream."""
    view = memoryview(buf)
    n = _queued(sock)
    if not n:
        if wait is not None:
            wait()
        if not sock.recv_into(view, 1, socket.MSG_PEEK):
            return 0
        n = _queued(sock) or 1
    return sock.recv_into(view, min(n, len(view)))


class _QueuedSocketIO(socket.SocketIO):
    """``socket.SocketIO`` whose every read is ``_read_queued``; ``wait``, when set, runs before a read
    that would wait for data (the trusted side watches the jail there: Session._watch_idle)."""

    wait: Callable[[], object] | None = None

    def readinto(self, b) -> int | None:
        self._checkClosed()
        self._checkReadable()
        if self._timeout_occurred:
            raise OSError("cannot read from timed out object")
        try:
            return _read_queued(self._sock, b, self.wait)
        except TimeoutError:
            self._timeout_occurred = True
            raise
        except BlockingIOError:
            return None


def reader(sock: socket.socket) -> io.BufferedReader:
    """A buffered reader of ``sock`` for ``recv``: a small message (the usual request or reply) then
    arrives in one ``recv`` system call instead of three (length, header, body). Each read of the
    socket takes at most what is queued (``_read_queued``). Closing the socket closes the connection
    only once this reader is closed too (as ``socket.makefile``'s)."""
    raw = _QueuedSocketIO(sock, "rb")
    sock._io_refs += 1       # what socket.makefile does: the socket stays open while this reader is
    return io.BufferedReader(raw, READ_BUFFER)


def _recv_exact_into(src, buf, first: bool = False, before_read=None) -> None:
    # readinto1: at most one read of the socket per call (readinto loops over reads until the buffer
    # is full, and ``before_read`` would never run in between).
    read_into = (lambda v: _read_queued(src, v)) if isinstance(src, _SOCKET) else src.readinto1
    view = memoryview(buf)
    got = small = 0
    while got < len(view):
        if small > TRICKLE_READS:
            raise Trickled(f"a message came in more than {TRICKLE_READS} pieces of less than {TRICKLE_BYTES} bytes")
        if before_read is not None:
            before_read()
        n = read_into(view[got:])
        if not n:
            if first and got == 0:
                raise PeerClosed("peer closed the connection")
            raise ProtocolError("connection closed in the middle of a message")
        got += n
        small += n < TRICKLE_BYTES


def _check_shape(shape) -> list[int]:
    if not isinstance(shape, list) or len(shape) > MAX_DIMS:
        raise ProtocolError("bad tensor shape")
    for s in shape:
        if type(s) is not int or s < 0 or s > MAX_DIM:
            raise ProtocolError("bad tensor shape")
    return shape


def _checked_slice(desc, body: memoryview) -> tuple[str, list[int], memoryview]:
    """(dtype name, shape, raw bytes) of one descriptor, every field checked against the body."""
    if not isinstance(desc, dict):
        raise ProtocolError("bad tensor descriptor")
    name = desc.get("dtype")
    if not isinstance(name, str) or name not in DTYPES:
        raise ProtocolError(f"tensor dtype {name!r} is not allowed")
    shape = _check_shape(desc.get("shape"))
    offset, nbytes = desc.get("offset"), desc.get("nbytes")
    if type(offset) is not int or type(nbytes) is not int or offset < 0 or nbytes < 0:
        raise ProtocolError("bad tensor offset/size")
    if offset + nbytes > len(body):
        raise ProtocolError("tensor lies outside the message body")
    if _prod(shape) * _ITEMSIZE[name] != nbytes:
        raise ProtocolError(f"tensor of shape {shape} and dtype {name} cannot have {nbytes} bytes")
    raw = body[offset:offset + nbytes]
    if name == "bool" and nbytes and int(_np_frombuffer(raw, dtype=np.uint8).max()) > 1:
        raise ProtocolError("bool tensor holds values other than 0/1")
    return name, shape, raw


def _make_tensor(name: str, shape: list[int], raw: memoryview) -> torch.Tensor:
    """A fresh plain tensor from a checked descriptor (``_checked_slice``)."""
    dtype = DTYPES[name]
    if not raw:
        return _torch_empty(shape, dtype=dtype)
    if name in NP_DTYPES:    # NumPy copies in one call what frombuffer().clone() does in two
        t = _from_numpy(_np_frombuffer(raw, dtype=NP_DTYPES[name]).reshape(shape).copy())
    else:
        t = _TensorBase.reshape(_TensorBase.clone(_torch_frombuffer(raw, dtype=dtype)), shape)
    assert type(t) is _Tensor and _TensorBase.is_contiguous(t)
    return t


def _make_array(name: str, shape: list[int], raw: memoryview) -> np.ndarray:
    if name not in NP_DTYPES:
        raise ProtocolError(f"array dtype {name!r} is not allowed")
    if not raw:
        return _np_empty(shape, dtype=name)
    a = _np_frombuffer(raw, dtype=NP_DTYPES[name]).reshape(shape).astype(name, order="C", copy=True)
    assert type(a) is np.ndarray and a.flags.c_contiguous and a.flags.owndata
    return a


def decode(header_bytes: bytes, body: bytes | bytearray):
    return _decode_parsed(_parse_header(header_bytes), body)


# JSON may spell a lone UTF-16 surrogate (``"\\ud800"``), which Python decodes into a str that
# no UTF-8 encoder accepts: written to a terminal, a JSON line or a database, it would fail the
# grading. Such escapes are rare, so the header is searched for them first, and only then walked.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _without_surrogates(value):
    if type(value) is str:
        return value.encode("utf-8", "replace").decode("utf-8")
    if type(value) is list:
        return [_without_surrogates(v) for v in value]
    if type(value) is dict:
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


def _parse_header(header_bytes) -> dict:
    raw = bytes(header_bytes)
    try:
        header = json_loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ProtocolError(f"bad header: {type(e).__name__}") from None
    if not isinstance(header, dict):
        raise ProtocolError("bad header")
    if _SURROGATE_ESCAPE.search(raw):
        try:
            header = _without_surrogates(header)
        except RecursionError:
            raise ProtocolError("bad header: RecursionError") from None
    return header


def _decode_parsed(header: dict, body: bytes | bytearray):
    if not isinstance(header, dict) or set(header) != {"v", "t", "n"}:
        raise ProtocolError("bad header")
    descs = header["t"]
    if not isinstance(descs, list) or len(descs) > MAX_TENSORS:
        raise ProtocolError("bad tensor table")
    if header["n"] != len(body):
        raise ProtocolError("body length mismatch")
    if not isinstance(body, bytearray):
        body = bytearray(body)          # frombuffer wants a writable buffer (we clone anyway)
    bview = memoryview(body)
    # Every descriptor is validated up front, referenced or not (as before arrays existed).
    try:
        checked = [_checked_slice(d, bview) for d in descs]
    except (RuntimeError, ValueError, OverflowError, TypeError) as e:
        raise ProtocolError(f"bad tensor: {type(e).__name__}") from None
    # The descriptors tile the body, one after the other, as ``encode`` lays them out: each byte
    # belongs to one tensor, so what is decoded is never larger than the body (whose size is capped
    # before it is read). Descriptors that overlapped, all 4096 of them naming the same 64 MiB,
    # made 256 GiB of tensors out of one capped message.
    end = 0
    for d in descs:
        if d["offset"] != end:
            raise ProtocolError("tensor descriptors overlap or leave gaps in the message body")
        end += d["nbytes"]
    if end != len(body):
        raise ProtocolError("tensor descriptors do not cover the message body")
    made: dict[int, tuple[str, object]] = {}

    def blob(tag: str, i: int):
        """Tensor ``X`` or array ``A`` number ``i``, built once, on first reference (never both:
        one descriptor's bytes are decoded once)."""
        if i not in made:
            try:
                made[i] = (tag, (_make_tensor if tag == "X" else _make_array)(*checked[i]))
            except (RuntimeError, ValueError, OverflowError, TypeError) as e:
                raise ProtocolError(f"bad tensor: {type(e).__name__}") from None
        made_tag, value = made[i]
        if made_tag != tag:
            raise ProtocolError("one descriptor referenced as both a tensor and an array")
        return value

    count = 0
    n_descs = len(descs)

    def dec(v, depth):
        nonlocal count
        count += 1
        if count > MAX_ITEMS or depth > MAX_DEPTH:
            raise ProtocolError("value too large or nested too deeply")
        t = type(v)
        if t in _PLAIN:        # what json.loads makes: exact types only
            return v
        if t is list:
            return [dec(x, depth + 1) for x in v]
        if t is dict and len(v) == 1:
            (tag, x), = v.items()
            if tag == "D" and type(x) is dict:
                return {k: dec(y, depth + 1) for k, y in x.items()}
            if tag == "T" and type(x) is list:
                return tuple(dec(y, depth + 1) for y in x)
            if (tag == "X" or tag == "A") and type(x) is int and 0 <= x < n_descs:
                return blob(tag, x)
        raise ProtocolError("bad value encoding")

    return dec(header["v"], 0)


def recv(sock: socket.socket | io.BufferedReader, header_cap: int = HEADER_CAP, body_cap: int = BODY_CAP,
         before_read=None):
    """Read one message from a socket or its ``reader``; raises PeerClosed on a clean EOF,
    ProtocolError on anything malformed. ``before_read`` is called before every read of the
    socket: a socket's timeout bounds one read, so a peer that sends a byte now and then would
    hold ``recv`` for as long as it likes; the caller re-arms the timeout to what is left of its
    deadline there (or raises TimeoutError)."""
    return _recv(sock, header_cap, body_cap, before_read, 0)[0]


def recv_sized(sock: socket.socket | io.BufferedReader, header_cap: int = HEADER_CAP, body_cap: int = BODY_CAP,
               before_read=None, charge: Callable[[int], object] | None = None) -> tuple[object, int]:
    """``recv``, and what the message cost to read: the bytes it took (length prefix, header and
    body) and ``TENSOR_WEIGHT`` for each tensor or array in it, which counts against ``body_cap``
    too (checked before the body is read); for a reader that caps what a peer may send in all, not
    only in one message.

    ``charge(n)`` is called with each part of that cost before the part is read (the header once
    its length is known, the body once it is accepted), so a message refused or cut off after its
    header is charged too: a 1 MiB header read and parsed, then refused for its body, cost the
    reader as much as an accepted one did, and was not counted."""
    return _recv(sock, header_cap, body_cap, before_read, TENSOR_WEIGHT, charge)


def _recv(sock, header_cap: int, body_cap: int, before_read, weight: int,
          charge: Callable[[int], object] | None = None) -> tuple[object, int]:
    lb = bytearray(4)
    _recv_exact_into(sock, lb, first=True, before_read=before_read)
    (hlen,) = _LEN.unpack(lb)
    if hlen > header_cap:
        raise TooLarge(f"header of {hlen} bytes exceeds the cap of {header_cap}", "header", hlen, header_cap)
    if charge is not None:
        charge(_LEN.size + hlen)
    hb = bytearray(hlen)
    _recv_exact_into(sock, hb, before_read=before_read)
    # Peek at the declared body length before allocating the body.
    header = _parse_header(hb)
    header_n = header.get("n")
    if type(header_n) is not int or header_n < 0:
        raise ProtocolError("bad body length")
    descs = header.get("t")
    weighed = header_n + weight * (len(descs) if isinstance(descs, list) else 0)
    if weighed > body_cap:
        raise TooLarge(f"body of {header_n} bytes" + (f" and {len(descs)} tensors" if weighed > header_n else "")
                       + f" exceeds the cap of {body_cap}", "body", weighed, body_cap)
    if charge is not None:
        charge(weighed)
    body = bytearray(header_n)
    _recv_exact_into(sock, body, before_read=before_read)
    return _decode_parsed(header, body), _LEN.size + hlen + weighed
