"""Passes over the rows in blocks of 2^18 rows, with the same bits as whole-array passes.

A metric written as ``np.sum(f(scores, labels))`` on 1e7 rows makes several 80 MB
temporaries; allocating them (page faults) costs more than the arithmetic. Here the rows are
visited in blocks of at most :data:`BLOCK` rows, so the temporaries stay small and hot, and the
results are unchanged bit for bit:

* :func:`pairwise_sums` follows the split points of NumPy's pairwise summation
  (``np.add.reduce`` of a contiguous float64 array halves a run of more than 128 values at
  ``n // 2`` rounded down to a multiple of 8, numpy/_core/src/umath/loops_utils.h.src), so
  that summing each block with ``np.sum`` and adding the blocks as that recursion adds them
  gives ``np.sum`` of the whole array exactly (checked in tests/test_blockwise.py);
* :func:`blocks` gives the row ranges in order, for sums that run through the rows one after
  the other (``np.bincount`` with weights): ``np.add.at`` on the blocks in turn adds in the
  same order, hence the same bits.

Elementwise ufuncs (``+``, ``*``, ``log``, ...) give each element the same value whatever
block it is computed in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

__all__ = ["BLOCK", "blocks", "pairwise_sums"]

#: Largest block of rows (2 MB of float64: a few such temporaries stay in the L2 cache).
BLOCK = 1 << 18


def blocks(n: int, size: int = BLOCK) -> Iterator[slice]:
    """Consecutive row ranges of at most ``size`` rows covering ``range(n)``."""
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


def pairwise_sums(n: int, terms: Callable[[slice], Sequence[np.ndarray]],
                  size: int = BLOCK) -> tuple[float, ...]:
    """``tuple(np.sum(t) for t in terms(slice(0, n)))``, bit for bit, without building the
    whole terms: ``terms(rows)`` returns the float64 terms of a range of rows (one array
    each, as many arrays for every range).

    The range is halved as NumPy's pairwise summation halves it (at ``m // 2`` minus its
    remainder modulo 8) until it holds at most ``size`` rows; each such block is summed by
    ``np.sum``, which continues the same recursion inside it, and the halves are added as
    the recursion adds them.
    """
    def total(lo: int, hi: int) -> list[float]:
        m = hi - lo
        if m <= max(size, 128):  # NumPy adds runs of up to 128 values without halving
            return [np.add.reduce(t) for t in terms(slice(lo, hi))]
        half = m // 2
        half -= half % 8
        return [a + b for a, b in zip(total(lo, lo + half), total(lo + half, hi), strict=True)]

    return tuple(float(v) for v in total(0, n))
