"""The camera model's numerics: the lens inverse and the least-squares homography."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from zatre_vision.vision.geometry import (
    GridModel,
    HomographyFitter,
    dlt_homography,
    homography_from_corners,
)
from zatre_vision.vision.location.locate import K_RANGE

W, H = 1280, 960
CORNERS = np.array([[300.0, 200.0], [900.0, 230.0], [950.0, 800.0], [280.0, 770.0]])


@settings(max_examples=60, deadline=None)
@given(k=st.floats(*K_RANGE), seed=st.integers(0, 2**31))
def test_undistort_inverts_distort_wherever_the_lens_is_invertible(k, seed):
    model = GridModel(np.eye(3), k, W, H)
    # points whose normalised radius stays inside the lens's invertible range
    rng = np.random.default_rng(seed)
    ang = rng.uniform(0, 2 * np.pi, 200)
    rad = rng.uniform(0, 0.6, 200) * model.scale
    pts = model.centre + np.stack([np.cos(ang), np.sin(ang)], 1) * rad[:, None]
    assert np.abs(model.distort(model.undistort(pts)) - pts).max() < 1e-6
    assert np.abs(model.undistort(model.distort(pts)) - pts).max() < 1e-6


def test_undistort_stays_finite_beyond_a_strong_barrel_terms_turning_point():
    model = GridModel(np.eye(3), K_RANGE[0], W, H)
    corners = np.array([[0.0, 0.0], [W, 0.0], [W, H], [0.0, H], [5e4, -5e4]])
    assert np.isfinite(model.undistort(corners)).all()


def test_dlt_recovers_a_homography_from_exact_points():
    true = homography_from_corners(CORNERS)
    grid = np.random.default_rng(1).uniform(0, 15, (300, 2))
    img = GridModel(true, 0.0, W, H).to_image(grid)
    assert np.abs(dlt_homography(grid, img) - true).max() < 1e-6


def test_dlt_refuses_degenerate_input_instead_of_raising():
    grid = np.random.default_rng(2).uniform(0, 15, (50, 2))
    img = GridModel(homography_from_corners(CORNERS), 0.0, W, H).to_image(grid)
    assert dlt_homography(grid[:3], img[:3]) is None
    bad = img.copy()
    bad[4] = np.nan
    assert dlt_homography(grid, bad) is None
    assert dlt_homography(grid, img * 1e12) is None
    same_spot = dlt_homography(grid, np.zeros_like(img))   # all on one pixel: no exception
    assert same_spot is None or np.isfinite(same_spot).all()


def _textbook_dlt(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The normalised DLT written out: the 2N x 9 system and its smallest singular
    vector."""
    def normalise(p):
        c = p.mean(axis=0)
        s = np.sqrt(2) / np.linalg.norm(p - c, axis=1).mean()
        return (p - c) * s, np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]])

    a, ta = normalise(src)
    b, tb = normalise(dst)
    rows = []
    for (x, y), (u, v) in zip(a, b, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    h = np.linalg.svd(np.array(rows))[2][-1].reshape(3, 3)
    h = np.linalg.inv(tb) @ h @ ta
    return h / h[2, 2]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), noise=st.floats(0.0, 3.0), n=st.integers(6, 400))
def test_homography_fitter_solves_the_same_system_as_the_textbook_dlt(seed, noise, n):
    rng = np.random.default_rng(seed)
    corners = CORNERS + rng.uniform(-60, 60, CORNERS.shape)
    grid = rng.uniform(-1, 16, (n, 2))
    img = GridModel(homography_from_corners(corners), 0.0, W, H).to_image(grid)
    img = img + rng.normal(0, noise, img.shape)
    got = HomographyFitter.of(grid).fit(img)
    want = _textbook_dlt(grid, img)
    # compared where it matters: where the two send the grid
    assert np.abs(GridModel(got, 0.0, W, H).to_image(grid)
                  - GridModel(want, 0.0, W, H).to_image(grid)).max() < 1e-6


def test_one_fitter_serves_several_destination_sets():
    rng = np.random.default_rng(3)
    grid = rng.uniform(0, 15, (200, 2))
    fitter = HomographyFitter.of(grid)
    for k in (-0.05, 0.0, 0.1):
        img = GridModel(homography_from_corners(CORNERS), k, W, H).to_image(grid)
        assert np.array_equal(fitter.fit(img), dlt_homography(grid, img))
    assert fitter.fit(np.zeros((199, 2))) is None       # not one point per source
    assert HomographyFitter.of(grid[:3]) is None
    assert HomographyFitter.of(np.full((10, 2), np.inf)) is None


@settings(max_examples=25, deadline=None)
@given(k=st.floats(-0.05, 0.2), ppc=st.sampled_from([10, 16, 20]),
       u0=st.floats(-2.0, 0.5), seed=st.integers(0, 2**31))
def test_rectify_map_puts_every_pixel_where_the_model_sends_its_grid_point(k, ppc, u0, seed):
    model = GridModel(homography_from_corners(CORNERS), k, W, H)
    u1 = 15.0 - u0
    xy = model.rectify_map(ppc, u0, u0, u1, u1)
    n = int(round((u1 - u0) * ppc))
    assert xy.shape == (n, n, 2) and xy.dtype == np.float32
    # top-view pixel (i, j) draws grid point (u0 + (j + 0.5) / ppc, u0 + (i + 0.5) / ppc);
    # the map is sampled every 4 px and interpolated between samples (the outermost two
    # pixels on each side lie beyond the first and last sample, see sampled_map)
    rng = np.random.default_rng(seed)
    ij = rng.integers(2, n - 2, (300, 2))
    grid = u0 + (ij[:, ::-1] + 0.5) / ppc
    assert np.abs(xy[ij[:, 0], ij[:, 1]] - model.to_image(grid)).max() < 0.1


def test_smoothing_before_sampling_only_where_it_is_sampled_down():
    from zatre_vision.vision.geometry import smoothed_for_sampling
    img = np.zeros((60, 60), np.uint8)
    img[:, 30] = 255                        # a one-pixel line
    assert smoothed_for_sampling(img, 20.0, 16.0) is img    # hardly reduced: as it is
    soft = smoothed_for_sampling(img, 80.0, 16.0)           # 5x down: blurred first
    assert soft[:, 30].max() < 255 and soft[:, 28].min() > 0
    # sampled every 5th pixel, the blurred line is still seen at offsets that miss it
    assert soft[:, 2::5].max() > 0 and img[:, 2::5].max() == 0


def test_no_points_map_to_no_points_both_ways():
    """OpenCV's perspectiveTransform answers None for an empty set; a grid fit whose
    line evidence is flat everywhere (no sample stronger than the 30th percentile) asked
    for exactly that, and the reader crashed on one photo of the wide benchmark."""
    model = GridModel(np.array([[40.0, 0, 100], [0, 40.0, 80], [0, 0, 1]]), 0.05, 640, 480)
    assert model.to_image(np.empty((0, 2))).shape == (0, 2)
    assert model.to_grid(np.empty((0, 2))).shape == (0, 2)


def test_a_rectified_line_fit_on_a_flat_image_gives_up_instead_of_raising():
    from zatre_vision.vision.location.locate import rectified_line_fit

    model = GridModel(np.array([[20.0, 0, 150], [0, 20.0, 80], [0, 0, 1]]), 0.0, 640, 480)
    assert rectified_line_fit(np.full((480, 640), 0.5, np.float32), model, 0.5, blur=False) is None
