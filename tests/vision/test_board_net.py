"""The board network's input, targets and decoding (the model itself is in test_reader)."""

from __future__ import annotations

import numpy as np
import pytest

from zatre_vision.vision.location.board_net import INPUT_H, INPUT_W, decode, net_input
from zatre_vision.vision.location.find_board import corner_gap_cells

from .conftest import render


@pytest.mark.parametrize("shape", [(960, 1280, 3), (480, 640, 3), (1080, 1920, 3),
                                   (3040, 4056, 3), (600, 600), (720, 960, 3)])
def test_net_input_keeps_aspect_and_pads(shape):
    img = np.full(shape, 200, np.uint8)
    x, scale, (px, py) = net_input(img)
    assert x.shape == (3, INPUT_H, INPUT_W)
    assert x.dtype == np.uint8
    h, w = shape[:2]
    assert abs(w * scale - (INPUT_W - 2 * px)) <= 1.01
    # the frame is bright, the padding black
    assert x[:, int(py) + 1, int(px) + 1].min() == 200
    if px >= 1:
        assert x[:, :, 0].max() == 0


@pytest.mark.parametrize("kind", ["empty", "hand", "full"])
def test_targets_decode_back_to_the_true_corners(kind):
    """The training targets, decoded as the reader decodes the network's maps, give the
    true grid corners back: targets and decoding use one geometry."""
    from zatre_vision.training.board_data import targets

    img, truth = render(kind, 2)
    _, scale, pad = net_input(img)
    out = decode(targets(truth, scale, pad).astype(np.float64), scale, pad)
    assert out is not None
    c = np.asarray(truth["corners"])
    cell = float(np.linalg.norm(c[1] - c[0])) / 15
    assert corner_gap_cells(out.corners, c, cell) < 0.2
    assert out.confidence > 0.9


def test_decode_of_empty_maps_is_no_board():
    assert decode(np.zeros((2, INPUT_H // 2, INPUT_W // 2)), 0.125, (0.0, 0.0)) is None
    speck = np.zeros((2, INPUT_H // 2, INPUT_W // 2))
    speck[0, 10:14, 10:14] = 1.0     # far too small for a board
    assert decode(speck, 0.125, (0.0, 0.0)) is None


def test_locator_uses_the_network_and_falls_back_without_it(photos, tmp_path):
    import cv2

    from zatre_vision.vision.location import BoardLocator

    path, truth = photos["hand"]
    img = cv2.imread(str(path))
    c = np.asarray(truth["corners"])
    cell = float(np.linalg.norm(c[1] - c[0])) / 15
    net = BoardLocator().locate(img)
    assert net.method == "net"
    assert corner_gap_cells(net.result.model.corners(), c, cell) < 0.3
    classical = BoardLocator(tmp_path / "missing.onnx")
    assert classical.finder is None and "not found" in classical.load_error
    found = classical.locate(img)
    assert found.method == "classical"
    assert corner_gap_cells(found.result.model.corners(), c, cell) < 0.3
    nothing = BoardLocator().locate(cv2.imread(str(photos["none"][0])))
    assert not nothing.result.found and nothing.method == "none"


class _Reading:
    quality = 0.0


@pytest.mark.parametrize(("net_score", "quarters", "on_the_board", "source"), [
    (0.85, (0.8, 0.8, 0.7, 0.75), True, "locate:net"),     # a good fit: no search at all
    (0.62, (0.7, 0.3, 0.6, 0.6), True, "locate:net"),      # faint, but it proves itself
    (0.85, (0.8, 0.8, 0.7, 0.75), False, "locate:classical"),  # off the board: the search
])
def test_the_classical_search_runs_only_where_the_network_fit_does_not_prove(
        photos, monkeypatch, net_score, quarters, on_the_board, source):
    """The proof alone decides: a network fit that proves itself is the board, however
    clear the search's lines would be, and the search never runs; a network fit on the
    table beside the board does not prove, and the search's grid does. (Before the
    proposers, a faint network fit was weighed against the search by line contrast.)"""
    import cv2

    import zatre_vision.vision.location.find_board as fb
    import zatre_vision.vision.location.proposers as pr
    from zatre_vision.board_prints import load_prints
    from zatre_vision.vision.location import (
        BoardLocator,
        ProofSetup,
        expectations,
        locate_board,
    )
    from zatre_vision.vision.location.grid_fit import FitResult, plain_model
    from zatre_vision.vision.location.locate import LocateResult, to_grey
    from zatre_vision.vision.location.print_proof import ProofConfig

    path, truth = photos["some"]
    img = cv2.imread(str(path))
    h, w = img.shape[:2]
    good = BoardLocator().locate(img).result.model      # a real model of this photo
    table = plain_model(np.array([[0.0, 0.0], [0.2 * w, 0.0], [0.2 * w, 0.2 * h],
                                  [0.0, 0.2 * h]]), w, h)
    searched = []

    def fake_search(grey):
        searched.append(True)
        return LocateResult(good, 0.92, 100, ((good, 0.92),))

    net = good if on_the_board else table
    monkeypatch.setattr(fb, "fit_from_corners",
                        lambda grey, corners, full_polish=True:
                        FitResult(net, net_score, quarters, (0, 0)))
    monkeypatch.setattr(pr, "locate", fake_search)
    prints = load_prints()
    board = locate_board(img, to_grey(img), BoardLocator(), lambda model: _Reading(),
                         ProofSetup(ProofConfig(), expectations(prints), prints))
    assert board.found and board.source == source
    assert bool(searched) == (not on_the_board)
    assert board.score == (0.92 if searched else net_score)
