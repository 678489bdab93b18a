"""``percentile``: numpy's default (linear) percentile of a 1-D sample, for the hot loops.

``np.percentile`` costs about 0.1 ms a call in Python-level checks and bookkeeping; the
grid fit calls it some 25 times a frame on samples of a few hundred to two thousand
values. This gives the same value, bit for bit (the same two order statistics from
``np.partition`` and the same interpolation, ``numpy.lib._function_base_impl._lerp``),
for finite samples.
"""

from __future__ import annotations

import numpy as np


def percentile(a: np.ndarray, q: float):
    """The ``q``-th percentile (0..100) of the finite values ``a`` (any shape, taken
    flat), as ``np.percentile(a, q)`` gives it: same value and dtype."""
    a = np.asarray(a).ravel()
    n = a.size
    if n == 0:
        raise ValueError("percentile of an empty sample")
    at = (n - 1) * (q / 100.0)
    if at >= n - 1:
        return a.max()
    if at <= 0:
        return a.min()
    lo = int(at)
    part = np.partition(a, (lo, lo + 1))
    x0, x1 = part[lo], part[lo + 1]
    t = at - lo
    d = x1 - x0
    # numpy's lerp: from the nearer end, so that t = 1 gives x1 exactly
    return x1 - d * (1 - t) if t >= 0.5 else x0 + d * t


__all__ = ["percentile"]
