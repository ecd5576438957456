"""eval.analysis.heap: big temporary arrays reuse the heap's memory inside ``kept_heap``."""

import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gammon.eval.analysis import heap

pytestmark = pytest.mark.skipif(not heap.available(), reason="the C library is not glibc")

# a fresh process (the allocator's own adaptive settings), then a rollout's pattern: a
# block of 4 to 16 MB made, written all over and freed, again and again
_CHURN = textwrap.dedent("""
    import resource, sys
    import numpy as np
    from gammon.eval.analysis.heap import kept_heap

    def faults(rounds=40):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for i in range(rounds):
            a = np.ones((1 + i % 4) << 20, dtype=np.float32)  # 4 to 16 MB
            b = np.ones(3 << 20, dtype=np.float32)
            del a, b
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

    if sys.argv[1] == "kept":
        with kept_heap():
            faults(4)  # the heap grows once
            print(faults())
    else:
        faults(4)
        print(faults())
""")


def _faults(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", _CHURN, mode], capture_output=True, text=True,
                         check=True, timeout=120)
    return int(out.stdout.split()[-1])


def test_inside_the_heap_is_kept_and_pages_do_not_fault_in_again():
    """Outside, glibc trims the top of its heap as blocks are freed, and their pages fault in
    again when the next blocks are written (about 2,000 faults over these 40 rounds on
    Debian 12's glibc); inside, the heap keeps them (none there)."""
    kept, plain = _faults("kept"), _faults("plain")
    assert kept < 200, kept
    assert plain > 500, (plain, kept)


def test_the_numbers_are_the_same_inside_and_the_settings_are_left_sane():
    """Nothing computed changes; after the block, big arrays still come and go."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2000, 300)).astype(np.float32)
    outside = (x @ x.T).sum(axis=1)
    with heap.kept_heap():
        inside = (x @ x.T).sum(axis=1)
    np.testing.assert_array_equal(inside, outside)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(3):
        big = np.ones(64 << 20, dtype=np.uint8)  # above the heap's limit: mapped and unmapped
        assert big[-1] == 1
        del big
    assert resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before > 0
