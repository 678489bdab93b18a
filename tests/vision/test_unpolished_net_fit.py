"""The frames the reader searches take the network's fit without the full-resolution
polish (``proposers.Frame.net_fit``); a saved calibration, which serves every later frame
of a fixed camera, is polished once (``calibration.make_calibration``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import zatre_vision.vision.location.find_board as fb
import zatre_vision.vision.location.grid_fit as gf
from zatre_vision.vision.location import BoardLocator, calibration
from zatre_vision.vision.location.calibration import make_calibration
from zatre_vision.vision.location.locate import to_grey


def _large(photos, kind: str) -> np.ndarray:
    """The test photo at twice its size: cells of ~50 px, so the fit searches a reduced
    image and a polish at full resolution has something to add."""
    img = cv2.imread(str(photos[kind][0]))
    return cv2.resize(img, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC)


@pytest.mark.parametrize("kind", ["empty", "some"])
def test_settled_fit_without_polish_scores_the_same_and_lies_close(photos, kind):
    img = _large(photos, kind)
    grey = to_grey(img)
    outline = BoardLocator().finder.find(img)
    assert outline is not None
    polished = fb.settled_fit(grey, outline.starts(), polish=True)
    plain = fb.settled_fit(grey, outline.starts(), polish=False)
    # the scores come before the polish, so the choice of fit is the same
    assert (plain.score, plain.quarters) == (polished.score, polished.quarters)
    cell = plain.model.cell_size_px()
    gap = np.abs(plain.model.corners() - polished.model.corners()).max() / cell
    assert 0 < gap < 0.1


def test_the_located_board_is_not_polished_and_its_calibration_is(photos, monkeypatch):
    img = _large(photos, "some")
    truth = 2.0 * np.asarray(photos["some"][1]["corners"]) + 0.5   # pixel centres x2
    calls = []
    real = gf.polish

    def counted(grey, model, half=gf.POLISH_HALF):
        calls.append(model)
        return real(grey, model, half)

    monkeypatch.setattr(gf, "polish", counted)
    monkeypatch.setattr(calibration, "polish", counted)
    found = BoardLocator().locate(img)
    assert found.method == "net"
    assert calls == []
    model = found.result.model
    cal = make_calibration(img, model)
    assert len(calls) == 1
    assert not np.allclose(cal.model.homography, model.homography)
    cell = model.cell_size_px()
    gap = np.abs(cal.model.corners() - model.corners()).max() / cell
    assert gap < 0.1
    # no farther from the true corners than the fit it came from
    err = [np.linalg.norm(m.corners() - truth, axis=1).max() / cell for m in (model, cal.model)]
    assert err[1] <= err[0] + 0.01


def test_a_calibration_keeps_the_fit_where_the_polish_sees_no_lines(photos):
    """A fit the polish cannot follow (a grey frame: no lines) is saved as it is."""
    img = _large(photos, "some")
    model = BoardLocator().locate(img).result.model
    flat = np.full_like(img, 128)
    cal = make_calibration(flat, model)
    assert np.array_equal(cal.model.homography, model.homography)
