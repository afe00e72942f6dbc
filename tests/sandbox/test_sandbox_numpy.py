"""NumPy arrays and module-level functions across the jail boundary (NumPy assignments need both)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
import torch

from grading.sandbox import StudentError, protocol
from tests.sandbox.helpers import roundtrip

# --------------------------------------------------------------------------- protocol (no processes)


def test_arrays_round_trip_as_plain_contiguous_arrays_of_the_same_dtype():
    arrays = [np.arange(6.0).reshape(2, 3), np.arange(4, dtype=np.float32), np.ones(3, np.float16),
              np.arange(5, dtype=np.int64), np.arange(5, dtype=np.int32), np.tril(np.ones((3, 3), bool)),
              np.empty((0, 4)), np.array(2.5), np.arange(12.0).reshape(3, 4)[:, ::2],  # a strided view
              np.arange(4, dtype=">f8")]                                             # big-endian
    out = roundtrip({"a": arrays, "t": torch.ones(2)})
    for sent, got in zip(arrays, out["a"], strict=True):
        assert type(got) is np.ndarray and got.flags.c_contiguous and got.flags.owndata
        assert got.dtype.name == sent.dtype.name and got.dtype.isnative and got.shape == sent.shape
        np.testing.assert_array_equal(got, sent)
    assert type(out["t"]) is torch.Tensor      # tensors stay tensors beside arrays


def test_an_array_subclass_arrives_as_a_plain_array():
    class Lying(np.ndarray):
        def __eq__(self, other):
            return True

    sent = np.arange(3.0).view(Lying)
    got = roundtrip(sent)
    assert type(got) is np.ndarray
    assert (got == np.array([9.0, 9.0, 9.0])).tolist() == [False, False, False]


def test_object_string_and_complex_arrays_are_refused_not_pickled():
    for bad in (np.array([object()]), np.array(["a"]), np.ones(2, complex), np.ones(2, np.uint8)):
        with pytest.raises(protocol.ProtocolError, match="dtype"):
            protocol.encode(bad)


def test_a_forged_bool_array_and_a_short_body_are_protocol_errors():
    header = b'{"v":{"A":0},"t":[{"dtype":"bool","shape":[2],"offset":0,"nbytes":2}],"n":2}'
    with pytest.raises(protocol.ProtocolError, match="0/1"):
        protocol.decode(header, b"\x00\x07")
    header = b'{"v":{"A":0},"t":[{"dtype":"float64","shape":[2],"offset":0,"nbytes":16}],"n":8}'
    with pytest.raises(protocol.ProtocolError):
        protocol.decode(header, bytes(8))


def test_a_decoded_array_owns_its_memory():
    header = b'{"v":{"A":0},"t":[{"dtype":"float32","shape":[2],"offset":0,"nbytes":8}],"n":8}'
    body = bytearray(struct.pack("<2f", 1.0, 2.0))
    a = protocol.decode(header, body)
    body[:] = b"\0" * 8
    assert a.tolist() == [1.0, 2.0]
    a[0] = 5.0                                  # writable: a test may reuse it as an input


# --------------------------------------------------------------------------- in the jail

NUMPY_MODULE = '''
import numpy as np

SCALE = 2.0

def softmax(a, axis=-1):
    a = a - np.max(a, axis=axis, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=axis, keepdims=True)

def three(x, mask=None):
    return x * SCALE, np.where(mask, x, 0.0) if mask is not None else None, float(np.sum(x))

def scalar(x):
    return np.float64(x).sum()

def as_matrix(x):
    return np.asmatrix(x)

def objects():
    return np.array([object()])

def raises(x):
    return x[10]
'''


def test_module_functions_take_and_return_numpy_arrays_in_the_jail(executor):
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 1000.0]])
    with executor.session(NUMPY_MODULE, "attention.py", "attention") as s:
        s.load()
        w = s.call_function("softmax", x, axis=-1)
        assert type(w) is np.ndarray and w.dtype == np.float64
        np.testing.assert_allclose(w.sum(axis=-1), [1.0, 1.0])
        mask = np.tril(np.ones((2, 3), bool))
        scaled, masked, total = s.call_function("three", x, mask=mask)
        np.testing.assert_array_equal(scaled, x * 2.0)
        np.testing.assert_array_equal(masked, np.where(mask, x, 0.0))
        assert total == pytest.approx(1006.0)
        assert s.call_function("three", x)[1] is None
        got = s.call_function("scalar", 3.0)          # a NumPy scalar comes back as a 0-d array
        assert type(got) is np.ndarray and got.shape == () and float(got) == 3.0
        assert type(s.call_function("as_matrix", x)) is np.ndarray


def test_errors_of_module_functions_name_the_student_line(executor):
    with executor.session(NUMPY_MODULE, "attention.py", "attention") as s:
        s.load()
        with pytest.raises(StudentError) as info:
            s.call_function("raises", np.zeros(2))
        line = NUMPY_MODULE.splitlines().index("    return x[10]") + 1
        assert info.value.kind == "IndexError" and info.value.lineno == line
        with pytest.raises(StudentError, match="not allowed"):
            s.call_function("objects")
        with pytest.raises(StudentError) as info:
            s.call_function("missing_function", 1)
        assert info.value.kind == "AttributeError" and info.value.lineno is None
        with pytest.raises(StudentError, match="not a function"):
            s.call_function("SCALE")
        assert s.alive                               # none of these costs the session


PANDAS_PROBE = "import sys\nBEFORE = 'pandas' in sys.modules\nimport pandas\n\ndef before():\n    return BEFORE\n"


@pytest.mark.slow  # 5-30 s: off the fast lane's 10-minute budget (stop 43 durations run)
def test_preloaded_packages_are_already_imported_when_the_student_module_loads(executor):
    from grading.sandbox import Executor
    from tests.sandbox.helpers import TEST_LIMITS, wait_no_leftovers

    with executor.session(PANDAS_PROBE, "attention.py", "attention") as s:
        s.load()
        assert s.call_function("before") is False          # the shared fixture preloads nothing
    with Executor(TEST_LIMITS, preload=("pandas", "no_such_package_xyz")) as ex:
        with ex.session(PANDAS_PROBE, "attention.py", "attention") as s:
            s.load()
            assert s.call_function("before") is True       # imported once in the zygote
        assert ex.alive                                     # a missing package is skipped
    assert wait_no_leftovers(ex) == []


NUMPY_DRAW = "import numpy as np\n\ndef draw():\n    return np.random.rand(8)\n"


@pytest.mark.parametrize("preload", [(), ("pandas",)], ids=["numpy.random imported in the jail",
                                                            "numpy.random preloaded by pandas"])
@pytest.mark.slow  # seconds of wall spent waiting for a limit or a cold start
def test_two_sessions_do_not_share_numpy_random_draws(preload):
    """With pandas preloaded the zygote holds NumPy's global generator, which every jail would
    inherit in the same state: each jail seeds it afresh, as it does torch's and Python's."""
    from grading.sandbox import Executor
    from tests.sandbox.helpers import TEST_LIMITS

    with Executor(TEST_LIMITS, preload=preload) as ex:
        draws = []
        for _ in range(2):
            with ex.session(NUMPY_DRAW, "attention.py", "attention") as s:
                s.load()
                draws.append(s.call_function("draw"))
    assert not np.array_equal(draws[0], draws[1])


def test_the_worker_preloads_what_the_suites_declare():
    from grading.executor import suite_packages
    from grading.suite import load_suite, suite_names

    assert {"attention", "attention_numpy"} <= set(suite_names())
    assert "pandas" in load_suite("attention_numpy").packages
    assert "pandas" in suite_packages() and "numpy" in suite_packages() and "torch" not in suite_packages()
