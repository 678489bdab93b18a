"""``percentile`` and ``row_percentiles``: numpy's default (linear) percentile of a
sample, and of each row of a 2-D array, for the hot loops.

``np.percentile`` costs about 0.1 ms a call in Python-level checks and bookkeeping; the
grid fit calls it some 25 times a frame on samples of a few hundred to two thousand
values, and the reader a few times a frame on the middles of cell crops (by row). These
give the same values, bit for bit (the same two order statistics from ``np.partition``
and the same interpolation, ``numpy.lib._function_base_impl._lerp``), for finite
samples. Shared by board location and cell reading.
"""

from __future__ import annotations

import numpy as np


def percentile(a: np.ndarray, q: float):
    """The ``q``-th percentile (0..100) of the finite values ``a`` (any shape, taken
    flat), as ``np.percentile(a, q)`` gives it: same value and dtype."""
    return row_percentiles(np.asarray(a).reshape(1, -1), q)[0]


def row_percentiles(a: np.ndarray, q: float) -> np.ndarray:
    """The ``q``-th percentile (0..100) of each row of the 2-D array ``a`` of finite
    values, as ``np.percentile(a, q, axis=1)`` gives it: same values and dtype (an
    array with no rows gives an empty one)."""
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError("row_percentiles takes a 2-D array")
    n = a.shape[1]
    if n == 0:
        raise ValueError("percentile of an empty sample")
    if len(a) == 0:
        return np.percentile(a, q, axis=1)
    at = (n - 1) * (q / 100.0)
    if at >= n - 1:
        return a.max(axis=1)
    if at <= 0:
        return a.min(axis=1)
    lo = int(at)
    part = np.partition(a, (lo, lo + 1), axis=1)
    x0, x1 = part[:, lo], part[:, lo + 1]
    t = at - lo
    d = x1 - x0
    # numpy's lerp: from the nearer end, so that t = 1 gives x1 exactly
    return x1 - d * (1 - t) if t >= 0.5 else x0 + d * t


__all__ = ["percentile", "row_percentiles"]
