"""``quantile.percentile`` and ``row_percentiles`` give exactly what ``np.percentile`` gives
(value and dtype) under numpy 2.4 (the development venv). Under numpy 2.2 (Trixie's,
make test-pi-trixie), whose ``np.percentile`` works the interpolation index of a
float32 sample in float32, they give the same dtype, a float64 sample's value bit for bit
and a float32 sample's to the precision of a float32 index (found by the Trixie run,
issue 52). Under numpy 1.x (the Pi's 1.24, make test-pi), whose
``np.percentile`` works a float32 sample in float64, they give the same value to float32
precision and keep the sample's dtype, as on numpy 2: the reader sees the same numbers
on the Pi as here."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from zatre_vision.vision.quantile import percentile, row_percentiles

NUMPY = tuple(int(part) for part in np.__version__.split(".")[:2])
NUMPY_2 = NUMPY >= (2, 0)
NUMPY_EXACT = NUMPY >= (2, 4)  # bit for bit: numpy's own lerp of these releases


def same(got, want, a) -> None:
    got, want = np.asarray(got), np.asarray(want)
    a = np.asarray(a)
    if NUMPY_EXACT or (NUMPY_2 and a.dtype != np.float32):
        assert np.array_equal(got, want)
        assert got.dtype == want.dtype
    elif NUMPY_2:  # numpy 2.2, float32: the index (n - 1) * q / 100 rounded to float32
        scale = max(1.0, float(np.abs(a).max(initial=0)))
        n = a.shape[-1] if a.ndim else 1
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-7 * max(n, 8) * 2 * scale)
        assert got.dtype == want.dtype
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * max(1.0, float(np.abs(a).max(initial=0))))
        # no rows: numpy's own answer is passed on
        assert got.dtype == (np.asarray(a).dtype if np.asarray(a).size else want.dtype)

FINITE = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=32)


@settings(max_examples=300, deadline=None)
@given(a=st.one_of(arrays(np.float32, st.integers(1, 400), elements=FINITE),
                   arrays(np.float64, st.integers(1, 400), elements=FINITE),
                   arrays(np.float64, st.integers(1, 60),
                          elements=st.integers(-3, 3).map(float))),   # many ties
       q=st.one_of(st.sampled_from([0.0, 25.0, 30.0, 60.0, 75.0, 98.0, 100.0]),
                   st.floats(0, 100)))
def test_same_as_numpy(a, q):
    want, got = np.percentile(a, q), percentile(a, q)
    same(got, want, a)


def test_takes_any_shape_flat_and_leaves_the_sample_alone():
    a = np.arange(12, dtype=np.float64)[::-1].reshape(3, 4).copy()
    before = a.copy()
    assert percentile(a, 50) == 5.5
    assert (a == before).all()


def test_empty_sample_is_an_error():
    with pytest.raises(ValueError, match="empty"):
        percentile(np.array([]), 50)


@settings(max_examples=300, deadline=None)
@given(a=st.one_of(arrays(np.float32, st.tuples(st.integers(0, 12), st.integers(1, 200)),
                          elements=FINITE),
                   arrays(np.float64, st.tuples(st.integers(0, 12), st.integers(1, 60)),
                          elements=st.integers(-3, 3).map(float))),   # many ties
       q=st.one_of(st.sampled_from([0.0, 25.0, 80.0, 98.0, 100.0]), st.floats(0, 100)))
def test_row_percentiles_same_as_numpy(a, q):
    want, got = np.percentile(a, q, axis=1), row_percentiles(a, q)
    same(got, want, a)


def test_row_percentiles_take_rows_only():
    with pytest.raises(ValueError, match="2-D"):
        row_percentiles(np.arange(5.0), 50)
    with pytest.raises(ValueError, match="empty"):
        row_percentiles(np.zeros((3, 0)), 50)
