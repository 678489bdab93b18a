"""Board orientation from the print (the yellow label bottom right) and the upright rule."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from zatre_vision.vision.geometry import GridModel, homography_from_corners
from zatre_vision.vision.locate import relabelled, upright
from zatre_vision.vision.orient import by_print, yellowness


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
