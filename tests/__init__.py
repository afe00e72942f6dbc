"""The test suite.

torch runs on one thread in every test process, as in the grader's own processes (`autograder worker`
sets OMP_NUM_THREADS=1, the grading child and the jail call ``torch.set_num_threads(1)``). Set here,
before anything imports torch: with its default of one thread per core, every small operation of the
tests' own checks opened an OpenMP parallel region, and with the corpus prefetch process (and, in CI,
nothing else) running on the same two cores those regions spun waiting for each other. Measured in
round 31 on a loaded 2-core host: `pytest -m "not slow" tests/grading/test_diagnoses.py` 136 s wall and
52 s of CPU with two threads, 47 s and 12 s with one (a 4x6 softmax: 7.8 ms against 3.5 us).
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
