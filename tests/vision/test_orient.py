"""Board orientation from the print (the yellow label bottom right) and the upright rule."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from zatre_vision.vision.geometry import GridModel, homography_from_corners
from zatre_vision.vision.location.locate import relabelled, upright
from zatre_vision.vision.location.orient import by_print, yellowness


def _truth_model(truth: dict) -> GridModel:
    w, h = truth["image_size"]
    return GridModel(homography_from_corners(np.array(truth["corners"])), 0.0, w, h)


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_the_label_restores_the_true_corner_order(photos, turns):
    path, truth = photos["some"]
    img = cv2.imread(str(path))
    true = _truth_model(truth)
    out = by_print(img, relabelled(true, turns))
    assert np.abs(out.corners() - true.corners()).max() < 1e-6


def test_no_label_seen_keeps_the_labels(photos):
    """A grey frame, or a label hidden under a blank patch: the model is unchanged."""
    path, truth = photos["some"]
    img = cv2.imread(str(path))
    model = relabelled(_truth_model(truth), 1)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert by_print(grey, model) is model
    covered = img.copy()
    corner = _truth_model(truth).to_image(np.array([[13.0, 12.5], [16.0, 16.0]])).astype(int)
    x0, y0 = corner.min(axis=0)
    x1, y1 = corner.max(axis=0)
    covered[y0:y1, x0:x1] = (90, 120, 150)      # an arm's colour, not yellow
    assert yellowness(covered, model).max() < 0.4
    assert by_print(covered, model) is model


def test_upright_does_not_depend_on_the_labels_given():
    """Under perspective two edges can lie within 45 degrees of horizontal; the most
    horizontal one is the top edge whatever the labels were."""
    corners = np.array([[100.0, 100.0], [500.0, 420.0], [260.0, 760.0], [-120.0, 420.0]])
    model = GridModel(homography_from_corners(corners), 0.0, 640, 480)
    first = upright(model).corners()
    for s in range(4):
        assert np.abs(upright(relabelled(model, s)).corners() - first).max() < 1e-6


def _turned(img: np.ndarray, corners: np.ndarray, degrees: float
            ) -> tuple[np.ndarray, np.ndarray]:
    """The photo turned by ``degrees`` about its centre (on a larger canvas, nothing
    cut off), and the grid corners moved with it."""
    h, w = img.shape[:2]
    side = int(np.hypot(w, h)) + 2
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    m[:, 2] += ((side - w) / 2, (side - h) / 2)
    out = cv2.warpAffine(img, m, (side, side), flags=cv2.INTER_LINEAR)
    moved = np.c_[corners, np.ones(4)] @ m.T
    return out, moved


def _label_covered(img: np.ndarray, model: GridModel) -> np.ndarray:
    covered = img.copy()
    pts = model.to_image(np.array([[13.0, 12.5], [16.0, 12.5], [16.0, 16.0], [13.0, 16.0]]))
    cv2.fillConvexPoly(covered, pts.astype(np.int32), (90, 120, 150))   # an arm, not yellow
    return covered


def _top_edge_degrees(corners: np.ndarray) -> float:
    d = corners[1] - corners[0]
    return float(np.degrees(np.arctan2(d[1], d[0])))


@pytest.mark.parametrize("target", [-47.0, 47.0])
def test_the_logo_settles_a_board_turned_about_45_degrees_with_the_label_hidden(
        photos, target):
    """Turned so that its top edge runs at 47 degrees, the rule takes the other edge (a
    toss-up so near 45 degrees); with the label under an arm, the logo top left decides
    between the two candidate edges."""
    path, truth = photos["some"]
    corners = np.array(truth["corners"])
    # cv2's rotation turns the picture counter-clockwise: image angles drop by it
    degrees = _top_edge_degrees(corners) - target
    img, corners = _turned(cv2.imread(str(path)), corners, degrees)
    assert abs(_top_edge_degrees(corners) - target) < 1e-6
    h, w = img.shape[:2]
    true = GridModel(homography_from_corners(corners), 0.0, w, h)
    covered = _label_covered(img, true)
    assert yellowness(covered, true).max() < 0.4
    by_rule = upright(true)
    assert np.abs(by_rule.corners() - true.corners()).max() > 100, \
        "turned past 45 degrees, the rule picks the other edge"
    out = by_print(covered, by_rule)
    assert np.abs(out.corners() - true.corners()).max() < 1e-6


def test_the_logo_does_not_overrule_a_clear_upright_board(photos):
    """Turned 30 degrees the rule is not in doubt: with the label hidden, the rule stands
    even for a labelling the logo disagrees with (a quarter turn off)."""
    path, truth = photos["some"]
    img, corners = _turned(cv2.imread(str(path)), np.array(truth["corners"]), 30.0)
    h, w = img.shape[:2]
    true = GridModel(homography_from_corners(corners), 0.0, w, h)
    covered = _label_covered(img, true)
    assert np.abs(upright(true).corners() - true.corners()).max() < 1e-6
    quarter_off = relabelled(true, 1)
    assert by_print(covered, quarter_off) is quarter_off
    assert by_print(covered, true) is true
