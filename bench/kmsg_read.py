"""Cost of zygote.kernel_end per record of the kernel's log (review RA, round 38): the real /dev/kmsg read whole for a
pid no record names (every record since boot read and parsed: since=0), and the parse of one fault line
(kernel_record_end). Run: .venv/bin/python -m bench.kmsg_read"""

from __future__ import annotations

import os
import time

from grading.sandbox.zygote import KMSG, KMSG_MAX_RECORDS, kernel_end, kernel_record_end


def records_in_ring() -> int:
    fd = os.open(KMSG, os.O_RDONLY | os.O_NONBLOCK)
    n = 0
    try:
        while True:
            try:
                os.read(fd, 8192)
            except BrokenPipeError:
                continue
            except OSError:
                break
            n += 1
    finally:
        os.close(fd)
    return n


def main() -> None:
    n = records_in_ring()
    runs = 20
    t0 = time.thread_time()
    for _ in range(runs):
        kernel_end(9_999_999, 0.0)       # every record since boot is read and parsed; none names this pid
    per = (time.thread_time() - t0) / runs
    print(f"/dev/kmsg: {n} records, {per * 1e3:.2f} ms CPU per read, {per / n * 1e6:.2f} us per record")
    line = b"ag-jail[500]: segfault at 0 ip 00007f8eceb85ad8 sp 00007fffe6007478 error 4 in libc.so.6[167ad8,7f+1]"
    m = 100_000
    t0 = time.thread_time()
    for _ in range(m):
        kernel_record_end(line)
    parse = (time.thread_time() - t0) / m
    print(f"parse of one fault line: {parse * 1e6:.2f} us; bound KMSG_MAX_RECORDS={KMSG_MAX_RECORDS}: "
          f"~{KMSG_MAX_RECORDS * per / n * 1e3:.0f} ms at the measured per-record cost")


if __name__ == "__main__":
    main()
