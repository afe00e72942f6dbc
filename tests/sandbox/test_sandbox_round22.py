"""Round 22 of hostile submissions at the sandbox's level: kernel memory a jail can hold outside its
RLIMIT_AS. Pipes enlarged with F_SETPIPE_SZ held up to 1 MiB each (25 of them: ~25 MiB) until the jail
ended; the seccomp filter refuses the enlargement, so a pipe keeps its default 64 KiB."""

from __future__ import annotations

from tests.sandbox.helpers import assert_healthy

PIPES = '''
import fcntl, os

F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032


def enlarge(n, size):
    """Open n pipes, ask each for ``size`` bytes and fill it: (the refusals, the largest pipe, bytes held)."""
    refused, largest, held, keep = 0, 0, 0, []
    for _ in range(n):
        r, w = os.pipe()
        keep.append((r, w))
        try:
            fcntl.fcntl(w, F_SETPIPE_SZ, size)
        except PermissionError:
            refused += 1
        largest = max(largest, fcntl.fcntl(w, F_GETPIPE_SZ))
        os.set_blocking(w, False)
        try:
            while True:
                held += os.write(w, b"x" * 65536)
        except BlockingIOError:
            pass
    return [refused, largest, held]
'''


def test_a_pipe_in_the_jail_cannot_be_enlarged_past_its_default(executor):
    with executor.session(PIPES, "pipes.py", "pipes") as s:
        s.load()
        refused, largest, held = s.call_function("enlarge", 25, 1 << 20)
    assert refused == 25
    assert largest == 64 * 1024
    assert held <= 25 * 64 * 1024, f"{held / 2**20:.1f} MiB held in pipes"
    assert_healthy(executor)


# SO_SNDBUF/SO_RCVBUF raised to net.core.wmem_max let 30 socketpairs queue 470 MiB (refused since round 22);
# since round 24 a jail makes no socket at all: tests/sandbox/test_sandbox_round24.py.
